package core

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchManyStore writes n hourly f64 series of length steps in one batch (as tsbench's
// python-bulk does) and reopens the store read-only.
func benchManyStore(b *testing.B, n, length int) (*Store, []Key) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "many.nc")
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	items := make([]BatchItem, n)
	for i := range items {
		vals := make([]float64, length)
		for j := range vals {
			vals[j] = float64(i + j)
		}
		items[i] = BatchItem{Owner: Owner{ID: int64(i), Type: "PowerLoad", Category: Component},
			Series: &SingleTimeSeries{Name: "max_active_power", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(vals, length)}}
	}
	s, err := Create(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	keys, err := s.AddBatch(items)
	if err == nil {
		err = s.Flush()
	}
	if err == nil {
		err = s.Close()
	}
	if err != nil {
		b.Fatal(err)
	}
	if s, err = OpenReadOnly(path); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(); os.Remove(path) })
	return s, keys
}

// BenchmarkGetMany: the python-bulk read, 10,000 × 168 f64, per op (divide by 10,000).
func BenchmarkGetMany(b *testing.B) {
	s, keys := benchManyStore(b, 10_000, 168)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.GetMany(keys); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(keys)), "µs/series")
}

// BenchmarkReadManyInto: the same read into caller memory through Lookups (the C API's
// path), by keys without an id (exact) and with the ids a first read found (hinted, as the
// bindings' keys).
func BenchmarkReadManyInto(b *testing.B) {
	s, keys := benchManyStore(b, 10_000, 168)
	qs := make([]Lookup, len(keys))
	dsts := make([][]byte, len(keys))
	for i, k := range keys {
		qs[i] = k.Lookup()
		dsts[i] = make([]byte, 168*8)
	}
	b.Run("exact", func(b *testing.B) { benchReadManyInto(b, s, qs, dsts) })
	ms, _, err := s.ReadManyInto(qs, dsts)
	if err != nil {
		b.Fatal(err)
	}
	for i, m := range ms {
		qs[i].ID = m.ID
	}
	b.Run("hinted", func(b *testing.B) { benchReadManyInto(b, s, qs, dsts) })
}

func benchReadManyInto(b *testing.B, s *Store, qs []Lookup, dsts [][]byte) {
	for i := 0; i < b.N; i++ {
		if _, _, err := s.ReadManyInto(qs, dsts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(qs)), "µs/series")
}

// BenchmarkReadIntoOne: the calls workload's get of one series of 24 f64 among 1,000, per
// op, by its key with the id the library handed out (hinted), by its key without it (exact),
// and by owner and name alone (by name: a search with the ambiguity check).
func BenchmarkReadIntoOne(b *testing.B) {
	s, keys := benchManyStore(b, 1_000, 24)
	st := SingleTimeSeriesType
	for _, c := range []struct {
		name   string
		lookup func(k Key) Lookup
	}{
		{"hinted", func(k Key) Lookup {
			q := k.Lookup()
			m, _, err := s.ReadInto(q, Part{}, make([]byte, 24*8))
			if err != nil {
				b.Fatal(err)
			}
			q.ID = m.ID
			return q
		}},
		{"exact", func(k Key) Lookup { return k.Lookup() }},
		{"by_name", func(k Key) Lookup { return Lookup{OwnerID: k.OwnerID, Type: &st, Name: k.Name} }},
	} {
		qs := make([]Lookup, len(keys))
		for i, k := range keys {
			qs[i] = c.lookup(k)
		}
		dst := make([]byte, 24*8)
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := s.ReadInto(qs[(i*7919)%len(qs)], Part{}, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadManyIntoFirst: the python-peer read, the first ReadManyInto of 10,000 × 168
// f64 after a read-only open (the open untimed), per op (divide by 10,000).
func BenchmarkReadManyIntoFirst(b *testing.B) {
	s, keys := benchManyStore(b, 10_000, 168)
	path := s.Path()
	qs := Lookups(keys)
	dsts := make([][]byte, len(keys))
	for i := range dsts {
		dsts[i] = make([]byte, 168*8)
	}
	defer func() { s.Close() }()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		var err error
		if s, err = OpenReadOnly(path); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, _, err := s.ReadManyInto(qs, dsts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(qs)), "µs/series")
}
