package ncstore

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// batchArrays is n arrays of one family and one batch: WriteArrays puts them in one dataset
// exactly as wide, which it writes as whole chunks.
func batchArrays(dt DType, n, length int, eshape []int, smooth bool) []*Array {
	r := rand.New(rand.NewPCG(uint64(n), uint64(dt)))
	eb := ElementCount(eshape) * dt.Width()
	out := make([]*Array, n)
	for i := range out {
		data := make([]byte, length*eb)
		for j := range data {
			if smooth {
				data[j] = byte((i + j/eb) / 3)
			} else {
				data[j] = byte(r.Uint32())
			}
		}
		if dt == Bool {
			for j := range data {
				data[j] &= 1
			}
		}
		d := hashing.Digest{byte(i), byte(i >> 8), byte(dt), 0xd1}
		out[i] = &Array{Digest: d, Packed: true, DType: dt, Shape: append([]int{length}, eshape...),
			Data: data, Resolution: "PT1H", Batch: 1}
	}
	return out
}

// writeThroughPipeline writes arrays as WriteArrays would, in one dataset as wide, but row by
// row through HDF5's own filter pipeline: the reference a direct write must match.
func writeThroughPipeline(t *testing.T, f *File, arrays []*Array) *Packed {
	t.Helper()
	ds, err := pipelineRows(t, f, arrays, arrays[0].Shape[0])
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// writeRowsThroughPipeline writes the first rows of arrays through HDF5's pipeline, with
// their hash slots, and returns the dataset's name.
func writeRowsThroughPipeline(t *testing.T, f *File, arrays []*Array, rows int) string {
	t.Helper()
	ds, err := pipelineRows(t, f, arrays, rows)
	if err != nil {
		t.Fatal(err)
	}
	return ds.name
}

// pipelineRows defines arrays' dataset, as wide as they are many, and writes their first
// rows row by row through HDF5's pipeline, then their hash slots.
func pipelineRows(t *testing.T, f *File, arrays []*Array, rows int) (*Packed, error) {
	t.Helper()
	serial.Lock()
	defer serial.Unlock()
	a := arrays[0]
	ds, err := f.definePacked(a.family(), a.Shape[1:], len(arrays))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.endDefine(); err != nil {
		t.Fatal(err)
	}
	eb := ds.elementBytes()
	band := make([]byte, len(arrays)*eb)
	start, count := ds.columnHyperslab(0)
	count[0], count[1] = 1, uint64(len(arrays))
	for r := 0; r < rows; r++ {
		for c, p := range arrays {
			copy(band[c*eb:(c+1)*eb], p.Data[r*eb:(r+1)*eb])
		}
		start[0] = uint64(r)
		if err := f.writeSlice(ds.varid, ds.fam.dtype, band, start, count); err != nil {
			t.Fatal(err)
		}
	}
	slots := make([]hashing.Digest, len(arrays))
	for c, p := range arrays {
		slots[c] = f.reserveSlot(ds, c, p.Digest).ds.slots[c]
	}
	return ds, f.putSlots(ds, 0, slots)
}

// storedChunks reads every row chunk of ds as stored, with its filter mask.
func storedChunks(t *testing.T, f *File, ds *Packed) (chunks [][]byte, masks []uint32) {
	t.Helper()
	serial.Lock()
	defer serial.Unlock()
	set := f.h5.sets[ds.varid]
	offset := make([]uint64, 2+len(ds.eshape))
	for r := 0; r < ds.fam.length; r++ {
		offset[0] = uint64(r)
		n, err := set.StoredChunkSize(offset)
		if err != nil || n == 0 {
			t.Fatalf("row %d of %s: %d bytes stored, %v", r, ds.name, n, err)
		}
		buf := make([]byte, n)
		mask, err := set.ReadChunk(offset, buf)
		if err != nil {
			t.Fatal(err)
		}
		chunks, masks = append(chunks, buf), append(masks, mask)
	}
	return chunks, masks
}

// chunkCase is a family of arrays a chunk test writes: n arrays of len rows of eshape
// elements, of values that compress (smooth) or not.
type chunkCase struct {
	dt     DType
	n, len int
	eshape []int
	smooth bool
}

func (c chunkCase) String() string {
	return fmt.Sprintf("%s %d×%d %v smooth=%v", c.dt, c.n, c.len, c.eshape, c.smooth)
}

// eachCase runs fn on each case's arrays with 1 worker thread and with 3; name says which.
func eachCase(t *testing.T, cases []chunkCase, fn func(name string, c chunkCase, arrays []*Array)) {
	t.Helper()
	for _, threads := range []int{1, 3} {
		func() {
			defer chunkpipe.SetThreads(chunkpipe.SetThreads(threads))
			for _, c := range cases {
				fn(fmt.Sprintf("%v threads=%d", c, threads), c, batchArrays(c.dt, c.n, c.len, c.eshape, c.smooth))
			}
		}()
	}
}

// sameStoredChunks fails the test unless every row chunk of ds in f is stored as the one of
// refDS in ref, bytes and filter mask.
func sameStoredChunks(t *testing.T, name string, f *File, ds *Packed, ref *File, refDS *Packed) {
	t.Helper()
	got, gotMasks := storedChunks(t, f, ds)
	want, wantMasks := storedChunks(t, ref, refDS)
	for r := range want {
		if !bytes.Equal(got[r], want[r]) || gotMasks[r] != wantMasks[r] {
			t.Fatalf("%s: row %d stored as %d bytes (mask %d), HDF5's pipeline stores %d (mask %d)",
				name, r, len(got[r]), gotMasks[r], len(want[r]), wantMasks[r])
		}
	}
}

// readsBackAsWritten fails the test unless each array of arrays still indexed in f reads
// back whole as written (skip: arrays no longer stored).
func readsBackAsWritten(t *testing.T, name string, f *File, arrays []*Array, skip map[int]bool) {
	t.Helper()
	for i, p := range arrays {
		s, ok := f.Column(p.Digest)
		if skip[i] {
			if ok {
				t.Fatalf("%s: freed column %d still indexed", name, i)
			}
			continue
		}
		back, err := f.ReadColumn(s, 0, p.Shape[0], nil)
		if err != nil || !bytes.Equal(back, p.Data) {
			t.Fatalf("%s: column %d reads back wrong (%v)", name, i, err)
		}
	}
}

// A batch's dataset written as whole chunks by chunkpipe holds the bytes HDF5's own shuffle
// and deflate store for the same rows, chunk for chunk, and reads back through HDF5's
// pipeline as written, whatever the thread count: every dtype, element shapes, data that
// compresses and data that does not, narrow and wide rows, chunks of one column.
func TestDirectChunksAreTheBytesHDF5Stores(t *testing.T) {
	cases := []chunkCase{
		{F64, 40, 30, nil, true}, {F64, 40, 30, nil, false}, {F32, 7, 12, []int{3}, true},
		{I64, 3, 24, nil, false}, {I32, 5, 9, []int{2, 2}, false}, {U64, 2, 5, nil, true},
		{Bool, 9, 10, nil, false}, {F64, 1, 16, nil, false},
		{F64, 700, 6, nil, true}, {F64, 700, 6, nil, false}, {F32, 1100, 4, []int{3}, true},
		{Bool, 5000, 3, nil, false}, {I64, 600, 5, nil, true},
	}
	eachCase(t, cases, func(name string, c chunkCase, arrays []*Array) {
		direct := newH5WrittenFile(t)
		if _, err := direct.WriteArrays(arrays); err != nil {
			t.Fatal(err)
		}
		if got := direct.Counters().DirectChunks; got != int64(c.len) {
			t.Fatalf("%s: %d chunks written directly, want all %d rows", name, got, c.len)
		}
		slot, _ := direct.Column(arrays[0].Digest)
		ref := newH5WrittenFile(t)
		refDS := writeThroughPipeline(t, ref, arrays)
		sameStoredChunks(t, name, direct, slot.Dataset(), ref, refDS)
		readsBackAsWritten(t, name, direct, arrays, nil)
	})
}

// Rows of at least 4,096 elements whose low bytes are noise are coded plane by plane
// (docs/format.md §7.9): their chunks are not the bytes HDF5's filter stores, but HDF5's own
// pipeline (zlib's inflate) reads every column back as written, and they take no more room
// than HDF5's (within 1%). Random bytes make every plane noise (Huffman codes throughout);
// smooth float series switch from Huffman codes to string matching within each stream.
func TestWideNoisyRowsAreCodedByPlaneAndReadByHDF5(t *testing.T) {
	eachCase(t, []chunkCase{{F64, 5000, 4, nil, false}, {F32, 4200, 3, []int{2}, false}},
		func(name string, c chunkCase, arrays []*Array) { codedByPlane(t, name, arrays) })
	for _, threads := range []int{1, 3} {
		func() {
			defer chunkpipe.SetThreads(chunkpipe.SetThreads(threads))
			codedByPlane(t, fmt.Sprintf("smooth f64 5000×6 threads=%d", threads), smoothFloats(5000, 6))
		}()
	}
}

// smoothFloats are n arrays of length float64 values 50 + 30·sin((t+i)/24): a row's five
// low mantissa planes are noise, its exponent planes repeat.
func smoothFloats(n, length int) []*Array {
	out := batchArrays(F64, n, length, nil, false)
	for i, a := range out {
		for t := 0; t < length; t++ {
			binary.LittleEndian.PutUint64(a.Data[8*t:], math.Float64bits(50+30*math.Sin(float64(t+i)/24)))
		}
	}
	return out
}

// codedByPlane writes arrays as one batch and fails the test unless every row chunk differs
// from the one HDF5's pipeline stores for the same rows, the total stored is within 1% of
// HDF5's, and HDF5 reads every column back as written.
func codedByPlane(t *testing.T, name string, arrays []*Array) {
	t.Helper()
	direct := newH5WrittenFile(t)
	if _, err := direct.WriteArrays(arrays); err != nil {
		t.Fatal(err)
	}
	slot, _ := direct.Column(arrays[0].Digest)
	ref := newH5WrittenFile(t)
	refDS := writeThroughPipeline(t, ref, arrays)
	got, _ := storedChunks(t, direct, slot.Dataset())
	want, _ := storedChunks(t, ref, refDS)
	var gotBytes, wantBytes int
	for r := range want {
		if bytes.Equal(got[r], want[r]) {
			t.Fatalf("%s: row %d is HDF5's bytes; its noise planes were not coded apart", name, r)
		}
		gotBytes, wantBytes = gotBytes+len(got[r]), wantBytes+len(want[r])
	}
	if float64(gotBytes) > 1.01*float64(wantBytes) {
		t.Fatalf("%s: %d bytes stored, HDF5 stores %d", name, gotBytes, wantBytes)
	}
	readsBackAsWritten(t, name, direct, arrays, nil)
}

// A store made without compression has no filter pipeline: its batch datasets are written as
// whole chunks too, and read back as written.
func TestUncompressedStoreWritesChunksDirectly(t *testing.T) {
	f, err := Create(t.TempDir()+"/plain.nc", Compression{}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	arrays := batchArrays(F64, 6, 20, nil, false)
	if _, err := f.WriteArrays(arrays); err != nil {
		t.Fatal(err)
	}
	if got := f.Counters().DirectChunks; got != 20 {
		t.Errorf("%d chunks written directly, want 20", got)
	}
	for _, p := range arrays {
		s, _ := f.Column(p.Digest)
		back, err := f.ReadColumn(s, 0, 20, nil)
		if err != nil || !bytes.Equal(back, p.Data) {
			t.Fatalf("a column reads back wrong (%v)", err)
		}
	}
}

// Reads of a read-only file decode whole chunks on chunkpipe's workers and give what HDF5's
// own reads give: any span of columns and rows, for one thread and many, with rows kept
// decoded for later reads and without; a row never written reads as netCDF's fill value
// through HDF5.
func TestDirectReadsMatchHDF5Reads(t *testing.T) {
	path := t.TempDir() + "/r.nc"
	f, err := Create(path, DefaultCompression, false)
	if err != nil {
		t.Fatal(err)
	}
	arrays := batchArrays(F64, 30, 50, nil, false)
	if _, err := f.WriteArrays(arrays); err != nil {
		t.Fatal(err)
	}
	sparse := batchArrays(I32, 4, 6, nil, true)
	for _, a := range sparse {
		a.Resolution = "PT2H"
	}
	partial := writeRowsThroughPipeline(t, f, sparse, 1) // rows 1… never written
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		for _, threads := range []int{1, 4} {
			prev := chunkpipe.SetThreads(threads)
			ro, err := Open(path, true)
			if err != nil {
				t.Fatal(err)
			}
			slot, _ := ro.Column(arrays[0].Digest)
			ds := slot.Dataset()
			ds.tooLarge = !keep // as a dataset past packedCacheCap: no row kept decoded
			for k, span := range [][3]int{{0, 30, 0}, {3, 9, 17}, {29, 30, 49}} {
				var reads []*ColumnRead
				for c := span[0]; c < span[1]; c++ {
					reads = append(reads, &ColumnRead{Col: c, First: span[2], N: 50 - span[2]})
				}
				before := ro.Counters().DirectReads
				if err := ro.ReadColumns(ds, reads); err != nil {
					t.Fatal(err)
				}
				want := int64(50 - span[2])
				if keep && k > 0 {
					want = 0 // every row was kept decoded by the first read
				}
				if got := ro.Counters().DirectReads - before; got != want {
					t.Errorf("keep %v threads %d span %v: %d rows read as stored, want %d", keep, threads, span, got, want)
				}
				for _, r := range reads {
					if want := arrays[r.Col].Data[r.First*8:]; !bytes.Equal(r.Data, want) {
						t.Fatalf("keep %v threads %d: column %d rows %d… differ from what was written", keep, threads, r.Col, r.First)
					}
				}
			}
			ro.Close()
			chunkpipe.SetThreads(prev)
		}
	}
	ro, err := Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	pslot, _ := ro.Column(sparse[0].Digest)
	if pslot.Dataset() == nil || pslot.Dataset().name != partial {
		t.Fatalf("the partly written dataset %s is not indexed", partial)
	}
	read := &ColumnRead{Col: 2, First: 0, N: 6}
	if err := ro.ReadColumns(pslot.Dataset(), []*ColumnRead{read}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read.Data[:4], sparse[2].Data[:4]) {
		t.Errorf("row 0: %v, want %v", read.Data[:4], sparse[2].Data[:4])
	}
	for r := 1; r < 6; r++ {
		if v := int32(binary.LittleEndian.Uint32(read.Data[r*4:])); v != -2147483647 {
			t.Errorf("row %d never written reads %d, not netCDF's int fill", r, v)
		}
	}
}

// Rows read in order from a read-only file come from the read-ahead ring, decoded on
// workers, and hold what was written; so do rows read out of order, again, or after a jump,
// with one thread (no read-ahead) and with several.
func TestReadRowsAheadGivesTheRowsWritten(t *testing.T) {
	path := t.TempDir() + "/ahead.nc"
	f, err := Create(path, DefaultCompression, false)
	if err != nil {
		t.Fatal(err)
	}
	arrays := batchArrays(F64, 600, 40, nil, true)
	if _, err := f.WriteArrays(arrays); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	order := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 20, 21, 22, 5, 6, 6, 39, 38, 0, 1, 2}
	for _, threads := range []int{1, 2, 5} {
		prev := chunkpipe.SetThreads(threads)
		ro, err := Open(path, true)
		if err != nil {
			t.Fatal(err)
		}
		slot, _ := ro.Column(arrays[0].Digest)
		slot.Dataset().tooLarge = threads == 5 // five workers read ahead without kept rows
		set := &RowSet{DS: slot.Dataset(), Col0: 100, Cols: 250}
		set.Prepare()
		for _, i := range order {
			if err := ro.ReadRows([]*RowSet{set}, i); err != nil {
				t.Fatal(err)
			}
			for c := set.Col0; c < set.Col0+set.Cols; c++ {
				want := arrays[c].Data[i*8 : (i+1)*8]
				if got := set.Buf[(c-set.Col0)*8 : (c-set.Col0+1)*8]; !bytes.Equal(got, want) {
					t.Fatalf("threads %d: row %d column %d reads %v, want %v", threads, i, c, got, want)
				}
			}
		}
		if direct := ro.Counters().DirectReads; (threads > 1) != (direct > 0) {
			t.Errorf("threads %d: %d rows read as stored chunks", threads, direct)
		}
		ro.Close()
		chunkpipe.SetThreads(prev)
	}
}

// A sweep holds eight rows ahead per worker, fewer when their slots would pass 6 MiB (three
// times a row each), and never fewer than two per worker and the one being copied.
func TestReadAheadDepthIsBoundedByBytes(t *testing.T) {
	defer chunkpipe.SetThreads(chunkpipe.SetThreads(2))
	for _, c := range []struct{ rowBytes, want int }{{8, 17}, {80_000, 17}, {200_000, 10}, {400_000, 5}, {1 << 20, 5}} {
		if got := readAheadDepth(c.rowBytes); got != c.want {
			t.Errorf("rows of %d bytes: %d read ahead, want %d", c.rowBytes, got, c.want)
		}
	}
}

// Standalone arrays that are their variable's one chunk are shuffled and deflated on the
// workers and written whole: HDF5 reads each back as written and Go's zlib inflates the
// stored chunk to the shuffled array. An array of several chunks, or of more than 4 MiB,
// still goes through HDF5's pipeline. With 1 worker and 3. Two variables were defined by an
// earlier unit that never wrote their data (a crash's leftovers, filled now); with one
// dataset kept open, the first is closed by the time it is written, and opened again.
func TestStandaloneArraysAreWrittenAsOneEncodedChunk(t *testing.T) {
	defer SetMaxOpenStandaloneForTesting(SetMaxOpenStandaloneForTesting(1))
	for _, threads := range []int{1, 3} {
		func() {
			defer chunkpipe.SetThreads(chunkpipe.SetThreads(threads))
			f := newH5WrittenFile(t)
			var arrays []*Array
			for i, shape := range [][]int{{24, 30}, {24, 30}, {48, 7}, {5000}, {24, 3, 30}, {24, 30}, {700, 800}} {
				a := batchArrays(F64, 1, ElementCount(shape), nil, i%2 == 0)[0]
				a.Digest[5], a.Packed, a.Shape, a.Batch = byte(i), false, shape, 0
				arrays = append(arrays, a)
			}
			arrays[5].Chunks = []uint64{24, 10} // three blocks of windows: HDF5's
			for _, i := range []int{1, 3} {
				if err := f.DefineOnlyForTesting(arrays[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Sync(); err != nil { // closes the datasets the unit defined
				t.Fatal(err)
			}
			if _, err := f.WriteArrays(arrays); err != nil {
				t.Fatal(err)
			}
			if got := f.Counters().DirectChunks; got != 5 {
				t.Fatalf("threads=%d: %d arrays written as one encoded chunk, want 5", threads, got)
			}
			for i, a := range arrays {
				sv, ok := f.Variable(a.Digest)
				if !ok {
					t.Fatalf("threads=%d: array %d not indexed", threads, i)
				}
				back, err := f.ReadVariable(sv, nil)
				if err != nil || !bytes.Equal(back, a.Data) {
					t.Fatalf("threads=%d: array %d reads back wrong (%v)", threads, i, err)
				}
				if i == 5 || i == 6 {
					continue
				}
				if stored := storedStandaloneChunk(t, f, sv); !bytes.Equal(zlibInflated(t, stored), shuffled8(a.Data)) {
					t.Fatalf("threads=%d: array %d's chunk does not inflate to its shuffled bytes", threads, i)
				}
			}
		}()
	}
}

// storedStandaloneChunk is the one chunk of sv as stored.
func storedStandaloneChunk(t *testing.T, f *File, sv *Variable) []byte {
	t.Helper()
	serial.Lock()
	defer serial.Unlock()
	id, err := f.openStandaloneLocked(sv)
	if err != nil {
		t.Fatal(err)
	}
	offset := make([]uint64, len(sv.shape))
	n, err := f.h5.sets[id].StoredChunkSize(offset)
	if err != nil || n == 0 {
		t.Fatalf("%s: %d bytes stored, %v", sv.name, n, err)
	}
	buf := make([]byte, n)
	if _, err := f.h5.sets[id].ReadChunk(offset, buf); err != nil {
		t.Fatal(err)
	}
	return buf
}

// zlibInflated is a zlib stream inflated by Go's own reader.
func zlibInflated(t *testing.T, stream []byte) []byte {
	t.Helper()
	zr, err := zlib.NewReader(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// shuffled8 is HDF5's shuffle of whole 8-byte elements: byte j of element i at j·n + i.
func shuffled8(data []byte) []byte {
	n := len(data) / 8
	out := make([]byte, len(data))
	for i := 0; i < n; i++ {
		for j := 0; j < 8; j++ {
			out[j*n+i] = data[i*8+j]
		}
	}
	return out
}

// ReadSpans of a read-only file reads each span that is exactly one chunk as stored and
// decodes it on the workers, and gives the bytes HDF5's own read gives: blocks of windows
// along the window axis of 2-D and 3-D arrays, f64 and i32, with 1 worker and 3. The last,
// partial block of an array, and every span of a writable file, go through HDF5.
func TestReadSpansDecodeChunksAsHDF5Does(t *testing.T) {
	path := t.TempDir() + "/spans.nc"
	f, err := Create(path, DefaultCompression, false)
	if err != nil {
		t.Fatal(err)
	}
	type spec struct {
		dtype  DType
		shape  []int
		chunks []uint64
		axis   int
	}
	specs := []spec{
		{F64, []int{24, 30}, nil, 1},                   // one chunk: the whole array
		{F64, []int{24, 30}, []uint64{24, 10}, 1},      // three blocks
		{I32, []int{48, 25}, []uint64{48, 10}, 1},      // two blocks and a partial third
		{F64, []int{3, 24, 20}, []uint64{3, 24, 5}, 2}, // layers before the window axis
		{F64, []int{24, 30}, []uint64{12, 10}, 1},      // chunks split the steps: HDF5's
	}
	var arrays []*Array
	for i, sp := range specs {
		a := batchArrays(sp.dtype, 1, ElementCount(sp.shape), nil, i%2 == 0)[0]
		a.Digest[6], a.Packed, a.Shape, a.Chunks, a.Batch = byte(i), false, sp.shape, sp.chunks, 0
		arrays = append(arrays, a)
	}
	if _, err := f.WriteArrays(arrays); err != nil {
		t.Fatal(err)
	}
	spansOf := func(f *File) ([]SpanRead, [][]byte) {
		var reads []SpanRead
		var want [][]byte
		for i, sp := range specs {
			sv, ok := f.Variable(arrays[i].Digest)
			if !ok {
				t.Fatalf("array %d not indexed", i)
			}
			block := sp.shape[sp.axis]
			if sp.chunks != nil {
				block = int(sp.chunks[sp.axis])
			}
			for first := 0; first < sp.shape[sp.axis]; first += block {
				n := min(block, sp.shape[sp.axis]-first)
				w, err := f.ReadSpan(sv, sp.axis, first, n, nil)
				if err != nil {
					t.Fatal(err)
				}
				reads, want = append(reads, SpanRead{Var: sv, Axis: sp.axis, First: first, N: n}), append(want, w)
			}
		}
		return reads, want
	}
	check := func(f *File, label string, wantDirect int64) {
		t.Helper()
		reads, want := spansOf(f)
		before := f.Counters().DirectReads
		if err := f.ReadSpans(reads); err != nil {
			t.Fatal(err)
		}
		for k, r := range reads {
			if !bytes.Equal(r.Out, want[k]) {
				t.Fatalf("%s: span %d (%s from %d) differs from HDF5's read", label, k, r.Var.name, r.First)
			}
		}
		if got := f.Counters().DirectReads - before; got != wantDirect {
			t.Errorf("%s: %d spans read as stored chunks, want %d", label, got, wantDirect)
		}
	}
	check(f, "writable", 0)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 3} {
		func() {
			defer chunkpipe.SetThreads(chunkpipe.SetThreads(threads))
			ro, err := Open(path, true)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			check(ro, fmt.Sprintf("read-only, %d threads", threads), 1+3+2+4)
		}()
	}
}

// A reader of more forecasts than may stay open reads each later block with one open a
// forecast: how a forecast's chunks are encoded is asked of its dataset only in the first
// pass over the spans (Variable.pipe), whose asking and reading open it twice, the bound
// closing it between; later passes open it only to read.
func TestReadSpansOpenEachDatasetOncePastTheBound(t *testing.T) {
	defer func(n int) { maxOpenStandalone = n }(maxOpenStandalone)
	maxOpenStandalone = 2
	path := t.TempDir() + "/bound.nc"
	f, err := Create(path, DefaultCompression, false)
	if err != nil {
		t.Fatal(err)
	}
	var arrays []*Array
	for i := range 6 {
		a := batchArrays(F64, 1, 24*5, nil, true)[0]
		a.Digest[6], a.Packed, a.Shape, a.Batch = byte(i), false, []int{24, 5}, 0
		arrays = append(arrays, a)
	}
	if _, err := f.WriteArrays(arrays); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	reads := make([]SpanRead, len(arrays))
	for i, a := range arrays {
		sv, ok := ro.Variable(a.Digest)
		if !ok {
			t.Fatalf("array %d not found", i)
		}
		reads[i] = SpanRead{Var: sv, Axis: 1, First: 0, N: 5}
	}
	for pass := range 3 {
		before := ro.Counters()
		if err := ro.ReadSpans(reads); err != nil {
			t.Fatal(err)
		}
		after := ro.Counters()
		if got := after.DirectReads - before.DirectReads; got != 6 {
			t.Fatalf("pass %d: %d spans read as stored chunks, want 6", pass, got)
		}
		want := int64(6)
		if pass == 0 {
			want = 12 // the first pass asks each dataset its encoding, and the bound closes it
		}
		if got := after.StandaloneOpens - before.StandaloneOpens; got != want {
			t.Errorf("pass %d: %d dataset opens for 6 forecasts, want %d", pass, got, want)
		}
	}
}
