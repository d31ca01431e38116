package core

import (
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncshim"
)

// CompactReport is what Compact found and did (docs/format.md §8). In format 0.11.0
// netcdf-c cannot resize a dimension or delete a variable, so free packed columns and dead
// standalone variables are reported, not removed; the one thing compaction deletes is
// unreachable feature sets.
type CompactReport struct {
	SlotsReclaimed       int // free packed columns, reusable by the next compatible add
	DatasetsDropped      int // always 0 in this format version
	FeatureSetsReclaimed int // feature_sets rows deleted: sets no series references any more
	DeadStandalone       int // standalone variables no series references (dead space)
}

// Compact commits pending writes, deletes the feature sets no series references and reports
// reclaimable space. It is refused inside a transaction.
func (s *Store) Compact() (CompactReport, error) {
	const op = "compact"
	if err := s.lock(op, true); err != nil {
		return CompactReport{}, err
	}
	defer s.mu.Unlock()
	if s.unit.user > 0 {
		return CompactReport{}, invalid(op, "transaction", "compaction runs outside transactions")
	}
	var rep CompactReport
	err := s.mutateLocked(func() error {
		n, err := s.cat.DeleteUnreachableFeatureSets()
		rep.FeatureSetsReclaimed = int(n)
		s.unit.changes += int(n)
		return wrapIO("", err, "deleting unreachable feature sets")
	})
	if err == nil {
		err = s.commitUnit()
	}
	if err != nil {
		return CompactReport{}, withOp(op, err)
	}
	hashes, err := s.cat.DistinctHashes()
	if err != nil {
		return CompactReport{}, wrapIO(op, err, "listing referenced arrays")
	}
	named := map[hashing.Digest]bool{}
	for _, h := range hashes {
		named[hashing.Digest(h)] = true
	}
	for _, list := range s.nc.families {
		for _, ds := range list {
			rep.SlotsReclaimed += ds.nfree
		}
	}
	for d := range s.nc.standalone {
		if !named[d] {
			rep.DeadStandalone++
		}
	}
	rep.DeadStandalone += len(s.nc.untrusted)
	return rep, nil
}

// IntegrityReport lists what VerifyIntegrity found wrong; an empty report means every array
// rehashes to its name and every row resolves to an array of its dtype and shape.
type IntegrityReport struct {
	ArraysChecked   int
	HashMismatches  []string // arrays whose bytes no longer hash to their recorded hash
	Unreadable      []string // arrays netcdf-c / HDF5 could not read (e.g. a damaged compressed chunk)
	DanglingRows    []string // rows whose data_hash names no array
	ShapeMismatches []string // rows whose dtype or shape disagree with their array
}

// OK reports whether nothing was found.
func (r IntegrityReport) OK() bool {
	return len(r.HashMismatches) == 0 && len(r.Unreadable) == 0 && len(r.DanglingRows) == 0 && len(r.ShapeMismatches) == 0
}

// VerifyIntegrity rehashes every stored array — packed columns in row bands, one pass per
// dataset, and every standalone variable — and checks every catalog row against the array
// it names. Pending writes are written out first (outside a transaction they are
// committed). Problems go in the report; the error is for failures to read.
func (s *Store) VerifyIntegrity() (IntegrityReport, error) {
	const op = "verify_integrity"
	if err := s.lock(op, false); err != nil {
		return IntegrityReport{}, err
	}
	defer s.mu.Unlock()
	if !s.readOnly {
		var err error
		if s.unit.user > 0 {
			err = s.writePending()
		} else {
			err = s.flushLocked()
		}
		if err != nil {
			return IntegrityReport{}, withOp(op, err)
		}
	}
	var rep IntegrityReport
	rep.HashMismatches, rep.Unreadable, rep.ArraysChecked = s.nc.rehashAll()
	rows, err := s.cat.List(catalog.Filter{})
	if err != nil {
		return rep, wrapIO(op, err, "listing the catalog")
	}
	for i := range rows {
		r := &rows[i]
		m, err := s.metadataOf(r, Features{})
		if err != nil {
			rep.ShapeMismatches = append(rep.ShapeMismatches, err.Error())
			continue
		}
		if msg, dangling := s.checkRowArray(m); msg != "" {
			line := fmt.Sprintf("catalog row %d (%s): %s", r.ID, m.Key, msg)
			if dangling {
				rep.DanglingRows = append(rep.DanglingRows, line)
			} else {
				rep.ShapeMismatches = append(rep.ShapeMismatches, line)
			}
		}
	}
	return rep, nil
}

// checkRowArray compares a row with the array it names.
func (s *Store) checkRowArray(m *Metadata) (msg string, dangling bool) {
	d := hashing.Digest(m.DataHash)
	full := append([]int{m.Length}, m.ElementShape...)
	// The row's type says where its array lives: a SingleTimeSeries (and a view over one)
	// in a packed column, everything else in a standalone variable (docs/format.md §7.2).
	packed := m.Type == SingleTimeSeriesType || m.Type == DeterministicSingleTimeSeriesType
	if slot, ok := s.nc.packed[d]; ok && packed {
		ds := slot.ds
		if ds.fam.dtype != m.DType || ds.fam.length != m.Length || !slices.Equal(ds.eshape, m.ElementShape) {
			return fmt.Sprintf("row says %s %v but %s column %d is %s %v", m.DType, full, ds.name, slot.col,
				ds.fam.dtype, append([]int{ds.fam.length}, ds.eshape...)), false
		}
		return "", false
	}
	if sv, ok := s.nc.standalone[d]; ok && !packed {
		if sv.dtype != m.DType || !slices.Equal(fromU64(sv.shape), full) {
			return fmt.Sprintf("row says %s %v but %s is %s %v", m.DType, full, sv.name, sv.dtype, sv.shape), false
		}
		return "", false
	}
	where := "standalone variable"
	if packed {
		where = "packed column"
	}
	return fmt.Sprintf("data_hash %x names no %s in the NetCDF file", m.DataHash[:], where), true
}

// rehashAll recomputes the hash of every indexed array and lists those that differ and
// those that cannot be read; a read failure is reported and the check goes on.
func (f *ncFile) rehashAll() (bad, unreadable []string, checked int) {
	ncshim.Lock()
	defer ncshim.Unlock()
	for _, list := range f.families {
		for _, ds := range list {
			if ds.damaged != nil {
				unreadable = append(unreadable, fmt.Sprintf("%s_h (its index was rebuilt from the columns' bytes; the dataset takes no more writes): %v", ds.name, ds.damaged))
			}
			cols := usedColumns(ds)
			b, err := f.rehashColumns(ds, cols)
			if err != nil {
				// Find the damaged columns one by one; the others still get checked.
				b = nil
				for _, c := range cols {
					bc, err := f.rehashColumns(ds, []int{c})
					if err != nil {
						unreadable = append(unreadable, fmt.Sprintf("%s column %d: %v", ds.name, c, err))
					}
					b = append(b, bc...)
				}
			}
			bad, checked = append(bad, b...), checked+len(cols)
		}
	}
	for d, sv := range f.standalone {
		checked++
		buf := alignedBytes(elementCount(fromU64(sv.shape)) * sv.dtype.Width())
		if err := ioSlice(f.grp, sv.varid, sv.dtype, buf, make([]uint64, len(sv.shape)), sv.shape, false); err != nil {
			unreadable = append(unreadable, fmt.Sprintf("%s: %v", sv.name, err))
			continue
		}
		if got := hashing.Array(sv.dtype.String(), sv.shape, buf, dtypeInfo[sv.dtype].float); got != d {
			bad = append(bad, fmt.Sprintf("%s holds bytes hashing to %x", sv.name, got[:]))
		}
	}
	return bad, unreadable, checked
}

func usedColumns(ds *packedDS) []int {
	var cols []int
	for c, h := range ds.slots {
		if h != "" {
			cols = append(cols, c)
		}
	}
	return cols
}

// rehashColumns rehashes some used columns of one packed dataset and reports those whose
// bytes no longer hash to their slot.
func (f *ncFile) rehashColumns(ds *packedDS, cols []int) ([]string, error) {
	sums, err := f.columnDigests(ds, cols)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, c := range cols {
		got := sums[c]
		if hex.EncodeToString(got[:]) != ds.slots[c] {
			bad = append(bad, fmt.Sprintf("%s column %d holds bytes hashing to %x, not its slot's %s", ds.name, c, got[:], ds.slots[c]))
		}
	}
	return bad, nil
}

// columnDigests hashes columns of one packed dataset in row bands over their span: each
// column is hashed incrementally as its rows arrive.
func (f *ncFile) columnDigests(ds *packedDS, cols []int) (map[int]hashing.Digest, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	lo, hi := cols[0], cols[len(cols)-1]+1
	span := hi - lo
	eb := elementCount(ds.eshape) * ds.fam.dtype.Width()
	shape := toU64(append([]int{ds.fam.length}, ds.eshape...))
	hashers := make(map[int]*hashing.ArrayHasher, len(cols))
	for _, c := range cols {
		hashers[c] = hashing.NewArrayHasher(ds.fam.dtype.String(), shape, dtypeInfo[ds.fam.dtype].float)
	}
	rows := max(1, bandBytes/max(span*eb, 1))
	buf := alignedBytes(min(rows, ds.fam.length) * span * eb)
	for r0 := 0; r0 < ds.fam.length; r0 += rows {
		r1 := min(r0+rows, ds.fam.length)
		band := buf[:(r1-r0)*span*eb]
		start, count := f.columnHyperslab(ds, lo)
		start[0], count[0], count[1] = uint64(r0), uint64(r1-r0), uint64(span)
		if err := ioSlice(f.grp, ds.varid, ds.fam.dtype, band, start, count, false); err != nil {
			return nil, err
		}
		for _, c := range cols {
			for t := 0; t < r1-r0; t++ {
				off := (t*span + c - lo) * eb
				hashers[c].Write(band[off : off+eb])
			}
		}
	}
	out := make(map[int]hashing.Digest, len(cols))
	for _, c := range cols {
		out[c] = hashers[c].Sum()
	}
	return out, nil
}

// StaticConsistency says whether every SingleTimeSeries at one resolution shares one grid.
type StaticConsistency struct {
	Resolution Period
	Consistent bool
	Grids      []StaticGrid // one when consistent
}

// CheckStaticConsistency reports, per resolution, whether every SingleTimeSeries shares one
// grid (initial timestamp and length), as a StaticReader over all of them needs.
func (s *Store) CheckStaticConsistency() ([]StaticConsistency, error) {
	grids, err := s.StaticSummary(KeyFilter{})
	if err != nil {
		return nil, withOp("check_static_consistency", err)
	}
	var out []StaticConsistency
	for _, g := range grids {
		if n := len(out); n > 0 && out[n-1].Resolution == g.Resolution {
			out[n-1].Grids = append(out[n-1].Grids, g)
			out[n-1].Consistent = false
			continue
		}
		out = append(out, StaticConsistency{Resolution: g.Resolution, Consistent: true, Grids: []StaticGrid{g}})
	}
	return out, nil
}
