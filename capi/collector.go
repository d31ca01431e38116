package main

import (
	"runtime/debug"
	"sync"
)

// The library's Go runtime is its own: no other Go code shares its heap, which between calls
// holds a few MB (the stores' caches). A bulk read of 10,000 series allocates about 6 KB a
// series of short-lived records, so at the default target (GOGC 100) it set off two or three
// collections, whose marking took the core the read's decoding runs on: 1.0–1.4 µs a series
// of a first get_many of 10,000 × 168 from Python (docs/benchmarks.md, "A first bulk read,
// its two halves at once"). For the length of a bulk call the collector lets the heap grow
// to bulkGCPercent over what is live instead; it is the runtime's own setting, changed here
// and not in core, because a Go program that imports core owns its runtime's.
const bulkGCPercent = 200

// bulkCalls counts the bulk calls running: the first raises the target, the last restores it.
var bulkCalls struct {
	sync.Mutex
	n    int
	prev int
}

// roomForBulk raises the collector's target for a bulk call of n items (small calls
// allocate too little to matter) and returns what restores it. A target the process set
// higher, or collection switched off (GOGC=off), is left as it is.
func roomForBulk(n int) (restore func()) {
	if n < bulkGCMin {
		return func() {}
	}
	bulkCalls.Lock()
	defer bulkCalls.Unlock()
	if bulkCalls.n == 0 {
		bulkCalls.prev = debug.SetGCPercent(bulkGCPercent)
		if bulkCalls.prev < 0 || bulkCalls.prev >= bulkGCPercent {
			debug.SetGCPercent(bulkCalls.prev)
		}
	}
	bulkCalls.n++
	return func() {
		bulkCalls.Lock()
		defer bulkCalls.Unlock()
		if bulkCalls.n--; bulkCalls.n == 0 {
			debug.SetGCPercent(bulkCalls.prev)
		}
	}
}

// bulkGCMin is the smallest bulk call whose collector target is raised.
const bulkGCMin = 256
