package main

// #include "capi.h"
import "C"

import (
	"github.com/tsstore/tsstore/core"
)

//export tsstore_begin
func tsstore_begin(p C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error { return s.Begin() })
}

//export tsstore_commit
func tsstore_commit(p C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error { return s.Commit() })
}

//export tsstore_rollback
func tsstore_rollback(p C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error { return s.Rollback() })
}

//export tsstore_set_write_buffer
func tsstore_set_write_buffer(p C.uintptr_t, bytes C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if bytes < 0 || int64(bytes) > int64(^uint(0)>>1) {
			return badArg(core.ArgBytes, "%d is not a buffer size", bytes)
		}
		return s.SetWriteBuffer(int(bytes))
	})
}

//export tsstore_set_read_cache
func tsstore_set_read_cache(p C.uintptr_t, bytes C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if bytes < 0 || int64(bytes) > int64(^uint(0)>>1) {
			return badArg(core.ArgBytes, "%d is not a cache size", bytes)
		}
		return s.SetReadCache(int(bytes))
	})
}

//export tsstore_transform_single_time_series
func tsstore_transform_single_time_series(p C.uintptr_t, horizon, interval *C.tsstore_period, category C.int32_t,
	resolution *C.tsstore_period, added *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if horizon == nil || interval == nil {
			return badArg(core.ArgHorizon, "horizon and interval are required (one is NULL)")
		}
		h, err := reqPeriodIn(*horizon, one, core.ArgHorizon)
		if err != nil {
			return err
		}
		iv, err := reqPeriodIn(*interval, one, core.ArgInterval)
		if err != nil {
			return err
		}
		var f core.TransformFilter
		if f.OwnerCategory, err = categoryIn(category, one, true); err != nil {
			return err
		}
		if f.Resolution, err = periodArg(resolution, core.ArgResolution); err != nil {
			return err
		}
		n, err := s.TransformSingleTimeSeries(h, iv, &f)
		if err == nil && added != nil {
			*added = C.int64_t(n)
		}
		return err
	})
}
