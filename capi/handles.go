package main

// #include "capi.h"
import "C"

import (
	"sync"
	"unsafe"
)

// kind tells handles of different types apart, so that a key passed where a store is
// expected is an error rather than a type confusion.
type kind uint8

const (
	kindStore kind = iota + 1
	kindKey
	kindSeries
	kindKeys
	kindBatch
	kindStaticReader
	kindForecastReader
	kindMetadata
	kindStrings
	kindAssociations
	kindFilter
)

// The registry maps handle ids to Go values. Ids only grow and are never reused, so a
// freed (stale) handle can never name a newer object; ids are spaced 16 apart and start
// above the zero page, so they look like aligned pointers to C and never to Go's heap.
var registry = struct {
	sync.Mutex
	next    uintptr
	entries map[uintptr]entry
}{next: 0x10000, entries: map[uintptr]entry{}}

type entry struct {
	kind kind
	v    any
}

func register(k kind, v any) uintptr {
	registry.Lock()
	defer registry.Unlock()
	registry.next += 16
	registry.entries[registry.next] = entry{k, v}
	return registry.next
}

func lookup(id uintptr, k kind) (any, bool) {
	registry.Lock()
	defer registry.Unlock()
	e, ok := registry.entries[id]
	if !ok || e.kind != k {
		return nil, false
	}
	return e.v, true
}

// unregister removes a handle and returns its value (nil when it was not live).
func unregister(id uintptr, k kind) any {
	registry.Lock()
	defer registry.Unlock()
	e, ok := registry.entries[id]
	if !ok || e.kind != k {
		return nil
	}
	delete(registry.entries, id)
	return e.v
}

func handleID(p unsafe.Pointer) uintptr   { return uintptr(C.ts_id(p)) }
func handlePtr(id uintptr) unsafe.Pointer { return C.ts_ptr(C.uintptr_t(id)) }
