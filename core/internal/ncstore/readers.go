package ncstore

import (
	"github.com/tsstore/tsstore/core/internal/ncshim"
)

// The hyperslab reads behind the store's bulk reads and its step readers. Each takes the
// netcdf lock once for all the datasets or rows it reads.

// ColumnRead is one packed column of a bulk read: rows [First, First+N) of column Col land
// in Data (new memory when nil, else the caller's buffer of that size).
type ColumnRead struct {
	Col, First, N int
	Data          []byte
}

// ReadColumns fills each read's Data with its rows, reading the dataset in row bands over
// the span of the columns asked for: one decompression per chunk however many columns of it
// are asked for.
func (f *File) ReadColumns(ds *Packed, cols []*ColumnRead) error {
	ncshim.Lock()
	defer ncshim.Unlock()
	lo, hi := ds.cols, 0
	r0, r1 := ds.fam.length, 0
	eb := ds.elementBytes()
	for _, c := range cols {
		lo, hi = min(lo, c.Col), max(hi, c.Col+1)
		r0, r1 = min(r0, c.First), max(r1, c.First+c.N)
		c.Data = Into(c.Data, c.N*eb)
	}
	span := hi - lo
	rows := max(1, bandBytes/max(span*eb, 1))
	buf := AlignedBytes(min(rows, r1-r0) * span * eb)
	for b0 := r0; b0 < r1; b0 += rows {
		b1 := min(b0+rows, r1)
		band := buf[:(b1-b0)*span*eb]
		start, count := ds.columnHyperslab(lo)
		start[0], count[0], count[1] = uint64(b0), uint64(b1-b0), uint64(span)
		f.chunkReads += int64(b1 - b0)
		if err := ioSlice(f.grp, ds.varid, ds.fam.dtype, band, start, count, false); err != nil {
			return err
		}
		for _, c := range cols {
			for t := max(b0, c.First); t < min(b1, c.First+c.N); t++ {
				src := ((t-b0)*span + c.Col - lo) * eb
				dst := (t - c.First) * eb
				copy(c.Data[dst:dst+eb], band[src:src+eb])
			}
		}
	}
	return nil
}

// RowSet is one packed dataset and the span of its columns a StaticReader needs: each step
// reads one row of them into Buf, a single chunk (docs/format.md §7.3: a chunk holds one
// timestamp of every column).
type RowSet struct {
	DS         *Packed
	Col0, Cols int
	Buf        []byte
	// start and count are the step's hyperslab, made once so a step allocates nothing.
	start, count []uint64
}

// Prepare sizes Buf and the hyperslab for the set's columns; call it once the span is final.
func (set *RowSet) Prepare() {
	set.Buf = AlignedBytes(set.Cols * set.DS.elementBytes())
	set.start, set.count = set.DS.columnHyperslab(set.Col0)
	set.count[0], set.count[1] = 1, uint64(set.Cols)
}

// ReadRows reads row i of every set into its Buf: one hyperslab per dataset.
func (f *File) ReadRows(sets []*RowSet, i int) error {
	ncshim.Lock()
	defer ncshim.Unlock()
	for _, set := range sets {
		set.start[0] = uint64(i)
		f.chunkReads++
		if err := ioSlice(f.grp, set.DS.varid, set.DS.fam.dtype, set.Buf, set.start, set.count, false); err != nil {
			return err
		}
	}
	return nil
}

// ReadBand reads rows [first, first+n) of columns [col0, col0+cols) of a packed dataset into
// dst, row-major (n × cols × *E): the band a ForecastReader keeps of a dataset its
// DeterministicSingleTimeSeries windows come from.
func (f *File) ReadBand(ds *Packed, first, n, col0, cols int, dst []byte) error {
	ncshim.Lock()
	defer ncshim.Unlock()
	start, count := ds.columnHyperslab(col0)
	start[0], count[0], count[1] = uint64(first), uint64(n), uint64(cols)
	f.chunkReads += int64(n)
	return ioSlice(f.grp, ds.varid, ds.fam.dtype, dst, start, count, false)
}
