package core

import (
	"testing"
)

// A loop of Get over the columns of one wide packed dataset reads each chunk a few times
// (once per cached block), not once per series, and every read equals what was written.
func TestGetLoopReadsBlocksNotColumns(t *testing.T) {
	s, path := newStore(t)
	const n, length = 400, 240
	var items []BatchItem
	for i := 0; i < n; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(length, float64(i*1000)))})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, path)
	// A budget for 2 × 100 columns of 240 f64: blocks of 100 columns.
	if err := s.SetReadCache(2 * 100 * length * 8); err != nil {
		t.Fatal(err)
	}
	s.nc.colCache.chunkCached = 0 // as if the dataset were too big for its HDF5 chunk cache
	before := s.nc.chunkReads
	for i := 0; i < n; i++ {
		ts, err := s.Get(Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)})
		if err != nil {
			t.Fatal(err)
		}
		if !equalFloats(floats(t, ts.(*SingleTimeSeries).Data), ramp(length, float64(i*1000))) {
			t.Fatalf("series %d differs", i)
		}
	}
	if got, want := s.nc.chunkReads-before, int64(4*length); got != want {
		t.Fatalf("%d Gets read %d chunks, want %d (4 blocks of 100 columns)", n, got, want)
	}
	if s.nc.colCache.hits != n-4 || s.nc.colCache.misses != 4 {
		t.Fatalf("hits %d, misses %d", s.nc.colCache.hits, s.nc.colCache.misses)
	}
	// A range read inside a cached block is served from it too.
	r, err := s.GetRange(Key{OwnerID: 399, Name: "p", Resolution: Hours(1)}, t0.Add(10*3600e9), t0.Add(12*3600e9))
	if err != nil || !equalFloats(floats(t, r.(*SingleTimeSeries).Data), ramp(length, 399000)[10:13]) {
		t.Fatalf("range from the cache: %v", err)
	}
}

// The cache never serves bytes the file no longer holds: a freed column reused by another
// series, and a column rewritten after a transaction, read as their new content.
func TestReadCacheFollowsWrites(t *testing.T) {
	s, path := newStore(t)
	const n, length = 50, 48
	var items []BatchItem
	for i := 0; i < n; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(length, float64(i*100)))})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, path)
	s.nc.colCache.chunkCached = 0
	k7 := Key{OwnerID: 7, Name: "p", Resolution: Hours(1)}
	if _, err := s.Get(k7); err != nil { // caches the block holding every column
		t.Fatal(err)
	}
	if s.nc.colCache.used == 0 {
		t.Fatal("nothing cached")
	}
	if err := s.Remove(k7); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil { // zero-fills column 7: a write, so the cache empties
		t.Fatal(err)
	}
	if s.nc.colCache.used != 0 {
		t.Fatal("the cache outlived a write to its dataset")
	}
	// A new batch of the same family reuses free slots or extends the dataset; either way
	// its reads and the old neighbours' reads are what was written.
	k := mustAdd(t, s, gen(900), hourly("p", ramp(length, -5)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int64][]float64{900: ramp(length, -5), 6: ramp(length, 600), 8: ramp(length, 800)} {
		key := Key{OwnerID: i, Name: "p", Resolution: Hours(1)}
		if i == 900 {
			key = k
		}
		ts, err := s.Get(key)
		if err != nil || !equalFloats(floats(t, ts.(*SingleTimeSeries).Data), want) {
			t.Fatalf("owner %d: %v", i, err)
		}
	}
	if err := s.SetReadCache(0); err != nil {
		t.Fatal(err)
	}
	before := s.nc.chunkReads
	if _, err := s.Get(Key{OwnerID: 9, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	if s.nc.colCache.used != 0 || s.nc.chunkReads-before != length {
		t.Fatal("a disabled cache still caches")
	}
	// A dataset the HDF5 chunk cache holds whole is left to it.
	if err := s.SetReadCache(DefaultReadCacheBytes); err != nil {
		t.Fatal(err)
	}
	s.nc.colCache.chunkCached = packedCacheCap
	if _, err := s.Get(Key{OwnerID: 9, Name: "p", Resolution: Hours(1)}); err != nil || s.nc.colCache.used != 0 {
		t.Fatalf("a small dataset went through the column cache (%v)", err)
	}
	if err := s.SetReadCache(-1); err == nil {
		t.Fatal("a negative budget was accepted")
	}
}
