package core

import (
	"errors"
	"slices"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/lifecycle"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// The write protocol.
//
// Every write joins the store's unit of work: one SQLite transaction under which each call
// runs in its own savepoint, so a failed call undoes exactly itself. Catalog rows go into
// SQLite at once, so every read on this store sees them; the arrays they name wait in memory
// (pending) until the unit commits (commitUnit), which happens in this order:
//
//  1. the pending arrays are written to the NetCDF file (writePending) — every new variable
//     and dataset in one define phase, packed columns in row bands covering whole chunks.
//     The file's rollback journal (core/internal/journal/journal.c) keeps every byte the last
//     commit left: a write below the file's length at the unit's start waits in the
//     driver's in-memory overlay, and reaches the file only after the bytes it replaces are
//     in the journal and the journal is synced;
//  2. the file is synced (ncstore.File.Sync): nc_sync hands HDF5's buffers to the driver, which
//     journals and writes what is left of the overlay; then Journal.EndUnit fdatasyncs the
//     file and empties the journal (truncated and synced) — the file's commit point. An
//     on-disk file opened without the journal (Store.Journalled false) is fsynced instead
//     (fsyncNC);
//  3. the SQLite transaction commits — the unit's durability point;
//  4. arrays whose last row the unit deleted are freed (freeUnreferenced: packed columns
//     zero-filled, hash slots emptied). These writes open the next unit of the journal and
//     reach the disk at its commit or at Close.
//
// A crash before the end of 2 loses the unit whole: the next open returns the file to its
// last commit (it plays back a hot journal; before the first spill no committed byte was
// overwritten), and SQLite's own journal drops the rows. A crash between 2 and 3 leaves
// arrays in the file that no row names, and a crash after 3 can leave the removed arrays
// unfreed. No row ever names an array that is not on disk (docs/format.md §10.8: array first,
// then catalog), and the next writable open frees such packed columns and stops trusting
// such standalone variables (see lifecycle.CleanOrphans).
//
// Outside a user transaction the unit commits at Flush, Close, Persist, Begin and Compact,
// and as soon as its pending arrays exceed the write buffer or it has changed
// maxUnitChanges rows. A user transaction (Begin … Commit) is the unit itself; a nested
// Begin is a savepoint, and only the outermost Commit is durable.
type unitState struct {
	user         int   // depth of user transactions
	seq          int64 // staging order of arrays, for savepoint rollback
	pending      []*staged
	pendingIx    map[ncstore.ArrayKey]*staged
	pendingBytes int
	written      []writtenArray // arrays this unit put in the file (freed if it rolls back)
	frees        [][]byte       // hashes whose rows this unit deleted
	marks        []unitMark     // one per open catalog level
	changes      int            // rows inserted or deleted by the unit
}

type writtenArray struct {
	key ncstore.ArrayKey
	seq int64
}

// unitMark is the unit's state when a catalog level opened, restored when it rolls back.
type unitMark struct {
	seq     int64
	frees   int
	changes int
}

const (
	// DefaultWriteBuffer is how many bytes of arrays a unit holds before writing them out.
	DefaultWriteBuffer = 256 << 20
	// maxUnitChanges bounds the rows an implicit unit changes before it commits, so that a
	// long run of row-only writes (removes, transforms) reaches the disk too.
	maxUnitChanges = 200_000
)

// SetWriteBuffer sets how many bytes of pending arrays the store holds before writing them
// to the NetCDF file (default DefaultWriteBuffer). Outside a transaction that write also
// commits, so the buffer bounds what a crash can lose.
func (s *Store) SetWriteBuffer(bytes int) error {
	if err := s.lock("set_write_buffer", false); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if bytes < 0 {
		return invalid("set_write_buffer", ArgBytes, "%d is negative", bytes)
	}
	s.writeBuffer = bytes
	return nil
}

// mutate runs one write call as a savepoint of the store's unit.
func (s *Store) mutate(op string, fn func() error) error {
	if err := s.lock(op, true); err != nil {
		return err
	}
	defer s.mu.Unlock()
	return withOp(op, s.mutateLocked(fn))
}

func (s *Store) mutateLocked(fn func() error) error {
	if s.cat.Depth() == 0 {
		if err := s.openLevel(); err != nil {
			return err
		}
	}
	if err := s.openLevel(); err != nil {
		return err
	}
	err := s.runUndoingPanics(fn)
	if err == nil && s.unit.pendingBytes > s.writeBuffer {
		// Written while the call's savepoint is open, so a failure undoes this call only.
		err = s.writePending()
		var noRoom *lifecycle.NoRoom
		if errors.As(err, &noRoom) {
			err = &Error{Kind: ErrIO, Err: noRoom, Msg: noRoom.Undone()}
		}
	}
	if err == nil {
		err = s.releaseLevel()
	}
	if err != nil {
		if rerr := s.rollbackLevel(); rerr != nil {
			return errors.Join(err, rerr)
		}
		if s.unit.user == 0 && s.cat.Depth() == 1 && s.unit.empty() {
			// The refused call opened the unit: end it with ROLLBACK, so that pages it
			// dirtied and restored are not written back at the next commit (refused input
			// leaves the files byte for byte as they were).
			return errors.Join(err, s.rollbackLevel())
		}
		return err
	}
	if s.unit.user == 0 && (s.unit.changes > maxUnitChanges || s.unit.written != nil) {
		return s.commitUnit()
	}
	return nil
}

// runUndoingPanics runs fn inside the level mutateLocked opened. A panic in it (a bug) rolls
// that level back, and the unit's own level too when the call opened it and it holds no
// work, as a refusal does, on its way up: the C library turns it into an internal error, and
// the store must stay usable and as it was. It does not recover, so the panic keeps the
// stack it was raised with.
func (s *Store) runUndoingPanics(fn func() error) error {
	returned := false
	defer func() {
		if !returned {
			s.rollbackLevel()
			if s.unit.user == 0 && s.cat.Depth() == 1 && s.unit.empty() {
				s.rollbackLevel()
			}
		}
	}()
	err := fn()
	returned = true
	return err
}

func (s *Store) openLevel() error {
	if err := s.cat.Begin(); err != nil {
		return wrapIO("", err, "opening a catalog transaction")
	}
	s.unit.marks = append(s.unit.marks, unitMark{seq: s.unit.seq, frees: len(s.unit.frees), changes: s.unit.changes})
	return nil
}

// releaseLevel ends the innermost level, keeping its work in the enclosing one.
func (s *Store) releaseLevel() error {
	if err := s.cat.Commit(); err != nil {
		return wrapIO("", err, "releasing a catalog savepoint")
	}
	s.unit.marks = s.unit.marks[:len(s.unit.marks)-1]
	return nil
}

// rollbackLevel undoes the innermost level: its rows, its pending arrays, the arrays it
// wrote to the file, and the frees it scheduled.
func (s *Store) rollbackLevel() error {
	m := s.unit.marks[len(s.unit.marks)-1]
	s.unit.marks = s.unit.marks[:len(s.unit.marks)-1]
	err := s.cat.Rollback()
	u := &s.unit
	keep := u.pending[:0]
	for _, p := range u.pending {
		if p.seq < m.seq {
			keep = append(keep, p)
			continue
		}
		delete(u.pendingIx, p.arrKey())
		u.pendingBytes -= len(p.arr.Data)
	}
	u.pending = keep
	var drop []hashing.Digest
	kept := u.written[:0]
	for _, w := range u.written {
		if w.seq < m.seq {
			kept = append(kept, w)
		} else if w.key.Packed {
			drop = append(drop, w.key.Digest)
		}
	}
	u.written = kept
	u.frees, u.changes = u.frees[:m.frees], m.changes
	if ferr := s.nc.Free(drop); ferr != nil && err == nil {
		err = ferr
	}
	if len(u.marks) == 0 {
		s.unit = newUnit()
	}
	return wrapIO("", err, "rolling back")
}

// empty reports whether the unit holds no work: no rows, arrays or frees.
func (u *unitState) empty() bool {
	return u.changes == 0 && len(u.pending) == 0 && len(u.written) == 0 && len(u.frees) == 0
}

func newUnit() unitState { return unitState{pendingIx: map[ncstore.ArrayKey]*staged{}} }

// stage accepts an array for the unit unless the file or the unit already holds it. The
// bytes are copied: the caller may reuse its buffer as soon as the call returns.
func (s *Store) stage(p *prepared, into *staged) {
	k := p.arrKey()
	if s.nc.Holds(k) || s.unit.pendingIx[k] != nil {
		return
	}
	*into = p.staged
	into.arr.Data = ncstore.AlignedBytes(len(p.arr.Data))
	copy(into.arr.Data, p.arr.Data)
	into.seq = s.unit.seq
	s.unit.seq++
	s.unit.pending = append(s.unit.pending, into)
	s.unit.pendingIx[k] = into
	s.unit.pendingBytes += len(into.arr.Data)
}

// stageAll stages the arrays of ps (stage), their bookkeeping sized for all of them at once.
func (s *Store) stageAll(ps []*prepared) {
	u := &s.unit
	u.pending = slices.Grow(u.pending, len(ps))
	if len(u.pendingIx) == 0 && len(ps) > 1 {
		u.pendingIx = make(map[ncstore.ArrayKey]*staged, len(ps))
	}
	staging := make([]staged, len(ps)) // one allocation for the call's pending arrays
	for i, p := range ps {
		s.stage(p, &staging[i])
	}
}

// staged is an array the unit holds until it writes it to the file: the unit's own copy of
// the data and what the file needs to place it. A prepared add embeds one, with the array
// as the caller gave it; the add's catalog row and key stay behind (they are in the catalog
// and with the caller): 160 bytes a pending series rather than a prepared's 688, which a bulk
// add of 100,000 held until its flush.
type staged struct {
	arr     TypedArray
	digest  hashing.Digest
	packed  bool
	res     Period   // resolution (the packed family's, for a SingleTimeSeries)
	chunks  []uint64 // standalone chunking; nil is one whole-array chunk
	batchID int64    // the batch add it came from (0: a one-at-a-time add)
	seq     int64    // staging order within the unit of work
}

// pendingArray is the unit's copy of an array not yet in the file.
func (s *Store) pendingArray(d hashing.Digest, packed bool) (*staged, bool) {
	p, ok := s.unit.pendingIx[ncstore.ArrayKey{Digest: d, Packed: packed}]
	return p, ok
}

// writePending writes the unit's pending arrays into the file (uncommitted). Arrays whose
// rows the unit has since deleted are dropped rather than written.
func (s *Store) writePending() error { return s.writePendingAs(s.nc.WriteArrays) }

// writePendingAs is writePending through write, one of the file's WriteArrays.
func (s *Store) writePendingAs(write func([]*ncstore.Array) ([]ncstore.ArrayKey, error)) error {
	u := &s.unit
	if len(u.pending) == 0 {
		return nil
	}
	ps := u.pending
	// Arrays whose rows this unit deleted need not be written — unless a savepoint above the
	// unit's base is open, whose rollback could bring a row back.
	if len(u.frees) > 0 && s.cat.Depth() <= 1 {
		var live []*staged
		for _, p := range ps {
			n, err := s.cat.CountByHash(p.digest[:])
			if err != nil {
				return wrapIO("", err, "counting references to %x", p.digest[:])
			}
			if n > 0 {
				live = append(live, p)
			}
		}
		ps = live
	}
	arrays := storedArrays(ps)
	if err := s.checkRoom(arrays); err != nil {
		return err
	}
	written, err := write(arrays)
	seqOf := make(map[ncstore.ArrayKey]int64, len(ps))
	for _, p := range ps {
		seqOf[p.arrKey()] = p.seq
	}
	u.written = slices.Grow(u.written, len(written))
	for _, k := range written {
		u.written = append(u.written, writtenArray{k, seqOf[k]})
	}
	if err != nil {
		return wrapIO("", err, "writing arrays to the NetCDF file")
	}
	u.pending, u.pendingIx, u.pendingBytes = nil, map[ncstore.ArrayKey]*staged{}, 0
	return nil
}

// commitUnit makes the unit durable in the order the protocol above gives, or, when any step
// fails, rolls the whole unit back and reports why.
func (s *Store) commitUnit() error {
	if s.cat.Depth() == 0 {
		return nil
	}
	if s.cat.Depth() != 1 {
		return newErr(ErrInternal, "", ArgNone, "commit with %d levels open", s.cat.Depth())
	}
	err := s.writePendingAs(s.nc.WriteArraysBeforeSync) // the Sync below follows at once
	var noRoom *lifecycle.NoRoom
	if errors.As(err, &noRoom) {
		return err // nothing was written: the unit stays, to be flushed once there is room
	}
	if err == nil {
		err = wrapIO("", s.nc.Sync(), "syncing the NetCDF file")
	}
	if err == nil {
		err = wrapIO("", s.fsyncNC(), "fsync of the NetCDF file")
	}
	if err == nil {
		err = wrapIO("", s.cat.Commit(), "committing the catalog")
	}
	if err != nil {
		if rerr := s.rollbackLevel(); rerr != nil {
			err = errors.Join(err, rerr)
		}
		msg := "the commit failed, so every write since the previous commit was rolled back"
		if jerr := s.nc.JournalFailure(); jerr != nil {
			msg = "the commit failed and the catalog was rolled back; " + jerr.Error()
		}
		e := &Error{Kind: ErrIO, Msg: msg, Err: err}
		var se *Error
		if errors.As(err, &se) {
			e.Kind = se.Kind
		}
		return e
	}
	frees := s.unit.frees
	s.unit = newUnit()
	if err := s.freeUnreferenced(frees); err != nil {
		// The commit stands; the columns stay unreferenced until the next writable open
		// frees them (lifecycle.CleanOrphans).
		return wrapIO("", err, "committed, but freeing the removed series' columns failed")
	}
	return nil
}

// fsyncNC makes the NetCDF file's bytes durable before the catalog commits: nc_sync hands
// HDF5's buffers to the operating system, which may still lose them in a machine crash.
func (s *Store) fsyncNC() error {
	if s.inMemory || s.readOnly || s.nc.Journalled() {
		return nil // a journalled file was made durable by its sync (ncstore.File.Sync)
	}
	return lifecycle.FsyncPath(s.path)
}

// freeUnreferenced frees the arrays among hashes that no row references any more.
func (s *Store) freeUnreferenced(hashes [][]byte) error {
	seen := map[hashing.Digest]bool{}
	var free []hashing.Digest
	for _, h := range hashes {
		var d hashing.Digest
		copy(d[:], h)
		if seen[d] {
			continue
		}
		seen[d] = true
		n, err := s.cat.CountByHash(h)
		if err != nil {
			return wrapIO("", err, "counting references to %x", h)
		}
		if n == 0 {
			free = append(free, d)
		}
	}
	return wrapIO("", s.nc.Free(free), "freeing packed columns")
}

// Begin opens a transaction: the writes until the matching Commit or Rollback are one unit,
// all kept or all undone. Begin inside a transaction opens a nested one (a savepoint); only
// the outermost Commit is durable. Reads inside see the transaction's writes. Writes made
// before Begin outside any transaction are committed first.
func (s *Store) Begin() error {
	const op = "begin"
	if err := s.lock(op, true); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.unit.user == 0 {
		if err := s.commitUnit(); err != nil {
			return withOp(op, err)
		}
	}
	if err := s.openLevel(); err != nil {
		return withOp(op, err)
	}
	s.unit.user++
	return nil
}

// Commit ends the innermost transaction. The outermost one is made durable (see the write
// protocol); a failure there rolls the whole transaction back and is returned.
func (s *Store) Commit() error {
	const op = "commit"
	if err := s.lock(op, true); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.unit.user == 0 {
		return invalid(op, ArgNone, "no transaction is open")
	}
	if s.unit.user == 1 {
		s.unit.user = 0
		return withOp(op, s.commitUnit()) // on failure the whole transaction is rolled back
	}
	if err := s.releaseLevel(); err != nil {
		return withOp(op, err) // the level stays open: Rollback still undoes it
	}
	s.unit.user--
	return nil
}

// Rollback undoes the innermost transaction: its rows, its arrays and its removals (array
// frees wait for the outermost commit, so a rolled-back removal loses nothing).
func (s *Store) Rollback() error {
	const op = "rollback"
	if err := s.lock(op, true); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.unit.user == 0 {
		return invalid(op, ArgNone, "no transaction is open")
	}
	s.unit.user--
	return withOp(op, s.rollbackLevel())
}

// InTransaction runs fn in a transaction: committed when fn returns nil, rolled back when it
// returns an error (which is returned) or panics (which is re-raised).
func (s *Store) InTransaction(fn func() error) (err error) {
	if err := s.Begin(); err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			s.Rollback()
		}
	}()
	if err := fn(); err != nil {
		done = true
		if rerr := s.Rollback(); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	done = true
	return s.Commit()
}

// InTransactionDepth is the number of open user transactions.
func (s *Store) InTransactionDepth() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unit.user
}

// checkRoom refuses a write of arrays, with nothing written, when the file has no room for
// them (lifecycle.CheckRoom).
func (s *Store) checkRoom(arrays []*ncstore.Array) error {
	if err := lifecycle.CheckRoom(s.nc, arrays); err != nil {
		return &Error{Kind: ErrIO, Msg: err.Error(), Err: err}
	}
	return nil
}

// arrKey is the content address and storage mode under which the unit and the file know an
// array.
func (p *staged) arrKey() ncstore.ArrayKey {
	return ncstore.ArrayKey{Digest: p.digest, Packed: p.packed}
}

// stored is p's array as the NetCDF layer writes it.
func (p *staged) stored() *ncstore.Array {
	return &ncstore.Array{Digest: p.digest, Packed: p.packed, DType: p.arr.DType, Shape: p.arr.Shape,
		Data: p.arr.Data, Resolution: p.res.String(), Chunks: p.chunks, Batch: p.batchID}
}

func storedArrays(ps []*staged) []*ncstore.Array {
	out := make([]*ncstore.Array, len(ps))
	for i, p := range ps {
		out[i] = p.stored()
	}
	return out
}
