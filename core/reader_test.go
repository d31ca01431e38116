package core

import (
	"errors"
	"os"
	"testing"
	"time"
)

// transpose turns a [rows, cols] row-major slice into [cols, rows].
func transpose(v []float64, rows, cols int) []float64 {
	out := make([]float64, len(v))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[c*rows+r] = v[r*cols+c]
		}
	}
	return out
}

// readerWindow is key i's window in the reader's current read.
func readerWindow(rd *ForecastReader, i int) TypedArray {
	for _, g := range rd.Groups() {
		for j, ki := range g.Keys {
			if ki != i {
				continue
			}
			wb := len(g.Values.Data) / len(g.Keys)
			return TypedArray{DType: g.DType, Shape: g.Values.Shape[1:], Data: g.Values.Data[j*wb : (j+1)*wb]}
		}
	}
	return TypedArray{}
}

// The sweep of the issue: 1,000 components × 365 daily windows of 24 hourly values, half
// Deterministic and half DeterministicSingleTimeSeries over year-long hourly series, read
// through one abstract-deterministic reader. Every (component, window) equals what was
// stored, a sample equals one-window-at-a-time reads, and the sweep reads each storage chunk
// exactly once.
func TestForecastReaderSweep(t *testing.T) {
	const n, windows, h = 1000, 365, 24
	s, path := newStore(t)
	var items []BatchItem
	want := make([]Forecast, n) // what component i's windows must be, built from the inputs
	for i := 0; i < n; i++ {
		// Components 0 and 1 share content (one array, read once per window), as do
		// components 500 and 501 (one packed column).
		seed := i
		if i == 1 || i == 501 {
			seed = i - 1
		}
		det := &Deterministic{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Horizon: Days(1),
			Interval: Days(1), Count: windows, Data: sampleArray(F64, h, []int{windows}, seed)}
		if i < n/2 {
			items = append(items, BatchItem{Owner: gen(int64(i)), Series: det})
			want[i] = det
			continue
		}
		// Daily windows of a year of hourly values with a one-day interval are the days.
		src := ramp(windows*h, float64(seed))
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", src)})
		det.Data = ArrayOf(transpose(src, windows, h), h, windows)
		want[i] = det
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TransformSingleTimeSeries(Days(1), Days(1), nil); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, path)
	keys := make([]Key, n)
	for i := range keys {
		keys[i] = forecastKey(int64(i), AbstractDeterministicType, Days(1))
	}
	rd, err := s.NewForecastReader(AbstractDeterministicType, Hours(1), Lookups(keys))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if len(rd.Groups()) != 1 || rd.Groups()[0].Values.Shape[0] != n || rd.Groups()[0].Steps != h {
		t.Fatalf("groups: %d", len(rd.Groups()))
	}
	// One-window-at-a-time reads are compared on a sample: every window of a few
	// components, one window of each of the others.
	sampled := func(i, w int) bool { return i%100 == 0 || i == 501 || w == (i*37)%windows }
	type pair struct{ i, w int }
	seen := map[pair]TypedArray{}
	before := s.nc.Counters().ChunkReads
	io0 := procReadBytes(t)
	for w := 0; w < windows; w++ {
		if err := rd.Read(t0.AddDate(0, 0, w)); err != nil {
			t.Fatal(err)
		}
		for i := range keys {
			want, _ := want[i].Window(w)
			got := readerWindow(rd, i)
			if !sameArray(got, want) {
				t.Fatalf("component %d window %d differs from what was stored", i, w)
			}
			if sampled(i, w) {
				seen[pair{i, w}] = TypedArray{DType: got.DType, Shape: got.Shape, Data: append([]byte(nil), got.Data...)}
			}
		}
	}
	// The kernel's count of bytes read agrees: the sweep reads the file's chunks about once
	// (a re-read per window would be 365 times the file).
	fi, _ := os.Stat(path)
	if read := procReadBytes(t) - io0; read > fi.Size()*11/10 || read < fi.Size()/2 {
		t.Fatalf("the sweep read %d bytes of a %d-byte file", read, fi.Size())
	}
	// 499 distinct dense arrays of one block each (W = min(365, 1 MiB / 192 B)), and the
	// 8,760 row chunks of the one packed dataset holding the sources.
	if got, want := s.nc.Counters().ChunkReads-before, int64(n/2-1+windows*h); got != want {
		t.Fatalf("the sweep touched %d chunks, want %d (each once)", got, want)
	}
	for p, got := range seen {
		one, err := s.GetWindow(keys[p.i], t0.AddDate(0, 0, p.w))
		if err != nil {
			t.Fatal(err)
		}
		if w, _ := one.Window(0); !sameArray(got, w) {
			t.Fatalf("component %d window %d: reader and single-window read differ", p.i, p.w)
		}
	}
	if len(seen) < 1000+9*windows {
		t.Fatalf("sampled only %d pairs", len(seen))
	}
}

// Probabilistic and Scenarios keys of different shapes land in separate groups.
func TestForecastReaderGroupsAndLayers(t *testing.T) {
	s, _ := newStore(t)
	var keys []Key
	var added []Forecast
	for i, es := range [][]int{{}, {3}, {}} {
		fc := sampleForecast(ScenariosType, F32, es, 4, 6, 2+i%2, Hours(4), i)
		keys = append(keys, mustAdd(t, s, gen(int64(i)), fc, nil))
		added = append(added, fc)
	}
	rd, err := s.NewForecastReader(ScenariosType, Hours(1), Lookups(keys))
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Groups()) != 2 {
		t.Fatalf("%d groups, want 2 (scalar × 2 scenarios twice, [3] × 3 scenarios)", len(rd.Groups()))
	}
	for w := 5; w >= 0; w-- { // backwards: every block reloads on demand
		if err := rd.ReadWindow(w); err != nil {
			t.Fatal(err)
		}
		for i := range keys {
			want, _ := added[i].Window(w)
			if got := readerWindow(rd, i); !sameArray(got, want) {
				t.Fatalf("key %d window %d differs", i, w)
			}
		}
	}
	if g := rd.Groups()[0]; g.Layers != 2 || len(g.Values.Shape) != 3 {
		t.Fatalf("group 0: layers %d shape %v", g.Layers, g.Values.Shape)
	}
	// Probabilistic keys of one shape but other percentiles are separate groups.
	var pk []Key
	for i, ps := range [][]float64{{0.1, 0.9}, {0.1, 0.9}, {0.25, 0.75}} {
		fc := sampleForecast(ProbabilisticType, F64, nil, 4, 6, 2, Hours(4), i).(*Probabilistic)
		fc.Percentiles = ps
		pk = append(pk, mustAdd(t, s, gen(int64(10+i)), fc, nil))
	}
	rd, err = s.NewForecastReader(ProbabilisticType, Hours(1), Lookups(pk))
	if err != nil {
		t.Fatal(err)
	}
	if gs := rd.Groups(); len(gs) != 2 || len(gs[0].Keys) != 2 || gs[1].Percentiles[0] != 0.25 {
		t.Fatalf("probabilistic groups: %d", len(gs))
	}
}

func TestForecastReaderRefusals(t *testing.T) {
	s, _ := newStore(t)
	k1 := mustAdd(t, s, gen(1), sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1), nil)
	k2 := mustAdd(t, s, gen(2), sampleForecast(DeterministicType, F64, nil, 4, 5, 0, Hours(4), 2), nil)
	cases := []struct {
		name, field string
		typ         SeriesType
		res         Period
		keys        []Key
		kind        error
	}{
		{"static type", "type", SingleTimeSeriesType, Hours(1), []Key{k1}, ErrInvalidParameter},
		{"no keys", "keys", DeterministicType, Hours(1), nil, ErrInvalidParameter},
		{"type mismatch", "which[0].type", ScenariosType, Hours(1), []Key{k1}, ErrInvalidParameter},
		{"resolution mismatch", "which[0].resolution", DeterministicType, Hours(2), []Key{k1}, ErrInvalidParameter},
		{"timelines differ", "which[1]", DeterministicType, Hours(1), []Key{k1, k2}, ErrInvalidParameter},
		{"unknown key", "which[1]", DeterministicType, Hours(1), []Key{k1, forecastKey(9, DeterministicType, Hours(4))}, ErrNotFound},
	}
	for _, c := range cases {
		_, err := s.NewForecastReader(c.typ, c.res, Lookups(c.keys))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Field() != c.field {
			t.Errorf("%s: want %v on %s, got %v", c.name, c.kind, c.field, err)
		}
	}
	rd, err := s.NewForecastReader(DeterministicType, Hours(1), Lookups([]Key{k1}))
	if err != nil {
		t.Fatal(err)
	}
	wantKind(t, rd.Read(t0.Add(time.Hour)), ErrInvalidParameter)
	wantKind(t, rd.Read(t0.Add(12*time.Hour)), ErrInvalidParameter)
	wantKind(t, rd.ReadWindow(-1), ErrInvalidParameter)
	s.Close()
	wantKind(t, rd.ReadWindow(0), ErrInvalidParameter) // the store is closed
	rd.Close()
	rd.Close()
	wantKind(t, rd.ReadWindow(0), ErrInvalidParameter)
}
