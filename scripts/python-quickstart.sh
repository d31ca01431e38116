#!/bin/sh
# Tries the Python package as a new user would: a fresh virtual environment, one
# `pip install ./bindings/python` (which builds libtsstore.so with Go), then the README's Python
# quickstart pasted into `python -` in an empty directory. Any failure fails the script.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check "$root/bindings/python"
awk '/^## Using Python/{p=1} p&&/^```python/{f=1;next} f&&/^```/{exit} f' "$root/README.md" >"$work/quickstart.py"
test -s "$work/quickstart.py" || { echo "no Python quickstart found in README.md" >&2; exit 1; }
mkdir "$work/run"
cd "$work/run"
# The package must work from its own install: no source tree on the path, no library override.
env -u TSSTORE_LIBRARY -u PYTHONPATH "$work/venv/bin/python" - <"$work/quickstart.py"
test -f system.nc && test -f system.nc.sqlite
echo "python quickstart: OK"
