package core

import (
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
	for _, t := range todo {
		var err error
		if t.p.packed {
			if err = f.fillColumn(t.slot, t.p.arr, t.p.digest); err == nil {
				st.packed = append(st.packed, t.p.digest)
			}
		} else if err = f.fillStandalone(t.sv, t.p.arr.Data, t.p.digest); err == nil {
			st.standalone = append(st.standalone, t.p.digest)
		}
		if err != nil {
			return undo(len(todo), err)
		}
	}
	return st, nil
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
