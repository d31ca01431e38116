package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

var (
	peerPython    = flag.String("peer-python", ".venv-peer/bin/python", "python-peer: a Python with numpy, tsstore and infrastore==0.15.1 (make peerenv)")
	peerAddCases  = flag.String("peer-add-cases", "100000x24,10000x168", "python-peer: durable bulk adds, N×steps f64, comma-separated")
	peerReadCase  = flag.String("peer-read", "10000x168", "python-peer: the store the bulk read, has and StaticReader sweep run on, N×steps")
	peerHasCalls  = flag.Int("peer-has-calls", 2000, "python-peer: has calls timed, hit and miss each")
	peerForecasts = flag.String("peer-forecasts", "1000x365", "python-peer: ForecastReader over forecasts×daily windows of 24 h (0x0 skips it)")
	peerRepeats   = flag.Int("peer-repeats", 3, "python-peer: runs of each side, alternating; the median is taken")
	peerSingles   = flag.String("peer-singles", "1000x168,10000x168", "python-peer: durable single adds into stores of N series, N×steps (\"\" skips them)")
)

const peerVersion = "infrastore==0.15.1"

// peerWorkload runs the same Python workloads through tsstore's package and through
// infrastore's (the other implementation of the format, a PyO3 wheel from PyPI), one
// process per side and run, alternating tsstore, infrastore, tsstore, … so that a change in
// the machine's load falls on both, and prints each side's median and their ratio. The
// script, bench/peer/peer.py, says which calls each side makes and how their durability is
// matched. Without infrastore (no network when `make peerenv` ran) it says so and skips.
func peerWorkload(cfg *config) ([]result, error) {
	reps := max(*peerRepeats, 1)
	py := *peerPython
	if why := peerMissing(py); why != "" {
		return skipped("python-peer", why), nil
	}
	figs, err := alternatingMedians(reps, []string{"tsstore", "infrastore"}, func(side string, r int) (map[string]float64, error) {
		cmd := scriptCommand(py, "peer/peer.py", side, filepath.Join(cfg.dir, "peer_"+side), *peerAddCases, *peerReadCase,
			strconv.Itoa(*peerHasCalls), *peerForecasts, *peerSingles)
		cmd.Env = builtLibraryEnv()
		figs, err := keyValues(cmd)
		if err != nil {
			return nil, fmt.Errorf("python-peer (%s side, run %d): %w", side, r+1, err)
		}
		return figs, nil
	})
	if err != nil {
		return nil, err
	}
	ts, in := figs["tsstore"], figs["infrastore"]
	med := fmt.Sprintf("median of %d", reps)
	var out []result
	pair := func(cs, what, unit, key, tsCall, inCall string) {
		if _, ok := ts[key]; !ok {
			return
		}
		out = append(out,
			result{"python-peer", cs, what + ", tsstore (" + tsCall + ")", ts[key], unit},
			result{"python-peer", cs, what + ", infrastore (" + inCall + ")", in[key], unit},
			result{"python-peer", cs, "tsstore / infrastore (bar: < 1)", ts[key] / in[key], "×"},
		)
	}
	for _, c := range strings.Split(*peerAddCases, ",") {
		n, steps, err := peerCase(c)
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("add_%dx%d", n, steps)
		cs := fmt.Sprintf("%s × %d f64, durable, %s", thousands(n), steps, med)
		pair(cs, "durable bulk add", "µs/series", key+"_us", "add_time_series_bulk + flush", "add_time_series_bulk + flush + fsync of the .h5")
		out = append(out, result{"python-peer", cs, "durable bulk add, infrastore without the .h5 fsync (its flush alone)", in[key+"_own_us"], "µs/series"})
		pair(cs, "peak RSS of the process after the items are built and added", "MiB", key+"_rss_mib",
			"add_time_series_bulk", "add_time_series_bulk")
	}
	n, steps, err := peerCase(*peerReadCase)
	if err != nil {
		return nil, err
	}
	cs := fmt.Sprintf("%s × %d f64, read-only, %s", thousands(n), steps, med)
	pair(cs, "bulk read of every series", "µs/series", "read_us", "get_many", "read_by_ids")
	hasCase := fmt.Sprintf("%s × %d f64, read-only, median of %d calls, %s", thousands(n), steps, *peerHasCalls, med)
	pair(hasCase, "has, hit", "µs", "has_hit_us", "has_time_series", "has_exact_time_series")
	pair(hasCase, "has, miss", "µs", "has_miss_us", "has_time_series", "has_exact_time_series")
	pair(cs, "StaticReader sweep, per step (every series)", "µs", "sweep_us", "read_step", "static_read")
	for _, c := range strings.Split(*peerSingles, ",") {
		if n, steps, err := peerCase(c); err == nil {
			scs := fmt.Sprintf("%s × %d f64 stored, median of 20 adds, %s", thousands(n), steps, med)
			pair(scs, fmt.Sprintf("durable single add of %d f64", steps), "µs", fmt.Sprintf("single_%dx%d_us", n, steps),
				"add_time_series + flush", "add_time_series + flush + fsync of the .h5")
		}
	}
	if fn, windows, err := peerCase(*peerForecasts); err == nil && fn > 0 && windows > 0 {
		fcs := fmt.Sprintf("%s Deterministic × %d daily windows of 24 h, read-only, %s", thousands(fn), windows, med)
		pair(fcs, "read-only open of the forecasts' store (best of 3)", "ms", "open_fc_ms", "Store.open(read_only=True)", "Store.open(read_only=True)")
		pair(fcs, "ForecastReader, per window (every forecast)", "µs", "forecast_us", "read_window", "forecast_read")
	}
	return out, nil
}

// peerMissing says why the peer environment cannot run, or "" when it can.
func peerMissing(py string) string {
	if _, err := os.Stat(py); err != nil {
		return fmt.Sprintf("no %s (make peerenv builds it)", py)
	}
	if !canImport(py, "numpy, tsstore") {
		return fmt.Sprintf("%s cannot import numpy and tsstore (make peerenv)", py)
	}
	out, err := exec.Command(py, "-c", "import infrastore; print(infrastore.__version__)").Output()
	if err != nil {
		return fmt.Sprintf("%s is not installed in %s (make peerenv installs it from PyPI; no network?)", peerVersion, filepath.Dir(filepath.Dir(py)))
	}
	if v := strings.TrimSpace(string(out)); "infrastore=="+v != peerVersion {
		return fmt.Sprintf("%s has infrastore %s, not %s (make peerenv)", py, v, peerVersion)
	}
	return ""
}

func peerCase(c string) (n, steps int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(strings.TrimSpace(c)), "x")
	if ok {
		if n, err = strconv.Atoi(a); err == nil {
			steps, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("python-peer: %q is not N×steps (e.g. 10000x168)", c)
	}
	return n, steps, nil
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
