package chunkpipe

import (
	"errors"
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
	v, err := threadsFromEnv(os.Getenv("TSSTORE_THREADS"))
	if v > 0 {
		n = v
	}
	if threads.CompareAndSwap(0, int64(n)) && err != nil {
		// Said once, on stderr: a setting that no call takes as an argument has no call to
		// refuse, and a typo left silent would leave the user guessing why nothing changed.
		fmt.Fprintf(os.Stderr, "tsstore: %v; using %d worker threads\n", err, n)
	}
	return int(threads.Load())
}

// threadsFromEnv reads a TSSTORE_THREADS value: a positive count, or "" for the default (0).
func threadsFromEnv(v string) (int, error) {
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

// workerPanic is a panic a worker recovered, to be raised again on the goroutine that started
// the work: there the library's panic guards (capi) turn it into a status, as they did when
// the work ran on that goroutine; left on the worker it would end the process.
type workerPanic struct{ value any }

func (w *workerPanic) Error() string { return fmt.Sprintf("chunkpipe: a worker panicked: %v", w.value) }

// guarded runs fn, returning a panic in it as a *workerPanic.
func guarded(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &workerPanic{v}
		}
	}()
	return fn()
}

// Go runs fn on a new goroutine and returns a function that waits for it and returns its
// error; a panic in fn is raised again by the wait, on the waiting goroutine.
func Go(fn func() error) (wait func() error) {
	done := make(chan error, 1)
	go func() { done <- guarded(fn) }()
	return func() error { return repanic(<-done) }
}

// Each calls fn(i) for every i in [0, n) on the calling goroutine, the later ones even after
// one panics, and then raises the first panic again: for waits that must all be waited for
// (a goroutine not waited for may still be using what the caller is about to free).
func Each(n int, fn func(i int)) {
	var raised any
	for i := range n {
		func() {
			defer func() {
				if p := recover(); p != nil && raised == nil {
					raised = p
				}
			}()
			fn(i)
		}()
	}
	if raised != nil {
		panic(raised)
	}
}

// repanic raises a worker's panic again on the calling goroutine, and returns other errors.
func repanic(err error) error {
	var wp *workerPanic
	if errors.As(err, &wp) {
		panic(wp.value)
	}
	return err
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
				finished[i%window] <- guarded(func() error { return work(i%window, i) })
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
	return repanic(err)
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
					if err := guarded(func() error { return work(it.slot, it.i) }); err != nil {
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
	return repanic(err)
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
			bad[w] = -1
			errs[w] = guarded(func() (err error) {
				bad[w], err = fn(w*n/workers, (w+1)*n/workers)
				return err
			})
		}()
	}
	wg.Wait()
	for w := range workers { // ranges are in index order: the first failure is the lowest
		if errs[w] != nil {
			return bad[w], repanic(errs[w])
		}
	}
	return -1, nil
}
