package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
)

var (
	infrasysPython    = flag.String("infrasys-python", ".venv-infrasys/bin/python", "infrasys: a Python with infrasys==1.1.2 and tsstore[infrasys] (make infrasysenv)")
	infrasysSeries    = flag.String("infrasys-series", "10000x168", "infrasys: SingleTimeSeries added and read, N×steps f64")
	infrasysForecasts = flag.String("infrasys-forecasts", "1000x365", "infrasys: Deterministic forecasts × daily windows of 24 h (0x0 skips them)")
	infrasysRepeats   = flag.Int("infrasys-repeats", 3, "infrasys: runs of each backend, interleaved; the median is taken")
)

// infrasysBackends are the storages compared: tsstore's backend first (its default
// compression, deflate 3 + shuffle), then infrasys's own Arrow (its default; uncompressed)
// and HDF5 (gzip 5) backends, its baselines, and last tsstore without compression, as Arrow
// writes.
var infrasysBackends = []string{"tsstore", "arrow", "hdf5", "tsstore-none"}

// infrasysWorkload runs bench/infrasys/infrasys_bench.py, infrasys 1.1.2's System API on one
// storage per process, for each backend in turn (tsstore, arrow, hdf5, tsstore, …, so that a
// change in the machine's load falls on all of them) and prints each backend's median with
// each baseline's ratio to tsstore.
func infrasysWorkload(cfg *config) ([]result, error) {
	reps := max(*infrasysRepeats, 1)
	py := *infrasysPython
	if err := exec.Command(py, "-c", "import infrasys, tsstore.infrasys").Run(); err != nil {
		why := fmt.Sprintf("%s cannot import infrasys and tsstore.infrasys (make infrasysenv)", py)
		fmt.Fprintf(os.Stderr, "infrasys: skipped: %s\n", why)
		return []result{{"infrasys", "skipped: " + why, "not run", 0, ""}}, nil
	}
	n, steps, err := peerCase(*infrasysSeries)
	if err != nil {
		return nil, err
	}
	fn, windows, err := peerCase(*infrasysForecasts)
	if err != nil {
		return nil, err
	}
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "infrasys", "infrasys_bench.py")
	var env []string
	if lib, err := filepath.Abs(filepath.Join(*callsLibDir, "libtsstore.so")); err == nil {
		if _, err := os.Stat(lib); err == nil {
			env = append(os.Environ(), "TSSTORE_LIBRARY="+lib)
		}
	}
	runs := map[string][]map[string]float64{}
	for r := 0; r < reps; r++ {
		for _, b := range infrasysBackends {
			dir := filepath.Join(cfg.dir, "infrasys_"+b)
			cmd := exec.Command(py, script, b, dir, strconv.Itoa(n), strconv.Itoa(steps), strconv.Itoa(fn), strconv.Itoa(windows))
			cmd.Env = env
			figs, err := keyValues(cmd)
			os.RemoveAll(dir)
			if err != nil {
				return nil, fmt.Errorf("infrasys (%s, run %d): %w", b, r+1, err)
			}
			runs[b] = append(runs[b], figs)
		}
	}
	med := map[string]map[string]float64{}
	for _, b := range infrasysBackends {
		med[b] = medianFigs(runs[b])
	}
	var out []result
	ratioNote := " (speed-up)"
	row := func(cs, what, unit, key string) {
		if _, ok := med["tsstore"][key]; !ok {
			return
		}
		ts := med["tsstore"][key]
		out = append(out, result{"infrasys", cs, what + ", tsstore", ts, unit})
		for _, b := range infrasysBackends[1:3] {
			out = append(out,
				result{"infrasys", cs, what + ", " + b, med[b][key], unit},
				result{"infrasys", cs, b + " / tsstore" + ratioNote, med[b][key] / ts, "×"})
		}
		none := med["tsstore-none"][key]
		out = append(out,
			result{"infrasys", cs, what + ", tsstore without compression", none, unit},
			result{"infrasys", cs, "arrow / tsstore without compression" + ratioNote, med["arrow"][key] / none, "×"})
	}
	m := fmt.Sprintf("median of %d", reps)
	sc := fmt.Sprintf("%s × %d f64, %s", thousands(n), steps, m)
	row(sc, "bulk add in one open_time_series_store block", "µs/series", "add_us")
	row(sc, "get_time_series of every series", "µs/series", "read_us")
	if fn > 0 && windows > 0 {
		fc := fmt.Sprintf("%s Deterministic × %d daily windows of 24 h, %s", thousands(fn), windows, m)
		row(fc, "add in one open_time_series_store block", "µs/forecast", "fc_add_us")
		row(fc, "get_time_series of every forecast", "µs/forecast", "fc_read_us")
	}
	whole := fmt.Sprintf("the whole system (%s series + %s forecasts), %s", thousands(n), thousands(fn), m)
	row(whole, "to_json", "s", "serialize_s")
	row(whole, "from_json (a writable copy)", "s", "deserialize_s")
	ratioNote = " (size ratio)"
	row(whole, "written by to_json", "MB", "saved_mb")
	return out, nil
}
