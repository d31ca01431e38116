#!/usr/bin/env bash
# make test, group infrasys: infrasys 1.1.2's own test suite (../shared/peers/infrasys-1.1.2,
# run as it is, never copied here) with tsstore as its time-series storage.
#
# The environment is $INFRASYS_VENV (default .venv-infrasys), apart from .venv: infrasys's
# chronify extra, which its suite needs, pins pandas < 3, below what .venv holds. It gets
# infrasys[chronify]==1.1.2, pytest and pytest-missing-modules (infrasys's dev dependencies
# its tests use), pint 0.24.4 (0.25 refuses a dimensionless-to-volt conversion that
# test_pint_quantities.py::test_pydantic_pint_arguments relies on, nothing to do with
# storage), and the package from bindings/python with its infrasys extra. The plugin tests/peers/infrasys/tsstore_infrasys_plugin.py registers the backend,
# makes it the default storage, adds a "tsstore" case to every storage-parametrized test and
# skips the tests tests/peers/infrasys/skip.txt lists (with their reasons); its last line is
# the tsstore-backed tests' count: "N passed, M failed, K skipped". Then the backend's own
# tests, bindings/python/tests/test_infrasys.py, run in the same environment.
#
#   scripts/test-infrasys.sh            # set up the environment, run the suite
#   scripts/test-infrasys.sh --env      # only set up the environment (make infrasysenv)
#   scripts/test-infrasys.sh -k tsstore # pytest arguments are passed on
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PEER=${INFRASYS_TESTS:-$ROOT/../shared/peers/infrasys-1.1.2}
VENV=${INFRASYS_VENV:-.venv-infrasys}
OUT=${OUT:-out}

# As the Go conformance tests do: a checkout without ../shared beside it skips, CI (which lays
# shared/ beside its clone) fails.
if [ ! -d "$PEER/tests" ]; then
  if [ -n "${CI:-}" ]; then
    echo "infrasys: no test suite at $PEER/tests (set INFRASYS_TESTS)"
    exit 1
  fi
  echo "infrasys: skipped: no test suite at $PEER/tests (shared/ is not beside this checkout; set INFRASYS_TESTS)"
  exit 0
fi
test -x "$VENV/bin/python" || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check pytest pytest-missing-modules "infrasys[chronify]==1.1.2" pint==0.24.4
"$VENV/bin/pip" install -q --disable-pip-version-check "./bindings/python[infrasys]"
if [ "${1:-}" = "--env" ]; then
  exit 0
fi

mkdir -p "$OUT"
log="$OUT/infrasys-tests.log"
# The peer's pyproject.toml asks for coverage (pytest-cov) and ignores a duckdb warning by
# class: -o replaces both, so the suite runs with pytest alone. Its own conftest.py applies
# (rootdir and confcutdir are the peer's directory); tmp files go to a fresh basetemp.
cd "$PEER"
set +e
TSSTORE_INFRASYS_BACKED_LIST="$ROOT/$OUT/infrasys-backed.txt" PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$ROOT/tests/peers/infrasys${PYTHONPATH:+:$PYTHONPATH}" \
  "$ROOT/$VENV/bin/python" -m pytest -p tsstore_infrasys_plugin -p no:cacheprovider \
  --rootdir="$PEER" --confcutdir="$PEER" -o addopts="" -o filterwarnings="" \
  --basetemp="$(mktemp -d)" -q -rfE tests "$@" 2>&1 | tee "$ROOT/$log"
rc=${PIPESTATUS[0]}
set -e
echo "(full log: $log; the tsstore-backed tests: $OUT/infrasys-backed.txt)"
# The backend's own tests (bindings/python/tests/test_infrasys.py, skipped where infrasys is
# missing) against the installed package, from a directory without the source tree.
cd "$(mktemp -d)"
set +e
PYTHONDONTWRITEBYTECODE=1 "$ROOT/$VENV/bin/python" -m pytest -p no:cacheprovider -q "$ROOT/bindings/python/tests/test_infrasys.py"
own=$?
set -e
# The tsstore-backed line decides: every one of those tests passed or is on the skip list.
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$ROOT/$log" | tail -1)
[ -n "$line" ] || { echo "infrasys: no tsstore-backed count (pytest exit $rc)"; exit 1; }
failed=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ] && [ "$own" -eq 0 ]
