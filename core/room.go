package core

import "fmt"

// A write that runs out of room half way can leave HDF5's metadata for the datasets it
// touched half flushed — and those datasets hold committed columns too (the file-size-limit
// test measured every committed series of a shared dataset lost). So before a unit writes
// anything, it checks that the most it could need fits in what the filesystem (and the
// process's file-size limit) allows, and refuses otherwise with nothing written and the unit
// kept, so a Flush after making room succeeds. Quotas and other processes' writes are not
// visible here; the check narrows the failure, it cannot rule it out.

// roomSlack covers what HDF5 writes besides the arrays: object headers, B-tree nodes, heaps.
const roomSlack = 4 << 20

// errNoRoom marks a refusal of the room check: nothing was written.
type errNoRoom struct{ need, free int64 }

func (e *errNoRoom) Error() string {
	return fmt.Sprintf("not enough room to write the pending arrays: up to %.1f MiB needed, %.1f MiB free (filesystem or file-size limit); nothing was written and the writes stay pending — make room and flush again",
		float64(e.need)/(1<<20), float64(e.free)/(1<<20))
}

// writeBound is the most writing ps can add to the file: their bytes uncompressed, and for
// every dataset that may receive a column, the whole dataset again (filling a free column
// rewrites every chunk of it, and a rewritten compressed chunk moves).
func (f *ncFile) writeBound(ps []*prepared) int64 {
	need := int64(roomSlack)
	columns := map[familyKey]int{}
	for _, p := range ps {
		need += int64(len(p.arr.Data)) + 64<<10*boolInt(!p.packed)
		if p.packed {
			columns[p.family()]++
		}
	}
	// Free columns are filled in dataset name order (placeColumns): only the datasets the
	// family's new columns reach are rewritten.
	for fam, n := range columns {
		for _, ds := range f.families[fam] {
			if n <= 0 {
				break
			}
			if ds.nfree > 0 {
				need += int64(ds.chunkBytes()) * int64(max(ds.fam.length, 1))
				n -= ds.nfree
			}
		}
	}
	return need
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// checkRoom refuses a write of ps when the file cannot grow by writeBound(ps).
func (s *Store) checkRoom(ps []*prepared) error {
	if s.inMemory || len(ps) == 0 {
		return nil
	}
	free, ok := roomFor(s.path)
	if !ok {
		return nil
	}
	if need := s.nc.writeBound(ps); need > free {
		return &Error{Kind: ErrIO, Field: "disk", Msg: (&errNoRoom{need, free}).Error(), Err: &errNoRoom{need, free}}
	}
	return nil
}
