package chunkpipe

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Items are done in order, each after its work, with at most Window() in flight, for one
// worker and for many.
func TestOrderedKeepsOrderAndWindow(t *testing.T) {
	for _, n := range []int{1, 2, 7} {
		prev := SetThreads(n)
		var inFlight, most atomic.Int64
		worked := make([]atomic.Bool, 500)
		next := 0
		err := Ordered(len(worked), func(slot, i int) error {
			if slot != i%Window() && n > 1 {
				t.Errorf("item %d in slot %d", i, slot)
			}
			v := inFlight.Add(1)
			for m := most.Load(); v > m && !most.CompareAndSwap(m, v); m = most.Load() {
			}
			worked[i].Store(true)
			runtime.Gosched()
			return nil
		}, func(slot, i int) error {
			if i != next || !worked[i].Load() {
				t.Fatalf("done(%d) after %d, worked %v", i, next, worked[i].Load())
			}
			next++
			inFlight.Add(-1)
			return nil
		})
		SetThreads(prev)
		if err != nil || next != len(worked) {
			t.Fatalf("%d threads: %v after %d items", n, err, next)
		}
		if m := most.Load(); m > int64(2*n) {
			t.Errorf("%d threads: %d items in flight, window %d", n, m, 2*n)
		}
	}
}

// The first error stops the run: nothing after the failing item is done, and no worker runs
// once Ordered has returned. Items after the failing one take a while, so that some are still
// in a worker when the error comes: an Ordered that did not wait for them would return with
// them running. (A correct Ordered passes however long they take.)
func TestOrderedStopsAtFirstError(t *testing.T) {
	prev := SetThreads(4)
	defer SetThreads(prev)
	boom := errors.New("boom")
	for _, failIn := range []string{"work", "done"} {
		var running atomic.Int64
		last := -1
		err := Ordered(1000, func(slot, i int) error {
			running.Add(1)
			defer running.Add(-1)
			if failIn == "work" && i == 10 {
				return boom
			}
			if i > 10 {
				time.Sleep(20 * time.Millisecond)
			}
			return nil
		}, func(slot, i int) error {
			last = i
			if failIn == "done" && i == 10 {
				return boom
			}
			return nil
		})
		if !errors.Is(err, boom) {
			t.Fatalf("%s: %v", failIn, err)
		}
		if want := map[string]int{"work": 9, "done": 10}[failIn]; last != want {
			t.Errorf("%s: last item done %d, want %d", failIn, last, want)
		}
		if r := running.Load(); r != 0 {
			t.Errorf("%s: %d workers still running after Ordered returned", failIn, r)
		}
	}
}

func TestThreadsFromEnv(t *testing.T) {
	for v, want := range map[string]int{"": 0, "1": 1, "16": 16} {
		if n, err := threadsFromEnv(v); err != nil || n != want {
			t.Errorf("%q: %d, %v", v, n, err)
		}
	}
	for _, v := range []string{"0", "-2", "two", "1025"} {
		if _, err := threadsFromEnv(v); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}

// A TSSTORE_THREADS that is not a count is said once on stderr, naming the variable and its
// value, and the default is used.
func TestBadThreadCountIsSaidOnce(t *testing.T) {
	if os.Getenv("TSSTORE_THREADS_CHILD") == "1" {
		fmt.Println(Threads(), Threads())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBadThreadCountIsSaidOnce$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TSSTORE_THREADS_CHILD=1", "TSSTORE_THREADS=two")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	want := fmt.Sprintf("%d %d", runtime.NumCPU(), runtime.NumCPU())
	if !strings.HasPrefix(string(out), want+"\n") {
		t.Errorf("threads %q, want %q (the default)", out, want)
	}
	said := `tsstore: TSSTORE_THREADS="two" is not a count from 1 to 1024; using`
	if strings.Count(stderr.String(), said) != 1 {
		t.Errorf("stderr %q does not say once %q", stderr.String(), said)
	}
}

// Fanout prepares items in order on the calling goroutine, works each once, holds at most
// Window() slots, and stops at the first error with no worker left running.
func TestFanoutPreparesInOrderAndBoundsSlots(t *testing.T) {
	for _, n := range []int{1, 3} {
		prev := SetThreads(n)
		var owner [64]atomic.Int64 // which item holds each slot, +1
		var worked atomic.Int64
		next := 0
		err := Fanout(300, func(slot, i int) error {
			if i != next {
				t.Fatalf("prepared %d after %d", i, next-1)
			}
			next++
			if slot >= Window() || !owner[slot].CompareAndSwap(0, int64(i+1)) {
				t.Fatalf("item %d given slot %d, held by %d", i, slot, owner[slot].Load()-1)
			}
			return nil
		}, func(slot, i int) error {
			if owner[slot].Load() != int64(i+1) {
				t.Errorf("item %d works in slot %d held by %d", i, slot, owner[slot].Load()-1)
			}
			runtime.Gosched()
			owner[slot].Store(0)
			worked.Add(1)
			return nil
		})
		SetThreads(prev)
		if err != nil || worked.Load() != 300 {
			t.Fatalf("%d threads: %v, %d worked", n, err, worked.Load())
		}
	}
	prev := SetThreads(4)
	defer SetThreads(prev)
	boom := errors.New("boom")
	for _, failIn := range []string{"prepare", "work"} {
		var running atomic.Int64
		err := Fanout(1000, func(slot, i int) error {
			if failIn == "prepare" && i == 20 {
				return boom
			}
			return nil
		}, func(slot, i int) error {
			running.Add(1)
			defer running.Add(-1)
			if failIn == "work" && i == 20 {
				return boom
			}
			return nil
		})
		if !errors.Is(err, boom) {
			t.Fatalf("%s: %v", failIn, err)
		}
		if r := running.Load(); r != 0 {
			t.Errorf("%s: %d workers running after Fanout returned", failIn, r)
		}
	}
}

// A panic in work on a worker is raised again on the caller's goroutine, where a recover can
// catch it, for each way of running work; left on the worker it would end the process.
func TestWorkerPanicsReachTheCaller(t *testing.T) {
	prev := SetThreads(3)
	defer SetThreads(prev)
	runs := map[string]func(){
		"Ordered": func() {
			Ordered(50, func(slot, i int) error {
				if i == 7 {
					panic("boom")
				}
				return nil
			}, func(slot, i int) error { return nil })
		},
		"Fanout": func() {
			Fanout(50, func(slot, i int) error { return nil }, func(slot, i int) error {
				if i == 7 {
					panic("boom")
				}
				return nil
			})
		},
		"Split": func() {
			Split(50, 1, func(lo, hi int) (int, error) {
				if lo > 0 {
					panic("boom")
				}
				return -1, nil
			})
		},
		"Go": func() { Go(func() error { panic("boom") })() },
	}
	for name, run := range runs {
		got := func() (v any) {
			defer func() { v = recover() }()
			run()
			return nil
		}()
		if got != "boom" {
			t.Errorf("%s: the caller recovered %v, want the worker's panic", name, got)
		}
	}
}

// Each calls every function even after one panics, and then raises the first panic.
func TestEachCallsAllThenRaisesTheFirstPanic(t *testing.T) {
	var called []int
	raised := func() (p any) {
		defer func() { p = recover() }()
		Each(4, func(i int) {
			called = append(called, i)
			if i == 1 || i == 2 {
				panic(i)
			}
		})
		return nil
	}()
	if raised != 1 || len(called) != 4 {
		t.Fatalf("raised %v after calling %v; want 1 after all four", raised, called)
	}
}
