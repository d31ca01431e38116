package core

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// addLoads adds the "load" series lookups are narrowed among: owner 1's without features
// (its key returned), and owner 2's with {scenario: high} and with that and {year: 2030}.
func addLoads(t *testing.T, s *Store) (plain Key, high Features) {
	t.Helper()
	high = Features{"scenario": Str("high")}
	plain = mustAdd(t, s, gen(1), hourly("load", ramp(24, 0)), nil)
	mustAdd(t, s, gen(2), hourly("load", ramp(24, 100)), &AddOptions{Features: high})
	mustAdd(t, s, gen(2), hourly("load", ramp(24, 200)), &AddOptions{Features: Features{"scenario": Str("high"), "year": Int(2030)}})
	return plain, high
}

// A lookup by owner and name alone finds the one series; features narrow it (an exact set
// first, else the one superset); several matches list them; none is NotFound.
func TestLookupNarrowsByWhatTheCallerKnows(t *testing.T) {
	s, path := newStore(t)
	_, high := addLoads(t, s)
	mustAdd(t, s, gen(3), hourly("load", ramp(24, 300)), &AddOptions{Features: Features{"scenario": Str("low")}})
	s = reopen(t, s, path)

	first := func(q Lookup) float64 {
		t.Helper()
		m, err := s.GetMetadata(q)
		if err != nil {
			t.Fatalf("find %s: %v", q, err)
		}
		ts, err := s.Get(m.Key)
		if err != nil {
			t.Fatal(err)
		}
		return floats(t, ts.(*SingleTimeSeries).Data)[0]
	}
	if v := first(Lookup{OwnerID: 1, Name: "load"}); v != 0 {
		t.Fatalf("owner 1 read %v", v)
	}
	if v := first(Lookup{OwnerID: 3, Name: "load"}); v != 300 {
		t.Fatalf("owner 3 (features not given) read %v", v)
	}
	if v := first(Lookup{OwnerID: 2, Name: "load", Features: high}); v != 100 {
		t.Fatalf("owner 2 with exactly {scenario: high} read %v, want the exact set's 100", v)
	}
	if v := first(Lookup{OwnerID: 2, Name: "load", Features: Features{"year": Int(2030)}}); v != 200 {
		t.Fatalf("owner 2 with {year: 2030} read %v", v)
	}
	_, err := s.GetMetadata(Lookup{OwnerID: 2, Name: "load"})
	wantKind(t, err, ErrInvalidParameter)
	if !strings.Contains(err.Error(), "matches several") || !strings.Contains(err.Error(), `"year":2030`) {
		t.Fatalf("ambiguity error does not list the matches: %v", err)
	}
	_, err = s.GetMetadata(Lookup{OwnerID: 3, Name: "load", Features: high})
	wantKind(t, err, ErrNotFound)
	_, err = s.GetMetadata(Lookup{OwnerID: 1, Name: "load", Type: ptr(NonSequentialTimeSeriesType)})
	wantKind(t, err, ErrNotFound)
	for _, c := range []struct {
		q    Lookup
		want bool
	}{{Lookup{OwnerID: 2, Name: "load"}, true}, {Lookup{OwnerID: 3, Name: "load", Features: high}, false},
		{Lookup{OwnerID: 1, Name: "load", Resolution: ptr(Hours(1))}, true}, {Lookup{OwnerID: 1, Name: "load", Resolution: ptr(Hours(2))}, false}} {
		if got, err := s.Has(c.q); err != nil || got != c.want {
			t.Fatalf("HasMatch(%s) = %v, %v; want %v", c.q, got, err, c.want)
		}
	}
}

// A Key's lookup takes its own feature set and nothing else: where the owner holds only a
// series with more features, Find says not found and HasMatch false, while the same lookup
// by owner and name without ExactFeatures takes the one superset.
func TestExactFeaturesNeverTakesASuperset(t *testing.T) {
	s, path := newStore(t)
	high := Features{"scenario": Str("high")}
	wide := Features{"scenario": Str("high"), "year": Int(2030)}
	mustAdd(t, s, gen(2), hourly("load", ramp(24, 100)), &AddOptions{Features: wide})
	s = reopen(t, s, path)
	narrow := Key{OwnerID: 2, OwnerCategory: Component, Type: SingleTimeSeriesType, Name: "load",
		Resolution: Hours(1), Features: high}
	if _, err := s.GetMetadata(narrow.Lookup()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find of a key with {scenario: high} took the {scenario, year} series: %v", err)
	}
	if ok, err := s.Has(narrow.Lookup()); err != nil || ok {
		t.Fatalf("HasMatch of a key that is not stored = %v, %v", ok, err)
	}
	loose := Lookup{OwnerID: 2, Name: "load", Features: high}
	if m, err := s.GetMetadata(loose); err != nil || !m.Features.Equal(wide) {
		t.Fatalf("a lookup by features should take the one superset: %v, %v", m, err)
	}
	// Exact without a full key (no resolution): the catalog query filters by the set's hash.
	partial := Lookup{OwnerID: 2, Name: "load", Features: wide, ExactFeatures: true}
	if m, err := s.GetMetadata(partial); err != nil || m.Key.Resolution != Hours(1) {
		t.Fatalf("exact lookup without a resolution: %v, %v", m, err)
	}
	partial.Features = high
	if ok, err := s.Has(partial); err != nil || ok {
		t.Fatalf("exact lookup by a subset matched: %v, %v", ok, err)
	}
	partial.Features = nil // exactly no features
	if ok, err := s.Has(partial); err != nil || ok {
		t.Fatalf("exact lookup of no features matched a featured series: %v, %v", ok, err)
	}
}

// Two series with exactly the features asked for (at two resolutions) leave a lookup that
// names neither resolution ambiguous: it never takes the first of them.
func TestTwoExactFeatureSetsAreAmbiguous(t *testing.T) {
	s, _ := newStore(t)
	high := Features{"scenario": Str("high")}
	mustAdd(t, s, gen(4), hourly("load", ramp(24, 0)), &AddOptions{Features: high})
	quarter := &SingleTimeSeries{Name: "load", InitialTimestamp: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
		Resolution: Minutes(15), Data: ArrayOf(ramp(24, 50))}
	mustAdd(t, s, gen(4), quarter, &AddOptions{Features: high})
	mustAdd(t, s, gen(4), hourly("load", ramp(24, 100)), &AddOptions{Features: Features{"scenario": Str("high"), "year": Int(2030)}})
	for _, exact := range []bool{false, true} {
		_, err := s.GetMetadata(Lookup{OwnerID: 4, Name: "load", Features: high, ExactFeatures: exact})
		wantKind(t, err, ErrInvalidParameter)
		if !strings.Contains(err.Error(), "PT15M") || strings.Contains(err.Error(), "2030}") {
			t.Fatalf("exact=%v: the ambiguity should list the two exact sets only: %v", exact, err)
		}
	}
}

// ReadInto writes into the caller's buffer exactly what Get returns, for whole series, ranges
// and windows, and refuses a buffer too small before reading; ReadManyInto equals GetMany.
func TestReadIntoEqualsGet(t *testing.T) {
	s, path := newStore(t)
	var items []BatchItem
	for i := 0; i < 20; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(48, float64(i*100)))})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	cost := mustAdd(t, s, gen(100), &SingleTimeSeries{Name: "cost", InitialTimestamp: t0, Resolution: Hours(1), Data: sampleArray(I64, 24, []int{3}, 7)}, nil)
	stamps := []time.Time{t0, t0.Add(90 * time.Minute), t0.Add(5 * time.Hour)}
	ns := mustAdd(t, s, gen(101), &NonSequentialTimeSeries{Name: "outage", Timestamps: stamps, Data: sampleArray(F64, 3, nil, 3)}, nil)
	det := mustAdd(t, s, gen(102), &Deterministic{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Horizon: Hours(4), Interval: Hours(2),
		Count: 5, Data: sampleArray(F32, 4, []int{5}, 9)}, nil)
	s = reopen(t, s, path)

	check := func(k Key, part Part, want TypedArray, wantT0 time.Time) {
		t.Helper()
		_, ext, err := s.Describe(k.Lookup(), part)
		if err != nil || ext.Bytes != len(want.Data) || !slices.Equal(ext.Shape, want.Shape) || !ext.InitialTimestamp.Equal(wantT0) {
			t.Fatalf("describe %s: %+v, %v; want %v at %s", k, ext, err, want.Shape, wantT0)
		}
		if _, _, err := s.ReadInto(k.Lookup(), part, make([]byte, ext.Bytes-1)); ext.Bytes > 0 && !errors.Is(err, ErrBufferTooSmall) {
			t.Fatalf("a buffer one byte short: %v", err)
		}
		dst := make([]byte, ext.Bytes+5)
		for i := range dst {
			dst[i] = 0xAB
		}
		if _, _, err := s.ReadInto(k.Lookup(), part, dst); err != nil {
			t.Fatal(err)
		}
		if string(dst[:ext.Bytes]) != string(want.Data) || strings.Trim(string(dst[ext.Bytes:]), "\xab") != "" {
			t.Fatalf("%s: ReadInto wrote other bytes than Get returns, or past the extent", k)
		}
	}
	get := func(k Key) TimeSeries {
		ts, err := s.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	k3 := Key{OwnerID: 3, Name: "p", Resolution: Hours(1)}
	check(k3, Part{}, get(k3).(*SingleTimeSeries).Data, t0)
	r, _ := s.GetRange(k3, t0.Add(2*time.Hour), t0.Add(5*time.Hour))
	check(k3, Part{Kind: TimeRange, Start: t0.Add(2 * time.Hour), End: t0.Add(5 * time.Hour)}, r.(*SingleTimeSeries).Data, t0.Add(2*time.Hour))
	check(cost, Part{}, get(cost).(*SingleTimeSeries).Data, t0)
	check(ns, Part{}, get(ns).(*NonSequentialTimeSeries).Data, t0)
	r, _ = s.GetRange(ns, t0.Add(time.Hour), t0.Add(6*time.Hour))
	check(ns, Part{Kind: TimeRange, Start: t0.Add(time.Hour), End: t0.Add(6 * time.Hour)}, r.(*NonSequentialTimeSeries).Data, stamps[1])
	check(det, Part{}, get(det).(Forecast).Array(), t0)
	w, _ := s.GetWindows(det, t0.Add(2*time.Hour), t0.Add(6*time.Hour))
	check(det, Part{Kind: WindowRange, Start: t0.Add(2 * time.Hour), End: t0.Add(6 * time.Hour)}, w.Array(), t0.Add(2*time.Hour))

	if got, err := s.Timestamps(ns.Lookup(), nil, nil); err != nil || !slices.EqualFunc(got, stamps, time.Time.Equal) {
		t.Fatalf("NonSequential timestamps %v, %v", got, err)
	}
	if got, err := s.Timestamps(det.Lookup(), nil, nil); err != nil || len(got) != 5 || !got[4].Equal(t0.Add(8*time.Hour)) {
		t.Fatalf("window starts %v, %v", got, err)
	}
	from, to := t0.Add(time.Hour), t0.Add(5*time.Hour)
	if got, err := s.Timestamps(ns.Lookup(), &from, &to); err != nil || len(got) != 1 || !got[0].Equal(stamps[1]) {
		t.Fatalf("NonSequential timestamps in [1h, 5h): %v, %v", got, err)
	}
	if got, err := s.Timestamps(k3.Lookup(), &from, &to); err != nil || len(got) != 5 || !got[0].Equal(from) {
		t.Fatalf("hourly timestamps in [1h, 5h]: %v, %v", got, err)
	}

	var keys []Key
	var qs []Lookup
	for i := 19; i >= 0; i-- {
		keys = append(keys, Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)})
		qs = append(qs, Lookup{OwnerID: int64(i), Name: "p"})
	}
	keys, qs = append(keys, cost, ns, det), append(qs, cost.Lookup(), ns.Lookup(), det.Lookup())
	want, err := s.GetMany(keys)
	if err != nil {
		t.Fatal(err)
	}
	_, exts, err := s.DescribeMany(qs)
	if err != nil {
		t.Fatal(err)
	}
	dsts := make([][]byte, len(qs))
	for i := range dsts {
		dsts[i] = make([]byte, exts[i].Bytes)
	}
	short := slices.Clone(dsts)
	short[21] = short[21][:0:0]
	short[22] = short[22][:1:1] // more than one item short: the first is named, none is read
	if _, _, err := s.ReadManyInto(qs, short); !errors.Is(err, ErrBufferTooSmall) || !strings.Contains(err.Error(), "dst[21]") {
		t.Fatalf("a short item: %v", err)
	}
	if _, _, err := s.ReadManyInto(qs, dsts); err != nil {
		t.Fatal(err)
	}
	for i, ts := range want {
		var a TypedArray
		switch v := ts.(type) {
		case *SingleTimeSeries:
			a = v.Data
		case *NonSequentialTimeSeries:
			a = v.Data
		case Forecast:
			a = v.Array()
		}
		if string(dsts[i]) != string(a.Data) {
			t.Fatalf("ReadManyInto item %d differs from GetMany", i)
		}
	}
}

func TestTimelineFollowsTheCalendar(t *testing.T) {
	jan31 := time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)
	got, err := Timeline(jan31, Months(1), 0, 3)
	want := []time.Time{jan31, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC)}
	if err != nil || !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Fatalf("monthly timeline %v, %v", got, err)
	}
	got, err = Timeline(t0, Hours(1), 2, 2)
	if err != nil || !got[0].Equal(t0.Add(2*time.Hour)) || !got[1].Equal(t0.Add(3*time.Hour)) {
		t.Fatalf("hourly timeline %v, %v", got, err)
	}
	if _, err := Timeline(t0, Period{}, 0, 1); !errors.Is(err, ErrInvalidParameter) {
		t.Fatalf("a zero step: %v", err)
	}
}

// A reader group bound to a caller buffer gets each step there, the bytes an unbound reader
// holds; a buffer shorter than the group is refused; unbinding goes back to the reader's own.
func TestReaderBindWritesIntoTheCallersBuffer(t *testing.T) {
	s, _ := newStore(t)
	var keys []Key
	for i := 0; i < 5; i++ {
		keys = append(keys, mustAdd(t, s, gen(int64(i)), hourly("p", ramp(24, float64(i*10))), nil))
	}
	fc := mustAdd(t, s, gen(9), sampleForecast(DeterministicType, F64, nil, 4, 3, 1, Hours(4), 5), nil)
	rd, err := s.NewStaticReader(Hours(1), Lookups(keys))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if err := rd.Bind(0, make([]byte, 39)); !errors.Is(err, ErrBufferTooSmall) {
		t.Fatalf("a 39-byte buffer for 5 f64: %v", err)
	}
	dst := make([]byte, 40)
	if err := rd.Bind(0, dst); err != nil {
		t.Fatal(err)
	}
	if err := rd.ReadStep(7); err != nil {
		t.Fatal(err)
	}
	got := floats(t, TypedArray{DType: F64, Shape: []int{5}, Data: dst})
	if !slices.Equal(got, []float64{7, 17, 27, 37, 47}) {
		t.Fatalf("bound buffer holds %v", got)
	}
	if err := rd.Bind(0, nil); err != nil || rd.ReadStep(8) != nil || floats(t, rd.Groups()[0].Values)[0] != 8 || floats(t, TypedArray{DType: F64, Shape: []int{5}, Data: dst})[0] != 7 {
		t.Fatal("unbinding did not return the reader to its own buffer")
	}
	fr, err := s.NewForecastReader(DeterministicType, Hours(1), Lookups([]Key{fc}))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	wdst := make([]byte, 4*8)
	if err := fr.Bind(0, wdst); err != nil {
		t.Fatal(err)
	}
	if err := fr.Read(t0.Add(4 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	w, err := s.GetWindow(fc, t0.Add(4*time.Hour))
	if err != nil || string(w.Array().Data) != string(wdst) {
		t.Fatalf("bound forecast window differs from GetWindow: %v", err)
	}
}

// A sizing call's plans serve only the same lookups, exactness included: sized by features
// (a superset matches), the exact read of those features finds nothing.
func TestSizingPlansKeepTheLookupsExactness(t *testing.T) {
	s, _ := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 5)), &AddOptions{Features: Features{"a": Int(1), "b": Int(2)}})
	loose := []Lookup{{OwnerID: 1, Name: "p", Features: Features{"a": Int(1)}}}
	if _, _, err := s.DescribeMany(loose); err != nil {
		t.Fatal(err)
	}
	exact := []Lookup{{OwnerID: 1, Name: "p", Features: Features{"a": Int(1)}, ExactFeatures: true}}
	if _, _, err := s.ReadManyInto(exact, [][]byte{make([]byte, 24*8)}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an exact read reused the superset's plan: %v", err)
	}
}

// A lookup's ID hint reads the row it names only when that row is the series the lookup
// names exactly: a hint naming another series, a removed one, or given to a lookup that is
// not exact changes no answer.
func TestIDHintNeverChangesWhatALookupReads(t *testing.T) {
	s, _ := newStore(t)
	var keys []Key
	for i := 0; i < 8; i++ {
		keys = append(keys, mustAdd(t, s, gen(int64(i)), hourly("p", ramp(24, float64(100*i))), nil))
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	qs := make([]Lookup, len(keys))
	for i, k := range keys {
		qs[i] = k.Lookup()
	}
	ms, _, err := s.DescribeMany(qs)
	if err != nil {
		t.Fatal(err)
	}
	read := func(qs []Lookup) ([]float64, error) {
		d := make([][]byte, len(qs))
		for i := range d {
			d[i] = make([]byte, 24*8)
		}
		if _, _, err := s.ReadManyInto(qs, d); err != nil {
			return nil, err
		}
		out := make([]float64, len(qs))
		for i := range d {
			out[i] = floats(t, TypedArray{DType: F64, Shape: []int{24}, Data: d[i]})[0]
		}
		return out, nil
	}
	for i := range qs {
		qs[i].ID = ms[i].ID
	}
	// Every hint right, then every hint naming the next series: each reads its own.
	for _, shift := range []int{0, 1} {
		for i := range qs {
			qs[i].ID = ms[(i+shift)%len(ms)].ID
		}
		got, err := read(qs)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != float64(100*i) {
				t.Fatalf("shift %d: item %d read %v", shift, i, v)
			}
		}
		if m, err := s.GetMetadata(qs[3]); err != nil || m.Key.OwnerID != 3 {
			t.Fatalf("shift %d: Find read %v, %v", shift, m, err)
		}
	}
	// A removed series' hint: NotFound, never another series.
	if err := s.Remove(keys[5]); err != nil {
		t.Fatal(err)
	}
	qs[5].ID = ms[5].ID
	if _, err := read(qs); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "which[5]") {
		t.Fatalf("a removed series' hint: %v", err)
	}
	// A lookup that is not exact ignores its hint: two series match, so it is ambiguous.
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 7)), &AddOptions{Features: Features{"x": Int(1)}})
	loose := Lookup{OwnerID: 1, Name: "p", Features: Features{}, ID: ms[1].ID}
	if _, err := s.GetMetadata(loose); err != nil {
		t.Fatalf("the exact empty set still names one series: %v", err)
	}
	loose.Features = nil
	if _, err := s.GetMetadata(loose); !errors.Is(err, ErrInvalidParameter) {
		t.Fatalf("a hint made an ambiguous lookup resolve: %v", err)
	}
}
