"""Builds libtsstore.so with the Go toolchain and bundles it in the package (as Rust-backed
wheels bundle theirs). The Go sources are the repository this directory sits in; set
TSSTORE_SOURCE_DIR to build from another checkout."""
import os
import pathlib
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent


class BuildWithGo(build_py):
    def run(self):
        super().run()
        src = pathlib.Path(os.environ.get("TSSTORE_SOURCE_DIR", HERE.parent.parent)).resolve()
        if not (src / "capi").is_dir():
            raise SystemExit(f"tsstore: no Go sources at {src} (set TSSTORE_SOURCE_DIR to a tsstore checkout)")
        if shutil.which("go") is None:
            raise SystemExit("tsstore: building the package needs the Go toolchain (go) on PATH")
        out = (pathlib.Path(self.build_lib) / "tsstore" / "_lib").resolve()
        out.mkdir(parents=True, exist_ok=True)
        exports = src / "capi" / "exports.map"
        subprocess.check_call(
            ["go", "build", "-trimpath", "-buildmode=c-shared",
             f"-ldflags=-extldflags=-Wl,--version-script={exports},-soname,libtsstore.so.1",
             "-o", str(out / "libtsstore.so"), "./capi"],
            cwd=src, env={**os.environ, "CGO_ENABLED": "1"})
        header = out / "libtsstore.h"  # the cgo header is not part of the package
        if header.exists():
            header.unlink()


setup(cmdclass={"build_py": BuildWithGo})
