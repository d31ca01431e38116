package ncstore

import (
	"slices"
	"strconv"
	"testing"
)

// A packed dataset's name round-trips through parsePackedName, spill suffix included, and
// names that are not the grammar of docs/format.md §7.3 are refused.
func TestPackedNames(t *testing.T) {
	for _, c := range []struct {
		dt     DType
		eshape []int
		length int
		res    string
		suffix int
	}{{F64, nil, 24, "PT1H", 0}, {I32, []int{3}, 8760, "PT1H", 2}, {Bool, []int{2, 5}, 0, "P1D", 10}} {
		fam := familyKey{c.dt, shapeToken(c.eshape), c.length, c.res}
		name := PackedName(c.dt, c.eshape, c.length, c.res)
		if name != fam.baseName() {
			t.Fatalf("PackedName %q, baseName %q", name, fam.baseName())
		}
		if c.suffix > 0 {
			name += "__" + strconv.Itoa(c.suffix)
		}
		got, eshape, suffix, err := parsePackedName(name)
		if err != nil || got != fam || !slices.Equal(eshape, c.eshape) || suffix != c.suffix {
			t.Fatalf("%s: %+v %v %d %v", name, got, eshape, suffix, err)
		}
	}
	for _, bad := range []string{"sts_f64_s_24", "sts_f16_s_24_PT1H", "sts_f64_0x3_24_PT1H",
		"sts_f64_s_-1_PT1H", "sts_f64_s_24_1H", "sts_f64_s_24_PT1H__0", "sts_f64_s_24_PT1H__x"} {
		if _, _, _, err := parsePackedName(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

// A packed dataset's width keeps one (1, cols, *E) chunk within MaxChunkBytes.
func TestPackedWidth(t *testing.T) {
	if w := packedWidth(1000, nil, F64); w != 1000 {
		t.Fatalf("scalar f64: %d", w)
	}
	if w := packedWidth(1000, []int{1024}, F64); w != MaxChunkBytes/(1024*8) {
		t.Fatalf("[1024] f64: %d", w)
	}
	if w := packedWidth(0, []int{1 << 20}, Bool); w != 1 {
		t.Fatalf("a step of a whole chunk: %d", w)
	}
}

// chunksTouched counts the chunks a hyperslab intersects; an empty one touches none.
func TestChunksTouched(t *testing.T) {
	for _, c := range []struct {
		chunks, start, count []uint64
		want                 int64
	}{
		{[]uint64{4, 10}, []uint64{0, 0}, []uint64{4, 10}, 1},
		{[]uint64{4, 10}, []uint64{3, 0}, []uint64{2, 10}, 2},
		{[]uint64{4, 10}, []uint64{0, 9}, []uint64{8, 2}, 4},
		{[]uint64{4, 10}, []uint64{0, 0}, []uint64{0, 10}, 0},
	} {
		if got := chunksTouched(c.chunks, c.start, c.count); got != c.want {
			t.Errorf("%v from %v by %v: %d, want %d", c.chunks, c.start, c.count, got, c.want)
		}
	}
}

// HDF5 gets a prime slot count for a packed dataset's chunk cache.
func TestNextPrime(t *testing.T) {
	for n, want := range map[uint64]uint64{0: 2, 2: 2, 4: 5, 90: 97, 7919: 7919} {
		if got := nextPrime(n); got != want {
			t.Errorf("nextPrime(%d) = %d, want %d", n, got, want)
		}
	}
}

// Writes to reserved columns are grouped into runs of adjacent columns of one dataset.
func TestColumnRuns(t *testing.T) {
	a, b := &Packed{name: "sts_a"}, &Packed{name: "sts_b"}
	ws := []packedWrite{{slot: Slot{b, 0}}, {slot: Slot{a, 3}}, {slot: Slot{a, 1}}, {slot: Slot{a, 2}}, {slot: Slot{b, 2}}}
	var got [][]int
	for _, run := range columnRuns(ws) {
		var cols []int
		for _, w := range run {
			cols = append(cols, w.slot.col)
		}
		got = append(got, cols)
	}
	if want := [][]int{{1, 2, 3}, {0}, {2}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("runs %v, want %v", got, want)
	}
}

// The compression attribute round-trips, and a level of two digits does not parse
// (docs/format.md §7.7, §13.4).
func TestCompressionAttribute(t *testing.T) {
	for _, c := range []Compression{{}, DefaultCompression, {Deflate: true, Level: 9}} {
		got, err := ParseCompression(c.String())
		if err != nil || got != c {
			t.Fatalf("%s: %+v %v", c, got, err)
		}
	}
	if _, err := ParseCompression("deflate:03:shuffle"); err == nil {
		t.Fatal("a two-digit level parsed")
	}
}
