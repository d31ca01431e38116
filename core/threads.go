package core

import "github.com/tsstore/tsstore/core/internal/chunkpipe"

// Threads is how many workers encode and decode chunks for the process's stores: the
// TSSTORE_THREADS environment variable when it is set, else the CPUs the process may run on.
// HDF5 itself runs on one thread at a time (it is not thread-safe as built); the workers
// shuffle, deflate and inflate the chunks it moves (docs/architecture.md "Chunks on every
// core").
func Threads() int { return chunkpipe.Threads() }

// SetThreads sets the number of chunk workers (at least 1) for calls made from now on, and
// returns the previous number.
func SetThreads(n int) int { return chunkpipe.SetThreads(n) }

// parallelItems is the fewest items (a batch's series to validate and hash, a bulk read's
// arrays to verify) shared among the workers; fewer cost more in goroutines than they save.
const parallelItems = 64
