#!/usr/bin/env bash
# make test: every test group, in order. A failing group does not stop the run: each one's
# result and duration are recorded, and a table of all of them ends the output, followed by
# "groups: N passed, M failed". The exit status is 1 when any group failed.
#
#   scripts/run-tests.sh            # every group
#   scripts/run-tests.sh vet gofmt  # only the groups named
#
# No group passes or fails on the clock: hangs are found by CPU used or by bounds of
# minutes (go test's -timeout below), so a machine busy with other work is only slower.
set -uo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
OUT=${OUT:-out}
MAKE=${MAKE:-make}
# go test's own hang bound for a whole test binary. Its default, 10 minutes, is within reach
# of a sound ./core under -race on a loaded two-core machine; an hour only of a hang.
GO_TIMEOUT=${GO_TIMEOUT:-60m}
gotest=("$GO" test -count=1 -timeout="$GO_TIMEOUT")

names=() results=() times=()

# group NAME CMD...: runs CMD as the group NAME (unless groups were named on the command
# line and NAME is not one of them) and records how it ended.
group() {
  local name=$1 start rc
  shift
  if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $name "* ]]; then
    return 0
  fi
  echo
  echo "=== group $name: $*"
  start=$SECONDS
  "$@"
  rc=$?
  names+=("$name") times+=($((SECONDS - start)))
  if [ $rc -eq 0 ]; then results+=(PASS); else results+=("FAIL"); fi
  echo "=== group $name: ${results[-1]} (exit $rc, $((SECONDS - start)) s)"
}

# filtered LOG PATTERN CMD...: runs CMD with its whole output in LOG and shows only the lines
# matching PATTERN (the summary and the failures); CMD's status is the result.
filtered() {
  local log=$1 pattern=$2 rc
  shift 2
  mkdir -p "$(dirname "$log")"
  "$@" >"$log" 2>&1
  rc=$?
  grep -E "$pattern" "$log"
  echo "(full log: $log)"
  return $rc
}

gofmt_clean() {
  local bad
  bad=$(gofmt -l core capi examples bench cmd tests)
  [ -z "$bad" ] && return 0
  echo "gofmt needed:"
  echo "$bad"
  return 1
}

# fuzz PKG TARGET COUNT: fuzzes TARGET for COUNT inputs, a bound by work, not by time (a
# -fuzztime duration can end a run with "context deadline exceeded" on a loaded machine).
fuzz() {
  "${gotest[@]}" -run='^$' -fuzz="^$2\$" -fuzztime="$3x" "$1"
}

summary() {
  local i passed=0 failed=0
  echo
  echo "=== summary"
  printf '%-28s %-6s %8s\n' group result time
  for i in "${!names[@]}"; do
    printf '%-28s %-6s %7ss\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
    if [ "${results[$i]}" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
  for i in "${only[@]}"; do
    if [[ " ${names[*]} " != *" $i "* ]]; then
      echo "no group named $i"
      failed=$((failed + 1))
    fi
  done
  echo "groups: $passed passed, $failed failed"
  [ $failed -eq 0 ]
}

only=("$@")
mkdir -p "$OUT"

group no-binaries ./scripts/check-no-binaries.sh
group vet "$GO" vet ./...
group gofmt gofmt_clean
# The bindings' raw layers are what include/tsstore.h generates (else: a diff; the fix is to
# run scripts/gen-bindings and commit its output).
group bindings-generated python3 scripts/gen-bindings --check
# Every Go test with the race detector; the file-layout checks use ncdump, ncatted and
# sqlite3, which must be present (TSSTORE_REQUIRE_TOOLS makes a missing tool a failure).
group go-test-race env TSSTORE_REQUIRE_TOOLS=1 "${gotest[@]}" -race ./...
# The crash harness at full size: 200 writers killed with SIGKILL; prints its figures.
group crash-harness filtered "$OUT/crash.log" \
  '^(crash harness|--- |ok|FAIL)|trial [0-9]+: (the unit|[0-9]+ series stored)' \
  "${gotest[@]}" -v -run TestCrashHarness ./tests/crash -trials 200
# Fuzz targets, bounded by input counts; their seed corpora are in testdata/fuzz and also
# ran above.
group fuzz-period fuzz ./core/internal/isotime FuzzParsePeriod 300000
group fuzz-timestamp fuzz ./core/internal/isotime FuzzParseTimestamp 300000
group fuzz-features-json fuzz ./core FuzzParseFeaturesJSON 200000
group fuzz-array-shapes fuzz ./core FuzzAddArrayShapes 200000
group fuzz-mutated-catalog fuzz ./core FuzzOpenMutatedCatalog 2000
# Mutated .nc files, each opened in a child process (HDF5 can crash or loop on them): 160
# fixed mutations with a summary line, then 200 random ones around the seed corpus of
# FuzzOpenMutatedNC. Not under -race (above, the tests skip themselves there): children
# under the race detector take twice as long. The random ones do not go through go test
# -fuzz, whose engine fails any input that takes 10 s of wall time.
group mutated-nc filtered "$OUT/ncmutate.log" \
  '^(mutated nc:|--- |ok|FAIL)|ncmutate_test.go:[0-9]+: (HANG|WRONG|CRASH \(|no verdict)' \
  "${gotest[@]}" -v -run='^TestMutatedNCFiles$' ./core
group mutated-nc-random filtered "$OUT/ncmutate-random.log" \
  '^(mutated nc|--- |ok|FAIL)|ncmutate_random_test.go:[0-9]+: (HANG|WRONG|CRASH \(|no verdict)' \
  "${gotest[@]}" -v -run='^TestRandomMutatedNC$' ./core -ncm-random 200
# The journal's kill and I/O-error sweeps (strace stops a writer at every sync point of
# two units), also skipped under -race above.
group journal-sweeps "${gotest[@]}" -run='^TestJournal(Kill|IOError)AtEverySyncPoint$' ./core
# The Python environment, then the C library's ctest suite (which runs the Python tests
# too when the environment exists).
group pyenv "$MAKE" --no-print-directory pyenv
# The distributable package: sdist, a wheel built from it, auditwheel's manylinux repair, ldd
# on every bundled library, and the README quickstart from the installed wheel with the
# system's netcdf-c and HDF5 hidden in a mount namespace, each beside a negative control
# (the unrepaired wheel must fail both).
group wheel ./scripts/test-wheel.sh
group ctest "$MAKE" --no-print-directory ctest CTEST_FLAGS="-E julia_tests"
# TsStore.jl's test suite with 2 threads, on the Julia scripts/provide-julia.sh provides (the
# PATH's, else Debian 11's 1.5.3 unpacked into build/julia): a failure when none can be had.
group julia ./bindings/julia/test/run.sh
# infrasys 1.1.2's own test suite with tsstore as its storage (scripts/test-infrasys.sh: its
# environment, .venv-infrasys, then the suite); ends with the tsstore-backed tests' count,
# "N passed, M failed, K skipped", the skipped ones listed in tests/peers/infrasys/skip.txt.
group infrasys filtered "$OUT/infrasys-group.log" \
  'tsstore-backed|^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$|^(FAILED|ERROR) |^[0-9]+ (passed|failed|skipped).* in [0-9.]+s|^infrasys:|^\(full log' \
  ./scripts/test-infrasys.sh

summary
