package core

import (
	"errors"
	"os"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/journal"
	"github.com/tsstore/tsstore/core/internal/lifecycle"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// CompactOptions configure Compact. A nil *CompactOptions means the defaults.
type CompactOptions struct {
	// Rewrite writes the live series into a new pair of files and replaces the old pair
	// with it, atomically: free packed columns and unreferenced variables take no space
	// afterwards. It needs room for the new pair beside the old one.
	Rewrite bool
}

// rewriteBatchBytes bounds the array bytes a rewrite holds in memory at once (a variable so
// that a test can make a small store arrive in many batches).
var rewriteBatchBytes = 64 << 20

// checkRewritable refuses a rewrite of a store that has no files (in memory), or whose files
// are symbolic links: renaming the new files into place would replace the links and leave
// the files they point to behind.
func (s *Store) checkRewritable(op string) error {
	if s.inMemory {
		return invalid(op, ArgNone, "an in-memory store has no files to rewrite; Persist writes it compactly")
	}
	for _, p := range []string{s.path, CatalogPath(s.path)} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return invalid(op, ArgNone, "%s is a symbolic link: a rewrite renames new files into place, which would replace the link and leave the file it points to as it was; open the store by the files' own paths", p)
		}
	}
	return nil
}

// rewriteLocked writes the live arrays and the catalog into a new pair and replaces the old
// pair with it; the store then continues on the new pair. The unit must be committed.
func (s *Store) rewriteLocked(op string, rep *CompactReport) error {
	before := lifecycle.PairSize(s.path)
	if err := lifecycle.RemoveStaleRewrite(s.path); err != nil {
		return wrapIO(op, err, "removing what an earlier rewrite left in %s", lifecycle.RewriteDir(s.path))
	}
	if err := os.Mkdir(lifecycle.RewriteDir(s.path), 0o755); err != nil {
		return wrapIO(op, err, "creating %s", lifecycle.RewriteDir(s.path))
	}
	tmpNC, tmpCat := lifecycle.RewriteFiles(s.path)
	if err := s.writeRewrite(op, tmpNC, tmpCat); err != nil {
		os.RemoveAll(lifecycle.RewriteDir(s.path))
		return err
	}
	lifecycle.Step("written")
	// The new file is held as this store's from now on (its inode survives the rename), so
	// that another open in this process cannot take the new pair while it goes in place.
	newID, err := lifecycle.Claim(op, tmpNC, false)
	if err != nil {
		os.RemoveAll(lifecycle.RewriteDir(s.path))
		return ncErr(err)
	}
	if err := lifecycle.CommitRewrite(s.path, tmpNC, tmpCat); err != nil {
		lifecycle.Release(newID, false)
		os.RemoveAll(lifecycle.RewriteDir(s.path))
		return wrapIO(op, err, "committing the rewrite of %s", s.path)
	}
	lifecycle.Step("committed")
	// From here the new pair is the store. Close the old files, put the new ones in place
	// and continue on them.
	s.nc.Close()
	s.cat.Close()
	lifecycle.Release(s.file, false)
	s.closed = true
	if err := lifecycle.FinishRewrite(s.path); err != nil {
		lifecycle.Release(newID, false)
		return wrapIO(op, err, "the rewrite of %s is committed but could not be put in place; the next open of the store finishes it", s.path)
	}
	if err := s.reopenLocked(op, newID); err != nil {
		return err
	}
	rep.BytesBefore, rep.BytesAfter = before, lifecycle.PairSize(s.path)
	return nil
}

// writeRewrite writes the new pair: the live arrays into tmpNC, the catalog into tmpCat,
// both fsynced.
func (s *Store) writeRewrite(op, tmpNC, tmpCat string) error {
	var rows []catalog.Row
	err := s.snapshot(func() error {
		var err error
		rows, err = s.cat.List(catalog.Filter{})
		return err
	})
	if err != nil {
		return wrapIO(op, err, "listing the series")
	}
	live, err := s.liveArrays(rows)
	if err != nil {
		return withOp(op, err)
	}
	dst, err := ncstore.Create(tmpNC, s.nc.Compression(), false)
	if err != nil {
		return withOp(op, ncErr(err))
	}
	err = s.copyArrays(dst, live)
	if err == nil {
		err = dst.Sync()
	}
	if err != nil {
		// netcdf-c says only "HDF error"; the journal has the errno. (Its message's advice,
		// to reopen the store, is for the store's own file, not this one.)
		var je *journal.Error
		if errors.As(dst.JournalFailure(), &je) {
			err = je.Errno
		}
		err = wrapIO(op, err, "writing the live arrays into %s", tmpNC)
	}
	if cerr := dst.Close(); err == nil && cerr != nil {
		err = wrapIO(op, cerr, "closing %s", tmpNC)
	}
	if err != nil {
		return withOp(op, err)
	}
	if err := s.cat.VacuumInto(tmpCat); err != nil {
		return wrapIO(op, err, "copying the catalog into %s", tmpCat)
	}
	for _, p := range [][2]string{{tmpNC, s.path}, {tmpCat, CatalogPath(s.path)}} {
		if err := lifecycle.SameOwnerAndMode(p[0], p[1]); err != nil {
			return wrapIO(op, err, "giving %s the permissions of %s", p[0], p[1])
		}
		if err := lifecycle.FsyncPath(p[0]); err != nil {
			return wrapIO(op, err, "syncing %s", p[0])
		}
	}
	return nil
}

// liveArray is one array a catalog row names, as the rewrite writes it.
type liveArray struct {
	d       hashing.Digest
	m       *Metadata
	packed  bool
	family  string // a packed array's dataset family
	batchOf int    // set for packed arrays: how many of its family remain from it on
}

// liveArrays lists each array the rows name once, in the order of the first row naming it:
// the order a fresh store given the survivors in one batch would write them.
func (s *Store) liveArrays(rows []catalog.Row) ([]*liveArray, error) {
	// Keyed by digest and form: equal values in a packed column and in a standalone
	// variable (a SingleTimeSeries and a NonSequentialTimeSeries) are two arrays.
	seen := map[ncstore.ArrayKey]bool{}
	var out []*liveArray
	for i := range rows {
		m, err := s.metadataOf(&rows[i], Features{})
		if err != nil {
			return nil, err
		}
		d := hashing.Digest(m.DataHash)
		packed := storedPacked(m.Type)
		k := ncstore.ArrayKey{Digest: d, Packed: packed}
		if seen[k] {
			continue
		}
		seen[k] = true
		a := &liveArray{d: d, m: m, packed: packed}
		if packed {
			a.family = ncstore.PackedName(m.DType, m.ElementShape, m.Length, m.Resolution.String())
		}
		out = append(out, a)
	}
	left := map[string]int{}
	for _, a := range out {
		if a.packed {
			left[a.family]++
		}
	}
	for _, a := range out {
		if a.packed {
			a.batchOf = left[a.family]
			left[a.family]--
		}
	}
	return out, nil
}

// copyArrays reads the live arrays from the store's file, checks each against its hash, and
// writes them into dst, in batches of about rewriteBatchBytes.
func (s *Store) copyArrays(dst *ncstore.File, live []*liveArray) error {
	for first := 0; first < len(live); {
		end, bytes := first, 0
		for end < len(live) && (end == first || bytes < rewriteBatchBytes) {
			bytes += live[end].m.Length * ncstore.ElementCount(live[end].m.ElementShape) * live[end].m.DType.Width()
			end++
		}
		batch, err := s.readLiveArrays(live[first:end])
		if err != nil {
			return err
		}
		if _, err := dst.WriteArrays(batch); err != nil {
			return ncErr(err)
		}
		first = end
	}
	return nil
}

// readLiveArrays reads a batch of live arrays whole, in order. The packed ones are read per
// dataset in row bands (File.ReadColumns, as GetMany reads), so each chunk is inflated once
// per batch, not once per column; a column read alone would inflate its dataset's every row
// chunk each time, or lean on the read cache a user may have turned off.
func (s *Store) readLiveArrays(batch []*liveArray) ([]*ncstore.Array, error) {
	out := make([]*ncstore.Array, len(batch))
	byDataset := map[*ncstore.Packed][]*ncstore.ColumnRead{}
	reads := make([]*ncstore.ColumnRead, len(batch))
	for i, a := range batch {
		arr := &ncstore.Array{Digest: a.d, Packed: a.packed, DType: a.m.DType, Batch: 1, BatchLeft: a.batchOf}
		out[i] = arr
		if a.packed {
			slot, ok := s.nc.Column(a.d)
			if !ok {
				return nil, errNoArray(a.d)
			}
			ds := slot.Dataset()
			arr.Shape = append([]int{ds.Length()}, ds.ElementShape()...)
			arr.Resolution = a.m.Resolution.String()
			reads[i] = &ncstore.ColumnRead{Col: slot.Column(), N: ds.Length()}
			byDataset[ds] = append(byDataset[ds], reads[i])
			continue
		}
		sv, ok := s.nc.Variable(a.d)
		if !ok {
			return nil, errNoArray(a.d)
		}
		arr.Shape = ncstore.FromU64(sv.Shape())
		if isForecast(a.m.Type) && a.m.Type != DeterministicSingleTimeSeriesType {
			arr.Chunks = forecastChunks(a.m.Type, TypedArray{DType: a.m.DType, Shape: arr.Shape})
		}
		data, err := s.nc.ReadVariable(sv, nil)
		if err != nil {
			return nil, wrapIO("", err, "reading %s", sv.Name())
		}
		arr.Data = data
	}
	for ds, cols := range byDataset {
		if err := s.nc.ReadColumns(ds, cols); err != nil {
			return nil, wrapIO("", err, "reading %s", ds.Name())
		}
	}
	for i, arr := range out {
		if reads[i] != nil {
			arr.Data = reads[i].Data
		}
		// A rewrite must not carry damaged bytes into a file where nothing would tell them
		// apart from sound ones.
		if got := (TypedArray{DType: arr.DType, Shape: arr.Shape, Data: arr.Data}).hash(); got != arr.Digest {
			return nil, corruptAt("", "data_hash",
				"array %x… reads back as bytes hashing to %x…: the file is damaged, and a rewrite would carry the damage over (verify_integrity lists it); nothing was changed",
				arr.Digest[:8], got[:8])
		}
	}
	return out, nil
}

// reopenLocked opens the store's pair again after a rewrite put a new one in place; id is
// the new file's claim, which it keeps or releases.
func (s *Store) reopenLocked(op string, id lifecycle.FileID) error {
	nc, cat, err := lifecycle.OpenPair(op, s.path, false)
	if err != nil {
		lifecycle.Release(id, false)
		return withOp(op, err)
	}
	nc.SetReadCache(s.nc.ReadCache()) // the old file's, as SetReadCache left it
	s.nc, s.cat, s.file, s.closed = nc, cat, id, false
	s.unit = newUnit()
	return nil
}
