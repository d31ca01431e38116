package ncstore

import (
	"slices"
	"sync"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
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
// are workers, leaving the pass its core: decoding on both slowed the pass by what it saved.

// Ahead is the work started on one dataset while a bulk read's catalog pass runs.
type Ahead struct {
	ds   *Packed
	mu   sync.Mutex
	more *sync.Cond
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
// per row for 8 bytes.
const aheadBatch = 256

// DecodeAhead starts an Ahead on ds, or returns nil when there is nothing to start: a file not
// read directly, a dataset too large to keep decoded, or a single worker. The caller must
// Wait before it reads ds or closes the file; the goroutines take the process-wide lock for
// each stored chunk they read. A row that fails to decode is not kept, and the read that asks
// for it reads it again and reports the failure; so nothing an Ahead does fails.
func (f *File) DecodeAhead(ds *Packed) *Ahead {
	p, ok := f.canReadDirect(ds)
	kept := decodedOf(ds)
	workers := chunkpipe.Threads() - 1
	if !ok || kept == nil || workers < 1 {
		return nil
	}
	a := &Ahead{ds: ds, asked: make([]bool, ds.cols), ready: map[int]readyColumn{}}
	a.more = sync.NewCond(&a.mu)
	var decoded sync.WaitGroup
	decoded.Add(workers)
	for w := range workers {
		a.waits = append(a.waits, chunkpipe.Go(func() error {
			f.decodeRowsAhead(ds, p, kept, w, workers)
			decoded.Done()
			decoded.Wait()
			a.gather(kept.snapshot())
			return nil
		}))
	}
	return a
}

// decodeRowsAhead decodes rows w, w+workers, … of ds into kept, up to the first that fails.
func (f *File) decodeRowsAhead(ds *Packed, p chunkpipe.Pipeline, kept *decodedRows, w, workers int) {
	set := f.h5.sets[ds.varid]
	offset := make([]uint64, 2+len(ds.eshape))
	var stored []byte
	var scratch chunkpipe.Scratch
	for t := w; t < ds.fam.length; t += workers {
		if kept.get(t) != nil {
			continue
		}
		serial.Lock()
		b, mask, err := f.storedRow(ds, set, offset, t, stored)
		if err == nil {
			f.readAhead++
		}
		serial.Unlock()
		if err != nil {
			return
		}
		stored = b
		if _, err := decodeRow(p, ds, t, b, mask, nil, &scratch, kept); err != nil {
			return
		}
	}
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

// Wait says no more columns will be wanted and waits for the goroutines to end.
func (a *Ahead) Wait() {
	if a == nil || a.waits == nil {
		return
	}
	a.mu.Lock()
	a.closed = true
	a.more.Broadcast()
	a.mu.Unlock()
	for _, w := range a.waits {
		_ = w()
	}
	a.waits = nil
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

// take is the next batch of wanted columns, in column order: at least aheadBatch of them, or
// what is left once Wait was called; nil when none is left.
func (a *Ahead) take() []aheadColumn {
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.wanted) < aheadBatch && !a.closed {
		a.more.Wait()
	}
	b := a.wanted
	a.wanted = nil
	slices.SortFunc(b, func(x, y aheadColumn) int { return x.col - y.col })
	return b
}

// gather gathers the wanted columns from rows (every row of the dataset, nil when one did
// not decode: then the read does the work) and keeps those that hash to their digest.
func (a *Ahead) gather(rows [][]byte) {
	ds := a.ds
	eb := ds.elementBytes()
	shape := append([]uint64{uint64(ds.fam.length)}, ToU64(ds.eshape)...)
	k := min(rowsPerItem(ds.cols*eb), max(ds.fam.length, 1))
	for {
		batch := a.take()
		if len(batch) == 0 {
			return
		}
		if rows == nil {
			continue
		}
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
}
