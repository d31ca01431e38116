// Package core is the tsstore time-series store: arrays in a NetCDF4 file, metadata in a
// SQLite catalog beside it (<name>.nc and <name>.nc.sqlite), in data format 0.11.0.
//
// A Store is safe for concurrent use by multiple goroutines: its methods are serialised by
// one mutex per store, and every netcdf-c call in the process by one more (netcdf-c is not
// thread-safe).
package core

import (
	"errors"
	"os"
	"sync"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/journal"
	"github.com/tsstore/tsstore/core/internal/lifecycle"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// CatalogSuffix is appended to the NetCDF path to name the catalog.
const CatalogSuffix = lifecycle.CatalogSuffix

// CatalogPath is the catalog file of the store whose NetCDF file is ncPath.
func CatalogPath(ncPath string) string { return lifecycle.CatalogPath(ncPath) }

// Store is an open store.
type Store struct {
	mu       sync.Mutex
	path     string
	nc       *ncstore.File
	cat      *catalog.Catalog
	readOnly bool
	inMemory bool
	closed   bool
	file     lifecycle.FileID // registry entry of an on-disk store (lifecycle.Claim)

	unit        unitState // the open unit of work (see unit.go)
	writeBuffer int

	// featureSets are the feature maps read so far, by features hash (featuresOf).
	featureSets map[string]Features
	// resolved is what lookups found, on a read-only store (find).
	resolved resolvedCache
}

func assembleStore(path string, nc *ncstore.File, cat *catalog.Catalog, readOnly, inMemory bool, file lifecycle.FileID) *Store {
	return &Store{path: path, nc: nc, cat: cat, readOnly: readOnly, inMemory: inMemory, file: file,
		unit: newUnit(), writeBuffer: DefaultWriteBuffer}
}

// CreateOptions configure a new store. A nil *CreateOptions means the defaults.
type CreateOptions struct {
	// Compression is the filter policy of every data variable; nil means DefaultCompression.
	Compression *Compression
}

func (o *CreateOptions) compression() (Compression, error) {
	if o == nil || o.Compression == nil {
		return DefaultCompression, nil
	}
	c := *o.Compression
	if c.Deflate && (c.Level < 0 || c.Level > 9) {
		return c, invalidIn("create", ArgCompression, "level", "%d is outside 0–9", c.Level)
	}
	if !c.Deflate {
		c = Compression{}
	}
	return c, nil
}

// Create makes a new store at path (and path+".sqlite"). Neither file may exist.
func Create(path string, opts *CreateOptions) (*Store, error) {
	const op = "create"
	comp, err := opts.compression()
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, invalid(op, ArgPath, "is empty")
	}
	for _, p := range []string{path, CatalogPath(path)} {
		if _, err := os.Stat(p); err == nil {
			return nil, invalid(op, ArgPath, "%s already exists; open it, or remove both files of the old store first", p)
		}
	}
	nc, err := ncstore.Create(path, comp, false)
	if err != nil {
		return nil, ncErr(err)
	}
	cat, err := catalog.Open(CatalogPath(path), false, true)
	if err != nil {
		nc.Close()
		os.Remove(path)
		os.Remove(CatalogPath(path))
		return nil, wrapIO(op, err, "creating catalog %s", CatalogPath(path))
	}
	id, err := lifecycle.Claim(op, path, false)
	if err != nil {
		nc.Close()
		cat.Close()
		return nil, ncErr(err)
	}
	return assembleStore(path, nc, cat, false, false, id), nil
}

// Open opens an existing store for reading and writing. Both files must exist; the format
// version must be exactly DataFormatVersion.
func Open(path string) (*Store, error) { return openStore(path, false) }

// OpenReadOnly opens an existing store without write access: it runs no DDL, needs no write
// permission on the files, and every write fails with ErrReadOnly.
func OpenReadOnly(path string) (*Store, error) { return openStore(path, true) }

func openStore(path string, readOnly bool) (*Store, error) {
	const op = "open"
	if err := openChecks(op, path, readOnly); err != nil {
		return nil, ncErr(err)
	}
	id, err := lifecycle.Claim(op, path, readOnly)
	if err != nil {
		return nil, ncErr(err)
	}
	nc, cat, err := lifecycle.OpenPair(op, path, readOnly)
	if err != nil {
		lifecycle.Release(id, readOnly)
		return nil, ncErr(err)
	}
	s := assembleStore(path, nc, cat, readOnly, false, id)
	if readOnly {
		if err := s.indexIfPacked(); err != nil {
			s.Close()
			return nil, ncErr(err)
		}
	}
	if !readOnly {
		if err := lifecycle.CleanOrphans(cat, nc); err != nil {
			s.Close()
			return nil, withOp(op, err)
		}
		// A rewrite killed before its commit point left its files; the old pair is the
		// store, and this open holds it, so they can go. (A directory with other files in it
		// is left for its owner.)
		lifecycle.RemoveStaleRewrite(path)
	}
	return s, nil
}

// indexIfPacked has a read-only file list its arrays now when the catalog holds a row stored
// in a packed column, so that the first packed read after an open costs what it did when
// every open listed them. A store of forecasts alone is never listed for its reads
// (ncstore/lazyindex.go).
func (s *Store) indexIfPacked() error {
	packed, err := s.cat.HasRowOfType(packedTypeNames)
	if err != nil {
		packed = true // a catalog that cannot say: index, as before
	}
	if !packed {
		return nil
	}
	return s.nc.IndexNow()
}

// openChecks are what an open of the pair at path checks before it claims it: no handle of
// this process refuses it, a rewrite cut short after its commit point is finished, and a
// writable open may write.
func openChecks(op, path string, readOnly bool) error {
	if err := lifecycle.Probe(op, path, readOnly); err != nil {
		return err
	}
	if err := lifecycle.FinishCommittedRewrite(op, path, readOnly); err != nil {
		return err
	}
	if readOnly {
		return nil
	}
	return lifecycle.CheckWritable(op, path)
}

// InMemory makes a store that lives in memory only (netcdf-c's in-memory mode and an
// in-memory SQLite database). Persist writes it to disk.
func InMemory(opts *CreateOptions) (*Store, error) {
	comp, err := opts.compression()
	if err != nil {
		return nil, err
	}
	nc, err := ncstore.Create("tsstore-in-memory.nc", comp, true)
	if err != nil {
		return nil, ncErr(err)
	}
	cat, err := catalog.OpenMemory()
	if err != nil {
		nc.Close()
		return nil, wrapIO("in_memory", err, "creating the in-memory catalog")
	}
	return assembleStore("", nc, cat, false, true, lifecycle.FileID{}), nil
}

// Path is the NetCDF path of the store ("" for an in-memory store).
func (s *Store) Path() string { return s.path }

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Recovered says what opening the store rolled back, or "" when nothing: a writer that died
// in the middle of a write leaves a hot journal beside the NetCDF file, and the next writable
// open restores the file's bytes to its last commit from it (core/internal/journal/journal.c).
func (s *Store) Recovered() string { return s.nc.Recovered() }

// Journalled reports whether the store's NetCDF file is written through the rollback
// journal. It is false for read-only and in-memory stores, and where libnetcdf is linked so
// that its HDF5 opens cannot be routed to the journalling driver.
func (s *Store) Journalled() bool { return s.nc.Journalled() }

// JournalStats reports what the NetCDF file's rollback journal has done since the store
// opened: bytes written to it (committed pages' old bytes and record headers) and spills
// (times the overlay of a unit's overwrites was journalled and written into the file).
func (s *Store) JournalStats() (journalBytes, spills uint64) {
	st := s.nc.JournalStats() // a closed store's counters as it closed
	return st.JournalBytes, st.Spills
}

// InMemoryStore reports whether the store lives in memory.
func (s *Store) InMemoryStore() bool { return s.inMemory }

// Compression is the store's filter policy.
func (s *Store) Compression() Compression { return s.nc.Compression() }

// lock takes the store's mutex and checks it is open (and writable when write is set).
// snapshot runs fn, which reads the catalog many times, in one read transaction (see
// catalog.Snapshot); fn's own error comes back as it is.
func (s *Store) snapshot(fn func() error) error {
	var inner error
	err := s.cat.Snapshot(func() error {
		inner = fn()
		return inner
	})
	if inner != nil {
		return inner
	}
	return wrapIO("", err, "ending a catalog read")
}

func (s *Store) lock(op string, write bool) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return invalid(op, ArgNone, "the store is closed")
	}
	if write && s.readOnly {
		s.mu.Unlock()
		return newErr(ErrReadOnly, op, ArgNone, "the store was opened read-only")
	}
	if err := s.nc.JournalFailure(); err != nil {
		s.mu.Unlock()
		var je *journal.Error
		errors.As(err, &je)
		return &Error{Kind: ErrIO, Op: op, Arg: ArgPath, Msg: err.Error(), Err: je.Errno}
	}
	return nil
}

// Flush makes every write so far durable: it commits the open unit of work (see unit.go) —
// pending arrays written, the NetCDF file synced, then the catalog committed. After Flush the
// two files alone hold the whole store. Inside a transaction Flush is refused: Commit is the
// durability point there.
func (s *Store) Flush() error {
	const op = "flush"
	if err := s.lock(op, false); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.readOnly {
		return nil
	}
	if s.unit.user > 0 {
		return invalid(op, ArgNone, "a transaction is open; Commit makes it durable")
	}
	return withOp(op, s.flushLocked())
}

func (s *Store) flushLocked() error {
	if s.cat.Depth() == 0 {
		return wrapIO("", s.nc.Sync(), "syncing the NetCDF file")
	}
	return s.commitUnit()
}

// Close commits what is pending (as Flush does) and closes the store; an open transaction
// is rolled back, as database/sql does. Closing twice is harmless.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	var unitErr error
	if !s.readOnly {
		for s.unit.user > 0 {
			s.unit.user--
			if err := s.rollbackLevel(); err != nil && unitErr == nil {
				unitErr = err
			}
		}
		err := s.commitUnit()
		var noRoom *lifecycle.NoRoom
		if errors.As(err, &noRoom) {
			// Close cannot leave the writes pending: they go, and the error says so.
			err = &Error{Kind: ErrIO, Err: noRoom, Msg: noRoom.Lost()}
			if rerr := s.rollbackLevel(); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		if err != nil && unitErr == nil {
			unitErr = err
		}
	}
	s.closed = true
	closeErr := s.nc.Close()
	catErr := s.cat.Close()
	if !s.inMemory {
		lifecycle.Release(s.file, s.readOnly)
	}
	if unitErr != nil {
		return withOp("close", unitErr)
	}
	if closeErr != nil {
		return wrapIO("close", closeErr, "closing the NetCDF file")
	}
	return wrapIO("close", catErr, "closing the catalog")
}

// Persist writes an in-memory store to path and path+".sqlite" (neither may exist). The
// store stays in memory; open the written pair to work on disk.
func (s *Store) Persist(path string) error {
	const op = "persist"
	if err := s.lock(op, false); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if !s.inMemory {
		return invalid(op, ArgNone, "only an in-memory store can be persisted; this one is already at %s", s.path)
	}
	if s.unit.user > 0 {
		return invalid(op, ArgNone, "a transaction is open; commit it first")
	}
	if err := s.flushLocked(); err != nil {
		return withOp(op, err)
	}
	if path == "" {
		return invalid(op, ArgPath, "is empty")
	}
	for _, p := range []string{path, CatalogPath(path)} {
		if _, err := os.Stat(p); err == nil {
			return invalid(op, ArgPath, "%s already exists", p)
		}
	}
	if err := s.nc.CopyTo(path); err != nil {
		return ncErr(err)
	}
	if err := s.cat.VacuumInto(CatalogPath(path)); err != nil {
		os.Remove(path)
		os.Remove(CatalogPath(path))
		return wrapIO(op, err, "writing catalog %s", CatalogPath(path))
	}
	return nil
}

// SetReadCache sets how many bytes of decoded column blocks the store keeps for one-at-a-time
// reads of packed series (default DefaultReadCacheBytes); 0 turns the cache off.
func (s *Store) SetReadCache(bytes int) error {
	if err := s.lock("set_read_cache", false); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if bytes < 0 {
		return invalid("set_read_cache", ArgBytes, "%d is negative", bytes)
	}
	s.nc.SetReadCache(bytes)
	return nil
}
