package core

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/h5"
	"github.com/tsstore/tsstore/core/internal/ncstore"
	"github.com/tsstore/tsstore/core/internal/serial"
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
	s := openReadOnlyWalkingByName(t, copyConformanceStore(t))
	checkIndependentStore(t, s)
}

// openReadOnlyWalkingByName opens the store at path read-only, every group walked by its name
// index (h5.WalkByNameForTesting) until the test ends, and closes it then.
func openReadOnlyWalkingByName(t *testing.T, path string) *Store {
	t.Helper()
	h5.WalkByNameForTesting(true)
	t.Cleanup(func() { h5.WalkByNameForTesting(false) })
	s, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
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

// A read-only store of forecasts alone is never listed for its reads: each forecast's
// variable is opened by the name its hash gives (ncstore/lazyindex.go). A check of the
// whole file lists it once, and a store that holds packed series is listed at its open,
// so its first packed read costs no more than the reads after it.
func TestReadOnlyForecastsAreFoundByName(t *testing.T) {
	s, path := newStore(t)
	items, keys := addForecasts(t, s, 12)
	listings := func(s *Store) int64 { return s.nc.Counters().Listings }
	ro := reopenReadOnly(t, s, path)
	if n := listings(ro); n != 0 {
		t.Fatalf("a read-only open of forecasts alone listed the file %d times", n)
	}
	for i, k := range keys {
		checkSeries(t, ro, k, seriesData(items[i].Series))
	}
	many, err := ro.GetMany(keys)
	if err != nil {
		t.Fatal(err)
	}
	for i := range keys {
		if !sameArray(seriesData(many[i]), seriesData(items[i].Series)) {
			t.Fatalf("get_many: %s reads back different bytes", keys[i])
		}
	}
	rd, err := ro.NewForecastReader(DeterministicType, Hours(1), Lookups(keys))
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.ReadWindow(3); err != nil {
		t.Fatal(err)
	}
	for i := range keys {
		exp, _ := items[i].Series.(Forecast).Window(3)
		if !sameArray(readerWindow(rd, i), exp) {
			t.Fatalf("reader: window 3 of %s differs", keys[i])
		}
	}
	rd.Close()
	m, err := ro.GetMetadata(keys[4])
	if err != nil {
		t.Fatal(err)
	}
	arr, err := ro.GetArray(m.DataHash)
	if err != nil || !sameArray(arr, seriesData(items[4].Series)) {
		t.Fatalf("get_array of %s: %v", keys[4], err)
	}
	if n := listings(ro); n != 0 {
		t.Fatalf("reading every forecast listed the file %d times", n)
	}
	rep, err := ro.VerifyIntegrity()
	if err != nil || rep.ArraysChecked != len(keys) || len(rep.Unreadable)+len(rep.HashMismatches)+len(rep.DanglingRows) != 0 {
		t.Fatalf("verify after reads by name: %+v %v", rep, err)
	}
	if n := listings(ro); n != 1 {
		t.Fatalf("verify listed the file %d times; want 1", n)
	}

	// With a packed series beside the forecasts, the open lists the file and reads do not.
	ro.Close()
	s = openAgain(t, path)
	k := mustAdd(t, s, gen(99), hourly("load", ramp(24, 99)), nil)
	ro = reopenReadOnly(t, s, path)
	if n := listings(ro); n != 1 {
		t.Fatalf("a read-only open of a store with packed series listed it %d times; want 1", n)
	}
	checkSeries(t, ro, k, ArrayOf(ramp(24, 99), 24))
	checkSeries(t, ro, keys[5], seriesData(items[5].Series))
	if n := listings(ro); n != 1 {
		t.Fatalf("reads listed the file again (%d)", n)
	}
}

// A link the walk cannot take (a name arr_ and no hash) in a read-only store of forecasts:
// the open does not walk, so it opens; verify names the damage; and every forecast still
// reads back, also those the walk stopped short of (here every one: the walk goes by name,
// as it does in a file without a creation-order index, and "!" sorts before every hex digit).
func TestReadOnlyForecastsReadAfterAFailedWalk(t *testing.T) {
	s, path := newStore(t)
	items, keys := addForecasts(t, s, 12)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	addLink(t, path, "arr_!x")
	ro := openReadOnlyWalkingByName(t, path)
	rep, err := ro.VerifyIntegrity()
	if err != nil || len(rep.Unreadable) != 1 || !strings.Contains(rep.Unreadable[0], "arr_!x") || len(rep.DanglingRows) != 0 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	for i, k := range keys {
		checkSeries(t, ro, k, seriesData(items[i].Series))
	}
}

// addLink adds a one-element dataset called name to the store file's group, as another
// tool might.
func addLink(t *testing.T, path, name string) {
	t.Helper()
	editGroup(t, path, func(g h5.Group) error {
		d, err := g.DefineDim(name, 1, 9999)
		if err == nil {
			h5.CloseDims([]h5.Dim{d})
		}
		return err
	})
}

// editGroup opens the store file at path for writing through HDF5 alone, hands edit the
// group that holds the arrays, and flushes what it wrote.
func editGroup(t *testing.T, path string, edit func(h5.Group) error) {
	t.Helper()
	serial.Lock()
	defer serial.Unlock()
	f, err := h5.OpenReadWrite(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := f.OpenGroup("/" + ncstore.GroupTop + "/" + ncstore.GroupSingle)
	if err != nil {
		t.Fatal(err)
	}
	if err := edit(g); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
}

// addForecasts adds n Deterministic forecasts of owners 0 … n-1 in one batch.
func addForecasts(t *testing.T, s *Store, n int) ([]BatchItem, []Key) {
	t.Helper()
	var items []BatchItem
	for i := 0; i < n; i++ {
		fc := sampleForecast(DeterministicType, F64, nil, 24, 4, 1, Days(1), i)
		items = append(items, BatchItem{Owner: Owner{ID: int64(i), Type: "Gen", Category: Component}, Series: fc})
	}
	keys, err := s.AddBatch(items)
	if err != nil {
		t.Fatal(err)
	}
	return items, keys
}

// A hash slot whose text is not a hash (the file edited by hand, or by a writer that does
// not follow the format) refuses the open, naming the dataset and the slot, read-only and
// writable alike. Sixty-four zeros are hex, but no content hashes to them, and the zero
// digest is how a free slot is held in memory: they are refused too.
func TestAHashSlotThatIsNoHashRefusesTheOpen(t *testing.T) {
	for _, bad := range []string{"NOT-A-HASH", strings.Repeat("0", 64)} {
		s, path := newStore(t)
		for i := 0; i < 3; i++ {
			mustAdd(t, s, gen(int64(i)), hourly("p", ramp(24, float64(i))), nil)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		text := make([]byte, 64)
		copy(text, bad)
		writeSlotText(t, path, "sts_f64_s_24_PT1H_h", 1, text)
		for _, open := range []func(string) (*Store, error){OpenReadOnly, Open} {
			s, err := open(path)
			if err == nil {
				s.Close()
				t.Fatalf("a store whose hash slot 1 holds %q opened", bad)
			}
			if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), fmt.Sprintf("hash slot 1 holds %q", bad)) ||
				!strings.Contains(err.Error(), "sts_f64_s_24_PT1H") {
				t.Fatalf("the refusal: %v", err)
			}
		}
	}
}

// writeSlotText writes text as slot col of the hash companion called name.
func writeSlotText(t *testing.T, path, name string, col uint64, text []byte) {
	t.Helper()
	editGroup(t, path, func(g h5.Group) error {
		d, err := g.OpenDataset(name, 0, 1)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.WriteStringBlock(col, text, len(text))
	})
}
