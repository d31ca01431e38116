package hashing

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"
)

func f64s(vs ...float64) []byte {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b
}

func i64s(vs ...int64) []byte {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

// The test vectors of docs/format.md §6.3, verbatim.
func TestArrayVectors(t *testing.T) {
	f32 := make([]byte, 8)
	binary.LittleEndian.PutUint32(f32, math.Float32bits(1.5))
	binary.LittleEndian.PutUint32(f32[4:], 0x7fc00001) // a non-canonical NaN payload
	cases := []struct {
		name  string
		dtype string
		shape []uint64
		data  []byte
		kind  FloatKind
		want  string
	}{
		{"f64 [4]", "f64", []uint64{4}, f64s(0, 1, 2, 3), Float64, "f85b4f66e62c7c51f9c82d01eabed7fb5e3b5217a69296aaaff876e1144dd841"},
		{"f64 [2,3]", "f64", []uint64{2, 3}, f64s(1, 2, 3, 4, 5, 6), Float64, "5f2094537c6a855c201aa8969ed4cf5a1fdda389964bef468e26bffcd6463e26"},
		{"i64 [3]", "i64", []uint64{3}, i64s(1, 2, 3), NotFloat, "a0f9721429ceda36d46e7e983419602d53168dda408bbfb6ae88da9f8181abe8"},
		{"bool [3]", "bool", []uint64{3}, []byte{1, 0, 1}, NotFloat, "0ac92b0feaec37f5ee30cffd2df07c86fd4c7a812e0deeca5e3baa2d5694e435"},
		{"f32 [2] with NaN", "f32", []uint64{2}, f32, Float32, "2aec4e6c51979089157ace107ab91d888e83767483bf8fec67edd3ea7c92991d"},
	}
	for _, c := range cases {
		before := append([]byte(nil), c.data...)
		got := Array(c.dtype, c.shape, c.data, c.kind)
		if hex.EncodeToString(got[:]) != c.want {
			t.Errorf("%s: got %x want %s", c.name, got, c.want)
		}
		if string(before) != string(c.data) {
			t.Errorf("%s: hashing modified the input bytes", c.name)
		}
	}
}

func TestArrayNaNPayloadsHashEqual(t *testing.T) {
	a := f64s(1, math.NaN())
	b := f64s(1, 0)
	binary.LittleEndian.PutUint64(b[8:], 0xfff0000000000123) // negative NaN, odd payload
	if Array("f64", []uint64{2}, a, Float64) != Array("f64", []uint64{2}, b, Float64) {
		t.Fatal("NaN payloads must canonicalise to one digest")
	}
	// Integers are hashed as stored: the same bits as i64 are not canonicalised.
	if Array("i64", []uint64{2}, a, NotFloat) == Array("i64", []uint64{2}, b, NotFloat) {
		t.Fatal("integer arrays must not be NaN-canonicalised")
	}
}

func TestArrayShapeIsPartOfHash(t *testing.T) {
	d := f64s(1, 2, 3, 4, 5, 6)
	if Array("f64", []uint64{6}, d, Float64) == Array("f64", []uint64{2, 3}, d, Float64) {
		t.Fatal("shape must be in the hash domain")
	}
	if Array("f64", []uint64{6}, d, Float64) == Array("i64", []uint64{6}, d, NotFloat) {
		t.Fatal("dtype must be in the hash domain")
	}
}

func TestFeatureVectors(t *testing.T) {
	empty := Features(nil)
	if hex.EncodeToString(empty[:]) != "f0f10eb0149a8828ad7505d73262e3e4a70bfdfed90e4c2e9ce6013758296ede" {
		t.Errorf("empty features: got %x", empty)
	}
	four := []Feature{
		{Key: "scenario", Kind: KindStr, Str: "high"},
		{Key: "weight", Kind: KindFloat, Float: 0.5},
		{Key: "model_year", Kind: KindInt, Int: 2030},
		{Key: "calibrated", Kind: KindBool, Bool: true},
	}
	got := Features(four)
	if hex.EncodeToString(got[:]) != "c7185ff0bd6d6e7fa8de9690fae6be9d30a1865fccc1e067310e0f28493b5f10" {
		t.Errorf("four features: got %x", got)
	}
	if four[0].Key != "scenario" {
		t.Error("Features must not reorder the caller's slice")
	}
}

// The conformance store's two feature sets, whose hashes its catalog records.
func TestFeatureHashesOfConformanceStore(t *testing.T) {
	a := Features([]Feature{{Key: "model_year", Kind: KindInt, Int: 2030}, {Key: "scenario", Kind: KindStr, Str: "high"}})
	if hex.EncodeToString(a[:]) != "711b4af8b4530daad3edd3f1a9d9d9cb14b942e1cf9a7145493a506e9001060c" {
		t.Errorf("got %x", a)
	}
	b := Features([]Feature{{Key: "calibrated", Kind: KindBool, Bool: true}, {Key: "weight", Kind: KindFloat, Float: 0.5}})
	if hex.EncodeToString(b[:]) != "bdc66f91234079d277bd0d11b3dda1bc79a409b3161d633d728e1edf3c921d2c" {
		t.Errorf("got %x", b)
	}
}

// The incremental hasher equals Array however the bytes are split, NaN payloads included.
func TestArrayHasherAnySplit(t *testing.T) {
	data := make([]byte, 8*37)
	for i := range data {
		data[i] = byte(i * 31)
	}
	for i := 0; i < len(data); i += 8 { // some NaNs with payloads
		if i%24 == 0 {
			copy(data[i:], []byte{1, 2, 3, 4, 5, 6, 0xf8, 0x7f})
		}
	}
	want := Array("f64", []uint64{37}, data, Float64)
	for _, piece := range []int{1, 3, 7, 8, 13, 64, 1000} {
		h := NewArrayHasher("f64", []uint64{37}, Float64)
		for i := 0; i < len(data); i += piece {
			h.Write(data[i:min(i+piece, len(data))])
		}
		if h.Sum() != want {
			t.Fatalf("pieces of %d bytes hash differently", piece)
		}
	}
}

// NaNs anywhere (first, last, in runs, split across writes) hash as the canonical NaN: the
// same digest as the array with every NaN replaced beforehand.
func TestArrayNaNAnywhereHashesAsCanonical(t *testing.T) {
	odd := math.Float64frombits(0xfff0000000000123)
	cases := [][]float64{
		{odd}, {odd, 1, 2}, {1, 2, odd}, {1, odd, odd, 2}, {odd, odd, odd}, {1, 2, 3}, {},
		{1, math.Inf(1), math.Inf(-1), odd, 5},
	}
	for p := 0; p < 37; p++ { // longer arrays: a NaN in and after the four-at-a-time scan
		vals := make([]float64, 37)
		vals[p], vals[36-p/2] = odd, math.NaN()
		cases = append(cases, vals)
	}
	for _, vals := range cases {
		canon := make([]float64, len(vals))
		for i, v := range vals {
			canon[i] = v
			if math.IsNaN(v) {
				canon[i] = math.Float64frombits(canonicalNaN64)
			}
		}
		shape := []uint64{uint64(len(vals))}
		want := Array("f64", shape, f64s(canon...), NotFloat)
		if got := Array("f64", shape, f64s(vals...), Float64); got != want {
			t.Errorf("%v: got %x want %x", vals, got, want)
		}
		h := NewArrayHasher("f64", shape, Float64)
		b := f64s(vals...)
		for len(b) > 0 { // 3 bytes at a time: every element split across writes
			n := min(3, len(b))
			h.Write(b[:n])
			b = b[n:]
		}
		if got := h.Sum(); got != want {
			t.Errorf("%v in pieces: got %x want %x", vals, got, want)
		}
		f32 := make([]byte, 4*len(vals))
		c32 := make([]byte, 4*len(vals))
		for i, v := range vals {
			bits, cbits := math.Float32bits(float32(v)), math.Float32bits(float32(v))
			if math.IsNaN(v) {
				bits, cbits = 0xffc00123, canonicalNaN32
			}
			binary.LittleEndian.PutUint32(f32[4*i:], bits)
			binary.LittleEndian.PutUint32(c32[4*i:], cbits)
		}
		if Array("f32", shape, f32, Float32) != Array("f32", shape, c32, NotFloat) {
			t.Errorf("%v as f32: NaN not canonicalised", vals)
		}
	}
}

// Array's one-shot path for small arrays hashes the bytes the incremental hasher does, on
// both sides of its size bound, for every float kind, NaN payloads included.
func TestArraySmallPathMatchesIncremental(t *testing.T) {
	for _, kind := range []FloatKind{NotFloat, Float32, Float64} {
		for _, n := range []int{0, 1, 8, 24, 200, 250, 251, 252, 256, 300} {
			data := make([]byte, 8*n)
			for i := range data {
				data[i] = byte(i*7 + n)
			}
			for i := 0; i+8 <= len(data); i += 40 {
				copy(data[i:], []byte{1, 2, 3, 4, 5, 0xc1, 0xff, 0x7f})
			}
			before := append([]byte(nil), data...)
			shape := []uint64{uint64(n)}
			h := NewArrayHasher("f64", shape, kind)
			h.Write(data)
			if got := Array("f64", shape, data, kind); got != h.Sum() {
				t.Fatalf("kind %d, %d elements: one-shot and incremental digests differ", kind, n)
			}
			if string(before) != string(data) {
				t.Fatalf("kind %d, %d elements: the caller's bytes were modified", kind, n)
			}
		}
	}
}
