package main

// #include "capi.h"
import "C"

import (
	"errors"
	"strings"
	"time"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

var descSize = unsafe.Sizeof(C.tsstore_series_desc{})

//export tsstore_add
func tsstore_add(p C.uintptr_t, desc *C.tsstore_series_desc) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if desc == nil {
			return invalidArg("desc is NULL")
		}
		it, err := itemOf(desc, "desc", nil)
		if err != nil {
			return err
		}
		_, err = s.Add(it.Owner, it.Series, it.Options)
		return descError(err, false)
	})
}

//export tsstore_add_batch
func tsstore_add_batch(p C.uintptr_t, descs *C.tsstore_series_desc, n C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if n == 0 {
			return nil
		}
		if descs == nil {
			return invalidArg("descs is NULL but n is %d", n)
		}
		if n > 1<<32 {
			return invalidArg("n: %d is too large", n)
		}
		stride, err := structSize(descs.struct_size, descSize, "descs[0]", "TSSTORE_SERIES_DESC_INIT")
		if err != nil {
			return err
		}
		items, err := batchItems(descs, stride, int(n))
		if err != nil {
			return err
		}
		_, err = s.AddBatch(items)
		return descError(err, true)
	})
}

// descFields are the core's names of a series' fields and the descriptor's, longest first.
var descFields = []struct{ core, c string }{
	{"data.shape", "shape"}, {"data.dtype", "dtype"}, {"data.data", "data"}, {"timestamps", "timestamps_ms"},
	{"features", "features_json"}, {"data", "data"},
}

// descError names the field of a refused add as the caller wrote it: "desc.shape[0]" or
// "descs[3].timestamps_ms", where the core says "data.shape[0]" or "items[3].timestamps".
func descError(err error, batch bool) error {
	var e *core.Error
	if !errors.As(err, &e) {
		return err
	}
	prefix, field := "desc", e.Field
	if batch {
		prefix = "descs[0]"
		if rest, ok := strings.CutPrefix(field, "items["); ok {
			if i := strings.Index(rest, "]"); i >= 0 {
				prefix, field = "descs["+rest[:i+1], strings.TrimPrefix(rest[i+1:], ".")
			}
		}
	}
	for _, f := range descFields {
		if rest, ok := strings.CutPrefix(field, f.core); ok && (rest == "" || rest[0] == '[' || rest[0] == '.') {
			field = f.c + rest
			break
		}
	}
	if field == "" || field == "key" {
		e.Field = prefix
	} else {
		e.Field = prefix + "." + field
	}
	return err
}

// batchItems reads the n descriptors of a batch add. Each descriptor's strings are read in
// one C call, and those equal to the previous descriptor's are not read again; identical
// features_json are parsed once; the arrays, once every descriptor is checked, are copied
// by one C call into one block (a batch of 100,000 small series made 700,000 cgo calls and
// as many allocations before).
func batchItems(descs *C.tsstore_series_desc, stride uintptr, n int) ([]core.BatchItem, error) {
	items := make([]core.BatchItem, n)
	offsets, sizes := make([]uint64, n), make([]uint64, n)
	br := &batchReader{parsed: map[string]core.Features{}}
	var total uint64
	for i := range items {
		d := element(descs, stride, i)
		var err error
		if items[i], err = itemOf(d, "descs["+itoa(i)+"]", br); err != nil {
			return nil, err
		}
		offsets[i], sizes[i] = total, uint64(d.nbytes) // nbytes matches the shape: checked
		total += (sizes[i] + 7) &^ 7                   // each array 8-byte aligned in the block
	}
	block := alignedBuffer(int(total))
	if total > 0 {
		C.ts_copy_arrays((*C.char)(unsafe.Pointer(descs)), C.size_t(stride), C.size_t(n),
			(*C.char)(unsafe.Pointer(&block[0])), (*C.uint64_t)(unsafe.Pointer(&offsets[0])))
	}
	for i, it := range items {
		end := offsets[i] + sizes[i]
		arrayOf(it.Series).Data = block[offsets[i]:end:end]
	}
	return items, nil
}

// arrayOf is the array field of a series itemOf made.
func arrayOf(ts core.TimeSeries) *core.TypedArray {
	switch t := ts.(type) {
	case *core.SingleTimeSeries:
		return &t.Data
	case *core.NonSequentialTimeSeries:
		return &t.Data
	case *core.Deterministic:
		return &t.Data
	case *core.Probabilistic:
		return &t.Data
	case *core.Scenarios:
		return &t.Data
	}
	panic("tsstore: arrayOf: unknown series type")
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
	var lens [C.TS_DESC_STRINGS]C.int64_t
	var prev *C.tsstore_series_desc
	if br != nil {
		prev = br.prev
	}
	C.ts_desc_strings(d, prev, &lens[0])
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

// itemOf reads one descriptor into the core's series. Its array is copied once, here: the
// core keeps it pending until the unit commits, and the caller's buffer is theirs again.
// In a batch (br not nil) the array is only checked: batchItems copies every array at
// once, and until then the series' Data is nil.
func itemOf(d *C.tsstore_series_desc, field string, br *batchReader) (core.BatchItem, error) {
	var it core.BatchItem
	if _, err := structSize(d.struct_size, descSize, field, "TSSTORE_SERIES_DESC_INIT"); err != nil {
		return it, err
	}
	strs := readStrings(d, br)
	owner, opts, err := ownerOf(d, field, &strs, br)
	if err != nil {
		return it, err
	}
	if br != nil {
		br.prev, br.last = d, strs
	}
	if strs.null[1] {
		return it, invalidArg("%s.name is NULL", field)
	}
	name := strs.v[1]
	arr, err := typedArray(d.dtype, d.shape, d.ndim, d.data, d.nbytes, field, br == nil)
	if err != nil {
		return it, err
	}
	typ, err := typeIn(d.series_type, field+".series_type", false)
	if err != nil {
		return it, err
	}
	var ts core.TimeSeries
	switch *typ {
	case core.SingleTimeSeriesType:
		ts, err = singleOf(d, field, name, arr)
	case core.NonSequentialTimeSeriesType:
		ts, err = nonSequentialOf(d, field, name, arr)
	case core.DeterministicType, core.ProbabilisticType, core.ScenariosType:
		ts, err = forecastOf(d, field, *typ, name, arr)
	default:
		err = invalidArg("%s.series_type: %s cannot be added (a DeterministicSingleTimeSeries is derived with tsstore_transform_single_time_series)", field, *typ)
	}
	return core.BatchItem{Owner: owner, Series: ts, Options: opts}, err
}

func ownerOf(d *C.tsstore_series_desc, field string, strs *descStrings, br *batchReader) (core.Owner, *core.AddOptions, error) {
	c, err := categoryIn(d.owner_category, field+".owner_category", false)
	if err != nil {
		return core.Owner{}, nil, err
	}
	if strs.null[0] {
		return core.Owner{}, nil, invalidArg("%s.owner_type is NULL", field)
	}
	f, err := featuresOf(strs, field+".features_json", br)
	if err != nil {
		return core.Owner{}, nil, err
	}
	return core.Owner{ID: int64(d.owner_id), Type: strs.v[0], Category: *c},
		&core.AddOptions{Features: f, Units: strs.v[3], Ext: strs.v[4]}, nil
}

// featuresOf parses a descriptor's features_json as featuresIn does. In a batch, a text
// seen before is not parsed again: its items share the parsed map, which the core only reads.
func featuresOf(strs *descStrings, field string, br *batchReader) (core.Features, error) {
	if strs.null[2] {
		return nil, nil
	}
	text := strs.v[2]
	if text == "" {
		return core.Features{}, nil
	}
	if br == nil {
		return parseFeatures(text, field)
	}
	f, ok := br.parsed[text]
	if !ok {
		var err error
		if f, err = parseFeatures(text, field); err != nil {
			return nil, err
		}
		br.parsed[text] = f
	}
	return f, nil
}

func singleOf(d *C.tsstore_series_desc, field, name string, arr core.TypedArray) (core.TimeSeries, error) {
	res, err := reqPeriodIn(d.resolution, field+".resolution")
	if err != nil {
		return nil, err
	}
	return &core.SingleTimeSeries{Name: name, InitialTimestamp: fromMillis(d.initial_ms), Resolution: res, Data: arr}, nil
}

func nonSequentialOf(d *C.tsstore_series_desc, field, name string, arr core.TypedArray) (core.TimeSeries, error) {
	n := arr.Shape[0]
	if d.timestamps_ms == nil {
		return nil, invalidArg("%s.timestamps_ms is NULL; a NonSequentialTimeSeries needs shape[0] = %d of them", field, n)
	}
	ts := &core.NonSequentialTimeSeries{Name: name, Data: arr, Timestamps: make([]time.Time, n)}
	for i, v := range valuesFromC[int64](unsafe.Pointer(d.timestamps_ms), n) {
		ts.Timestamps[i] = fromMillis(C.int64_t(v))
	}
	return ts, nil
}

func forecastOf(d *C.tsstore_series_desc, field string, typ core.SeriesType, name string, arr core.TypedArray) (core.TimeSeries, error) {
	var periods [3]core.Period
	var err error
	for i, f := range []struct {
		p    C.tsstore_period
		name string
	}{{d.resolution, "resolution"}, {d.horizon, "horizon"}, {d.interval, "interval"}} {
		if periods[i], err = reqPeriodIn(f.p, field+"."+f.name); err != nil {
			return nil, err
		}
	}
	if d.count <= 0 || d.count > 1<<40 {
		return nil, invalidArg("%s.count: %d windows; a forecast has at least one", field, d.count)
	}
	t0, c := fromMillis(d.initial_ms), int(d.count)
	switch typ {
	case core.ProbabilisticType:
		if d.n_percentiles > 1<<20 {
			return nil, invalidArg("%s.n_percentiles: %d is too large", field, d.n_percentiles)
		}
		if d.n_percentiles > 0 && d.percentiles == nil {
			return nil, invalidArg("%s.percentiles is NULL but n_percentiles is %d", field, d.n_percentiles)
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
