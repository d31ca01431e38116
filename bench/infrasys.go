package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
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
	if !canImport(py, "infrasys, tsstore.infrasys") {
		return skipped("infrasys", fmt.Sprintf("%s cannot import infrasys and tsstore.infrasys (make infrasysenv)", py)), nil
	}
	n, steps, err := peerCase(*infrasysSeries)
	if err != nil {
		return nil, err
	}
	fn, windows, err := peerCase(*infrasysForecasts)
	if err != nil {
		return nil, err
	}
	med, err := alternatingMedians(reps, infrasysBackends, func(b string, r int) (map[string]float64, error) {
		dir := filepath.Join(cfg.dir, "infrasys_"+b)
		cmd := scriptCommand(py, "infrasys/infrasys_bench.py", b, dir, strconv.Itoa(n), strconv.Itoa(steps), strconv.Itoa(fn), strconv.Itoa(windows))
		cmd.Env = builtLibraryEnv()
		figs, err := keyValues(cmd)
		os.RemoveAll(dir)
		if err != nil {
			return nil, fmt.Errorf("infrasys (%s, run %d): %w", b, r+1, err)
		}
		return figs, nil
	})
	if err != nil {
		return nil, err
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
