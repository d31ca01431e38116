#!/usr/bin/env bash
# make test's wheel group: the Python package as a distributable wheel works on a machine that
# has none of netcdf-c and HDF5. Steps (any failure fails the script):
#
#   1. scripts/build-wheel.sh (make wheel) into a temporary directory: the sdist, a wheel built
#      from the sdist away from this tree (so the sdist carries all it needs), and that wheel
#      repaired by auditwheel. The sdist holds gosrc/ (go.mod, include/, capi/, core/) and no
#      Go test; the built wheel is tagged py3-none-linux_x86_64, the repaired one
#      py3-none-manylinux_*_x86_64. `pip wheel ./bindings/python` gives the platform tag too.
#   2. ldd on every library in the repaired wheel resolves nothing outside it but glibc, the
#      loader, and libz / libstdc++ / libgcc_s, which the manylinux policy lets a wheel take
#      from the system (scripts/wheel-libs.py check; it names each offending library). The
#      unrepaired wheel must fail the same check (negative control).
#   3. A fresh virtual environment installs the repaired wheel, then runs the README's Python
#      quickstart in a mount namespace (unshare -m) where every system library the unrepaired
#      libtsstore.so loads, and every libnetcdf* / libhdf5* / libsz / libaec / libcurl* file,
#      is covered by a bind mount of an empty file: the loader (ld.so.cache included) finds
#      only an empty file there. Libraries the venv's Python itself maps (libffi for ctypes,
#      libssl, ...) stay visible, since a machine with that Python has them; step 2 covers
#      them. Negative control: the unrepaired package, in the same namespace, must fail to
#      import, naming a hidden library.
#
# Needs Go, gcc, libnetcdf-dev, libdeflate-dev, PyPI (for the tools and numpy), and root for unshare -m and
# mount --bind, or else unprivileged user namespaces (unshare --user --map-root-user).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "--- wheel: $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

ns=(unshare --mount --propagation private)
[ "$(id -u)" -eq 0 ] || ns=(unshare --user --map-root-user --mount --propagation private)
"${ns[@]}" true || fail "cannot make a mount namespace (${ns[*]}): the test needs root or user namespaces"

step "1. sdist, wheel from the sdist, auditwheel repair (scripts/build-wheel.sh)"
WHEELHOUSE="$work/wheelhouse" WHEEL_BUILD="$work/build" ./scripts/build-wheel.sh
tools=${WHEEL_TOOLS:-build/wheel-tools}
sdist=$(ls "$work"/build/tsstore-*.tar.gz)
raw=$(ls "$work"/build/tsstore-*.whl)
fixed=$(ls "$work"/wheelhouse/tsstore-*.whl)

listing=$(tar tzf "$sdist")
for f in gosrc/go.mod gosrc/go.sum gosrc/include/tsstore.h gosrc/capi/exports.map gosrc/capi/capi.c \
         gosrc/core/store.go gosrc/core/internal/journal/journal.c setup.py tsstore/_raw.py; do
  grep -qx "tsstore-[^/]*/$f" <<<"$listing" || fail "the sdist has no $f"
done
! grep -E '_test\.go$|/testdata/' <<<"$listing" || fail "the sdist carries Go tests"
grep -q "^tsstore: building libtsstore.so from the Go sources in /.*/gosrc$" "$work/build/build.log" ||
  fail "the wheel was not built from the sdist's gosrc/ (see $work/build/build.log)"
case $(basename "$raw") in
  tsstore-*-py3-none-linux_x86_64.whl) ;;
  *) fail "the wheel built from the sdist is $(basename "$raw"), not py3-none-linux_x86_64" ;;
esac
case $(basename "$fixed") in
  tsstore-*-py3-none-manylinux_2_*_x86_64.whl) ;;
  *) fail "the repaired wheel is $(basename "$fixed"), not py3-none-manylinux_*_x86_64" ;;
esac
echo "sdist $(basename "$sdist"): $(grep -c '/gosrc/.*[^/]$' <<<"$listing") Go source files, built away from the tree"
echo "wheel $(basename "$raw") -> $(basename "$fixed") ($(du -k "$fixed" | cut -f1) KiB)"

# The in-tree build that pip install ./bindings/python does is platform-tagged as well.
"$tools/bin/pip" wheel -q --disable-pip-version-check --no-deps -w "$work/tree" ./bindings/python >"$work/tree.log" 2>&1 ||
  { tail -n 30 "$work/tree.log"; fail "pip wheel ./bindings/python"; }
tree=$(basename "$(ls "$work"/tree/tsstore-*.whl)")
[[ $tree == tsstore-*-py3-none-linux_x86_64.whl ]] || fail "pip wheel ./bindings/python gave $tree"
echo "pip wheel ./bindings/python: $tree"

step "2. ldd on every library of the repaired wheel"
mkdir "$work/fixed" "$work/raw"
(cd "$work/fixed" && python3 -m zipfile -e "$fixed" .)
(cd "$work/raw" && python3 -m zipfile -e "$raw" .)
readelf -d "$work/fixed/tsstore/_lib/libtsstore.so" | grep -q 'R\(UN\)\?PATH.*\[\$ORIGIN/../../tsstore.libs\]' ||
  fail "libtsstore.so's RPATH is not \$ORIGIN/../../tsstore.libs: $(readelf -d "$work/fixed/tsstore/_lib/libtsstore.so" | grep PATH)"
python3 scripts/wheel-libs.py check "$work/fixed"
echo "negative control, the unrepaired wheel (must fail):"
if python3 scripts/wheel-libs.py check "$work/raw" >"$work/raw-check.txt"; then
  cat "$work/raw-check.txt"
  fail "the check passed the unrepaired wheel"
fi
grep -E 'libnetcdf|libhdf5' "$work/raw-check.txt" | head -n 3
tail -n 1 "$work/raw-check.txt"

step "3. the README's quickstart from the installed wheel, the system's netcdf and HDF5 hidden"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check "$fixed"
awk '/^## Using Python/{p=1} p&&/^```python/{f=1;next} f&&/^```/{exit} f' README.md >"$work/quickstart.py"
test -s "$work/quickstart.py" || fail "no Python quickstart found in README.md"
python3 scripts/wheel-libs.py hide "$work/raw/tsstore/_lib/libtsstore.so" "$work/venv/bin/python" >"$work/hide.txt"
echo "hidden: $(xargs -n1 basename <"$work/hide.txt" | sort | tr '\n' ' ')"
: >"$work/empty"

# hidden DIR CMD...: runs CMD in DIR, in a private mount namespace where every file of hide.txt
# is an empty file. Inside, it first checks that the loader cannot load libnetcdf or libhdf5.
hidden() {
  local dir=$1
  shift
  "${ns[@]}" -- env -u TSSTORE_LIBRARY WORK="$work" DIR="$dir" bash -c '
    set -e
    while read -r f; do mount --bind "$WORK/empty" "$f"; done <"$WORK/hide.txt"
    for so in libnetcdf.so.19 libhdf5_serial.so.103; do
      if "$WORK/venv/bin/python" -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$so" 2>/dev/null; then
        echo "FAIL: $so still loads: hiding did not work" >&2; exit 3
      fi
    done
    cd "$DIR"
    exec "$@"' hidden "$@"
}

mkdir "$work/run" "$work/run-raw"
hidden "$work/run" env -u PYTHONPATH "$work/venv/bin/python" - <"$work/quickstart.py" ||
  fail "the quickstart failed from the repaired wheel with the system libraries hidden"
test -f "$work/run/system.nc" && test -f "$work/run/system.nc.sqlite" || fail "the quickstart wrote no store"
echo "quickstart from the repaired wheel: OK"
echo "negative control, the unrepaired package in the same namespace (must fail):"
rc=0
hidden "$work/run-raw" env PYTHONPATH="$work/raw" "$work/venv/bin/python" - <"$work/quickstart.py" >"$work/raw-run.txt" 2>&1 || rc=$?
[ $rc -ne 0 ] || { cat "$work/raw-run.txt"; fail "the unrepaired package ran with the system libraries hidden"; }
# Which hidden library the loader meets first follows the link order (netcdf-c, HDF5,
# libdeflate, ...); any of them will do, as long as it is one the namespace emptied.
missing=$(sed -n "s|^ *$work/raw/tsstore/_lib/libtsstore.so: \(/[^:]*\): file too short\$|\1|p" "$work/raw-run.txt")
[ -n "$missing" ] && grep -qxF "$(readlink -f "$missing")" "$work/hide.txt" ||
  { cat "$work/raw-run.txt"; fail "the unrepaired package failed, but not for a hidden library"; }
echo "it failed on $missing, which the namespace hides"
grep -m1 "$work/raw/tsstore/_lib/libtsstore.so: " "$work/raw-run.txt"
echo "wheel: OK ($(basename "$fixed"))"
