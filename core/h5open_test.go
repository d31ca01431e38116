package core

import (
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/h5"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// A read-only open goes through HDF5 directly and opens what reads need, not every dataset:
// the packed dataset and its hash companion at open, a forecast's dataset at its first read,
// and never more standalone datasets than the bound, however many forecasts a loop reads.
// Every value reads back right through the datasets closed and reopened on the way.
func TestReadOnlyOpenIsLazy(t *testing.T) {
	s, path := newStore(t)
	const forecasts, singles = 40, 30
	var items []BatchItem
	for i := 0; i < forecasts; i++ {
		fc := sampleForecast(DeterministicType, F64, nil, 24, 5, 1, Days(1), i)
		items = append(items, BatchItem{Owner: Owner{ID: int64(i), Type: "Gen", Category: Component}, Series: fc})
	}
	for i := 0; i < singles; i++ {
		v := make([]float64, 48)
		for k := range v {
			v[k] = float64(i*1000 + k)
		}
		items = append(items, BatchItem{Owner: Owner{ID: int64(i), Type: "Bus", Category: Component},
			Series: &SingleTimeSeries{Name: "load", InitialTimestamp: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), Resolution: Hours(1), Data: ArrayOf(v, 48)}})
	}
	keys, err := s.AddBatch(items)
	if err != nil {
		t.Fatal(err)
	}
	want := func(i int) TypedArray { return seriesData(items[i].Series) }
	ro := reopenReadOnly(t, s, path)
	if n := ro.nc.OpenDatasetsForTesting(); n != 2 {
		t.Fatalf("after open, %d datasets open; want 2 (the packed dataset and its _h)", n)
	}
	for i := range 5 {
		checkSeries(t, ro, keys[i], want(i))
	}
	if n := ro.nc.OpenDatasetsForTesting(); n != 2+5 {
		t.Fatalf("after reading 5 forecasts, %d datasets open; want 7", n)
	}
	defer ncstore.SetMaxOpenStandaloneForTesting(ncstore.SetMaxOpenStandaloneForTesting(3))
	for round := 0; round < 2; round++ {
		for i, k := range keys {
			checkSeries(t, ro, k, want(i))
			if n := ro.nc.OpenDatasetsForTesting(); n > 2+max(5, 3) {
				t.Fatalf("%d datasets open with a bound of 3 standalone", n)
			}
		}
	}
	// A ForecastReader over every forecast reads each window right as its datasets cycle.
	rd, err := ro.NewForecastReader(DeterministicType, Hours(1), Lookups(keys[:forecasts]))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for w := 0; w < 5; w++ {
		if err := rd.ReadWindow(w); err != nil {
			t.Fatal(err)
		}
		for i := range keys[:forecasts] {
			exp, _ := items[i].Series.(Forecast).Window(w)
			if got := readerWindow(rd, i); !sameArray(got, exp) {
				t.Fatalf("window %d of %s differs from what was stored", w, keys[i])
			}
		}
	}
}

// A group without a creation-order index is listed by name: the independent store read that
// way reads back every expected value.
func TestReadOnlyOpenListsByName(t *testing.T) {
	path := copyConformanceStore(t)
	h5.WalkByNameForTesting(true)
	defer h5.WalkByNameForTesting(false)
	s, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkIndependentStore(t, s)
}

func seriesData(ts TimeSeries) TypedArray {
	switch v := ts.(type) {
	case *SingleTimeSeries:
		return v.Data
	case *Deterministic:
		return v.Data
	}
	panic("unexpected type")
}

func checkSeries(t *testing.T, s *Store, k Key, want TypedArray) {
	t.Helper()
	ts, err := s.Get(k)
	if err != nil {
		t.Fatalf("get %s: %v", k, err)
	}
	if got := seriesData(ts); !sameArray(got, want) {
		t.Fatalf("%s reads back different bytes", k)
	}
}
