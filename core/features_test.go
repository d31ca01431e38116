package core

import (
	"math"
	"testing"
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
		`{"units":"MW"}`, `{"":1}`, `null`, `{"a":{"$float":"NaN"}}`, "{\"a\":\"\xff\"}",
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
