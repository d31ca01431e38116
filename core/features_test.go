package core

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/tsstore/tsstore/core/internal/hashing"
)

func TestFeaturesJSONRoundTripKeepsKinds(t *testing.T) {
	f := Features{"model_year": Int(2030), "weight": Float(2), "calibrated": BoolValue(true),
		"scenario": Str(`hi "there"`), "cap": Float(math.Inf(-1)), "tiny": Float(1e-300)}
	js := f.JSON()
	if js != `{"calibrated":true,"cap":{"$float":"-Inf"},"model_year":2030,"scenario":"hi \"there\"","tiny":1e-300,"weight":2.0}` {
		t.Fatalf("JSON() = %s", js)
	}
	g, err := ParseFeaturesJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Equal(f) || g.hash() != f.hash() {
		t.Fatalf("round trip changed the map: %s", g.JSON())
	}
	if g["weight"].Kind() != "float" || g["model_year"].Kind() != "int" {
		t.Fatal("number kinds not kept")
	}
}

func TestParseFeaturesJSONRefusals(t *testing.T) {
	for _, in := range []string{
		`[1]`, `{"a":{"b":1}}`, `{"a":[1]}`, `{"a":null}`, `{"a":1} x`, `{"a":99999999999999999999}`,
		`{"units":"MW"}`, `{"":1}`, `null`, "{\"a\":\"\xff\"}",
	} {
		if _, err := ParseFeaturesJSON(in); err == nil {
			t.Errorf("%s accepted", in)
		} else {
			wantKind(t, err, ErrInvalidParameter)
		}
	}
	if f, err := ParseFeaturesJSON("  "); err != nil || len(f) != 0 {
		t.Fatalf("blank input: %v %v", f, err)
	}
}

func TestParseCompression(t *testing.T) {
	for in, want := range map[string]Compression{
		"none": {}, "deflate:0:noshuffle": {Deflate: true}, "deflate:9:shuffle": {Deflate: true, Level: 9, Shuffle: true},
	} {
		got, err := ParseCompression(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("%s → %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "deflate", "deflate:10:shuffle", "deflate:3", "deflate:03:shuffle", "zstd:3:shuffle", "deflate:-1:shuffle"} {
		if _, err := ParseCompression(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// A store the other implementation wrote can hold {x: 0.0} and {x: -0.0} as two series:
// it hashes -0.0 by its bits while SQLite hands both back as 0.0 (docs/format.md §12).
// Each must read as itself, by its listed key and by a lookup of either zero (§13.3).
func TestSignedZeroFeaturesAreTwoSeries(t *testing.T) {
	s, path := newStore(t)
	hourly := func(v ...float64) *SingleTimeSeries {
		return &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(v)}
	}
	if _, err := s.Add(gen(1), hourly(1, 2, 3), &AddOptions{Features: Features{"x": Float(0)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(gen(1), hourly(7, 8, 9), &AddOptions{Features: Features{"x": Float(0.5)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// What the other implementation writes for {x: -0.0}: its bits hash, a row reading 0.0.
	neg := Features{"x": {kind: hashing.KindFloat, f: math.Copysign(0, -1)}}
	negHash, halfHash, zeroHash := neg.bitsHash(), Features{"x": Float(0.5)}.hash(), Features{"x": Float(0)}.hash()
	if negHash == zeroHash || neg.hash() != zeroHash {
		t.Fatal("-0.0 must hash apart by its bits and as 0.0 canonically")
	}
	db, err := sql.Open("sqlite3", "file:"+CatalogPath(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE time_series_associations SET features_hash = ? WHERE features_hash = ?", []any{negHash[:], halfHash[:]}},
		{"DELETE FROM feature_sets WHERE features_hash = ?", []any{halfHash[:]}},
		{"INSERT INTO feature_sets (key, value_kind, value_float, features_hash) VALUES ('x', 'float', -0.0, ?)", []any{negHash[:]}},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatal(q.sql, err)
		}
	}
	db.Close()
	s = openAgain(t, path)

	keys, err := s.ListKeys(KeyFilter{})
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	want := map[bool][]float64{false: {1, 2, 3}, true: {7, 8, 9}} // by the sign of x
	for _, k := range keys {
		neg := math.Signbit(k.Features["x"].Value().(float64))
		got, err := s.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := Values[float64](got.(*SingleTimeSeries).Data)
		if fmt.Sprint(v) != fmt.Sprint(want[neg]) {
			t.Errorf("key %v read %v", k, v)
		}
	}
	if keys[0].Features.JSON() == keys[1].Features.JSON() {
		t.Fatalf("the two keys list alike: %s", keys[0].Features.JSON())
	}
	for _, tc := range []struct {
		features string
		exact    bool
		want     []float64
	}{
		{`{"x":-0.0}`, true, want[true]}, {`{"x":-0.0}`, false, want[true]},
		{`{"x":0.0}`, true, want[false]}, {`{"x":0.0}`, false, want[false]},
	} {
		f, err := ParseFeaturesJSON(tc.features)
		if err != nil {
			t.Fatal(err)
		}
		q := Lookup{OwnerID: 1, Name: "p", Features: f}
		if tc.exact {
			q = Key{OwnerID: 1, OwnerCategory: Component, Type: SingleTimeSeriesType, Name: "p", Resolution: Hours(1),
				Features: f}.Lookup()
		}
		m, err := s.GetMetadata(q)
		if err != nil {
			t.Fatalf("%s (exact %v): %v", tc.features, tc.exact, err)
		}
		got, err := s.Get(m.Key)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := Values[float64](got.(*SingleTimeSeries).Data)
		if fmt.Sprint(v) != fmt.Sprint(tc.want) {
			t.Errorf("%s (exact %v) read %v, want %v", tc.features, tc.exact, v, tc.want)
		}
		if found, err := s.Has(q); !found || err != nil {
			t.Errorf("%s: HasMatch %v %v", tc.features, found, err)
		}
		// The batched paths resolve alike: a bulk read and a reader's build.
		dst := [][]byte{make([]byte, 3*8)}
		if _, _, err := s.ReadManyInto([]Lookup{q}, dst); err != nil {
			t.Fatal(err)
		}
		if v := floats(t, TypedArray{DType: F64, Shape: []int{3}, Data: dst[0]}); fmt.Sprint(v) != fmt.Sprint(tc.want) {
			t.Errorf("%s (exact %v) ReadManyInto read %v, want %v", tc.features, tc.exact, v, tc.want)
		}
		if tc.exact {
			rd, err := s.NewStaticReader(Hours(1), Lookups([]Key{m.Key}))
			if err != nil {
				t.Fatal(err)
			}
			if err := rd.ReadStep(0); err != nil {
				t.Fatal(err)
			}
			if v := floats(t, rd.Groups()[0].Values); v[0] != tc.want[0] {
				t.Errorf("%s StaticReader read %v, want %v", tc.features, v[0], tc.want[0])
			}
			rd.Close()
		}
	}
}

// This build writes -0.0 as 0.0, and a lookup of -0.0 finds what it wrote.
func TestNegativeZeroIsWrittenAsZero(t *testing.T) {
	s, _ := newStore(t)
	f, err := ParseFeaturesJSON(`{"x":-0.0}`)
	if err != nil {
		t.Fatal(err)
	}
	k, err := s.Add(gen(1), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1),
		Data: ArrayOf([]float64{1})}, &AddOptions{Features: f})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetMetadata(k.Lookup())
	if err != nil {
		t.Fatal(err)
	}
	zero := Features{"x": Float(0)}.hash()
	if m.FeaturesHash != zero || math.Signbit(m.Features["x"].Value().(float64)) {
		t.Fatalf("stored %x %v, want the 0.0 set", m.FeaturesHash, m.Features)
	}
	if _, err := s.Add(gen(1), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1),
		Data: ArrayOf([]float64{2})}, &AddOptions{Features: Features{"x": Float(0)}}); !errors.Is(err, ErrDuplicateTimeSeries) {
		t.Fatalf("{x: 0.0} beside a -0.0 add: %v", err)
	}
}

// The store keeps the feature maps it reads by features hash: each series still reads its
// own map, a caller that changes the map it was given changes nothing the store returns
// later, and a hash whose set the catalog lacks is read again once the set is there.
func TestFeatureMapsReadOnceStayTheirOwn(t *testing.T) {
	s, _ := newStore(t)
	hourly := func(v ...float64) *SingleTimeSeries {
		return &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(v)}
	}
	maps := []Features{{"scenario": Int(1)}, {"scenario": Int(2)}, nil}
	for i, f := range maps {
		if _, err := s.Add(gen(1), hourly(float64(i)), &AddOptions{Features: f}); err != nil {
			t.Fatal(err)
		}
	}
	keys := make([]Key, len(maps))
	for i, f := range maps {
		keys[i] = Key{OwnerID: 1, Name: "p", Resolution: Hours(1), Features: f}
	}
	same := func(a, b Features) bool { return len(a) == len(b) && fmt.Sprint(a) == fmt.Sprint(b) }
	for round := 0; round < 2; round++ {
		got, err := s.GetMany(keys)
		if err != nil {
			t.Fatal(err)
		}
		for i, ts := range got {
			if v := floats(t, ts.(*SingleTimeSeries).Data)[0]; v != float64(i) {
				t.Fatalf("round %d: key %d read the series added %v-th", round, i, v)
			}
		}
		list, err := s.ListMetadata(KeyFilter{})
		if err != nil || len(list) != 3 {
			t.Fatalf("list %v, %v", list, err)
		}
		for _, m := range list {
			got, err := s.Get(m.Key)
			if err != nil {
				t.Fatal(err)
			}
			if i := int(floats(t, got.(*SingleTimeSeries).Data)[0]); !same(m.Features, maps[i]) {
				t.Fatalf("round %d: series %d listed with features %v, added with %v", round, i, m.Features, maps[i])
			}
		}
		for _, k := range keys {
			m, err := s.GetMetadata(k)
			if err != nil {
				t.Fatal(err)
			}
			if !same(m.Features, k.Features) {
				t.Fatalf("round %d: metadata features %v, key %v", round, m.Features, k.Features)
			}
			m.Features["scenario"] = Int(99) // must not reach the store's own copy
		}
	}
	list, err := s.ListMetadata(KeyFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range list {
		if v, ok := m.Features["scenario"]; ok && v == Int(99) {
			t.Fatalf("a caller's change to a map reached ListMetadata: %v", m.Features)
		}
	}
}
