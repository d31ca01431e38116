#!/bin/sh
# Runs C programs linked against archives built with Go's race detector (label race).
#
#   race_run.sh CANARY PROGRAM [ARGS...]   runs PROGRAM; a reported data race fails it
#   race_run.sh --expect-race CANARY       the canary's racy mode must be reported
#
# Both first run CANARY calm (race_canary.c): if the race runtime cannot start on this
# machine at all — ThreadSanitizer cannot map its shadow memory ("failed to allocate",
# "unsupported VMA range") — the test exits 77, which ctest counts as skipped.
#
# GORACE comes from the environment; ctest sets "halt_on_error=1 exitcode=66". halt_on_error
# is what makes a race fail the run: a C program's exit does not pass through the Go
# runtime's exit, which is where a Go program turns the races it saw into its exit status,
# so without it a race is printed and the program still exits 0.
set -u
expect_race=0
if [ "${1:-}" = "--expect-race" ]; then
  expect_race=1
  shift
fi
if [ $# -lt 1 ] || { [ $expect_race = 0 ] && [ $# -lt 2 ]; }; then
  echo "usage: $0 CANARY PROGRAM [ARGS...] | $0 --expect-race CANARY" >&2
  exit 2
fi
canary=$1
shift
echo "GORACE=${GORACE:-}"

out=$("$canary" calm 2>&1)
st=$?
case $out in
  *"no race reported"*) ;;
  *"DATA RACE"*)
    printf '%s\n' "$out"
    echo "FAIL: the canary's calm mode was reported as a race (status $st)"
    exit 1 ;;
  *ThreadSanitizer*)
    printf '%s\n' "$out"
    echo "SKIP: the race runtime cannot start on this machine (status $st)"
    exit 77 ;;
  *)
    printf '%s\n' "$out"
    echo "FAIL: the canary's calm mode failed (status $st)"
    exit 1 ;;
esac
if [ $st -ne 0 ]; then
  printf '%s\n' "$out"
  echo "FAIL: the canary's calm mode exited with status $st"
  exit 1
fi

if [ $expect_race = 1 ]; then
  out=$("$canary" racy 2>&1)
  st=$?
  printf '%s\n' "$out"
  case $out in
    *"WARNING: DATA RACE"*canary_touch*) ;;
    *) echo "FAIL: the race detector did not report the canary's race (status $st)"; exit 1 ;;
  esac
  if [ $st -eq 0 ]; then
    echo "FAIL: the canary's race was reported but the program exited 0 (GORACE needs halt_on_error=1)"
    exit 1
  fi
  echo "ok: the canary's race was reported and failed the run (status $st)"
  exit 0
fi

out=$("$@" 2>&1)
st=$?
printf '%s\n' "$out"
case $out in
  *"DATA RACE"*|*"ThreadSanitizer"*)
    echo "FAIL: the race detector reported a problem (status $st)"
    exit 1 ;;
esac
exit $st
