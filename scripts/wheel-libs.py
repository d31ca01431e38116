#!/usr/bin/env python3
"""The wheel group's library checks (scripts/test-wheel.sh).

  wheel-libs.py check ROOT
      ldd on every shared library in ROOT (an unpacked wheel). Each dependency must resolve to
      a file inside ROOT, or be one of SYSTEM_OK: glibc and the loader, and the three libraries
      every manylinux policy lets a wheel take from the system. Prints one line per offence,
      naming the library and the dependency, and exits 1 if there is any.

  wheel-libs.py hide LIBRARY PYTHON
      The files to hide from the loader to prove a wheel carries its own libraries: every
      library LIBRARY (the unrepaired libtsstore.so) loads from the system, and every file of
      netcdf-c, HDF5, szip, libaec and libcurl in the system's library directories, as real
      paths, one a line. Left out: SYSTEM_OK, and the libraries PYTHON itself maps when it
      imports what the quickstart and the package import (numpy, ctypes, ...), which a
      machine with that Python has by definition; they are listed on stderr.
"""
from __future__ import annotations

import ast
import glob
import os
import pathlib
import re
import subprocess
import sys

# glibc's libraries and the loader: what no wheel can bundle.
GLIBC = {"linux-vdso.so.1", "ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libmvec.so.1",
         "libpthread.so.0", "libdl.so.2", "librt.so.1", "libresolv.so.2", "libutil.so.1",
         "libanl.so.1"}
# Libraries that auditwheel's manylinux policies (PEP 600) list as present on every system,
# and so never bundles: zlib, and GCC's C++ runtime (ICU, which libxml2 loads, is C++).
MANYLINUX_ASSUMED = {"libz.so.1", "libstdc++.so.6", "libgcc_s.so.1"}
SYSTEM_OK = GLIBC | MANYLINUX_ASSUMED

# Always hidden when present, whether or not the unrepaired library names them.
HIDE_GLOBS = ["libnetcdf*.so*", "libhdf5*.so*", "libsz.so*", "libaec.so*", "libcurl*.so*"]
LIB_DIRS = ["/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64",
            "/usr/lib", "/usr/local/lib", "/usr/lib/x86_64-linux-gnu/hdf5/serial"]

LDD_LINE = re.compile(r"^\s*(\S+)(?:\s+=>\s+(not found|\S+))?")


def ldd(path: str) -> list[tuple[str, str | None]]:
    """(name, resolved path or "not found" or None) for each line of ldd's output."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ldd {path} failed: {out.stderr.strip() or out.stdout.strip()}")
    deps = []
    for line in out.stdout.splitlines():
        if "statically linked" in line:
            continue
        m = LDD_LINE.match(line)
        if m:
            deps.append((m.group(1), m.group(2)))
    return deps


def shared_libraries(root: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and re.search(r"\.so(\.|$)", p.name))


def check(root: pathlib.Path) -> int:
    libs = shared_libraries(root)
    if not any(p.name == "libtsstore.so" for p in libs):
        print(f"wheel-libs: no libtsstore.so under {root}")
        return 1
    bad = 0
    for lib in libs:
        for name, where in ldd(str(lib)):
            base = os.path.basename(name)
            if where == "not found":
                print(f"{lib.relative_to(root)}: {name} not found")
                bad += 1
            elif where is None or base in SYSTEM_OK:
                # linux-vdso and the loader have no "=>"; glibc's resolve to the system.
                if base not in SYSTEM_OK:
                    print(f"{lib.relative_to(root)}: {name} outside the wheel and not glibc")
                    bad += 1
            elif not pathlib.Path(where).resolve().is_relative_to(root.resolve()):
                print(f"{lib.relative_to(root)}: {name} resolves outside the wheel, to {where}")
                bad += 1
    print(f"wheel-libs: {len(libs)} libraries in {root.name}, {bad} dependencies outside the wheel "
          f"(allowed: {', '.join(sorted(SYSTEM_OK))})")
    return 1 if bad else 0


def python_maps(python: str, package_dir: pathlib.Path) -> set[str]:
    """The system libraries PYTHON maps when it imports the quickstart's and the package's
    imports, tsstore itself aside."""
    mods = {"datetime", "numpy"}
    for f in package_dir.glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                mods |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                mods.add(node.module.split(".")[0])
    mods -= {"tsstore", "__future__"}
    probe = ("import importlib, sys\n"
             f"for m in {sorted(mods)!r}:\n"
             "    try: importlib.import_module(m)\n"
             "    except ImportError: pass\n"  # optional ones (pandas)
             "print(open('/proc/self/maps').read())")
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True, cwd="/")
    return {os.path.realpath(line.split()[-1]) for line in out.stdout.splitlines()
            if len(line.split()) >= 6 and ".so" in line.split()[-1]}


def hide(library: str, python: str) -> int:
    want = set()
    for name, where in ldd(library):
        if where and where != "not found" and os.path.basename(name) not in SYSTEM_OK:
            want.add(os.path.realpath(where))
    for d in LIB_DIRS:
        for pattern in HIDE_GLOBS:
            want |= {os.path.realpath(p) for p in glob.glob(os.path.join(d, pattern))}
    # The loader and glibc under any of their names stay.
    ok_real = {os.path.realpath(os.path.join(d, n)) for d in LIB_DIRS for n in SYSTEM_OK}
    want -= ok_real
    package_dir = pathlib.Path(library).resolve().parent.parent
    kept = want & python_maps(python, package_dir)
    core = [p for p in kept if re.search(r"lib(netcdf|hdf5|sz|aec)", os.path.basename(p))]
    if core:
        print(f"wheel-libs: {python} itself maps {core}: cannot hide them", file=sys.stderr)
        return 1
    hidden = sorted(want - kept)
    if not hidden:
        print("wheel-libs: nothing to hide", file=sys.stderr)
        return 1
    print(f"wheel-libs: hiding {len(hidden)} libraries; left visible because Python maps them: "
          f"{', '.join(sorted(os.path.basename(p) for p in kept)) or 'none'}", file=sys.stderr)
    print("\n".join(hidden))
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "check":
        return check(pathlib.Path(argv[1]))
    if len(argv) == 3 and argv[0] == "hide":
        return hide(argv[1], argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
