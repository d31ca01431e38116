package ncstore

// Room checks. A write that runs out of room half way can leave HDF5's metadata for the
// datasets it touched half flushed — and those datasets hold committed columns too. So before
// a unit writes anything, the store asks Room whether the most writing its arrays could need
// fits in what the filesystem (and the process's file-size limit) allows. The bounds here
// know the layout: which datasets a write reaches, how wide new ones are, what the journal
// may take beside the file.

// Room reports what writing as may need and what the file may grow by: need is the most the
// file can grow by writing them, free what the filesystem and the file-size limit leave it,
// less what the journal beside it may take. ok is false where that cannot be told (an
// in-memory file, a system without statfs), and the write's own error stands.
func (f *File) Room(as []*Array) (need, free int64, ok bool) {
	if f.inMemory || len(as) == 0 {
		return 0, 0, false
	}
	r, ok := roomFor(f.path)
	if !ok {
		return 0, 0, false
	}
	need = f.writeBound(as)
	jb := f.journalBound(as, r.fileSize)
	// The file grows under both limits; the journal, beside it, takes filesystem space too.
	return need, min(r.limit, r.filesystem-jb), true
}

// roomSlack covers what HDF5 writes besides the arrays: object headers, B-tree nodes, heaps.
const roomSlack = 4 << 20

// room is what a file may still grow by: the filesystem's space available to this user and
// what the process's file-size limit leaves it, with the file's size.
type room struct{ filesystem, limit, fileSize int64 }

// journalBound is the most the rollback journal can take beside the file while ps are
// written: the old bytes of every committed page the unit rewrites (the existing datasets
// that receive columns, as writeBound counts them, and HDF5's metadata), and never more than
// the file itself, whose committed pages are each journalled at most once.
func (f *File) journalBound(ps []*Array, fileSize int64) int64 {
	if f.journal == nil {
		return 0
	}
	return min(f.rewriteBound(ps)+roomSlack, fileSize)
}

// rewriteBound is the part of writeBound that rewrites existing datasets.
func (f *File) rewriteBound(ps []*Array) int64 {
	columns := map[familyKey]int{}
	for _, p := range ps {
		if p.Packed {
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
func (f *File) fillExisting(columns map[familyKey]int) (rewrite int64, spill map[familyKey]int) {
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
func (f *File) writeBound(ps []*Array) int64 {
	need := int64(roomSlack)
	type group struct {
		fam   familyKey
		batch int64
	}
	columns := map[familyKey]int{}
	groups := map[group]int{}
	shapes := map[familyKey][]int{}
	for _, p := range ps {
		need += int64(len(p.Data))
		if !p.Packed {
			need += 64 << 10 // a standalone variable's headers and dimensions
			continue
		}
		fam := p.family()
		columns[fam]++
		groups[group{fam, p.Batch}]++
		shapes[fam] = p.Shape[1:]
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
		eb := int64(ElementCount(shapes[g.fam]) * g.fam.dtype.Width())
		need += int64(datasets) * int64(width) * eb * int64(max(g.fam.length, 1))
	}
	return need
}
