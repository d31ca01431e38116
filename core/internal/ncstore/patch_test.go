package ncstore

import (
	"testing"

	"github.com/tsstore/tsstore/core/internal/hashing"
)

// oneAtATime writes arrays one call each as a unit's last write, as durable one-at-a-time
// adds do (Batch 0: a dataset of the default width), and frees the column of the array at
// free (written through HDF5: its zeros wait in HDF5's cache) right after writing it.
func oneAtATime(t *testing.T, f *File, arrays []*Array, free int) {
	t.Helper()
	for i, a := range arrays {
		a.Batch = 0
		if _, err := f.WriteArraysBeforeSync([]*Array{a}); err != nil {
			t.Fatal(err)
		}
		if i == free {
			if err := f.Free([]hashing.Digest{a.Digest}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Arrays added one at a time into a dataset with free columns, each as a unit's last write,
// patch every row chunk on chunkpipe's workers: the chunks stored are the bytes HDF5's own
// pipeline stores for the same writes, chunk for chunk, whatever the thread count, and every
// column reads back through HDF5 as written. The first array of a dataset is written through
// HDF5 (no chunk exists yet); its chunks, and the zeros of the column freed after the second
// array, wait in HDF5's cache when the next array patches them (taking the freed column).
// Writes that are not a unit's last go through HDF5, whose cache spares encoding each chunk
// once per write.
func TestPatchedChunksAreTheBytesHDF5Stores(t *testing.T) {
	cases := []chunkCase{
		{F64, 6, 30, nil, true}, {F64, 5, 24, nil, false}, {F32, 4, 12, []int{3}, true},
		{I64, 3, 40, nil, false}, {Bool, 4, 70, nil, false},
	}
	mid := newH5WrittenFile(t) // a write that is not a unit's last
	arrays := batchArrays(F64, 3, 30, nil, true)
	for _, a := range arrays {
		a.Batch = 0
		if _, err := mid.WriteArrays([]*Array{a}); err != nil {
			t.Fatal(err)
		}
	}
	if got := mid.Counters().DirectChunks; got != 0 {
		t.Fatalf("writes within a unit patched %d chunks; HDF5's cache should take them", got)
	}
	eachCase(t, cases, func(name string, c chunkCase, arrays []*Array) {
		patched := newH5WrittenFile(t)
		oneAtATime(t, patched, arrays, 1)
		// Every array after the first patched every row.
		if got, want := patched.Counters().DirectChunks, int64((c.n-1)*c.len); got != want {
			t.Fatalf("%s: %d chunks written directly, want %d", name, got, want)
		}
		ref := newH5WrittenFile(t)
		ref.PatchRowsForTesting(false)
		oneAtATime(t, ref, arrays, 1)
		if got := ref.Counters().DirectChunks; got != 0 {
			t.Fatalf("%s: the reference wrote %d chunks directly", name, got)
		}
		slot, _ := patched.Column(arrays[0].Digest)
		refSlot, _ := ref.Column(arrays[0].Digest)
		sameStoredChunks(t, name, patched, slot.Dataset(), ref, refSlot.Dataset())
		readsBackAsWritten(t, name, patched, arrays, map[int]bool{1: true})
		if got, _ := patched.Column(arrays[2].Digest); got.col != 1 {
			t.Fatalf("%s: the array after the freed one went to column %d, not the freed 1", name, got.col)
		}
	})
}

// A last write that fills columns of one dataset apart from each other (freed ones between
// kept ones) patches the dataset's row chunks once, not once per run of adjacent columns.
func TestOneLastWritePatchesADatasetOnce(t *testing.T) {
	f := newH5WrittenFile(t)
	arrays := batchArrays(F64, 8, 30, nil, true)
	first, later := arrays[:6], arrays[6:]
	oneAtATime(t, f, first, -1)
	if err := f.Free([]hashing.Digest{first[1].Digest, first[3].Digest}); err != nil {
		t.Fatal(err)
	}
	before := f.Counters().DirectChunks
	for _, a := range later {
		a.Batch = 0
	}
	if _, err := f.WriteArraysBeforeSync(later); err != nil {
		t.Fatal(err)
	}
	for i, col := range []int{1, 3} {
		if got, _ := f.Column(later[i].Digest); got.col != col {
			t.Fatalf("array %d went to column %d, not the freed %d", i, got.col, col)
		}
	}
	if got := f.Counters().DirectChunks - before; got != 30 {
		t.Errorf("two runs of one dataset patched %d chunks, want its 30 rows once", got)
	}
	readsBackAsWritten(t, "two runs", f, arrays, map[int]bool{1: true, 3: true})
}
