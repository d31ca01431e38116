package main

// #include "capi.h"
import "C"

import (
	"sync"
	"unsafe"

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
			return invalidArg("bytes: %d is not a buffer size", bytes)
		}
		return s.SetWriteBuffer(int(bytes))
	})
}

//export tsstore_set_read_cache
func tsstore_set_read_cache(p C.uintptr_t, bytes C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if bytes < 0 || int64(bytes) > int64(^uint(0)>>1) {
			return invalidArg("bytes: %d is not a cache size", bytes)
		}
		return s.SetReadCache(int(bytes))
	})
}

// batchHandle is a store's batch under construction; after each commit it starts a new one.
type batchHandle struct {
	mu    sync.Mutex // a batch may be filled from several threads
	store C.uintptr_t
	b     *core.Batch
}

func getBatch(p C.uintptr_t) (*batchHandle, error) {
	v, ok := lookup(uintptr(p), kindBatch)
	if !ok {
		return nil, badHandle("batch")
	}
	return v.(*batchHandle), nil
}

//export tsstore_batch_new
func tsstore_batch_new(p C.uintptr_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	h, err := getStore(p)
	if err != nil {
		return fail(nil, err)
	}
	*out = C.uintptr_t(register(kindBatch, &batchHandle{store: p, b: h.s.NewBatch()}))
	return statusOK
}

// queue adds a built series to a batch, copying its array: the caller's buffers are theirs
// again as soon as the call returns.
func queue(p C.uintptr_t, it core.BatchItem, err error) C.int32_t {
	b, berr := getBatch(p)
	if berr != nil {
		return fail(nil, berr)
	}
	if err != nil {
		return fail(nil, err)
	}
	copyArray(it.Series)
	b.mu.Lock()
	defer b.mu.Unlock()
	return noFail(b.b.Add(it.Owner, it.Series, it.Options))
}

func copyArray(ts core.TimeSeries) {
	own := func(a *core.TypedArray) { a.Data = append([]byte(nil), a.Data...) }
	switch t := ts.(type) {
	case *core.SingleTimeSeries:
		own(&t.Data)
	case *core.NonSequentialTimeSeries:
		own(&t.Data)
	case *core.Deterministic:
		own(&t.Data)
	case *core.Probabilistic:
		own(&t.Data)
	case *core.Scenarios:
		own(&t.Data)
	}
}

//export tsstore_batch_add_single
func tsstore_batch_add_single(p C.uintptr_t, ownerID C.int64_t, ownerType *C.char, category C.int32_t, name *C.char,
	initialMS C.int64_t, resolution *C.char, dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer,
	nbytes C.size_t, featuresJSON, units, ext *C.char) (status C.int32_t) {
	defer guard(&status)
	it, err := buildSingle(ownerID, ownerType, category, name, initialMS, resolution, dtype, shape, ndim, data, nbytes, featuresJSON, units, ext)
	return queue(p, it, err)
}

//export tsstore_batch_add_nonsequential
func tsstore_batch_add_nonsequential(p C.uintptr_t, ownerID C.int64_t, ownerType *C.char, category C.int32_t, name *C.char,
	timestamps *C.int64_t, nTimestamps C.size_t, dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer,
	nbytes C.size_t, featuresJSON, units, ext *C.char) (status C.int32_t) {
	defer guard(&status)
	it, err := buildNonSequential(ownerID, ownerType, category, name, timestamps, nTimestamps, dtype, shape, ndim, data, nbytes, featuresJSON, units, ext)
	return queue(p, it, err)
}

//export tsstore_batch_add_forecast
func tsstore_batch_add_forecast(p C.uintptr_t, ownerID C.int64_t, ownerType *C.char, category C.int32_t, name *C.char,
	seriesType C.int32_t, initialMS C.int64_t, resolution, horizon, interval *C.char, count C.int64_t,
	percentiles *C.double, nPercentiles C.size_t, dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer,
	nbytes C.size_t, featuresJSON, units, ext *C.char) (status C.int32_t) {
	defer guard(&status)
	it, err := buildForecast(ownerID, ownerType, category, name, seriesType, initialMS, resolution, horizon, interval, count,
		percentiles, nPercentiles, dtype, shape, ndim, data, nbytes, featuresJSON, units, ext)
	return queue(p, it, err)
}

//export tsstore_batch_len
func tsstore_batch_len(p C.uintptr_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	b, err := getBatch(p)
	if err == nil && n == nil {
		err = invalidArg("len is NULL")
	}
	if err != nil {
		return fail(nil, err)
	}
	b.mu.Lock()
	*n = C.size_t(b.b.Len())
	b.mu.Unlock()
	return statusOK
}

//export tsstore_batch_commit
func tsstore_batch_commit(p C.uintptr_t, keysOut *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if keysOut != nil {
		*keysOut = 0
	}
	b, err := getBatch(p)
	if err != nil {
		return fail(nil, err)
	}
	h, err := getStore(b.store)
	if err != nil {
		return fail(nil, err)
	}
	// The batch is emptied first, so it is empty afterwards however the commit ends.
	b.mu.Lock()
	batch := b.b
	b.b = h.s.NewBatch()
	b.mu.Unlock()
	var keys []core.Key
	st := withStore(b.store, func(s *core.Store) error {
		var err error
		keys, err = batch.Commit()
		return err
	})
	if st == statusOK && keysOut != nil {
		*keysOut = C.uintptr_t(register(kindKeys, keys))
	}
	return st
}

//export tsstore_batch_free
func tsstore_batch_free(p C.uintptr_t) {
	defer guardVoid()
	unregister(uintptr(p), kindBatch)
}

//export tsstore_transform_single_time_series
func tsstore_transform_single_time_series(p C.uintptr_t, horizon, interval *C.char, category C.int32_t,
	resolution *C.char, added *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		h, err := reqPeriod(horizon, "horizon")
		if err != nil {
			return err
		}
		iv, err := reqPeriod(interval, "interval")
		if err != nil {
			return err
		}
		var f core.TransformFilter
		if category >= 0 {
			c := core.OwnerCategory(category)
			f.OwnerCategory = &c
		}
		if resolution != nil {
			r, err := reqPeriod(resolution, "resolution")
			if err != nil {
				return err
			}
			f.Resolution = &r
		}
		n, err := s.TransformSingleTimeSeries(h, iv, &f)
		if err == nil && added != nil {
			*added = C.int64_t(n)
		}
		return err
	})
}

// keyList reads n key handles from a C array.
func keyList(keys *C.uintptr_t, n C.size_t, field string) ([]core.Key, error) {
	if n > 0 && keys == nil {
		return nil, invalidArg("%s is NULL but n is %d", field, n)
	}
	if n > 1<<32 {
		return nil, invalidArg("n: %d is too large", n)
	}
	out := make([]core.Key, n)
	for i, p := range valuesFromC[uintptr](unsafe.Pointer(keys), int(n)) {
		k, err := getKey(C.uintptr_t(p))
		if err != nil {
			return nil, invalidArg("%s[%d]: %v", field, i, err)
		}
		out[i] = k
	}
	return out, nil
}

//export tsstore_get_many
func tsstore_get_many(p C.uintptr_t, keys *C.uintptr_t, n C.size_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if n > 1<<32 {
		return fail(nil, invalidArg("n: %d is too large", n))
	}
	if out == nil && n > 0 {
		return fail(nil, invalidArg("out is NULL"))
	}
	outs := make([]uintptr, n)
	toC(unsafe.Pointer(out), bytesOf(outs)) // every out[i] NULL until the read succeeds
	var got []core.TimeSeries
	st := withStore(p, func(s *core.Store) error {
		ks, err := keyList(keys, n, "keys")
		if err != nil {
			return err
		}
		got, err = s.GetMany(ks)
		return err
	})
	if st == statusOK {
		for i, ts := range got {
			outs[i] = register(kindSeries, newSeriesHandle(ts))
		}
		toC(unsafe.Pointer(out), bytesOf(outs))
	}
	return st
}
