package ncstore

import "github.com/tsstore/tsstore/core/internal/chunkpipe"

// A StaticReader sweeping steps in order reads row i of each dataset, then i+1: one chunk
// per dataset per step, which leaves nothing to share among workers within a step. So, on a
// read-only file, a RowSet read in order reads ahead: the stored chunks of the next rows
// are read at each step (under the lock the step holds anyway) and inflated on workers while
// the caller works on the current step; the next step finds its row decoded and only copies
// its columns. Out-of-order steps read their row at once, as before.

// rowAhead is a RowSet's ring of rows read ahead: depth rows, row j in slot j % depth.
type rowAhead struct {
	p    chunkpipe.Pipeline
	rows []aheadRow
	last int // the row asked for last
}

// aheadRow is one row of the ring: its stored chunk and, once its decode is waited for, its
// decoded bytes.
type aheadRow struct {
	row     int // -1: none
	stored  []byte
	mask    uint32
	raw     []byte
	pending func() error // waits for the decode in flight, nil when none
	ready   bool         // raw holds row
	scratch chunkpipe.Scratch
}

// readAheadBytes bounds the memory of the rows a RowSet holds read ahead, beyond the fewest
// it always holds: a row's slot holds its stored chunk, the decoded row and a scratch copy
// for unshuffling, about three times the row.
const readAheadBytes = 6 << 20

// readAheadDepth is how many rows of rowBytes a RowSet holds read ahead: eight per worker
// and the one being copied, within readAheadBytes, and never fewer than two per worker and
// one. With two per worker, a 2-thread sweep of 80 KB rows spent 63% of its time waiting
// for a decode, the workers idling between wake-ups; with eight, 45%, and each step took
// 0.0049 against 0.0064 µs per (component, step) (docs/benchmarks.md).
func readAheadDepth(rowBytes int) int {
	t := chunkpipe.Threads()
	return max(2*t+1, min(8*t+1, readAheadBytes/max(3*rowBytes, 1)))
}

// aheadOf is set's read-ahead ring, made on its first read when the file is read-only,
// there are workers to decode on, and the dataset's chunks can be decoded here; nil when the
// set reads through HDF5.
func (f *File) aheadOf(set *RowSet) *rowAhead {
	if set.ahead != nil || set.noAhead {
		return set.ahead
	}
	p, ok := f.canReadDirect(set.DS)
	if !ok || chunkpipe.Threads() < 2 {
		set.noAhead = true
		return nil
	}
	a := &rowAhead{p: p, rows: make([]aheadRow, readAheadDepth(set.DS.cols*set.DS.elementBytes())), last: -2}
	for k := range a.rows {
		a.rows[k].row = -1
	}
	set.ahead = a
	return a
}

// readRowAhead fills set.Buf with row i of its columns from the dataset's decoded rows or
// the ring, then reads ahead when the rows are being read in order. errLeaveToHDF5: a row
// is HDF5's to read, and the set reads through HDF5 from now on.
func (f *File) readRowAhead(set *RowSet, a *rowAhead, i int) error {
	kept := decodedOf(set.DS)
	row := kept.get(i)
	if row == nil {
		e := &a.rows[i%len(a.rows)]
		if err := e.wait(); err != nil {
			return err
		}
		if e.row != i || !e.ready {
			if err := f.fetchRow(set, e, i); err != nil {
				return err
			}
			if err := e.decode(a.p, set.DS, kept); err != nil {
				return err
			}
			e.ready = true
		}
		row = e.raw
	}
	eb := set.DS.elementBytes()
	copy(set.Buf, row[set.Col0*eb:(set.Col0+set.Cols)*eb])
	if i == a.last+1 {
		for j := i + 1; j < min(i+len(a.rows), set.DS.fam.length); j++ {
			if kept.get(j) != nil {
				continue
			}
			f.scheduleRow(set, a, j, kept)
		}
	}
	a.last = i
	return nil
}

// scheduleRow reads row j's stored chunk and starts its decode on a worker, unless the ring
// holds it already. Failures are left for the step that asks for row j: it reads the row
// again and reports them.
func (f *File) scheduleRow(set *RowSet, a *rowAhead, j int, kept *decodedRows) {
	e := &a.rows[j%len(a.rows)]
	if e.row == j {
		return
	}
	_ = e.wait()
	if f.fetchRow(set, e, j) != nil {
		return
	}
	ds := set.DS
	e.pending = chunkpipe.Go(func() error { return e.decode(a.p, ds, kept) })
}

// fetchRow reads row t's stored chunk into e (under the lock the caller holds).
func (f *File) fetchRow(set *RowSet, e *aheadRow, t int) error {
	e.row, e.ready = -1, false
	if set.chunkOff == nil {
		set.chunkOff = make([]uint64, len(set.start))
	}
	stored, mask, err := f.storedRow(set.DS, f.h5.sets[set.DS.varid], set.chunkOff, t, e.stored)
	if err != nil {
		return err
	}
	e.stored, e.mask, e.row = stored, mask, t
	return nil
}

// decode inflates e's stored chunk, a row of ds, into e.raw (decodeRow). It runs on a worker
// while the row is in flight, and touches only e and kept.
func (e *aheadRow) decode(p chunkpipe.Pipeline, ds *Packed, kept *decodedRows) error {
	row, err := decodeRow(p, ds, e.row, e.stored, e.mask, e.raw, &e.scratch, kept)
	if err != nil {
		return err
	}
	e.raw = row
	return nil
}

// wait waits for e's decode in flight, if any, and says how it went; a panic in the decode
// is raised again here.
func (e *aheadRow) wait() error {
	if e.pending == nil {
		return nil
	}
	err := e.pending()
	e.pending = nil
	if err == nil {
		e.ready = true
	} else {
		e.row = -1
	}
	return err
}
