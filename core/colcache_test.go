package core

import (
	"path/filepath"
	"testing"
	"time"
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
	s.nc.AssumeChunkCacheForTesting(false) // as if the dataset were too big for its HDF5 chunk cache
	before := s.nc.Counters().ChunkReads
	for i := 0; i < n; i++ {
		ts, err := s.Get(Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)})
		if err != nil {
			t.Fatal(err)
		}
		if !equalFloats(floats(t, ts.(*SingleTimeSeries).Data), ramp(length, float64(i*1000))) {
			t.Fatalf("series %d differs", i)
		}
	}
	if got, want := s.nc.Counters().ChunkReads-before, int64(4*length); got != want {
		t.Fatalf("%d Gets read %d chunks, want %d (4 blocks of 100 columns)", n, got, want)
	}
	if s.nc.Counters().CacheHits != n-4 || s.nc.Counters().CacheMisses != 4 {
		t.Fatalf("hits %d, misses %d", s.nc.Counters().CacheHits, s.nc.Counters().CacheMisses)
	}
	// A range read inside a cached block is served from it too.
	r, err := s.GetRange(Key{OwnerID: 399, Name: "p", Resolution: Hours(1)}, t0.Add(10*3600e9), t0.Add(12*3600e9))
	if err != nil || !equalFloats(floats(t, r.(*SingleTimeSeries).Data), ramp(length, 399000)[10:13]) {
		t.Fatalf("range from the cache: %v", err)
	}
}

// The cache never serves bytes the file no longer holds: a write empties it, and a freed
// column's neighbours and a new series read as what was written.
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
	s.nc.AssumeChunkCacheForTesting(false)
	k7 := Key{OwnerID: 7, Name: "p", Resolution: Hours(1)}
	if _, err := s.Get(k7); err != nil { // caches the block holding every column
		t.Fatal(err)
	}
	if s.nc.Counters().CacheBytes == 0 {
		t.Fatal("nothing cached")
	}
	if err := s.Remove(k7); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil { // zero-fills column 7: a write, so the cache empties
		t.Fatal(err)
	}
	if s.nc.Counters().CacheBytes != 0 {
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
	before := s.nc.Counters().ChunkReads
	if _, err := s.Get(Key{OwnerID: 9, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	if s.nc.Counters().CacheBytes != 0 || s.nc.Counters().ChunkReads-before != length {
		t.Fatal("a disabled cache still caches")
	}
	// A dataset the HDF5 chunk cache holds whole is left to it.
	if err := s.SetReadCache(DefaultReadCacheBytes); err != nil {
		t.Fatal(err)
	}
	s.nc.AssumeChunkCacheForTesting(true)
	if _, err := s.Get(Key{OwnerID: 9, Name: "p", Resolution: Hours(1)}); err != nil || s.nc.Counters().CacheBytes != 0 {
		t.Fatalf("a lone Get from a small dataset went through the column cache (%v)", err)
	}
	// ... until a second whole-column miss in a row on the same dataset: a loop over it.
	if _, err := s.Get(Key{OwnerID: 10, Name: "p", Resolution: Hours(1)}); err != nil || s.nc.Counters().CacheBytes == 0 {
		t.Fatalf("a loop over a small dataset did not get a block (%v)", err)
	}
	h := s.nc.Counters().CacheHits
	if _, err := s.Get(Key{OwnerID: 11, Name: "p", Resolution: Hours(1)}); err != nil || s.nc.Counters().CacheHits != h+1 {
		t.Fatalf("the next column missed the block (%v)", err)
	}
	if err := s.SetReadCache(-1); err == nil {
		t.Fatal("a negative budget was accepted")
	}
}

// cachedGet reads owner's hourly "p" series.
func cachedGet(t *testing.T, s *Store, owner int64) []float64 {
	t.Helper()
	ts, err := s.Get(Key{OwnerID: owner, Name: "p", Resolution: Hours(1)})
	if err != nil {
		t.Fatalf("get %d: %v", owner, err)
	}
	return floats(t, ts.(*SingleTimeSeries).Data)
}

// batchForCache adds n hourly ramps in one batch and makes the cache take their dataset.
func batchForCache(t *testing.T, s *Store, n, length int) {
	var items []BatchItem
	for i := 0; i < n; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(length, float64(i*1000)))})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	s.nc.AssumeChunkCacheForTesting(false)
}

// Inside a transaction reads see its pending writes over a cached block; after a rollback
// they see the file again, and a later add into a reused column reads as its new content.
func TestReadCacheAcrossRollback(t *testing.T) {
	s, _ := newStore(t)
	const n, length = 50, 48
	batchForCache(t, s, n, length)
	cachedGet(t, s, 3)
	if s.nc.Counters().CacheBytes == 0 {
		t.Fatal("not cached")
	}
	if err := s.SetWriteBuffer(0); err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(Key{OwnerID: 3, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, gen(3), hourly("p", ramp(length, -7)), nil)
	mustAdd(t, s, gen(777), hourly("p", ramp(length, -9)), nil)
	if !equalFloats(cachedGet(t, s, 3), ramp(length, -7)) || !equalFloats(cachedGet(t, s, 777), ramp(length, -9)) || !equalFloats(cachedGet(t, s, 4), ramp(length, 4000)) {
		t.Fatal("in tx")
	}
	if err := s.Rollback(); err != nil {
		t.Fatal(err)
	}
	if !equalFloats(cachedGet(t, s, 3), ramp(length, 3000)) || !equalFloats(cachedGet(t, s, 4), ramp(length, 4000)) {
		t.Fatal("after rollback")
	}
	// re-add 777 after rollback: lands in a zeroed / reused column
	mustAdd(t, s, gen(777), hourly("p", ramp(length, 55)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if !equalFloats(cachedGet(t, s, 777), ramp(length, 55)) {
		t.Fatal("re-add after rollback")
	}
}

// DeterministicSingleTimeSeries windows read their source column through the cache.
func TestReadCacheServesViewWindows(t *testing.T) {
	s, _ := newStore(t)
	const n, length = 50, 96
	batchForCache(t, s, n, length)
	if _, err := s.TransformSingleTimeSeries(Hours(24), Hours(24), nil); err != nil {
		t.Fatal(err)
	}
	cachedGet(t, s, 10) // fill block
	h0 := s.nc.Counters().CacheHits
	for _, o := range []int64{11, 12, 49} {
		k := Key{OwnerID: o, Type: DeterministicSingleTimeSeriesType, Name: "p", Resolution: Hours(1), Interval: Hours(24)}
		fc, err := s.GetWindows(k, t0.Add(24*time.Hour), t0.Add(48*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		got := floats(t, fc.(*Deterministic).Data)
		want := ramp(length, float64(o*1000))
		// data [h=24, count=2]
		for h := 0; h < 24; h++ {
			for w := 0; w < 2; w++ {
				if got[h*2+w] != want[24+24*w+h] {
					t.Fatalf("owner %d h %d w %d: %v vs %v", o, h, w, got[h*2+w], want[24+24*w+h])
				}
			}
		}
	}
	if s.nc.Counters().CacheHits == h0 {
		t.Fatal("windows not served from cache")
	}
}

// An in-memory store reads the same before and after Persist, and the persisted file reads
// the same through its own cache.
func TestReadCacheAroundPersist(t *testing.T) {
	s, err := InMemory(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n, length = 50, 48
	batchForCache(t, s, n, length)
	cachedGet(t, s, 1)
	if err := s.Remove(Key{OwnerID: 2, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, gen(900), hourly("p", ramp(length, -3)), nil)
	p := filepath.Join(t.TempDir(), "x.nc")
	if err := s.Persist(p); err != nil {
		t.Fatal(err)
	}
	if !equalFloats(cachedGet(t, s, 900), ramp(length, -3)) || !equalFloats(cachedGet(t, s, 3), ramp(length, 3000)) {
		t.Fatal("after persist")
	}
	o, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	o.nc.AssumeChunkCacheForTesting(false)
	if !equalFloats(cachedGet(t, o, 900), ramp(length, -3)) || !equalFloats(cachedGet(t, o, 3), ramp(length, 3000)) {
		t.Fatal("persisted")
	}
}
