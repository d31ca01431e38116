package core

import (
	"database/sql"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/isotime"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// Add stores a series for an owner and returns its key. The array is written first and
// deduplicated by content; the catalog row follows in one transaction (docs/format.md §10.8).
// Any refusal — a bad field, a duplicate key — is returned before anything is written.
func (s *Store) Add(owner Owner, ts TimeSeries, opts *AddOptions) (Key, error) {
	l := &itemList{items: []BatchItem{{Owner: owner, Series: ts, Options: opts}}, keys: make([]Key, 1)}
	if err := s.addItems("add_time_series", l, false); err != nil {
		return Key{}, err
	}
	return l.keys[0], nil
}

// BatchItem is one series of a batch add.
type BatchItem struct {
	Owner   Owner
	Series  TimeSeries
	Options *AddOptions // nil: no features, units or ext
	// ID is set by a successful AddBatch: the stored series' Metadata.ID.
	ID int64
}

// AddBatch stores many series of any types in one call, all or nothing: every item is
// validated and checked against the store and the rest of the batch, a slice at a time inside
// the call's savepoint (a refusal undoes the slices before it), every new array is defined in
// one netCDF define phase, and every catalog row goes in one transaction. It returns the keys
// in item order.
func (s *Store) AddBatch(items []BatchItem) ([]Key, error) {
	l := &itemList{items: items, keys: make([]Key, len(items))}
	if err := s.addItems("add_time_series_batch", l, true); err != nil {
		return nil, err
	}
	return l.keys, nil
}

// BatchSource gives a batch add its items a slice at a time (AddBatchFrom), so that a caller
// whose items are in another form, as the C library's descriptors are, converts only the
// slices being added instead of holding the whole batch converted through the call.
type BatchSource interface {
	// Len is the number of items.
	Len() int
	// Fill converts items [first, first+len(dst)) into dst, in order: item first follows the
	// last item of the call before. The first Fill runs on the add's goroutine; the others run
	// on a goroutine of the add's own while the slice before is committed, at the same time as
	// Committed of that slice (never as another Fill), and every one has returned before the
	// add does. An error refuses the add; it names its item as an *Error with Items and Item
	// set.
	Fill(dst []BatchItem, first int) error
	// Committed hands back items [first, first+len(keys)), their IDs set, and their keys once
	// their slice is in the unit of work. A refusal of a later slice undoes them all. Both
	// slices are the add's, reused once Committed returns.
	Committed(first int, items []BatchItem, keys []Key)
}

// AddBatchFrom is AddBatch over the items src gives. It holds two slices of items (addSlice
// each) and one of keys at a time, where AddBatch holds every item and every key of the batch.
func (s *Store) AddBatchFrom(src BatchSource) error {
	return s.addItems("add_time_series_batch", sourced{src}, true)
}

// batchSeq numbers batch adds, so that each batch's arrays get datasets of their own width.
var batchSeq atomic.Int64

// addSlice is how many items of an add are prepared and committed at a time, at most, inside
// the call's one savepoint. A prepared series takes 688 bytes until its row is inserted and
// its array staged: a slab for all of a batch of 100,000 was most of the add's live heap, and
// so of the process's peak RSS.
const addSlice = 8192

// firstSlice is the size of an add's first slice; each next one is twice the one before, up
// to addSlice. Nothing overlaps the first slice's conversion and preparation: a binding that
// checks its items in tsstore_add_batch_from's callback (1.9 µs an item from Python) held a
// batch of 10,000 for 16 ms before the library began, where 512 items take 1 ms.
const firstSlice = 512

// sliceSize is the size of slice k of an add of n items from item lo.
func sliceSize(k, lo, n int) int {
	return min(n-lo, addSlice, firstSlice<<min(k, 10))
}

func (s *Store) addItems(op string, items itemSource, batch bool) error {
	var batchID int64
	if batch {
		batchID = batchSeq.Add(1) // a batch's arrays get datasets of their own, sized to it
	}
	return s.mutate(op, func() error { return s.addSlices(items, batch, batchID) })
}

// itemSource is the items of an add, a slice at a time: the caller's items in place
// (itemList), or converted into a buffer by a BatchSource (sourced).
type itemSource interface {
	count() int
	// slice gives items [first, first+n), converted into *buf (made on first use) or not.
	slice(buf *[]BatchItem, first, n int) ([]BatchItem, error)
	// committed takes the keys of the slice of items that starts at first.
	committed(first int, part []BatchItem, keys []Key)
}

// itemList is items already in memory: slices of them are the items themselves (their IDs
// set in place), and keys gathers every key.
type itemList struct {
	items []BatchItem
	keys  []Key
}

func (l *itemList) count() int { return len(l.items) }

func (l *itemList) slice(_ *[]BatchItem, first, n int) ([]BatchItem, error) {
	return l.items[first : first+n], nil
}

func (l *itemList) committed(first int, _ []BatchItem, keys []Key) { copy(l.keys[first:], keys) }

// sourced is a BatchSource's items, converted a slice at a time into a buffer.
type sourced struct{ src BatchSource }

func (s sourced) count() int { return s.src.Len() }

func (s sourced) slice(buf *[]BatchItem, first, n int) ([]BatchItem, error) {
	if n == 0 { // an empty batch: nothing to ask the source for
		return nil, nil
	}
	if *buf == nil {
		*buf = make([]BatchItem, min(s.src.Len(), addSlice))
	}
	part := (*buf)[:n]
	clear(part) // no item of the slice before is handed to Fill
	return part, s.src.Fill(part, first)
}

func (s sourced) committed(first int, part []BatchItem, keys []Key) {
	s.src.Committed(first, part, keys)
}

// addSlices adds the items a slice at a time, all or nothing (the caller's savepoint undoes
// the slices before a refusal), its catalog rows indexed as one bulk insert. While a slice's
// rows go into the catalog and its arrays into the unit on this goroutine, the next slice is
// converted by the source and then checked and hashed on the chunk workers (issue 32:
// catalog inserts overlap the array work), into the other of two buffers and slabs (those
// of the slice two before, committed by then).
func (s *Store) addSlices(items itemSource, batch bool, batchID int64) (err error) {
	n := items.count()
	if err := s.cat.BeginInserts(n); err != nil {
		return wrapIO("", err, "preparing the catalog for %d rows", n)
	}
	// Deferred, so that a panic (a bug, in the core or in a BatchSource) does not leave the
	// catalog in its bulk mode: the caller's savepoint is rolled back on the way out (mutate).
	defer func() {
		if eerr := s.cat.EndInserts(); err == nil && eerr != nil {
			err = wrapIO("", eerr, "indexing the catalog rows")
		}
	}()
	size := min(n, addSlice)
	var slabs [2][]prepared
	var bufs [2][]BatchItem
	keys := make([]Key, size)
	seen := make(map[catalog.IdentityKey]int, n)
	start := func(k, lo int, async bool) *pendingSlice {
		return startSlice(items, &bufs[k%2], &slabs[k%2], lo, sliceSize(k, lo, n), size, async)
	}
	next := start(0, 0, false) // nothing to overlap yet
	// The slice being prepared writes into a buffer and a slab, and its source may read the
	// caller's memory: it is waited for on every way out, a panic's too.
	defer func() {
		if next != nil {
			next.settle()
		}
	}()
	for k, lo := 0, 0; lo < n; k, lo = k+1, lo+sliceSize(k, lo, n) {
		cur, count := next.wait(), sliceSize(k, lo, n)
		next = nil
		if cur.err == nil && len(cur.part) != count { // a source that quit (runtime.Goexit)
			cur.err = newErr(ErrInternal, "", ArgNone, "items %d to %d were not converted", lo, lo+count-1)
		}
		if cur.err != nil {
			err = cur.err
			if cur.i >= 0 {
				err = itemErr(cur.err, lo+cur.i, batch)
			}
			break
		}
		if end := lo + count; end < n {
			next = start(k+1, end, true)
		}
		if err = s.commitSlice(cur.ps, cur.part, lo, batchID, seen, keys[:len(cur.ps)]); err != nil {
			break
		}
		items.committed(lo, cur.part, keys[:len(cur.ps)])
	}
	return err
}

// pendingSlice is a slice of an add being converted and prepared, maybe on other goroutines.
type pendingSlice struct {
	done chan sliceResult
	got  *sliceResult
}

// sliceResult is a slice converted and prepared: its items and their prepared forms, or why
// not: the source's own error (i < 0) or that of item i of the slice.
type sliceResult struct {
	part  []BatchItem
	ps    []*prepared
	i     int
	err   error
	panic any
}

// startSlice starts converting items [first, first+count) into *buf and preparing them into
// *slab (made on first use, of size items) on the chunk workers. Unless async, the work is
// done before it returns (a single add spawns no goroutine). A panic in the source or the
// workers is raised again by wait, on the caller's goroutine.
func startSlice(items itemSource, buf *[]BatchItem, slab *[]prepared, first, count, size int, async bool) *pendingSlice {
	p := &pendingSlice{done: make(chan sliceResult, 1)}
	work := func() {
		r := sliceResult{i: -1}
		defer func() {
			r.panic = recover()
			p.done <- r
		}()
		if r.part, r.err = items.slice(buf, first, count); r.err != nil {
			return
		}
		r.ps, r.i, r.err = prepareSlice(r.part, size, slab)
	}
	if async {
		go work()
	} else {
		work()
	}
	return p
}

// wait returns the slice's result once it is there, raising again a panic of its work.
func (p *pendingSlice) wait() *sliceResult {
	p.settle()
	if p.got.panic != nil {
		panic(p.got.panic)
	}
	return p.got
}

// settle waits for the slice's work to end, whatever it ended with.
func (p *pendingSlice) settle() {
	if p.got == nil {
		got := <-p.done
		p.got = &got
	}
}

// prepareSlice prepares the items of part into *slab (made on first use, of size items) on
// the chunk workers: the prepared items, or the index in part of the first that failed and
// why (-1 and nil when none did).
func prepareSlice(part []BatchItem, size int, slab *[]prepared) ([]*prepared, int, error) {
	if *slab == nil {
		*slab = make([]prepared, size)
	}
	ps := make([]*prepared, len(part))
	for i := range ps {
		ps[i] = &(*slab)[i]
	}
	// Validating and hashing (SHA-256 of every array) take a third of a bulk add's time on
	// one core; items are independent, so the chunk workers share them.
	i, err := chunkpipe.Split(len(part), parallelItems, func(lo, hi int) (int, error) {
		for i := lo; i < hi; i++ {
			if err := prepareItem(part[i], ps[i]); err != nil {
				return i, err
			}
		}
		return -1, nil
	})
	return ps, i, err
}

// commitSlice commits the prepared items ps, items[first:first+len(ps)] of the call, and
// sets their keys in keys and, when part is given, their ids in part.
func (s *Store) commitSlice(ps []*prepared, part []BatchItem, first int, batchID int64,
	seen map[catalog.IdentityKey]int, keys []Key) error {
	for _, p := range ps {
		p.batchID = batchID
	}
	if err := s.commitPrepared(ps, seen, first); err != nil {
		return err
	}
	for i, p := range ps {
		keys[i] = p.key
		if part != nil {
			part[i].ID = p.row.ID
		}
	}
	return nil
}

var noOptions AddOptions

func prepareItem(it BatchItem, p *prepared) error {
	opts := it.Options
	if opts == nil {
		opts = &noOptions
	}
	return prepareAddInto(it.Owner, it.Series, opts, p)
}

// commitBatch adds a Batch's validated series in one call, their arrays in datasets sized
// to the batch.
func (s *Store) commitBatch(op string, ps []*prepared) ([]Key, error) {
	batchID := batchSeq.Add(1)
	keys := make([]Key, len(ps))
	seen := make(map[catalog.IdentityKey]int, len(ps))
	if err := s.mutate(op, func() error { return s.commitSlice(ps, nil, 0, batchID, seen, keys) }); err != nil {
		return nil, err
	}
	return keys, nil
}

// itemErr says that err is about item i of a batch add (of a single add, nothing).
func itemErr(err error, i int, batch bool) error {
	if !batch {
		return err
	}
	return atItem(err, "items", i)
}

// prepared is a validated add: the row to insert and the array to store.
type prepared struct {
	staged   // the array and where it goes: what the unit keeps of the add (stage)
	key      Key
	row      catalog.Row
	features []hashing.Feature
	interval Period // forecasts only
}

// prepareAdd validates one series and returns the add it becomes.
func prepareAdd(owner Owner, ts TimeSeries, opts *AddOptions) (*prepared, error) {
	p := new(prepared)
	if err := prepareAddInto(owner, ts, opts, p); err != nil {
		return nil, err
	}
	return p, nil
}

// prepareAddInto is prepareAdd filling p (a batch prepares into one slab).
func prepareAddInto(owner Owner, ts TimeSeries, opts *AddOptions, p *prepared) error {
	if ts == nil {
		return invalid("", ArgSeries, "is nil")
	}
	if err := validateOwner(owner); err != nil {
		return err
	}
	if err := validateText(ArgName, ts.SeriesName(), true); err != nil {
		return err
	}
	if err := validateText(ArgUnits, opts.Units, false); err != nil {
		return err
	}
	if err := validateText(ArgExt, opts.Ext, false); err != nil {
		return err
	}
	if err := opts.Features.validateStorable(); err != nil {
		return err
	}
	*p = prepared{features: opts.Features.entries()}
	p.row = catalog.Row{
		OwnerID: owner.ID, OwnerType: owner.Type, OwnerCategory: owner.Category.String(),
		SeriesType: ts.SeriesType().String(), Name: ts.SeriesName(),
		Units: nullString(opts.Units), Ext: nullString(opts.Ext),
	}
	switch t := ts.(type) {
	case *SingleTimeSeries:
		if err := prepareSingle(p, t); err != nil {
			return err
		}
	case *NonSequentialTimeSeries:
		if err := prepareNonSequential(p, t); err != nil {
			return err
		}
	case *Deterministic, *Probabilistic, *Scenarios:
		if err := prepareForecast(p, t.(Forecast)); err != nil {
			return err
		}
	default:
		return invalid("", ArgSeries, "%s is not supported by this build", ts.SeriesType())
	}
	if err := checkStorageLimits(p); err != nil {
		return err
	}
	fh := noFeaturesHash
	if len(p.features) > 0 {
		fh = hashing.Features(p.features)
	}
	p.row.FeaturesHash = fh[:]
	p.row.DataHash = p.digest[:]
	p.row.DType = p.arr.DType.String()
	p.row.ElementShape = nullString(catalog.ShapeJSON(p.arr.ElementShape()))
	p.row.Length = sql.NullInt64{Int64: int64(p.arr.Len()), Valid: true}
	p.key = Key{OwnerID: owner.ID, OwnerCategory: owner.Category, Type: ts.SeriesType(),
		Name: ts.SeriesName(), Resolution: p.res, Interval: p.interval, Features: cloneFeatures(opts.Features)}
	return nil
}

func prepareSingle(p *prepared, t *SingleTimeSeries) error {
	if err := t.Data.validate(); err != nil {
		return err
	}
	if !t.Resolution.IsPositive() {
		return invalid("", ArgResolution, "%s is not a positive period", t.Resolution)
	}
	if _, err := t.Resolution.Step(t.InitialTimestamp, int64(t.Data.Len()-1)); err != nil {
		return invalid("", ArgInitialTimestamp, "%s + %d × %s is not a representable instant: %v",
			isotime.FormatTimestamp(t.InitialTimestamp), t.Data.Len()-1, t.Resolution, err)
	}
	p.arr, p.packed, p.res = t.Data, true, t.Resolution
	p.digest = t.Data.hash()
	p.row.InitialTimestamp = nullString(isotime.FormatTimestamp(t.InitialTimestamp))
	p.row.Resolution = nullString(t.Resolution.String())
	return nil
}

func prepareNonSequential(p *prepared, t *NonSequentialTimeSeries) error {
	if err := t.Data.validate(); err != nil {
		return err
	}
	if len(t.Timestamps) != t.Data.Len() {
		return invalid("", ArgTimestamps, "%d timestamps for %d steps of data; they must be equal", len(t.Timestamps), t.Data.Len())
	}
	for i, ts := range t.Timestamps {
		if i > 0 && !ts.After(t.Timestamps[i-1]) {
			return invalid("", ArgTimestamps, "timestamp %d (%s) is not after timestamp %d (%s); they must be strictly increasing",
				i, isotime.FormatTimestampZ(ts), i-1, isotime.FormatTimestampZ(t.Timestamps[i-1]))
		}
		if y := ts.UTC().Year(); y < 0 || y > 9999 {
			return invalid("", ArgTimestamps, "timestamp %d is in year %d; RFC 3339 spans years 0–9999", i, y)
		}
	}
	p.arr, p.packed = t.Data, false
	p.digest = t.Data.hash()
	p.row.TimestampsJSON = nullString(catalog.TimestampsJSON(t.Timestamps))
	return nil
}

// Limits of netcdf-c and HDF5 that an array must respect, checked before anything is defined
// so that a refused add leaves no half-defined variable behind.
const (
	maxChunkBytesHDF5 = 1<<32 - 1 // HDF5 chunks are addressed with 32-bit sizes
	maxNameLen        = 256       // NC_MAX_NAME
	maxRank           = 1024      // NC_MAX_VAR_DIMS
)

func checkStorageLimits(p *prepared) error {
	eshape := p.arr.ElementShape()
	if len(p.arr.Shape)+1 > maxRank {
		return invalid("", ArgShape, "rank %d exceeds netCDF's limit of %d dimensions", len(p.arr.Shape), maxRank-1)
	}
	row := ncstore.ElementCount(eshape) * p.arr.DType.Width()
	if p.packed {
		// One chunk holds at least one column of one step; the longest name is the last
		// element dimension of a spill dataset, {ds}__{n}_e{i}.
		if row > maxChunkBytesHDF5 {
			return invalid("", ArgShape, "one step of element shape %v is %d bytes; an HDF5 chunk holds at most %d", eshape, row, maxChunkBytesHDF5)
		}
		if n := len(ncstore.PackedName(p.arr.DType, eshape, p.arr.Len(), p.res.String())) + len("__999999_e") + len(itoa(int64(len(eshape)))); n > maxNameLen {
			return invalid("", ArgShape, "element shape %v makes a dataset name of %d characters; netCDF allows %d", eshape, n, maxNameLen)
		}
		return nil
	}
	// A NonSequential array is one whole-array chunk, a forecast one block of windows
	// (docs/format.md §7.5).
	chunk := p.arr.Len() * row
	if p.chunks != nil {
		chunk = ncstore.ElementCount(ncstore.FromU64(p.chunks)) * p.arr.DType.Width()
	}
	if chunk > maxChunkBytesHDF5 {
		return invalid("", ArgData, "one chunk of this array is %d bytes; HDF5 allows at most %d", chunk, maxChunkBytesHDF5)
	}
	if n := len("arr_") + 64 + len("_d") + len(itoa(int64(len(p.arr.Shape)))); n > maxNameLen {
		return invalid("", ArgShape, "rank %d makes a dimension name of %d characters; netCDF allows %d", len(p.arr.Shape), n, maxNameLen)
	}
	return nil
}

func validateOwner(o Owner) error {
	if !o.Category.Valid() {
		return invalid("", ArgOwnerCategory, "unknown code %d (0 Component, 1 SupplementalAttribute)", uint8(o.Category))
	}
	return validateText(ArgOwnerType, o.Type, true)
}

func validateText(arg Arg, v string, required bool) error {
	if required && v == "" {
		return invalid("", arg, "is empty")
	}
	if !utf8.ValidString(v) {
		return invalid("", arg, "%q is not valid UTF-8", v)
	}
	if strings.IndexByte(v, 0) >= 0 {
		return invalid("", arg, "%q contains a NUL byte", v)
	}
	return nil
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func cloneFeatures(f Features) Features {
	out := make(Features, len(f))
	for k, v := range f {
		out[k] = v
	}
	return out
}

// commitPrepared checks every key is free (in the store and within the call) and that no
// Deterministic / DeterministicSingleTimeSeries exclusion is broken, then stages the new
// arrays in the unit of work and inserts the rows, writing each distinct feature set once.
// It runs inside the call's savepoint: a failure undoes all of it.
func (s *Store) commitPrepared(ps []*prepared, seen map[catalog.IdentityKey]int, first int) error {
	for i, p := range ps {
		id := identityOf(&p.row).MapKey()
		if j, dup := seen[id]; dup {
			return atItem(newErr(ErrDuplicateTimeSeries, "", ArgLookup,
				"%s is also item %d of this batch", p.key, j), "items", first+i)
		}
		seen[id] = first + i
		if p.key.Type == DeterministicType {
			if err := s.checkExclusion(identityOf(&p.row), DeterministicSingleTimeSeriesType); err != nil {
				return itemErr(err, first+i, p.batchID != 0)
			}
		}
	}
	// A key already stored is found by the unique indexes at INSERT (docs/format.md §9.6:
	// a violation is DuplicateTimeSeries) rather than by a lookup per item first;
	// the savepoint of the call undoes the rows inserted before it.
	written := map[string]bool{}
	rows := make([]*catalog.Row, len(ps))
	for i, p := range ps {
		if !written[string(p.row.FeaturesHash)] {
			written[string(p.row.FeaturesHash)] = true
			if err := s.cat.PutFeatureSet(p.row.FeaturesHash, p.features); err != nil {
				return wrapIO("", err, "writing a feature set")
			}
		}
		rows[i] = &p.row
	}
	if i, err := s.cat.InsertRows(rows); err != nil {
		if errors.Is(err, catalog.ErrUnique) {
			return itemErr(newErr(ErrDuplicateTimeSeries, "", ArgLookup, "%s is already stored", ps[i].key), first+i,
				ps[i].batchID != 0)
		}
		return wrapIO("", err, "writing the catalog row")
	}
	s.stageAll(ps)
	s.unit.changes += len(ps)
	return nil
}

// checkExclusion fails when a row of type other exists in the family of id: the same owner,
// name, resolution and features, any interval.
func (s *Store) checkExclusion(id catalog.Identity, other SeriesType) error {
	id.SeriesType = other.String()
	found, err := s.cat.HasFamily(id)
	if err != nil {
		return wrapIO("", err, "looking up the forecast family")
	}
	if found {
		mine := DeterministicType
		if other == DeterministicType {
			mine = DeterministicSingleTimeSeriesType
		}
		return invalid("", ArgSeriesType, "%q of %s %d at %s already has a %s; a %s and a %s of one series are mutually exclusive",
			id.Name, id.OwnerCategory, id.OwnerID, id.Resolution, other, mine, other)
	}
	return nil
}

func identityOf(r *catalog.Row) catalog.Identity {
	return catalog.Identity{OwnerID: r.OwnerID, OwnerCategory: r.OwnerCategory,
		SeriesType: r.SeriesType, Name: r.Name, Resolution: r.Resolution.String,
		Interval: r.Interval.String, FeaturesHash: r.FeaturesHash}
}

func keyIdentity(k Key) (catalog.Identity, error) {
	if !k.OwnerCategory.Valid() {
		return catalog.Identity{}, invalid("", ArgOwnerCategory, "unknown code %d", uint8(k.OwnerCategory))
	}
	if !k.Type.Valid() || k.Type == AbstractDeterministicType {
		return catalog.Identity{}, invalid("", ArgSeriesType, "unknown or request-only type code %d", uint8(k.Type))
	}
	if err := k.Features.validate(); err != nil {
		return catalog.Identity{}, err
	}
	fh := k.Features.hash()
	id := catalog.Identity{OwnerID: k.OwnerID, OwnerCategory: k.OwnerCategory.String(),
		SeriesType: k.Type.String(), Name: k.Name, FeaturesHash: fh[:]}
	if !k.Resolution.IsZero() {
		id.Resolution = k.Resolution.String()
	}
	if !k.Interval.IsZero() {
		id.Interval = k.Interval.String()
	}
	return id, nil
}

// lookupKey finds the row of k; ErrNotFound when there is none. An abstract deterministic
// key finds whichever of its Deterministic and DeterministicSingleTimeSeries is stored (the
// mutual exclusion of docs/format.md §10.6 makes that at most one).
func (s *Store) lookupKey(k Key) (*catalog.Row, error) {
	if k.Type == AbstractDeterministicType {
		for _, t := range []SeriesType{DeterministicType, DeterministicSingleTimeSeriesType} {
			k2 := k
			k2.Type = t
			r, err := s.lookupKey(k2)
			if !errors.Is(err, ErrNotFound) {
				return r, err
			}
		}
		return nil, newErr(ErrNotFound, "", ArgLookup, "%s is not stored as a Deterministic or a DeterministicSingleTimeSeries", k)
	}
	ids, err := keyIdentities(k)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		r, err := s.cat.Lookup(id)
		if err != nil {
			return nil, wrapIO("", err, "looking up the key")
		}
		if r != nil {
			return r, nil
		}
	}
	return nil, newErr(ErrNotFound, "", ArgLookup, "%s is not stored", k)
}

// lookupMetadata finds and decodes the row of k. features, when the caller knows them
// (k's own), save a feature_sets query.
func (s *Store) lookupMetadata(k Key, features Features) (*catalog.Row, *Metadata, error) {
	r, err := s.lookupKey(k)
	if err != nil {
		return nil, nil, err
	}
	m, err := s.metadataOf(r, features)
	return r, m, err
}

// Get reads a whole series. A forecast comes back as a Forecast (a
// DeterministicSingleTimeSeries as a *Deterministic).
func (s *Store) Get(k Key) (TimeSeries, error) {
	return s.get("get_time_series", k, nil, nil)
}

// GetRange reads part of a static series. For a SingleTimeSeries start is floored and end
// ceiled onto the grid (both inclusive) and clamped to the series; for a
// NonSequentialTimeSeries the range is half-open [start, end). An end before the start is an
// error, and so is a forecast key (read forecasts by window with GetWindows).
func (s *Store) GetRange(k Key, start, end time.Time) (TimeSeries, error) {
	return s.get("get_time_series", k, &start, &end)
}

func (s *Store) get(op string, k Key, start, end *time.Time) (TimeSeries, error) {
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if start != nil && end.Before(*start) {
		return nil, invalid(op, ArgEnd, "%s is before start %s", isotime.FormatTimestamp(*end), isotime.FormatTimestamp(*start))
	}
	r, m, err := s.lookupMetadata(k, k.Features)
	if err != nil {
		return nil, withOp(op, err)
	}
	ts, err := s.readSeries(m, r, start, end, nil)
	return ts, withOp(op, err)
}

// readSeries reads a whole series, or a range of a static one, into dst (nil: new memory).
func (s *Store) readSeries(m *Metadata, r *catalog.Row, start, end *time.Time, dst []byte) (TimeSeries, error) {
	switch m.Type {
	case SingleTimeSeriesType:
		return s.readSingle(m, start, end, dst)
	case NonSequentialTimeSeriesType:
		return s.readNonSequential(m, r, start, end, dst)
	}
	if start != nil {
		return nil, invalid("", ArgSeriesType, "%s is a forecast; a time range reads static series only (read forecasts by window)", m.Key)
	}
	g, err := forecastRowOf(m)
	if err != nil {
		return nil, err
	}
	return s.readWindows(m, g, 0, g.count, dst)
}

func (s *Store) readSingle(m *Metadata, start, end *time.Time, dst []byte) (*SingleTimeSeries, error) {
	first, n, err := singleRange(m, start, end)
	if err != nil {
		return nil, err
	}
	data, err := s.readRows(m, first, n, dst)
	if err != nil {
		return nil, err
	}
	return singleOf(m, first, n, data), nil
}

// singleRange maps [start, end] onto the rows of a SingleTimeSeries: start floored, end
// ceiled onto the grid, both clamped to the series; nil start means the whole series.
func singleRange(m *Metadata, start, end *time.Time) (first, n int, err error) {
	if start == nil {
		return 0, m.Length, nil
	}
	lo, err := m.Resolution.StepsFloor(m.InitialTimestamp, *start)
	if err != nil {
		return 0, 0, invalid("", ArgStart, "%v", err)
	}
	hi, err := m.Resolution.StepsCeil(m.InitialTimestamp, *end)
	if err != nil {
		return 0, 0, invalid("", ArgEnd, "%v", err)
	}
	lo, hi = max(lo, 0), min(hi, int64(m.Length-1))
	if lo > hi {
		last, _ := m.Resolution.Step(m.InitialTimestamp, int64(m.Length-1))
		return 0, 0, invalid("", ArgStart, "range %s – %s does not overlap %s (%s – %s)",
			isotime.FormatTimestamp(*start), isotime.FormatTimestamp(*end), m.Key,
			isotime.FormatTimestamp(m.InitialTimestamp), isotime.FormatTimestamp(last))
	}
	return int(lo), int(hi - lo + 1), nil
}

func singleOf(m *Metadata, first, n int, data []byte) *SingleTimeSeries {
	t0, _ := m.Resolution.Step(m.InitialTimestamp, int64(first))
	return &SingleTimeSeries{Name: m.Name, InitialTimestamp: t0, Resolution: m.Resolution,
		Data: TypedArray{DType: m.DType, Shape: append([]int{n}, m.ElementShape...), Data: data}}
}

func (s *Store) readNonSequential(m *Metadata, r *catalog.Row, start, end *time.Time, dst []byte) (*NonSequentialTimeSeries, error) {
	stamps, err := r.Timestamps()
	if err != nil {
		return nil, columnCorrupt(r, err)
	}
	part := Part{}
	if start != nil {
		part = Part{Kind: TimeRange, Start: *start, End: *end}
	}
	first, last := stampRange(stamps, part)
	n := last - first
	data := []byte{}
	if n > 0 {
		if data, err = s.readRows(m, first, n, dst); err != nil {
			return nil, err
		}
	}
	return &NonSequentialTimeSeries{Name: m.Name, Timestamps: stamps[first:last],
		Data: TypedArray{DType: m.DType, Shape: append([]int{n}, m.ElementShape...), Data: data}}, nil
}

// readRows reads steps [first, first+n) of the array a row names, wherever it is stored.
// What the file holds must have the dtype and shape the row claims, checked before any read:
// a disagreement is an IntegrityError, never a read of the wrong bytes.
func (s *Store) readRows(m *Metadata, first, n int, dst []byte) ([]byte, error) {
	d := hashing.Digest(m.DataHash)
	for _, packed := range []bool{true, false} {
		if p, ok := s.pendingArray(d, packed); ok {
			return pendingRows(m, p, first, n, dst)
		}
	}
	data, err := s.readStoredRows(m, d, first, n, dst)
	if err == nil && first == 0 && n == m.Length {
		err = verifyWhole(m, data)
	}
	return data, err
}

// verifyWhole checks a whole array read from the file against the row's content address.
// A damaged chunk index makes HDF5 read a chunk it no longer finds as the fill value, with no
// error (the mutated-.nc test found 13 such files): without the check a damaged file would
// hand out fill values as data. It costs one SHA-256 of the bytes (1 GB/s here: 2.3 µs for
// 168 f64, 71 µs for 8,760). Partial reads (ranges, windows, reader steps) cannot be checked
// this way; verify_integrity checks every array whole (docs/format.md §13.8).
func verifyWhole(m *Metadata, data []byte) error {
	var dims [8]uint64 // the shape on the stack: a bulk read verifies every series it reads
	shape := append(dims[:0], uint64(m.Length))
	for _, d := range m.ElementShape {
		shape = append(shape, uint64(d))
	}
	if hashing.Array(m.DType.String(), shape, data, ncstore.FloatKind(m.DType)) != hashing.Digest(m.DataHash) {
		return corruptAt("", "data_hash",
			"%s: the array read from the NetCDF file does not hash to the row's data_hash %x…: the file is damaged (verify_integrity lists every array affected)",
			m.Key, m.DataHash[:8])
	}
	return nil
}

// readStoredRows reads steps [first, first+n) of the array with digest d from the file.
//
// The array is looked for first where the row's type stores it. Either mode holds the same
// bytes (docs/format.md §13.5), and a standalone read then needs no list of the file's
// packed datasets (ncstore/lazyindex.go).
func (s *Store) readStoredRows(m *Metadata, d hashing.Digest, first, n int, dst []byte) ([]byte, error) {
	if !storedPacked(m.Type) {
		if sv, ok := s.nc.Variable(d); ok {
			return s.readVariableRows(m, sv, first, n, dst)
		}
	}
	if slot, ok := s.nc.Column(d); ok {
		ds := slot.Dataset()
		if !ds.Holds(m.DType, m.Length, m.ElementShape) {
			return nil, corruptAt("", "data_hash", "row says %s %v×%v but dataset %s holds %s %d×%v",
				m.DType, m.Length, m.ElementShape, ds.Name(), ds.DType(), ds.Length(), ds.ElementShape())
		}
		return s.nc.ReadColumn(slot, first, n, dst)
	}
	if storedPacked(m.Type) { // a standalone type was looked for there first
		if sv, ok := s.nc.Variable(d); ok {
			return s.readVariableRows(m, sv, first, n, dst)
		}
	}
	return nil, errNoArray(d)
}

// readVariableRows reads steps [first, first+n) of the standalone variable sv that holds
// the array of row m.
func (s *Store) readVariableRows(m *Metadata, sv *ncstore.Variable, first, n int, dst []byte) ([]byte, error) {
	full := append([]int{m.Length}, m.ElementShape...)
	if !sv.Holds(m.DType, full) {
		return nil, corruptAt("", "data_hash", "row says %s %v but %s holds %s %v",
			m.DType, full, sv.Name(), sv.DType(), sv.Shape())
	}
	return s.nc.ReadSpan(sv, 0, first, n, dst)
}

// pendingRows serves rows of an array the unit holds in memory, under the same check as a
// read from the file.
func pendingRows(m *Metadata, p *staged, first, n int, dst []byte) ([]byte, error) {
	full := append([]int{m.Length}, m.ElementShape...)
	if p.arr.DType != m.DType || !slices.Equal(p.arr.Shape, full) {
		return nil, corruptAt("", "data_hash", "row says %s %v but the pending array is %s %v",
			m.DType, full, p.arr.DType, p.arr.Shape)
	}
	rb := ncstore.ElementCount(m.ElementShape) * m.DType.Width()
	out := ncstore.Into(dst, n*rb)
	copy(out, p.arr.Data[first*rb:(first+n)*rb])
	return out, nil
}

// columnCorrupt is corrupt for a catalog.ColumnError of r's; other errors pass unchanged.
func columnCorrupt(r *catalog.Row, err error) error {
	var ce *catalog.ColumnError
	if errors.As(err, &ce) {
		return corrupt(r, ce.Column, "%s", ce.Msg)
	}
	return err
}

func corrupt(r *catalog.Row, column, format string, args ...any) error {
	e := corruptAt("", column, format, args...)
	e.Msg = "catalog row " + itoa(r.ID) + ": " + e.Msg
	return e
}

// metadataOf decodes a catalog row. features, when the caller already knows them (it
// looked the row up by a key holding them), saves a feature_sets query.
func (s *Store) metadataOf(r *catalog.Row, features Features) (*Metadata, error) {
	m := new(Metadata)
	if err := s.metadataInto(m, r, features, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// metadataInto is metadataOf into *m, which a caller decoding many rows takes from one slab,
// reusing what recent (nil for one row) parsed from the rows before.
func (s *Store) metadataInto(m *Metadata, r *catalog.Row, features Features, recent *catalog.Recent) error {
	*m = Metadata{ID: r.ID, OwnerType: r.OwnerType, Units: r.Units.String, Ext: r.Ext.String}
	m.OwnerID, m.Name = r.OwnerID, r.Name
	var err error
	if m.OwnerCategory, err = parseOwnerCategory(r.OwnerCategory); err != nil {
		return corrupt(r, "owner_category", "%v", err)
	}
	if m.Type, err = parseSeriesType(r.SeriesType); err != nil {
		return corrupt(r, "time_series_type", "%v", err)
	}
	if m.DType, err = ParseDType(r.DType); err != nil {
		return corrupt(r, "dtype", "unknown dtype %q", r.DType)
	}
	d, err := r.DecodeWith(recent)
	if err != nil {
		return columnCorrupt(r, err)
	}
	m.ElementShape, m.Length, m.Percentiles = d.ElementShape, d.Length, d.Percentiles
	m.Resolution, m.Interval, m.Horizon, m.InitialTimestamp = d.Resolution, d.Interval, d.Horizon, d.InitialTimestamp
	if m.Type == SingleTimeSeriesType && (m.Resolution.IsZero() || !d.HasInitial) {
		return corrupt(r, "resolution", "a SingleTimeSeries row needs a resolution and an initial timestamp")
	}
	if r.Count.Valid {
		m.Count = int(r.Count.Int64)
	}
	if len(r.DataHash) != 32 {
		return corrupt(r, "data_hash", "is %d bytes, not 32", len(r.DataHash))
	}
	if len(r.FeaturesHash) != 32 {
		return corrupt(r, "features_hash", "is %d bytes, not 32", len(r.FeaturesHash))
	}
	copy(m.DataHash[:], r.DataHash)
	copy(m.FeaturesHash[:], r.FeaturesHash)
	if features == nil {
		if features, err = s.featuresOf(r); err != nil {
			return err
		}
	}
	m.Features = cloneFeatures(features)
	return nil
}

// Batch collects series to add together: Commit adds them all or none (as AddBatch does);
// Discard drops them. Each series is validated when it is added (a bad one is refused
// there, naming its field); keys and the store are checked at Commit. A Batch holds the
// arrays it is given until then: do not modify them. It is not safe for concurrent use.
type Batch struct {
	s     *Store
	items []*prepared
	done  bool
}

// NewBatch starts an empty batch on the store.
func (s *Store) NewBatch() *Batch { return &Batch{s: s} }

// Add validates and queues one series; nothing is written until Commit.
func (b *Batch) Add(owner Owner, ts TimeSeries, opts *AddOptions) error {
	const op = "batch_add"
	if b.done {
		return invalid(op, ArgNone, "the batch was already committed or discarded")
	}
	p := new(prepared)
	if err := prepareItem(BatchItem{Owner: owner, Series: ts, Options: opts}, p); err != nil {
		return withOp(op, err)
	}
	b.items = append(b.items, p)
	return nil
}

// Len is the number of series queued.
func (b *Batch) Len() int { return len(b.items) }

// Commit adds every queued series in one call, all or nothing, and returns their keys in the
// order they were queued. The batch is finished either way.
func (b *Batch) Commit() ([]Key, error) {
	const op = "add_time_series_batch"
	if b.done {
		return nil, invalid(op, ArgNone, "the batch was already committed or discarded")
	}
	b.done = true
	items := b.items
	b.items = nil
	return b.s.commitBatch(op, items)
}

// Discard drops the queued series. Discarding twice, or after Commit, is harmless.
func (b *Batch) Discard() {
	b.done, b.items = true, nil
}
