package core

import (
	"encoding/binary"
	"slices"
	"sync"
	"time"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncshim"
)

// GetMany reads many whole series and returns them in the order of keys. SingleTimeSeries
// held in one packed dataset are read together, in row bands across their columns, so each
// chunk of the dataset is decompressed once however many of its series are asked for;
// other series are read one by one as Get reads them.
func (s *Store) GetMany(keys []Key) ([]TimeSeries, error) {
	return s.getMany("get_many", keys, nil, nil)
}

// GetManyRange reads the same time range of many static series (as GetRange does for one),
// in the order of keys, one decompression pass per packed dataset.
func (s *Store) GetManyRange(keys []Key, start, end time.Time) ([]TimeSeries, error) {
	return s.getMany("get_many", keys, &start, &end)
}

// bulkColumn is one requested SingleTimeSeries read from a packed dataset.
type bulkColumn struct {
	out      int // index in the result
	m        *Metadata
	col      int
	first, n int
	data     []byte
}

func (s *Store) getMany(op string, keys []Key, start, end *time.Time) ([]TimeSeries, error) {
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []TimeSeries
	err := s.snapshot(func() error {
		found := make([]foundRow, len(keys))
		rows, err := s.lookupKeys(keys)
		if err != nil {
			return withOp(op, err)
		}
		for i, k := range keys {
			var m *Metadata
			r := rows[i]
			if r != nil {
				m, err = s.metadataOf(r, k.Features)
			} else {
				r, m, err = s.lookupMetadata(k, k.Features)
			}
			if err != nil {
				return withOp(op, itemField(err, "keys["+itoa(int64(i))+"]"))
			}
			found[i] = foundRow{r, m}
		}
		out, err = s.getManyLocked(op, "keys", found, start, end, nil)
		return err
	})
	return out, err
}

// foundRow is a catalog row a lookup found, with its decoded record.
type foundRow struct {
	r *catalog.Row
	m *Metadata
}

// destinations are the caller's buffers of a bulk read, one per item (nil: new memory).
type destinations [][]byte

func (d destinations) of(i int) []byte {
	if d == nil {
		return nil
	}
	return d[i]
}

// getManyLocked reads the found series into dsts, each sized by the caller.
func (s *Store) getManyLocked(op, what string, found []foundRow, start, end *time.Time, dsts destinations) ([]TimeSeries, error) {
	if start != nil && end.Before(*start) {
		return nil, invalid(op, "end", "is before start")
	}
	out := make([]TimeSeries, len(found))
	byDS := map[*packedDS][]*bulkColumn{}
	var order []*packedDS
	for i, fr := range found {
		field := what + "[" + itoa(int64(i)) + "]"
		r, m := fr.r, fr.m
		slot, packed := s.nc.packed[hashing.Digest(m.DataHash)]
		if _, pending := s.pendingArray(hashing.Digest(m.DataHash), true); m.Type != SingleTimeSeriesType || !packed || pending {
			// Not in a packed column of the file: read it as Get does.
			ts, err := s.readSeries(m, r, start, end, dsts.of(i))
			if err != nil {
				return nil, withOp(op, itemField(err, field))
			}
			out[i] = ts
			continue
		}
		ds := slot.ds
		if ds.fam.dtype != m.DType || ds.fam.length != m.Length || !slices.Equal(ds.eshape, m.ElementShape) {
			return nil, withOp(op, newErr(ErrIntegrity, "", "data_hash", "row says %s %v×%v but dataset %s holds %s %d×%v",
				m.DType, m.Length, m.ElementShape, ds.name, ds.fam.dtype, ds.fam.length, ds.eshape))
		}
		first, n, err := singleRange(m, start, end)
		if err != nil {
			return nil, withOp(op, itemField(err, field))
		}
		if byDS[ds] == nil {
			order = append(order, ds)
		}
		byDS[ds] = append(byDS[ds], &bulkColumn{out: i, m: m, col: slot.col, first: first, n: n, data: dsts.of(i)})
	}
	for _, ds := range order {
		cols := byDS[ds]
		if err := s.nc.readColumns(ds, cols); err != nil {
			return nil, wrapIO(op, err, "reading %s", ds.name)
		}
		for _, c := range cols {
			if c.first == 0 && c.n == c.m.Length {
				if err := verifyWhole(c.m, c.data); err != nil {
					return nil, withOp(op, err)
				}
			}
			out[c.out] = singleOf(c.m, c.first, c.n, c.data)
		}
	}
	return out, nil
}

// readColumns fills each column's data with its rows, reading the dataset in row bands over
// the span of the columns asked for: one decompression per chunk.
func (f *ncFile) readColumns(ds *packedDS, cols []*bulkColumn) error {
	ncshim.Lock()
	defer ncshim.Unlock()
	lo, hi := ds.cols, 0
	r0, r1 := ds.fam.length, 0
	for _, c := range cols {
		lo, hi = min(lo, c.col), max(hi, c.col+1)
		r0, r1 = min(r0, c.first), max(r1, c.first+c.n)
		c.data = into(c.data, c.n*elementCount(ds.eshape)*ds.fam.dtype.Width())
	}
	span := hi - lo
	eb := elementCount(ds.eshape) * ds.fam.dtype.Width()
	rows := max(1, bandBytes/max(span*eb, 1))
	buf := bandScratch(min(rows, r1-r0) * span * eb)
	defer bandRelease(buf)
	for b0 := r0; b0 < r1; b0 += rows {
		b1 := min(b0+rows, r1)
		band := buf[:(b1-b0)*span*eb]
		start, count := f.columnHyperslab(ds, lo)
		start[0], count[0], count[1] = uint64(b0), uint64(b1-b0), uint64(span)
		f.chunkReads += int64(b1 - b0)
		if err := ioSlice(f.grp, ds.varid, ds.fam.dtype, band, start, count, false); err != nil {
			return err
		}
		if eb == 8 {
			spreadBand8(band, b0, b1, span, lo, cols)
			continue
		}
		for _, c := range cols {
			t0, t1 := max(b0, c.first), min(b1, c.first+c.n)
			for t := t0; t < t1; t++ {
				src := ((t-b0)*span + c.col - lo) * eb
				dst := (t - c.first) * eb
				copy(c.data[dst:dst+eb], band[src:src+eb])
			}
		}
	}
	return nil
}

// bandKept keeps readColumns' band buffer between bulk reads, up to bandKeep bytes: a read of
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
	return alignedBytes(n)
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

// spreadBand8 copies rows [b0, b1) of a band of 8-byte elements (span columns from lo) into
// each column's data without a copy call per element, a column at a time: columns asked in
// order share the band's cache lines. (Tiles of 32 columns row by row measured 1.5–3×
// slower at 10,000 × 168.)
func spreadBand8(band []byte, b0, b1, span, lo int, cols []*bulkColumn) {
	for _, c := range cols {
		for t := max(b0, c.first); t < min(b1, c.first+c.n); t++ {
			src := ((t-b0)*span + c.col - lo) * 8
			binary.LittleEndian.PutUint64(c.data[(t-c.first)*8:], binary.LittleEndian.Uint64(band[src:]))
		}
	}
}
