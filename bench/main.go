// Command tsbench measures tsstore on the workloads modelling packages run and prints each
// figure as a Markdown table and as JSON (for comparisons across commits).
//
//	go run ./bench                          # every workload at default sizes
//	go run ./bench -workloads forecast-add  # one workload
//	go run ./bench -json out/bench.json     # also write the JSON
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// result is one measured figure.
type result struct {
	Workload string  `json:"workload"`
	Case     string  `json:"case"`
	Metric   string  `json:"metric"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
}

type workload struct {
	name string
	desc string
	run  func(cfg *config) ([]result, error)
}

type config struct {
	dir      string
	baseline string // the compiled netcdf-c baseline, built on first use
}

var workloads = []workload{
	{"bulk", "batch add, full reads (one call each and GetMany) and StaticReader sweeps, N × length × element, with the netcdf-c baseline", bulkWorkload},
	{"curve", "cost of the next one-at-a-time SingleTimeSeries add with 1,000, 10,000 and 100,000 stored", curveWorkload},
	{"static", "SingleTimeSeries: batch and one-at-a-time add, bulk and single reads, StaticReader sweep", staticWorkload},
	{"forecast-add", "cost of one more Deterministic at 1,000 and 10,000 stored; per forecast in a batch", forecastAdd},
	{"forecast-sweep", "ForecastReader over Deterministic and DeterministicSingleTimeSeries, 365 daily windows", forecastSweep},
	{"calls", "per-call cost of get, a reader step and has from Go, C and Python on one store", callsWorkload},
	{"modeller", "a modeller's script phase by phase (loads, cost curves, forecasts, a week of steps, every window) from Python and from Go", modellerWorkload},
	{"python-bulk", "a durable batch add of 100,000 × 24 and a get_many of 10,000 × 168 from Python and from Go", pyBulkWorkload},
	{"python-dask", "the xarray engine's dask arrays on 1 and 2 worker processes against a single-process StaticReader sweep of the same 10,000 × 8,760 store", daskWorkload},
	{"python-peer", "durable bulk adds, bulk read, has, StaticReader and ForecastReader from Python: tsstore's package against infrastore's", peerWorkload},
	{"infrasys", "infrasys 1.1.2 through its System API on tsstore's backend and on its own Arrow and HDF5 backends: bulk add, reads, forecasts, to_json / from_json", infrasysWorkload},
	{"open", "opening stores of 1,000 and 100,000 forecasts read-only and writable in a fresh process, a Get from each, beside netcdf-c's own open", openWorkload},
	{"rewrite", "compaction with a rewrite after 90% of 10,000 series were removed: sizes beside a fresh store of the survivors, throughput beside a plain copy", rewriteWorkload},
	{"metadata", "has_time_series hit and miss, transform, removals and open time at 100,000 series", metadataWorkload},
}

func main() {
	if spec := os.Getenv(openChildEnv); spec != "" {
		if err := runOpenChild(spec); err != nil {
			fail(err)
		}
		return
	}
	names := flag.String("workloads", "all", "comma-separated workloads to run ("+workloadNames()+")")
	jsonOut := flag.String("json", "", "also write the results as JSON to this file")
	dir := flag.String("dir", "", "directory for the stores (default: a temporary directory, removed after)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	cfg := &config{dir: *dir}
	if cfg.dir == "" {
		d, err := os.MkdirTemp("", "tsbench")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		cfg.dir = d
	}
	var all []result
	for _, w := range workloads {
		if *names != "all" && !contains(strings.Split(*names, ","), w.name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "running %s: %s\n", w.name, w.desc)
		resetPeakRSS()
		began := time.Now()
		rs, err := w.run(cfg)
		if err != nil {
			fail(fmt.Errorf("%s: %w", w.name, err))
		}
		all = append(all, rs...)
		all = append(all, result{w.name, "workload", "peak RSS", workloadPeakMiB(), "MiB"},
			result{w.name, "workload", "wall time", time.Since(began).Seconds(), "s"})
	}
	all = append(all, result{"process", "all", "peak RSS", peakRSSMiB(), "MiB"})
	printMarkdown(all)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(all, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			fail(err)
		}
	}
}

func workloadNames() string {
	var n []string
	for _, w := range workloads {
		n = append(n, w.name)
	}
	return strings.Join(n, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

// parseLevels reads a comma-separated list of store sizes (-curve-levels,
// -forecast-add-levels).
func parseLevels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &n); err != nil || n < 0 {
			return nil, fmt.Errorf("level %q is not a count", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tsbench:", err)
	os.Exit(1)
}

func printMarkdown(rs []result) {
	fmt.Println("| workload | case | metric | value | unit |")
	fmt.Println("|---|---|---|---:|---|")
	for _, r := range rs {
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.Workload, r.Case, r.Metric, formatValue(r.Value), r.Unit)
	}
}

func formatValue(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v != 0 && v < 0.1:
		return fmt.Sprintf("%.3g", v) // per-(component, step) figures are hundredths of a µs
	}
	return fmt.Sprintf("%.2f", v)
}

// median of durations, in microseconds.
func medianMicros(ds []time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2].Nanoseconds()) / 1e3
}

// resetPeakRSS returns what earlier workloads left to the OS and restarts the kernel's
// high-water mark of this process (Linux: clear_refs 5), so each workload reports its own.
func resetPeakRSS() {
	runtime.GC()
	debug.FreeOSMemory()
	trimCHeap()
	if f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0); err == nil {
		f.Write([]byte("5"))
		f.Close()
	}
}

// workloadPeakMiB is the resident high-water mark since resetPeakRSS (VmHWM), or the
// process's (getrusage) where /proc does not say.
func workloadPeakMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
					return kb / 1024
				}
			}
		}
	}
	return peakRSSMiB()
}

func peakRSSMiB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // Linux reports KiB
}

// storeMiB is the size of a store's two files.
func storeMiB(path string) float64 {
	var n int64
	for _, p := range []string{path, path + ".sqlite"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return float64(n) / (1 << 20)
}

func storePath(cfg *config, name string) string {
	p := filepath.Join(cfg.dir, name+".nc")
	os.Remove(p)
	os.Remove(p + ".sqlite")
	return p
}
