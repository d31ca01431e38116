package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/tsstore/tsstore/core"
)

var rewriteN = flag.Int("rewrite-n", 10000, "rewrite: series stored before 90% are removed")

// rewriteItem is series i of the rewrite workload: a week of hourly values, every tenth a
// day-ahead forecast of 30 windows.
func rewriteItem(i int) core.BatchItem {
	if i%10 == 9 {
		return core.BatchItem{Owner: gen(i), Series: dayAhead(i, 30)}
	}
	v := make([]float64, 168)
	for k := range v {
		v[k] = 50 + 30*math.Sin(float64(k+i)/24)
	}
	return core.BatchItem{Owner: core.Owner{ID: int64(i), Type: "PowerLoad", Category: core.Component},
		Series: &core.SingleTimeSeries{Name: "max_active_power", InitialTimestamp: t0, Resolution: core.Hours(1), Data: core.ArrayOf(v, 168)}}
}

// rewriteWorkload is issue 21's compaction case: a store of n series loses 90% of them and
// gets n/10 new ones; Compact with a rewrite then gives the space back. It reports the sizes
// beside a fresh store of the survivors (target ≤ 1.1×), and the rewrite's throughput beside
// a plain copy of the file.
func rewriteWorkload(cfg *config) ([]result, error) {
	n := *rewriteN
	path := storePath(cfg, "rewrite")
	s, err := core.Create(path, nil)
	if err != nil {
		return nil, err
	}
	var items []core.BatchItem
	for i := 0; i < n; i++ {
		items = append(items, rewriteItem(i))
	}
	keys, err := s.AddBatch(items)
	if err != nil {
		return nil, err
	}
	if err := s.Flush(); err != nil {
		return nil, err
	}
	var survivors []core.BatchItem
	for i, k := range keys {
		if i%10 == 3 {
			survivors = append(survivors, items[i])
		} else if err := s.Remove(k); err != nil {
			return nil, err
		}
	}
	if err := s.Flush(); err != nil {
		return nil, err
	}
	var more []core.BatchItem
	for i := n; i < n+n/10; i++ {
		more = append(more, rewriteItem(i))
	}
	if _, err := s.AddBatch(more); err != nil {
		return nil, err
	}
	if err := s.Flush(); err != nil {
		return nil, err
	}
	survivors = append(survivors, more...)
	churned := storeMiB(path)
	copied, err := copyFile(path, path+".copy")
	if err != nil {
		return nil, err
	}
	os.Remove(path + ".copy")
	t := time.Now()
	rep, err := s.Compact(&core.CompactOptions{Rewrite: true})
	took := time.Since(t)
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	fresh := storePath(cfg, "rewrite_fresh")
	f, err := core.Create(fresh, nil)
	if err != nil {
		return nil, err
	}
	if _, err := f.AddBatch(survivors); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := checkRewritten(path, survivors); err != nil {
		return nil, err
	}
	after := storeMiB(path)
	c := fmt.Sprintf("%d series (SingleTimeSeries [168] f64, every tenth a Deterministic [24, 30]), 90%% removed, %d added", n, n/10)
	mbps := func(bytes float64, d time.Duration) float64 { return bytes / (1 << 20) / d.Seconds() }
	out := []result{
		{"rewrite", c, "pair before the rewrite", churned, "MiB"},
		{"rewrite", c, "pair after the rewrite", after, "MiB"},
		{"rewrite", c, "a fresh store of the survivors", storeMiB(fresh), "MiB"},
		{"rewrite", c, "after ÷ fresh (target ≤ 1.1)", after / storeMiB(fresh), "×"},
		{"rewrite", c, "rewrite time", took.Seconds(), "s"},
		{"rewrite", c, "rewrite throughput, the old .nc's bytes per second", mbps(float64(rep.BytesBefore), took), "MB/s"},
		{"rewrite", c, "baseline: a plain copy of the .nc (read + write + fsync)", mbps(float64(copied.bytes), copied.took), "MB/s"},
	}
	os.Remove(fresh)
	os.Remove(fresh + ".sqlite")
	return out, nil
}

// checkRewritten reads every survivor back from the rewritten store.
func checkRewritten(path string, survivors []core.BatchItem) error {
	s, err := core.OpenReadOnly(path)
	if err != nil {
		return err
	}
	defer s.Close()
	for _, it := range survivors {
		k := core.Key{OwnerID: it.Owner.ID, OwnerCategory: it.Owner.Category, Type: it.Series.SeriesType(),
			Name: it.Series.SeriesName(), Resolution: core.Hours(1)}
		var want core.TypedArray
		switch v := it.Series.(type) {
		case *core.SingleTimeSeries:
			want = v.Data
		case *core.Deterministic:
			want, k.Interval = v.Data, v.Interval
		}
		ts, err := s.Get(k)
		if err != nil {
			return err
		}
		var got core.TypedArray
		switch v := ts.(type) {
		case *core.SingleTimeSeries:
			got = v.Data
		case *core.Deterministic:
			got = v.Data
		}
		if string(got.Data) != string(want.Data) {
			return fmt.Errorf("%s reads back different values after the rewrite", k)
		}
	}
	return nil
}

type copyCost struct {
	bytes int64
	took  time.Duration
}

// copyFile copies src to dst and fsyncs it: what moving the file's bytes costs the disk.
func copyFile(src, dst string) (copyCost, error) {
	t := time.Now()
	in, err := os.Open(src)
	if err != nil {
		return copyCost{}, err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return copyCost{}, err
	}
	n, err := io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return copyCost{n, time.Since(t)}, err
}
