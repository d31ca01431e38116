package core

import (
	"slices"
	"strconv"
	"time"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/isotime"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// ListNames lists the distinct series names matching f, in byte order.
func (s *Store) ListNames(f KeyFilter) ([]string, error) {
	return s.distinctText("list_names", "name", f)
}

// ListOwnerTypes lists the distinct owner type names matching f, in byte order.
func (s *Store) ListOwnerTypes(f KeyFilter) ([]string, error) {
	return s.distinctText("list_owner_types", "owner_type", f)
}

// ListOwnerIDs lists the distinct owner ids matching f, ascending.
func (s *Store) ListOwnerIDs(f KeyFilter) ([]int64, error) {
	vals, err := s.distinctText("list_owner_ids", "owner_id", f)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(vals))
	for i, v := range vals {
		if out[i], err = strconv.ParseInt(v, 10, 64); err != nil {
			return nil, corruptAt("list_owner_ids", "owner_id", "%q is not an integer", v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func (s *Store) distinctText(op, column string, f KeyFilter) ([]string, error) {
	var vals []string
	err := s.query(op, f, func(cf catalog.Filter) error {
		var err error
		vals, err = s.cat.Distinct(column, cf)
		return wrapIO("", err, "listing %s", column)
	})
	return vals, err
}

// query runs fn with the store locked for reading and f translated for the catalog; its
// errors are labelled with op.
func (s *Store) query(op string, f KeyFilter, fn func(catalog.Filter) error) error {
	if err := s.lock(op, false); err != nil {
		return err
	}
	defer s.mu.Unlock()
	cf, err := f.toCatalog()
	if err == nil {
		err = fn(cf)
	}
	return withOp(op, err)
}

// CountArrays is the number of distinct stored arrays the series matching f reference.
func (s *Store) CountArrays(f KeyFilter) (int, error) {
	var n int64
	err := s.query("count_arrays", f, func(cf catalog.Filter) error {
		// One content hash may be stored twice, as a packed column and as a standalone
		// variable; count stored arrays, not hashes.
		var err error
		n, err = s.cat.CountWhere(`count(DISTINCT hex(a.data_hash) || CASE WHEN a.time_series_type IN
			('SingleTimeSeries', 'DeterministicSingleTimeSeries') THEN 'p' ELSE 's' END)`, cf)
		return wrapIO("", err, "counting arrays")
	})
	return int(n), err
}

// StaticGrid is one grid of SingleTimeSeries: every series at Resolution with this initial
// timestamp and length.
type StaticGrid struct {
	Resolution       Period
	InitialTimestamp time.Time
	Length           int
	Series           int
	Owners           int
}

// StaticSummary groups the SingleTimeSeries matching f by grid, per resolution (shortest
// first) and then by initial timestamp and length.
func (s *Store) StaticSummary(f KeyFilter) ([]StaticGrid, error) {
	const op = "static_summary"
	var grids []catalog.StaticGrid
	if err := s.query(op, f, func(cf catalog.Filter) error {
		var err error
		grids, err = s.cat.StaticGrids(cf)
		return wrapIO("", err, "grouping static series")
	}); err != nil {
		return nil, err
	}
	out := make([]StaticGrid, 0, len(grids))
	for _, g := range grids {
		res, err := isotime.ParsePeriod(g.Resolution)
		if err != nil {
			return nil, corruptAt(op, "resolution", "%q: %v", g.Resolution, err)
		}
		t0, err := isotime.ParseTimestamp(g.InitialTimestamp)
		if err != nil {
			return nil, corruptAt(op, "initial_timestamp", "%q: %v", g.InitialTimestamp, err)
		}
		out = append(out, StaticGrid{res, t0, int(g.Length), int(g.Rows), int(g.Owners)})
	}
	slices.SortStableFunc(out, func(a, b StaticGrid) int {
		if a.Resolution != b.Resolution {
			if periodLess(a.Resolution, b.Resolution) {
				return -1
			}
			return 1
		}
		if c := a.InitialTimestamp.Compare(b.InitialTimestamp); c != 0 {
			return c
		}
		return a.Length - b.Length
	})
	return out, nil
}

// ForecastSummary groups the forecasts matching f by their window parameters; it is
// ForecastParameters under the name the summaries share.
func (s *Store) ForecastSummary(f KeyFilter) ([]ForecastParameters, error) {
	return s.ForecastParameters(f)
}

// ArrayGroup is the series that share one stored array.
type ArrayGroup struct {
	DataHash [32]byte
	Keys     []Key
}

// ArrayGroups groups the keys matching f by the array they reference, in order of first
// insertion; with sharedOnly, only arrays referenced by more than one key.
func (s *Store) ArrayGroups(f KeyFilter, sharedOnly bool) ([]ArrayGroup, error) {
	ms, err := s.ListMetadata(f)
	if err != nil {
		return nil, withOp("array_groups", err)
	}
	index := map[[32]byte]int{}
	var out []ArrayGroup
	for _, m := range ms {
		i, ok := index[m.DataHash]
		if !ok {
			i = len(out)
			index[m.DataHash] = i
			out = append(out, ArrayGroup{DataHash: m.DataHash})
		}
		out[i].Keys = append(out[i].Keys, m.Key)
	}
	if sharedOnly {
		out = slices.DeleteFunc(out, func(g ArrayGroup) bool { return len(g.Keys) < 2 })
	}
	return out, nil
}

// CountByHash counts, per series type, the series that reference one array.
func (s *Store) CountByHash(hash [32]byte) (map[SeriesType]int, error) {
	const op = "count_by_hash"
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	rows, err := s.cat.ListByHash(hash[:])
	if err != nil {
		return nil, wrapIO(op, err, "listing rows of %x", hash[:])
	}
	out := map[SeriesType]int{}
	for _, t := range rows {
		st, err := parseSeriesType(t)
		if err != nil {
			return nil, corruptAt(op, "time_series_type", "%v", err)
		}
		out[st]++
	}
	return out, nil
}

// KeysByHash lists the keys of every series that references one array, in insertion order.
func (s *Store) KeysByHash(hash [32]byte) ([]Key, error) {
	ms, err := s.MetadataByHash(hash)
	keys := make([]Key, len(ms))
	for i := range ms {
		keys[i] = ms[i].Key
	}
	return keys, err
}

// MetadataByHash returns the records of every series that references the array with this
// hash, in insertion order.
func (s *Store) MetadataByHash(hash [32]byte) ([]Metadata, error) {
	const op = "keys_by_hash"
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	rows, err := s.cat.ListByDataHash(hash[:])
	if err != nil {
		return nil, wrapIO(op, err, "listing rows of %x", hash[:])
	}
	out := make([]Metadata, 0, len(rows))
	for i := range rows {
		m, err := s.metadataOf(&rows[i], nil)
		if err != nil {
			return nil, withOp(op, err)
		}
		out = append(out, *m)
	}
	return out, nil
}

// GetArray reads a stored array by its content hash, whichever series reference it: a
// packed column as [length, *E], a standalone variable as its full shape.
func (s *Store) GetArray(hash [32]byte) (TypedArray, error) {
	const op = "get_array"
	if err := s.lock(op, false); err != nil {
		return TypedArray{}, err
	}
	defer s.mu.Unlock()
	d := hashing.Digest(hash)
	for _, packed := range []bool{true, false} {
		if p, ok := s.pendingArray(d, packed); ok {
			return TypedArray{DType: p.arr.DType, Shape: slices.Clone(p.arr.Shape), Data: slices.Clone(p.arr.Data)}, nil
		}
	}
	// A standalone array first: the format names its variable after its hash, so it is
	// found by that name without a walk of a read-only file's links, which a look in the
	// packed index would make (ncstore/lazyindex.go).
	if sv, ok := s.nc.Variable(d); ok {
		data, err := s.nc.ReadVariable(sv, nil)
		if err != nil {
			return TypedArray{}, wrapIO(op, err, "reading %s", sv.Name())
		}
		return TypedArray{DType: sv.DType(), Shape: ncstore.FromU64(sv.Shape()), Data: data}, nil
	}
	if slot, ok := s.nc.Column(d); ok {
		data, err := s.nc.ReadColumn(slot, 0, slot.Dataset().Length(), nil)
		if err != nil {
			return TypedArray{}, wrapIO(op, err, "reading %s", slot.Dataset().Name())
		}
		return TypedArray{DType: slot.Dataset().DType(), Shape: append([]int{slot.Dataset().Length()}, slot.Dataset().ElementShape()...), Data: data}, nil
	}
	return TypedArray{}, newErr(ErrNotFound, op, ArgHash, "no array has hash %x", hash[:])
}
