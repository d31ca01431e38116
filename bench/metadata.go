package main

import (
	"flag"
	"fmt"
	"math"
	"time"

	"github.com/tsstore/tsstore/core"
)

var (
	metaN     = flag.Int("metadata-n", 100000, "metadata: SingleTimeSeries in the store")
	metaCalls = flag.Int("metadata-calls", 2000, "metadata: has_time_series calls timed per case")
)

// metadataWorkload times the catalog side at system size: has_time_series hit and miss (with
// and without features), the transform, removing every series one by one and by filter, and
// opening the store. Series are short (24 hourly values) so the catalog dominates.
func metadataWorkload(cfg *config) ([]result, error) {
	n := *metaN
	label := fmt.Sprintf("%d × 24 f64", n)
	var out []result
	build := func(name string) (*core.Store, string, time.Duration, error) {
		path := storePath(cfg, name)
		s, err := core.Create(path, nil)
		if err != nil {
			return nil, "", 0, err
		}
		items := make([]core.BatchItem, n)
		for i := range items {
			var opts *core.AddOptions
			if i%2 == 1 { // half the series carry features
				opts = &core.AddOptions{Features: core.Features{"scenario": core.Str("high"), "model_year": core.Int(2030)}}
			}
			v := make([]float64, 24)
			for h := range v {
				v[h] = 50 + 30*math.Sin(float64(h+i)/24)
			}
			items[i] = core.BatchItem{Owner: gen(i), Series: &core.SingleTimeSeries{Name: "p", InitialTimestamp: t0,
				Resolution: core.Hours(1), Data: core.ArrayOf(v)}, Options: opts}
		}
		t := time.Now()
		if _, err := s.AddBatch(items); err != nil {
			return nil, "", 0, err
		}
		if err := s.Flush(); err != nil {
			return nil, "", 0, err
		}
		return s, path, time.Since(t), nil
	}

	s, path, add, err := build("metadata")
	if err != nil {
		return nil, err
	}
	out = append(out, result{"metadata", label, "batch add + flush, per series", perItem(add, n), "µs"})
	if err := s.Close(); err != nil {
		return nil, err
	}
	t := time.Now()
	s, err = core.Open(path)
	if err != nil {
		return nil, err
	}
	out = append(out, result{"metadata", label, "open (writable)", float64(time.Since(t).Microseconds()) / 1e3, "ms"})

	features := core.Features{"scenario": core.Str("high"), "model_year": core.Int(2030)}
	hasCase := func(metric string, key func(i int) core.Key, want bool) error {
		var ds []time.Duration
		for c := 0; c < *metaCalls; c++ {
			i := (c * 7919) % n
			k := key(i)
			t := time.Now()
			ok, err := s.Has(k)
			ds = append(ds, time.Since(t))
			if err != nil {
				return err
			}
			if ok != want {
				return fmt.Errorf("has %v = %v, want %v", k, ok, want)
			}
		}
		out = append(out, result{"metadata", label, metric, medianMicros(ds), "µs"})
		return nil
	}
	plain := func(i int) core.Key {
		return core.Key{OwnerID: int64(i - i%2), Name: "p", Resolution: core.Hours(1)}
	}
	featured := func(i int) core.Key {
		return core.Key{OwnerID: int64(i | 1), Name: "p", Resolution: core.Hours(1), Features: features}
	}
	missing := func(i int) core.Key {
		return core.Key{OwnerID: int64(n + i), Name: "p", Resolution: core.Hours(1)}
	}
	missFeatures := func(i int) core.Key {
		return core.Key{OwnerID: int64(i - i%2), Name: "p", Resolution: core.Hours(1), Features: features}
	}
	for _, c := range []struct {
		metric string
		key    func(int) core.Key
		want   bool
	}{
		{"has_time_series hit, no features (median)", plain, true},
		{"has_time_series hit, with features (median)", featured, true},
		{"has_time_series miss, unknown owner (median)", missing, false},
		{"has_time_series miss, features not stored (median)", missFeatures, false},
	} {
		if err := hasCase(c.metric, c.key, c.want); err != nil {
			return nil, err
		}
	}

	t = time.Now()
	added, err := s.TransformSingleTimeSeries(core.Hours(12), core.Hours(12), nil)
	if err != nil {
		return nil, err
	}
	if err := s.Flush(); err != nil {
		return nil, err
	}
	out = append(out, result{"metadata", label, "transform_single_time_series + flush, per series", perItem(time.Since(t), added), "µs"})

	// The derived views go first, untimed: the store refuses to remove a source under a view.
	if _, err := s.RemoveWhere(core.KeyFilter{Type: ptr(core.DeterministicSingleTimeSeriesType)}); err != nil {
		return nil, err
	}
	keys, err := s.ListKeys(core.KeyFilter{Type: ptr(core.SingleTimeSeriesType)})
	if err != nil {
		return nil, err
	}
	t = time.Now()
	for _, k := range keys {
		if err := s.Remove(k); err != nil {
			return nil, err
		}
	}
	if err := s.Flush(); err != nil {
		return nil, err
	}
	out = append(out, result{"metadata", label, "remove every series one by one + flush, per series", perItem(time.Since(t), len(keys)), "µs"})
	if err := s.Close(); err != nil {
		return nil, err
	}

	s, _, _, err = build("metadata_filter")
	if err != nil {
		return nil, err
	}
	defer s.Close()
	t = time.Now()
	removed, err := s.RemoveWhere(core.KeyFilter{Name: ptr("p")})
	if err != nil {
		return nil, err
	}
	if err := s.Flush(); err != nil {
		return nil, err
	}
	if removed != n {
		return nil, fmt.Errorf("RemoveWhere removed %d of %d", removed, n)
	}
	out = append(out, result{"metadata", label, "remove by filter (all) + flush, per series", perItem(time.Since(t), n), "µs"})
	return out, nil
}

func ptr[T any](v T) *T { return &v }
