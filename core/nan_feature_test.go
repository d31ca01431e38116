package core

import (
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// nanFeaturesHash is the features hash of {key: NaN} by docs/format.md §6.2, spelled out
// byte by byte here rather than through the hashing package: "features" NUL, one entry, the
// key's length and bytes, the kind tag 'f' and the canonical quiet NaN.
func nanFeaturesHash(key string) []byte {
	h := sha256.New()
	u64 := func(v uint64) {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], v)
		h.Write(w[:])
	}
	h.Write([]byte("features\x00"))
	u64(1)
	u64(uint64(len(key)))
	h.Write([]byte(key))
	h.Write([]byte{'f'})
	u64(0x7ff8000000000000)
	return h.Sum(nil)
}

// withNaNFeature writes a store holding owner 1's "p" twice: {x: 0.0} (1, 2, 3) and, as the
// other implementation writes a NaN feature, a set whose value_float is NULL under the hash
// of {x: NaN} (7, 8, 9).
func withNaNFeature(t *testing.T) string {
	t.Helper()
	s, path := newStore(t)
	hourly := func(v ...float64) *SingleTimeSeries {
		return &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(v)}
	}
	for _, add := range []struct {
		x    float64
		data []float64
	}{{0, []float64{1, 2, 3}}, {0.5, []float64{7, 8, 9}}} {
		if _, err := s.Add(gen(1), hourly(add.data...), &AddOptions{Features: Features{"x": Float(add.x)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	half, nan := Features{"x": Float(0.5)}.hash(), nanFeaturesHash("x")
	db, err := sql.Open("sqlite3", "file:"+CatalogPath(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"UPDATE time_series_associations SET features_hash = ? WHERE features_hash = ?",
		"UPDATE feature_sets SET value_float = NULL, features_hash = ? WHERE features_hash = ?",
	} {
		if _, err := db.Exec(q, nan, half[:]); err != nil {
			t.Fatal(q, err)
		}
	}
	return path
}

func readFloats(t *testing.T, s *Store, k Key) string {
	t.Helper()
	got, err := s.Get(k)
	if err != nil {
		t.Fatalf("Get(%v): %v", k, err)
	}
	v, _ := Values[float64](got.(*SingleTimeSeries).Data)
	return fmt.Sprint(v)
}

// A float feature the catalog holds as NULL is the NaN it was written for (docs/format.md
// §13.3): its series lists with x = NaN and reads as itself, never as the {x: 0.0} beside it.
func TestNaNFeatureReadsAsItsOwnSeries(t *testing.T) {
	s := openAgain(t, withNaNFeature(t))
	keys, err := s.ListKeys(KeyFilter{})
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	byX := map[string]Key{}
	for _, k := range keys {
		byX[k.Features.JSON()] = k
	}
	nanKey, ok := byX[`{"x":{"$float":"NaN"}}`]
	zeroKey, ok2 := byX[`{"x":0.0}`]
	if !ok || !ok2 {
		t.Fatalf("listed %v, want one {x: NaN} and one {x: 0.0}", byX)
	}
	if got := readFloats(t, s, nanKey); got != "[7 8 9]" {
		t.Errorf("the NaN key read %s", got)
	}
	if got := readFloats(t, s, zeroKey); got != "[1 2 3]" {
		t.Errorf("the 0.0 key read %s", got)
	}

	// The listing's JSON names the same series again, exactly and as a subset.
	nanFeatures, err := ParseFeaturesJSON(nanKey.Features.JSON())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []Lookup{
		{OwnerID: 1, Name: "p", Features: nanFeatures},
		Key{OwnerID: 1, OwnerCategory: Component, Type: SingleTimeSeriesType, Name: "p", Resolution: Hours(1),
			Features: nanFeatures}.Lookup(),
	} {
		m, err := s.GetMetadata(q)
		if err != nil {
			t.Fatalf("Find(%v): %v", q, err)
		}
		if got := readFloats(t, s, m.Key); got != "[7 8 9]" {
			t.Errorf("%v read %s", q, got)
		}
		dst := [][]byte{make([]byte, 3*8)}
		if _, _, err := s.ReadManyInto([]Lookup{q}, dst); err != nil {
			t.Fatal(err)
		}
		if v := floats(t, TypedArray{DType: F64, Shape: []int{3}, Data: dst[0]}); fmt.Sprint(v) != "[7 8 9]" {
			t.Errorf("%v: ReadManyInto read %v", q, v)
		}
	}
	for _, f := range []Features{nanFeatures, {"x": Float(0)}} {
		ks, err := s.ListKeys(KeyFilter{Features: f})
		if err != nil || len(ks) != 1 || !ks[0].Features.Equal(f) {
			t.Errorf("ListKeys(features %s): %v, %v", f.JSON(), ks, err)
		}
	}
	// The batched paths: a bulk read of both keys, a reader over both.
	got, err := s.GetMany([]Key{zeroKey, nanKey})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"[1 2 3]", "[7 8 9]"} {
		if v, _ := Values[float64](got[i].(*SingleTimeSeries).Data); fmt.Sprint(v) != want {
			t.Errorf("GetMany[%d] read %v, want %s", i, v, want)
		}
	}
	rd, err := s.NewStaticReader(Hours(1), Lookups([]Key{zeroKey, nanKey}))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if err := rd.ReadStep(2); err != nil {
		t.Fatal(err)
	}
	if v := floats(t, rd.Groups()[0].Values); fmt.Sprint(v) != "[3 9]" {
		t.Errorf("StaticReader step 2 read %v, want [3 9]", v)
	}
	// A lookup that names neither is ambiguous, and says so.
	if _, err := s.GetMetadata(Lookup{OwnerID: 1, Name: "p"}); err == nil {
		t.Error("a lookup without features resolved to one of two series")
	} else {
		wantKind(t, err, ErrInvalidParameter)
	}
}

// With the {x: 0.0} series gone, neither the 0.0 key nor a 0.0 lookup finds the NaN one.
func TestZeroLookupNeverFindsTheNaNSeries(t *testing.T) {
	s := openAgain(t, withNaNFeature(t))
	zero := Key{OwnerID: 1, OwnerCategory: Component, Type: SingleTimeSeriesType, Name: "p", Resolution: Hours(1),
		Features: Features{"x": Float(0)}}
	if err := s.Remove(zero); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(zero); err == nil {
		t.Fatal("the removed {x: 0.0} key read the NaN series")
	} else {
		wantKind(t, err, ErrNotFound)
	}
	if _, err := s.GetMetadata(Lookup{OwnerID: 1, Name: "p", Features: Features{"x": Float(0)}}); err == nil {
		t.Fatal("a {x: 0.0} lookup found the NaN series")
	} else {
		wantKind(t, err, ErrNotFound)
	}
	if found, err := s.Has(zero); found || err != nil {
		t.Fatalf("Has(0.0 key) = %v, %v", found, err)
	}
}

// This build still writes no NaN feature: the add is refused, naming the feature, and the
// store is unchanged.
func TestNaNFeatureIsRefusedOnWrite(t *testing.T) {
	s, _ := newStore(t)
	f, err := ParseFeaturesJSON(`{"x":{"$float":"NaN"}}`)
	if err != nil {
		t.Fatalf("a NaN lookup's JSON was refused: %v", err)
	}
	if !math.IsNaN(f["x"].Value().(float64)) {
		t.Fatalf("parsed %v", f)
	}
	_, err = s.Add(gen(1), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1),
		Data: ArrayOf([]float64{1})}, &AddOptions{Features: f})
	wantKind(t, err, ErrInvalidParameter)
	if want := "features.x"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %s", err, want)
	}
	if keys, err := s.ListKeys(KeyFilter{}); err != nil || len(keys) != 0 {
		t.Fatalf("after the refusal: %v, %v", keys, err)
	}
}
