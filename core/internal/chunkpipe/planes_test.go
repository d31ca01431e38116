package chunkpipe

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"testing"
)

// wideRow is one step of n float64 series, shuffled as HDF5's filter shuffles it. With
// period 0 it is what smooth series give: their sign, exponent and top mantissa bytes
// repeat across columns and their low mantissa bytes are noise. With a period, random
// values repeat every period columns, so every plane looks like noise byte by byte but
// deflate's matching shortens it to almost nothing.
func wideRow(n, period int) []byte {
	r := rand.New(rand.NewPCG(uint64(n), uint64(period)))
	raw := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		v := 50 + 30*math.Sin(float64(i)/24)
		if period > 0 {
			if i >= period {
				copy(raw[8*i:8*i+8], raw[8*(i-period):])
				continue
			}
			v = r.Float64() * 100
		}
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	out := make([]byte, len(raw))
	shuffle(out, raw, 8)
	return out
}

func plane(row []byte, j int) []byte { n := len(row) / 8; return row[j*n : (j+1)*n] }

// The low mantissa planes of smooth series are noise and their exponent planes are not; a
// plane whose bytes are uniform but whose runs repeat is not noise; a plane shorter than
// 4,096 bytes is never looked at.
func TestNoisePlanesAreTheOnesMatchingCannotShorten(t *testing.T) {
	smooth := wideRow(10000, 0)
	for j, want := range []bool{true, true, true, true, true} {
		if got := planeIsNoise(plane(smooth, j)); got != want {
			t.Errorf("smooth series, plane %d: noise %v, want %v", j, got, want)
		}
	}
	for _, j := range []int{6, 7} {
		if planeIsNoise(plane(smooth, j)) {
			t.Errorf("smooth series, plane %d (exponent bytes) taken for noise", j)
		}
	}
	periodic := wideRow(10000, 2000)
	for j := 0; j < 8; j++ {
		if planeIsNoise(plane(periodic, j)) {
			t.Errorf("random values repeating every 2,000 columns, plane %d taken for noise", j)
		}
	}
	random := sample(8192, 9, false)
	if !planeIsNoise(random[:4096]) || planeIsNoise(random[:4095]) {
		t.Error("a plane of random bytes is noise from 4,096 bytes on, and is not looked at below")
	}
}

// inflated is src's zlib stream inflated by Go's own reader.
func inflated(t *testing.T, src []byte) []byte {
	t.Helper()
	zr, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Coding by plane changes the stream only where a plane is noise, keeps it a standard zlib
// stream, and stores no more than zlib's whole-chunk coding (within 1%): on smooth series,
// where it codes five planes with Huffman codes; on repeating random values, where it codes
// none that way and the stream is compress2's byte for byte; and again with the deflaters
// reused, so that a stream reset between chunks forgets the last chunk's strategy.
func TestPlaneCodingKeepsStreamsStandardAndSmall(t *testing.T) {
	for round := 0; round < 2; round++ {
		for _, c := range []struct {
			name    string
			row     []byte
			changed bool
		}{
			{"smooth series", wideRow(10000, 0), true},
			{"random values repeating", wideRow(10000, 2000), false},
			{"random bytes", sample(80000, 4, false), true},
			{"narrow smooth row", wideRow(1000, 0), false},
		} {
			room := deflateBound(len(c.row))
			whole, byPlane := make([]byte, room), make([]byte, room)
			nw, ok1 := deflate(whole, c.row, 3, 0)
			np, ok2 := deflate(byPlane, c.row, 3, 8)
			if !ok1 || !ok2 {
				t.Fatalf("%s: a stream did not fit", c.name)
			}
			whole, byPlane = whole[:nw], byPlane[:np]
			if !bytes.Equal(inflated(t, byPlane), c.row) || !bytes.Equal(inflated(t, whole), c.row) {
				t.Fatalf("%s: a stream does not inflate to the row", c.name)
			}
			if changed := !bytes.Equal(whole, byPlane); changed != c.changed {
				t.Errorf("%s: stream changed by plane coding: %v, want %v", c.name, changed, c.changed)
			}
			if float64(np) > 1.01*float64(nw) {
				t.Errorf("%s: %d bytes by plane against %d whole", c.name, np, nw)
			}
		}
	}
}

// mixedRow is eight planes of 4,096 bytes: the first repeats (a ramp), the others are
// noise, so its stream starts with string matching and changes to Huffman codes.
func mixedRow(seed uint64) []byte {
	row := sample(8*4096, seed, false)
	for i := 0; i < 4096; i++ {
		row[i] = byte(i / 64)
	}
	return row
}

// A reused deflater gives, chunk after chunk, the bytes a fresh one gives: a reset stream
// forgets the strategy the last chunk ended with (here Huffman codes, before a chunk whose
// first plane wants matching) and the input of a chunk that did not fit.
func TestReusedDeflatersGiveAFreshOnesBytes(t *testing.T) {
	defer SetThreads(SetThreads(1))
	rows := [][]byte{sample(80000, 1, false), mixedRow(2), wideRow(10000, 0), mixedRow(3),
		wideRow(10000, 2000), sample(80000, 4, false), mixedRow(5)}
	for round := 0; round < 3; round++ {
		for i, row := range rows {
			room := deflateBound(len(row))
			got, want := make([]byte, room), make([]byte, room)
			if round == 1 { // a chunk that does not fit first, on the same deflater
				if _, ok := deflate(got[:len(row)/16], row, 3, 8); ok {
					t.Fatalf("row %d fit in a sixteenth of its size", i)
				}
			}
			ng, ok1 := deflate(got, row, 3, 8)
			nw, ok2 := deflateFresh(want, row, 3, 8)
			if !ok1 || !ok2 || !bytes.Equal(got[:ng], want[:nw]) {
				t.Fatalf("round %d, row %d: the pool's deflater wrote %d bytes, a fresh one %d", round, i, ng, nw)
			}
		}
	}
}

// When the stream coded by plane does not fit where the whole chunk's would, the chunk is
// coded whole: the bytes are compress2's, not an unfiltered chunk.
func TestAStreamByPlaneThatDoesNotFitFallsBackToTheWholeChunk(t *testing.T) {
	for seed := uint64(0); seed < 64; seed++ {
		row := sample(8*4096, seed, false)
		room := deflateBound(len(row))
		whole, byPlane := make([]byte, room), make([]byte, room)
		nw, _ := deflate(whole, row, 3, 0)
		np, _ := deflate(byPlane, row, 3, 8)
		if np <= nw {
			continue
		}
		got := make([]byte, nw)
		n, ok := deflate(got, row, 3, 8)
		if !ok || !bytes.Equal(got[:n], whole[:nw]) {
			t.Fatalf("seed %d: by plane %d bytes, whole %d; in room for the whole: ok=%v, %d bytes", seed, np, nw, ok, n)
		}
		return
	}
	t.Fatal("no row of random bytes coded longer by plane than whole; the fallback went untried")
}
