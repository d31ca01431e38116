package core

import (
	"testing"
	"time"
)

// A SingleTimeSeries and a NonSequentialTimeSeries with the same values share a data_hash
// but not a storage form: the file holds a packed column and a standalone variable. The
// rewrite must carry both, or the second row dangles.
func TestRewriteKeepsBothFormsOfASharedHash(t *testing.T) {
	s, _ := newStore(t)
	v := make([]float64, 24)
	ts := make([]time.Time, 24)
	for i := range v {
		v[i] = float64(i) * 1.5
		ts[i] = t0.Add(time.Duration(i*i) * time.Hour)
	}
	bus := Owner{ID: 1, Type: "Bus", Category: Component}
	if _, err := s.Add(bus, &SingleTimeSeries{Name: "a", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(v, 24)}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(bus, &NonSequentialTimeSeries{Name: "b", Timestamps: ts, Data: ArrayOf(v, 24)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.VerifyIntegrity(); err != nil || !rep.OK() {
		t.Fatalf("before the rewrite: %+v %v", rep, err)
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.VerifyIntegrity(); err != nil || !rep.OK() {
		t.Fatalf("after the rewrite: %+v %v", rep, err)
	}
}

