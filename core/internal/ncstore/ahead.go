package ncstore

import (
	"slices"
	"sync"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/h5"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// A bulk read's catalog pass is SQLite's work on the calling goroutine: about 5 µs a series
// of 10,000 × 168 f64, during which the other cores idle, and only then were the packed
// datasets read. So the pass hands each row it finds to the read (core's rowsAhead), and the
// first row of a dataset starts an Ahead on it: every row decoded into the read-only
// file's decoded rows (a whole read of any column decodes all of them anyway), then each
// column the pass wants gathered whole and checked against its digest, on the goroutines.
// The read then copies the columns it finds ready. It runs on one goroutine fewer than there
// are workers in all, whatever the number of datasets (Slots), leaving the pass its core:
// decoding on both of two slowed the pass by what it saved.

// Ahead is the work started on one dataset while a bulk read's catalog pass runs.
type Ahead struct {
	ds    *Packed
	slots Slots
	mu    sync.Mutex
	more  *sync.Cond
	// wanted are the columns asked for and not yet taken by a goroutine; closed: no more
	// will be (Wait).
	wanted []aheadColumn
	closed bool
	asked  []bool // by column: wanted already (the calling goroutine's)
	waits  []func() error
	// ready holds each column gathered and found to hash to the digest it was wanted with,
	// with that digest; written by the goroutines, read after Wait.
	ready map[int]readyColumn
}

type aheadColumn struct {
	col    int
	digest hashing.Digest
}

type readyColumn struct {
	data   []byte
	digest hashing.Digest
}

// aheadBatch is how many wanted columns a goroutine waits for before it gathers them: the
// gather walks every row once per batch, so a batch of one column would read a cache line
// per row for 8 bytes. A goroutine takes at most aheadBatchMax, so that what is left when
// the pass ends is shared among the goroutines.
const (
	aheadBatch    = 256
	aheadBatchMax = 4 * aheadBatch
)

// Slots bounds the goroutines of one bulk read's Aheads that work at once, across all its
// datasets: one fewer than there are workers (NewSlots), so that the catalog pass keeps a
// core however many datasets it meets.
type Slots chan struct{}

// NewSlots is a read's Slots, nil when there are no workers to spare.
func NewSlots() Slots {
	if n := chunkpipe.Threads() - 1; n >= 1 {
		return make(Slots, n)
	}
	return nil
}

// run runs fn while holding a slot.
func (s Slots) run(fn func()) {
	s <- struct{}{}
	defer func() { <-s }()
	fn()
}

// DecodeAhead starts an Ahead on ds whose goroutines work within slots (the read's, shared
// by its datasets), or returns nil when there is nothing to start: a file not read
// directly, a dataset too large to keep decoded, no slots. The caller must Wait before it
// reads ds or closes the file; the goroutines take the process-wide lock for each stored
// chunk they read. A row that fails to decode is not kept, and the read that asks for it
// reads it again and reports the failure; so nothing an Ahead does fails but a panic, which
// Wait raises again.
func (f *File) DecodeAhead(ds *Packed, slots Slots) *Ahead {
	if cap(slots) < 1 {
		return nil
	}
	serial.Lock() // the first use of a dataset reads its filters and chunking from HDF5
	p, ok := f.canReadDirect(ds)
	serial.Unlock()
	kept := decodedOf(ds)
	if !ok || kept == nil {
		return nil
	}
	a := &Ahead{ds: ds, slots: slots, asked: make([]bool, ds.cols), ready: map[int]readyColumn{}}
	a.more = sync.NewCond(&a.mu)
	workers := cap(slots)
	var decoded sync.WaitGroup
	decoded.Add(workers)
	for w := range workers {
		a.waits = append(a.waits, chunkpipe.Go(func() error {
			func() {
				defer decoded.Done() // a panic must not leave the others waiting
				f.decodeRowsAhead(ds, p, kept, w, workers, slots)
			}()
			decoded.Wait()
			a.gather(kept.snapshot())
			return nil
		}))
	}
	return a
}

// decodeRowsAhead decodes rows w, w+workers, … of ds into kept, each within a slot, up to
// the first that fails.
func (f *File) decodeRowsAhead(ds *Packed, p chunkpipe.Pipeline, kept *decodedRows, w, workers int, slots Slots) {
	set := f.h5.sets[ds.varid]
	offset := make([]uint64, 2+len(ds.eshape))
	var stored []byte
	var scratch chunkpipe.Scratch
	for t := w; t < ds.fam.length; t += workers {
		if kept.get(t) != nil {
			continue
		}
		var err error
		slots.run(func() {
			var mask uint32
			if stored, mask, err = f.storedRowAhead(ds, set, offset, t, stored); err == nil {
				_, err = decodeRow(p, ds, t, stored, mask, nil, &scratch, kept)
			}
		})
		if err != nil {
			return
		}
	}
}

// storedRowAhead is storedRow under the process-wide lock, counted in readAhead.
func (f *File) storedRowAhead(ds *Packed, set h5.Dataset, offset []uint64, t int, buf []byte) ([]byte, uint32, error) {
	serial.Lock()
	defer serial.Unlock()
	b, mask, err := f.storedRow(ds, set, offset, t, buf)
	if err == nil {
		f.readAhead++
	}
	return b, mask, err
}

// Want asks for column col, whose array has digest d, to be gathered whole. Called on the
// goroutine that started a, before Wait.
func (a *Ahead) Want(col int, d hashing.Digest) {
	if a == nil || col < 0 || col >= len(a.asked) || a.asked[col] {
		return
	}
	a.asked[col] = true
	a.mu.Lock()
	a.wanted = append(a.wanted, aheadColumn{col, d})
	if len(a.wanted) >= aheadBatch {
		a.more.Signal()
	}
	a.mu.Unlock()
}

// Wait says no more columns will be wanted and waits for the goroutines to end; a panic on
// one of them is raised again here once all have ended. A second Wait does nothing.
func (a *Ahead) Wait() {
	if a == nil || a.waits == nil {
		return
	}
	a.mu.Lock()
	a.closed = true
	a.more.Broadcast()
	a.mu.Unlock()
	waits := a.waits
	a.waits = nil
	chunkpipe.Each(len(waits), func(i int) { _ = waits[i]() }) // the goroutines report no error
}

// Column is column col gathered whole, when it hashed to d; nil otherwise. After Wait.
func (a *Ahead) Column(col int, d hashing.Digest) []byte {
	if a == nil {
		return nil
	}
	if r, ok := a.ready[col]; ok && r.digest == d {
		return r.data
	}
	return nil
}

// take is the next batch of wanted columns, in column order: aheadBatch to aheadBatchMax of
// them, or up to aheadBatchMax of what is left once Wait was called; nil when none is left.
func (a *Ahead) take() []aheadColumn {
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.wanted) < aheadBatch && !a.closed {
		a.more.Wait()
	}
	n := min(len(a.wanted), aheadBatchMax)
	b := slices.Clone(a.wanted[:n])
	a.wanted = a.wanted[n:]
	slices.SortFunc(b, func(x, y aheadColumn) int { return x.col - y.col })
	return b
}

// gather gathers the wanted columns from rows (every row of the dataset, nil when one did
// not decode: then the read does the work) and keeps those that hash to their digest.
func (a *Ahead) gather(rows [][]byte) {
	if gatherHook != nil {
		gatherHook()
	}
	for {
		batch := a.take()
		if len(batch) == 0 {
			return
		}
		if rows != nil {
			a.slots.run(func() { a.gatherBatch(rows, batch) })
		}
	}
}

// gatherHook, when set (by a test), runs on each goroutine before it gathers.
var gatherHook func()

// gatherBatch spreads batch's columns out of rows, a group of rows at a time (each row's
// columns in order), and keeps those that hash to their digest.
func (a *Ahead) gatherBatch(rows [][]byte, batch []aheadColumn) {
	ds := a.ds
	eb := ds.elementBytes()
	shape := append([]uint64{uint64(ds.fam.length)}, ToU64(ds.eshape)...)
	k := min(rowsPerItem(ds.cols*eb), max(ds.fam.length, 1))
	n := ds.fam.length * eb
	slab := AlignedBytes(len(batch) * n)
	reads := make([]*ColumnRead, len(batch))
	for i, c := range batch {
		reads[i] = &ColumnRead{Col: c.col, N: ds.fam.length, Data: slab[i*n : (i+1)*n : (i+1)*n]}
	}
	for r0 := 0; r0 < ds.fam.length; r0 += k {
		spreadRows(rows[r0:min(r0+k, ds.fam.length)], r0, 0, eb, reads)
	}
	for i, c := range batch {
		if hashing.Array(ds.fam.dtype.String(), shape, reads[i].Data, FloatKind(ds.fam.dtype)) != c.digest {
			continue
		}
		a.mu.Lock()
		a.ready[c.col] = readyColumn{reads[i].Data, c.digest}
		a.mu.Unlock()
	}
}
