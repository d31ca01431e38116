package ncstore

// A packed chunk holds one timestamp of every column of its dataset (docs/format.md §7.3:
// chunks of (1, cols, *E)), so reading one whole column decompresses every chunk of the
// dataset: a Get from a 10,000-column hourly dataset inflates 700 MB to return 70 KB. Code
// that reads series one call at a time (a loop of get_time_series over components, as
// InfrastructureSystems.jl-style packages write) would pay that for every series.
//
// Reading a block of neighbouring columns costs the same decompression as reading one, and
// only more copying. So a whole-column read that misses fetches the block of columns around
// it and keeps it, decoded, in a small LRU cache; the next reads of columns in the block are
// copies. A sweep over all columns then inflates each chunk about width / block times
// instead of width times. Any write to a packed dataset empties the cache (writeSlice), so it
// never serves bytes the file no longer holds.

// DefaultReadCacheBytes bounds the decoded column blocks a store keeps.
const DefaultReadCacheBytes = 64 << 20

type columnBlock struct {
	ds      *Packed
	lo, hi  int    // columns [lo, hi), every row
	data    []byte // row-major: length × (hi-lo) × element bytes
	lastUse int64
}

type columnCache struct {
	budget int // bytes; 0 disables the cache
	// chunkCached is the size up to which a whole packed dataset fits the HDF5 chunk cache
	// it is given (setPackedCache). Once warm, that cache serves a column without
	// decompressing, but still one chunk lookup per row (209 µs for 168 rows, 21–38 ms for
	// 8,760). Such a dataset gets a block on its second whole-column miss in a row: a loop
	// over its series then pays one lookup per row per block, while a lone Get (or reads
	// between writes, which empty the cache) reads just its column, as before.
	chunkCached int
	// lastMiss is the chunk-cached dataset of the last whole-column read that missed.
	lastMiss *Packed
	used     int
	tick     int64
	blocks   []*columnBlock
	// hits and misses count whole-column reads served from a block and blocks read.
	hits, misses int64
}

func (c *columnCache) find(ds *Packed, col int) *columnBlock {
	for _, b := range c.blocks {
		if b.ds == ds && col >= b.lo && col < b.hi {
			c.tick++
			b.lastUse = c.tick
			return b
		}
	}
	return nil
}

// blockSpan is the block of columns to read around col: as wide as half the budget allows
// (so two blocks fit and a sweep crossing a block edge does not evict the block it leaves),
// aligned so that neighbouring columns share it. ok is false when fewer than two columns fit
// (a block is no cheaper than the column itself) and on the first miss in a row of a dataset
// the HDF5 chunk cache holds whole.
func (c *columnCache) blockSpan(ds *Packed, col int) (lo, hi int, ok bool) {
	colBytes := ds.fam.length * ElementCount(ds.eshape) * ds.fam.dtype.Width()
	if colBytes*ds.cols <= c.chunkCached {
		again := c.lastMiss == ds
		c.lastMiss = ds
		if !again {
			return 0, 0, false
		}
	}
	width := min(ds.cols, c.budget/2/max(colBytes, 1))
	if width < 2 {
		return 0, 0, false
	}
	lo = col - col%width
	return lo, min(lo+width, ds.cols), true
}

func (c *columnCache) add(b *columnBlock) {
	for c.used+len(b.data) > c.budget && len(c.blocks) > 0 {
		oldest := 0
		for i, x := range c.blocks {
			if x.lastUse < c.blocks[oldest].lastUse {
				oldest = i
			}
		}
		c.used -= len(c.blocks[oldest].data)
		c.blocks = append(c.blocks[:oldest], c.blocks[oldest+1:]...)
	}
	c.tick++
	b.lastUse = c.tick
	c.blocks = append(c.blocks, b)
	c.used += len(b.data)
	c.misses++
}

func (c *columnCache) reset() {
	c.blocks, c.used, c.lastMiss = nil, 0, nil
}

// setBudget changes the bound, dropping every block (they were sized for the old one).
func (c *columnCache) setBudget(bytes int) {
	c.reset()
	c.budget = bytes
}

// column copies rows [first, first+n) of column col out of a block.
func (b *columnBlock) column(col, first, n, eb int, dst []byte) []byte {
	span := b.hi - b.lo
	out := Into(dst, n*eb)
	for t := 0; t < n; t++ {
		src := ((first+t)*span + col - b.lo) * eb
		copy(out[t*eb:(t+1)*eb], b.data[src:src+eb])
	}
	return out
}
