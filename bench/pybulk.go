package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tsstore/tsstore/core"
)

var (
	pyBulkN       = flag.Int("pybulk-n", 100_000, "python-bulk: series in the batch add")
	pyBulkReadN   = flag.Int("pybulk-read-n", 10_000, "python-bulk: series read by get_many")
	pyBulkRepeats = flag.Int("pybulk-repeats", 3, "python-bulk: rounds of Python, Go add and Go read in turn, each figure its best round")
)

// pyBulkWorkload runs the two bulk paths a Python modeller uses — one durable batch add
// of N × 24 and one get_many of M × 168 — through the binding and through the Go core on
// the same data, per series, so the cost the binding and the C boundary add is visible.
func pyBulkWorkload(cfg *config) ([]result, error) {
	n, m, reps := *pyBulkN, *pyBulkReadN, max(*pyBulkRepeats, 1)
	lib, err := filepath.Abs(*callsLibDir)
	if err != nil {
		return nil, err
	}
	readPath := storePath(cfg, "pybulk_go_read")
	_, keys, err := goBulkAdd(readPath, m, 168)
	if err != nil {
		return nil, err
	}
	s, err := core.OpenReadOnly(readPath)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// Rounds of Python, then Go's add, then Go's read, in turn (bench/calls.go, interleaved),
	// one Python process a round. Each process makes two of everything: its repeated
	// get_many is then a second call on an open store, as Go's is from the second round on.
	figs, err := interleaved(reps,
		func() (map[string]float64, error) {
			return pythonFigures("python-bulk", lib, "bulk.py", filepath.Join(cfg.dir, "pybulk"), strconv.Itoa(n), "24",
				strconv.Itoa(m), "168", "2")
		},
		func() (map[string]float64, error) {
			d, _, err := goBulkAdd(storePath(cfg, "pybulk_go_add"), n, 24)
			return map[string]float64{"add": float64(d)}, err
		},
		func() (map[string]float64, error) {
			t := time.Now()
			_, err := s.GetMany(keys)
			return map[string]float64{"read": float64(time.Since(t))}, err
		},
		func() (map[string]float64, error) {
			d, err := firstGetMany(readPath, keys)
			return map[string]float64{"first": float64(d)}, err
		})
	if err != nil {
		return nil, err
	}
	pyFigs, goAdd, goRead := figs[0], time.Duration(figs[1]["add"]), time.Duration(figs[2]["read"])
	addUS, readUS, firstUS := perSeries(goAdd, n), perSeries(goRead, m), perSeries(time.Duration(figs[3]["first"]), m)
	addCase := fmt.Sprintf("%d × 24 f64, durable, best of %d interleaved rounds", n, reps)
	readCase := fmt.Sprintf("%d × 168 f64, best of %d interleaved rounds", m, reps)
	return []result{
		{"python-bulk", addCase, "batch add + flush, Go core (AddBatch)", addUS, "µs/series"},
		{"python-bulk", addCase, "batch add + flush, Python (add_time_series_bulk)", pyFigs["add_us"], "µs/series"},
		{"python-bulk", addCase, "Python / Go (bar: ≤ 1.2)", pyFigs["add_us"] / addUS, "×"},
		{"python-bulk", readCase, "bulk read, Go core (GetMany)", readUS, "µs/series"},
		{"python-bulk", readCase, "bulk read, Python (get_many)", pyFigs["get_many_us"], "µs/series"},
		{"python-bulk", readCase, "Python / Go (bar: ≤ 1.2)", pyFigs["get_many_us"] / readUS, "×"},
		{"python-bulk", readCase, "bulk read, Go core, first GetMany after a read-only open", firstUS, "µs/series"},
		{"python-bulk", readCase, "bulk read, Python, first get_many after a read-only open", pyFigs["first_get_many_us"], "µs/series"},
		{"python-bulk", readCase, "first read after an open: Python / Go (bar: ≤ 1.2)", pyFigs["first_get_many_us"] / firstUS, "×"},
	}, nil
}

// firstGetMany times the first GetMany of a store just opened read-only, as bulk.py times its
// first get_many: the same cold work (the file's index, the catalog's pages), so the two
// first reads compare like for like. A core.Key holds no series id, so these keys are as
// bulk.py's, built by hand. The open itself is not timed.
func firstGetMany(path string, keys []core.Key) (time.Duration, error) {
	s, err := core.OpenReadOnly(path)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	t := time.Now()
	_, err = s.GetMany(keys)
	return time.Since(t), err
}

func perSeries(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }

// goBulkAdd writes n hourly series of length steps in one batch and flushes, as bulk.py does.
func goBulkAdd(path string, n, length int) (time.Duration, []core.Key, error) {
	os.Remove(path)
	os.Remove(path + ".sqlite") // the add is timed on a fresh store each run
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	items := make([]core.BatchItem, n)
	for i := range items {
		vals := make([]float64, length)
		for j := range vals {
			vals[j] = float64(i + j)
		}
		items[i] = core.BatchItem{Owner: core.Owner{ID: int64(i), Type: "PowerLoad", Category: core.Component},
			Series: &core.SingleTimeSeries{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1), Data: core.ArrayOf(vals, length)}}
	}
	s, err := core.Create(path, nil)
	if err != nil {
		return 0, nil, err
	}
	t := time.Now()
	keys, err := s.AddBatch(items)
	if err == nil {
		err = s.Flush()
	}
	took := time.Since(t)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return took, keys, err
}
