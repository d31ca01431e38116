package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

var (
	daskN       = flag.Int("dask-n", 10_000, "python-dask: series in the store")
	daskLength  = flag.Int("dask-length", 8760, "python-dask: hourly steps per series")
	daskBlock   = flag.Int("dask-block", 730, "python-dask: steps per dask chunk (the whole width each)")
	daskRepeats = flag.Int("dask-repeats", 2, "python-dask: timed runs of each read, best taken")
)

// daskWorkload reads one store of N hourly series three ways from Python — a single-process
// StaticReader sweep, and the xarray engine's dask arrays summed on a LocalCluster of one and
// of two worker processes — and reports each one's throughput, with the load average, since
// the figures for two workers depend on what else the machine runs.
func daskWorkload(cfg *config) ([]result, error) {
	n, length, block, reps := *daskN, *daskLength, *daskBlock, max(*daskRepeats, 1)
	load0 := loadAverage()
	py := scriptCommand(*callsPython, filepath.Join("calls", "dask_read.py"), filepath.Join(cfg.dir, "pydask"),
		strconv.Itoa(n), strconv.Itoa(length), strconv.Itoa(block), strconv.Itoa(reps))
	// The package installed in the environment (make pyenv) carries the engine's entry point and
	// its own libtsstore.so, which the worker processes load too.
	figs, err := keyValues(py)
	if err != nil {
		return nil, fmt.Errorf("python-dask (Python %s with xarray, dask and distributed; `make pyenv` builds one): %w",
			*callsPython, err)
	}
	load1 := loadAverage()
	c := fmt.Sprintf("%d × %d f64 (%.0f MB), sum over time of every series, best of %d", n, length, figs["mb"], reps)
	chunk := fmt.Sprintf("chunks of %d steps × %d series", block, n)
	return []result{
		{"python-dask", c, "write (batches of 2,000)", figs["write_s"], "s"},
		{"python-dask", c, "single process, StaticReader sweep", figs["sweep_mbps"], "MB/s"},
		{"python-dask", c, "dask, 1 worker process, " + chunk, figs["dask1_mbps"], "MB/s"},
		{"python-dask", c, "dask, 2 worker processes, " + chunk, figs["dask2_mbps"], "MB/s"},
		{"python-dask", c, "dask, 1 worker: first compute (opens store, readers)", figs["dask1_cold_s"], "s"},
		{"python-dask", c, "dask, 2 workers: first compute (opens store, readers)", figs["dask2_cold_s"], "s"},
		{"python-dask", c, "2 workers / sweep", figs["dask2_mbps"] / figs["sweep_mbps"], "×"},
		{"python-dask", c, "1-minute load average before / after", load0, "/ " + strconv.FormatFloat(load1, 'f', 2, 64)},
	}, nil
}

// loadAverage is the 1-minute load average (0 where /proc/loadavg is missing).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}
