package core

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// A SingleTimeSeries [4, 3] and a Deterministic [H=4, count=3] of the same bytes share a
// content hash but not a storage mode: one batch must store both (found by a second reading).
func TestBatchStoresSharedContentInBothModes(t *testing.T) {
	for _, forecastFirst := range []bool{false, true} {
		s, path := newStore(t)
		fc := sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1)
		sts := &SingleTimeSeries{Name: "x", InitialTimestamp: t0, Resolution: Hours(1), Data: fc.Array()}
		items := []BatchItem{{Owner: gen(1), Series: sts}, {Owner: gen(2), Series: fc}}
		if forecastFirst {
			items[0], items[1] = items[1], items[0]
		}
		if _, err := s.AddBatch(items); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TransformSingleTimeSeries(Hours(2), Hours(1), nil); err != nil {
			t.Fatal(err)
		}
		s = reopen(t, s, path)
		if got := mustGetForecast(t, s, forecastKey(2, DeterministicType, Hours(4))); !sameArray(got.Array(), fc.Array()) {
			t.Fatal("the forecast reads wrong values")
		}
		dk := Key{OwnerID: 1, Type: DeterministicSingleTimeSeriesType, Name: "x", Resolution: Hours(1), Interval: Hours(1)}
		if _, err := s.NewForecastReader(DeterministicSingleTimeSeriesType, Hours(1), Lookups([]Key{dk})); err != nil {
			t.Fatalf("reader over the view of the static series: %v", err)
		}
	}
}

// A reader built before its keys were removed and their column reused must fail, never read
// the new owner's values.
func TestReaderNeverReadsAFreedColumn(t *testing.T) {
	s, _ := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(48, 0)), nil)
	if _, err := s.TransformSingleTimeSeries(Hours(4), Hours(4), nil); err != nil {
		t.Fatal(err)
	}
	dk := dstKey(1, Hours(4))
	rd, err := s.NewForecastReader(DeterministicSingleTimeSeriesType, Hours(1), Lookups([]Key{dk}))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []Key{dk, k} {
		if err := s.Remove(key); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil { // frees the column
		t.Fatal(err)
	}
	mustAdd(t, s, gen(9), hourly("other", ramp(48, 1000)), nil)
	if err := s.Flush(); err != nil { // reuses it
		t.Fatal(err)
	}
	wantKind(t, rd.ReadWindow(0), ErrNotFound)
}

// Views over many sources given in scrambled column order, read forwards, at random and
// backwards, equal single-window reads.
func TestReaderBandsInAnyOrder(t *testing.T) {
	s, _ := newStore(t)
	for i := 0; i < 30; i++ {
		mustAdd(t, s, gen(int64(i)), hourly("p", ramp(500, float64(i*1000))), nil)
	}
	if _, err := s.TransformSingleTimeSeries(Hours(24), Hours(6), nil); err != nil {
		t.Fatal(err)
	}
	var keys []Key
	for _, i := range []int64{17, 3, 25, 0, 29, 12} {
		keys = append(keys, dstKey(i, Hours(6)))
	}
	rd, err := s.NewForecastReader(AbstractDeterministicType, Hours(1), Lookups(keys))
	if err != nil {
		t.Fatal(err)
	}
	n := rd.Grid().Count
	order := make([]int, 0, 3*n)
	for i := 0; i < n; i++ {
		order = append(order, i)
	}
	order = append(order, rand.New(rand.NewPCG(1, 2)).Perm(n)...)
	for i := n - 1; i >= 0; i-- {
		order = append(order, i)
	}
	for _, w := range order {
		if err := rd.ReadWindow(w); err != nil {
			t.Fatal(err)
		}
		start, _ := rd.Grid().WindowStart(w)
		for j, k := range keys {
			one, err := s.GetWindow(k, start)
			if err != nil {
				t.Fatal(err)
			}
			if w, _ := one.Window(0); !sameArray(readerWindow(rd, j), w) {
				t.Fatalf("window %d key %d differs", w, j)
			}
		}
	}
}

// Forecast rows made inconsistent by hand: every read path fails with ErrIntegrity (or
// reads correctly, when the edit leaves a consistent row), never panics or reads wrong bytes.
func TestCorruptForecastRowsAreIntegrityErrors(t *testing.T) {
	edits := []string{
		`count = 2 WHERE owner_id = 1`,
		`element_shape = '[3,1]' WHERE owner_id = 1`,
		`length = 2, horizon = 'PT2H' WHERE owner_id = 1`,
		`horizon = 'PT1H' WHERE owner_id = 2`,
		`length = 3 WHERE owner_id = 2`,
		`percentiles_json = '[0.5]' WHERE owner_id = 2`,
		`percentiles_json = NULL WHERE owner_id = 2`,
		`count = 100 WHERE owner_id = 4 AND time_series_type = 'DeterministicSingleTimeSeries'`,
		`length = 100, count = 25 WHERE owner_id = 4 AND time_series_type = 'DeterministicSingleTimeSeries'`,
		`element_shape = '[2]' WHERE owner_id = 4 AND time_series_type = 'DeterministicSingleTimeSeries'`,
		`interval = 'P1M' WHERE owner_id = 4 AND time_series_type = 'DeterministicSingleTimeSeries'`,
		`dtype = 'f32' WHERE owner_id = 1`,
		`initial_timestamp = NULL WHERE owner_id = 1`,
		`horizon = 'PT0S' WHERE owner_id = 1`,
		`count = -1 WHERE owner_id = 1`,
		`count = 9223372036854775807 WHERE owner_id = 4 AND time_series_type = 'DeterministicSingleTimeSeries'`,
		`horizon = 'P100000D' WHERE owner_id = 1`,
		`length = 0 WHERE owner_id = 3`,
	}
	base, basePath := newStore(t)
	mustAdd(t, base, gen(1), sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1), nil)
	mustAdd(t, base, gen(2), sampleForecast(ProbabilisticType, F64, nil, 4, 3, 2, Hours(4), 2), nil)
	mustAdd(t, base, gen(3), sampleForecast(ScenariosType, F64, []int{1}, 4, 3, 2, Hours(4), 3), nil)
	mustAdd(t, base, gen(4), hourly("p", ramp(12, 0)), nil)
	if _, err := base.TransformSingleTimeSeries(Hours(4), Hours(4), nil); err != nil {
		t.Fatal(err)
	}
	base.Close()
	nc, _ := os.ReadFile(basePath)
	cat, _ := os.ReadFile(CatalogPath(basePath))
	for i, edit := range edits {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			path := t.TempDir() + "/s.nc"
			os.WriteFile(path, nc, 0o644)
			os.WriteFile(CatalogPath(path), cat, 0o644)
			run(t, "sqlite3", CatalogPath(path), "UPDATE time_series_associations SET "+edit)
			s, err := OpenReadOnly(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ms, err := s.ListMetadata(KeyFilter{})
			if err != nil {
				wantKind(t, err, ErrIntegrity)
				return
			}
			failed := 0
			for _, m := range ms {
				if !isForecast(m.Type) {
					continue
				}
				_, err1 := s.Get(m.Key)
				_, err2 := s.GetWindow(m.Key, m.InitialTimestamp)
				var err3 error
				if rd, err := s.NewForecastReader(m.Type, m.Resolution, Lookups([]Key{m.Key})); err != nil {
					err3 = err
				} else {
					err3 = rd.ReadWindow(rd.Grid().Count - 1)
				}
				for _, e := range []error{err1, err2, err3} {
					if e != nil {
						failed++
						if !errors.Is(e, ErrIntegrity) {
							t.Errorf("%s after %q: %v, want an IntegrityError", m.Key, edit, e)
						}
					}
				}
			}
			if failed == 0 {
				t.Errorf("%q: every read succeeded", edit)
			}
		})
	}
}
