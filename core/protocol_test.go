package core

import (
	"strings"
	"testing"
	"time"
)

// Cases found by a second reading of the write protocol.

// A removal in a nested level, then arrays written out (by a reader, or the write buffer),
// then the nested level rolled back: the row is back and its array must still be written.
func TestNestedRollbackAfterWriteOutKeepsArrays(t *testing.T) {
	for _, via := range []string{"reader", "write buffer"} {
		s, path := newStore(t)
		if err := s.Begin(); err != nil {
			t.Fatal(err)
		}
		a := mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
		if err := s.Begin(); err != nil {
			t.Fatal(err)
		}
		if err := s.Remove(a); err != nil {
			t.Fatal(err)
		}
		if via == "write buffer" {
			s.SetWriteBuffer(24*8 + 1)
		}
		b := mustAdd(t, s, gen(2), hourly("p", ramp(24, 2)), nil)
		if via == "reader" {
			if _, err := s.NewStaticReader(Hours(1), Lookups([]Key{b})); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Rollback(); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		s = reopen(t, s, path)
		if !equalFloats(floats(t, mustGetSingle(t, s, a).Data), ramp(24, 1)) {
			t.Fatalf("%s: the restored row's array is lost", via)
		}
	}
}

// poisonStandalone makes the next write of ts's array fail, as an I/O error would.
func poisonStandalone(t *testing.T, s *Store, ts TimeSeries) {
	t.Helper()
	p, err := prepareAdd(gen(77), ts, &AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.nc.PoisonForTesting(p.digest)
}

func outage() *NonSequentialTimeSeries {
	return &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0, t0.Add(time.Hour)}, Data: ArrayOf([]float64{1, 2})}
}

// A call whose arrays fail to reach the file when the write buffer fills undoes itself.
func TestFailedWriteOutUndoesTheCall(t *testing.T) {
	s, _ := newStore(t)
	poisonStandalone(t, s, outage())
	s.SetWriteBuffer(1)
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(gen(77), outage(), nil); err == nil {
		t.Fatal("the poisoned write succeeded")
	}
	if ok, _ := s.Has(Key{OwnerID: 77, Type: NonSequentialTimeSeriesType, Name: "o"}); ok {
		t.Fatal("a failed call left its row in the transaction")
	}
	if s.cat.Depth() != 1 || len(s.unit.marks) != 1 {
		t.Fatalf("depth %d, marks %d after the failed call", s.cat.Depth(), len(s.unit.marks))
	}
}

// A commit that fails rolls back every write since the previous commit, and says so.
func TestFailedCommitSaysWhatWasRolledBack(t *testing.T) {
	s, _ := newStore(t)
	a := mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
	poisonStandalone(t, s, outage())
	if _, err := s.Add(gen(77), outage(), nil); err != nil {
		t.Fatal(err)
	}
	err := s.Flush()
	if err == nil || !strings.Contains(err.Error(), "every write since the previous commit was rolled back") {
		t.Fatalf("flush: %v", err)
	}
	if ok, _ := s.Has(a); ok {
		t.Fatal("the rolled-back unit's rows are still visible")
	}
	// The store goes on working.
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
}

func datasetWidths(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(run(t, "ncdump", "-h", path), "\n") {
		if strings.Contains(l, "_c = ") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// Each batch gets datasets of its own width, and one-at-a-time adds the default width, even
// when several of them wait in one unit of work.
func TestBatchWidthsWithinOneUnit(t *testing.T) {
	s, path := newStore(t)
	for b := 0; b < 2; b++ {
		var items []BatchItem
		for i := 0; i < 300; i++ {
			items = append(items, BatchItem{Owner: gen(int64(b*1000 + i)), Series: hourly("p", ramp(24, float64(b*1000+i)))})
		}
		if _, err := s.AddBatch(items); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 1500; i++ {
		mustAdd(t, s, gen(int64(5000+i)), &SingleTimeSeries{Name: "q", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(ramp(48, float64(i)))}, nil)
	}
	if _, err := s.AddBatch([]BatchItem{{Owner: gen(9000), Series: hourly("q", ramp(48, -1))}, {Owner: gen(9001), Series: hourly("q", ramp(48, -2))}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	got := strings.Join(datasetWidths(t, path), "; ")
	for _, want := range []string{"sts_f64_s_24_PT1H_c = 300", "sts_f64_s_24_PT1H__1_c = 300", "sts_f64_s_48_PT1H_c = 1000",
		"sts_f64_s_48_PT1H__1_c = 1000", "sts_f64_s_48_PT1H__2_c = 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("widths %q lack %q", got, want)
		}
	}
}
