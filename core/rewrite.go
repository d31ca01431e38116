package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/journal"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// A compaction rewrite (CompactOptions.Rewrite) gives back the space format 0.11.0 cannot
// shrink in place: free packed columns and standalone variables no row names. It writes the
// live arrays into a new NetCDF file, laid out as a store written afresh with the survivors
// in one batch, copies the catalog (VACUUM INTO), and replaces the old pair with the new one.
//
// The two files cannot be renamed in one step, so the replacement has a commit point of its
// own (docs/reliability.md, "Compaction rewrite"):
//
//  1. the new pair is written into the directory <path>.compacting/ and fsynced;
//  2. a marker, <path>.compacting/commit, records both files' sizes; written under another
//     name, fsynced and renamed into place, then the directory and its parent are fsynced:
//     the commit point;
//  3. the new catalog and then the new .nc are renamed over the old ones, the parent
//     directory is fsynced, and the marker and the directory go.
//
// A kill before the commit point leaves the old pair untouched (the directory is removed by
// the next writable open or rewrite); a kill after it is finished by the next writable open
// of the store, which completes step 3 (finishRewrite); a read-only open refuses until then.
// Either way the store is one pair, whole: the old or the new.

// CompactOptions configure Compact. A nil *CompactOptions means the defaults.
type CompactOptions struct {
	// Rewrite writes the live series into a new pair of files and replaces the old pair
	// with it, atomically: free packed columns and unreferenced variables take no space
	// afterwards. It needs room for the new pair beside the old one.
	Rewrite bool
}

const (
	rewriteDirSuffix = ".compacting"
	rewriteNCName    = "store.nc"
	rewriteMarker    = "commit"
	rewriteMagic     = "tsstore compaction rewrite 1"
)

// rewriteBatchBytes bounds the array bytes a rewrite holds in memory at once (a variable so
// that a test can make a small store arrive in many batches).
var rewriteBatchBytes = 64 << 20

func rewriteDir(path string) string { return path + rewriteDirSuffix }

// rewriteHook, when a test sets it, is called at each step of a rewrite with the step's name
// ("written", "committed", "store.nc.sqlite renamed", "store.nc renamed"): the tests kill
// the process there.
var rewriteHook func(step string)

func rewriteStep(step string) {
	if rewriteHook != nil {
		rewriteHook(step)
	}
}

// rewriteFiles are the new pair's paths inside the rewrite directory and their final names.
func rewriteFiles(path string) (tmpNC, tmpCat string) {
	tmpNC = filepath.Join(rewriteDir(path), rewriteNCName)
	return tmpNC, CatalogPath(tmpNC)
}

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
	before := pairSize(s.path)
	if err := removeStaleRewrite(s.path); err != nil {
		return wrapIO(op, err, "removing what an earlier rewrite left in %s", rewriteDir(s.path))
	}
	if err := os.Mkdir(rewriteDir(s.path), 0o755); err != nil {
		return wrapIO(op, err, "creating %s", rewriteDir(s.path))
	}
	tmpNC, tmpCat := rewriteFiles(s.path)
	if err := s.writeRewrite(op, tmpNC, tmpCat); err != nil {
		os.RemoveAll(rewriteDir(s.path))
		return err
	}
	rewriteStep("written")
	// The new file is held as this store's from now on (its inode survives the rename), so
	// that another open in this process cannot take the new pair while it goes in place.
	newID, err := claim(op, tmpNC, false)
	if err != nil {
		os.RemoveAll(rewriteDir(s.path))
		return err
	}
	if err := commitRewrite(s.path, tmpNC, tmpCat); err != nil {
		release(newID, false)
		os.RemoveAll(rewriteDir(s.path))
		return wrapIO(op, err, "committing the rewrite of %s", s.path)
	}
	rewriteStep("committed")
	// From here the new pair is the store. Close the old files, put the new ones in place
	// and continue on them.
	s.nc.Close()
	s.cat.Close()
	release(s.file, false)
	s.closed = true
	if err := finishRewrite(s.path); err != nil {
		release(newID, false)
		return wrapIO(op, err, "the rewrite of %s is committed but could not be put in place; the next open of the store finishes it", s.path)
	}
	if err := s.reopenLocked(op, newID); err != nil {
		return err
	}
	rep.BytesBefore, rep.BytesAfter = before, pairSize(s.path)
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
		if err := sameOwnerAndMode(p[0], p[1]); err != nil {
			return wrapIO(op, err, "giving %s the permissions of %s", p[0], p[1])
		}
		if err := fsyncPath(p[0]); err != nil {
			return wrapIO(op, err, "syncing %s", p[0])
		}
	}
	return nil
}

// sameOwnerAndMode gives a new file the permissions of the old one it replaces: a private
// store stays private, a group's stays writable by the group. The owner is kept where the
// process may set it (as root, or a group it is in); elsewhere the new file is its own.
func sameOwnerAndMode(tmp, old string) error {
	fi, err := os.Stat(old)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		os.Chown(tmp, int(st.Uid), int(st.Gid))
	}
	return os.Chmod(tmp, fi.Mode().Perm())
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

// commitRewrite writes the marker that makes the new pair the store (step 2).
func commitRewrite(path, tmpNC, tmpCat string) error {
	var b strings.Builder
	fmt.Fprintln(&b, rewriteMagic)
	for _, p := range []string{tmpNC, tmpCat} {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d\n", filepath.Base(p), fi.Size())
	}
	marker := filepath.Join(rewriteDir(path), rewriteMarker)
	if err := writeFileSynced(marker+".tmp", []byte(b.String())); err != nil {
		return err
	}
	if err := os.Rename(marker+".tmp", marker); err != nil {
		return err
	}
	if err := fsyncPath(rewriteDir(path)); err != nil {
		return err
	}
	// The directory's own entry too: made by mkdir and never synced before.
	return fsyncPath(filepath.Dir(path))
}

// readMarker parses a commit marker into file name → size.
func readMarker(marker string) (map[string]int64, error) {
	b, err := os.ReadFile(marker)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 || lines[0] != rewriteMagic {
		return nil, fmt.Errorf("%s is not a tsstore rewrite marker", marker)
	}
	sizes := map[string]int64{}
	for _, l := range lines[1:] {
		name, n, ok := strings.Cut(l, " ")
		size, err := strconv.ParseInt(n, 10, 64)
		if !ok || err != nil || size < 0 {
			return nil, fmt.Errorf("%s: line %q is not a file and its size", marker, l)
		}
		sizes[name] = size
	}
	return sizes, nil
}

// finishCommittedRewrite puts in place the new pair of a compaction rewrite that was killed
// after its commit point (openStore calls it first). A read-only open changes nothing, so it
// refuses.
func finishCommittedRewrite(op, path string, readOnly bool) error {
	if _, err := os.Stat(filepath.Join(rewriteDir(path), rewriteMarker)); err != nil {
		return nil
	}
	if readOnly {
		return newErr(ErrIO, op, ArgPath,
			"a compaction rewrite of %s was cut short after its commit point; open the store for writing once to finish it (a read-only open changes nothing)", path)
	}
	if err := finishRewrite(path); err != nil {
		return wrapIO(op, err, "finishing the compaction rewrite of %s", path)
	}
	return nil
}

// finishRewrite completes step 3 of a committed rewrite: it renames whichever of the new
// files are still in the rewrite directory over the old ones, then removes the marker and
// the directory. It is idempotent, so a kill inside it is finished by the next call, and
// it does nothing when no marker is there.
func finishRewrite(path string) error {
	marker := filepath.Join(rewriteDir(path), rewriteMarker)
	sizes, err := readMarker(marker)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	tmpNC, tmpCat := rewriteFiles(path)
	for _, pair := range [][2]string{{tmpCat, CatalogPath(path)}, {tmpNC, path}} {
		tmp, final := pair[0], pair[1]
		want, ok := sizes[filepath.Base(tmp)]
		if !ok {
			return fmt.Errorf("%s does not record %s", marker, filepath.Base(tmp))
		}
		fi, err := os.Stat(tmp)
		switch {
		case err == nil && fi.Size() != want:
			return fmt.Errorf("%s is %d bytes; the rewrite's marker records %d", tmp, fi.Size(), want)
		case err == nil:
			if err := os.Rename(tmp, final); err != nil {
				return err
			}
			rewriteStep(filepath.Base(tmp) + " renamed")
		case errors.Is(err, os.ErrNotExist):
			// Renamed by an earlier call: the final file must be the one the marker records.
			if ffi, ferr := os.Stat(final); ferr != nil || ffi.Size() != want {
				return fmt.Errorf("%s is gone but %s is not the %d bytes the rewrite's marker records", tmp, final, want)
			}
		default:
			return err
		}
	}
	if err := fsyncPath(filepath.Dir(path)); err != nil {
		return err
	}
	if err := os.Remove(marker); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Remove(rewriteDir(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return fsyncPath(filepath.Dir(path))
}

// removeStaleRewrite removes what a rewrite cut short before its commit point left: the
// rewrite directory with the new pair's files, and nothing else (a directory holding other
// files is left alone and reported).
func removeStaleRewrite(path string) error {
	dir := rewriteDir(path)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	tmpNC, tmpCat := rewriteFiles(path)
	// The -journal files are the .nc's and SQLite's (VACUUM INTO keeps one beside its copy
	// while it runs).
	ours := map[string]bool{filepath.Base(tmpNC): true, filepath.Base(tmpCat): true,
		filepath.Base(tmpNC) + "-journal": true, filepath.Base(tmpCat) + "-journal": true,
		rewriteMarker + ".tmp": true}
	for _, e := range entries {
		if !ours[e.Name()] {
			return fmt.Errorf("%s holds %s, which a rewrite did not write; remove the directory by hand", dir, e.Name())
		}
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(dir)
}

// reopenLocked opens the store's pair again after a rewrite put a new one in place; id is
// the new file's claim, which it keeps or releases.
func (s *Store) reopenLocked(op string, id fileID) error {
	nc, cat, err := openPair(op, s.path, false)
	if err != nil {
		release(id, false)
		return withOp(op, err)
	}
	nc.SetReadCache(s.nc.ReadCache()) // the old file's, as SetReadCache left it
	s.nc, s.cat, s.file, s.closed = nc, cat, id, false
	s.unit = newUnit()
	return nil
}

// pairSize is the size of a store's two files.
func pairSize(path string) int64 {
	var n int64
	for _, p := range []string{path, CatalogPath(path)} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func fsyncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeFileSynced(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
