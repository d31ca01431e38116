package ncstore

import "sync"

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

// snapshot is every row, or nil when a row is not decoded.
func (c *decodedRows) snapshot() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.rows {
		if r == nil {
			return nil
		}
	}
	return c.rows
}
