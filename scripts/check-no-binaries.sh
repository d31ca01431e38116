#!/usr/bin/env bash
# Fails when a tracked file is a compiled object: an ELF file (executable, shared library,
# object), an ar archive (static library), a Mach-O or a PE/COFF file. Build outputs belong
# in build/ and out/ (.gitignore), not in the repository: a committed binary is stale the
# moment the sources change, and it was a 9.6 MB one (issue 20).
# It reads the leading bytes itself, so it needs no `file` and is the same everywhere.
set -euo pipefail
cd "$(dirname "$0")/.."

# magic_kind FILE: prints what kind of compiled object FILE is, or nothing.
magic_kind() {
  local hex
  hex=$(od -An -tx1 -N8 -- "$1")
  hex=${hex//[[:space:]]/}
  case $hex in
    7f454c46*) echo "ELF" ;;
    213c617263683e0a*) echo "ar archive" ;;
    feedface* | feedfacf* | cefaedfe* | cffaedfe*) echo "Mach-O" ;;
    cafebabe*) echo "Mach-O universal (or Java class)" ;;
    4d5a*) echo "PE/DOS executable" ;;
  esac
}

bad=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue # a deleted or symlinked entry holds no bytes of its own
  kind=$(magic_kind "$f")
  if [ -n "$kind" ]; then
    echo "check-no-binaries: $f is a compiled object ($kind)"
    bad=$((bad + 1))
  fi
done < <(git ls-files -z)

if [ $bad -gt 0 ]; then
  echo "check-no-binaries: $bad tracked compiled file(s); git rm them and build them instead"
  exit 1
fi
echo "check-no-binaries: no compiled files among $(git ls-files | wc -l) tracked files"
