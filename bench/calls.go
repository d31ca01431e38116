package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tsstore/tsstore/core"
)

var (
	callsLibDir = flag.String("calls-lib", "build/cmake/lib", "calls: directory holding the built libtsstore.so (make clib)")
	callsPython = flag.String("calls-python", ".venv/bin/python", "calls: a Python with the tsstore package (make pyenv)")
	callsN      = flag.Int("calls-n", 1000, "calls: series in the store")
	callsRounds = flag.Int("calls-repeats", 2000, "calls: calls timed per kind")
	callsInter  = flag.Int("calls-interleave", 3, "calls: rounds of Go, C and Python in turn; each figure is its best round's median")
)

// callsWorkload measures what one call costs from Go (the core), from C (the library) and
// from Python and Julia (the bindings) on the same store: whole-series get, a StaticReader step over
// every series, and has. The differences are what each layer adds.
func callsWorkload(cfg *config) ([]result, error) {
	n, length, repeats := *callsN, 24, max(*callsRounds, 1)
	lib, err := filepath.Abs(*callsLibDir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(lib, "libtsstore.so")); err != nil {
		return nil, fmt.Errorf("no libtsstore.so in %s: build it with `make clib` (or pass -calls-lib)", lib)
	}
	driver, err := buildCallsDriver(cfg.dir, lib)
	if err != nil {
		return nil, err
	}
	path := storePath(cfg, "calls")
	if out, err := exec.Command(driver, "make", path, strconv.Itoa(n), strconv.Itoa(length)).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("calls make: %v\n%s", err, out)
	}
	figs, err := interleaved(*callsInter,
		func() (map[string]float64, error) {
			f, err := keyValues(exec.Command(driver, "time", path, strconv.Itoa(n), strconv.Itoa(length), strconv.Itoa(repeats)))
			if err != nil {
				err = fmt.Errorf("calls (C): %w", err)
			}
			return f, err
		},
		func() (map[string]float64, error) {
			return pythonFigures("calls", lib, "calls.py", path, strconv.Itoa(n), strconv.Itoa(length), strconv.Itoa(repeats))
		},
		func() (map[string]float64, error) { return goCalls(path, n, length, repeats) },
		func() (map[string]float64, error) {
			return juliaFigures(lib, "calls.jl", path, strconv.Itoa(n), strconv.Itoa(length), strconv.Itoa(repeats))
		})
	if err != nil {
		return nil, err
	}
	cFigs, pyFigs, goFigs, jlFigs := figs[0], figs[1], figs[2], figs[3]
	label := fmt.Sprintf("%d × %d f64, median of %d, best of %d interleaved rounds", n, length, repeats, max(*callsInter, 1))
	var out []result
	for _, c := range []struct{ key, what, bar string }{
		{"get_us", "get a whole series (read into a buffer sized by the key's last read)", "bar: Python ≤ C + 3 µs"},
		{"step_us", fmt.Sprintf("StaticReader step over %d series, into bound buffers", n), "bar: Python ≤ C + 1 µs"},
		{"has_us", "has_time_series", ""},
	} {
		out = append(out,
			result{"calls", label, c.what + ", Go core", goFigs[c.key], "µs"},
			result{"calls", label, c.what + ", C library", cFigs[c.key], "µs"},
			result{"calls", label, c.what + ", Python binding", pyFigs[c.key], "µs"},
			result{"calls", label, c.what + ", Python − C (the binding's overhead)", pyFigs[c.key] - cFigs[c.key], "µs"},
			result{"calls", label, c.what + ", Python / C" + barNote(c.bar), pyFigs[c.key] / cFigs[c.key], "×"},
		)
		if v, ok := jlFigs[c.key]; ok {
			out = append(out, result{"calls", label, c.what + ", Julia binding", v, "µs"},
				result{"calls", label, c.what + ", Julia − C", v - cFigs[c.key], "µs"})
		}
	}
	if v, ok := jlFigs["get_by_name_us"]; ok {
		out = append(out, result{"calls", label, "get by owner and name, each name's first call, Julia binding",
			jlFigs["get_by_name_first_us"], "µs"},
			result{"calls", label, "get by owner and name, again, Julia binding", v, "µs"})
	}
	if v, ok := pyFigs["get_by_name_us"]; ok { // Python only: get_time_series(owner_id, name)
		first := pyFigs["get_by_name_first_us"]
		out = append(out,
			result{"calls", label, "get by owner and name, each name's first call, Python binding", first, "µs"},
			result{"calls", label, "get by owner and name, each name's first call, Python − get by Key", first - pyFigs["get_us"], "µs"},
			result{"calls", label, "get by owner and name, again, Python binding", v, "µs"},
			result{"calls", label, "get by owner and name, again, Python − get by Key (bar: ≤ 2 µs)", v - pyFigs["get_us"], "µs"},
			result{"calls", label, "get by owner and name, C calls it makes (bar: 1)", pyFigs["get_by_name_c_calls"], "calls"})
	}
	if v, ok := pyFigs["to_pandas_ms"]; ok { // Python only: a SingleTimeSeries of a year, hourly
		out = append(out, result{"calls", "8,760 f64, best of 20", "to_pandas() of a year of hourly steps, Python (bar: < 5 ms)", v, "ms"})
	}
	return out, nil
}

// interleaved runs each of runs once per round, in turn, for rounds rounds, and returns, for
// each run, every figure's smallest value over the rounds: a load that comes and goes on the
// machine then falls on all of them alike, and a figure and its baseline are compared at
// their best, rather than one measured in a quiet minute and the other in a busy one.
func interleaved(rounds int, runs ...func() (map[string]float64, error)) ([]map[string]float64, error) {
	best := make([]map[string]float64, len(runs))
	for r := 0; r < max(rounds, 1); r++ {
		for i, run := range runs {
			figs, err := run()
			if err != nil {
				return nil, err
			}
			if best[i] == nil {
				best[i] = figs
				continue
			}
			for k, v := range figs {
				if old, ok := best[i][k]; !ok || v < old {
					best[i][k] = v
				}
			}
		}
	}
	return best, nil
}

func barNote(bar string) string {
	if bar == "" {
		return ""
	}
	return " (" + bar + ")"
}

// buildCallsDriver compiles calls/calls.c against the built library and the public header.
func buildCallsDriver(dir, lib string) (string, error) {
	root := filepath.Dir(benchDir())
	bin := filepath.Join(dir, "calls")
	args := []string{"-O2", "-o", bin, filepath.Join(benchDir(), "calls", "calls.c"),
		"-I", filepath.Join(root, "include"), "-L", lib, "-ltsstore", "-Wl,-rpath," + lib, "-lm"}
	if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling the C driver: %v\n%s", err, out)
	}
	return bin, nil
}

// goCalls times the same three calls on the core.
func goCalls(path string, n, length, repeats int) (map[string]float64, error) {
	s, err := core.OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	keys := bulkKeys(n)
	lookups := core.Lookups(keys)
	// What the C and Python gets do: read into a new buffer of the size the key's last read
	// had, describing the series first only when that is not known, and keep the id the
	// read found as the key's hint.
	known := make([]int, n)
	var get func(i int) error
	get = func(i int) error {
		k := lookups[i]
		if known[i] == 0 {
			_, ext, err := s.Describe(k, core.Part{})
			if err != nil {
				return err
			}
			known[i] = ext.Bytes
		}
		m, ext, err := s.ReadInto(k, core.Part{}, make([]byte, known[i]))
		if errors.Is(err, core.ErrBufferTooSmall) { // grown since: described again, as calls.c
			known[i] = 0
			return get(i)
		}
		if err == nil {
			known[i] = ext.Bytes
			lookups[i].ID = m.ID
		}
		return err
	}
	for i := range keys { // warm-up, as calls.c and calls.py: every key read once
		if err := get(i); err != nil {
			return nil, err
		}
	}
	took := make([]time.Duration, repeats)
	for r := range took {
		t := time.Now()
		if err := get((r * 7919) % n); err != nil {
			return nil, err
		}
		took[r] = time.Since(t)
	}
	figs := map[string]float64{"get_us": medianMicros(took)}
	rd, err := s.NewStaticReader(core.Hours(1), core.Lookups(keys))
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	if err := rd.Bind(0, make([]byte, n*8)); err != nil { // as C and Python bind theirs
		return nil, err
	}
	for r := range took {
		t := time.Now()
		if err := rd.ReadStep(r % length); err != nil {
			return nil, err
		}
		took[r] = time.Since(t)
	}
	figs["step_us"] = medianMicros(took)
	for r := range took {
		t := time.Now()
		if ok, err := s.Has(keys[(r*7919)%n]); err != nil || !ok {
			return nil, fmt.Errorf("has: %v %v", ok, err)
		}
		took[r] = time.Since(t)
	}
	figs["has_us"] = medianMicros(took)
	return figs, nil
}
