package core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Feature JSON: an error naming the features, or a map whose canonical JSON parses back to
// an equal map with the same hash.
func FuzzParseFeaturesJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"scenario": "high", "model_year": 2030}`, `{"x": 1.5, "b": true}`, `{"inf": {"$float": "Inf"}}`,
		`{"n": null}`, `{"a": [1]}`, `{"a": {"b": 1}}`, `{"big": 99999999999999999999}`, `{"f": 1e400}`,
		`{"": 1}`, `{"a": 1, "a": 2}`, `[]`, `null`, `{"a": 1} {}`, `{"k": "\u0000"}`, `{"neg": -0.0}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		feats, err := ParseFeaturesJSON(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidParameter) {
				t.Fatalf("ParseFeaturesJSON(%q): %v is not InvalidParameter", s, err)
			}
			return
		}
		if err := feats.validate(); err != nil {
			return // parsed but refused at use (NaN, reserved names): an error, as required
		}
		c := feats.JSON()
		back, err := ParseFeaturesJSON(c)
		if err != nil || !back.Equal(feats) || back.hash() != feats.hash() {
			t.Fatalf("ParseFeaturesJSON(%q) = %v; its JSON %q reads back as %v (%v)", s, feats, c, back, err)
		}
	})
}

// Arrays of any dtype code, shape and byte length, as the C boundary hands them over: an
// add is refused with InvalidParameter, or the series reads back byte for byte.
func FuzzAddArrayShapes(f *testing.F) {
	f.Add(uint8(F64), []byte{24, 0}, 192)
	f.Add(uint8(F32), []byte{4, 3}, 48)
	f.Add(uint8(Bool), []byte{5}, 5)
	f.Add(uint8(I64), []byte{0}, 0)
	f.Add(uint8(9), []byte{3}, 24)
	f.Add(uint8(U64), []byte{2, 2, 2}, 64)
	f.Add(uint8(F64), []byte{255, 255, 255, 255}, 8)
	s, err := InMemory(nil)
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	owner := int64(0)
	f.Fuzz(func(t *testing.T, dt uint8, dims []byte, nbytes int) {
		if len(dims) > 6 || nbytes < 0 || nbytes > 1<<16 {
			return
		}
		shape := make([]int, len(dims))
		for i, d := range dims {
			shape[i] = int(d)
		}
		data := make([]byte, nbytes)
		for i := range data {
			data[i] = byte(i*7 + 1)
		}
		if DType(dt) == Bool {
			for i := range data {
				data[i] &= 1
			}
		}
		owner++
		arr := TypedArray{DType: DType(dt), Shape: shape, Data: data}
		k, err := s.Add(Owner{ID: owner, Type: "Fuzz", Category: Component},
			&SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: arr}, nil)
		if err != nil {
			if !errors.Is(err, ErrInvalidParameter) {
				t.Fatalf("dtype %d shape %v nbytes %d: %v is not InvalidParameter", dt, shape, nbytes, err)
			}
			return
		}
		ts, err := s.Get(k)
		if err != nil {
			t.Fatalf("dtype %d shape %v: added but not readable: %v", dt, shape, err)
		}
		got := ts.(*SingleTimeSeries).Data
		if got.DType != DType(dt) || !bytes.Equal(got.Data, data) || len(got.Shape) != len(shape) {
			t.Fatalf("dtype %d shape %v: read back %v %v", dt, shape, got.DType, got.Shape)
		}
	})
}

// A catalog with bytes overwritten: opening (read-only and writable) and reading every key
// ends in errors or in reads that hash to their rows' data_hash — never a panic or a hang. The .nc is a fresh copy
// each time.
func FuzzOpenMutatedCatalog(f *testing.F) {
	dir := f.TempDir()
	src := filepath.Join(dir, "src.nc")
	s, err := Create(src, nil)
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if _, err := s.Add(gen(int64(i)), hourly("p", ramp(24, float64(i))), &AddOptions{Features: Features{"i": Int(int64(i))}}); err != nil {
			f.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		f.Fatal(err)
	}
	nc, err := os.ReadFile(src)
	if err != nil {
		f.Fatal(err)
	}
	cat, err := os.ReadFile(CatalogPath(src))
	if err != nil {
		f.Fatal(err)
	}
	for _, off := range []uint32{0, 16, 28, 100, 4096, 8192 + 17, uint32(len(cat)) - 8} {
		var seed [8]byte
		binary.LittleEndian.PutUint32(seed[:], off)
		f.Add(seed[:4], []byte{0xff, 0x00, 0x13})
	}
	f.Fuzz(func(t *testing.T, where []byte, patch []byte) {
		if len(where) < 4 || len(patch) == 0 || len(patch) > 64 {
			return
		}
		off := int(binary.LittleEndian.Uint32(where)) % len(cat)
		mutated := append([]byte(nil), cat...)
		copy(mutated[off:], patch)
		path := filepath.Join(dir, "m.nc")
		os.Remove(CatalogPath(path))
		if err := os.WriteFile(path, nc, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(CatalogPath(path), mutated, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, open := range []func(string) (*Store, error){OpenReadOnly, Open} {
			st, err := open(path)
			if err != nil {
				continue
			}
			keys, err := st.ListKeys(KeyFilter{})
			if err == nil {
				for _, k := range keys {
					ts, err := st.Get(k)
					if err != nil {
						continue
					}
					// A row that reads must read the array its data_hash names, whatever the
					// mutation did to the row: that is what "never a silent wrong read" means.
					var arr TypedArray
					switch x := ts.(type) {
					case *SingleTimeSeries:
						arr = x.Data
					case *NonSequentialTimeSeries:
						arr = x.Data
					default:
						continue
					}
					m, err := st.GetMetadata(k)
					if err == nil && arr.hash() != m.DataHash {
						t.Fatalf("%v reads bytes that do not hash to its data_hash", k)
					}
				}
			}
			st.Close()
		}
	})
}
