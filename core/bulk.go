package core

import (
	"maps"
	"slices"
	"time"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncstore"
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
	out int // index in the result
	m   *Metadata
	ncstore.ColumnRead
}

func (s *Store) getMany(op string, keys []Key, start, end *time.Time) ([]TimeSeries, error) {
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []TimeSeries
	err := s.snapshot(func() error {
		var ahead *rowsAhead
		if start == nil { // a range reads a few rows of a dataset, not every one
			ahead = s.rowsAhead()
		}
		defer ahead.wait()
		found, err := s.findKeys(op, keys, ahead.hook())
		ahead.wait()
		if err == nil {
			out, err = s.getManyLocked(op, "keys", found, start, end, nil, ahead)
		}
		return err
	})
	return out, err
}

// findKeys resolves many keys as lookupMetadata resolves each, through findBatch (a key's
// cache entry is its lookup's; one of an abstract type is not kept, since find and
// lookupMetadata may answer it differently). Failures name keys[i]; seen is findBatch's.
func (s *Store) findKeys(op string, keys []Key, seen func(*catalog.Row)) ([]foundRow, error) {
	batched := keys
	if s.readOnly { // findBatch marks the keys it found kept
		batched = slices.Clone(keys)
	}
	return s.findBatch(op, "keys", batched,
		func(i int) lookupKey {
			if keys[i].Type == AbstractDeterministicType {
				return lookupKey{}
			}
			return keys[i].Lookup().resolvedKey()
		},
		func(i int) (*catalog.Row, *Metadata, error) { return s.lookupMetadata(keys[i], keys[i].Features) }, seen)
}

// readPackedColumns reads cols of ds, each into its Data (new memory when nil), and checks
// every whole array against its content address: a SHA-256 each, shared among the chunk
// workers (a quarter of a repeated bulk read on one core). The whole arrays ahead gathered
// and checked are taken as they are, copied into the caller's memory.
func (s *Store) readPackedColumns(op string, ds *ncstore.Packed, cols []*bulkColumn, ahead *ncstore.Ahead) error {
	rest := make([]*bulkColumn, 0, len(cols))
	var ready []*bulkColumn
	var gathered [][]byte   // ready[i]'s column as gathered
	var handed map[int]bool // the gathered columns given away as new memory
	for _, c := range cols {
		whole := c.First == 0 && c.N == c.m.Length
		if b := ahead.Column(c.Col, hashing.Digest(c.m.DataHash)); whole && b != nil {
			if c.Data == nil && !handed[c.Col] {
				// Nobody else holds the gathered memory: it becomes the series' own (once, so
				// that a key asked for twice gives two arrays, as a read into new memory does).
				if handed == nil {
					handed = map[int]bool{}
				}
				c.Data, handed[c.Col] = b, true
				continue
			}
			if c.Data == nil {
				c.Data = ncstore.AlignedBytes(len(b))
			}
			ready, gathered = append(ready, c), append(gathered, b)
			continue
		}
		rest = append(rest, c)
	}
	if _, err := chunkpipe.Split(len(ready), parallelItems, func(lo, hi int) (int, error) {
		for j := lo; j < hi; j++ {
			ready[j].Data = ready[j].Data[:copy(ready[j].Data, gathered[j])]
		}
		return -1, nil
	}); err != nil {
		return withOp(op, err)
	}
	if len(rest) == 0 {
		return nil
	}
	reads := make([]*ncstore.ColumnRead, len(rest))
	for i, c := range rest {
		reads[i] = &c.ColumnRead
	}
	if err := s.nc.ReadColumns(ds, reads); err != nil {
		return wrapIO(op, err, "reading %s", ds.Name())
	}
	_, err := chunkpipe.Split(len(rest), parallelItems, func(lo, hi int) (int, error) {
		for j := lo; j < hi; j++ {
			if c := rest[j]; c.First == 0 && c.N == c.m.Length {
				if err := verifyWhole(c.m, c.Data); err != nil {
					return j, err
				}
			}
		}
		return -1, nil
	})
	return withOp(op, err)
}

// rowsAhead is the work a bulk read starts on the packed datasets its catalog pass finds
// whole SingleTimeSeries in, while the pass goes on (ncstore.Ahead): each dataset decoded and
// each column wanted gathered and checked against its digest.
type rowsAhead struct {
	nc      *ncstore.File
	slots   ncstore.Slots                      // the read's goroutines that work at once
	started map[*ncstore.Packed]*ncstore.Ahead // nil: nothing could be started on it
}

// rowsAhead is a bulk read's, nil where nothing is done ahead: a writable store (its reads
// go through HDF5) or a single worker.
func (s *Store) rowsAhead() *rowsAhead {
	if !s.readOnly || chunkpipe.Threads() < 2 {
		return nil
	}
	return &rowsAhead{nc: s.nc, slots: ncstore.NewSlots(), started: map[*ncstore.Packed]*ncstore.Ahead{}}
}

// hook is what the catalog pass hands its rows to; nil for a nil a.
func (a *rowsAhead) hook() func(*catalog.Row) {
	if a == nil {
		return nil
	}
	return a.seen
}

// seen wants r's column of its dataset, starting the dataset's work the first time. The row
// is the catalog's as read, not yet checked: the read takes a gathered column only for the
// digest of the row it decoded, and a row that fails its checks cost work the read would
// have done anyway.
func (a *rowsAhead) seen(r *catalog.Row) {
	if r.SeriesType != seriesTypeNames[SingleTimeSeriesType] || len(r.DataHash) != len(hashing.Digest{}) {
		return
	}
	d := hashing.Digest(r.DataHash)
	slot, ok := a.nc.Column(d)
	if !ok {
		return
	}
	ds := slot.Dataset()
	w, ok := a.started[ds]
	if !ok {
		w = a.nc.DecodeAhead(ds, a.slots)
		a.started[ds] = w
	}
	w.Want(slot.Column(), d)
}

// wait waits for everything started; the file's HDF5 objects are the caller's again. A
// panic on a goroutine is raised again once every dataset's have ended.
func (a *rowsAhead) wait() {
	if a == nil {
		return
	}
	started := slices.Collect(maps.Values(a.started))
	chunkpipe.Each(len(started), func(i int) { started[i].Wait() })
}

// of is the work done ahead on ds, nil when none (a nil Ahead has no column ready).
func (a *rowsAhead) of(ds *ncstore.Packed) *ncstore.Ahead {
	if a == nil {
		return nil
	}
	return a.started[ds]
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

// getManyLocked reads the found series into dsts, each sized by the caller, and returns
// nothing more; without dsts it returns the series read, in new memory.
func (s *Store) getManyLocked(op, what string, found []foundRow, start, end *time.Time, dsts destinations,
	ahead *rowsAhead) ([]TimeSeries, error) {
	if start != nil && end.Before(*start) {
		return nil, invalid(op, ArgEnd, "is before start")
	}
	var out []TimeSeries
	if dsts == nil {
		out = make([]TimeSeries, len(found))
	}
	byDS := map[*ncstore.Packed][]*bulkColumn{}
	var order []*ncstore.Packed
	slab := make([]bulkColumn, 0, len(found)) // every column read, in one allocation
	for i, fr := range found {
		r, m := fr.r, fr.m
		var slot ncstore.Slot
		packed := m.Type == SingleTimeSeriesType
		if packed { // a forecast's lookup would need the list of packed datasets (ncstore/lazyindex.go)
			slot, packed = s.nc.Column(hashing.Digest(m.DataHash))
		}
		if _, pending := s.pendingArray(hashing.Digest(m.DataHash), true); !packed || pending {
			// Not in a packed column of the file: read it as Get does.
			ts, err := s.readSeries(m, r, start, end, dsts.of(i))
			if err != nil {
				return nil, withOp(op, atItem(err, what, i))
			}
			if out != nil {
				out[i] = ts
			}
			continue
		}
		ds := slot.Dataset()
		if !ds.Holds(m.DType, m.Length, m.ElementShape) {
			return nil, withOp(op, corruptAt("", "data_hash", "row says %s %v×%v but dataset %s holds %s %d×%v",
				m.DType, m.Length, m.ElementShape, ds.Name(), ds.DType(), ds.Length(), ds.ElementShape()))
		}
		first, n, err := singleRange(m, start, end)
		if err != nil {
			return nil, withOp(op, atItem(err, what, i))
		}
		if byDS[ds] == nil {
			order = append(order, ds)
		}
		slab = append(slab, bulkColumn{out: i, m: m, ColumnRead: ncstore.ColumnRead{Col: slot.Column(), First: first, N: n, Data: dsts.of(i)}})
		byDS[ds] = append(byDS[ds], &slab[len(slab)-1])
	}
	for _, ds := range order {
		cols := byDS[ds]
		if err := s.readPackedColumns(op, ds, cols, ahead.of(ds)); err != nil {
			return nil, err
		}
		for _, c := range cols {
			if out != nil {
				out[c.out] = singleOf(c.m, c.First, c.N, c.Data)
			}
		}
	}
	return out, nil
}
