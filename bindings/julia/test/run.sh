#!/bin/sh
# Runs TsStore.jl's test suite (runtests.jl) with 2 threads against libtsstore.so: the one
# TSSTORE_LIBRARY names (ctest sets it), else the CMake build's, built first when missing.
# The Julia is the one scripts/provide-julia.sh provides (the PATH's, or Debian's 1.5.3
# unpacked under build/julia); when none can be provided this fails, it never skips.
# make test runs it as the group `julia`, ctest as the test julia_tests.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
julia=$(./scripts/provide-julia.sh) || {
    echo "julia tests: no Julia could be provided (scripts/provide-julia.sh said why above)" >&2
    exit 1
}
if [ -z "${TSSTORE_LIBRARY:-}" ]; then
    build=${CMAKE_BUILD:-build/cmake}
    if [ ! -e "$build/lib/libtsstore.so" ]; then
        cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
        cmake --build "$build" --target tsstore_go_shared -- --no-print-directory
    fi
    TSSTORE_LIBRARY=$root/$build/lib/libtsstore.so
fi
export TSSTORE_LIBRARY
# A depot of the tests' own (precompiled caches), unless the caller names one.
export JULIA_DEPOT_PATH="${JULIA_DEPOT_PATH:-$root/build/julia/depot}"
echo "julia tests: $("$julia" --version), 2 threads, $TSSTORE_LIBRARY"
# Bounds of minutes for a hang (the suite takes well under one).
timeout 30m "$julia" --startup-file=no --project=bindings/julia --threads=2 bindings/julia/test/runtests.jl

# Interoperability, judged by other tools: the conformance store read from Julia equals the
# fixture's values; a store Julia writes reads back through the Python binding and netCDF4,
# and passes the library's integrity and grid checks. The project's Python environment
# (make pyenv) holds those readers.
python=${TSSTORE_PYTHON:-$root/.venv/bin/python}
if [ -x "$python" ]; then
    "$python" bindings/julia/test/check_interop.py "$julia"
elif [ -n "${CI:-}" ]; then
    echo "julia tests: no Python environment at $python for the interoperability checks (make pyenv)" >&2
    exit 1
else
    echo "julia tests: no Python environment at $python: the interoperability checks are skipped (make pyenv)"
fi

# The examples the two READMEs teach, as they stand, each in an empty directory.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for readme in README.md:"## Using Julia" bindings/julia/README.md:"## Example"; do
    file=${readme%%:*} heading=${readme#*:}
    mkdir "$work/run"
    awk -v h="$heading" '$0 == h {p=1} p&&/^```julia/{f=1;next} f&&/^```/{exit} f' "$file" >"$work/example.jl"
    test -s "$work/example.jl" || { echo "julia tests: no Julia example under \"$heading\" in $file" >&2; exit 1; }
    (cd "$work/run" && timeout 10m "$julia" --startup-file=no --project="$root/bindings/julia" "$work/example.jl")
    test -f "$work/run/system.nc" && test -f "$work/run/system.nc.sqlite"
    echo "julia tests: the example of $file ($heading) ran"
    rm -rf "$work/run"
done
