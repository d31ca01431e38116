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

// room is what a file may still grow by: the filesystem's space available to this user and
// what the process's file-size limit leaves it, with the file's size.
type room struct{ filesystem, limit, fileSize int64 }

// errNoRoom marks a refusal of the room check: nothing was written.
type errNoRoom struct{ need, free int64 }

func (e *errNoRoom) Error() string {
	return e.what() + "; nothing was written and the writes stay pending — make room and flush again"
}

func (e *errNoRoom) what() string {
	return fmt.Sprintf("not enough room to write the pending arrays: up to %.1f MiB needed, %.1f MiB free (filesystem or file-size limit)",
		float64(e.need)/(1<<20), float64(e.free)/(1<<20))
}

// undone is the message when the write buffer's overflow was refused inside a call: the call
// is rolled back, the unit's earlier writes stay pending.
func (e *errNoRoom) undone() string {
	return e.what() + "; nothing was written, this call was undone and the writes before it stay pending"
}

// lost is the message when Close met no room: the unit cannot stay pending past Close.
func (e *errNoRoom) lost() string {
	return e.what() + "; nothing was written, and the writes since the last commit are lost with the close"
}

// journalBound is the most the rollback journal can take beside the file while ps are
// written: the old bytes of every committed page the unit rewrites (the existing datasets
// that receive columns, as writeBound counts them, and HDF5's metadata), and never more than
// the file itself, whose committed pages are each journalled at most once.
func (f *ncFile) journalBound(ps []*prepared, fileSize int64) int64 {
	if f.journal == nil {
		return 0
	}
	return min(f.rewriteBound(ps)+roomSlack, fileSize)
}

// rewriteBound is the part of writeBound that rewrites existing datasets.
func (f *ncFile) rewriteBound(ps []*prepared) int64 {
	columns := map[familyKey]int{}
	for _, p := range ps {
		if p.packed {
			columns[p.family()]++
		}
	}
	rewrite, _ := f.fillExisting(columns)
	return rewrite
}

// fillExisting places columns (new columns per family) into the free columns of existing
// datasets, in dataset name order as placeColumns does: it returns the bytes of the datasets
// so reached, each rewritten whole (filling a free column rewrites every chunk of it, and a
// rewritten compressed chunk moves), and the columns per family left for new datasets.
func (f *ncFile) fillExisting(columns map[familyKey]int) (rewrite int64, spill map[familyKey]int) {
	spill = map[familyKey]int{}
	for fam, n := range columns {
		for _, ds := range f.families[fam] {
			if n <= 0 {
				break
			}
			if ds.nfree > 0 {
				rewrite += int64(ds.chunkBytes()) * int64(max(ds.fam.length, 1))
				n -= ds.nfree
			}
		}
		spill[fam] = max(n, 0)
	}
	return rewrite, spill
}

// writeBound is the most writing ps can add to the file: their bytes uncompressed, every
// existing dataset that may receive a column written again whole (fillExisting), and every
// new dataset whole at its full width (a one-at-a-time add creates one 1,000 columns wide,
// and writing one column writes every (1, 1000) chunk).
func (f *ncFile) writeBound(ps []*prepared) int64 {
	need := int64(roomSlack)
	type group struct {
		fam   familyKey
		batch int64
	}
	columns := map[familyKey]int{}
	groups := map[group]int{}
	shapes := map[familyKey][]int{}
	for _, p := range ps {
		need += int64(len(p.arr.Data))
		if !p.packed {
			need += 64 << 10 // a standalone variable's headers and dimensions
			continue
		}
		fam := p.family()
		columns[fam]++
		groups[group{fam, p.batchID}]++
		shapes[fam] = p.arr.ElementShape()
	}
	// Only the datasets the family's new columns reach are rewritten; what does not fit
	// spills into new ones.
	rewrite, spill := f.fillExisting(columns)
	need += rewrite
	for g, n := range groups {
		n = min(n, spill[g.fam])
		spill[g.fam] -= n
		if n == 0 {
			continue
		}
		requested := DefaultColsPerDataset
		if g.batch != 0 {
			requested = n
		}
		width := packedWidth(requested, shapes[g.fam], g.fam.dtype)
		datasets := (n + width - 1) / width
		eb := int64(elementCount(shapes[g.fam]) * g.fam.dtype.Width())
		need += int64(datasets) * int64(width) * eb * int64(max(g.fam.length, 1))
	}
	return need
}

// checkRoom refuses a write of ps when the file cannot grow by writeBound(ps).
func (s *Store) checkRoom(ps []*prepared) error {
	if s.inMemory || len(ps) == 0 {
		return nil
	}
	r, ok := roomFor(s.path)
	if !ok {
		return nil
	}
	need := s.nc.writeBound(ps)
	journal := s.nc.journalBound(ps, r.fileSize)
	// The file grows under both limits; the journal, beside it, takes filesystem space too.
	free := min(r.limit, r.filesystem-journal)
	if need > free {
		return &Error{Kind: ErrIO, Field: "disk", Msg: (&errNoRoom{need, free}).Error(), Err: &errNoRoom{need, free}}
	}
	return nil
}
