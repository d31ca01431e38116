package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tsstore/tsstore/core"
)

var openLevels = flag.String("open-levels", "1000,100000", "open: forecasts (30 daily windows of 24 h) in the stores opened")

// openChildEnv makes tsbench an open measurement in a fresh process: its peak RSS is the
// open's and the reads', nothing else's.
const openChildEnv = "TSBENCH_OPEN_CHILD"

// openWorkload measures what opening a store of many forecasts costs, in a fresh process
// each time: a read-only and a writable open (both HDF5 directly, one dataset at a time),
// and netcdf-c's own read-only nc_open of the same file as the baseline. The targets
// (issue 21): an open of 100,000 forecasts in ≤ 1 s with ≤ 300 MB, and a forecast read that
// costs about what it costs in a store of 1,000.
func openWorkload(cfg *config) ([]result, error) {
	levels, err := parseLevels(*openLevels)
	if err != nil {
		return nil, err
	}
	const count = 30
	var out []result
	for _, level := range levels {
		path := storePath(cfg, fmt.Sprintf("open_%d", level))
		if err := fillForecasts(path, level, count); err != nil {
			return nil, err
		}
		c := fmt.Sprintf("%d forecasts of [24, %d] f64, %.0f MiB", level, count, storeMiB(path))
		ro, err := openChild(path, "ro", level)
		if err != nil {
			return nil, err
		}
		rw, err := openChild(path, "rw", level)
		if err != nil {
			return nil, err
		}
		base, err := runBaseline(cfg, "open", path)
		if err != nil {
			return nil, err
		}
		out = append(out,
			result{"open", c, "baseline (netcdf-c alone): nc_open read-only", base["open_s"], "s"},
			result{"open", c, "baseline: peak RSS after nc_open", base["rss_mib"], "MiB"},
			result{"open", c, "read-only open (target ≤ 1 s at 100,000)", ro["open_s"], "s"},
			result{"open", c, "read-only open ÷ baseline", ro["open_s"] / base["open_s"], "×"},
			result{"open", c, "read-only: peak RSS after open (target ≤ 300 MB at 100,000)", ro["open_rss_mib"], "MiB"},
			result{"open", c, "read-only: first Get of a forecast", ro["first_get_us"], "µs"},
			result{"open", c, "read-only: Get of a forecast not read before (median of 200)", ro["get_us"], "µs"},
			result{"open", c, "read-only: peak RSS after the 201 Gets", ro["rss_mib"], "MiB"},
			result{"open", c, "writable open (target ≤ 1 s at 100,000)", rw["open_s"], "s"},
			result{"open", c, "writable: peak RSS after open (target ≤ 300 MB at 100,000)", rw["open_rss_mib"], "MiB"},
			result{"open", c, "writable: Get of a forecast not read before (median of 200)", rw["get_us"], "µs"},
		)
		os.Remove(path)
		os.Remove(path + ".sqlite")
	}
	return out, nil
}

// fillForecasts creates a store of n day-ahead Deterministic forecasts, in batches.
func fillForecasts(path string, n, count int) error {
	s, err := core.Create(path, nil)
	if err != nil {
		return err
	}
	for done := 0; done < n; done += 5000 {
		var items []core.BatchItem
		for i := done; i < min(n, done+5000); i++ {
			items = append(items, core.BatchItem{Owner: gen(i), Series: dayAhead(i, count)})
		}
		if _, err := s.AddBatch(items); err != nil {
			s.Close()
			return err
		}
		if err := s.Flush(); err != nil {
			s.Close()
			return err
		}
	}
	return s.Close()
}

// openChild runs the open measurement in a child tsbench and returns its figures.
func openChild(path, mode string, level int) (map[string]float64, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), openChildEnv+"="+strings.Join([]string{path, mode, strconv.Itoa(level)}, ","))
	figs, err := keyValues(cmd)
	if err != nil {
		return nil, fmt.Errorf("open child (%s): %w", mode, err)
	}
	return figs, nil
}

// runOpenChild is the child: open, then Gets of forecasts spread over the store, each
// checked against what fillForecasts wrote. It prints key=value lines.
func runOpenChild(spec string) error {
	parts := strings.Split(spec, ",")
	if len(parts) != 3 {
		return fmt.Errorf("%s=%q", openChildEnv, spec)
	}
	path, mode := parts[0], parts[1]
	level, err := strconv.Atoi(parts[2])
	if err != nil {
		return err
	}
	open := core.OpenReadOnly
	if mode == "rw" {
		open = core.Open
	}
	t := time.Now()
	s, err := open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Printf("open_s=%.6f\nopen_rss_mib=%.1f\n", time.Since(t).Seconds(), workloadPeakMiB())
	get := func(i int) (time.Duration, error) {
		k := core.Key{OwnerID: int64(i), OwnerCategory: core.Component, Type: core.DeterministicType,
			Name: "max_active_power", Resolution: core.Hours(1), Interval: core.Days(1)}
		t := time.Now()
		ts, err := s.Get(k)
		took := time.Since(t)
		if err != nil {
			return 0, err
		}
		want := dayAhead(i, 30).Data
		if got := ts.(*core.Deterministic).Data; string(got.Data) != string(want.Data) {
			return 0, fmt.Errorf("forecast %d reads back different values", i)
		}
		return took, nil
	}
	first, err := get(level / 2)
	if err != nil {
		return err
	}
	var gets []time.Duration
	for r := 0; r < 200; r++ {
		d, err := get((r*7919 + 13) % level)
		if err != nil {
			return err
		}
		gets = append(gets, d)
	}
	fmt.Printf("first_get_us=%.1f\nget_us=%.1f\nrss_mib=%.1f\n", float64(first.Nanoseconds())/1e3, medianMicros(gets), workloadPeakMiB())
	return nil
}
