#!/bin/sh
# Runs the Julia test suite against a built libtsstore.so (TSSTORE_LIBRARY), or reports a skip
# (exit 77, which ctest shows as "Skipped") when no julia is on the PATH.
set -eu
if ! command -v julia >/dev/null 2>&1; then
    echo "skipped: julia is not on the PATH (the call and syntax checks still ran: julia_calls, julia_syntax)"
    exit 77
fi
here=$(cd "$(dirname "$0")/.." && pwd)
exec julia --project="$here" -e 'using Pkg; Pkg.test(; julia_args = ["--threads=4"])'
