package chunkpipe

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func sample(n int, seed uint64, smooth bool) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		if smooth {
			b[i] = byte(i / 64)
		} else {
			b[i] = byte(r.Uint32())
		}
	}
	return b
}

// Shuffle moves byte j of element i to j·n + i, and leaves a partial element's bytes at the
// end; unshuffle undoes it.
func TestShufflePlacesBytesByPlane(t *testing.T) {
	src := []byte{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23, 99}
	got := make([]byte, len(src))
	shuffle(got, src, 4)
	want := []byte{0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23, 99}
	if !bytes.Equal(got, want) {
		t.Fatalf("shuffle = %v, want %v", got, want)
	}
	back := make([]byte, len(src))
	unshuffle(back, got, 4)
	if !bytes.Equal(back, src) {
		t.Fatalf("unshuffle = %v, want %v", back, src)
	}
	one := []byte{5, 6, 7, 8}
	shuffle(got[:4], one, 8) // less than one element: left as it is
	if !bytes.Equal(got[:4], one) {
		t.Fatalf("a partial element was moved: %v", got[:4])
	}
}

// What Encode stores is a zlib stream that Go's own zlib reader inflates to the shuffled
// bytes, and Decode gives back the chunk, for every element size and for data that does and
// does not compress.
func TestEncodeWritesZlibStreamsOfShuffledBytes(t *testing.T) {
	for _, size := range []int{1, 4, 8} {
		for _, smooth := range []bool{true, false} {
			p := Pipeline{ElemSize: size, Shuffle: true, Deflate: true, Level: 3}
			raw := sample(8000, uint64(size), smooth)
			var s Scratch
			enc, mask := p.Encode(raw, make([]byte, p.Bound(len(raw))), &s)
			if mask != 0 {
				t.Fatalf("size %d smooth %v: deflate skipped for %d bytes", size, smooth, len(raw))
			}
			shuffled := make([]byte, len(raw))
			shuffle(shuffled, raw, size)
			if !bytes.Equal(inflated(t, enc), shuffled) {
				t.Fatalf("size %d: the stream does not hold the shuffled chunk", size)
			}
			back := make([]byte, len(raw))
			if err := p.Decode(enc, mask, back, &s); err != nil || !bytes.Equal(back, raw) {
				t.Fatalf("size %d smooth %v: decode: %v", size, smooth, err)
			}
		}
	}
}

// An incompressible chunk still fits HDF5's bound (zlib's stored blocks cost 11 bytes and 5
// per 64 KiB), so it is stored deflated, as HDF5 stores it.
func TestIncompressibleChunkFitsTheBound(t *testing.T) {
	for _, n := range []int{1, 24, 70000} {
		raw := sample(n, 3, false)
		p := Pipeline{ElemSize: 8, Shuffle: true, Deflate: true, Level: 3}
		var s Scratch
		enc, mask := p.Encode(raw, make([]byte, p.Bound(n)), &s)
		if mask != 0 || len(enc) <= n {
			t.Fatalf("%d random bytes: mask %d, %d bytes stored", n, mask, len(enc))
		}
		back := make([]byte, n)
		if err := p.Decode(enc, mask, back, &s); err != nil || !bytes.Equal(back, raw) {
			t.Fatalf("%d bytes: decode: %v", n, err)
		}
	}
}

// A chunk another writer stored with filters skipped (their bits set in its mask) decodes
// by that mask.
func TestDecodeHonoursTheFilterMask(t *testing.T) {
	raw := sample(800, 5, true)
	shuffled := make([]byte, len(raw))
	shuffle(shuffled, raw, 8)
	p := Pipeline{ElemSize: 8, Shuffle: true, Deflate: true, Level: 3}
	var s Scratch
	for _, c := range []struct {
		stored []byte
		mask   uint32
	}{{shuffled, 2}, {raw, 3}} {
		back := make([]byte, len(raw))
		if err := p.Decode(c.stored, c.mask, back, &s); err != nil || !bytes.Equal(back, raw) {
			t.Errorf("mask %d: %v", c.mask, err)
		}
	}
}

// Damaged chunks are errors, never short or wrong data.
func TestDecodeRefusesDamagedChunks(t *testing.T) {
	p := Pipeline{ElemSize: 8, Shuffle: true, Deflate: true, Level: 3}
	raw := sample(4096, 1, true)
	var s Scratch
	enc, _ := p.Encode(raw, make([]byte, p.Bound(len(raw))), &s)
	out := make([]byte, len(raw))
	for name, stored := range map[string][]byte{
		"cut short": enc[:len(enc)/2],
		"not zlib":  bytes.Repeat([]byte{0xff}, 40),
		"empty":     nil,
		"too large": func() []byte { e, _ := p.Encode(append(raw, raw...), make([]byte, p.Bound(2*len(raw))), &s); return e }(),
		"too small": func() []byte { e, _ := p.Encode(raw[:64], make([]byte, p.Bound(64)), &s); return e }(),
		"bad adler": append(append([]byte{}, enc[:len(enc)-1]...), enc[len(enc)-1]^1),
	} {
		if err := p.Decode(stored, 0, out, &s); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	if err := (Pipeline{ElemSize: 8}).Decode(raw[:100], 0, out, &s); err == nil {
		t.Error("an unfiltered chunk of the wrong size decoded")
	}
}

// The 8-byte fast paths agree with the byte loops: whole blocks of eight elements, a tail
// of fewer, partial elements.
func TestShuffle8MatchesTheByteLoop(t *testing.T) {
	for _, n := range []int{2, 3, 8, 17, 64, 1000} {
		src := sample(n*8+5, uint64(n), false)
		fast, slow := make([]byte, len(src)), make([]byte, len(src))
		shuffle(fast, src, 8)
		for j := 0; j < 8; j++ {
			for i := 0; i < n; i++ {
				slow[j*n+i] = src[i*8+j]
			}
		}
		copy(slow[n*8:], src[n*8:])
		if !bytes.Equal(fast, slow) {
			t.Fatalf("n=%d: shuffle8 differs from the byte loop", n)
		}
		back := make([]byte, len(src))
		unshuffle(back, fast, 8)
		if !bytes.Equal(back, src) {
			t.Fatalf("n=%d: unshuffle8 does not undo shuffle8", n)
		}
	}
}

// Shuffling an 80 KB row of 10,000 f64 (a batch's row): `go test -bench Shuffle8`.
func BenchmarkShuffle8(b *testing.B) { benchRow(b, shuffle8) }

func BenchmarkUnshuffle8(b *testing.B) { benchRow(b, unshuffle8) }

func benchRow(b *testing.B, move func(dst, src []byte, n int)) {
	n := 10000
	src, dst := sample(n*8, 1, false), make([]byte, n*8)
	b.SetBytes(int64(n * 8))
	for b.Loop() {
		move(dst, src, n)
	}
}
