# tsstore — build, demo and tests. `make demo` and `make test` install what is missing first.
GO       ?= go
GOFLAGS  ?=
OUT      ?= out

.PHONY: all deps build cli demo demo-go bench test test-short vet clib ctest pyenv pytest clean

VENV ?= .venv

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
# as a simulation would, checks every value and prints a summary.
demo: clib
	mkdir -p $(OUT)
	$(CMAKE_BUILD)/examples/c/quickstart $(OUT)

# The same kind of job from Go, larger: out/sample_system.nc.
demo-go: deps
	$(GO) run $(GOFLAGS) ./examples/go/demo -out $(OUT)/sample_system.nc

# Benchmarks: Markdown table on stdout, JSON in $(OUT)/bench.json. BENCH_FLAGS narrows them,
# e.g. BENCH_FLAGS="-workloads forecast-add".
bench: deps clib pyenv
	mkdir -p $(OUT)
	$(GO) run $(GOFLAGS) ./bench -json $(OUT)/bench.json $(BENCH_FLAGS)

vet: deps
	$(GO) vet ./...
	@test -z "$$(gofmt -l core capi examples bench cmd tests)" || { echo "gofmt needed:"; gofmt -l core capi examples bench cmd tests; exit 1; }

# The C library (libtsstore.so, libtsstore.a), its examples and tests, through CMake.
clib: deps
	cmake -S . -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(CMAKE_BUILD) -j2

# The ctest suite: unit, abi (exported symbols = header; install + find_package), examples,
# memcheck (valgrind), race (Go's race detector on the C library path).
ctest: clib
	ctest --test-dir $(CMAKE_BUILD) --output-on-failure

# The Python binding's environment: a virtual environment with numpy, pytest, mypy and the
# readers the interop tests compare against (netCDF4, h5py, xarray + dask, pandas), the Julia
# parser the Julia binding's syntax check uses (tree-sitter-julia), and the package installed
# from bindings/python (which builds libtsstore.so with Go).
pyenv: deps
	test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check numpy pytest mypy netCDF4 h5py xarray dask pandas tree-sitter tree-sitter-julia
	$(VENV)/bin/pip install -q --disable-pip-version-check ./bindings/python

# The binding's tests against the installed package, its type check, and the README quickstart
# in a fresh virtual environment (ctest runs the same three under the label python).
pytest: pyenv
	cd /tmp && $(CURDIR)/$(VENV)/bin/python -m pytest -q $(CURDIR)/bindings/python/tests
	cd bindings/python && $(CURDIR)/$(VENV)/bin/python -m mypy tsstore
	./scripts/python-quickstart.sh

# Every test, with the race detector; the file-layout checks use ncdump, ncatted and sqlite3,
# which must be present (TSSTORE_REQUIRE_TOOLS makes a missing tool a failure, not a skip).
test: deps vet
	# The bindings' raw layers are what include/tsstore.h generates (else: a diff, and the fix
	# is to run scripts/gen-bindings and commit its output).
	python3 scripts/gen-bindings --check
	TSSTORE_REQUIRE_TOOLS=1 $(GO) test -race -count=1 ./...
	# The crash harness at full size: 200 writers killed with SIGKILL; prints its figures.
	mkdir -p $(OUT)
	$(GO) test -count=1 -v -run TestCrashHarness ./tests/crash -trials 200 > $(OUT)/crash.log 2>&1; st=$$?; \
	  grep -E "^(crash harness|--- |ok|FAIL)|trial [0-9]+: (the unit|[0-9]+ series stored)" $(OUT)/crash.log; exit $$st
	# Fuzz targets, bounded by input counts (a time bound can end a run with "context deadline
	# exceeded" on a loaded machine); their seed corpora are in testdata/fuzz and also run above.
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzParsePeriod$$' -fuzztime=300000x ./core/internal/isotime
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzParseTimestamp$$' -fuzztime=300000x ./core/internal/isotime
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzParseFeaturesJSON$$' -fuzztime=200000x ./core
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzAddArrayShapes$$' -fuzztime=200000x ./core
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzOpenMutatedCatalog$$' -fuzztime=2000x ./core
	# Mutated .nc files, each opened in a child process (HDF5 can crash or loop on them): 160
	# fixed mutations with a summary line, then the fuzz target. Not under -race (above, the
	# test skips itself there): children under the race detector take twice as long.
	$(GO) test -count=1 -v -run='^TestMutatedNCFiles$$' ./core > $(OUT)/ncmutate.log 2>&1; st=$$?; \
	  grep -E "^(mutated nc:|--- |ok|FAIL)|ncmutate_test.go:[0-9]+: (HANG|WRONG|CRASH \()" $(OUT)/ncmutate.log; exit $$st
	$(GO) test -count=1 -run='^$$' -fuzz='^FuzzOpenMutatedNC$$' -fuzztime=200x ./core
	# The journal's kill and I/O-error sweeps (strace stops a writer at every sync point of
	# two units), also skipped under -race above.
	$(GO) test -count=1 -run='^TestReview(Kill|IOError)AtEverySyncPoint$$' ./core
	$(MAKE) pyenv
	$(MAKE) ctest

test-short: deps
	$(GO) test -short -count=1 ./...

clean:
	rm -rf $(OUT) build
