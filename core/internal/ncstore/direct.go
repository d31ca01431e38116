package ncstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/h5"
)

// Direct chunk I/O (docs/architecture.md "Chunks on every core"): a packed dataset's chunk is
// one row of all its columns, so a write that fills every column of a dataset (a batch add's
// new datasets) hands HDF5 whole chunks. Their rows are gathered, shuffled and deflated on
// chunkpipe's workers, and HDF5 writes the encoded chunks in row order with H5Dwrite_chunk,
// under the process-wide lock the caller holds. The bytes stored are those HDF5's filter
// pipeline would store (package chunkpipe), so the file is the file a hyperslab write makes.

// littleEndian: the file types are little-endian (docs/format.md §2), and a direct write
// stores memory's bytes as they are.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// pipelineOf is how ds's chunks are encoded, or false when this package cannot move them
// itself: chunks other than one row of every column (another writer's chunking, §7.3 says
// what this format writes), a filter other than shuffle and deflate, another order, a
// big-endian host. Those datasets are read and written through HDF5's own pipeline.
func (f *File) pipelineOf(ds *Packed) (chunkpipe.Pipeline, bool) {
	if ds.pipe != nil {
		return *ds.pipe, ds.pipeOK
	}
	want := append([]uint64{1, uint64(ds.cols)}, ToU64(ds.eshape)...)
	p, ok := pipelineFor(f.h5.sets[ds.varid], ds.fam.dtype.Width(), want)
	ds.pipe, ds.pipeOK = &p, ok
	return p, ok
}

// pipelineFor is how set's chunks are encoded, or false when this package cannot move them
// itself: chunks other than want, a filter other than shuffle and deflate, another order, a
// big-endian host or file type (another writer's: a chunk's bytes are handed over as stored,
// where HDF5's own reads convert them). elemSize is the set's type's size.
func pipelineFor(set h5.Dataset, elemSize int, want []uint64) (chunkpipe.Pipeline, bool) {
	p, ok := chunkpipe.Pipeline{ElemSize: elemSize}, littleEndian
	if le, err := set.LittleEndian(); err != nil || !le {
		ok = false
	}
	chunked, chunks, err := set.Chunks(len(want))
	if err != nil || !chunked || !slices.Equal(chunks, want) {
		ok = false
	}
	filters, err := set.Filters()
	if err != nil {
		ok = false
	}
	for i, flt := range filters {
		switch {
		case flt.ID == h5.FilterShuffle && i == 0 && int(flt.First) == p.ElemSize:
			p.Shuffle = true
		case flt.ID == h5.FilterDeflate && i == len(filters)-1 && flt.First <= 9:
			p.Deflate, p.Level = true, int(flt.First)
		default:
			ok = false
		}
	}
	return p, ok
}

// itemBytes is about how many raw bytes of rows one chunkpipe item carries: rows of a few KB
// handed to the workers one at a time cost more in goroutine wake-ups than in deflate.
const itemBytes = 1 << 20

// rowsPerItem is how many rows of rowBytes make one item.
func rowsPerItem(rowBytes int) int { return max(1, itemBytes/max(rowBytes, 1)) }

// items is how many items of k rows cover rows [r0, r1); item i holds rows
// [r0+i·k, min(r0+(i+1)·k, r1)).
func items(r0, r1, k int) int { return (r1 - r0 + k - 1) / k }

// encodedRows is one slot's memory in a direct write: a raw row, and a group of rows encoded.
type encodedRows struct {
	raw     []byte
	enc     []byte   // room for every row of the group encoded
	out     [][]byte // each row encoded, in enc's memory
	mask    []uint32
	scratch chunkpipe.Scratch
}

// writeRowChunks writes every row of ds from run, which fills all its columns, as whole
// chunks: the workers gather and encode groups of rows, and this goroutine writes each
// group's chunks in row order. Memory: Window() slots of about itemBytes raw and as much
// encoded, plus a shuffled row.
func (f *File) writeRowChunks(ds *Packed, p chunkpipe.Pipeline, run []packedWrite) error {
	eb := ds.elementBytes()
	rowBytes := ds.cols * eb
	k := min(rowsPerItem(rowBytes), ds.fam.length) // a small dataset allocates its rows only
	slots := make([]encodedRows, chunkpipe.Window())
	srcs := runData(ds, run)
	offset := make([]uint64, 2+len(ds.eshape))
	set := f.h5.sets[ds.varid]
	length := ds.fam.length
	f.ncWrites++
	f.colCache.reset() // its blocks may hold the bytes this write replaces
	return chunkpipe.Ordered(items(0, length, k), func(slot, i int) error {
		g := &slots[slot]
		if g.raw == nil {
			g.raw, g.enc = AlignedBytes(k*rowBytes), make([]byte, k*p.Bound(rowBytes))
			g.out, g.mask = make([][]byte, k), make([]uint32, k)
		}
		lo, hi := i*k, min((i+1)*k, length)
		gatherRows(g.raw, srcs, lo, hi, eb)
		room := g.enc
		for r := 0; r < hi-lo; r++ {
			g.out[r], g.mask[r] = p.Encode(g.raw[r*rowBytes:(r+1)*rowBytes], room, &g.scratch)
			room = room[len(g.out[r]):]
		}
		return nil
	}, func(slot, i int) error {
		g := &slots[slot]
		for r := 0; r < k && i*k+r < length; r++ {
			offset[0] = uint64(i*k + r)
			if err := set.WriteChunk(offset, g.mask[r], g.out[r]); err != nil {
				return wrapIO("write", err, "writing row %d of %s", i*k+r, ds.name)
			}
			f.directChunks++
		}
		return nil
	})
}

// runData is each array of a run, aligned for the element type's loads.
func runData(ds *Packed, run []packedWrite) [][]byte {
	srcs := make([][]byte, len(run))
	for c, w := range run {
		srcs[c] = Aligned(w.data, ds.fam.dtype.Width())
	}
	return srcs
}

// gatherRows copies rows [lo, hi) of every column into raw, row-major (row, column). It
// walks a column at a time, so each array is read in order: walking a row at a time touches
// a page of every array for each row, and TLB misses dominated at 10,000 arrays.
func gatherRows(raw []byte, srcs [][]byte, lo, hi, eb int) {
	n := len(srcs)
	if eb == 8 {
		dst := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(raw))), (hi-lo)*n)
		for c, src := range srcs {
			col := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(src))), hi)
			for t := lo; t < hi; t++ {
				dst[(t-lo)*n+c] = col[t]
			}
		}
		return
	}
	for c, src := range srcs {
		for t := lo; t < hi; t++ {
			copy(raw[((t-lo)*n+c)*eb:((t-lo)*n+c+1)*eb], src[t*eb:(t+1)*eb])
		}
	}
}

// errLeaveToHDF5: a row chunk was never written (its rows hold the fill value, which HDF5's
// own read supplies), or stores more bytes than shuffle and deflate ever make of a row
// (another writer's encoder, or a damaged index): HDF5 reads such rows.
var errLeaveToHDF5 = errors.New("row left to HDF5's read")

// canReadDirect says whether ds's chunks may be read with H5Dread_chunk and decoded here.
// Only read-only files: a writable file's chunk cache may hold rows newer than the file, and
// how HDF5 1.10's direct reads and stored sizes treat such a chunk is not something this
// package relies on (a probe saw a cached write, but HDF5's documentation does not promise it).
func (f *File) canReadDirect(ds *Packed) (chunkpipe.Pipeline, bool) {
	if !f.readOnly {
		return chunkpipe.Pipeline{}, false
	}
	return f.pipelineOf(ds)
}

// storedRows is one slot's memory in a direct read: a group of rows as stored (empty for a
// row the dataset's decoded rows hold), with their masks, and the rows decoded.
type storedRows struct {
	stored  [][]byte
	mask    []uint32
	raws    [][]byte // the rows decoded last, reused when rows are not kept
	decoded [][]byte
	scratch chunkpipe.Scratch
}

// readRowsDirect hands the rows of ds in [r0, r1), decoded whole (every column), to use, a
// group at a time: rows[i] is row first+i. use runs on chunkpipe's workers and must write
// only memory of its own rows. Rows the dataset keeps decoded (rowcache.go) are used as they
// are; the others are read as stored chunks on this goroutine (under the lock the caller
// holds), a group of rows at a time, and decoded on the workers. false: the file or dataset is not read this way, or a row is
// left to HDF5 (errLeaveToHDF5); the caller reads through HDF5 (which overwrites whatever
// use was given).
func (f *File) readRowsDirect(ds *Packed, r0, r1 int, use func(rows [][]byte, first int)) (bool, error) {
	p, ok := f.canReadDirect(ds)
	if !ok {
		return false, nil
	}
	err := f.readRowChunks(ds, p, r0, r1, use)
	if errors.Is(err, errLeaveToHDF5) {
		return false, nil
	}
	return true, err
}

// readRowChunks is readRowsDirect's work; errLeaveToHDF5 for a row HDF5 must read.
func (f *File) readRowChunks(ds *Packed, p chunkpipe.Pipeline, r0, r1 int, use func(rows [][]byte, first int)) error {
	eb := ds.elementBytes()
	k := min(rowsPerItem(ds.cols*eb), max(r1-r0, 1))
	slots := make([]storedRows, chunkpipe.Window())
	set := f.h5.sets[ds.varid]
	offset := make([]uint64, 2+len(ds.eshape))
	kept := decodedOf(ds)
	rows := func(i int) (int, int) { return r0 + i*k, min(r0+(i+1)*k, r1) }
	return chunkpipe.Fanout(items(r0, r1, k), func(slot, i int) error {
		g := &slots[slot]
		if g.stored == nil {
			g.stored, g.mask = make([][]byte, k), make([]uint32, k)
		}
		lo, hi := rows(i)
		for t := lo; t < hi; t++ {
			if kept.get(t) != nil {
				g.stored[t-lo] = g.stored[t-lo][:0]
				continue
			}
			b, mask, err := f.storedRow(ds, set, offset, t, g.stored[t-lo])
			if err != nil {
				return err
			}
			g.stored[t-lo], g.mask[t-lo] = b, mask
		}
		return nil
	}, func(slot, i int) error {
		g := &slots[slot]
		if g.decoded == nil {
			g.decoded, g.raws = make([][]byte, k), make([][]byte, k)
		}
		lo, hi := rows(i)
		for t := lo; t < hi; t++ {
			if len(g.stored[t-lo]) == 0 {
				g.decoded[t-lo] = kept.get(t)
				continue
			}
			row, err := decodeRow(p, ds, t, g.stored[t-lo], g.mask[t-lo], g.raws[t-lo], &g.scratch, kept)
			if err != nil {
				return err
			}
			g.raws[t-lo], g.decoded[t-lo] = row, row
		}
		use(g.decoded[:hi-lo], lo)
		return nil
	})
}

// decodeRow decodes row t of ds from its stored chunk into reuse (new memory when nil, or
// when the row is to be kept: kept rows never change) and keeps it in kept; it returns the
// row's memory.
func decodeRow(p chunkpipe.Pipeline, ds *Packed, t int, stored []byte, mask uint32, reuse []byte,
	s *chunkpipe.Scratch, kept *decodedRows) ([]byte, error) {
	row := reuse
	if row == nil || kept != nil {
		row = AlignedBytes(ds.cols * ds.elementBytes())
	}
	if err := p.Decode(stored, mask, row, s); err != nil {
		return nil, newErr(IO, "read", "", "row %d of %s: %v", t, ds.name, err)
	}
	kept.put(t, row)
	return row, nil
}

// maxStored bounds the bytes a row chunk of ds may store to be read here: twice the row, more
// than zlib's worst case (0.1% and a few bytes over) or any sane deflate encoder's. It keeps
// a damaged size in the chunk index from making this package allocate gigabytes.
func maxStored(ds *Packed) int { return 2*ds.cols*ds.elementBytes() + 64 }

// storedRow reads row t's chunk as stored into buf's memory (grown as needed), with its
// filter mask; errLeaveToHDF5 when it was never written or is larger than maxStored. The
// caller holds the lock.
func (f *File) storedRow(ds *Packed, set h5.Dataset, offset []uint64, t int, buf []byte) ([]byte, uint32, error) {
	offset[0] = uint64(t)
	return f.storedChunk(set, offset, maxStored(ds), buf, func() string { return fmt.Sprintf("row %d of %s", t, ds.name) })
}

// storedChunk reads the chunk of set at offset as stored into buf's memory (grown as
// needed), with its filter mask; errLeaveToHDF5 when it was never written or stores more
// than limit bytes. what names the chunk in an error. The caller holds the lock.
func (f *File) storedChunk(set h5.Dataset, offset []uint64, limit int, buf []byte, what func() string) ([]byte, uint32, error) {
	n, err := set.StoredChunkSize(offset)
	if err != nil {
		return nil, 0, wrapIO("read", err, "finding %s", what())
	}
	if n == 0 || n > limit {
		return nil, 0, errLeaveToHDF5
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	mask, err := set.ReadChunk(offset, buf)
	if err != nil {
		return nil, 0, wrapIO("read", err, "reading %s", what())
	}
	f.chunkReads++
	f.directReads++
	return buf, mask, nil
}

// spreadRows copies rows first, first+1, … into the reads that hold them, a read at a time
// so that each read's memory is written in order (tiles of 32 columns row by row measured
// 1.5–3× slower at 10,000 × 168). A row holds the columns from col0 on.
func spreadRows(rows [][]byte, first, col0, eb int, cols []*ColumnRead) {
	last := first + len(rows)
	for _, c := range cols {
		from, to, at := max(first, c.First), min(last, c.First+c.N), (c.Col-col0)*eb
		if eb == 8 {
			for t := from; t < to; t++ {
				*(*uint64)(unsafe.Pointer(&c.Data[(t-c.First)*8])) = *(*uint64)(unsafe.Pointer(&rows[t-first][at]))
			}
			continue
		}
		for t := from; t < to; t++ {
			copy(c.Data[(t-c.First)*eb:(t-c.First+1)*eb], rows[t-first][at:at+eb])
		}
	}
}
