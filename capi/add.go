package main

// #include "capi.h"
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

var descSize = unsafe.Sizeof(C.tsstore_series_desc{})

//export tsstore_add
func tsstore_add(p C.uintptr_t, desc *C.tsstore_series_desc, stored *C.tsstore_lookup) (status C.int32_t) {
	defer guard(&status)
	return withHandle(p, func(h *storeHandle) error {
		if desc == nil {
			return nullOut("desc")
		}
		stride, err := storedStride(stored)
		if err != nil {
			return err
		}
		it, err := itemOf(desc, one, nil)
		if err != nil {
			return err
		}
		k, err := h.s.Add(it.Owner, it.Series, it.Options)
		if err != nil || stored == nil {
			return err
		}
		// A single add is bound by its write, so one more probe for the record (and its id)
		// costs nothing that shows.
		m, err := h.s.GetMetadata(k)
		if err == nil {
			k := keyOut(m, &h.text)
			k.struct_size = C.uint32_t(stride)
			*stored = k
		}
		return err
	})
}

var storedSize = lookupSize

// storedStride checks an add's optional key out-parameter before the add runs.
func storedStride(stored *C.tsstore_lookup) (uintptr, error) {
	if stored == nil {
		return 0, nil
	}
	return outSize(stored.struct_size, storedSize, "stored", "TSSTORE_LOOKUP_INIT")
}

// putStored writes the keys of what a batch stored into the caller's stored[len(keys)].
func putStored(stored *C.tsstore_lookup, stride uintptr, keys []core.Key, items []core.BatchItem, in *interner) {
	for i, k := range keys {
		q := keyOf(k, k.Features.Hash(), items[i].ID, in)
		q.struct_size = C.uint32_t(stride)
		*element(stored, stride, i) = q
	}
}

//export tsstore_add_batch
func tsstore_add_batch(p C.uintptr_t, descs *C.tsstore_series_desc, n C.size_t, stored *C.tsstore_lookup) (status C.int32_t) {
	defer guard(&status)
	return withHandle(p, func(h *storeHandle) error {
		if n == 0 {
			return nil
		}
		if descs == nil {
			return badArg(core.ArgKeys, "descs is NULL but n is %d", n)
		}
		if n > 1<<32 {
			return badArg(core.ArgKeys, "n: %d is too large", n)
		}
		stride, err := structSize(descs.struct_size, descSize, elem("items", 0), core.ArgSeries, "TSSTORE_SERIES_DESC_INIT")
		if err != nil {
			return err
		}
		return addDescs(h, descSource{descs: descs, stride: stride, n: int(n)}, stored)
	})
}

//export tsstore_add_batch_from
func tsstore_add_batch_from(p C.uintptr_t, fill unsafe.Pointer, user unsafe.Pointer, n C.size_t,
	stored *C.tsstore_lookup) (status C.int32_t) {
	defer guard(&status)
	return withHandle(p, func(h *storeHandle) error {
		if n == 0 {
			return nil
		}
		if fill == nil {
			return badArg(core.ArgNone, "fill is NULL but n is %d", n)
		}
		if n > 1<<32 {
			return badArg(core.ArgKeys, "n: %d is too large", n)
		}
		return addDescs(h, descSource{fill: fill, user: user, n: int(n)}, stored)
	})
}

// addDescs adds the batch src's descriptors give (its descs or fill set), each item's key
// into stored (may be NULL): what tsstore_add_batch and tsstore_add_batch_from share once
// their own arguments are checked.
func addDescs(h *storeHandle, src descSource, stored *C.tsstore_lookup) error {
	sstride, err := storedStride(stored)
	if err != nil {
		return err
	}
	src.br, src.stored, src.sstride, src.text = batchReader{parsed: map[string]core.Features{}}, stored, sstride, &h.text
	return h.s.AddBatchFrom(&src)
}

// descSource is a batch add's descriptors as the core's BatchSource: the core reads them a
// slice at a time as it adds them (up to 8,192 items), and each slice's keys go into stored once
// the slice is committed. Built all at once, a batch's Go items (about 220 bytes each) were
// live through the whole add and garbage after it, which set the peak RSS of a bulk add that
// a flush follows: 22 MB at 100,000 items, and the collection that had to free them before
// the flush (docs/benchmarks.md). Each descriptor's strings are read in one C call, and those
// equal to the previous descriptor's are not read again; identical features_json are parsed
// once (a batch of 100,000 small series made 700,000 cgo calls and as many allocations
// before). The arrays stay the caller's (typedArray). The descriptors are an array given at
// once (descs), or asked of the caller's fill callback a slice at a time (fill, user).
type descSource struct {
	descs   *C.tsstore_series_desc
	stride  uintptr
	fill    unsafe.Pointer // a tsstore_desc_fill
	user    unsafe.Pointer
	n       int
	br      batchReader
	stored  *C.tsstore_lookup // nil: the caller wants no keys
	sstride uintptr
	text    *interner
}

func (d *descSource) Len() int { return d.n }

func (d *descSource) Fill(dst []core.BatchItem, first int) error {
	base, stride := element(d.descs, d.stride, first), d.stride
	if d.fill != nil {
		var err error
		if base, stride, err = d.fillSlice(first, len(dst)); err != nil {
			return err
		}
	}
	for i := range dst {
		var err error
		if dst[i], err = itemOf(element(base, stride, i), elem("items", first+i), &d.br); err != nil {
			return err
		}
	}
	return nil
}

// fillSlice asks the caller's callback for the descriptors of items [first, first+count).
func (d *descSource) fillSlice(first, count int) (*C.tsstore_series_desc, uintptr, error) {
	r := C.ts_call_fill(d.fill, d.user, C.size_t(first), C.size_t(count))
	base := (*C.tsstore_series_desc)(unsafe.Pointer(r.descs))
	if st := r.status; st != statusOK {
		kind := core.ErrInvalidParameter
		for _, k := range kinds {
			if k.status == st {
				kind = k.err
			}
		}
		return nil, 0, &core.Error{Kind: kind, Msg: fmt.Sprintf("fill stopped the add, returning %d (%s) for items %d to %d",
			st, C.GoString(statusName(st)), first, first+count-1)}
	}
	if base == nil {
		return nil, 0, badArg(core.ArgNone, "fill returned TSSTORE_OK but set no descriptors for items %d to %d",
			first, first+count-1)
	}
	stride, err := structSize(base.struct_size, descSize, elem("items", first), core.ArgSeries, "TSSTORE_SERIES_DESC_INIT")
	return base, stride, err
}

func (d *descSource) Committed(first int, items []core.BatchItem, keys []core.Key) {
	if d.stored != nil {
		putStored(element(d.stored, d.sstride, first), d.sstride, keys, items, d.text)
	}
}

// descStrings are a descriptor's owner_type, name, features_json, units and ext.
type descStrings struct {
	v    [C.TS_DESC_STRINGS]string
	null [C.TS_DESC_STRINGS]bool
}

// batchReader carries what one descriptor of a batch shares with the ones before it.
type batchReader struct {
	prev   *C.tsstore_series_desc
	last   descStrings
	parsed map[string]core.Features // by features_json text
}

// readStrings reads d's strings; br (nil for a single add) reuses the previous descriptor's.
func readStrings(d *C.tsstore_series_desc, br *batchReader) descStrings {
	var prev *C.tsstore_series_desc
	if br != nil {
		prev = br.prev
	}
	lens := C.ts_desc_strings(d, prev).len
	ptrs := [C.TS_DESC_STRINGS]*C.char{d.owner_type, d.name, d.features_json, d.units, d.ext}
	var out descStrings
	for i, n := range lens {
		switch n {
		case C.TS_STR_NULL:
			out.null[i] = true
		case C.TS_STR_SAME:
			out.v[i] = br.last.v[i]
		default:
			if n > 0 {
				out.v[i] = C.GoStringN(ptrs[i], C.int(n))
			}
		}
	}
	return out
}

// itemOf reads one descriptor into the core's series, whose array is the caller's memory
// (typedArray): the core copies what it keeps before the call returns.
func itemOf(d *C.tsstore_series_desc, w where, br *batchReader) (core.BatchItem, error) {
	var it core.BatchItem
	if _, err := structSize(d.struct_size, descSize, w, core.ArgSeries, "TSSTORE_SERIES_DESC_INIT"); err != nil {
		return it, err
	}
	strs := readStrings(d, br)
	owner, opts, err := ownerOf(d, w, &strs, br)
	if err != nil {
		return it, err
	}
	if br != nil {
		br.prev, br.last = d, strs
	}
	if strs.null[1] {
		return it, w.bad(core.ArgName, "", "is NULL")
	}
	name := strs.v[1]
	arr, err := typedArray(d.dtype, d.shape, d.ndim, d.data, d.nbytes, w)
	if err != nil {
		return it, err
	}
	typ, err := typeIn(d.series_type, w, false)
	if err != nil {
		return it, err
	}
	var ts core.TimeSeries
	switch *typ {
	case core.SingleTimeSeriesType:
		ts, err = singleOf(d, w, name, arr)
	case core.NonSequentialTimeSeriesType:
		ts, err = nonSequentialOf(d, w, name, arr)
	case core.DeterministicType, core.ProbabilisticType, core.ScenariosType:
		ts, err = forecastOf(d, w, *typ, name, arr)
	default:
		err = w.bad(core.ArgSeriesType, "", "%s cannot be added (a DeterministicSingleTimeSeries is derived with tsstore_transform_single_time_series)", *typ)
	}
	return core.BatchItem{Owner: owner, Series: ts, Options: opts}, err
}

func ownerOf(d *C.tsstore_series_desc, w where, strs *descStrings, br *batchReader) (core.Owner, *core.AddOptions, error) {
	c, cerr := categoryIn(d.owner_category, w, false)
	if cerr != nil {
		return core.Owner{}, nil, cerr
	}
	if strs.null[0] {
		return core.Owner{}, nil, w.bad(core.ArgOwnerType, "", "is NULL")
	}
	var f core.Features
	var err error
	if d.features != nil {
		f, err = featuresFromC(d.features, d.n_features, w)
	} else {
		f, err = featuresOf(strs, w, br)
	}
	if err != nil {
		return core.Owner{}, nil, err
	}
	return core.Owner{ID: int64(d.owner_id), Type: strs.v[0], Category: *c},
		&core.AddOptions{Features: f, Units: strs.v[3], Ext: strs.v[4]}, nil
}

// featuresOf parses a descriptor's features_json as featuresIn does. In a batch, a text
// seen before is not parsed again: its items share the parsed map, which the core only reads.
func featuresOf(strs *descStrings, w where, br *batchReader) (core.Features, error) {
	if strs.null[2] {
		return nil, nil
	}
	text := strs.v[2]
	if text == "" {
		return core.Features{}, nil
	}
	if br == nil {
		return parseFeatures(text, w)
	}
	f, ok := br.parsed[text]
	if !ok {
		var err error
		if f, err = parseFeatures(text, w); err != nil {
			return nil, err
		}
		br.parsed[text] = f
	}
	return f, nil
}

func singleOf(d *C.tsstore_series_desc, w where, name string, arr core.TypedArray) (core.TimeSeries, error) {
	res, err := reqPeriodIn(d.resolution, w, core.ArgResolution)
	if err != nil {
		return nil, err
	}
	return &core.SingleTimeSeries{Name: name, InitialTimestamp: fromMillis(d.initial_ms), Resolution: res, Data: arr}, nil
}

func nonSequentialOf(d *C.tsstore_series_desc, w where, name string, arr core.TypedArray) (core.TimeSeries, error) {
	n := arr.Shape[0]
	if d.timestamps_ms == nil {
		return nil, w.bad(core.ArgTimestamps, "", "is NULL; a NonSequentialTimeSeries needs shape[0] = %d of them", n)
	}
	ts := &core.NonSequentialTimeSeries{Name: name, Data: arr, Timestamps: make([]time.Time, n)}
	for i, v := range valuesFromC[int64](unsafe.Pointer(d.timestamps_ms), n) {
		ts.Timestamps[i] = fromMillis(C.int64_t(v))
	}
	return ts, nil
}

func forecastOf(d *C.tsstore_series_desc, w where, typ core.SeriesType, name string, arr core.TypedArray) (core.TimeSeries, error) {
	var periods [3]core.Period
	var err error
	for i, f := range []struct {
		p   C.tsstore_period
		arg core.Arg
	}{{d.resolution, core.ArgResolution}, {d.horizon, core.ArgHorizon}, {d.interval, core.ArgInterval}} {
		if periods[i], err = reqPeriodIn(f.p, w, f.arg); err != nil {
			return nil, err
		}
	}
	if d.count <= 0 || d.count > 1<<40 {
		return nil, w.bad(core.ArgCount, "", "%d windows; a forecast has at least one", d.count)
	}
	t0, c := fromMillis(d.initial_ms), int(d.count)
	switch typ {
	case core.ProbabilisticType:
		if d.n_percentiles > 1<<20 {
			return nil, w.badField(core.ArgPercentiles, "n_percentiles", "%d is too large", d.n_percentiles)
		}
		if d.n_percentiles > 0 && d.percentiles == nil {
			return nil, w.bad(core.ArgPercentiles, "", "is NULL but n_percentiles is %d", d.n_percentiles)
		}
		ps := valuesFromC[float64](unsafe.Pointer(d.percentiles), int(d.n_percentiles))
		return &core.Probabilistic{Name: name, InitialTimestamp: t0, Resolution: periods[0], Horizon: periods[1],
			Interval: periods[2], Count: c, Percentiles: ps, Data: arr}, nil
	case core.ScenariosType:
		return &core.Scenarios{Name: name, InitialTimestamp: t0, Resolution: periods[0], Horizon: periods[1],
			Interval: periods[2], Count: c, Data: arr}, nil
	}
	return &core.Deterministic{Name: name, InitialTimestamp: t0, Resolution: periods[0], Horizon: periods[1],
		Interval: periods[2], Count: c, Data: arr}, nil
}
