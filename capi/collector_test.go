package main

import (
	"runtime/debug"
	"testing"
)

// A bulk call raises the collector's target while it runs, and the last of overlapping calls
// to end restores it; a small call, a target set higher, a collector switched off and a target
// set during the call are left as they are.
func TestBulkCallsRaiseTheCollectorTargetWhileTheyRun(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	roomForBulk(bulkGCMin - 1)()
	if got := gcPercent(); got != 100 {
		t.Fatalf("a small call left the target at %d", got)
	}
	endA := roomForBulk(bulkGCMin)
	endB := roomForBulk(10_000)
	if got := gcPercent(); got != bulkGCPercent {
		t.Fatalf("during two bulk calls the target is %d, want %d", got, bulkGCPercent)
	}
	endA()
	if got := gcPercent(); got != bulkGCPercent {
		t.Fatalf("with one bulk call still running the target is %d", got)
	}
	endB()
	if got := gcPercent(); got != 100 {
		t.Fatalf("after the bulk calls the target is %d, want 100 again", got)
	}
	for _, set := range []int{-1, 500} {
		debug.SetGCPercent(set)
		end := roomForBulk(10_000)
		if got := gcPercent(); got != set {
			t.Errorf("GOGC %d: a bulk call set the target to %d", set, got)
		}
		end()
		if got := gcPercent(); got != set {
			t.Errorf("GOGC %d: after a bulk call the target is %d", set, got)
		}
	}
	// A target changed while a bulk call ran is the process's: the call's end keeps it.
	debug.SetGCPercent(100)
	end := roomForBulk(10_000)
	debug.SetGCPercent(150)
	end()
	if got := gcPercent(); got != 150 {
		t.Errorf("a target set during a bulk call became %d after it", got)
	}
}
