package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/tsstore/tsstore/core"
)

var (
	staticN   = flag.Int("static-n", 10000, "static: SingleTimeSeries per case")
	staticLen = flag.Int("static-length", 8760, "static: steps per series")
)

// staticThreads are the chunk worker counts the batch add and the batch dataset's sweep run
// with, so that their scaling shows. The other reads use the last batch's store, with the
// default count. At the default size the batch dataset (700 MB) is too large for its rows to
// be kept decoded, so no sweep finds rows an earlier read decoded; with -static-n under about
// 1,900 it would.
var staticThreads = []int{1, 2}

func threadsMetric(metric string, threads int) string {
	if threads == 1 {
		return metric + " (1 thread)"
	}
	return fmt.Sprintf("%s (%d threads)", metric, threads)
}

// staticBatchAdd loads n year-long hourly series in one batch into a new store and flushes
// it, with the given number of chunk workers.
func staticBatchAdd(cfg *config, n, length, threads int) (string, time.Duration, error) {
	defer core.SetThreads(core.SetThreads(threads))
	path := storePath(cfg, fmt.Sprintf("static_batch_%d", threads))
	s, err := core.Create(path, nil)
	if err != nil {
		return "", 0, err
	}
	items := make([]core.BatchItem, n)
	for i := range items {
		items[i] = core.BatchItem{Owner: gen(i), Series: hourlySeries(i, length)}
	}
	t := time.Now()
	_, err = s.AddBatch(items)
	if err == nil {
		err = s.Flush()
	}
	took := time.Since(t)
	return path, took, errors.Join(err, s.Close())
}

func hourlySeries(id, n int) *core.SingleTimeSeries {
	return bulkSeries(bulkCase{length: n, elems: 1}, id)
}

// staticWorkload loads N year-long hourly series in one batch and one at a time, then reads
// them back whole (one call each, and in bulk) and sweeps them step by step.
func staticWorkload(cfg *config) ([]result, error) {
	n, length := *staticN, *staticLen
	label := fmt.Sprintf("%d × %d f64", n, length)
	raw := float64(n*length*8) / (1 << 20)
	var out []result

	var path string
	var batches []time.Duration
	for _, threads := range staticThreads {
		p, batch, err := staticBatchAdd(cfg, n, length, threads)
		if err != nil {
			return nil, err
		}
		path, batches = p, append(batches, batch)
		out = append(out,
			result{"static", label, threadsMetric("batch add + flush, per series", threads), perItem(batch, n), "µs"},
			result{"static", label, threadsMetric("batch add + flush, throughput", threads), raw / batch.Seconds(), "MiB/s"})
	}
	out = append(out, result{"static", label, "store size (batch)", storeMiB(path), "MiB"})
	batchReads, err := batchGets(path, n)
	if err != nil {
		return nil, err
	}
	out = append(out, batchReads...)
	vs, err := staticBaseline(cfg, n, length, batches, batchReads)
	if err != nil {
		return nil, err
	}
	out = append(out, vs...)

	path = storePath(cfg, "static_loop")
	s, err := core.Create(path, nil)
	if err != nil {
		return nil, err
	}
	t := time.Now()
	for i := 0; i < n; i++ {
		if _, err := s.Add(gen(i), hourlySeries(i, length), nil); err != nil {
			return nil, err
		}
	}
	if err := s.Flush(); err != nil {
		return nil, err
	}
	loop := time.Since(t)
	out = append(out, result{"static", label, "one-at-a-time adds + flush, per series", perItem(loop, n), "µs"})
	if err := s.Close(); err != nil {
		return nil, err
	}

	s, err = core.OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	keys := bulkKeys(n)
	t = time.Now()
	if _, err := s.GetMany(keys); err != nil {
		return nil, err
	}
	bulk := time.Since(t)
	var gets []time.Duration
	for i := 0; i < 50; i++ {
		t := time.Now()
		if _, err := s.Get(keys[(i*7919)%n]); err != nil {
			return nil, err
		}
		gets = append(gets, time.Since(t))
	}
	rd, err := s.NewStaticReader(core.Hours(1), core.Lookups(keys))
	if err != nil {
		return nil, err
	}
	steps := min(length, 24*14)
	t = time.Now()
	for i := 0; i < steps; i++ {
		if err := rd.ReadStep(i); err != nil {
			return nil, err
		}
	}
	sweep := time.Since(t)
	rd.Close()
	out = append(out,
		result{"static", label, "bulk read (GetMany), per series", perItem(bulk, n), "µs"},
		result{"static", label, "Get, one series (median of 50, warm cache)", medianMicros(gets) / 1000, "ms"},
		result{"static", label, fmt.Sprintf("StaticReader, %d steps, per (component, step)", steps), float64(sweep.Nanoseconds()) / 1e3 / float64(n*steps), "µs"},
	)
	return out, nil
}

// batchGets times one-at-a-time Gets from the batch store, whose single dataset is n columns
// wide: every whole-column read decompresses all of its chunks. Without the read cache each
// Get pays that; with it the first Get decodes a block of columns and the next ones in column
// order are copies.
func batchGets(path string, n int) ([]result, error) {
	s, err := core.OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	timeGet := func(i int) (time.Duration, error) {
		t := time.Now()
		_, err := s.Get(bulkKey(i))
		return time.Since(t), err
	}
	if err := s.SetReadCache(0); err != nil {
		return nil, err
	}
	uncached, err := timeGet(n / 2)
	if err != nil {
		return nil, err
	}
	if err := s.SetReadCache(core.DefaultReadCacheBytes); err != nil {
		return nil, err
	}
	first, err := timeGet(0)
	if err != nil {
		return nil, err
	}
	const next = 200
	t := time.Now()
	for i := 1; i <= min(next, n-1); i++ {
		if _, err := s.Get(bulkKey(i)); err != nil {
			return nil, err
		}
	}
	rest := time.Since(t)
	keys := bulkKeys(n)
	steps := min(*staticLen, baselineSweepSteps)
	var sweeps []result
	for _, threads := range staticThreads {
		sweep, err := staticSweep(s, keys, steps, threads)
		if err != nil {
			return nil, err
		}
		sweeps = append(sweeps, result{"static", fmt.Sprintf("%d × %d f64", n, *staticLen),
			threadsMetric(fmt.Sprintf("StaticReader over the batch dataset, %d steps, per (component, step)", steps), threads),
			float64(sweep.Nanoseconds()) / 1e3 / float64(n*steps), "µs"})
	}
	label := fmt.Sprintf("%d × %d f64", n, *staticLen)
	return append(sweeps, []result{
		{"static", label, "Get from the batch dataset, read cache off", uncached.Seconds() * 1e3, "ms"},
		{"static", label, "Get from the batch dataset, first (decodes a block of columns)", first.Seconds() * 1e3, "ms"},
		{"static", label, fmt.Sprintf("Get from the batch dataset, next %d in column order, per series", next), perItem(rest, min(next, n-1)) / 1e3, "ms"},
	}...), nil
}

// staticSweep reads steps steps of keys with a StaticReader built with the given number of
// chunk workers, and returns how long the steps took.
func staticSweep(s *core.Store, keys []core.Key, steps, threads int) (time.Duration, error) {
	defer core.SetThreads(core.SetThreads(threads))
	rd, err := s.NewStaticReader(core.Hours(1), core.Lookups(keys))
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	t := time.Now()
	for i := 0; i < steps; i++ {
		if err := rd.ReadStep(i); err != nil {
			return 0, err
		}
	}
	return time.Since(t), nil
}

// baselineSweepSteps is how many steps both the store and the baseline sweep.
const baselineSweepSteps = 24 * 14

// staticBaseline runs the netcdf-c baseline on the batch case's shapes (one [length, n] f64
// dataset chunked (1, n), deflate 3 + shuffle: the store's default) and reports the store's
// figures as ratios to it (1.0: as fast as netcdf-c alone; 2.0: twice the time).
func staticBaseline(cfg *config, n, length int, batches []time.Duration, reads []result) ([]result, error) {
	figs, err := runBaseline(cfg, "static", storePath(cfg, "baseline_static"), strconv.Itoa(n), strconv.Itoa(length),
		"1", "3", "1", strconv.Itoa(min(length, baselineSweepSteps)), "1")
	if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("%d × %d f64", n, length)
	steps := min(length, baselineSweepSteps)
	baseWrite := figs["write_s"] * 1e6 / float64(n)
	baseSweep := figs["sweep_s"] * 1e6 / float64(n*steps)
	baseColumn := figs["column_s"] * 1e3
	ours := map[string]float64{}
	for _, r := range reads {
		ours[r.Metric] = r.Value
	}
	sweepMetric := fmt.Sprintf("StaticReader over the batch dataset, %d steps, per (component, step)", steps)
	out := []result{{"static", label, "baseline (netcdf-c alone): write + sync, per series", baseWrite, "µs"}}
	for i, batch := range batches {
		out = append(out, result{"static", label, threadsMetric("batch add + flush ÷ baseline write", staticThreads[i]), perItem(batch, n) / baseWrite, "×"})
	}
	out = append(out, result{"static", label, "baseline: row sweep, per (component, step)", baseSweep, "µs"})
	for _, threads := range staticThreads {
		out = append(out, result{"static", label, threadsMetric("StaticReader sweep ÷ baseline row sweep", threads),
			ours[threadsMetric(sweepMetric, threads)] / baseSweep, "×"})
	}
	return append(out, []result{
		{"static", label, "baseline: one whole column", baseColumn, "ms"},
		{"static", label, "Get (read cache off) ÷ baseline column", ours["Get from the batch dataset, read cache off"] / baseColumn, "×"},
		{"static", label, "baseline file size", figs["bytes"] / (1 << 20), "MiB"},
	}...), nil
}
