package core

import (
	"sort"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncshim"
)

// staged records what stageArrays put in the file for one call, so that a failed catalog
// write can take it back (format-details §8: a failed catalog write removes the arrays
// staged by that call).
type staged struct {
	packed     []hashing.Digest // columns written; freed on undo
	standalone []hashing.Digest // variables written; they stay in the file (see undo)
}

// stageArrays stores the arrays of a validated call that the file does not hold yet.
// Every new variable and dataset is defined in one define phase, then all are written:
// leaving define mode makes netcdf-c write and flush HDF5 metadata at a cost that grows
// with the file, so a call pays it once, not once per array.
//
// Packed arrays deduplicate against packed columns and standalone arrays against
// standalone variables: a forecast is always read from its standalone variable's window
// axis, a SingleTimeSeries from its column.
func (f *ncFile) stageArrays(ps []*prepared) (*staged, error) {
	ncshim.Lock()
	defer ncshim.Unlock()
	type pending struct {
		p    *prepared
		slot packedSlot
		sv   *standaloneVar
	}
	var todo []pending
	seen := map[hashing.Digest]bool{}
	for _, p := range ps {
		if seen[p.digest] || f.holds(p) {
			continue
		}
		seen[p.digest] = true
		todo = append(todo, pending{p: p})
	}
	st := &staged{}
	// undo returns reserved columns and leaves define mode; defined standalone variables
	// that were never written are not indexed, so this process cannot deduplicate onto them.
	undo := func(upto int, err error) (*staged, error) {
		for _, t := range todo[:upto] {
			if t.slot.ds != nil && f.packed[t.p.digest] != t.slot {
				f.unreserveColumn(t.slot)
			}
		}
		f.endDefine()
		f.undoLocked(st)
		return nil, err
	}
	for i := range todo {
		t := &todo[i]
		var err error
		if t.p.packed {
			t.slot, err = f.reserveColumn(t.p.arr, t.p.res, t.p.digest)
		} else {
			t.sv, err = f.defineStandalone(t.p.arr.DType, toU64(t.p.arr.Shape), t.p.digest, t.p.chunks)
		}
		if err != nil {
			return undo(i+1, err)
		}
	}
	if err := f.endDefine(); err != nil {
		return undo(len(todo), err)
	}
	// Columns reserved side by side in one dataset are written as one hyperslab, so each
	// row chunk they share is compressed and written once rather than once per column.
	var cols []packedWrite
	for _, t := range todo {
		if t.p.packed {
			cols = append(cols, packedWrite{t.slot, t.p.arr, t.p.digest})
			continue
		}
		if err := f.fillStandalone(t.sv, t.p.arr.Data, t.p.digest); err != nil {
			return undo(len(todo), err)
		}
		st.standalone = append(st.standalone, t.p.digest)
	}
	for _, run := range columnRuns(cols) {
		if err := f.fillColumns(run); err != nil {
			return undo(len(todo), err)
		}
		for _, w := range run {
			st.packed = append(st.packed, w.d)
		}
	}
	return st, nil
}

// packedWrite is one array bound for a reserved packed column.
type packedWrite struct {
	slot packedSlot
	arr  TypedArray
	d    hashing.Digest
}

// maxRunBytes bounds the interleaving buffer of one multi-column write.
const maxRunBytes = 256 << 20

// columnRuns splits writes into runs of adjacent columns of one dataset, in column order.
func columnRuns(ws []packedWrite) [][]packedWrite {
	sort.SliceStable(ws, func(i, j int) bool {
		a, b := ws[i].slot, ws[j].slot
		if a.ds != b.ds {
			return a.ds.name < b.ds.name
		}
		return a.col < b.col
	})
	var runs [][]packedWrite
	for i := 0; i < len(ws); {
		j := i + 1
		colBytes := len(ws[i].arr.Data)
		for j < len(ws) && ws[j].slot.ds == ws[i].slot.ds && ws[j].slot.col == ws[j-1].slot.col+1 &&
			(j-i+1)*colBytes <= maxRunBytes {
			j++
		}
		runs = append(runs, ws[i:j])
		i = j
	}
	return runs
}

// fillColumns writes a run of adjacent reserved columns as one hyperslab, then their hash
// slots: data first, so a half-written run stays invisible to a reopen.
func (f *ncFile) fillColumns(run []packedWrite) error {
	if len(run) == 1 {
		return f.fillColumn(run[0].slot, run[0].arr, run[0].d)
	}
	ds, col0, n := run[0].slot.ds, run[0].slot.col, len(run)
	eb := elementCount(ds.eshape) * ds.fam.dtype.Width()
	buf := alignedBytes(ds.fam.length * n * eb)
	for c, w := range run {
		for t := 0; t < ds.fam.length; t++ {
			copy(buf[(t*n+c)*eb:(t*n+c+1)*eb], w.arr.Data[t*eb:(t+1)*eb])
		}
	}
	start, count := f.columnHyperslab(ds, col0)
	count[1] = uint64(n)
	if err := ioSlice(f.grp.VarN(ds.varid), ds.fam.dtype, buf, start, count, true); err != nil {
		return err
	}
	if err := ncshim.PutStrings(f.grp, ds.hvarid, uint64(col0), ds.slots[col0:col0+n]); err != nil {
		return err
	}
	for _, w := range run {
		f.packed[w.d] = w.slot
	}
	return nil
}

func (f *ncFile) holds(p *prepared) bool {
	if p.packed {
		_, ok := f.packed[p.digest]
		return ok
	}
	_, ok := f.standalone[p.digest]
	return ok
}

// undo takes back what a stageArrays call wrote. Packed columns are zero-filled and their
// slots emptied. A standalone variable cannot be deleted from a netCDF file; it stays
// indexed, since its content matches its name and a retry of the same add must reuse it
// rather than collide with the name.
func (f *ncFile) undo(st *staged) error {
	ncshim.Lock()
	defer ncshim.Unlock()
	return f.undoLocked(st)
}

func (f *ncFile) undoLocked(st *staged) error {
	var first error
	for _, d := range st.packed {
		if err := f.freePackedLocked(d); err != nil && first == nil {
			first = err
		}
	}
	return first
}
