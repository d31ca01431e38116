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

// BenchmarkReadManyInto: the same read into caller memory through Lookups (the C API's path).
func BenchmarkReadManyInto(b *testing.B) {
	s, keys := benchManyStore(b, 10_000, 168)
	qs := make([]Lookup, len(keys))
	dsts := make([][]byte, len(keys))
	for i, k := range keys {
		qs[i] = k.Lookup()
		dsts[i] = make([]byte, 168*8)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := s.ReadManyInto(qs, dsts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(keys)), "µs/series")
}
