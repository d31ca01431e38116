package core

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/ncstore"
)

var allDTypes = []DType{F64, F32, I64, I32, U64, Bool}

// sampleForecast builds a forecast of type typ with H steps, count windows, layers
// percentiles or scenarios, windows every interval at PT1H.
func sampleForecast(typ SeriesType, dt DType, eshape []int, h, count, layers int, interval Period, seed int) Forecast {
	res := Hours(1)
	hor := Hours(int64(h))
	switch typ {
	case ProbabilisticType:
		ps := make([]float64, layers)
		for i := range ps {
			ps[i] = float64(i+1) / float64(layers+1)
		}
		return &Probabilistic{Name: "p", InitialTimestamp: t0, Resolution: res, Horizon: hor, Interval: interval,
			Count: count, Percentiles: ps, Data: sampleArray(dt, layers, append([]int{h, count}, eshape...), seed)}
	case ScenariosType:
		return &Scenarios{Name: "p", InitialTimestamp: t0, Resolution: res, Horizon: hor, Interval: interval,
			Count: count, Data: sampleArray(dt, layers, append([]int{h, count}, eshape...), seed)}
	}
	return &Deterministic{Name: "p", InitialTimestamp: t0, Resolution: res, Horizon: hor, Interval: interval,
		Count: count, Data: sampleArray(dt, h, append([]int{count}, eshape...), seed)}
}

func forecastKey(owner int64, typ SeriesType, interval Period) Key {
	return Key{OwnerID: owner, Type: typ, Name: "p", Resolution: Hours(1), Interval: interval}
}

func mustGetForecast(t *testing.T, s *Store, k Key) Forecast {
	t.Helper()
	ts, err := s.Get(k)
	if err != nil {
		t.Fatalf("get %s: %v", k, err)
	}
	return ts.(Forecast)
}

func sameArray(a, b TypedArray) bool {
	return a.DType == b.DType && slices.Equal(a.Shape, b.Shape) && bytes.Equal(a.Data, b.Data)
}

func TestForecastsRoundTripEveryDTypeAndShape(t *testing.T) {
	s, path := newStore(t)
	type added struct {
		key Key
		fc  Forecast
	}
	var all []added
	owner := int64(0)
	for _, typ := range []SeriesType{DeterministicType, ProbabilisticType, ScenariosType} {
		for _, dt := range allDTypes {
			for _, es := range [][]int{{}, {3}} {
				owner++
				fc := sampleForecast(typ, dt, es, 4, 5, 3, Hours(2), int(owner))
				k := mustAdd(t, s, gen(owner), fc, nil)
				if k.String() != forecastKey(owner, typ, Hours(2)).String() {
					t.Fatalf("key %s", k)
				}
				all = append(all, added{k, fc})
			}
		}
	}
	s = reopen(t, s, path)
	for _, a := range all {
		got := mustGetForecast(t, s, a.key)
		if got.SeriesType() != a.fc.SeriesType() || !sameArray(got.Array(), a.fc.Array()) {
			t.Fatalf("%s: whole read differs: %v vs %v", a.key, got.Array().Shape, a.fc.Array().Shape)
		}
		if got.Grid() != a.fc.Grid() {
			t.Fatalf("%s: grid %+v, want %+v", a.key, got.Grid(), a.fc.Grid())
		}
		if p, ok := a.fc.(*Probabilistic); ok && !slices.Equal(got.(*Probabilistic).Percentiles, p.Percentiles) {
			t.Fatalf("%s: percentiles %v", a.key, got.(*Probabilistic).Percentiles)
		}
		m, err := s.GetMetadata(a.key)
		if err != nil {
			t.Fatal(err)
		}
		if m.DataHash != a.fc.Array().hash() || m.Count != 5 || m.Horizon != Hours(4) || m.Interval != Hours(2) {
			t.Fatalf("%s: metadata %+v", a.key, m)
		}
		// Every window alone, and a range of three, equal the slices of the whole.
		for i := 0; i < 5; i++ {
			start := t0.Add(time.Duration(2*i) * time.Hour)
			w, err := s.GetWindow(a.key, start)
			if err != nil {
				t.Fatalf("%s window %d: %v", a.key, i, err)
			}
			one, _ := w.Window(0)
			want, _ := a.fc.Window(i)
			if !sameArray(one, want) || w.Grid().Count != 1 || !w.Grid().InitialTimestamp.Equal(start) {
				t.Fatalf("%s window %d differs", a.key, i)
			}
		}
		rng, err := s.GetWindows(a.key, t0.Add(2*time.Hour), t0.Add(6*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 3; j++ {
			got, _ := rng.Window(j)
			want, _ := a.fc.Window(j + 1)
			if !sameArray(got, want) {
				t.Fatalf("%s: range window %d differs", a.key, j)
			}
		}
	}
	s.Close()
	// docs/format.md §4.2: the length / element_shape columns describe the stored array.
	out := run(t, "sqlite3", CatalogPath(path), `SELECT time_series_type, length, element_shape, count, horizon, "interval", percentiles_json
		FROM time_series_associations WHERE owner_id IN (2, 14, 26) ORDER BY owner_id`)
	want := "Deterministic|4|[5,3]|5|PT4H|PT2H|\nProbabilistic|3|[4,5,3]|5|PT4H|PT2H|[0.25,0.5,0.75]\nScenarios|3|[4,5,3]|5|PT4H|PT2H|\n"
	if out != want {
		t.Fatalf("catalog rows:\n%s\nwant:\n%s", out, want)
	}
}

// procReadBytes is the bytes this process has read through read(2) and friends so far.
func procReadBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skip("no /proc/self/io")
	}
	m := regexp.MustCompile(`rchar: (\d+)`).FindSubmatch(b)
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// Dense forecasts are chunked in window blocks within 1 MiB (docs/format.md §7.5), and a
// window read touches only its block: netcdf-c's own view of the chunking, the store's chunk
// counter and the kernel's count of bytes read all agree.
func TestForecastWindowBlocks(t *testing.T) {
	s, path := newStore(t)
	// One window of [24, 1000] f64 is 192,000 bytes, so a 1 MiB block holds 5 windows and
	// 12 windows make blocks of 5, 5 and 2.
	// Random values do not compress, so the bytes read measure the chunks read.
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 24*12*1000)
	for i := range vals {
		vals[i] = rng.Float64()
	}
	fc := &Deterministic{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Horizon: Days(1), Interval: Days(1),
		Count: 12, Data: ArrayOf(vals, 24, 12, 1000)}
	k := mustAdd(t, s, gen(1), fc, nil)
	s.Close()
	d := fc.Array().hash()
	name := ncstore.VariableName(d)
	hs := run(t, "ncdump", "-hs", path)
	if !strings.Contains(hs, name+":_ChunkSizes = 24, 5, 1000 ;") {
		t.Fatalf("ncdump -hs does not show window blocks of 5 for %s:\n%s", name, hs)
	}
	s = openAgain(t, path)
	count := func(fn func()) int64 {
		before := s.nc.Counters().ChunkReads
		fn()
		return s.nc.Counters().ChunkReads - before
	}
	day := func(i int) time.Time { return t0.AddDate(0, 0, i) }
	var w Forecast
	var err error
	io0 := procReadBytes(t)
	if n := count(func() { w, err = s.GetWindow(k, day(7)) }); err != nil || n != 1 {
		t.Fatalf("one window touched %d chunks (%v)", n, err)
	}
	ioWindow := procReadBytes(t) - io0
	want, _ := fc.Window(7)
	if got, _ := w.Window(0); !sameArray(got, want) {
		t.Fatal("window 7 differs")
	}
	if n := count(func() { _, err = s.GetWindows(k, day(4), day(5)) }); err != nil || n != 2 {
		t.Fatalf("windows 4–5 touched %d chunks (%v)", n, err)
	}
	io0 = procReadBytes(t)
	if n := count(func() { _, err = s.Get(k) }); err != nil || n != 3 {
		t.Fatalf("the whole forecast touched %d chunks (%v)", n, err)
	}
	ioWhole := procReadBytes(t) - io0
	// One window reads its block — 5 of the 12 windows, ~42% of the compressed bytes — and
	// not the rest; the whole array (2.3 MB raw) reads them all.
	if ioWhole < 1_500_000 || float64(ioWindow) > 0.45*float64(ioWhole) || float64(ioWindow) < 0.38*float64(ioWhole) {
		t.Fatalf("read %d bytes for one window and %d for the whole array", ioWindow, ioWhole)
	}
}

func TestForecastBadInputRefusedAndNothingWritten(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	before := fileDigests(t, path)
	det := func(mod func(*Deterministic)) TimeSeries {
		f := sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 2).(*Deterministic)
		mod(f)
		return f
	}
	prob := func(mod func(*Probabilistic)) TimeSeries {
		f := sampleForecast(ProbabilisticType, F64, nil, 4, 3, 3, Hours(4), 3).(*Probabilistic)
		mod(f)
		return f
	}
	cases := []struct {
		name, field string
		ts          TimeSeries
	}{
		{"zero resolution", "resolution", det(func(f *Deterministic) { f.Resolution = Period{} })},
		{"negative resolution", "resolution", det(func(f *Deterministic) { f.Resolution = MustParsePeriod("-PT1H") })},
		{"zero horizon", "horizon", det(func(f *Deterministic) { f.Horizon = Period{} })},
		{"negative interval", "interval", det(func(f *Deterministic) { f.Interval = MustParsePeriod("-PT4H") })},
		{"zero interval", "interval", det(func(f *Deterministic) { f.Interval = Period{} })},
		{"horizon not a multiple", "horizon", det(func(f *Deterministic) { f.Horizon = Minutes(210) })},
		{"horizon of another kind", "horizon", det(func(f *Deterministic) { f.Horizon = Months(1) })},
		{"zero count", "count", det(func(f *Deterministic) { f.Count = 0 })},
		{"count disagrees with shape", "data.shape", det(func(f *Deterministic) { f.Count = 4 })},
		{"horizon disagrees with shape", "data.shape", det(func(f *Deterministic) { f.Horizon = Hours(5) })},
		{"rank too small", "data.shape", det(func(f *Deterministic) { f.Data = ArrayOf(ramp(4, 0)) })},
		{"data bytes short", "data", det(func(f *Deterministic) { f.Data.Data = f.Data.Data[:8] })},
		{"last window unrepresentable", "initial_timestamp", det(func(f *Deterministic) {
			f.InitialTimestamp = time.Date(9999, 12, 31, 20, 0, 0, 0, time.UTC)
		})},
		{"empty percentiles", "percentiles", prob(func(f *Probabilistic) { f.Percentiles = nil })},
		{"decreasing percentiles", "percentiles", prob(func(f *Probabilistic) { f.Percentiles = []float64{0.5, 0.4, 0.9} })},
		{"repeated percentiles", "percentiles", prob(func(f *Probabilistic) { f.Percentiles = []float64{0.1, 0.1, 0.9} })},
		{"NaN percentile", "percentiles", prob(func(f *Probabilistic) { f.Percentiles = []float64{0.1, math.NaN(), 0.9} })},
		{"percentile count disagrees with shape", "percentiles", prob(func(f *Probabilistic) { f.Percentiles = []float64{0.1, 0.9} })},
		{"scenario shape disagrees with count", "data.shape", &Scenarios{Name: "p", InitialTimestamp: t0, Resolution: Hours(1),
			Horizon: Hours(4), Interval: Hours(4), Count: 2, Data: sampleArray(F64, 2, []int{4, 3}, 1)}},
	}
	for _, c := range cases {
		_, err := s.Add(gen(2), c.ts, nil)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalidParameter) || e.Field() != c.field {
			t.Errorf("%s: want InvalidParameter on %s, got %v", c.name, c.field, err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if fileDigests(t, path) != before {
		t.Fatal("a refused forecast changed the files")
	}
}

func TestWindowReadErrors(t *testing.T) {
	s, _ := newStore(t)
	k := mustAdd(t, s, gen(1), sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1), nil)
	sk := mustAdd(t, s, gen(1), hourly("load", ramp(24, 0)), nil)
	cases := []struct {
		name, field string
		err         error
	}{
		{"off the grid", "start", func() error { _, err := s.GetWindow(k, t0.Add(time.Hour)); return err }()},
		{"past the last window", "start", func() error { _, err := s.GetWindow(k, t0.Add(12*time.Hour)); return err }()},
		{"before the first window", "start", func() error { _, err := s.GetWindow(k, t0.Add(-4*time.Hour)); return err }()},
		{"last off the grid", "end", func() error { _, err := s.GetWindows(k, t0, t0.Add(5*time.Hour)); return err }()},
		{"last before first", "end", func() error { _, err := s.GetWindows(k, t0.Add(8*time.Hour), t0); return err }()},
		{"static key through a window getter", "type", func() error { _, err := s.GetWindow(sk, t0); return err }()},
		{"forecast key through a range getter", "type", func() error { _, err := s.GetRange(k, t0, t0.Add(time.Hour)); return err }()},
	}
	for _, c := range cases {
		var e *Error
		if !errors.As(c.err, &e) || !errors.Is(c.err, ErrInvalidParameter) || e.Field() != c.field {
			t.Errorf("%s: want InvalidParameter on %s, got %v", c.name, c.field, c.err)
		}
	}
	_, err := s.GetWindow(forecastKey(1, DeterministicType, Hours(8)), t0)
	wantKind(t, err, ErrNotFound)
}

func TestForecastArraysDeduplicated(t *testing.T) {
	s, path := newStore(t)
	fc := sampleForecast(ScenariosType, F32, []int{3}, 4, 3, 2, Hours(4), 1)
	k1 := mustAdd(t, s, gen(1), fc, nil)
	k2 := mustAdd(t, s, gen(2), fc, &AddOptions{Features: Features{"run": Int(2)}})
	s.Close()
	name := ncstore.VariableName(fc.Array().hash())
	if n := strings.Count(run(t, "ncdump", "-h", path), "float "+name+"("); n != 1 {
		t.Fatalf("%d variables for one forecast array", n)
	}
	s = openAgain(t, path)
	if err := s.Remove(k1); err != nil {
		t.Fatal(err)
	}
	if got := mustGetForecast(t, s, k2); !sameArray(got.Array(), fc.Array()) {
		t.Fatal("removing one of two sharers lost the other's values")
	}
}

// A batch defines all of its new variables in one define phase; so does a run of
// one-at-a-time adds, written out together when the unit commits. A commit whose arrays are
// all stored already, or that only fills free columns, defines nothing.
func TestDefinePhasesPerCall(t *testing.T) {
	s, _ := newStore(t)
	phases := func(fn func()) int {
		before := s.nc.Counters().DefinePhases
		fn()
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		return int(s.nc.Counters().DefinePhases - before)
	}
	var items []BatchItem
	for i := 0; i < 50; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: sampleForecast(DeterministicType, F64, nil, 24, 7, 0, Days(1), i)})
	}
	// Ten static series whose family has no dataset yet join the same phase.
	for i := 0; i < 10; i++ {
		items = append(items, BatchItem{Owner: gen(int64(100 + i)), Series: hourly("load", ramp(48, float64(i)))})
	}
	if n := phases(func() {
		if _, err := s.AddBatch(items); err != nil {
			t.Fatal(err)
		}
	}); n != 1 {
		t.Fatalf("a batch of 60 new arrays took %d define phases", n)
	}
	if n := phases(func() {
		for i := 0; i < 40; i++ {
			mustAdd(t, s, gen(int64(500+i)), sampleForecast(DeterministicType, F64, nil, 24, 7, 0, Days(1), 500+i), nil)
		}
	}); n != 1 {
		t.Fatalf("40 one-at-a-time forecasts took %d define phases", n)
	}
	// Same content under other keys: nothing to define.
	for i := range items {
		items[i].Owner.ID += 1000
	}
	if n := phases(func() {
		if _, err := s.AddBatch(items); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("a batch of stored arrays took %d define phases", n)
	}
	// A batch of ten made a dataset of width 10; a new family of one-at-a-time adds gets the
	// default width, and adds into its free columns define nothing.
	mustAdd(t, s, gen(600), hourly("load", ramp(72, 99)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := phases(func() { mustAdd(t, s, gen(601), hourly("load", ramp(72, 98)), nil) }); n != 0 {
		t.Fatalf("a column write took %d define phases", n)
	}
}

func TestBatchIsAllOrNothing(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("load", ramp(24, 0)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	before := fileDigests(t, path)
	good := BatchItem{Owner: gen(2), Series: sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1)}
	cases := []struct {
		name  string
		items []BatchItem
		kind  error
	}{
		{"duplicate within the batch", []BatchItem{good, good}, ErrDuplicateTimeSeries},
		{"duplicate against the store", []BatchItem{good, {Owner: gen(1), Series: hourly("load", ramp(24, 5))}}, ErrDuplicateTimeSeries},
		{"bad item", []BatchItem{good, {Owner: gen(3), Series: hourly("load", nil)}}, ErrInvalidParameter},
		{"reserved feature", []BatchItem{good, {Owner: gen(3), Series: hourly("x", ramp(24, 1)), Options: &AddOptions{Features: Features{"horizon": Int(1)}}}}, ErrInvalidParameter},
	}
	for _, c := range cases {
		_, err := s.AddBatch(c.items)
		wantKind(t, err, c.kind)
		if !strings.Contains(err.Error(), "items[1]") {
			t.Errorf("%s: error does not name the item: %v", c.name, err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if fileDigests(t, path) != before {
		t.Fatal("a refused batch changed the files")
	}
	keys, err := s.AddBatch([]BatchItem{good, {Owner: gen(3), Series: hourly("load", ramp(24, 7))}})
	if err != nil || len(keys) != 2 || keys[0].Type != DeterministicType || keys[1].OwnerID != 3 {
		t.Fatalf("batch: %v %v", keys, err)
	}
}

func TestAbstractDeterministicRequests(t *testing.T) {
	s, _ := newStore(t)
	fc := sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1)
	mustAdd(t, s, gen(1), fc, nil)
	mustAdd(t, s, gen(2), hourly("p", ramp(24, 0)), nil)
	if _, err := s.TransformSingleTimeSeries(Hours(4), Hours(4), nil); err != nil {
		t.Fatal(err)
	}
	for owner, wantType := range map[int64]SeriesType{1: DeterministicType, 2: DeterministicSingleTimeSeriesType} {
		k := forecastKey(owner, AbstractDeterministicType, Hours(4))
		if ok, err := s.Has(k); !ok || err != nil {
			t.Fatalf("owner %d: has = %v, %v", owner, ok, err)
		}
		m, err := s.GetMetadata(k)
		if err != nil || m.Type != wantType {
			t.Fatalf("owner %d: metadata type %v (%v)", owner, m.Type, err)
		}
		got := mustGetForecast(t, s, k).(*Deterministic)
		w, err := s.GetWindow(k, t0.Add(4*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		one, _ := w.Window(0)
		want, _ := got.Window(1)
		if !sameArray(one, want) {
			t.Fatalf("owner %d: window 1 differs", owner)
		}
	}
	typ := AbstractDeterministicType
	ms, err := s.ListMetadata(KeyFilter{Type: &typ})
	if err != nil || len(ms) != 2 {
		t.Fatalf("abstract filter listed %d (%v)", len(ms), err)
	}
	_, err = s.Get(forecastKey(3, AbstractDeterministicType, Hours(4)))
	wantKind(t, err, ErrNotFound)
}

func TestForecastParametersAndListings(t *testing.T) {
	s, _ := newStore(t)
	for i := int64(0); i < 3; i++ {
		mustAdd(t, s, gen(i), sampleForecast(DeterministicType, F64, nil, 24, 7, 0, Days(1), int(i)), nil)
	}
	mustAdd(t, s, gen(9), sampleForecast(ScenariosType, F64, nil, 4, 3, 2, Hours(4), 1), nil)
	mustAdd(t, s, gen(10), &SingleTimeSeries{Name: "load", InitialTimestamp: t0, Resolution: Minutes(15), Data: ArrayOf(ramp(96, 0))}, nil)
	mustAdd(t, s, gen(11), &SingleTimeSeries{Name: "inflow", InitialTimestamp: t0, Resolution: Months(1), Data: ArrayOf(ramp(12, 0))}, nil)
	mustAdd(t, s, gen(12), hourly("p", ramp(48, 0)), nil)
	if _, err := s.TransformSingleTimeSeries(Days(1), Hours(12), &TransformFilter{Resolution: ptr(Hours(1))}); err != nil {
		t.Fatal(err)
	}
	ps, err := s.ForecastParameters(KeyFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ForecastParameters{
		{DeterministicType, t0, Hours(1), Days(1), Days(1), 7, 3},
		{DeterministicSingleTimeSeriesType, t0, Hours(1), Days(1), Hours(12), 3, 1},
		{ScenariosType, t0, Hours(1), Hours(4), Hours(4), 3, 1},
	}
	if fmt.Sprint(ps) != fmt.Sprint(want) {
		t.Fatalf("parameters\n%v\nwant\n%v", ps, want)
	}
	det := DeterministicType
	if ps, _ := s.ForecastParameters(KeyFilter{Type: &det}); len(ps) != 1 || ps[0].Series != 3 {
		t.Fatalf("Deterministic parameters %v", ps)
	}
	static := SingleTimeSeriesType
	if ps, _ := s.ForecastParameters(KeyFilter{Type: &static}); len(ps) != 0 {
		t.Fatalf("static type gave parameters %v", ps)
	}
	res, err := s.Resolutions(KeyFilter{})
	if err != nil || fmt.Sprint(res) != fmt.Sprint([]Period{Minutes(15), Hours(1), Months(1)}) {
		t.Fatalf("resolutions %v (%v)", res, err)
	}
	iv, err := s.Intervals(KeyFilter{})
	if err != nil || fmt.Sprint(iv) != fmt.Sprint([]Period{Hours(4), Hours(12), Days(1)}) {
		t.Fatalf("intervals %v (%v)", iv, err)
	}
	counts, err := s.CountsByType(KeyFilter{})
	wantCounts := map[SeriesType]int{DeterministicType: 3, ScenariosType: 1, SingleTimeSeriesType: 3, DeterministicSingleTimeSeriesType: 1}
	if err != nil || fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
		t.Fatalf("counts %v (%v)", counts, err)
	}
}

func ptr[T any](v T) *T { return &v }

// The conformance store's forecast rows also list through the parameter queries.
func TestForecastParametersOfIndependentStore(t *testing.T) {
	s, err := OpenReadOnly(copyConformanceStore(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ps, err := s.ForecastParameters(KeyFilter{})
	if err != nil || len(ps) != 4 {
		t.Fatalf("%v (%v)", ps, err)
	}
	iv, _ := s.Intervals(KeyFilter{})
	if fmt.Sprint(iv) != fmt.Sprint([]Period{Hours(12), Days(1)}) {
		t.Fatalf("intervals %v", iv)
	}
}

// A refused call ends a unit it opened with ROLLBACK; one that joins a unit holding earlier
// work must keep that work.
func TestRefusedAddKeepsEarlierUncommittedWork(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("load", ramp(24, 0)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, gen(2), hourly("load", ramp(24, 1)), nil) // pending, not yet committed
	_, err := s.AddBatch([]BatchItem{{Owner: gen(3), Series: hourly("load", ramp(24, 2))},
		{Owner: gen(1), Series: hourly("load", ramp(24, 3))}})
	wantKind(t, err, ErrDuplicateTimeSeries)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for owner, want := range map[int64]bool{1: true, 2: true, 3: false} {
		ok, err := r.Has(Key{OwnerID: owner, Name: "load", Resolution: Hours(1)})
		if err != nil || ok != want {
			t.Fatalf("owner %d: has = %v, %v; want %v", owner, ok, err, want)
		}
	}
}

// extractWindow takes step h of window j of lead a from index (a·H + h)·n + j of the array,
// whatever the element size and the alignment of the memory (8-byte steps in aligned memory
// are moved as words, the others copied).
func TestExtractWindowTakesEachStep(t *testing.T) {
	for _, c := range []struct{ lead, h, n, eb, skew int }{
		{1, 24, 30, 8, 0}, {3, 5, 7, 8, 0}, {1, 24, 30, 8, 1}, {2, 4, 9, 4, 0}, {1, 3, 5, 24, 0},
	} {
		l := forecastLayout{lead: c.lead, h: c.h, count: c.n, eshape: []int{c.eb / 4}, width: 4}
		if c.eb == 8 {
			l.eshape, l.width = nil, 8
		}
		if l.stepBytes() != c.eb {
			t.Fatalf("%+v: a step of %d bytes, want %d", c, l.stepBytes(), c.eb)
		}
		size := c.lead * c.h * c.n * c.eb
		data := ncstore.AlignedBytes(size + c.skew)[c.skew:]
		for k := range data {
			data[k] = byte(k*7 + k/251)
		}
		for j := 0; j < c.n; j++ {
			out := ncstore.AlignedBytes(c.lead * c.h * c.eb)
			l.extractWindow(out, data, c.n, j)
			for a := 0; a < c.lead; a++ {
				for h := 0; h < c.h; h++ {
					src, dst := ((a*c.h+h)*c.n+j)*c.eb, (a*c.h+h)*c.eb
					if !bytes.Equal(out[dst:dst+c.eb], data[src:src+c.eb]) {
						t.Fatalf("%+v: window %d, lead %d, step %d differs", c, j, a, h)
					}
				}
			}
		}
	}
}
