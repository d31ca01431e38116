package ncstore

import (
	"encoding/hex"
	"slices"
	"sort"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// ArrayKey names an array in one storage mode. Packed arrays deduplicate against packed
// columns and standalone arrays against standalone variables: a forecast is always read from
// its standalone variable's window axis, a SingleTimeSeries from its column.
type ArrayKey struct {
	Digest hashing.Digest
	Packed bool
}

// Array is one array bound for the file: its content address (docs/format.md §6), where it
// is stored, and what its dataset or variable is made of.
type Array struct {
	Digest     hashing.Digest
	Packed     bool // a packed column (SingleTimeSeries) or a standalone variable
	DType      DType
	Shape      []int // the whole shape; a packed array's is [length, *E]
	Data       []byte
	Resolution string   // a packed array's family resolution, as a canonical period
	Chunks     []uint64 // a standalone variable's chunking; nil is one whole-array chunk
	// Batch is the batch add the array came from (0: a one-at-a-time add); new packed
	// datasets are as wide as what remains of a batch (docs/format.md §7.3).
	Batch int64
	// BatchLeft, when a batch reaches WriteArrays in several calls (a compaction rewrite),
	// is how many arrays of this array's family the batch still holds from this one on, so
	// that datasets are as wide as for the whole batch in one call. 0: this call's arrays.
	BatchLeft int
}

// Key is the array's content address and storage mode.
func (a *Array) Key() ArrayKey { return ArrayKey{a.Digest, a.Packed} }

// bandBytes bounds the row band of a packed dataset moved per HDF5 call when reading,
// writing, zero-filling or rehashing.
const bandBytes = 64 << 20

// WriteArrays writes pending arrays into the file: every new dataset and variable is
// defined first, in one define phase, then packed columns are written in row
// bands that cover whole chunks of each dataset, each chunk once, and standalone arrays one
// call each. It returns the arrays it wrote (with their hash slots), also on failure, so a
// rollback can free them.
func (f *File) WriteArrays(ps []*Array) ([]ArrayKey, error) {
	serial.Lock()
	defer serial.Unlock()
	// Sized for the call up front: grown by appends, these and the file's index made a bulk
	// add of 100,000 allocate three times their final size, all of it in the flush's peak.
	written := make([]ArrayKey, 0, len(ps))
	cols := make([]packedWrite, 0, len(ps))
	f.packed = grownIndex(f.packed, len(ps))
	var singles []standaloneWrite
	families := map[familyKey][]*Array{}
	var order []familyKey
	for _, p := range ps {
		if f.holds(p) {
			continue
		}
		if !p.Packed {
			singles = append(singles, standaloneWrite{p: p})
			continue
		}
		fam := p.family()
		if families[fam] == nil {
			order = append(order, fam)
		}
		families[fam] = append(families[fam], p)
	}
	// Define phase: columns (and any new datasets) for every family, then variables.
	for _, fam := range order {
		var err error
		if cols, err = f.placeColumns(cols, fam, families[fam]); err != nil {
			return written, f.abandon(cols, err)
		}
	}
	for i := range singles {
		s := &singles[i]
		if sv, ok := f.untrusted[s.p.Digest]; ok {
			// Left unreferenced by an earlier session (possibly half-written): rewrite it
			// in place rather than define a second variable of the same name.
			if err := f.describeLocked(sv); err != nil {
				return written, f.abandon(cols, err)
			}
			if sv.dtype != s.p.DType || !slices.Equal(FromU64(sv.shape), s.p.Shape) {
				return written, f.abandon(cols, newErr(Integrity, "", "data_hash",
					"%s holds %s %v, not the %s %v its name's hash describes", sv.name, sv.dtype, sv.shape, s.p.DType, s.p.Shape))
			}
			s.sv = sv
			continue
		}
		if sv, err := f.existingStandalone(s.p.Digest); err != nil || sv != nil {
			// Defined by an earlier call whose writing failed before the data: fill it.
			if err == nil && (sv.dtype != s.p.DType || !slices.Equal(FromU64(sv.shape), s.p.Shape)) {
				err = newErr(Integrity, "", "data_hash", "%s holds %s %v, not the %s %v its name's hash describes",
					sv.name, sv.dtype, sv.shape, s.p.DType, s.p.Shape)
			}
			if err != nil {
				return written, f.abandon(cols, err)
			}
			s.sv = sv
			continue
		}
		sv, err := f.defineStandalone(s.p.DType, ToU64(s.p.Shape), s.p.Digest, s.p.Chunks)
		if err != nil {
			return written, f.abandon(cols, err)
		}
		s.sv = sv
	}
	if err := f.endDefine(); err != nil {
		return written, f.abandon(cols, err)
	}
	runs := columnRuns(cols)
	for i := 0; i < len(runs); {
		j := i + 1 // columnRuns puts the runs of one dataset next to each other
		for j < len(runs) && runs[j][0].slot.ds == runs[i][0].slot.ds {
			j++
		}
		if err := f.fillRuns(runs[i:j]); err != nil {
			return written, f.abandon(cols, err)
		}
		for _, run := range runs[i:j] {
			for _, w := range run {
				written = append(written, ArrayKey{w.d, true})
			}
		}
		i = j
	}
	if err := f.fillStandalones(singles, func(s standaloneWrite) {
		delete(f.untrusted, s.p.Digest)
		written = append(written, ArrayKey{s.p.Digest, false})
	}); err != nil {
		return written, f.abandon(cols, err)
	}
	return written, nil
}

// existingStandalone finds a variable named for d that the index does not hold — one whose
// data a failed write never filled — or returns nil.
func (f *File) existingStandalone(d hashing.Digest) (*Variable, error) {
	return f.existingStandaloneH5(VariableName(d))
}

func (p *Array) family() familyKey {
	return familyKey{p.DType, shapeToken(p.Shape[1:]), p.Shape[0], p.Resolution}
}

// abandon returns the columns reserved but not written, and leaves define mode.
func (f *File) abandon(cols []packedWrite, err error) error {
	for _, w := range cols {
		if f.packed[w.d] != w.slot {
			f.unreserveColumn(w.slot)
		}
	}
	f.endDefine()
	return err
}

func (f *File) holds(p *Array) bool { return f.Holds(p.Key()) }

// Holds says whether the file holds the array k names, in k's storage mode.
func (f *File) Holds(k ArrayKey) bool {
	f.indexed()
	if k.Packed {
		_, ok := f.packed[k.Digest]
		return ok
	}
	_, ok := f.standalone[k.Digest]
	return ok
}

// Column finds the packed column that holds the array with digest d.
func (f *File) Column(d hashing.Digest) (Slot, bool) {
	f.indexed()
	slot, ok := f.packed[d]
	return slot, ok
}

// Variable finds the standalone variable that holds the array with digest d.
// On a file read through HDF5 it reads the variable's type and shape the first time; a
// variable HDF5 cannot describe is reported as not held, as netcdf-c would have refused the
// whole file.
func (f *File) Variable(d hashing.Digest) (*Variable, bool) {
	sv, ok := f.standalone[d]
	if !ok && f.byName() {
		return f.probeStandalone(d)
	}
	if ok && !sv.described {
		serial.Lock()
		err := f.describeLocked(sv)
		serial.Unlock()
		if err != nil {
			return nil, false
		}
	}
	return sv, ok
}

// placeColumns reserves a column for each array of one family. Free columns of the family's
// datasets come first, in dataset name order (docs/format.md §7.4, §13.1). The rest go into new
// datasets: each batch's arrays into datasets as wide as what remains of that batch (capped
// by the chunk budget, spilling into __1, __2, …), one-at-a-time adds into datasets of the
// default width, whose free columns later adds fill. The reservations are appended to out,
// also those made before a failure.
func (f *File) placeColumns(out []packedWrite, fam familyKey, ps []*Array) ([]packedWrite, error) {
	rest := ps
	for _, ds := range f.families[fam] {
		for col := 0; col < ds.cols && ds.nfree > 0 && len(rest) > 0; col++ {
			if ds.slots[col] == freeSlot {
				out = append(out, packedWrite{f.reserveSlot(ds, col, rest[0].Digest), rest[0].Data, rest[0].Digest})
				rest = rest[1:]
			}
		}
	}
	var order []int64
	groups := map[int64][]*Array{}
	for _, p := range rest {
		if groups[p.Batch] == nil {
			order = append(order, p.Batch)
		}
		groups[p.Batch] = append(groups[p.Batch], p)
	}
	for _, id := range order {
		group := groups[id]
		for len(group) > 0 {
			eshape := group[0].Shape[1:]
			requested := DefaultColsPerDataset
			if id != 0 {
				requested = max(len(group), group[0].BatchLeft)
			}
			ds, err := f.definePacked(fam, eshape, packedWidth(requested, eshape, fam.dtype))
			if err != nil {
				return out, err
			}
			for col := 0; col < ds.cols && len(group) > 0; col++ {
				out = append(out, packedWrite{f.reserveSlot(ds, col, group[0].Digest), group[0].Data, group[0].Digest})
				group = group[1:]
			}
		}
	}
	return out, nil
}

// packedWrite is one array bound for a reserved packed column.
type packedWrite struct {
	slot Slot
	data []byte
	d    hashing.Digest
}

// columnRuns splits writes into runs of adjacent columns of one dataset, in column order.
func columnRuns(ws []packedWrite) [][]packedWrite {
	ws = slices.Clone(ws)
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
		for j < len(ws) && ws[j].slot.ds == ws[i].slot.ds && ws[j].slot.col == ws[j-1].slot.col+1 {
			j++
		}
		runs = append(runs, ws[i:j])
		i = j
	}
	return runs
}

// fillRuns writes runs of adjacent reserved columns of one dataset — every chunk is written
// once per band or patch — then their hash slots: data first, so a half-written run stays
// invisible to a reopen.
func (f *File) fillRuns(runs [][]packedWrite) error {
	if err := f.writeRuns(runs); err != nil {
		return err
	}
	for _, run := range runs {
		ds, col0, n := run[0].slot.ds, run[0].slot.col, len(run)
		if err := f.putSlots(ds, col0, ds.slots[col0:col0+n]); err != nil {
			return err
		}
		for _, w := range run {
			f.packed[w.d] = w.slot
		}
	}
	return nil
}

// writeRuns writes the bytes of one dataset's runs: whole chunks on chunkpipe's workers when
// a run fills every column of the dataset (direct.go), else, in a unit's last write, the
// dataset's row chunks patched once for every run (patch.go), else each run in row bands
// through HDF5's pipeline.
func (f *File) writeRuns(runs [][]packedWrite) error {
	ds := runs[0][0].slot.ds
	if p, ok := f.pipelineOf(ds); ok && len(runs) == 1 && len(runs[0]) == ds.cols {
		return f.writeRowChunks(ds, p, runs[0])
	}
	eb := ds.elementBytes()
	srcs := make([][][]byte, len(runs))
	for i, run := range runs {
		srcs[i] = runData(ds, run)
	}
	patched, err := f.patchRows(ds, func(row []byte, t int) {
		for i, run := range runs {
			col0 := run[0].slot.col
			for c, src := range srcs[i] {
				copy(row[(col0+c)*eb:(col0+c+1)*eb], src[t*eb:(t+1)*eb])
			}
		}
	})
	if patched || err != nil {
		return err
	}
	for i, run := range runs {
		b := bandSpan{from: 0, to: ds.fam.length, lo: run[0].slot.col, span: len(run), maxBytes: bandBytes}
		err := ds.walkBands(b, ds.bandBuffer(b), func(r0, r1 int, band []byte, start, count []uint64) error {
			gatherRows(band, srcs[i], r0, r1, eb)
			return f.writeSlice(ds.varid, ds.fam.dtype, band, start, count)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeSlice and putSlots are the two netcdf write calls of the packed paths; ncWrites
// counts them (tests check a bulk path issues O(datasets), not O(series)).
func (f *File) writeSlice(varid int, dt DType, buf []byte, start, count []uint64) error {
	f.ncWrites++
	f.colCache.reset() // its blocks may hold the bytes this write replaces
	return f.putSlice(varid, dt, buf, start, count)
}

func (f *File) putSlots(ds *Packed, col0 int, slots []hashing.Digest) error {
	f.ncWrites++
	if ds.unwritten && len(slots) < ds.cols { // no slot may stay a null string: the first write writes them all
		whole := slices.Clone(ds.slots)
		copy(whole[col0:], slots)
		col0, slots = 0, whole
	}
	if err := f.h5.sets[ds.hvarid].WriteStringBlock(uint64(col0), slotText(slots), hexLen); err != nil {
		return err
	}
	ds.unwritten = false
	return nil
}

// hexLen is the length of a hash slot's text: 64 lowercase hex characters (§7.4).
const hexLen = 2 * len(hashing.Digest{})

// slotText is the text of hash slots as one block of hexLen bytes a slot, a free slot's all
// NULs (the empty string).
func slotText(slots []hashing.Digest) []byte {
	block := make([]byte, len(slots)*hexLen)
	for i, d := range slots {
		if d != freeSlot {
			hex.Encode(block[i*hexLen:], d[:])
		}
	}
	return block
}

// Free frees packed columns whose last row is gone: per dataset, one read-modify-write
// pass in row bands over the span of freed columns zero-fills them (docs/format.md §8: no
// stale values are readable through a reused slot), then their hash slots are emptied.
// Standalone variables cannot be deleted from a netCDF file; they stay indexed, their content
// still matching their name.
func (f *File) Free(ds []hashing.Digest) error {
	return f.releaseColumns(ds, true)
}

// Forget frees packed columns by emptying their hash slots only, leaving their bytes
// in place until a later add overwrites the whole column. It is for columns no row names
// on open: after a crash they are half-written arrays, but after a damaged catalog they may
// be the only copy of the data, which VerifyIntegrity and a repair can still find.
func (f *File) Forget(ds []hashing.Digest) error {
	return f.releaseColumns(ds, false)
}

func (f *File) releaseColumns(ds []hashing.Digest, zero bool) error {
	serial.Lock()
	defer serial.Unlock()
	byDS := map[*Packed][]int{}
	var order []*Packed
	for _, d := range ds {
		slot, ok := f.packed[d]
		if !ok {
			continue
		}
		if byDS[slot.ds] == nil {
			order = append(order, slot.ds)
		}
		byDS[slot.ds] = append(byDS[slot.ds], slot.col)
	}
	for _, pds := range order {
		if err := f.zeroColumns(pds, byDS[pds], zero); err != nil {
			return err
		}
	}
	return nil
}

func (f *File) zeroColumns(ds *Packed, cols []int, zero bool) error {
	slices.Sort(cols)
	// The index forgets the columns before any byte changes: should a write fail half way,
	// nothing deduplicates onto a half-zeroed column, and the hash slots still set on disk
	// name arrays no row references, which the next writable open frees.
	for _, c := range cols {
		d := ds.slots[c]
		f.frees++
		delete(f.packed, d)
		if ds.damaged != nil {
			continue // sealed: the column keeps its bytes and stays unavailable for writes
		}
		ds.slots[c] = freeSlot
		ds.nfree++
	}
	if ds.damaged != nil {
		// A dataset whose hash companion is unreadable is never written again: its next
		// open rebuilds the index from the columns' bytes, which stay right by content.
		return nil
	}
	if !zero {
		return f.emptySlots(ds, cols)
	}
	lo, hi := cols[0], cols[len(cols)-1]+1
	n := hi - lo
	eb := ds.elementBytes()
	b := bandSpan{from: 0, to: ds.fam.length, lo: lo, span: n, maxBytes: bandBytes}
	err := ds.walkBands(b, ds.bandBuffer(b), func(r0, r1 int, band []byte, start, count []uint64) error {
		if n == len(cols) {
			clear(band)
			return f.writeSlice(ds.varid, ds.fam.dtype, band, start, count)
		}
		// Columns between the freed ones keep their values: read the band first.
		if err := f.readSlice(ds.varid, ds.fam.dtype, band, start, count); err != nil {
			return err
		}
		for t := 0; t < r1-r0; t++ {
			for _, c := range cols {
				clear(band[(t*n+c-lo)*eb : (t*n+c-lo+1)*eb])
			}
		}
		return f.writeSlice(ds.varid, ds.fam.dtype, band, start, count)
	})
	if err != nil {
		return err
	}
	return f.emptySlots(ds, cols)
}

// emptySlots writes empty hash slots for sorted columns, one write per run of adjacent ones.
func (f *File) emptySlots(ds *Packed, cols []int) error {
	for i := 0; i < len(cols); {
		j := i + 1
		for j < len(cols) && cols[j] == cols[j-1]+1 {
			j++
		}
		if err := f.putSlots(ds, cols[i], make([]hashing.Digest, j-i)); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// grownIndex is index with room for n more entries without growing: a copy into a map sized
// for them when n is large against it (one rehash rather than a doubling every few thousand
// entries), else index itself.
func grownIndex(index map[hashing.Digest]Slot, n int) map[hashing.Digest]Slot {
	if n < 1024 || n < len(index)/4 {
		return index
	}
	grown := make(map[hashing.Digest]Slot, len(index)+n)
	for k, v := range index {
		grown[k] = v
	}
	return grown
}
