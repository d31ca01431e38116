"""Builds libtsstore.so with the Go toolchain and bundles it in the package (as Rust-backed
wheels bundle theirs).

Where the Go sources come from, first found wins:
  1. TSSTORE_SOURCE_DIR, a tsstore checkout;
  2. gosrc/ beside this file: an sdist carries the sources the library is built from there
     (go.mod, go.sum, include/, capi/, core/ without tests), copied in by `sdist` below;
  3. the repository this directory sits in (pip install ./bindings/python).
Building needs Go, gcc and the netcdf-c / HDF5 development files; Go fetches the modules
go.sum names through its proxy or module cache.

The wheel holds a native library but no Python extension, so it is tagged
py3-none-<platform> (any Python 3, this platform), not py3-none-any: see PlatformWheel.
"""
import os
import pathlib
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = pathlib.Path(__file__).resolve().parent

# What `go build ./capi` reads, relative to the module root: the sdist carries these.
GO_SOURCES = ["go.mod", "go.sum", "include", "capi", "core"]


def go_source_dir() -> pathlib.Path:
    env = os.environ.get("TSSTORE_SOURCE_DIR")
    if env:
        src = pathlib.Path(env).resolve()
    elif (HERE / "gosrc" / "capi").is_dir():
        src = HERE / "gosrc"
    else:
        src = HERE.parent.parent
    if not (src / "capi").is_dir() or not (src / "go.mod").is_file():
        raise SystemExit(f"tsstore: no Go sources at {src} (set TSSTORE_SOURCE_DIR to a tsstore checkout)")
    return src


class BuildWithGo(build_py):
    def run(self):
        super().run()
        src = go_source_dir()
        if shutil.which("go") is None:
            raise SystemExit("tsstore: building the package needs the Go toolchain (go) on PATH")
        out = (pathlib.Path(self.build_lib) / "tsstore" / "_lib").resolve()
        out.mkdir(parents=True, exist_ok=True)
        exports = src / "capi" / "exports.map"
        print(f"tsstore: building libtsstore.so from the Go sources in {src}", flush=True)
        subprocess.check_call(
            ["go", "build", "-trimpath", "-buildmode=c-shared",
             f"-ldflags=-extldflags=-Wl,--version-script={exports},-soname,libtsstore.so.2,-z,nodelete",
             "-o", str(out / "libtsstore.so"), "./capi"],
            cwd=src, env={**os.environ, "CGO_ENABLED": "1"})
        header = out / "libtsstore.h"  # the cgo header is not part of the package
        if header.exists():
            header.unlink()


class SdistWithGo(sdist):
    """Adds the Go sources to the sdist as gosrc/, so that it builds away from the repository.
    Tests and their data stay out: they are not needed to build the library."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        src = go_source_dir()
        dest = pathlib.Path(base_dir) / "gosrc"
        ignore = shutil.ignore_patterns("*_test.go", "testdata", "__pycache__", "*.so", "*.so.*", "*.a", "*.o")
        for name in GO_SOURCES:
            path = src / name
            if path.is_dir():
                shutil.copytree(path, dest / name, ignore=ignore)
            else:
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest / name)


class BinaryDistribution(Distribution):
    """A distribution with a native library: installed into platlib (where auditwheel looks for
    libraries to repair), and a wheel that is not pure."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """Tags the wheel py3-none-<platform>: it bundles a native library (so its platform matters)
    but uses ctypes, not the Python C API, so any Python 3 loads it. auditwheel repair then
    turns linux_x86_64 into a manylinux tag."""

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


setup(distclass=BinaryDistribution,
      cmdclass={"build_py": BuildWithGo, "sdist": SdistWithGo, "bdist_wheel": PlatformWheel})
