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
		it, err := itemOf(desc, "desc")
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
		items := make([]core.BatchItem, n)
		for i := range items {
			if items[i], err = itemOf(element(descs, stride, i), "descs["+itoa(i)+"]"); err != nil {
				return err
			}
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

// itemOf reads one descriptor into the core's series. Its array is copied once, here: the
// core keeps it pending until the unit commits, and the caller's buffer is theirs again.
func itemOf(d *C.tsstore_series_desc, field string) (core.BatchItem, error) {
	var it core.BatchItem
	if _, err := structSize(d.struct_size, descSize, field, "TSSTORE_SERIES_DESC_INIT"); err != nil {
		return it, err
	}
	owner, opts, err := ownerOf(d, field)
	if err != nil {
		return it, err
	}
	name, err := reqString(d.name, field+".name")
	if err != nil {
		return it, err
	}
	arr, err := typedArray(d.dtype, d.shape, d.ndim, d.data, d.nbytes, field)
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

func ownerOf(d *C.tsstore_series_desc, field string) (core.Owner, *core.AddOptions, error) {
	c, err := categoryIn(d.owner_category, field+".owner_category", false)
	if err != nil {
		return core.Owner{}, nil, err
	}
	ot, err := reqString(d.owner_type, field+".owner_type")
	if err != nil {
		return core.Owner{}, nil, err
	}
	f, err := featuresIn(d.features_json, field+".features_json")
	if err != nil {
		return core.Owner{}, nil, err
	}
	return core.Owner{ID: int64(d.owner_id), Type: ot, Category: *c},
		&core.AddOptions{Features: f, Units: optString(d.units), Ext: optString(d.ext)}, nil
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
