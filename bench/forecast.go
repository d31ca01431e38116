package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tsstore/tsstore/core"
)

var (
	addLevels  = flag.String("forecast-add-levels", "1000,10000", "forecast-add: forecasts stored before measuring")
	addRepeats = flag.Int("forecast-add-repeats", 25, "forecast-add: one-at-a-time adds timed per level")
	sweepN     = flag.Int("forecast-sweep-n", 10000, "forecast-sweep: components per forecast type")
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func gen(id int) core.Owner {
	return core.Owner{ID: int64(id), Type: "RenewableDispatch", Category: core.Component}
}

// dayAhead is a Deterministic of count daily windows of 24 hourly values.
func dayAhead(seed, count int) *core.Deterministic {
	v := make([]float64, 24*count)
	for i := range v {
		v[i] = math.Sin(float64(i+seed)/7) + float64(seed%100)
	}
	return &core.Deterministic{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1),
		Horizon: core.Days(1), Interval: core.Days(1), Count: count, Data: core.ArrayOf(v, 24, count)}
}

// forecastAdd measures what one more Deterministic costs as a store fills. netcdf-c
// flushes HDF5 metadata whenever it leaves define mode, and that flush visits every open
// dataset (three per forecast: the array and its two dimensions), so a one-at-a-time add
// grows with the store while a batch pays the flush once.
func forecastAdd(cfg *config) ([]result, error) {
	levels, err := parseLevels(*addLevels)
	if err != nil {
		return nil, err
	}
	const count = 30
	var out []result
	for _, level := range levels {
		path := storePath(cfg, fmt.Sprintf("forecast_add_%d", level))
		s, err := core.Create(path, nil)
		if err != nil {
			return nil, err
		}
		began := time.Now()
		for done := 0; done < level; done += 1000 {
			var items []core.BatchItem
			for i := done; i < min(level, done+1000); i++ {
				items = append(items, core.BatchItem{Owner: gen(i), Series: dayAhead(i, count)})
			}
			if _, err := s.AddBatch(items); err != nil {
				return nil, err
			}
		}
		if err := s.Flush(); err != nil {
			return nil, err
		}
		fill := time.Since(began)
		next := level
		nextSeries := func() (core.Owner, *core.Deterministic) {
			next++
			return gen(next), dayAhead(next, count)
		}
		// The call alone: the array waits in the write buffer.
		var calls []time.Duration
		for r := 0; r < *addRepeats; r++ {
			o, fc := nextSeries()
			t := time.Now()
			if _, err := s.Add(o, fc, nil); err != nil {
				return nil, err
			}
			calls = append(calls, time.Since(t))
		}
		if err := s.Flush(); err != nil {
			return nil, err
		}
		// A loop of adds and one flush: what the loop costs per forecast, durably.
		t := time.Now()
		for r := 0; r < 100; r++ {
			o, fc := nextSeries()
			if _, err := s.Add(o, fc, nil); err != nil {
				return nil, err
			}
		}
		if err := s.Flush(); err != nil {
			return nil, err
		}
		loop := time.Since(t)
		// Add and flush every time: the define phase and sync netcdf-c forces, per forecast.
		var durable []time.Duration
		for r := 0; r < *addRepeats; r++ {
			o, fc := nextSeries()
			t := time.Now()
			if _, err := s.Add(o, fc, nil); err != nil {
				return nil, err
			}
			if err := s.Flush(); err != nil {
				return nil, err
			}
			durable = append(durable, time.Since(t))
		}
		var items []core.BatchItem
		for i := 0; i < 100; i++ {
			o, fc := nextSeries()
			items = append(items, core.BatchItem{Owner: o, Series: fc})
		}
		t = time.Now()
		if _, err := s.AddBatch(items); err != nil {
			return nil, err
		}
		if err := s.Flush(); err != nil {
			return nil, err
		}
		batch := time.Since(t)
		if err := s.Close(); err != nil {
			return nil, err
		}
		t = time.Now()
		s, err = core.OpenReadOnly(path)
		if err != nil {
			return nil, err
		}
		open := time.Since(t)
		s.Close()
		c := fmt.Sprintf("%d stored, [24, %d] f64", level, count)
		figs, err := runBaseline(cfg, "forecast-add", storePath(cfg, "baseline_forecast_add"), strconv.Itoa(level), "24",
			strconv.Itoa(count), "3", "1", strconv.Itoa(*addRepeats))
		if err != nil {
			return nil, err
		}
		baseAdd := figs["add_fsync_median_s"] * 1e6
		out = append(out,
			result{"forecast-add", c, "baseline (netcdf-c alone): one more variable, define + write + nc_sync (median)", figs["add_median_s"] * 1e6, "µs"},
			result{"forecast-add", c, "baseline: the same + fsync (median)", baseAdd, "µs"},
			result{"forecast-add", c, "add + flush every time ÷ baseline with fsync", medianMicros(durable) / baseAdd, "×"},
			result{"forecast-add", c, "baseline: open (writable)", figs["open_s"] * 1e3, "ms"},
		)
		out = append(out,
			result{"forecast-add", c, "one-at-a-time add, the call (median)", medianMicros(calls), "µs"},
			result{"forecast-add", c, "100 one-at-a-time adds + flush, per forecast", perItem(loop, 100), "µs"},
			result{"forecast-add", c, "add + flush every time (median)", medianMicros(durable), "µs"},
			result{"forecast-add", c, "batch of 100 + flush, per forecast", perItem(batch, 100), "µs"},
			result{"forecast-add", c, "filling the store in batches of 1,000, per forecast", perItem(fill, level), "µs"},
			result{"forecast-add", c, "open (read-only)", float64(open.Milliseconds()), "ms"},
			result{"forecast-add", c, "store size", storeMiB(path), "MiB"},
		)
	}
	return out, nil
}

func perItem(d time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(n)
}

// forecastSweep is the simulation loop: at every daily step read the day-ahead window of
// every component, through one ForecastReader, for dense Deterministic forecasts and for
// DeterministicSingleTimeSeries views over a year of hourly values.
func forecastSweep(cfg *config) ([]result, error) {
	const windows = 365
	n := *sweepN
	path := storePath(cfg, "forecast_sweep")
	s, err := core.Create(path, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	began := time.Now()
	for done := 0; done < n; done += 1000 {
		var items []core.BatchItem
		for i := done; i < min(n, done+1000); i++ {
			items = append(items, core.BatchItem{Owner: gen(i), Series: dayAhead(i, windows)})
		}
		if _, err := s.AddBatch(items); err != nil {
			return nil, err
		}
	}
	denseAdd := time.Since(began)
	// The sources of the transform in one batch: one packed dataset as wide as the chunk
	// budget allows, the shape the baseline sweeps.
	items := make([]core.BatchItem, n)
	for i := range items {
		items[i] = core.BatchItem{Owner: gen(n + i), Series: hourlySeries(i, 24*windows)}
	}
	began = time.Now()
	if _, err := s.AddBatch(items); err != nil {
		return nil, err
	}
	staticAdd := time.Since(began)
	items = nil
	began = time.Now()
	if _, err := s.TransformSingleTimeSeries(core.Days(1), core.Days(1), nil); err != nil {
		return nil, err
	}
	transform := time.Since(began)
	if err := s.Flush(); err != nil {
		return nil, err
	}
	base, datasets, err := forecastBaselines(cfg, n, windows)
	if err != nil {
		return nil, err
	}
	var out []result
	for _, c := range []struct {
		name  string
		typ   core.SeriesType
		first int
	}{{"Deterministic", core.DeterministicType, 0}, {"DeterministicSingleTimeSeries", core.DeterministicSingleTimeSeriesType, n}} {
		keys := make([]core.Key, n)
		for i := range keys {
			keys[i] = core.Key{OwnerID: int64(c.first + i), Type: c.typ, Name: "max_active_power",
				Resolution: core.Hours(1), Interval: core.Days(1)}
		}
		t := time.Now()
		rd, err := s.NewForecastReader(c.typ, core.Hours(1), core.Lookups(keys))
		if err != nil {
			return nil, err
		}
		build := time.Since(t)
		chunks0 := s.Stats().ChunkReads
		t = time.Now()
		for w := 0; w < windows; w++ {
			if err := rd.ReadWindow(w); err != nil {
				return nil, err
			}
		}
		sweep := time.Since(t)
		chunks := s.Stats().ChunkReads - chunks0
		if err := checkWindow(rd, c.typ); err != nil {
			return nil, err
		}
		rd.Close()
		label := fmt.Sprintf("%s, %d × %d windows of 24 h", c.name, n, windows)
		per := float64(sweep.Nanoseconds()) / 1e3 / float64(n*windows)
		// Dense: one [24, 365] chunk per forecast; views: one (1, cols) chunk per source row.
		held := int64(n)
		if c.typ == core.DeterministicSingleTimeSeriesType {
			held = int64(24 * windows * datasets)
		}
		out = append(out,
			result{"forecast-sweep", label, "per (component, window)", per, "µs"},
			result{"forecast-sweep", label, "reader build", float64(build.Milliseconds()), "ms"},
			result{"forecast-sweep", label, "chunks read by the sweep", float64(chunks), "chunks"},
			result{"forecast-sweep", label, "chunks holding the data (each read once: equal)", float64(held), "chunks"},
			result{"forecast-sweep", label, "baseline (netcdf-c alone): per (component, window)", base[c.typ], "µs"},
			result{"forecast-sweep", label, "sweep ÷ baseline", per / base[c.typ], "×"},
		)
	}
	out = append(out,
		result{"forecast-sweep", fmt.Sprintf("%d Deterministic [24, %d]", n, windows), "batch add, per forecast", perItem(denseAdd, n), "µs"},
		result{"forecast-sweep", fmt.Sprintf("%d SingleTimeSeries [8760]", n), "batch add, per series", perItem(staticAdd, n), "µs"},
		result{"forecast-sweep", fmt.Sprintf("%d SingleTimeSeries", n), "transform_single_time_series", float64(transform.Milliseconds()), "ms"},
		result{"forecast-sweep", "whole store", "store size", storeMiB(path), "MiB"},
	)
	return out, nil
}

// forecastBaselines runs the netcdf-c baseline over the sweep's shapes: n dense [24, windows]
// variables read window by window, and the [24·windows, n] packed dataset read in bands of 24
// rows (one day-ahead window of every view). It returns µs per (component, window) by type
// and how many packed datasets the sources take.
func forecastBaselines(cfg *config, n, windows int) (map[core.SeriesType]float64, int, error) {
	dense, err := runBaseline(cfg, "forecast", storePath(cfg, "baseline_forecast"), strconv.Itoa(n), "24",
		strconv.Itoa(windows), "3", "1")
	if err != nil {
		return nil, 0, err
	}
	band, err := runBaseline(cfg, "static", storePath(cfg, "baseline_views"), strconv.Itoa(n), strconv.Itoa(24*windows),
		"1", "3", "1", strconv.Itoa(24*windows), "24")
	if err != nil {
		return nil, 0, err
	}
	per := float64(n*windows) / 1e6
	return map[core.SeriesType]float64{
		core.DeterministicType:                 dense["sweep_s"] / per,
		core.DeterministicSingleTimeSeriesType: band["sweep_s"] / per,
	}, int(band["datasets"]), nil
}

// checkWindow compares the last window read with what was written, so a fast sweep of wrong
// values cannot pass.
func checkWindow(rd *core.ForecastReader, typ core.SeriesType) error {
	g := rd.Groups()[0]
	v, err := core.Values[float64](g.Values)
	if err != nil {
		return err
	}
	last := len(g.Keys) - 1
	ki, w := g.Keys[last], 364 // the key's index is its dense seed and its source's column
	var want float64
	if typ == core.DeterministicType {
		want = math.Sin(float64(23*365+w+ki)/7) + float64(ki%100)
	} else {
		want = staticValue(24*w+23, ki, 0)
	}
	if got := v[last*24+23]; math.Abs(got-want) > 1e-12 {
		return fmt.Errorf("%s window %d of key %d step 23 = %v, want %v", typ, w, last, got, want)
	}
	return nil
}
