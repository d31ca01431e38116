package main

// #include "capi.h"
import "C"

import (
	"sync"
	"unicode/utf8"

	"github.com/tsstore/tsstore/core"
)

// filterHandle is a filter under construction; setters and listings may come from
// several threads.
type filterHandle struct {
	mu sync.Mutex
	f  core.KeyFilter
}

func getFilter(p C.uintptr_t) (*filterHandle, error) {
	v, ok := lookup(uintptr(p), kindFilter)
	if !ok {
		return nil, badHandle("filter")
	}
	return v.(*filterHandle), nil
}

//export tsstore_filter_new
func tsstore_filter_new(out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = C.uintptr_t(register(kindFilter, &filterHandle{}))
	return statusOK
}

//export tsstore_filter_free
func tsstore_filter_free(p C.uintptr_t) {
	defer guardVoid()
	unregister(uintptr(p), kindFilter)
}

// setFilter applies set to a live filter; a setter that fails leaves it unchanged.
func setFilter(p C.uintptr_t, set func(*core.KeyFilter) error) C.int32_t {
	h, err := getFilter(p)
	if err == nil {
		h.mu.Lock()
		next := h.f
		if err = set(&next); err == nil {
			h.f = next
		}
		h.mu.Unlock()
	}
	return noFail(err)
}

//export tsstore_filter_owner
func tsstore_filter_owner(p C.uintptr_t, ownerID C.int64_t, category C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return setFilter(p, func(f *core.KeyFilter) error {
		id := int64(ownerID)
		if category == -1 { // the owner id under either category
			f.OwnerID, f.OwnerCategory = &id, nil
			return nil
		}
		if category < 0 || !core.OwnerCategory(category).Valid() {
			return invalidArg("owner_category: unknown code %d", category)
		}
		c := core.OwnerCategory(category)
		f.OwnerID, f.OwnerCategory = &id, &c
		return nil
	})
}

//export tsstore_filter_owner_category
func tsstore_filter_owner_category(p C.uintptr_t, category C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return setFilter(p, func(f *core.KeyFilter) error {
		if category < 0 || !core.OwnerCategory(category).Valid() {
			return invalidArg("owner_category: unknown code %d", category)
		}
		c := core.OwnerCategory(category)
		f.OwnerCategory = &c
		return nil
	})
}

//export tsstore_filter_series_type
func tsstore_filter_series_type(p C.uintptr_t, seriesType C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return setFilter(p, func(f *core.KeyFilter) error {
		if seriesType < 0 || !core.SeriesType(seriesType).Valid() {
			return invalidArg("series_type: unknown code %d", seriesType)
		}
		t := core.SeriesType(seriesType)
		f.Type = &t
		return nil
	})
}

func textSetter(p C.uintptr_t, v *C.char, field string, dst func(*core.KeyFilter) **string) C.int32_t {
	return setFilter(p, func(f *core.KeyFilter) error {
		s, err := reqString(v, field)
		if err != nil {
			return err
		}
		if !utf8.ValidString(s) {
			return invalidArg("%s: %q is not valid UTF-8", field, s)
		}
		*dst(f) = &s
		return nil
	})
}

//export tsstore_filter_name
func tsstore_filter_name(p C.uintptr_t, name *C.char) (status C.int32_t) {
	defer guard(&status)
	return textSetter(p, name, "name", func(f *core.KeyFilter) **string { return &f.Name })
}

//export tsstore_filter_name_glob
func tsstore_filter_name_glob(p C.uintptr_t, pattern *C.char) (status C.int32_t) {
	defer guard(&status)
	return textSetter(p, pattern, "pattern", func(f *core.KeyFilter) **string { return &f.NameGlob })
}

//export tsstore_filter_owner_type
func tsstore_filter_owner_type(p C.uintptr_t, ownerType *C.char) (status C.int32_t) {
	defer guard(&status)
	return textSetter(p, ownerType, "owner_type", func(f *core.KeyFilter) **string { return &f.OwnerType })
}

func periodSetter(p C.uintptr_t, v *C.char, field string, dst func(*core.KeyFilter) **core.Period) C.int32_t {
	return setFilter(p, func(f *core.KeyFilter) error {
		per, err := reqPeriod(v, field)
		if err != nil {
			return err
		}
		*dst(f) = &per
		return nil
	})
}

//export tsstore_filter_resolution
func tsstore_filter_resolution(p C.uintptr_t, resolution *C.char) (status C.int32_t) {
	defer guard(&status)
	return periodSetter(p, resolution, "resolution", func(f *core.KeyFilter) **core.Period { return &f.Resolution })
}

//export tsstore_filter_interval
func tsstore_filter_interval(p C.uintptr_t, interval *C.char) (status C.int32_t) {
	defer guard(&status)
	return periodSetter(p, interval, "interval", func(f *core.KeyFilter) **core.Period { return &f.Interval })
}

//export tsstore_filter_features
func tsstore_filter_features(p C.uintptr_t, featuresJSON *C.char) (status C.int32_t) {
	defer guard(&status)
	return setFilter(p, func(f *core.KeyFilter) error {
		fs, err := optFeatures(featuresJSON)
		f.Features = fs
		return err
	})
}

// listResult hands out a key list.
func listResult(st C.int32_t, keys []core.Key, out *C.uintptr_t) C.int32_t {
	if st == statusOK {
		*out = C.uintptr_t(register(kindKeys, keys))
	}
	return st
}

// filterOf copies the filter behind fp; 0 is the filter that matches everything.
func filterOf(fp C.uintptr_t) (core.KeyFilter, error) {
	if fp == 0 {
		return core.KeyFilter{}, nil
	}
	h, err := getFilter(fp)
	if err != nil {
		return core.KeyFilter{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.f, nil
}

//export tsstore_list_keys_where
func tsstore_list_keys_where(p C.uintptr_t, fp C.uintptr_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var keys []core.Key
	st := withStore(p, func(s *core.Store) error {
		f, err := filterOf(fp)
		if err != nil {
			return err
		}
		keys, err = s.ListKeys(f)
		return err
	})
	return listResult(st, keys, out)
}

//export tsstore_remove_where
func tsstore_remove_where(p C.uintptr_t, fp C.uintptr_t, removed *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	if removed != nil {
		*removed = 0
	}
	n := 0
	st := withStore(p, func(s *core.Store) error {
		f, err := filterOf(fp)
		if err != nil {
			return err
		}
		n, err = s.RemoveWhere(f)
		return err
	})
	if st == statusOK && removed != nil {
		*removed = C.int64_t(n)
	}
	return st
}

//export tsstore_keys_by_hash
func tsstore_keys_by_hash(p C.uintptr_t, hash *C.uint8_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var keys []core.Key
	st := withStore(p, func(s *core.Store) error {
		h, err := hashArg(hash)
		if err != nil {
			return err
		}
		keys, err = s.KeysByHash(h)
		return err
	})
	return listResult(st, keys, out)
}
