package main

// #include "capi.h"
import "C"

import (
	"time"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// A reader handle keeps its store's handle, for the debug log of its reads (the reads
// themselves take the store's lock inside the core).
type staticHandle struct {
	rd *core.StaticReader
	st *storeHandle
}

type forecastHandle struct {
	rd *core.ForecastReader
	st *storeHandle
}

func getStaticReader(p C.uintptr_t) (*core.StaticReader, error) {
	v, ok := lookup(uintptr(p), kindStaticReader)
	if !ok {
		return nil, badHandle("static reader")
	}
	return v.(*staticHandle).rd, nil
}

func getForecastReader(p C.uintptr_t) (*core.ForecastReader, error) {
	v, ok := lookup(uintptr(p), kindForecastReader)
	if !ok {
		return nil, badHandle("forecast reader")
	}
	return v.(*forecastHandle).rd, nil
}

// readerStore is the store handle behind a reader handle (nil when the handle is not live).
func readerStore(p C.uintptr_t, k kind) *storeHandle {
	v, ok := lookup(uintptr(p), k)
	if !ok {
		return nil
	}
	switch h := v.(type) {
	case *staticHandle:
		return h.st
	case *forecastHandle:
		return h.st
	}
	return nil
}

// logRead runs a reader's read and, when the debug log is on, logs what it did.
func logRead(p C.uintptr_t, k kind, name string, read func() error) error {
	st := readerStore(p, k)
	if st == nil || !logging() {
		return read()
	}
	before, start := st.s.Stats(), time.Now()
	err := read()
	logCall(name, before, st.s.Stats(), time.Since(start))
	return err
}

func noFail(err error) C.int32_t {
	if err != nil {
		return fail(nil, err)
	}
	return statusOK
}

//export tsstore_static_reader_new
func tsstore_static_reader_new(p C.uintptr_t, resolution *C.char, keys *C.uintptr_t, n C.size_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var rd *core.StaticReader
	st := withStore(p, func(s *core.Store) error {
		res, err := reqPeriod(resolution, "resolution")
		if err != nil {
			return err
		}
		ks, err := keyList(keys, n, "keys")
		if err != nil {
			return err
		}
		rd, err = s.NewStaticReader(res, ks)
		return err
	})
	if st == statusOK {
		h, _ := getStore(p)
		*out = C.uintptr_t(register(kindStaticReader, &staticHandle{rd, h}))
	}
	return st
}

//export tsstore_static_reader_grid
func tsstore_static_reader_grid(p C.uintptr_t, initialMS, length *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	rd, err := getStaticReader(p)
	if err != nil {
		return fail(nil, err)
	}
	t0, _, n := rd.Grid()
	if initialMS != nil {
		*initialMS = toMillis(t0)
	}
	if length != nil {
		*length = C.int64_t(n)
	}
	return statusOK
}

//export tsstore_static_reader_read
func tsstore_static_reader_read(p C.uintptr_t, timestampMS C.int64_t) (status C.int32_t) {
	defer guard(&status)
	rd, err := getStaticReader(p)
	if err == nil {
		err = logRead(p, kindStaticReader, "tsstore_static_reader_read", func() error { return rd.Read(fromMillis(timestampMS)) })
	}
	return noFail(err)
}

//export tsstore_static_reader_read_step
func tsstore_static_reader_read_step(p C.uintptr_t, step C.int64_t) (status C.int32_t) {
	defer guard(&status)
	rd, err := getStaticReader(p)
	if err == nil {
		if step < 0 || step > 1<<40 {
			err = invalidArg("step: %d is out of range", step)
		} else {
			err = logRead(p, kindStaticReader, "tsstore_static_reader_read_step", func() error { return rd.ReadStep(int(step)) })
		}
	}
	return noFail(err)
}

//export tsstore_static_reader_groups
func tsstore_static_reader_groups(p C.uintptr_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	rd, err := getStaticReader(p)
	if err == nil && n == nil {
		err = invalidArg("n_groups is NULL")
	}
	if err != nil {
		return fail(nil, err)
	}
	*n = C.size_t(len(rd.Groups()))
	return statusOK
}

func staticGroup(p C.uintptr_t, g C.size_t) (*core.StaticGroup, error) {
	rd, err := getStaticReader(p)
	if err != nil {
		return nil, err
	}
	if uint64(g) >= uint64(len(rd.Groups())) {
		return nil, invalidArg("group: %d is outside 0–%d", g, len(rd.Groups())-1)
	}
	return rd.Groups()[g], nil
}

// putShape copies an element shape into shape[capacity].
func putShape(eshape []int, shape *C.int64_t, capacity C.size_t, ndim *C.size_t) error {
	if ndim != nil {
		*ndim = C.size_t(len(eshape))
	}
	if shape == nil && capacity == 0 {
		return nil
	}
	if shape == nil {
		return invalidArg("element_shape is NULL but capacity is %d", capacity)
	}
	if uint64(capacity) < uint64(len(eshape)) {
		return tooSmall(uintptr(len(eshape)), "dimensions")
	}
	dims := make([]int64, len(eshape))
	for i, d := range eshape {
		dims[i] = int64(d)
	}
	toC(unsafe.Pointer(shape), bytesOf(dims))
	return nil
}

func keyIndices(keys []int) []int64 {
	out := make([]int64, len(keys))
	for i, k := range keys {
		out[i] = int64(k)
	}
	return out
}

//export tsstore_static_reader_group_info
func tsstore_static_reader_group_info(p C.uintptr_t, g C.size_t, dtype *C.int32_t, nKeys *C.size_t,
	eshape *C.int64_t, capacity C.size_t, ndim *C.size_t) (status C.int32_t) {
	defer guard(&status)
	grp, err := staticGroup(p, g)
	if err == nil {
		if dtype != nil {
			*dtype = C.int32_t(grp.DType)
		}
		if nKeys != nil {
			*nKeys = C.size_t(len(grp.Keys))
		}
		err = putShape(grp.ElementShape, eshape, capacity, ndim)
	}
	return noFail(err)
}

// groupKeys and groupValues serve both readers' groups: the key indices, and the values of
// the last read.
func groupKeys(keys []int, buf *C.int64_t, capacity C.size_t, needed *C.size_t) C.int32_t {
	return noFail(putElements(keyIndices(keys), unsafe.Pointer(buf), capacity, needed))
}

func groupValues(values []byte, buf unsafe.Pointer, capacity C.size_t, needed *C.size_t) C.int32_t {
	return noFail(putBytes(values, buf, capacity, needed))
}

//export tsstore_static_reader_group_keys
func tsstore_static_reader_group_keys(p C.uintptr_t, g C.size_t, buf *C.int64_t, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	grp, err := staticGroup(p, g)
	if err != nil {
		return fail(nil, err)
	}
	return groupKeys(grp.Keys, buf, capacity, needed)
}

//export tsstore_static_reader_group_values
func tsstore_static_reader_group_values(p C.uintptr_t, g C.size_t, buf unsafe.Pointer, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	grp, err := staticGroup(p, g)
	if err != nil {
		return fail(nil, err)
	}
	return groupValues(grp.Values.Data, buf, capacity, needed)
}

//export tsstore_static_reader_free
func tsstore_static_reader_free(p C.uintptr_t) {
	defer guardVoid()
	if v := unregister(uintptr(p), kindStaticReader); v != nil {
		v.(*staticHandle).rd.Close()
	}
}

//export tsstore_forecast_reader_new
func tsstore_forecast_reader_new(p C.uintptr_t, seriesType C.int32_t, resolution *C.char, keys *C.uintptr_t, n C.size_t,
	out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var rd *core.ForecastReader
	st := withStore(p, func(s *core.Store) error {
		if seriesType < 0 || !core.SeriesType(seriesType).Valid() {
			return invalidArg("series_type: unknown code %d", seriesType)
		}
		res, err := reqPeriod(resolution, "resolution")
		if err != nil {
			return err
		}
		ks, err := keyList(keys, n, "keys")
		if err != nil {
			return err
		}
		rd, err = s.NewForecastReader(core.SeriesType(seriesType), res, ks)
		return err
	})
	if st == statusOK {
		h, _ := getStore(p)
		*out = C.uintptr_t(register(kindForecastReader, &forecastHandle{rd, h}))
	}
	return st
}

//export tsstore_forecast_reader_grid
func tsstore_forecast_reader_grid(p C.uintptr_t, initialMS, count *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	rd, err := getForecastReader(p)
	if err != nil {
		return fail(nil, err)
	}
	g := rd.Grid()
	if initialMS != nil {
		*initialMS = toMillis(g.InitialTimestamp)
	}
	if count != nil {
		*count = C.int64_t(g.Count)
	}
	return statusOK
}

//export tsstore_forecast_reader_read
func tsstore_forecast_reader_read(p C.uintptr_t, startMS C.int64_t) (status C.int32_t) {
	defer guard(&status)
	rd, err := getForecastReader(p)
	if err == nil {
		err = logRead(p, kindForecastReader, "tsstore_forecast_reader_read", func() error { return rd.Read(fromMillis(startMS)) })
	}
	return noFail(err)
}

//export tsstore_forecast_reader_read_window
func tsstore_forecast_reader_read_window(p C.uintptr_t, window C.int64_t) (status C.int32_t) {
	defer guard(&status)
	rd, err := getForecastReader(p)
	if err == nil {
		if window < 0 || window > 1<<40 {
			err = invalidArg("window: %d is out of range", window)
		} else {
			err = logRead(p, kindForecastReader, "tsstore_forecast_reader_read_window", func() error { return rd.ReadWindow(int(window)) })
		}
	}
	return noFail(err)
}

//export tsstore_forecast_reader_groups
func tsstore_forecast_reader_groups(p C.uintptr_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	rd, err := getForecastReader(p)
	if err == nil && n == nil {
		err = invalidArg("n_groups is NULL")
	}
	if err != nil {
		return fail(nil, err)
	}
	*n = C.size_t(len(rd.Groups()))
	return statusOK
}

func forecastGroup(p C.uintptr_t, g C.size_t) (*core.ForecastGroup, error) {
	rd, err := getForecastReader(p)
	if err != nil {
		return nil, err
	}
	if uint64(g) >= uint64(len(rd.Groups())) {
		return nil, invalidArg("group: %d is outside 0–%d", g, len(rd.Groups())-1)
	}
	return rd.Groups()[g], nil
}

//export tsstore_forecast_reader_group_info
func tsstore_forecast_reader_group_info(p C.uintptr_t, g C.size_t, dtype *C.int32_t, nKeys *C.size_t,
	layers, steps *C.int64_t, eshape *C.int64_t, capacity C.size_t, ndim *C.size_t) (status C.int32_t) {
	defer guard(&status)
	grp, err := forecastGroup(p, g)
	if err == nil {
		if dtype != nil {
			*dtype = C.int32_t(grp.DType)
		}
		if nKeys != nil {
			*nKeys = C.size_t(len(grp.Keys))
		}
		if layers != nil {
			*layers = C.int64_t(grp.Layers)
		}
		if steps != nil {
			*steps = C.int64_t(grp.Steps)
		}
		err = putShape(grp.ElementShape, eshape, capacity, ndim)
	}
	return noFail(err)
}

//export tsstore_forecast_reader_group_keys
func tsstore_forecast_reader_group_keys(p C.uintptr_t, g C.size_t, buf *C.int64_t, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	grp, err := forecastGroup(p, g)
	if err != nil {
		return fail(nil, err)
	}
	return groupKeys(grp.Keys, buf, capacity, needed)
}

//export tsstore_forecast_reader_group_values
func tsstore_forecast_reader_group_values(p C.uintptr_t, g C.size_t, buf unsafe.Pointer, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	grp, err := forecastGroup(p, g)
	if err != nil {
		return fail(nil, err)
	}
	return groupValues(grp.Values.Data, buf, capacity, needed)
}

//export tsstore_forecast_reader_free
func tsstore_forecast_reader_free(p C.uintptr_t) {
	defer guardVoid()
	if v := unregister(uintptr(p), kindForecastReader); v != nil {
		v.(*forecastHandle).rd.Close()
	}
}
