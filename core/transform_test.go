package core

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/ncstore"
)

func dstKey(owner int64, interval Period) Key {
	return Key{OwnerID: owner, Type: DeterministicSingleTimeSeriesType, Name: "p", Resolution: Hours(1), Interval: interval}
}

func TestTransformWindowsAreSourceSlices(t *testing.T) {
	s, path := newStore(t)
	type src struct {
		owner int64
		arr   TypedArray
	}
	var srcs []src
	for i, dt := range allDTypes {
		for j, es := range [][]int{{}, {3}} {
			owner := int64(10*i + j)
			arr := sampleArray(dt, 48, es, int(owner))
			mustAdd(t, s, gen(owner), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: arr}, nil)
			srcs = append(srcs, src{owner, arr})
		}
	}
	n, err := s.TransformSingleTimeSeries(Days(1), Hours(12), nil)
	if err != nil || n != len(srcs) {
		t.Fatalf("transform added %d (%v)", n, err)
	}
	s = reopen(t, s, path)
	for _, sc := range srcs {
		k := dstKey(sc.owner, Hours(12))
		fc := mustGetForecast(t, s, k).(*Deterministic)
		es := sc.arr.ElementShape()
		if fc.Count != 3 || fmt.Sprint(fc.Data.Shape) != fmt.Sprint(append([]int{24, 3}, es...)) {
			t.Fatalf("%s: count %d shape %v", k, fc.Count, fc.Data.Shape)
		}
		eb := ncstore.ElementCount(es) * sc.arr.DType.Width()
		for i := 0; i < 3; i++ {
			want := TypedArray{DType: sc.arr.DType, Shape: append([]int{24}, es...), Data: sc.arr.Data[12*i*eb : (12*i+24)*eb]}
			w, _ := fc.Window(i)
			if !sameArray(w, want) {
				t.Fatalf("%s window %d is not source steps [%d, %d)", k, i, 12*i, 12*i+24)
			}
			one, err := s.GetWindow(k, t0.Add(time.Duration(12*i)*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := one.Window(0); !sameArray(got, want) {
				t.Fatalf("%s: single window %d differs", k, i)
			}
		}
	}
	s.Close()
	// The derived row copies its source row and adds horizon, interval and count (§6).
	out := run(t, "sqlite3", CatalogPath(path), `SELECT d.length, d.element_shape, d.dtype, d.count, d.horizon, d."interval",
		d.data_hash = s.data_hash, d.features_hash = s.features_hash, d.initial_timestamp = s.initial_timestamp
		FROM time_series_associations d JOIN time_series_associations s ON s.owner_id = d.owner_id
		AND s.time_series_type = 'SingleTimeSeries' WHERE d.time_series_type = 'DeterministicSingleTimeSeries' AND d.owner_id = 41`)
	if out != "48|[3]|u64|3|P1D|PT12H|1|1|1\n" {
		t.Fatalf("derived row: %q", out)
	}
}

func TestTransformRulesAndAllOrNothing(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(48, 0)), nil)
	mustAdd(t, s, gen(2), hourly("p", ramp(12, 0)), nil) // too short for a one-day horizon
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	before := fileDigests(t, path)
	cases := []struct {
		name, field       string
		horizon, interval Period
	}{
		{"interval not a multiple", "interval", Hours(6), Minutes(90)},
		{"interval of another kind", "interval", Hours(6), Months(1)},
		{"horizon not a multiple", "horizon", Minutes(150), Hours(6)},
		{"zero horizon", "horizon", Period{}, Hours(6)},
		{"negative interval", "interval", Hours(6), MustParsePeriod("-PT6H")},
		{"horizon longer than one series", "horizon", Days(1), Hours(12)},
	}
	for _, c := range cases {
		_, err := s.TransformSingleTimeSeries(c.horizon, c.interval, nil)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalidParameter) || e.Field() != c.field {
			t.Errorf("%s: want InvalidParameter on %s, got %v", c.name, c.field, err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if fileDigests(t, path) != before {
		t.Fatal("a refused transform changed the files (all or nothing)")
	}
	// A horizon both series can hold succeeds for both; again is a no-op; another horizon
	// for the same identity is refused.
	if n, err := s.TransformSingleTimeSeries(Hours(6), Hours(6), nil); n != 2 || err != nil {
		t.Fatalf("transform: %d, %v", n, err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	mid := fileDigests(t, path)
	if n, err := s.TransformSingleTimeSeries(Hours(6), Hours(6), nil); n != 0 || err != nil {
		t.Fatalf("second transform: %d, %v", n, err)
	}
	_, err := s.TransformSingleTimeSeries(Hours(12), Hours(6), nil)
	wantKind(t, err, ErrDuplicateTimeSeries)
	if !strings.Contains(err.Error(), "PT6H") || !strings.Contains(err.Error(), "PT12H") {
		t.Errorf("error does not name both horizons: %v", err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if fileDigests(t, path) != mid {
		t.Fatal("a no-op or refused transform changed the files")
	}
	m, err := s.GetMetadata(dstKey(2, Hours(6)))
	if err != nil || m.Count != 2 || m.Horizon != Hours(6) {
		t.Fatalf("derived metadata %+v (%v)", m, err)
	}
}

func TestDeterministicExclusionOnEveryWritePath(t *testing.T) {
	s, _ := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(48, 0)), nil)
	if _, err := s.TransformSingleTimeSeries(Hours(4), Hours(4), nil); err != nil {
		t.Fatal(err)
	}
	// A Deterministic of the same family (any interval) is refused, alone or in a batch.
	det := sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(8), 1)
	_, err := s.Add(gen(1), det, nil)
	wantKind(t, err, ErrInvalidParameter)
	_, err = s.AddBatch([]BatchItem{{Owner: gen(5), Series: det}, {Owner: gen(1), Series: det}})
	wantKind(t, err, ErrInvalidParameter)
	// Another owner, or other features, is another family.
	mustAdd(t, s, gen(2), det, nil)
	mustAdd(t, s, gen(1), det, &AddOptions{Features: Features{"model": Str("b")}})
	// The reverse: a stored Deterministic stops a transform over its family.
	mustAdd(t, s, gen(2), hourly("p", ramp(48, 1)), nil)
	_, err = s.TransformSingleTimeSeries(Hours(4), Hours(12), nil)
	wantKind(t, err, ErrInvalidParameter)
	if !strings.Contains(err.Error(), "Component 2") {
		t.Errorf("error does not name the owner: %v", err)
	}
	if ok, _ := s.Has(dstKey(1, Hours(12))); ok {
		t.Fatal("a refused transform wrote a row")
	}
}

func TestTransformFilters(t *testing.T) {
	s, _ := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(48, 0)), nil)
	mustAdd(t, s, Owner{ID: 1, Type: "Area", Category: SupplementalAttribute}, hourly("p", ramp(48, 1)), nil)
	mustAdd(t, s, gen(3), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Minutes(30), Data: ArrayOf(ramp(96, 0))}, nil)
	comp := Component
	n, err := s.TransformSingleTimeSeries(Hours(4), Hours(4), &TransformFilter{OwnerCategory: &comp, Resolution: ptr(Hours(1))})
	if n != 1 || err != nil {
		t.Fatalf("filtered transform: %d (%v)", n, err)
	}
	n, err = s.TransformSingleTimeSeries(Hours(4), Hours(4), &TransformFilter{Resolution: ptr(Minutes(30))})
	if n != 1 || err != nil {
		t.Fatalf("30-minute transform: %d (%v)", n, err)
	}
	if m, _ := s.GetMetadata(Key{OwnerID: 3, Type: DeterministicSingleTimeSeriesType, Name: "p", Resolution: Minutes(30), Interval: Hours(4)}); m == nil || m.Count != 12 { // (96 − 8) / 8 + 1
		t.Fatalf("30-minute derived count: %+v", m)
	}
	n, err = s.TransformSingleTimeSeries(Hours(4), Hours(4), nil)
	if n != 1 || err != nil { // only the supplemental attribute's series is left
		t.Fatalf("unfiltered transform: %d (%v)", n, err)
	}
}

// A transform over 10,000 series writes catalog rows only: no feature rows (the derived
// rows share their sources' sets), no byte of the NetCDF file; a second run is a no-op.
func TestTransformTenThousandWritesOnlyRows(t *testing.T) {
	s, path := newStore(t)
	var items []BatchItem
	for i := 0; i < 10_000; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(48, float64(i%500))),
			Options: &AddOptions{Features: Features{"zone": Int(int64(i % 10))}}})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	s.Close()
	count := func(sql string) string {
		return strings.TrimSpace(run(t, "sqlite3", CatalogPath(path), sql))
	}
	features := count("SELECT count(*) FROM feature_sets")
	ncBefore := fileDigests(t, path)[:64]
	s = openAgain(t, path)
	if n, err := s.TransformSingleTimeSeries(Days(1), Days(1), nil); n != 10_000 || err != nil {
		t.Fatalf("transform: %d (%v)", n, err)
	}
	if n, err := s.TransformSingleTimeSeries(Days(1), Days(1), nil); n != 0 || err != nil {
		t.Fatalf("second transform: %d (%v)", n, err)
	}
	s.Close()
	if got := count("SELECT count(*) FROM feature_sets"); got != features || features != "10" {
		t.Fatalf("feature rows %s before, %s after", features, got)
	}
	if got := count("SELECT count(*) FROM time_series_associations WHERE time_series_type = 'DeterministicSingleTimeSeries'"); got != "10000" {
		t.Fatalf("%s derived rows", got)
	}
	if fileDigests(t, path)[:64] != ncBefore {
		t.Fatal("the transform wrote to the NetCDF file")
	}
}
