package core

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"
)

// A SingleTimeSeries and a NonSequentialTimeSeries with the same values share a data_hash
// but not a storage form: the file holds a packed column and a standalone variable. The
// rewrite must carry both, or the second row dangles.
func TestRewriteKeepsBothFormsOfASharedHash(t *testing.T) {
	s, _ := newStore(t)
	v := make([]float64, 24)
	ts := make([]time.Time, 24)
	for i := range v {
		v[i] = float64(i) * 1.5
		ts[i] = t0.Add(time.Duration(i*i) * time.Hour)
	}
	bus := Owner{ID: 1, Type: "Bus", Category: Component}
	if _, err := s.Add(bus, &SingleTimeSeries{Name: "a", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(v, 24)}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(bus, &NonSequentialTimeSeries{Name: "b", Timestamps: ts, Data: ArrayOf(v, 24)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.VerifyIntegrity(); err != nil || !rep.OK() {
		t.Fatalf("before the rewrite: %+v %v", rep, err)
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.VerifyIntegrity(); err != nil || !rep.OK() {
		t.Fatalf("after the rewrite: %+v %v", rep, err)
	}
}

// A StaticReader built before a rewrite holds the old file's datasets and columns; after
// the rewrite they name other bytes, so it must refuse rather than read them.
func TestRewriteStaticReaderBuiltBefore(t *testing.T) {
	s, _ := newStore(t)
	var items []BatchItem
	for i := 0; i < 10; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(24, float64(i*100)))})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	// Column 0 goes: the rewrite moves every later column one to the left.
	if err := s.Remove(Key{OwnerID: 0, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	k5 := Key{OwnerID: 5, Name: "p", Resolution: Hours(1)}
	rd, err := s.NewStaticReader(Hours(1), []Key{k5})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	err = rd.ReadStep(3)
	if err == nil {
		t.Fatalf("%s reads %v at step 3 through a reader built before the rewrite (503 was written)", k5,
			float64frombytes(rd.Groups()[0].Values.Data))
	}
	wantKind(t, err, ErrInvalidParameter)
	if !strings.Contains(err.Error(), "build a new reader") {
		t.Fatalf("the refusal does not say what to do: %v", err)
	}
}

// A ForecastReader built before a rewrite must not read the new file through the old
// file's variables either.
func TestRewriteForecastReaderBuiltBefore(t *testing.T) {
	s, _ := newStore(t)
	var keys []Key
	for i := 0; i < 4; i++ {
		f := sampleForecast(DeterministicType, F64, nil, 24, 3, 1, Days(1), i)
		k, err := s.Add(gen(int64(i)), f, nil)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(keys[0]); err != nil {
		t.Fatal(err)
	}
	rd, err := s.NewForecastReader(DeterministicType, Hours(1), keys[1:2])
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	fresh, err := s.NewForecastReader(DeterministicType, Hours(1), keys[1:2])
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.ReadWindow(1); err != nil {
		t.Fatal(err)
	}
	err = rd.ReadWindow(1)
	if err == nil {
		t.Fatalf("%s reads through a reader built before the rewrite (same bytes as a new reader: %v)", keys[1],
			string(rd.Groups()[0].Values.Data) == string(fresh.Groups()[0].Values.Data))
	}
	wantKind(t, err, ErrInvalidParameter)
}

// SetReadCache(0) holds across a rewrite: the store is the same Store.
func TestRewriteKeepsReadCacheSetting(t *testing.T) {
	s, _ := newStore(t)
	var items []BatchItem
	for i := 0; i < 10; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(24, float64(i*100)))})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	if err := s.SetReadCache(0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	s.nc.AssumeChunkCacheForTesting(false)
	if _, err := s.Get(Key{OwnerID: 7, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	if n := s.nc.Counters().CacheBytes; n != 0 {
		t.Fatalf("the read cache holds %d bytes after the rewrite; SetReadCache(0) turned it off", n)
	}
}

func float64frombytes(b []byte) float64 { return math.Float64frombits(binary.NativeEndian.Uint64(b)) }
