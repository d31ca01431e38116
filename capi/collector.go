package main

import (
	"runtime/debug"
	"runtime/metrics"
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
	n      int
	prev   int
	raised bool // the first call set the target; the last restores prev
}

// roomForBulk raises the collector's target for a bulk call of n items (small calls
// allocate too little to matter) and returns what restores it. A target the process set
// higher, or collection switched off (GOGC=off), is read and left as it is, never changed
// for a moment; so is a target changed while the calls ran.
func roomForBulk(n int) (restore func()) {
	if n < bulkGCMin {
		return func() {}
	}
	bulkCalls.Lock()
	defer bulkCalls.Unlock()
	if bulkCalls.n == 0 {
		bulkCalls.prev, bulkCalls.raised = gcPercent(), false
		if bulkCalls.prev > 0 && bulkCalls.prev < bulkGCPercent {
			debug.SetGCPercent(bulkGCPercent)
			bulkCalls.raised = true
		}
	}
	bulkCalls.n++
	return func() {
		bulkCalls.Lock()
		defer bulkCalls.Unlock()
		if bulkCalls.n--; bulkCalls.n == 0 && bulkCalls.raised && gcPercent() == bulkGCPercent {
			debug.SetGCPercent(bulkCalls.prev)
		}
	}
}

// gcPercent is the collector's target as the runtime reports it (-1: off), read without
// setting it.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return -1 // not reported: treated as a target not to touch
	}
	return int(int64(s[0].Value.Uint64())) // GOGC=off is -1, reported as its two's complement
}

// bulkGCMin is the smallest bulk call whose collector target is raised.
const bulkGCMin = 256
