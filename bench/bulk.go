package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tsstore/tsstore/core"
)

var (
	bulkCases = flag.String("bulk-cases", "10000x24,10000x168,100000x24,100000x168",
		"bulk: N×length cases, each run with f64 and [3] elements (a case may name one: 10000x8760:f64)")
	bulkSweep = flag.Int("bulk-sweep-steps", 24*14, "bulk: StaticReader steps swept per case (at most the length)")
	bulkReads = flag.Bool("bulk-full-reads", true, "bulk: time the full reads (one Get per series, GetMany); off for sweep-only runs")
	bulkBatch = flag.Int("bulk-batch", 0, "bulk: series per AddBatch call (0: all N in one; 10000 keeps 100000x8760 within memory)")
)

// bulkCase is one size of the bulk workload.
type bulkCase struct {
	n, length, elems int // elems: 1 for f64, 3 for a [3] element
}

func (c bulkCase) label() string {
	el := "f64"
	if c.elems > 1 {
		el = fmt.Sprintf("[%d] f64", c.elems)
	}
	return fmt.Sprintf("%d × %d %s", c.n, c.length, el)
}

func parseBulkCases(s string) ([]bulkCase, error) {
	var out []bulkCase
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		size, only, _ := strings.Cut(f, ":")
		ns, ls, ok := strings.Cut(size, "x")
		n, err1 := strconv.Atoi(ns)
		l, err2 := strconv.Atoi(ls)
		if !ok || err1 != nil || err2 != nil || n < 1 || l < 1 {
			return nil, fmt.Errorf("bulk case %q is not N×length (e.g. 10000x24)", f)
		}
		switch only {
		case "":
			out = append(out, bulkCase{n, l, 1}, bulkCase{n, l, 3})
		case "f64":
			out = append(out, bulkCase{n, l, 1})
		case "[3]", "3":
			out = append(out, bulkCase{n, l, 3})
		default:
			return nil, fmt.Errorf("bulk case %q: element %q is not f64 or [3]", f, only)
		}
	}
	return out, nil
}

// staticValue is what the store and the baseline both write: column i, step h, element e.
func staticValue(h, i, e int) float64 { return 50 + 30*math.Sin(float64(h+i)/24) + float64(e) }

func bulkSeries(c bulkCase, i int) *core.SingleTimeSeries {
	v := make([]float64, c.length*c.elems)
	for h := 0; h < c.length; h++ {
		for e := 0; e < c.elems; e++ {
			v[h*c.elems+e] = staticValue(h, i, e)
		}
	}
	shape := []int{c.length}
	if c.elems > 1 {
		shape = append(shape, c.elems)
	}
	return &core.SingleTimeSeries{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1),
		Data: core.ArrayOf(v, shape...)}
}

func bulkKey(i int) core.Key {
	return core.Key{OwnerID: int64(i), Name: "max_active_power", Resolution: core.Hours(1)}
}

// bulkKeys are the keys of the series of owners 0 to n-1 that bulkSeries and hourlySeries
// make.
func bulkKeys(n int) []core.Key {
	keys := make([]core.Key, n)
	for i := range keys {
		keys[i] = bulkKey(i)
	}
	return keys
}

// bulkWorkload loads each case in one batch, reads every series back one call each and in
// bulk, sweeps it with a StaticReader, and runs the netcdf-c baseline on the same shapes.
func bulkWorkload(cfg *config) ([]result, error) {
	cases, err := parseBulkCases(*bulkCases)
	if err != nil {
		return nil, err
	}
	var out []result
	for _, c := range cases {
		rs, err := bulkOne(cfg, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.label(), err)
		}
		out = append(out, rs...)
	}
	return out, nil
}

func bulkOne(cfg *config, c bulkCase) ([]result, error) {
	path := storePath(cfg, "bulk")
	batch := c.n
	if *bulkBatch > 0 {
		batch = min(*bulkBatch, c.n)
	}
	label := c.label()
	if batch < c.n {
		label += fmt.Sprintf(", batches of %d", batch)
	}
	r := func(metric string, v float64, unit string) result { return result{"bulk", label, metric, v, unit} }
	raw := float64(c.n*c.length*c.elems*8) / (1 << 20)

	s, err := core.Create(path, nil)
	if err != nil {
		return nil, err
	}
	var add time.Duration
	for first := 0; first < c.n; first += batch {
		items := make([]core.BatchItem, min(batch, c.n-first))
		for j := range items {
			items[j] = core.BatchItem{Owner: gen(first + j), Series: bulkSeries(c, first+j)}
		}
		t := time.Now()
		if _, err := s.AddBatch(items); err != nil {
			s.Close()
			return nil, err
		}
		if err := s.Flush(); err != nil {
			s.Close()
			return nil, err
		}
		add += time.Since(t)
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	out := []result{
		r("batch add + flush, per series", perItem(add, c.n), "µs"),
		r("batch add + flush, throughput", raw/add.Seconds(), "MiB/s"),
		r("store size", storeMiB(path), "MiB"),
	}

	keys := bulkKeys(c.n)
	// The sweep first, on a fresh open: its chunks come off the file, as the baseline's do,
	// not out of caches the full reads warmed.
	steps := min(c.length, *bulkSweep)
	build, sweep, err := sweepFresh(path, keys, steps)
	if err != nil {
		return nil, err
	}
	sweepPer := float64(sweep.Nanoseconds()) / 1e3 / float64(c.n*steps)
	out = append(out,
		r(fmt.Sprintf("StaticReader, %d steps, per (component, step)", steps), sweepPer, "µs"),
		r("StaticReader build, per key", perItem(build, c.n), "µs"),
	)
	if *bulkReads {
		reads, err := fullReads(path, keys, c, label)
		if err != nil {
			return nil, err
		}
		out = append(out, reads...)
	}

	figs, err := runBaseline(cfg, "static", storePath(cfg, "baseline_bulk"), strconv.Itoa(c.n), strconv.Itoa(c.length),
		strconv.Itoa(c.elems), "3", "1", strconv.Itoa(steps), "1", strconv.Itoa(batch))
	if err != nil {
		return nil, err
	}
	baseWrite := figs["write_s"] * 1e6 / float64(c.n)
	baseSweep := figs["sweep_s"] * 1e6 / float64(c.n*steps)
	return append(out,
		r("baseline (netcdf-c alone): write + sync, per series", baseWrite, "µs"),
		r("batch add + flush ÷ baseline write", perItem(add, c.n)/baseWrite, "×"),
		r("baseline: row sweep, per (component, step)", baseSweep, "µs"),
		r("StaticReader sweep ÷ baseline row sweep", sweepPer/baseSweep, "×"),
		r("baseline: one whole column", figs["column_s"]*1e6, "µs"),
		r("baseline file size", figs["bytes"]/(1<<20), "MiB"),
	), nil
}

// checkStatic compares a read series with what bulkSeries wrote, so a benchmark of wrong
// reads cannot pass for a fast one.
func checkStatic(ts core.TimeSeries, c bulkCase, i int) error {
	st, ok := ts.(*core.SingleTimeSeries)
	if !ok {
		return fmt.Errorf("series %d read back as %T", i, ts)
	}
	v, err := core.Values[float64](st.Data)
	if err != nil {
		return err
	}
	h := c.length - 1
	if len(v) != c.length*c.elems || v[h*c.elems+c.elems-1] != staticValue(h, i, c.elems-1) {
		return fmt.Errorf("series %d read back wrong values", i)
	}
	return nil
}

// sweepFresh opens the store, builds a StaticReader over keys and times steps steps.
func sweepFresh(path string, keys []core.Key, steps int) (build, sweep time.Duration, err error) {
	s, err := core.OpenReadOnly(path)
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	t := time.Now()
	rd, err := s.NewStaticReader(core.Hours(1), core.Lookups(keys))
	if err != nil {
		return 0, 0, err
	}
	defer rd.Close()
	build = time.Since(t)
	t = time.Now()
	for i := 0; i < steps; i++ {
		if err := rd.ReadStep(i); err != nil {
			return 0, 0, err
		}
	}
	return build, time.Since(t), nil
}

// fullReads reads every series back, one Get each and then through GetMany, checking values.
func fullReads(path string, keys []core.Key, c bulkCase, label string) ([]result, error) {
	s, err := core.OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	t := time.Now()
	for i, k := range keys {
		ts, err := s.Get(k)
		if err != nil {
			return nil, err
		}
		if i%997 == 0 {
			if err := checkStatic(ts, c, i); err != nil {
				return nil, err
			}
		}
	}
	oneByOne := time.Since(t)
	t = time.Now()
	all, err := s.GetMany(keys)
	if err != nil {
		return nil, err
	}
	bulk := time.Since(t)
	if err := checkStatic(all[c.n-1], c, c.n-1); err != nil {
		return nil, err
	}
	return []result{
		{"bulk", label, "full read, one Get per series", perItem(oneByOne, c.n), "µs"},
		{"bulk", label, "full read, GetMany, per series", perItem(bulk, c.n), "µs"},
	}, nil
}
