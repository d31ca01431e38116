package ncstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/fhs/go-netcdf/netcdf"
	"github.com/fhs/go-netcdf/netcdf/ncmem"

	"github.com/tsstore/tsstore/core/internal/h5"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/journal"
	"github.com/tsstore/tsstore/core/internal/ncshim"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// DataFormatVersion is the on-disk format this build reads and writes. Opening a store
// recorded with any other version fails with IncompatibleFormat (exact equality).
const DataFormatVersion = "0.11.0"

const (
	attrVersion     = "data_format_version"
	attrCompression = "compression"
)

// The group every array lives in is /GroupTop/GroupSingle (docs/format.md §7.1).
const (
	GroupTop    = "time_series"
	GroupSingle = "single"
)

// File is the NetCDF half of a store: the file or in-memory image, the /time_series/single
// group, and the index of arrays rebuilt from it. Exported methods take the netcdf lock
// (serial.Lock) themselves; a File is not safe for concurrent use (the store serialises its
// calls).
type File struct {
	inMemory bool
	readOnly bool
	open     bool
	comp     Compression
	// journal guards the committed bytes of a writable file while a unit rewrites them
	// (journal/journal.c); nil for read-only and in-memory files, or where the driver cannot
	// be installed (journal.Active).
	journal *journal.Journal
	// path is the file's path ("" in memory), for messages.
	path string
	// journalFinal is the journal's counters as the file closed.
	journalFinal journal.Stats
	// recovered says what the open rolled back from a hot journal, if anything.
	recovered string

	// defining is set by every define call and cleared by endDefine; definePhases counts
	// the define phases ended: the runs of definitions a write makes before its data.
	defining     bool
	definePhases int
	// chunkReads counts the HDF5 chunks that array reads intersect. Standalone variables
	// have no chunk cache, so for them each one is a read and a decompression.
	chunkReads int64
	// ncWrites counts the netcdf write calls of the packed paths.
	ncWrites int64
	// dimScans counts firstFreeDimID's scans of the whole group.
	dimScans int64
	// cacheTrims counts the syncs that gave back a metadata cache HDF5 had grown (syncH5).
	cacheTrims int64
	// directChunks and directReads count chunks moved by chunkpipe (direct.go).
	directChunks, directReads int64
	readAhead                 int64 // row chunks DecodeAhead read, counted under the lock
	// listings counts the walks of the group's links that built the index (lazyindex.go).
	listings int64
	// standaloneOpens counts the opens of standalone variables' datasets (h5file.go).
	standaloneOpens int64
	// lastWrite is set during a unit's last write (WriteArraysBeforeSync); noPatch sends
	// writes of some columns through HDF5's pipeline even then (tests' reference).
	lastWrite, noPatch bool
	// frees counts packed columns freed, so readers can tell their columns may have changed.
	frees int64
	// colCache keeps decoded blocks of packed columns for one-at-a-time reads (colcache.go).
	colCache columnCache

	families   map[familyKey][]*Packed // each family's datasets in suffix order
	packed     map[hashing.Digest]Slot
	standalone map[hashing.Digest]*Variable
	// untrusted holds standalone variables no catalog row referenced when the store was
	// opened for writing: a crash may have cut their writing short, so they are not used to
	// deduplicate, and an add of the same content rewrites them.
	untrusted map[hashing.Digest]*Variable
	// h5 is the open HDF5 file and its open datasets (h5file.go, h5write.go).
	h5 *h5view
	// unindexed is a read-only file whose group has not been listed yet; indexErr is what
	// listing it gave (lazyindex.go).
	unindexed bool
	indexErr  error
}

// newFile is the File of an HDF5 file just opened; every varid indexes h5.sets.
func newFile(hf *h5.File, inMemory, readOnly bool) *File {
	return &File{h5: &h5view{file: hf, nextDimID: -1}, inMemory: inMemory, readOnly: readOnly, open: true,
		comp:       DefaultCompression,
		families:   map[familyKey][]*Packed{},
		packed:     map[hashing.Digest]Slot{},
		standalone: map[hashing.Digest]*Variable{},
		untrusted:  map[hashing.Digest]*Variable{},
		colCache:   columnCache{budget: DefaultReadCacheBytes, chunkCached: packedCacheCap},
	}
}

// Create makes a new store file (or in-memory image) with the root attributes and groups. A
// file on disk goes through the rollback journal where the driver can be installed
// (journal.Active); a stale journal left at its journal path by a removed store is removed
// first.
//
// netcdf-c makes the file's skeleton (its superblock, _NCProperties, the attributes and
// groups), as the format's reference writer does; from there on the file is read and written
// through HDF5 only (h5write.go). An in-memory store is netcdf-c's in-memory image reopened
// by HDF5's core driver, so that it takes the same route as a file on disk.
func Create(path string, comp Compression, inMemory bool) (*File, error) {
	if inMemory {
		return createInMemory(path, comp)
	}
	if err := removeStaleJournal(path); err != nil {
		return nil, err
	}
	if err := createSkeleton(path, comp); err != nil {
		return nil, err
	}
	return Open(path, false)
}

// createSkeleton writes a new store file at path through netcdf-c, durably, and closes it.
func createSkeleton(path string, comp Compression) error {
	serial.Lock()
	defer serial.Unlock()
	syscall.ForkLock.RLock() // as in Open: no child inherits the file before closeOnExec
	root, jr, err := journal.Open(path, func() (netcdf.Dataset, error) {
		return netcdf.CreateFile(path, netcdf.NETCDF4|netcdf.NOCLOBBER)
	})
	if err == nil {
		closeOnExec(path)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return wrapIO("create", err, "creating %s", path)
	}
	err = writeLayout(root, comp)
	if err == nil {
		err = ncshim.Sync(root)
	}
	if err == nil && jr != nil {
		err = jr.EndUnit()
	}
	if cerr := root.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return wrapIO("create", err, "writing the layout of %s", path)
	}
	return nil
}

// createInMemory makes the skeleton in netcdf-c's memory and hands its bytes to HDF5's core
// driver (h5.OpenImage).
func createInMemory(name string, comp Compression) (*File, error) {
	serial.Lock()
	defer serial.Unlock()
	m, err := ncmem.Create(name, netcdf.NETCDF4, 1<<20)
	if err != nil {
		return nil, wrapIO("create", err, "creating an in-memory store")
	}
	if err := writeLayout(m.Dataset, comp); err != nil {
		m.Close()
		return nil, wrapIO("create", err, "writing the layout of an in-memory store")
	}
	image, err := m.CloseCopyBytes()
	if err != nil {
		return nil, wrapIO("create", err, "closing netcdf-c's in-memory image")
	}
	hf, err := h5.OpenImage(image)
	if err != nil {
		return nil, wrapIO("create", err, "opening the in-memory image through HDF5")
	}
	f := newFile(hf, true, false)
	if err := f.load("(in memory)"); err != nil {
		f.closeLocked()
		return nil, err
	}
	return f, nil
}

// removeStaleJournal removes a journal left at path's journal name by a store whose .nc is
// gone (a new store is created only where no .nc exists): played against the new file it
// would be refused as another file's, or worse. Anything there that is not a regular file is
// refused rather than removed.
func removeStaleJournal(path string) error {
	jp := journal.Path(path)
	fi, err := os.Lstat(jp)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return wrapIO("create", err, "checking %s", jp)
	}
	if !fi.Mode().IsRegular() || !journalShaped(jp, fi.Size()) {
		// Perhaps another store whose name is this one's journal name: never removed.
		return invalid("create", "path", "%s exists and is not a journal of this library; move it away first", jp)
	}
	if err := os.Remove(jp); err != nil {
		return wrapIO("create", err, "removing the stale journal %s", jp)
	}
	if d, err := os.Open(filepath.Dir(jp)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// journalShaped says whether the regular file at path (of size bytes) is empty or starts with
// the journal's magic, as journal.c requires of a file it takes as a journal.
func journalShaped(path string, size int64) bool {
	if size == 0 {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var m [8]byte
	_, err = io.ReadFull(f, m[:])
	return err == nil && string(m[:]) == journal.Magic
}

// writeLayout writes a new file's root attributes and groups through netcdf-c.
func writeLayout(root netcdf.Dataset, comp Compression) error {
	// Text attributes are NC_CHAR: the other implementation reads only NC_CHAR here
	// (docs/format.md §1).
	if err := ncshim.PutAttText(root, ncshim.GlobalVarID, attrVersion, DataFormatVersion); err != nil {
		return err
	}
	if err := ncshim.PutAttText(root, ncshim.GlobalVarID, attrCompression, comp.String()); err != nil {
		return err
	}
	top, err := ncshim.DefGroup(root, GroupTop)
	if err != nil {
		return err
	}
	if _, err = ncshim.DefGroup(top, GroupSingle); err != nil {
		return err
	}
	return ncshim.EndDef(root)
}

// ncEHDFERR is netcdf.h's NC_EHDFERR: HDF5 failed underneath netcdf-c.
const ncEHDFERR = -101

// Open opens an existing store file, checks its format version and rebuilds the index. A
// writable open first rolls the file back from a hot journal (Recovered says so); a
// read-only one refuses a hot journal. Its errors say why an open failed in terms a user can
// act on: another process holds the file, the file is not writable, HDF5 cannot read it.
func Open(path string, readOnly bool) (*File, error) {
	serial.Lock()
	defer serial.Unlock()
	if _, err := os.Stat(path); err != nil {
		return nil, wrapIO("open", err, "the NetCDF file of the store")
	}
	// A writer that died in the middle of a unit left a hot journal: roll the file back to
	// its last commit before HDF5 reads it. A live writer elsewhere holds the file, and the
	// open below reports that.
	recovered, err := journal.Recover(path, !readOnly)
	switch {
	case errors.Is(err, journal.ErrBusyHot) && readOnly:
		// Without HDF5's locking a reader would be let in, to a file half way through a unit.
		return nil, &Error{Kind: IO, Op: "open", Field: "path", Err: err, Msg: fmt.Sprintf(
			"%s is being written by another process, in the middle of a unit (its journal is hot); open it once that writer has flushed or closed", path)}
	case err != nil && !errors.Is(err, journal.ErrBusy) && !errors.Is(err, journal.ErrBusyHot):
		return nil, wrapIO("open", err, "recovering %s", path)
	}
	// ForkLock keeps a child started by another goroutine from inheriting the descriptor
	// before closeOnExec marks it (HDF5 opens without O_CLOEXEC).
	syscall.ForkLock.RLock()
	var jr *journal.Journal
	var f *File
	if readOnly {
		f, err = openH5(path)
	} else {
		f, jr, err = openH5Writable(path)
	}
	if err == nil {
		closeOnExec(path)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, explainOpenFailure(path, readOnly, err)
	}
	f.journal, f.recovered, f.path = jr, recovered, path
	if err := f.load(path); err != nil {
		f.closeLocked()
		return nil, err
	}
	if jr != nil {
		// HDF5 writes its superblock as it opens a file for writing; end that unit, so that
		// the open store is its two files until its first write.
		if err := f.syncLocked(); err != nil {
			f.closeLocked()
			return nil, wrapIO("open", err, "opening %s", path)
		}
	}
	return f, nil
}

// explainOpenFailure says why netcdf-c or HDF5 could not open a store's file, in terms a
// user can act on: another process holds it, it is not writable, HDF5 cannot read it.
func explainOpenFailure(path string, readOnly bool, err error) error {
	if jerr := journal.TakeOpenFailure(path); jerr != nil {
		return wrapIO("open", explainJournalFailure(path, jerr), "opening %s", path)
	}
	if lockedElsewhere(path, readOnly) && len(DescriptorsOf(path)) > 0 {
		// No live Store of this process holds the file (claim refuses those), so the
		// lock is left from an earlier open that failed inside netcdf-c: it could not
		// close the damaged file, and keeps its descriptor and HDF5's lock.
		return &Error{Kind: IO, Op: "open", Field: "path", Err: err, Msg: fmt.Sprintf(
			"%s is still held by this process: an earlier open of it failed inside netcdf-c/HDF5 (the file is damaged) and netcdf-c could not release it; this process cannot open it again until it exits", path)}
	}
	if lockedElsewhere(path, readOnly) {
		what := "for writing"
		if !readOnly {
			what = "(for reading or writing)"
		}
		return &Error{Kind: IO, Op: "open", Field: "path", Err: err, Msg: fmt.Sprintf(
			"%s is open %s in another process, and HDF5 locks the file: a store open for writing excludes every other open, and readers exclude a writer; close it there first", path, what)}
	}
	var ne netcdf.Error
	var he *h5.Error
	hdf := errors.As(err, &he) || (errors.As(err, &ne) && int(ne) == ncEHDFERR)
	if hdf && !readOnly {
		// HDF5 reports a file it may not write as an HDF error too (openStore checks
		// first; this catches a permission taken away in between).
		if no, errno := NotWritable(path); no {
			return &Error{Kind: IO, Op: "open", Field: "path", Err: errno, Msg: fmt.Sprintf(
				"%s is not writable by this process, so the store cannot be opened for writing; it can be opened read-only (OpenReadOnly), which needs no write permission", path)}
		}
	}
	if hdf {
		return wrapIO("open", err, "%s is damaged or truncated: HDF5 cannot read its metadata (verify_integrity cannot run either; a copy of the pair from before the damage is the way back)", path)
	}
	return wrapIO("open", err, "opening %s as NetCDF4", path)
}

// checkVersion refuses a file whose data_format_version is not DataFormatVersion (ok is
// false when the attribute is absent).
func (f *File) checkVersion(path, version string, ok bool) error {
	if !ok {
		version = "unspecified"
	}
	if version != DataFormatVersion {
		return newErr(IncompatibleFormat, "open", attrVersion,
			"%s records data_format_version %s; this build reads %s (regenerate the store with a matching build)",
			path, version, DataFormatVersion)
	}
	return nil
}

// setCompressionAttr reads the file's compression attribute. An absent or unparseable
// policy means the default the file was written with (docs/format.md §7.7).
func (f *File) setCompressionAttr(s string) {
	if c, err := ParseCompression(s); err == nil {
		f.comp = c
	}
}

func (f *File) closeLocked() error {
	if !f.open {
		return nil
	}
	f.open = false
	if f.journal != nil {
		f.journalFinal = f.journal.Stats()
		f.journal = nil // the driver frees it as the file closes
	}
	return errors.Join(f.writeUnwrittenCompanions(), f.h5.file.Close())
}

// writeUnwrittenCompanions writes every slot of each hash companion defined this session that
// no write has covered: a unit that failed after defining a dataset leaves one, and its
// storage holds null strings until written, which the file must never keep (docs/format.md
// §7.8).
func (f *File) writeUnwrittenCompanions() error {
	if f.readOnly {
		return nil
	}
	for _, ds := range f.h5.unwritten {
		if ds.unwritten {
			if err := f.putSlots(ds, 0, ds.slots); err != nil {
				return err
			}
		}
	}
	f.h5.unwritten = f.h5.unwritten[:0]
	return nil
}

// Close closes the file; closing twice is harmless.
func (f *File) Close() error {
	serial.Lock()
	defer serial.Unlock()
	return f.closeLocked()
}

// Sync makes every array written so far durable in the file: for a journalled file, the
// end of a unit (see syncLocked).
func (f *File) Sync() error {
	if f.readOnly || f.inMemory {
		return nil
	}
	serial.Lock()
	defer serial.Unlock()
	return f.syncLocked()
}

// JournalFailure is nil unless a write into the journalled file failed, after which the
// file refuses all I/O until the store is reopened (and rolled back).
func (f *File) JournalFailure() error {
	if f.journal == nil {
		return nil
	}
	err := f.journal.Failure()
	if err != nil {
		err = explainJournalFailure(f.path, err)
	}
	return err
}

// syncLocked hands HDF5's buffers to the file and, for a journalled file, makes them durable
// and ends the unit: from here a rollback returns to this state, so it must be one the
// catalog can commit to (every array it names is whole; removed columns are freed only after
// the catalog commits — core/unit.go).
func (f *File) syncLocked() error {
	if err := f.writeUnwrittenCompanions(); err != nil {
		return err
	}
	if err := f.syncH5(); err != nil {
		return err
	}
	if f.journal != nil {
		return f.journal.EndUnit()
	}
	return nil
}

// CopyTo writes every array of f into a new store file at path, dataset by dataset with
// the same names, widths, chunking and hash slots: a store written afresh, without the space
// removed arrays left in f, and journalled as any new file is. An in-memory store persists
// this way and stays in memory.
func (f *File) CopyTo(path string) error {
	if !f.indexed() {
		return wrapIO("persist", f.indexErr, "listing the arrays of %s", f.path)
	}
	dst, err := Create(path, f.comp, false)
	if err != nil {
		return err
	}
	serial.Lock()
	err = f.copyArraysLocked(dst)
	if err == nil {
		err = dst.syncLocked()
	}
	cerr := dst.closeLocked()
	serial.Unlock()
	if err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return wrapIO("persist", err, "writing %s", path)
	}
	return nil
}

// copyBandBytes bounds the rows of a packed dataset copied per read/write pair.
const copyBandBytes = 64 << 20

func (f *File) copyArraysLocked(dst *File) error {
	// Everything is defined in one define phase, then copied.
	type pair struct{ src, dst *Packed }
	var packed []pair
	for fam, list := range f.families {
		for _, ds := range list {
			out, err := dst.definePackedAs(fam, ds.eshape, ds.cols, ds.suffix)
			if err != nil {
				return err
			}
			packed = append(packed, pair{ds, out})
		}
	}
	type single struct {
		d        hashing.Digest
		src, dst *Variable
	}
	var singles []single
	for d, sv := range f.standalone {
		chunks, err := f.chunkShape(sv)
		if err != nil {
			return err
		}
		out, err := dst.defineStandalone(sv.dtype, sv.shape, d, chunks)
		if err != nil {
			return err
		}
		singles = append(singles, single{d, sv, out})
	}
	if err := dst.endDefine(); err != nil {
		return err
	}
	for _, p := range packed {
		if err := f.copyPacked(dst, p.src, p.dst); err != nil {
			return err
		}
	}
	for _, sp := range singles {
		buf, err := f.readWholeLocked(sp.src)
		if err != nil {
			return err
		}
		if err := dst.fillStandalone(sp.dst, buf, sp.d); err != nil {
			return err
		}
	}
	return nil
}

// copyPacked copies one packed dataset band by band, then its hash slots.
func (f *File) copyPacked(dst *File, ds, out *Packed) error {
	b := bandSpan{from: 0, to: ds.fam.length, lo: 0, span: ds.cols, maxBytes: copyBandBytes}
	err := ds.walkBands(b, ds.bandBuffer(b), func(_, _ int, band []byte, start, count []uint64) error {
		if err := f.readSlice(ds.varid, ds.fam.dtype, band, start, count); err != nil {
			return err
		}
		return dst.putSlice(out.varid, ds.fam.dtype, band, start, count)
	})
	if err != nil {
		return err
	}
	if err := dst.putSlots(out, 0, ds.slots); err != nil {
		return err
	}
	copy(out.slots, ds.slots)
	out.nfree = ds.nfree
	return nil
}

// endDefine ends a define phase if a define call began one. Every operation that defines
// calls it once before writing data, so each such operation costs one define phase (HDF5
// has no define mode: a phase is counted, and flushed where the journal's tests ask).
func (f *File) endDefine() error {
	if !f.defining {
		return nil
	}
	f.defining = false
	f.definePhases++
	if flushAtDefine { // HDF5 has no define mode; the journal's tests flush here
		return f.h5.file.Flush()
	}
	return nil
}

// checkSlab checks that buf holds exactly the hyperslab of the given count; empty says there
// is nothing to move.
func checkSlab(dt DType, buf []byte, count []uint64) (empty bool, err error) {
	want := uint64(dt.Width())
	for _, c := range count {
		want *= c
	}
	if uint64(len(buf)) != want {
		return false, fmt.Errorf("buffer of %d bytes for a hyperslab of %d", len(buf), want)
	}
	return len(buf) == 0, nil
}

// Journalled says whether the file goes through the rollback journal (journal.Open).
func (f *File) Journalled() bool {
	serial.Lock()
	defer serial.Unlock()
	return f.journal != nil
}

// JournalStats are the journal's counters: live while the file is open, as they were at
// Close after it.
func (f *File) JournalStats() journal.Stats {
	serial.Lock()
	defer serial.Unlock()
	if f.journal != nil {
		return f.journal.Stats()
	}
	return f.journalFinal
}

// Recovered says what the open rolled back from a hot journal, if anything.
func (f *File) Recovered() string { return f.recovered }

// Compression is the file's filter policy (docs/format.md §7.7).
func (f *File) Compression() Compression { return f.comp }

// Counters are what the file has done since it opened.
type Counters struct {
	ChunkReads   int64 // HDF5 chunks array reads intersected
	NCWrites     int64 // netcdf write calls of the packed paths
	DefinePhases int64 // define phases ended: runs of definitions before a write's data
	ColumnsFreed int64 // packed columns freed; readers compare it to notice frees
	CacheHits    int64 // whole-column reads served by the read cache
	CacheMisses  int64 // column blocks the read cache read
	CacheBytes   int64 // bytes of decoded blocks the read cache holds
	// DimensionScans counts scans of the whole group for its highest dimension id, which the
	// HDF5 route makes only when the dimension created last does not give it (h5write.go).
	DimensionScans int64
	// MetadataCacheTrims counts the syncs that returned HDF5's metadata cache to its initial
	// size after a bulk load grew it (h5write.go, syncH5).
	MetadataCacheTrims int64
	// DirectChunks counts chunks encoded by chunkpipe and written with H5Dwrite_chunk
	// (direct.go); DirectReads those read with H5Dread_chunk and decoded by chunkpipe.
	DirectChunks, DirectReads int64
	// ReadAhead counts the row chunks DecodeAhead read (ahead.go), within DirectReads.
	ReadAhead int64
	// Listings counts the walks of the group's links that built the array index: one at a
	// writable open, none at a read-only open until something needs it (lazyindex.go).
	Listings int64
	// StandaloneOpens counts the HDF5 opens of standalone variables' datasets: once each
	// while at most maxOpenStandalone are open, again after the bound closed one.
	StandaloneOpens int64
}

// Counters reports the file's counters.
func (f *File) Counters() Counters {
	return Counters{ChunkReads: f.chunkReads, NCWrites: f.ncWrites, DefinePhases: int64(f.definePhases),
		ColumnsFreed: f.frees, CacheHits: f.colCache.hits, CacheMisses: f.colCache.misses,
		CacheBytes: int64(f.colCache.used), DimensionScans: f.dimScans,
		MetadataCacheTrims: f.cacheTrims, DirectChunks: f.directChunks, DirectReads: f.directReads,
		ReadAhead: f.readAhead, Listings: f.listings, StandaloneOpens: f.standaloneOpens}
}

// Frees counts the packed columns freed since the file opened: a reader that saw it change
// checks that its columns still hold its arrays.
func (f *File) Frees() int64 { return f.frees }

// SetReadCache sets how many bytes of decoded column blocks the read cache keeps
// (colcache.go); 0 turns it off.
func (f *File) SetReadCache(bytes int) { f.colCache.setBudget(bytes) }

// ReadCache is the read cache's budget in bytes.
func (f *File) ReadCache() int { return f.colCache.budget }

// FreeColumns is the number of packed columns, over every dataset, that hold no array.
func (f *File) FreeColumns() int {
	n := 0
	f.indexed()
	for _, list := range f.families {
		for _, ds := range list {
			n += ds.nfree
		}
	}
	return n
}

// DeadVariables counts the standalone variables no catalog row names (named says which
// digests rows name), with those distrusted at open: netCDF cannot delete them.
func (f *File) DeadVariables(named map[hashing.Digest]bool) int {
	f.indexed()
	n := len(f.untrusted)
	for d := range f.standalone {
		if !named[d] {
			n++
		}
	}
	return n
}

// Holding says whether the file holds the array with digest d in either storage mode.
func (f *File) Holding(d hashing.Digest) bool {
	f.indexed()
	_, ok := f.packed[d]
	return ok || f.standalone[d] != nil
}

// ForgetUnnamed lets go of every array no catalog row names (named): packed columns are
// freed by emptying their hash slots only (Forget), standalone variables leave the index and
// are distrusted, so an add of the same content rewrites them in place (docs/format.md
// §13.7). It returns the number of packed columns freed; the caller syncs.
func (f *File) ForgetUnnamed(named map[hashing.Digest]bool) (int, error) {
	if !f.indexed() {
		return 0, f.indexErr
	}
	var free []hashing.Digest
	for d := range f.packed {
		if !named[d] {
			free = append(free, d)
		}
	}
	for d, sv := range f.standalone {
		if !named[d] {
			f.untrusted[d] = sv
			delete(f.standalone, d)
		}
	}
	if len(free) == 0 {
		return 0, nil
	}
	return len(free), f.Forget(free)
}
