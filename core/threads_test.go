package core

import (
	"bytes"
	"os"
	"testing"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
)

// threadsWorkload adds batches that take the workers' paths (whole datasets of several
// dtypes and element shapes, rows grouped several to an item), reads them back from a
// read-only open, and returns the .nc file's bytes.
func threadsWorkload(t *testing.T, threads int) []byte {
	t.Helper()
	prev := chunkpipe.SetThreads(threads)
	defer chunkpipe.SetThreads(prev)
	s, path := newStore(t)
	var items []BatchItem
	for i := 0; i < 300; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("wide", ramp(1000, float64(i)))})
	}
	for i, dt := range allDTypes {
		for j := 0; j < 5; j++ {
			items = append(items, BatchItem{Owner: gen(int64(1000 + 10*i + j)), Series: &SingleTimeSeries{Name: "e",
				InitialTimestamp: t0, Resolution: Hours(1), Data: sampleArray(dt, 40, []int{3}, i+j)}})
		}
	}
	keys, err := s.AddBatch(items)
	if err != nil {
		t.Fatal(err)
	}
	ro := reopenReadOnly(t, s, path)
	got, err := ro.GetMany(keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, ts := range got {
		if !sameSeries(ts, items[i].Series) {
			t.Fatalf("threads %d: %s reads back otherwise than it was added", threads, keys[i])
		}
	}
	rep, err := ro.VerifyIntegrity()
	if err != nil || !rep.OK() {
		t.Fatalf("threads %d: verify: %+v, %v", threads, rep, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The file a bulk add writes is the same, byte for byte, with one worker and with many, and
// reads back (bulk reads decoded on the workers) as added, with every hash verified.
func TestThreadCountLeavesTheFileUnchanged(t *testing.T) {
	one := threadsWorkload(t, 1)
	many := threadsWorkload(t, 4)
	if !bytes.Equal(one, many) {
		t.Errorf("the .nc file differs between 1 and 4 workers (%d and %d bytes)", len(one), len(many))
	}
}
