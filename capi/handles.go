package main

import "sync"

// kind tells handles of different types apart, so that a key passed where a store is
// expected is an error rather than a type confusion.
type kind uint8

const (
	kindStore kind = iota + 1
	kindKeys
	kindStaticReader
	kindForecastReader
	kindStrings
	kindAssociations
	kindError
)

// The registry maps handle ids to Go values. Ids only grow and are never reused, so a
// freed (stale) handle can never name a newer object; ids are spaced 16 apart and start
// above the zero page, so they look like aligned pointers to C. On the Go side every
// exported function takes and returns them as C.uintptr_t, never as a pointer type: a
// pointer-typed value that happened to fall in Go's heap would make the garbage collector
// abort ("invalid pointer found on stack") however long a process runs.
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
