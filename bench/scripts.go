package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// benchDir is this directory in the source tree, which holds the scripts and C programs
// the workloads run.
func benchDir() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Dir(here)
}

// scriptCommand runs script, a path below bench/, with args under the interpreter prog.
func scriptCommand(prog, script string, args ...string) *exec.Cmd {
	return exec.Command(prog, append([]string{filepath.Join(benchDir(), script)}, args...)...)
}

// builtLibraryEnv is the environment for a script that should load the library the other
// workloads use (-calls-lib), or nil (this process's own) where none is built: the Python
// package then loads the library it carries.
func builtLibraryEnv() []string {
	lib, err := filepath.Abs(filepath.Join(*callsLibDir, "libtsstore.so"))
	if err != nil {
		return nil
	}
	if _, err := os.Stat(lib); err != nil {
		return nil
	}
	return append(os.Environ(), "TSSTORE_LIBRARY="+lib)
}

// pythonFigures runs script (a file of bench/calls) with args under the benchmark's Python,
// on the library in lib (a directory), and returns the key=value figures it prints; an error
// names the workload and how to get such a Python.
func pythonFigures(workload, lib, script string, args ...string) (map[string]float64, error) {
	py := scriptCommand(*callsPython, filepath.Join("calls", script), args...)
	py.Env = append(os.Environ(), "TSSTORE_LIBRARY="+filepath.Join(lib, "libtsstore.so"))
	figs, err := keyValues(py)
	if err != nil {
		return nil, fmt.Errorf("%s (Python %s; `make pyenv` builds one): %w", workload, *callsPython, err)
	}
	return figs, nil
}

// juliaFigures runs script (a file of bench/calls) with args under the Julia that
// scripts/provide-julia.sh provides, on the library in lib, and returns the key=value figures
// it prints: none, and a note on stderr, when no Julia can be had (a benchmark, not a test).
func juliaFigures(lib, script string, args ...string) (map[string]float64, error) {
	root := filepath.Dir(benchDir())
	out, err := exec.Command(filepath.Join(root, "scripts", "provide-julia.sh")).Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "calls: no Julia could be provided (%v): the Julia column is left out\n", err)
		return map[string]float64{}, nil
	}
	jl := exec.Command(strings.TrimSpace(string(out)), append([]string{"--startup-file=no",
		"--project=" + filepath.Join(root, "bindings", "julia"), filepath.Join(benchDir(), "calls", script)},
		args...)...)
	jl.Env = append(os.Environ(), "TSSTORE_LIBRARY="+filepath.Join(lib, "libtsstore.so"),
		"JULIA_DEPOT_PATH="+filepath.Join(root, "build", "julia", "depot"))
	figs, err := keyValues(jl)
	if err != nil {
		return nil, fmt.Errorf("calls (Julia %s): %w", script, err)
	}
	return figs, nil
}

// canImport says whether the Python py can import modules ("numpy, tsstore"): whether its
// environment has what a workload's script needs.
func canImport(py, modules string) bool {
	return exec.Command(py, "-c", "import "+modules).Run() == nil
}

// keyValues runs a command and parses the key=value lines it prints.
func keyValues(cmd *exec.Cmd) (map[string]float64, error) {
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	figs := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("printed %q", line)
		}
		figs[k] = f
	}
	return figs, nil
}

// alternatingMedians runs run once for each side in turn, rounds times (one, two, one, two,
// …, so that a change in the machine's load falls on every side), and returns each side's
// median figures.
func alternatingMedians(rounds int, sides []string, run func(side string, round int) (map[string]float64, error)) (map[string]map[string]float64, error) {
	runs := map[string][]map[string]float64{}
	for r := 0; r < rounds; r++ {
		for _, side := range sides {
			figs, err := run(side, r)
			if err != nil {
				return nil, err
			}
			runs[side] = append(runs[side], figs)
		}
	}
	med := map[string]map[string]float64{}
	for _, side := range sides {
		med[side] = medianFigs(runs[side])
	}
	return med, nil
}

// medianFigs is the median of each figure over the runs.
func medianFigs(runs []map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k := range runs[0] {
		var v []float64
		for _, r := range runs {
			v = append(v, r[k])
		}
		sort.Float64s(v)
		out[k] = v[len(v)/2]
	}
	return out
}

// skipped is the one row of a workload that cannot run on this machine; why is also said
// on stderr.
func skipped(workload, why string) []result {
	fmt.Fprintf(os.Stderr, "%s: skipped: %s\n", workload, why)
	return []result{{workload, "skipped: " + why, "not run", 0, ""}}
}
