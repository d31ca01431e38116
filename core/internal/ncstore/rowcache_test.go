package ncstore

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/hashing"
)

// decodeAheadFile writes arrays (one dataset) to a new file, each under its content address
// (the digest a gathered column is checked against), and returns its path.
func decodeAheadFile(t *testing.T, arrays []*Array) string {
	t.Helper()
	for _, a := range arrays {
		a.Digest = hashing.Array(a.DType.String(), ToU64(a.Shape), a.Data, FloatKind(a.DType))
	}
	path := t.TempDir() + "/ahead.nc"
	f, err := Create(path, DefaultCompression, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteArrays(arrays); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// wholeColumns is a ColumnRead of every row of each of cols columns.
func wholeColumns(cols, rows int) []*ColumnRead {
	reads := make([]*ColumnRead, cols)
	for c := range reads {
		reads[c] = &ColumnRead{Col: c, N: rows}
	}
	return reads
}

// A dataset decoded ahead reads each stored chunk once, on one or several goroutines, and
// gathers the columns wanted with their digest, as written; a column wanted with another
// array's digest is not taken. The whole read that follows finds every row decoded and reads
// no chunk, and gives the bytes written. Where nothing is decoded ahead (one worker, a
// writable file, a dataset too large to keep) DecodeAhead says so (a nil Ahead wants and
// holds nothing), and the read decodes the rows itself.
func TestDecodeAheadReadsEachChunkOnce(t *testing.T) {
	const cols, rows = 40, 33
	arrays := batchArrays(F64, cols, rows, nil, false)
	path := decodeAheadFile(t, arrays)
	for _, c := range []struct {
		threads  int
		readOnly bool
		tooLarge bool
		decodes  bool
	}{
		{threads: 2, readOnly: true, decodes: true},
		{threads: 4, readOnly: true, decodes: true},
		{threads: 1, readOnly: true},
		{threads: 2, readOnly: false},
		{threads: 2, readOnly: true, tooLarge: true},
	} {
		prev := chunkpipe.SetThreads(c.threads)
		f, err := Open(path, c.readOnly)
		if err != nil {
			t.Fatal(err)
		}
		slot, _ := f.Column(arrays[0].Digest)
		ds := slot.Dataset()
		ds.tooLarge = c.tooLarge
		a := f.DecodeAhead(ds, NewSlots())
		if (a != nil) != c.decodes {
			t.Errorf("%+v: DecodeAhead started %v", c, a != nil)
		}
		for col := 0; col < cols; col += 3 { // every third column, one of them twice
			a.Want(col, arrays[col].Digest)
		}
		a.Want(3, arrays[3].Digest)
		a.Want(1, arrays[2].Digest) // wanted with another array's digest: not taken
		a.Wait()
		a.Wait()
		for col := 0; col < cols; col++ {
			got := a.Column(col, arrays[col].Digest)
			if ready := c.decodes && col%3 == 0; (got != nil) != ready {
				t.Errorf("%+v: column %d ready %v", c, col, got != nil)
			} else if got != nil && !bytes.Equal(got, arrays[col].Data) {
				t.Errorf("%+v: column %d gathered differs from what was written", c, col)
			}
		}
		if got := a.Column(1, arrays[2].Digest); got != nil {
			t.Errorf("%+v: a column wanted with the wrong digest was taken", c)
		}
		if a != nil {
			if got := f.Counters(); got.DirectReads != rows || got.ReadAhead != rows {
				t.Errorf("%+v: %d chunks read, %d decoding ahead, want %d", c, got.DirectReads, got.ReadAhead, rows)
			}
		}
		before := f.Counters().DirectReads
		reads := wholeColumns(cols, rows)
		if err := f.ReadColumns(ds, reads); err != nil {
			t.Fatal(err)
		}
		if got := f.Counters().DirectReads - before; c.decodes && got != 0 {
			t.Errorf("%+v: the read after decoding ahead read %d chunks again", c, got)
		}
		for _, r := range reads {
			if !bytes.Equal(r.Data, arrays[r.Col].Data) {
				t.Fatalf("%+v: column %d differs from what was written", c, r.Col)
			}
		}
		f.Close()
		chunkpipe.SetThreads(prev)
	}
}

// A row chunk that does not inflate stops nothing: DecodeAhead keeps the rows it could
// decode, gathers no column, and reports nothing; the read that follows reads the bad row
// again and names it, as a read without decoding ahead does.
func TestDecodeAheadLeavesABadRowToTheRead(t *testing.T) {
	const cols, rows, bad = 16, 12, 5
	arrays := batchArrays(F64, cols, rows, nil, false)
	path := decodeAheadFile(t, arrays)
	w, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	slot, _ := w.Column(arrays[0].Digest)
	garbage := bytes.Repeat([]byte{0xde, 0xad}, 40) // not a zlib stream
	if err := w.h5.sets[slot.Dataset().varid].WriteChunk([]uint64{bad, 0}, 0, garbage); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{2, 3} {
		prev := chunkpipe.SetThreads(threads)
		f, err := Open(path, true)
		if err != nil {
			t.Fatal(err)
		}
		slot, _ := f.Column(arrays[0].Digest)
		ds := slot.Dataset()
		a := f.DecodeAhead(ds, NewSlots())
		if a == nil {
			t.Fatal("nothing decoded ahead")
		}
		for col := 0; col < cols; col++ {
			a.Want(col, arrays[col].Digest)
		}
		a.Wait()
		for col := 0; col < cols; col++ {
			if a.Column(col, arrays[col].Digest) != nil {
				t.Fatalf("threads %d: column %d was gathered over a bad row", threads, col)
			}
		}
		if row := decodedOf(ds).get(bad); row != nil {
			t.Errorf("threads %d: the bad row was kept decoded", threads)
		}
		err = f.ReadColumns(ds, wholeColumns(cols, rows))
		if err == nil || !strings.Contains(err.Error(), "row 5 of") {
			t.Errorf("threads %d: a read over the bad row says %v, want an error naming row 5", threads, err)
		}
		f.Close()
		chunkpipe.SetThreads(prev)
	}
}

// A panic on an Ahead's goroutine is raised again by Wait once every goroutine has ended, and
// a second Wait (a read's deferred one, after the panic went through its first) returns at
// once instead of waiting for a goroutine that is gone.
func TestAheadRaisesAPanicOnceAndWaitsNoMore(t *testing.T) {
	const cols, rows = 8, 6
	arrays := batchArrays(F64, cols, rows, nil, false)
	path := decodeAheadFile(t, arrays)
	for _, threads := range []int{2, 4} {
		prev := chunkpipe.SetThreads(threads)
		f, err := Open(path, true)
		if err != nil {
			t.Fatal(err)
		}
		slot, _ := f.Column(arrays[0].Digest)
		gatherHook = func() { panic("gather failed") }
		a := f.DecodeAhead(slot.Dataset(), NewSlots())
		a.Want(0, arrays[0].Digest)
		raised := func() (p any) {
			defer func() { p = recover() }()
			a.Wait()
			return nil
		}()
		gatherHook = nil
		if raised != "gather failed" {
			t.Errorf("threads %d: Wait raised %v", threads, raised)
		}
		a.Wait() // returns: nothing is left to wait for
		f.Close()
		chunkpipe.SetThreads(prev)
	}
}
