// Package main is the race detector's canary for the C tests: built with
// `go build -race -buildmode=c-archive`, linked into race_canary.c and called from two C
// threads at once. canary_touch writes a Go variable with no synchronisation at all
// (racy = 1) or under a mutex (racy = 0), and waits inside Go until the other thread has
// written too, so both writes happen between the same two C-to-Go transitions (the race
// runtime counts every such transition as possible synchronisation in C, so accesses in
// calls that do not overlap would never be reported). A race-detected run must report
// the racy case and stay quiet on the other.
package main

import "C"

import (
	"runtime"
	"sync"
	"sync/atomic"
)

var (
	shared  int // written by both threads
	mu      sync.Mutex
	arrived atomic.Int32
)

//export canary_touch
func canary_touch(racy C.int) C.int {
	if racy != 0 {
		shared++
	} else {
		mu.Lock()
		shared++
		mu.Unlock()
	}
	// Stay in Go until both threads have written. This rendezvous happens after the
	// writes, so it orders nothing between them.
	arrived.Add(1)
	for arrived.Load() < 2 {
		runtime.Gosched()
	}
	return C.int(shared)
}

func main() {}
