package main

// #include <stdlib.h>
// #include "capi.h"
import "C"

import (
	"github.com/tsstore/tsstore/core"
)

// keysHandle is a listing: the records found, and the C copies of their strings and feature
// arrays, which the handle owns (the header promises them until tsstore_keys_free).
type keysHandle struct {
	ms   []*core.Metadata
	text interner
}

func newKeysHandle(ms []core.Metadata) C.uintptr_t {
	h := &keysHandle{ms: make([]*core.Metadata, len(ms))}
	for i := range ms {
		h.ms[i] = &ms[i]
	}
	return C.uintptr_t(register(kindKeys, h))
}

func getKeys(p C.uintptr_t) (*keysHandle, error) {
	v, ok := lookup(uintptr(p), kindKeys)
	if !ok {
		return nil, badHandle("key list")
	}
	return v.(*keysHandle), nil
}

// listInto runs a listing and hands out its handle.
func listInto(p C.uintptr_t, out *C.uintptr_t, list func(*core.Store) ([]core.Metadata, error)) C.int32_t {
	if out == nil {
		return fail(nil, nullOut("out"))
	}
	*out = 0
	var ms []core.Metadata
	st := withStore(p, func(s *core.Store) (err error) {
		ms, err = list(s)
		return err
	})
	if st == statusOK {
		*out = newKeysHandle(ms)
	}
	return st
}

//export tsstore_list_keys
func tsstore_list_keys(p C.uintptr_t, filter *C.tsstore_filter, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return listInto(p, out, func(s *core.Store) ([]core.Metadata, error) {
		f, err := filterIn(filter)
		if err != nil {
			return nil, err
		}
		return s.ListMetadata(f)
	})
}

//export tsstore_keys_by_hash
func tsstore_keys_by_hash(p C.uintptr_t, hash *C.uint8_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	return listInto(p, out, func(s *core.Store) ([]core.Metadata, error) {
		h, err := hashIn(hash)
		if err != nil {
			return nil, err
		}
		return s.MetadataByHash(h)
	})
}

//export tsstore_keys_len
func tsstore_keys_len(p C.uintptr_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	h, err := getKeys(p)
	if err == nil && n == nil {
		err = nullOut("len")
	}
	if err != nil {
		return fail(nil, err)
	}
	*n = C.size_t(len(h.ms))
	return statusOK
}

//export tsstore_keys_get
func tsstore_keys_get(p C.uintptr_t, first, n C.size_t, infos *C.tsstore_series_info) (status C.int32_t) {
	defer guard(&status)
	h, err := getKeys(p)
	if err == nil {
		err = h.put(first, n, infos)
	}
	if err != nil {
		return fail(nil, err)
	}
	return statusOK
}

func (h *keysHandle) put(first, n C.size_t, infos *C.tsstore_series_info) error {
	if uint64(first) > uint64(len(h.ms)) || uint64(n) > uint64(len(h.ms))-uint64(first) {
		return badArg(core.ArgNone, "first %d, n %d: the list holds %d entries", first, n, len(h.ms))
	}
	if n == 0 {
		return nil
	}
	if infos == nil {
		return nullOut("infos")
	}
	stride, err := outSize(infos.struct_size, infoSize, "infos[0]", "TSSTORE_SERIES_INFO_INIT")
	if err != nil {
		return err
	}
	lo, hi := int(first), int(first+n)
	return writeInfos(infos, stride, h.ms[lo:hi], nil, &h.text)
}

//export tsstore_keys_free
func tsstore_keys_free(p C.uintptr_t) {
	defer guardVoid()
	if h, ok := unregister(uintptr(p), kindKeys).(*keysHandle); ok {
		h.text.free()
	}
}
