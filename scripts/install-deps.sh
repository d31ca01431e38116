#!/usr/bin/env bash
# Installs what building and testing tsstore needs and is missing: netcdf-c and HDF5 (headers,
# libraries and the ncdump / h5dump / ncatted tools the tests check files with), zlib and
# libdeflate (the chunk workers' deflate), SQLite's command-line shell, pkg-config, a C
# compiler (cgo), CMake and valgrind (the C library's build and ctest suite), strace (the
# journal tests kill writers at each system call), Python with venv (the binding's tests),
# then the Go modules.
# Safe to run repeatedly: it installs nothing that is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
pkg-config --exists netcdf 2>/dev/null || need+=(libnetcdf-dev)
pkg-config --exists hdf5 2>/dev/null || need+=(libhdf5-dev)
pkg-config --exists zlib 2>/dev/null || need+=(zlib1g-dev)
pkg-config --exists libdeflate 2>/dev/null || need+=(libdeflate-dev)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v ncdump >/dev/null || need+=(netcdf-bin)
command -v h5dump >/dev/null || need+=(hdf5-tools)
command -v ncatted >/dev/null || need+=(nco)
command -v sqlite3 >/dev/null || need+=(sqlite3)
command -v gcc >/dev/null || need+=(gcc)
command -v cmake >/dev/null || need+=(cmake)
command -v make >/dev/null || need+=(make)
command -v valgrind >/dev/null || need+=(valgrind)
command -v strace >/dev/null || need+=(strace)
command -v python3 >/dev/null || need+=(python3)
python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv python3-pip)

. scripts/lib/apt.sh

if [ ${#need[@]} -gt 0 ]; then
  echo "install-deps: installing ${need[*]}"
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends "${need[@]}"
fi

if ! command -v go >/dev/null; then
  echo "install-deps: Go 1.26 or newer is required (https://go.dev/doc/install); it is not on PATH" >&2
  exit 1
fi
go mod download
