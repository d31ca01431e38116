package main

// #include "capi.h"
import "C"

import (
	"time"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// reader is what the C API needs of either core reader: the two kinds differ in their
// grids and groups, and share every export below.
type reader interface {
	info() C.tsstore_reader_info
	group(g int) (C.tsstore_group_info, []int, error)
	bind(g int, dst []byte) error
	readStep(i int) error
	readAt(t time.Time) error
}

type staticReader struct{ rd *core.StaticReader }

func (r staticReader) info() C.tsstore_reader_info {
	t0, res, n := r.rd.Grid()
	return C.tsstore_reader_info{n_groups: C.int32_t(len(r.rd.Groups())), initial_ms: toMillis(t0), steps: C.int64_t(n),
		step_period: periodOut(res), resolution: periodOut(res)}
}

func (r staticReader) group(g int) (C.tsstore_group_info, []int, error) {
	gs := r.rd.Groups()
	if g < 0 || g >= len(gs) {
		return C.tsstore_group_info{}, nil, badArg(core.ArgGroup, "%d is outside the reader's %d groups", g, len(gs))
	}
	in, err := groupInfo(gs[g].DType, len(gs[g].Keys), 1, 1, gs[g].ElementShape, len(gs[g].Values.Data))
	return in, gs[g].Keys, err
}

func (r staticReader) bind(g int, dst []byte) error { return r.rd.Bind(g, dst) }
func (r staticReader) readStep(i int) error         { return r.rd.ReadStep(i) }
func (r staticReader) readAt(t time.Time) error     { return r.rd.Read(t) }

type forecastReader struct{ rd *core.ForecastReader }

func (r forecastReader) info() C.tsstore_reader_info {
	g := r.rd.Grid()
	return C.tsstore_reader_info{n_groups: C.int32_t(len(r.rd.Groups())), initial_ms: toMillis(g.InitialTimestamp),
		steps: C.int64_t(g.Count), step_period: periodOut(g.Interval), resolution: periodOut(g.Resolution)}
}

func (r forecastReader) group(g int) (C.tsstore_group_info, []int, error) {
	gs := r.rd.Groups()
	if g < 0 || g >= len(gs) {
		return C.tsstore_group_info{}, nil, badArg(core.ArgGroup, "%d is outside the reader's %d groups", g, len(gs))
	}
	fg := gs[g]
	in, err := groupInfo(fg.DType, len(fg.Keys), fg.Layers, fg.Steps, fg.ElementShape, len(fg.Values.Data))
	return in, fg.Keys, err
}

func (r forecastReader) bind(g int, dst []byte) error { return r.rd.Bind(g, dst) }
func (r forecastReader) readStep(i int) error         { return r.rd.ReadWindow(i) }
func (r forecastReader) readAt(t time.Time) error     { return r.rd.Read(t) }

func groupInfo(dt core.DType, keys, layers, steps int, eshape []int, nbytes int) (C.tsstore_group_info, error) {
	in := C.tsstore_group_info{dtype: C.int32_t(dt), n_keys: C.int64_t(keys), layers: C.int64_t(layers),
		steps: C.int64_t(steps), element_ndim: C.int32_t(len(eshape)), nbytes: C.uint64_t(nbytes)}
	if len(eshape) > C.TSSTORE_MAX_RANK {
		return in, one.bad(core.ArgOut, "info", "the group's element rank %d exceeds TSSTORE_MAX_RANK", len(eshape))
	}
	for i, d := range eshape {
		in.element_shape[i] = C.int64_t(d)
	}
	return in, nil
}

// readerHandle is a reader and its store's handle (for the debug log of its reads).
type readerHandle struct {
	r     reader
	close func()
	st    *storeHandle
}

func getReader(p C.uintptr_t, k kind) (*readerHandle, error) {
	v, ok := lookup(uintptr(p), k)
	if !ok {
		what := "static reader"
		if k == kindForecastReader {
			what = "forecast reader"
		}
		return nil, badHandle(what)
	}
	return v.(*readerHandle), nil
}

func noFail(err error) C.int32_t {
	if err != nil {
		return fail(nil, err)
	}
	return statusOK
}

// newReader resolves the lookups and builds a reader over their series.
func newReader(p C.uintptr_t, k kind, resolution *C.tsstore_period, which *C.tsstore_lookup, n C.size_t, out *C.uintptr_t,
	build func(s *core.Store, res core.Period, qs []core.Lookup) (reader, func(), error)) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, nullOut("out"))
	}
	*out = 0
	var h *readerHandle
	st := withStore(p, func(s *core.Store) error {
		if resolution == nil {
			return nullOut("resolution")
		}
		res, err := reqPeriodIn(*resolution, one, core.ArgResolution)
		if err != nil {
			return err
		}
		qs, err := lookupsIn(which, n)
		if err != nil {
			return err
		}
		r, closeFn, err := build(s, res, qs)
		if err != nil {
			return (err)
		}
		sh, _ := getStore(p)
		h = &readerHandle{r: r, close: closeFn, st: sh}
		return nil
	})
	if st == statusOK {
		*out = C.uintptr_t(register(k, h))
	}
	return st
}

var readerInfoSize, groupInfoSize = unsafe.Sizeof(C.tsstore_reader_info{}), unsafe.Sizeof(C.tsstore_group_info{})

func readerInfo(p C.uintptr_t, k kind, out *C.tsstore_reader_info) (status C.int32_t) {
	defer guard(&status)
	h, err := getReader(p, k)
	if err == nil && out == nil {
		err = nullOut("info")
	}
	if err == nil {
		var size uintptr
		if size, err = outSize(out.struct_size, readerInfoSize, "info", "TSSTORE_READER_INFO_INIT"); err == nil {
			in := h.r.info()
			in.struct_size = C.uint32_t(size)
			*out = in
		}
	}
	return noFail(err)
}

func readerGroup(p C.uintptr_t, k kind, g C.size_t, out *C.tsstore_group_info) (status C.int32_t) {
	defer guard(&status)
	h, err := getReader(p, k)
	if err == nil && out == nil {
		err = nullOut("info")
	}
	var size uintptr
	if err == nil {
		size, err = outSize(out.struct_size, groupInfoSize, "info", "TSSTORE_GROUP_INFO_INIT")
	}
	if err == nil {
		var in C.tsstore_group_info
		if in, _, err = h.r.group(int(g)); err == nil {
			in.struct_size = C.uint32_t(size)
			*out = in
		}
	}
	return noFail(err)
}

func readerGroupKeys(p C.uintptr_t, k kind, g C.size_t, dst *C.int64_t, capacity C.size_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	h, err := getReader(p, k)
	if err == nil {
		var keys []int
		if _, keys, err = h.r.group(int(g)); err == nil {
			idx := make([]int64, len(keys))
			for i, v := range keys {
				idx[i] = int64(v)
			}
			err = putElements(idx, unsafe.Pointer(dst), capacity, n)
		}
	}
	return noFail(err)
}

func readerBind(p C.uintptr_t, k kind, g C.size_t, dst unsafe.Pointer, capacity C.size_t) (status C.int32_t) {
	defer guard(&status)
	h, err := getReader(p, k)
	if err != nil {
		return noFail(err)
	}
	var buf []byte
	switch {
	case dst != nil:
		if buf, err = cBytes(dst, capacity, one); err != nil {
			return noFail(err)
		}
	case capacity != 0: // as every call refuses a NULL buffer given a size; unbinding gives 0
		return noFail(badArg(core.ArgBuffer, "is NULL but capacity is %d (unbind with dst NULL, capacity 0)", capacity))
	}
	return noFail(h.r.bind(int(g), buf))
}

// readerStep reads step (a forecast reader: window) i of the grid.
func readerStep(p C.uintptr_t, k kind, name string, i C.int64_t) C.int32_t {
	return readerRead(p, k, name, func(r reader) error {
		step, err := stepArg(i)
		if err != nil {
			return err
		}
		return r.readStep(step)
	})
}

// readerAt reads the step (window) that starts at ms.
func readerAt(p C.uintptr_t, k kind, name string, ms C.int64_t) C.int32_t {
	return readerRead(p, k, name, func(r reader) error { return r.readAt(fromMillis(ms)) })
}

// readerRead runs one read and, when the debug log is on, logs what it did.
func readerRead(p C.uintptr_t, k kind, name string, read func(reader) error) (status C.int32_t) {
	defer guard(&status)
	h, err := getReader(p, k)
	if err != nil {
		return noFail(err)
	}
	if h.st == nil || !logging() {
		return noFail(read(h.r))
	}
	before, start := h.st.s.Stats(), time.Now()
	err = read(h.r)
	logCall(name, before, h.st.s.Stats(), time.Since(start))
	return noFail(err)
}

func stepArg(i C.int64_t) (int, error) {
	if i < 0 || i > 1<<40 {
		return 0, badArg(core.ArgStep, "%d is out of range", i)
	}
	return int(i), nil
}

func readerFree(p C.uintptr_t, k kind) {
	defer guardVoid()
	if h, ok := unregister(uintptr(p), k).(*readerHandle); ok && h.close != nil {
		h.close()
	}
}

// The exports: each kind's call of every operation, side by side. Each hands its kind to
// the shared body above, which runs under the panic guard.

//export tsstore_static_reader_new
func tsstore_static_reader_new(p C.uintptr_t, resolution *C.tsstore_period, which *C.tsstore_lookup, n C.size_t, out *C.uintptr_t) C.int32_t {
	return newReader(p, kindStaticReader, resolution, which, n, out, func(s *core.Store, res core.Period, qs []core.Lookup) (reader, func(), error) {
		rd, err := s.NewStaticReader(res, qs)
		if err != nil {
			return nil, nil, err
		}
		return staticReader{rd}, rd.Close, nil
	})
}

//export tsstore_forecast_reader_new
func tsstore_forecast_reader_new(p C.uintptr_t, seriesType C.int32_t, resolution *C.tsstore_period, which *C.tsstore_lookup, n C.size_t,
	out *C.uintptr_t) C.int32_t {
	return newReader(p, kindForecastReader, resolution, which, n, out, func(s *core.Store, res core.Period, qs []core.Lookup) (reader, func(), error) {
		typ, err := typeIn(seriesType, one, false)
		if err != nil {
			return nil, nil, err
		}
		rd, err := s.NewForecastReader(*typ, res, qs)
		if err != nil {
			return nil, nil, err
		}
		return forecastReader{rd}, rd.Close, nil
	})
}

//export tsstore_static_reader_info
func tsstore_static_reader_info(p C.uintptr_t, info *C.tsstore_reader_info) C.int32_t {
	return readerInfo(p, kindStaticReader, info)
}

//export tsstore_forecast_reader_info
func tsstore_forecast_reader_info(p C.uintptr_t, info *C.tsstore_reader_info) C.int32_t {
	return readerInfo(p, kindForecastReader, info)
}

//export tsstore_static_reader_group
func tsstore_static_reader_group(p C.uintptr_t, g C.size_t, info *C.tsstore_group_info) C.int32_t {
	return readerGroup(p, kindStaticReader, g, info)
}

//export tsstore_forecast_reader_group
func tsstore_forecast_reader_group(p C.uintptr_t, g C.size_t, info *C.tsstore_group_info) C.int32_t {
	return readerGroup(p, kindForecastReader, g, info)
}

//export tsstore_static_reader_group_keys
func tsstore_static_reader_group_keys(p C.uintptr_t, g C.size_t, dst *C.int64_t, capacity C.size_t, n *C.size_t) C.int32_t {
	return readerGroupKeys(p, kindStaticReader, g, dst, capacity, n)
}

//export tsstore_forecast_reader_group_keys
func tsstore_forecast_reader_group_keys(p C.uintptr_t, g C.size_t, dst *C.int64_t, capacity C.size_t, n *C.size_t) C.int32_t {
	return readerGroupKeys(p, kindForecastReader, g, dst, capacity, n)
}

//export tsstore_static_reader_bind
func tsstore_static_reader_bind(p C.uintptr_t, g C.size_t, dst unsafe.Pointer, capacity C.size_t) C.int32_t {
	return readerBind(p, kindStaticReader, g, dst, capacity)
}

//export tsstore_forecast_reader_bind
func tsstore_forecast_reader_bind(p C.uintptr_t, g C.size_t, dst unsafe.Pointer, capacity C.size_t) C.int32_t {
	return readerBind(p, kindForecastReader, g, dst, capacity)
}

//export tsstore_static_reader_read_step
func tsstore_static_reader_read_step(p C.uintptr_t, step C.int64_t) C.int32_t {
	return readerStep(p, kindStaticReader, "tsstore_static_reader_read_step", step)
}

//export tsstore_forecast_reader_read_window
func tsstore_forecast_reader_read_window(p C.uintptr_t, window C.int64_t) C.int32_t {
	return readerStep(p, kindForecastReader, "tsstore_forecast_reader_read_window", window)
}

//export tsstore_static_reader_read_at
func tsstore_static_reader_read_at(p C.uintptr_t, timestampMS C.int64_t) C.int32_t {
	return readerAt(p, kindStaticReader, "tsstore_static_reader_read_at", timestampMS)
}

//export tsstore_forecast_reader_read_at
func tsstore_forecast_reader_read_at(p C.uintptr_t, startMS C.int64_t) C.int32_t {
	return readerAt(p, kindForecastReader, "tsstore_forecast_reader_read_at", startMS)
}

//export tsstore_static_reader_free
func tsstore_static_reader_free(p C.uintptr_t) { readerFree(p, kindStaticReader) }

//export tsstore_forecast_reader_free
func tsstore_forecast_reader_free(p C.uintptr_t) { readerFree(p, kindForecastReader) }
