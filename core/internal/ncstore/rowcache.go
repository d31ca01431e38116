package ncstore

import (
	"sync"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// decodedRows keeps the rows of a packed dataset that direct reads (direct.go, readahead.go)
// decoded, for the later reads of a read-only file. It stands in for HDF5's chunk cache,
// which direct reads bypass: like that cache (packedCacheSize) it exists only for datasets
// whose rows all fit in packedCacheCap, and then keeps every row it is given, so repeated
// bulk reads, single Gets after a bulk read and repeated sweeps copy rows instead of
// inflating them again. A read-only file's rows never change, so nothing is invalidated.
// Workers add rows concurrently, hence the mutex.
type decodedRows struct {
	mu   sync.Mutex
	rows [][]byte // by row; nil: not decoded yet
}

// decodedOf is ds's cache of decoded rows, nil for a dataset too large to keep.
func decodedOf(ds *Packed) *decodedRows {
	if ds.decoded == nil && !ds.tooLarge {
		if bytes, _ := packedCacheSize(ds); bytes == 0 {
			ds.tooLarge = true
		} else {
			ds.decoded = &decodedRows{rows: make([][]byte, ds.fam.length)}
		}
	}
	return ds.decoded
}

// get is row t decoded, or nil. A nil cache holds nothing.
func (c *decodedRows) get(t int) []byte {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rows[t]
}

// put keeps row, decoded, as row t; row must not change afterwards.
func (c *decodedRows) put(t int, row []byte) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.rows[t] = row
	c.mu.Unlock()
}

// DecodeAhead starts decoding every row of ds into its decoded rows, and returns what waits
// for that to end; nil when there is nothing to start: a file not read directly, a dataset
// too large to keep decoded, or a single worker. A bulk read calls it for each dataset its
// catalog pass finds a series in, while the pass goes on: the pass is SQLite's work on the
// calling goroutine, and a whole read of any column of a packed dataset decodes all of its
// rows anyway. So the decode runs on one goroutine fewer than there are workers, leaving the
// pass its core: on two, decoding on both slowed the pass by as much as it saved. It takes
// the process-wide lock for each stored chunk it reads. A row that fails to decode is not
// kept, and the read that asks for it reads it again and reports the failure; so waiting
// reports nothing. The caller must wait before it reads ds or closes the file.
func (f *File) DecodeAhead(ds *Packed) (wait func()) {
	p, ok := f.canReadDirect(ds)
	kept := decodedOf(ds)
	workers := chunkpipe.Threads() - 1
	if !ok || kept == nil || workers < 1 {
		return nil
	}
	set := f.h5.sets[ds.varid]
	waits := make([]func() error, workers)
	for w := range waits {
		waits[w] = chunkpipe.Go(func() error {
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
					return err
				}
				stored = b
				if _, err := decodeRow(p, ds, t, b, mask, nil, &scratch, kept); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return func() {
		for _, w := range waits {
			_ = w()
		}
	}
}
