package core

import (
	"fmt"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
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
	// BytesBefore and BytesAfter are the sizes of the pair before and after a rewrite
	// (CompactOptions.Rewrite); both 0 without one.
	BytesBefore, BytesAfter int64
}

// Compact commits pending writes, deletes the feature sets no series references and reports
// reclaimable space. With opts.Rewrite it then writes the live series into a new pair and
// replaces the old pair with it (rewrite.go), after which the report's free columns and dead
// variables are what the old pair held. It is refused inside a transaction.
func (s *Store) Compact(opts *CompactOptions) (CompactReport, error) {
	const op = "compact"
	if err := s.lock(op, true); err != nil {
		return CompactReport{}, err
	}
	defer s.mu.Unlock()
	if s.unit.user > 0 {
		return CompactReport{}, invalid(op, ArgNone, "compaction runs outside transactions")
	}
	rewrite := opts != nil && opts.Rewrite
	if rewrite {
		if err := s.checkRewritable(op); err != nil {
			return CompactReport{}, err
		}
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
	rep.SlotsReclaimed += s.nc.FreeColumns()
	rep.DeadStandalone += s.nc.DeadVariables(named)
	if rewrite {
		if err := s.rewriteLocked(op, &rep); err != nil {
			return CompactReport{}, err
		}
	}
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
	rep.HashMismatches, rep.Unreadable, rep.ArraysChecked = s.nc.Rehash()
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
	packed := storedPacked(m.Type)
	if slot, ok := s.nc.Column(d); ok && packed {
		ds := slot.Dataset()
		if !ds.Holds(m.DType, m.Length, m.ElementShape) {
			return fmt.Sprintf("row says %s %v but %s column %d is %s %v", m.DType, full, ds.Name(), slot.Column(),
				ds.DType(), append([]int{ds.Length()}, ds.ElementShape()...)), false
		}
		return "", false
	}
	if sv, ok := s.nc.Variable(d); ok && !packed {
		if !sv.Holds(m.DType, full) {
			return fmt.Sprintf("row says %s %v but %s is %s %v", m.DType, full, sv.Name(), sv.DType(), sv.Shape()), false
		}
		return "", false
	}
	where := "standalone variable"
	if packed {
		where = "packed column"
	}
	return fmt.Sprintf("data_hash %x names no %s in the NetCDF file", m.DataHash[:], where), true
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
