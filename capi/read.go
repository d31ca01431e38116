package main

// #include "capi.h"
import "C"

import (
	"errors"
	"math"
	"time"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// cBytes views the caller's buffer dst[capacity] as a Go slice the core writes into. It is
// never nil, so the core writes there rather than allocating.
func cBytes(dst unsafe.Pointer, capacity C.size_t, w where) ([]byte, error) {
	if dst == nil {
		if capacity > 0 {
			return nil, w.bad(core.ArgBuffer, "", "is NULL but its capacity is %d", capacity)
		}
		return []byte{}, nil
	}
	if uint64(capacity) > 1<<46 {
		return nil, w.bad(core.ArgBuffer, "", "capacity %d is too large", capacity)
	}
	return unsafe.Slice((*byte)(dst), int(capacity)), nil
}

//export tsstore_has
func tsstore_has(p C.uintptr_t, which *C.tsstore_lookup, found *C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if found == nil {
			return nullOut("found")
		}
		q, err := lookupIn(which, one)
		if err != nil {
			return err
		}
		ok, err := s.Has(q)
		if err == nil {
			*found = boolOut(ok)
		}
		return err
	})
}

func boolOut(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

//export tsstore_get_info
func tsstore_get_info(p C.uintptr_t, which *C.tsstore_lookup, info *C.tsstore_series_info) (status C.int32_t) {
	defer guard(&status)
	return withHandle(p, func(h *storeHandle) error {
		s := h.s
		if info == nil {
			return nullOut("info")
		}
		q, err := lookupIn(which, one)
		if err != nil {
			return err
		}
		if err := checkInfoOut(info); err != nil {
			return err
		}
		m, ext, err := s.Describe(q, core.Part{})
		if err != nil {
			return err
		}
		return putInfos(info, "info", []*core.Metadata{m}, []core.Extent{ext}, &h.text)
	})
}

// readInto runs one read into the caller's buffer and describes it in info (also when the
// buffer was too small, so the caller learns the size it needs).
func readInto(p C.uintptr_t, which *C.tsstore_lookup, part core.Part, dst unsafe.Pointer, capacity C.size_t,
	info *C.tsstore_series_info) C.int32_t {
	return withHandle(p, func(h *storeHandle) error {
		s := h.s
		q, err := lookupIn(which, one)
		if err != nil {
			return err
		}
		if err := checkInfoOut(info); err != nil {
			return err
		}
		buf, err := cBytes(dst, capacity, one)
		if err != nil {
			return err
		}
		m, ext, err := s.ReadInto(q, part, buf)
		if info != nil && m != nil && (err == nil || errors.Is(err, core.ErrBufferTooSmall)) {
			if ierr := putInfos(info, "info", []*core.Metadata{m}, []core.Extent{ext}, &h.text); ierr != nil {
				return ierr
			}
		}
		return err
	})
}

//export tsstore_get
func tsstore_get(p C.uintptr_t, which *C.tsstore_lookup, dst unsafe.Pointer, capacity C.size_t, info *C.tsstore_series_info) (status C.int32_t) {
	defer guard(&status)
	return readInto(p, which, core.Part{}, dst, capacity, info)
}

//export tsstore_get_range
func tsstore_get_range(p C.uintptr_t, which *C.tsstore_lookup, startMS, endMS C.int64_t, dst unsafe.Pointer, capacity C.size_t,
	info *C.tsstore_series_info) (status C.int32_t) {
	defer guard(&status)
	return readInto(p, which, core.Part{Kind: core.TimeRange, Start: fromMillis(startMS), End: fromMillis(endMS)}, dst, capacity, info)
}

//export tsstore_get_windows
func tsstore_get_windows(p C.uintptr_t, which *C.tsstore_lookup, firstMS, lastMS C.int64_t, dst unsafe.Pointer, capacity C.size_t,
	info *C.tsstore_series_info) (status C.int32_t) {
	defer guard(&status)
	return readInto(p, which, core.Part{Kind: core.WindowRange, Start: fromMillis(firstMS), End: fromMillis(lastMS)}, dst, capacity, info)
}

//export tsstore_get_timestamps
func tsstore_get_timestamps(p C.uintptr_t, which *C.tsstore_lookup, startMS, endMS C.int64_t, dst *C.int64_t, capacity C.size_t,
	n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		q, err := lookupIn(which, one)
		if err != nil {
			return err
		}
		var start, end *time.Time
		if startMS != math.MinInt64 || endMS != math.MaxInt64 {
			a, b := fromMillis(startMS), fromMillis(endMS)
			start, end = &a, &b
		}
		stamps, err := s.Timestamps(q, start, end)
		if err != nil {
			return err
		}
		return putMillis(stamps, dst, capacity, n)
	})
}

// putMillis writes timestamps as Unix milliseconds into dst[capacity] (elements).
func putMillis(stamps []time.Time, dst *C.int64_t, capacity C.size_t, n *C.size_t) error {
	ms := make([]int64, len(stamps))
	for i, t := range stamps {
		ms[i] = t.UnixMilli()
	}
	return putElements(ms, unsafe.Pointer(dst), capacity, n)
}

//export tsstore_get_percentiles
func tsstore_get_percentiles(p C.uintptr_t, which *C.tsstore_lookup, dst *C.double, capacity C.size_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		q, err := lookupIn(which, one)
		if err != nil {
			return err
		}
		m, err := s.GetMetadata(q)
		if err != nil {
			return err
		}
		return putElements(m.Percentiles, unsafe.Pointer(dst), capacity, n)
	})
}

//export tsstore_get_many
func tsstore_get_many(p C.uintptr_t, which *C.tsstore_lookup, n C.size_t, dst *unsafe.Pointer, capacity *C.size_t,
	infos *C.tsstore_series_info) (status C.int32_t) {
	defer guard(&status)
	defer roomForBulk(int(n))()
	return withHandle(p, func(h *storeHandle) error {
		s := h.s
		qs, err := lookupsIn(which, n)
		if err != nil {
			return err
		}
		if n > 0 && infos == nil {
			return one.bad(core.ArgOut, "infos", "is NULL; it receives the description of every series")
		}
		if (dst == nil) != (capacity == nil) {
			return badArg(core.ArgBuffer, "dst and capacity must both be NULL (describe only) or both be given")
		}
		var ms []*core.Metadata
		var exts []core.Extent
		if dst == nil {
			ms, exts, err = s.DescribeMany(qs)
		} else {
			var bufs [][]byte
			if bufs, err = manyBuffers(dst, capacity, len(qs)); err != nil {
				return err
			}
			ms, exts, err = s.ReadManyInto(qs, bufs)
		}
		if ms != nil && (err == nil || errors.Is(err, core.ErrBufferTooSmall)) {
			if ierr := putInfos(infos, "infos", ms, exts, &h.text); ierr != nil {
				return ierr
			}
		}
		return err
	})
}

func manyBuffers(dst *unsafe.Pointer, capacity *C.size_t, n int) ([][]byte, error) {
	ptrs := unsafe.Slice(dst, n)
	caps := unsafe.Slice(capacity, n)
	bufs := make([][]byte, n)
	for i := range bufs {
		b, err := cBytes(ptrs[i], caps[i], elem("dst", i))
		if err != nil {
			return nil, err
		}
		bufs[i] = b
	}
	return bufs, nil
}

func hashIn(h *C.uint8_t) ([32]byte, error) {
	var out [32]byte
	if h == nil {
		return out, badArg(core.ArgHash, "is NULL")
	}
	copy(out[:], fromC(unsafe.Pointer(h), 32))
	return out, nil
}

//export tsstore_get_array
func tsstore_get_array(p C.uintptr_t, hash *C.uint8_t, dst unsafe.Pointer, capacity C.size_t, info *C.tsstore_series_info) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		h, err := hashIn(hash)
		if err != nil {
			return err
		}
		if err := checkInfoOut(info); err != nil {
			return err
		}
		// An array found by hash alone has no catalog row to plan from: it is read whole and
		// copied out.
		arr, err := s.GetArray(h)
		if err != nil {
			return err
		}
		if info != nil {
			var in C.tsstore_series_info
			if err := fillShape(&in, arr.DType, arr.Shape); err != nil {
				return err
			}
			in.struct_size, in.dtype = info.struct_size, C.int32_t(arr.DType)
			*info = in
		}
		var needed C.size_t
		return putBytes(arr.Data, dst, capacity, &needed)
	})
}

//export tsstore_remove
func tsstore_remove(p C.uintptr_t, which *C.tsstore_lookup) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		q, err := lookupIn(which, one)
		if err != nil {
			return err
		}
		return s.Remove(q)
	})
}

//export tsstore_remove_where
func tsstore_remove_where(p C.uintptr_t, filter *C.tsstore_filter, removed *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		f, err := filterIn(filter)
		if err != nil {
			return err
		}
		n, err := s.RemoveWhere(f)
		if err == nil && removed != nil {
			*removed = C.int64_t(n)
		}
		return err
	})
}
