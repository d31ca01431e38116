package core

import (
	"slices"
	"sort"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncshim"
)

// arrKey names an array in one storage mode. Packed arrays deduplicate against packed
// columns and standalone arrays against standalone variables: a forecast is always read from
// its standalone variable's window axis, a SingleTimeSeries from its column.
type arrKey struct {
	d      hashing.Digest
	packed bool
}

func (p *prepared) arrKey() arrKey { return arrKey{p.digest, p.packed} }

// bandBytes bounds the row band of a packed dataset moved per netcdf call when writing,
// zero-filling or copying.
const bandBytes = 64 << 20

// writeArrays writes pending arrays into the file: every new dataset and variable is
// defined in one define phase (leaving define mode makes netcdf-c write and flush HDF5
// metadata at a cost that grows with the file), then packed columns are written in row
// bands that cover whole chunks of each dataset, each chunk once, and standalone arrays one
// call each. It returns the arrays it wrote (with their hash slots), also on failure, so a
// rollback can free them.
func (f *ncFile) writeArrays(ps []*prepared) ([]arrKey, error) {
	ncshim.Lock()
	defer ncshim.Unlock()
	var written []arrKey
	var cols []packedWrite
	type single struct {
		p  *prepared
		sv *standaloneVar
	}
	var singles []single
	families := map[familyKey][]*prepared{}
	var order []familyKey
	for _, p := range ps {
		if f.holds(p) {
			continue
		}
		if !p.packed {
			singles = append(singles, single{p: p})
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
		ws, err := f.placeColumns(fam, families[fam])
		cols = append(cols, ws...)
		if err != nil {
			return written, f.abandon(cols, err)
		}
	}
	for i := range singles {
		s := &singles[i]
		if sv, ok := f.untrusted[s.p.digest]; ok {
			// Left unreferenced by an earlier session (possibly half-written): rewrite it
			// in place rather than define a second variable of the same name.
			if sv.dtype != s.p.arr.DType || !slices.Equal(fromU64(sv.shape), s.p.arr.Shape) {
				return written, f.abandon(cols, newErr(ErrIntegrity, "", "data_hash",
					"%s holds %s %v, not the %s %v its name's hash describes", sv.name, sv.dtype, sv.shape, s.p.arr.DType, s.p.arr.Shape))
			}
			s.sv = sv
			continue
		}
		if sv, err := f.existingStandalone(s.p.digest); err != nil || sv != nil {
			// Defined by an earlier call whose writing failed before the data: fill it.
			if err == nil && (sv.dtype != s.p.arr.DType || !slices.Equal(fromU64(sv.shape), s.p.arr.Shape)) {
				err = newErr(ErrIntegrity, "", "data_hash", "%s holds %s %v, not the %s %v its name's hash describes",
					sv.name, sv.dtype, sv.shape, s.p.arr.DType, s.p.arr.Shape)
			}
			if err != nil {
				return written, f.abandon(cols, err)
			}
			s.sv = sv
			continue
		}
		sv, err := f.defineStandalone(s.p.arr.DType, toU64(s.p.arr.Shape), s.p.digest, s.p.chunks)
		if err != nil {
			return written, f.abandon(cols, err)
		}
		s.sv = sv
	}
	if err := f.endDefine(); err != nil {
		return written, f.abandon(cols, err)
	}
	for _, run := range columnRuns(cols) {
		if err := f.fillColumns(run); err != nil {
			return written, f.abandon(cols, err)
		}
		for _, w := range run {
			written = append(written, arrKey{w.d, true})
		}
	}
	for _, s := range singles {
		if err := f.fillStandalone(s.sv, s.p.arr.Data, s.p.digest); err != nil {
			return written, f.abandon(cols, err)
		}
		delete(f.untrusted, s.p.digest)
		written = append(written, arrKey{s.p.digest, false})
	}
	return written, nil
}

// existingStandalone finds a variable named for d that the index does not hold — one whose
// data a failed write never filled — or returns nil.
func (f *ncFile) existingStandalone(d hashing.Digest) (*standaloneVar, error) {
	varid, err := ncshim.VarID(f.grp, standaloneName(d))
	if err != nil {
		return nil, nil // no such variable: the usual case
	}
	lens, typ, err := ncshim.VarDimLens(f.grp, varid)
	if err != nil {
		return nil, err
	}
	dt, ok := dtypeForNC(typ)
	if !ok {
		return nil, newErr(ErrIntegrity, "", standaloneName(d), "netcdf type %v is not one of the six dtypes", typ)
	}
	return &standaloneVar{name: standaloneName(d), varid: varid, dtype: dt, shape: lens}, nil
}

func (p *prepared) family() familyKey {
	eshape := p.arr.ElementShape()
	return familyKey{p.arr.DType, shapeToken(eshape), p.arr.Len(), p.res.String()}
}

// abandon returns the columns reserved but not written, and leaves define mode.
func (f *ncFile) abandon(cols []packedWrite, err error) error {
	for _, w := range cols {
		if f.packed[w.d] != w.slot {
			f.unreserveColumn(w.slot)
		}
	}
	f.endDefine()
	return err
}

func (f *ncFile) holds(p *prepared) bool {
	if p.packed {
		_, ok := f.packed[p.digest]
		return ok
	}
	_, ok := f.standalone[p.digest]
	return ok
}

// placeColumns reserves a column for each array of one family. Free columns of the family's
// datasets come first, in dataset name order (docs/format.md §7.4, §13.1). The rest go into new
// datasets: each batch's arrays into datasets as wide as what remains of that batch (capped
// by the chunk budget, spilling into __1, __2, …), one-at-a-time adds into datasets of the
// default width, whose free columns later adds fill.
func (f *ncFile) placeColumns(fam familyKey, ps []*prepared) ([]packedWrite, error) {
	var out []packedWrite
	rest := ps
	for _, ds := range f.families[fam] {
		for col := 0; col < ds.cols && ds.nfree > 0 && len(rest) > 0; col++ {
			if ds.slots[col] == "" {
				out = append(out, packedWrite{f.reserveSlot(ds, col, rest[0].digest), rest[0].arr, rest[0].digest})
				rest = rest[1:]
			}
		}
	}
	var order []int64
	groups := map[int64][]*prepared{}
	for _, p := range rest {
		if groups[p.batchID] == nil {
			order = append(order, p.batchID)
		}
		groups[p.batchID] = append(groups[p.batchID], p)
	}
	for _, id := range order {
		group := groups[id]
		for len(group) > 0 {
			eshape := group[0].arr.ElementShape()
			requested := DefaultColsPerDataset
			if id != 0 {
				requested = len(group)
			}
			ds, err := f.definePacked(fam, eshape, packedWidth(requested, eshape, fam.dtype))
			if err != nil {
				return out, err
			}
			for col := 0; col < ds.cols && len(group) > 0; col++ {
				out = append(out, packedWrite{f.reserveSlot(ds, col, group[0].digest), group[0].arr, group[0].digest})
				group = group[1:]
			}
		}
	}
	return out, nil
}

// packedWrite is one array bound for a reserved packed column.
type packedWrite struct {
	slot packedSlot
	arr  TypedArray
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

// fillColumns writes a run of adjacent reserved columns in row bands — every chunk a band
// touches is written once — then their hash slots: data first, so a half-written run stays
// invisible to a reopen.
func (f *ncFile) fillColumns(run []packedWrite) error {
	ds, col0, n := run[0].slot.ds, run[0].slot.col, len(run)
	eb := elementCount(ds.eshape) * ds.fam.dtype.Width()
	rows := max(1, bandBytes/max(n*eb, 1))
	buf := alignedBytes(min(rows, ds.fam.length) * n * eb)
	for r0 := 0; r0 < ds.fam.length; r0 += rows {
		r1 := min(r0+rows, ds.fam.length)
		band := buf[:(r1-r0)*n*eb]
		for c, w := range run {
			src := aligned(w.arr.Data, ds.fam.dtype.Width())
			for t := r0; t < r1; t++ {
				copy(band[((t-r0)*n+c)*eb:((t-r0)*n+c+1)*eb], src[t*eb:(t+1)*eb])
			}
		}
		start, count := f.columnHyperslab(ds, col0)
		start[0], count[0], count[1] = uint64(r0), uint64(r1-r0), uint64(n)
		if err := f.writeSlice(ds.varid, ds.fam.dtype, band, start, count); err != nil {
			return err
		}
	}
	if err := f.putSlots(ds, col0, ds.slots[col0:col0+n]); err != nil {
		return err
	}
	for _, w := range run {
		f.packed[w.d] = w.slot
	}
	return nil
}

// writeSlice and putSlots are the two netcdf write calls of the packed paths; ncWrites
// counts them (tests check a bulk path issues O(datasets), not O(series)).
func (f *ncFile) writeSlice(varid int, dt DType, buf []byte, start, count []uint64) error {
	f.ncWrites++
	f.colCache.reset() // its blocks may hold the bytes this write replaces
	return ioSlice(f.grp, varid, dt, buf, start, count, true)
}

func (f *ncFile) putSlots(ds *packedDS, col0 int, slots []string) error {
	f.ncWrites++
	return ncshim.PutStrings(f.grp, ds.hvarid, uint64(col0), slots)
}

// freeArrays frees packed columns whose last row is gone: per dataset, one read-modify-write
// pass in row bands over the span of freed columns zero-fills them (docs/format.md §8: no
// stale values are readable through a reused slot), then their hash slots are emptied.
// Standalone variables cannot be deleted from a netCDF file; they stay indexed, their content
// still matching their name.
func (f *ncFile) freeArrays(ds []hashing.Digest) error {
	return f.releaseColumns(ds, true)
}

// forgetArrays frees packed columns by emptying their hash slots only, leaving their bytes
// in place until a later add overwrites the whole column. It is for columns no row names
// on open: after a crash they are half-written arrays, but after a damaged catalog they may
// be the only copy of the data, which VerifyIntegrity and a repair can still find.
func (f *ncFile) forgetArrays(ds []hashing.Digest) error {
	return f.releaseColumns(ds, false)
}

func (f *ncFile) releaseColumns(ds []hashing.Digest, zero bool) error {
	ncshim.Lock()
	defer ncshim.Unlock()
	byDS := map[*packedDS][]int{}
	var order []*packedDS
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

func (f *ncFile) zeroColumns(ds *packedDS, cols []int, zero bool) error {
	slices.Sort(cols)
	// The index forgets the columns before any byte changes: should a write fail half way,
	// nothing deduplicates onto a half-zeroed column, and the hash slots still set on disk
	// name arrays no row references, which the next writable open frees.
	for _, c := range cols {
		d, _ := parseHexDigest(ds.slots[c])
		f.frees++
		delete(f.packed, d)
		if ds.damaged != nil {
			continue // sealed: the column keeps its bytes and stays unavailable for writes
		}
		ds.slots[c] = ""
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
	eb := elementCount(ds.eshape) * ds.fam.dtype.Width()
	rows := max(1, bandBytes/max(n*eb, 1))
	buf := alignedBytes(min(rows, ds.fam.length) * n * eb)
	for r0 := 0; r0 < ds.fam.length; r0 += rows {
		r1 := min(r0+rows, ds.fam.length)
		band := buf[:(r1-r0)*n*eb]
		start, count := f.columnHyperslab(ds, lo)
		start[0], count[0], count[1] = uint64(r0), uint64(r1-r0), uint64(n)
		if n != len(cols) {
			// Columns between the freed ones keep their values: read the band first.
			if err := ioSlice(f.grp, ds.varid, ds.fam.dtype, band, start, count, false); err != nil {
				return err
			}
			for t := 0; t < r1-r0; t++ {
				for _, c := range cols {
					clear(band[(t*n+c-lo)*eb : (t*n+c-lo+1)*eb])
				}
			}
		} else {
			clear(band)
		}
		if err := f.writeSlice(ds.varid, ds.fam.dtype, band, start, count); err != nil {
			return err
		}
	}
	return f.emptySlots(ds, cols)
}

// emptySlots writes empty hash slots for sorted columns, one write per run of adjacent ones.
func (f *ncFile) emptySlots(ds *packedDS, cols []int) error {
	for i := 0; i < len(cols); {
		j := i + 1
		for j < len(cols) && cols[j] == cols[j-1]+1 {
			j++
		}
		if err := f.putSlots(ds, cols[i], make([]string, j-i)); err != nil {
			return err
		}
		i = j
	}
	return nil
}
