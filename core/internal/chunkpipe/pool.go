package chunkpipe

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// threads is how many workers encode and decode chunks: TSSTORE_THREADS, or the CPUs this
// process may run on. 0 until first asked.
var threads atomic.Int64

// Threads is the number of chunk workers of the process.
func Threads() int {
	if n := threads.Load(); n > 0 {
		return int(n)
	}
	n := runtime.NumCPU() // the CPUs of the process's affinity mask, on Linux
	if v, err := ThreadsFromEnv(os.Getenv("TSSTORE_THREADS")); err == nil && v > 0 {
		n = v
	}
	threads.CompareAndSwap(0, int64(n))
	return int(threads.Load())
}

// ThreadsFromEnv reads a TSSTORE_THREADS value: a positive count, or "" for the default (0).
func ThreadsFromEnv(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1024 {
		return 0, fmt.Errorf("TSSTORE_THREADS=%q is not a count from 1 to 1024", v)
	}
	return n, nil
}

// SetThreads sets the number of chunk workers (n ≥ 1) and returns the previous number.
func SetThreads(n int) int {
	prev := Threads()
	threads.Store(int64(max(n, 1)))
	return prev
}

// Window is how many chunks Ordered holds encoded but not yet written (or read but not yet
// decoded): two per worker, so that every worker has the next chunk while the HDF5
// goroutine moves one. A caller's buffers for in-flight chunks are this many.
func Window() int { return 2 * Threads() }

// Ordered runs work(slot, i) for every i in [0, n) on up to Threads() workers, and then,
// on the calling goroutine and in order of i, done(slot, i) as soon as work(·, i) has
// returned: slot (in [0, Window())) names the caller's buffer that item i uses, free again
// once done(·, i) returns. Workers get item i only after item i−Window() is done, so at most
// Window() items are in flight. The first error, from work or done, stops the run; Ordered
// returns only once no worker is running. With one worker it runs work and done in turn on
// the calling goroutine.
func Ordered(n int, work func(slot, i int) error, done func(slot, i int) error) error {
	workers, window := Threads(), Window()
	if workers == 1 || n <= 1 {
		for i := 0; i < n; i++ {
			if err := work(0, i); err != nil {
				return err
			}
			if err := done(0, i); err != nil {
				return err
			}
		}
		return nil
	}
	free := make(chan struct{}, window) // a token per slot not in flight
	for range window {
		free <- struct{}{}
	}
	finished := make([]chan error, window)
	for s := range finished {
		finished[s] = make(chan error, 1)
	}
	todo, stop := make(chan int), make(chan struct{})
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range todo {
				finished[i%window] <- work(i%window, i)
			}
		}()
	}
	go func() {
		defer close(todo)
		for i := 0; i < n; i++ {
			select {
			case <-free:
			case <-stop:
				return
			}
			select {
			case todo <- i:
			case <-stop:
				return
			}
		}
	}()
	err := func() error {
		for i := 0; i < n; i++ {
			slot := i % window
			if err := <-finished[slot]; err != nil {
				return err
			}
			if err := done(slot, i); err != nil {
				return err
			}
			free <- struct{}{}
		}
		return nil
	}()
	close(stop)
	wg.Wait()
	return err
}

// Fanout runs prepare(slot, i) for every i in [0, n) in order on the calling goroutine, and
// then work(slot, i) on up to Threads() workers: prepare fills the caller's buffer slot (in
// [0, Window())) and work uses it, after which the slot is free for a later item. The first
// error stops the run; Fanout returns once no worker is running. With one worker it runs
// prepare and work in turn on the calling goroutine.
func Fanout(n int, prepare func(slot, i int) error, work func(slot, i int) error) error {
	workers, window := Threads(), Window()
	if workers == 1 || n <= 1 {
		for i := 0; i < n; i++ {
			if err := prepare(0, i); err != nil {
				return err
			}
			if err := work(0, i); err != nil {
				return err
			}
		}
		return nil
	}
	free := make(chan int, window) // the slots no item holds
	for s := range window {
		free <- s
	}
	type item struct{ slot, i int }
	todo := make(chan item, window)
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range todo {
				if failed.Load() == nil {
					if err := work(it.slot, it.i); err != nil {
						failed.CompareAndSwap(nil, &err)
					}
				}
				free <- it.slot
			}
		}()
	}
	var err error
	for i := 0; i < n && failed.Load() == nil; i++ {
		slot := <-free
		if err = prepare(slot, i); err != nil {
			break
		}
		todo <- item{slot, i}
	}
	close(todo)
	wg.Wait()
	if p := failed.Load(); p != nil && err == nil {
		err = *p
	}
	return err
}

// Split runs fn over [0, n) cut into Threads() contiguous ranges, one per worker, and
// returns the error fn reported for the lowest index, with that index (−1 when none
// failed). fn(lo, hi) returns the first index of its range that failed, or −1. With one
// worker, or n below minParallel, it runs fn(0, n) on the calling goroutine.
func Split(n, minParallel int, fn func(lo, hi int) (int, error)) (int, error) {
	workers := min(Threads(), n)
	if workers <= 1 || n < minParallel {
		return fn(0, n)
	}
	bad, errs := make([]int, workers), make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bad[w], errs[w] = fn(w*n/workers, (w+1)*n/workers)
		}()
	}
	wg.Wait()
	for w := range workers { // ranges are in index order: the first failure is the lowest
		if bad[w] >= 0 {
			return bad[w], errs[w]
		}
	}
	return -1, nil
}
