package main

// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// rawArray marks a series handle holding an array read by its hash (tsstore_get_array).
const rawArray core.SeriesType = 255

// seriesHandle is a series read from a store, with its timeline flattened for C.
type seriesHandle struct {
	typ        core.SeriesType
	arr        core.TypedArray
	initial    C.int64_t
	count      int
	stamps     []int64
	resolution string
	horizon    string
	interval   string
	percentile []float64
}

func newSeriesHandle(ts core.TimeSeries) *seriesHandle {
	switch t := ts.(type) {
	case *core.SingleTimeSeries:
		return &seriesHandle{typ: core.SingleTimeSeriesType, arr: t.Data, initial: toMillis(t.InitialTimestamp),
			resolution: t.Resolution.String()}
	case *core.NonSequentialTimeSeries:
		h := &seriesHandle{typ: core.NonSequentialTimeSeriesType, arr: t.Data, stamps: make([]int64, len(t.Timestamps))}
		for i, st := range t.Timestamps {
			h.stamps[i] = st.UnixMilli()
		}
		return h
	case core.Forecast:
		g := t.Grid()
		h := &seriesHandle{typ: t.SeriesType(), arr: t.Array(), initial: toMillis(g.InitialTimestamp), count: g.Count,
			resolution: g.Resolution.String(), horizon: g.Horizon.String(), interval: g.Interval.String()}
		if p, ok := t.(*core.Probabilistic); ok {
			h.percentile = p.Percentiles
		}
		return h
	}
	return &seriesHandle{}
}

func getSeries(p C.uintptr_t) (*seriesHandle, error) {
	v, ok := lookup(uintptr(p), kindSeries)
	if !ok {
		return nil, badHandle("series")
	}
	return v.(*seriesHandle), nil
}

// readInto runs a read and hands out its series.
func readInto(p C.uintptr_t, key C.uintptr_t, out *C.uintptr_t, read func(*core.Store, core.Key) (core.TimeSeries, error)) C.int32_t {
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var ts core.TimeSeries
	st := withStore(p, func(s *core.Store) error {
		k, err := getKey(key)
		if err != nil {
			return err
		}
		ts, err = read(s, k)
		return err
	})
	if st == statusOK {
		*out = C.uintptr_t(register(kindSeries, newSeriesHandle(ts)))
	}
	return st
}

//export tsstore_has
func tsstore_has(p C.uintptr_t, key C.uintptr_t, found *C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if found == nil {
			return invalidArg("found is NULL")
		}
		k, err := getKey(key)
		if err != nil {
			return err
		}
		ok, err := s.Has(k)
		if err == nil {
			*found = 0
			if ok {
				*found = 1
			}
		}
		return err
	})
}

//export tsstore_get
func tsstore_get(p C.uintptr_t, key C.uintptr_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return readInto(p, key, out, func(s *core.Store, k core.Key) (core.TimeSeries, error) { return s.Get(k) })
}

//export tsstore_get_range
func tsstore_get_range(p C.uintptr_t, key C.uintptr_t, startMS, endMS C.int64_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return readInto(p, key, out, func(s *core.Store, k core.Key) (core.TimeSeries, error) {
		return s.GetRange(k, fromMillis(startMS), fromMillis(endMS))
	})
}

//export tsstore_get_windows
func tsstore_get_windows(p C.uintptr_t, key C.uintptr_t, firstMS, lastMS C.int64_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return readInto(p, key, out, func(s *core.Store, k core.Key) (core.TimeSeries, error) {
		return s.GetWindows(k, fromMillis(firstMS), fromMillis(lastMS))
	})
}

//export tsstore_series_free
func tsstore_series_free(p C.uintptr_t) {
	defer guardVoid()
	unregister(uintptr(p), kindSeries)
}

func withSeries(p C.uintptr_t, fn func(*seriesHandle) error) C.int32_t {
	h, err := getSeries(p)
	if err == nil {
		err = fn(h)
	}
	if err != nil {
		return fail(nil, err)
	}
	return statusOK
}

//export tsstore_series_info
func tsstore_series_info(p C.uintptr_t, seriesType, dtype *C.int32_t, ndim *C.size_t, initialMS, count *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withSeries(p, func(h *seriesHandle) error {
		if seriesType != nil {
			*seriesType = C.int32_t(h.typ)
			if h.typ == rawArray {
				*seriesType = -1
			}
		}
		if dtype != nil {
			*dtype = C.int32_t(h.arr.DType)
		}
		if ndim != nil {
			*ndim = C.size_t(len(h.arr.Shape))
		}
		if initialMS != nil {
			*initialMS = h.initial
		}
		if count != nil {
			*count = C.int64_t(h.count)
		}
		return nil
	})
}

//export tsstore_series_shape
func tsstore_series_shape(p C.uintptr_t, shape *C.int64_t, capacity C.size_t, ndim *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withSeries(p, func(h *seriesHandle) error {
		if ndim != nil {
			*ndim = C.size_t(len(h.arr.Shape))
		}
		if shape == nil && capacity == 0 {
			return nil
		}
		if shape == nil {
			return invalidArg("shape is NULL but capacity is %d", capacity)
		}
		if uint64(capacity) < uint64(len(h.arr.Shape)) {
			return tooSmall(uintptr(len(h.arr.Shape)), "dimensions")
		}
		dims := make([]int64, len(h.arr.Shape))
		for i, d := range h.arr.Shape {
			dims[i] = int64(d)
		}
		toC(unsafe.Pointer(shape), bytesOf(dims))
		return nil
	})
}

//export tsstore_series_data
func tsstore_series_data(p C.uintptr_t, buf unsafe.Pointer, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withSeries(p, func(h *seriesHandle) error { return putBytes(h.arr.Data, buf, capacity, needed) })
}

// putElements copies a slice of 8-byte elements into buf[capacity] (counted in elements).
func putElements[T int64 | float64](v []T, buf unsafe.Pointer, capacity C.size_t, needed *C.size_t) error {
	if needed != nil {
		*needed = C.size_t(len(v))
	}
	if buf == nil && capacity == 0 {
		return nil
	}
	if buf == nil {
		return invalidArg("buf is NULL but capacity is %d", capacity)
	}
	if uint64(capacity) < uint64(len(v)) {
		return tooSmall(uintptr(len(v)), "elements")
	}
	toC(buf, bytesOf(v))
	return nil
}

//export tsstore_series_timestamps
func tsstore_series_timestamps(p C.uintptr_t, buf *C.int64_t, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withSeries(p, func(h *seriesHandle) error { return putElements(h.stamps, unsafe.Pointer(buf), capacity, needed) })
}

//export tsstore_series_percentiles
func tsstore_series_percentiles(p C.uintptr_t, buf *C.double, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withSeries(p, func(h *seriesHandle) error { return putElements(h.percentile, unsafe.Pointer(buf), capacity, needed) })
}

//export tsstore_series_resolution
func tsstore_series_resolution(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withSeries(p, func(h *seriesHandle) error { return putString(h.resolution, buf, capacity, needed) })
}

//export tsstore_series_horizon
func tsstore_series_horizon(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withSeries(p, func(h *seriesHandle) error { return putString(h.horizon, buf, capacity, needed) })
}

//export tsstore_series_interval
func tsstore_series_interval(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withSeries(p, func(h *seriesHandle) error { return putString(h.interval, buf, capacity, needed) })
}

//export tsstore_remove
func tsstore_remove(p C.uintptr_t, key C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		k, err := getKey(key)
		if err != nil {
			return err
		}
		return s.Remove(k)
	})
}

//export tsstore_list_keys
func tsstore_list_keys(p C.uintptr_t, hasOwnerID C.int32_t, ownerID C.int64_t, category, seriesType C.int32_t,
	name, resolution, featuresJSON *C.char, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var keys []core.Key
	st := withStore(p, func(s *core.Store) error {
		var f core.KeyFilter
		if hasOwnerID != 0 {
			id := int64(ownerID)
			f.OwnerID = &id
		}
		if category >= 0 {
			c := core.OwnerCategory(category)
			f.OwnerCategory = &c
		}
		if seriesType >= 0 {
			t := core.SeriesType(seriesType)
			f.Type = &t
		}
		if name != nil {
			n := C.GoString(name)
			f.Name = &n
		}
		if resolution != nil {
			r, err := reqPeriod(resolution, "resolution")
			if err != nil {
				return err
			}
			f.Resolution = &r
		}
		fs, err := optFeatures(featuresJSON)
		if err != nil {
			return err
		}
		f.Features = fs
		keys, err = s.ListKeys(f)
		return err
	})
	if st == statusOK {
		*out = C.uintptr_t(register(kindKeys, keys))
	}
	return st
}

func getKeys(p C.uintptr_t) ([]core.Key, error) {
	v, ok := lookup(uintptr(p), kindKeys)
	if !ok {
		return nil, badHandle("key list")
	}
	return v.([]core.Key), nil
}

//export tsstore_keys_len
func tsstore_keys_len(p C.uintptr_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	keys, err := getKeys(p)
	if err == nil && n == nil {
		err = invalidArg("len is NULL")
	}
	if err != nil {
		return fail(nil, err)
	}
	*n = C.size_t(len(keys))
	return statusOK
}

//export tsstore_keys_get
func tsstore_keys_get(p C.uintptr_t, i C.size_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	keys, err := getKeys(p)
	if err == nil && uint64(i) >= uint64(len(keys)) {
		err = invalidArg("i: %d is outside 0–%d", i, len(keys)-1)
	}
	if err != nil {
		return fail(nil, err)
	}
	*out = newKeyHandle(keys[i])
	return statusOK
}

//export tsstore_keys_free
func tsstore_keys_free(p C.uintptr_t) {
	defer guardVoid()
	unregister(uintptr(p), kindKeys)
}
