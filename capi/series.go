package main

// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

//export tsstore_key_new
func tsstore_key_new(ownerID C.int64_t, category, seriesType C.int32_t, name, resolution, interval, featuresJSON *C.char, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	k, err := makeKey(ownerID, category, seriesType, name, resolution, interval, featuresJSON)
	if err != nil {
		return fail(nil, err)
	}
	*out = newKeyHandle(k)
	return statusOK
}

func makeKey(ownerID C.int64_t, category, seriesType C.int32_t, name, resolution, interval, featuresJSON *C.char) (core.Key, error) {
	if category < 0 || !core.OwnerCategory(category).Valid() {
		return core.Key{}, invalidArg("owner_category: unknown code %d (0 Component, 1 SupplementalAttribute)", category)
	}
	if seriesType < 0 || !core.SeriesType(seriesType).Valid() {
		return core.Key{}, invalidArg("series_type: unknown code %d (0–6)", seriesType)
	}
	n, err := reqString(name, "name")
	if err != nil {
		return core.Key{}, err
	}
	res, err := optPeriod(resolution, "resolution")
	if err != nil {
		return core.Key{}, err
	}
	iv, err := optPeriod(interval, "interval")
	if err != nil {
		return core.Key{}, err
	}
	f, err := optFeatures(featuresJSON)
	if err != nil {
		return core.Key{}, err
	}
	return core.Key{OwnerID: int64(ownerID), OwnerCategory: core.OwnerCategory(category), Type: core.SeriesType(seriesType),
		Name: n, Resolution: res, Interval: iv, Features: f}, nil
}

//export tsstore_key_free
func tsstore_key_free(p C.uintptr_t) {
	defer guardVoid()
	unregister(uintptr(p), kindKey)
}

// withKey runs fn on a live key.
func withKey(p C.uintptr_t, fn func(core.Key) error) C.int32_t {
	k, err := getKey(p)
	if err == nil {
		err = fn(k)
	}
	if err != nil {
		return fail(nil, err)
	}
	return statusOK
}

//export tsstore_key_owner
func tsstore_key_owner(p C.uintptr_t, ownerID *C.int64_t, category *C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return withKey(p, func(k core.Key) error {
		if ownerID != nil {
			*ownerID = C.int64_t(k.OwnerID)
		}
		if category != nil {
			*category = C.int32_t(k.OwnerCategory)
		}
		return nil
	})
}

//export tsstore_key_series_type
func tsstore_key_series_type(p C.uintptr_t, seriesType *C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return withKey(p, func(k core.Key) error {
		if seriesType == nil {
			return invalidArg("series_type is NULL")
		}
		*seriesType = C.int32_t(k.Type)
		return nil
	})
}

func periodText(p core.Period) string {
	if p.IsZero() {
		return ""
	}
	return p.String()
}

//export tsstore_key_name
func tsstore_key_name(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withKey(p, func(k core.Key) error { return putString(k.Name, buf, capacity, needed) })
}

//export tsstore_key_resolution
func tsstore_key_resolution(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withKey(p, func(k core.Key) error { return putString(periodText(k.Resolution), buf, capacity, needed) })
}

//export tsstore_key_interval
func tsstore_key_interval(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withKey(p, func(k core.Key) error { return putString(periodText(k.Interval), buf, capacity, needed) })
}

//export tsstore_key_features
func tsstore_key_features(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withKey(p, func(k core.Key) error { return putString(k.Features.JSON(), buf, capacity, needed) })
}

// addCommon reads the owner, name and options shared by every add.
func addCommon(ownerID C.int64_t, ownerType *C.char, category C.int32_t, name, featuresJSON, units, ext *C.char) (core.Owner, string, *core.AddOptions, error) {
	if category < 0 || !core.OwnerCategory(category).Valid() {
		return core.Owner{}, "", nil, invalidArg("owner_category: unknown code %d (0 Component, 1 SupplementalAttribute)", category)
	}
	ot, err := reqString(ownerType, "owner_type")
	if err != nil {
		return core.Owner{}, "", nil, err
	}
	n, err := reqString(name, "name")
	if err != nil {
		return core.Owner{}, "", nil, err
	}
	f, err := optFeatures(featuresJSON)
	if err != nil {
		return core.Owner{}, "", nil, err
	}
	return core.Owner{ID: int64(ownerID), Type: ot, Category: core.OwnerCategory(category)}, n,
		&core.AddOptions{Features: f, Units: optString(units), Ext: optString(ext)}, nil
}

// addSeries adds ts for owner and hands out its key when keyOut is not NULL.
func addSeries(p C.uintptr_t, owner core.Owner, ts core.TimeSeries, opts *core.AddOptions, keyOut *C.uintptr_t) C.int32_t {
	if keyOut != nil {
		*keyOut = 0
	}
	var k core.Key
	st := withStore(p, func(s *core.Store) error {
		var err error
		k, err = s.Add(owner, ts, opts)
		return err
	})
	if st == statusOK && keyOut != nil {
		*keyOut = newKeyHandle(k)
	}
	return st
}

// The builders below turn the C arguments of an add into the core's series; the direct adds
// and the batch adds share them.

func buildSingle(ownerID C.int64_t, ownerType *C.char, category C.int32_t, name *C.char, initialMS C.int64_t,
	resolution *C.char, dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer, nbytes C.size_t,
	featuresJSON, units, ext *C.char) (core.BatchItem, error) {
	owner, n, opts, err := addCommon(ownerID, ownerType, category, name, featuresJSON, units, ext)
	if err != nil {
		return core.BatchItem{}, err
	}
	res, err := reqPeriod(resolution, "resolution")
	if err != nil {
		return core.BatchItem{}, err
	}
	arr, err := typedArray(dtype, shape, ndim, data, nbytes)
	if err != nil {
		return core.BatchItem{}, err
	}
	ts := &core.SingleTimeSeries{Name: n, InitialTimestamp: fromMillis(initialMS), Resolution: res, Data: arr}
	return core.BatchItem{Owner: owner, Series: ts, Options: opts}, nil
}

func buildNonSequential(ownerID C.int64_t, ownerType *C.char, category C.int32_t, name *C.char,
	timestamps *C.int64_t, nTimestamps C.size_t, dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer,
	nbytes C.size_t, featuresJSON, units, ext *C.char) (core.BatchItem, error) {
	owner, n, opts, err := addCommon(ownerID, ownerType, category, name, featuresJSON, units, ext)
	if err != nil {
		return core.BatchItem{}, err
	}
	if nTimestamps > 0 && timestamps == nil {
		return core.BatchItem{}, invalidArg("timestamps_ms is NULL but n_timestamps is %d", nTimestamps)
	}
	if nTimestamps > 1<<40 {
		return core.BatchItem{}, invalidArg("n_timestamps: %d is too large", nTimestamps)
	}
	arr, err := typedArray(dtype, shape, ndim, data, nbytes)
	if err != nil {
		return core.BatchItem{}, err
	}
	ts := &core.NonSequentialTimeSeries{Name: n, Data: arr}
	for _, v := range valuesFromC[int64](unsafe.Pointer(timestamps), int(nTimestamps)) {
		ts.Timestamps = append(ts.Timestamps, fromMillis(C.int64_t(v)))
	}
	return core.BatchItem{Owner: owner, Series: ts, Options: opts}, nil
}

func buildForecast(ownerID C.int64_t, ownerType *C.char, category C.int32_t, name *C.char, seriesType C.int32_t,
	initialMS C.int64_t, resolution, horizon, interval *C.char, count C.int64_t, percentiles *C.double,
	nPercentiles C.size_t, dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer, nbytes C.size_t,
	featuresJSON, units, ext *C.char) (core.BatchItem, error) {
	owner, n, opts, err := addCommon(ownerID, ownerType, category, name, featuresJSON, units, ext)
	if err != nil {
		return core.BatchItem{}, err
	}
	var periods [3]core.Period
	for i, f := range []struct {
		p    *C.char
		name string
	}{{resolution, "resolution"}, {horizon, "horizon"}, {interval, "interval"}} {
		if periods[i], err = reqPeriod(f.p, f.name); err != nil {
			return core.BatchItem{}, err
		}
	}
	if count <= 0 || count > 1<<40 {
		return core.BatchItem{}, invalidArg("count: %d windows; a forecast has at least one", count)
	}
	arr, err := typedArray(dtype, shape, ndim, data, nbytes)
	if err != nil {
		return core.BatchItem{}, err
	}
	t0, c := fromMillis(initialMS), int(count)
	var ts core.TimeSeries
	switch core.SeriesType(seriesType) {
	case core.DeterministicType:
		ts = &core.Deterministic{Name: n, InitialTimestamp: t0, Resolution: periods[0], Horizon: periods[1], Interval: periods[2], Count: c, Data: arr}
	case core.ProbabilisticType:
		if nPercentiles > 0 && percentiles == nil {
			return core.BatchItem{}, invalidArg("percentiles is NULL but n_percentiles is %d", nPercentiles)
		}
		if nPercentiles > 1<<20 {
			return core.BatchItem{}, invalidArg("n_percentiles: %d is too large", nPercentiles)
		}
		ps := valuesFromC[float64](unsafe.Pointer(percentiles), int(nPercentiles))
		ts = &core.Probabilistic{Name: n, InitialTimestamp: t0, Resolution: periods[0], Horizon: periods[1], Interval: periods[2], Count: c, Percentiles: ps, Data: arr}
	case core.ScenariosType:
		ts = &core.Scenarios{Name: n, InitialTimestamp: t0, Resolution: periods[0], Horizon: periods[1], Interval: periods[2], Count: c, Data: arr}
	default:
		return core.BatchItem{}, invalidArg("series_type: %d is not Deterministic (2), Probabilistic (4) or Scenarios (5)", seriesType)
	}
	return core.BatchItem{Owner: owner, Series: ts, Options: opts}, nil
}

// addBuilt adds a built series, or records why it could not be built.
func addBuilt(p C.uintptr_t, it core.BatchItem, err error, keyOut *C.uintptr_t) C.int32_t {
	if keyOut != nil {
		*keyOut = 0
	}
	if err != nil {
		return fail(nil, err)
	}
	return addSeries(p, it.Owner, it.Series, it.Options, keyOut)
}

//export tsstore_add_single
func tsstore_add_single(p C.uintptr_t, ownerID C.int64_t, ownerType *C.char, category C.int32_t, name *C.char,
	initialMS C.int64_t, resolution *C.char, dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer,
	nbytes C.size_t, featuresJSON, units, ext *C.char, keyOut *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	it, err := buildSingle(ownerID, ownerType, category, name, initialMS, resolution, dtype, shape, ndim, data, nbytes, featuresJSON, units, ext)
	return addBuilt(p, it, err, keyOut)
}

//export tsstore_add_nonsequential
func tsstore_add_nonsequential(p C.uintptr_t, ownerID C.int64_t, ownerType *C.char, category C.int32_t, name *C.char,
	timestamps *C.int64_t, nTimestamps C.size_t, dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer,
	nbytes C.size_t, featuresJSON, units, ext *C.char, keyOut *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	it, err := buildNonSequential(ownerID, ownerType, category, name, timestamps, nTimestamps, dtype, shape, ndim, data, nbytes, featuresJSON, units, ext)
	return addBuilt(p, it, err, keyOut)
}

//export tsstore_add_forecast
func tsstore_add_forecast(p C.uintptr_t, ownerID C.int64_t, ownerType *C.char, category C.int32_t, name *C.char,
	seriesType C.int32_t, initialMS C.int64_t, resolution, horizon, interval *C.char, count C.int64_t,
	percentiles *C.double, nPercentiles C.size_t, dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer,
	nbytes C.size_t, featuresJSON, units, ext *C.char, keyOut *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	it, err := buildForecast(ownerID, ownerType, category, name, seriesType, initialMS, resolution, horizon, interval, count,
		percentiles, nPercentiles, dtype, shape, ndim, data, nbytes, featuresJSON, units, ext)
	return addBuilt(p, it, err, keyOut)
}
