package ncstore

import (
	"errors"
	"sync"

	"github.com/tsstore/tsstore/core/internal/serial"
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
	serial.Lock()
	defer serial.Unlock()
	lo, hi := ds.cols, 0
	r0, r1 := ds.fam.length, 0
	eb := ds.elementBytes()
	for _, c := range cols {
		lo, hi = min(lo, c.Col), max(hi, c.Col+1)
		r0, r1 = min(r0, c.First), max(r1, c.First+c.N)
		c.Data = Into(c.Data, c.N*eb)
	}
	if done, err := f.readRowsDirect(ds, r0, r1, func(rows [][]byte, first int) { spreadRows(rows, first, 0, eb, cols) }); done {
		return err
	}
	span := hi - lo
	b := bandSpan{from: r0, to: r1, lo: lo, span: span, maxBytes: bandBytes}
	buf := bandScratch(min(ds.rowsPerBand(b), r1-r0) * span * eb)
	defer bandRelease(buf)
	rows := make([][]byte, 0, min(ds.rowsPerBand(b), r1-r0))
	return ds.walkBands(b, buf, func(b0, b1 int, band []byte, start, count []uint64) error {
		f.chunkReads += int64(b1 - b0)
		if err := f.readSlice(ds.varid, ds.fam.dtype, band, start, count); err != nil {
			return err
		}
		rows = rows[:0]
		for t := 0; t < b1-b0; t++ {
			rows = append(rows, band[t*span*eb:(t+1)*span*eb])
		}
		spreadRows(rows, b0, lo, eb, cols)
		return nil
	})
}

// bandKept keeps ReadColumns' band buffer between bulk reads, up to bandKeep bytes: a read of
// 10,000 × 168 f64 fills a 13 MB band, which allocated afresh cost page faults, zeroing and
// collections on every call (a sync.Pool loses it at the collections such a read itself
// triggers). netcdf-c overwrites the band whole, so a reused one needs no zeroing. Bulk
// reads run under ncshim's lock, one at a time.
var bandKept struct {
	sync.Mutex
	buf []byte
}

const bandKeep = 32 << 20

// bandScratch is an aligned buffer of n bytes, the kept one when it is large enough; give it
// back with bandRelease.
func bandScratch(n int) []byte {
	bandKept.Lock()
	b := bandKept.buf
	bandKept.buf = nil
	bandKept.Unlock()
	if cap(b) >= n {
		return b[:n]
	}
	return AlignedBytes(n)
}

// bandRelease keeps b for the next bulk read when it is not too large.
func bandRelease(b []byte) {
	if cap(b) > bandKeep {
		return
	}
	bandKept.Lock()
	if cap(b) > cap(bandKept.buf) {
		bandKept.buf = b
	}
	bandKept.Unlock()
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
	// ahead holds rows read ahead on a read-only file (readahead.go); noAhead: the set reads
	// through HDF5.
	ahead    *rowAhead
	noAhead  bool
	chunkOff []uint64
}

// Prepare sizes Buf and the hyperslab for the set's columns; call it once the span is final.
func (set *RowSet) Prepare() {
	set.Buf = AlignedBytes(set.Cols * set.DS.elementBytes())
	set.start, set.count = set.DS.columnHyperslab(set.Col0)
	set.count[0], set.count[1] = 1, uint64(set.Cols)
}

// ReadRows reads row i of every set into its Buf: one hyperslab per dataset.
func (f *File) ReadRows(sets []*RowSet, i int) error {
	serial.Lock()
	defer serial.Unlock()
	for _, set := range sets {
		if a := f.aheadOf(set); a != nil {
			err := f.readRowAhead(set, a, i)
			if !errors.Is(err, errLeaveToHDF5) {
				if err != nil {
					return err
				}
				continue
			}
			set.ahead, set.noAhead = nil, true
		}
		set.start[0] = uint64(i)
		f.chunkReads++
		if err := f.readSlice(set.DS.varid, set.DS.fam.dtype, set.Buf, set.start, set.count); err != nil {
			return err
		}
	}
	return nil
}

// ReadBand reads rows [first, first+n) of columns [col0, col0+cols) of a packed dataset into
// dst, row-major (n × cols × *E): the band a ForecastReader keeps of a dataset its
// DeterministicSingleTimeSeries windows come from.
func (f *File) ReadBand(ds *Packed, first, n, col0, cols int, dst []byte) error {
	serial.Lock()
	defer serial.Unlock()
	start, count := ds.columnHyperslab(col0)
	start[0], count[0], count[1] = uint64(first), uint64(n), uint64(cols)
	f.chunkReads += int64(n)
	return f.readSlice(ds.varid, ds.fam.dtype, dst, start, count)
}
