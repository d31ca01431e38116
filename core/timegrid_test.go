package core

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The exported grid arithmetic: what a tool needs to turn a column of timestamps into a
// SingleTimeSeries and back, with the store's own calendar rules.
func TestGridTimestampsAndInferResolution(t *testing.T) {
	jan31 := time.Date(2030, 1, 31, 0, 0, 0, 0, time.UTC)
	ts, err := GridTimestamps(jan31, Months(1), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{jan31, time.Date(2030, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2030, 3, 31, 0, 0, 0, 0, time.UTC)}
	for i := range want {
		if !ts[i].Equal(want[i]) {
			t.Fatalf("GridTimestamps: %v, want %v", ts, want)
		}
	}
	// Inference finds the grid again, and CheckResolution accepts it.
	if p, err := InferResolution(ts); err != nil || p != Months(1) {
		t.Errorf("InferResolution(month ends) = %v, %v; want P1M", p, err)
	}
	if err := CheckResolution(ts, Months(1)); err != nil {
		t.Errorf("CheckResolution(month ends, P1M): %v", err)
	}
	sts := &SingleTimeSeries{Name: "x", InitialTimestamp: jan31, Resolution: Hours(6), Data: ArrayOf([]float64{1, 2, 3, 4})}
	got, err := sts.Timestamps()
	if err != nil || len(got) != 4 || !got[3].Equal(jan31.Add(18*time.Hour)) {
		t.Errorf("SingleTimeSeries.Timestamps: %v, %v", got, err)
	}
	if p, err := InferResolution(got); err != nil || p != Hours(6) {
		t.Errorf("InferResolution(6-hourly) = %v, %v", p, err)
	}

	// Every failure is InvalidParameter, says which operation and why, without isotime's prefix.
	for _, c := range []struct {
		err   error
		frags []string
	}{
		{second(InferResolution(ts[:1])), []string{"infer_resolution", "1 timestamps"}},
		{second(InferResolution([]time.Time{ts[1], ts[0]})), []string{"not increasing"}},
		{CheckResolution(ts, Days(30)), []string{"check_resolution", "not regular at resolution P30D", "step 1"}},
		{second(GridTimestamps(jan31, Period{}, 2)), []string{"grid_timestamps", "must be positive"}},
	} {
		if !errors.Is(c.err, ErrInvalidParameter) {
			t.Errorf("%v: want ErrInvalidParameter", c.err)
		}
		if c.err != nil && strings.Contains(c.err.Error(), "isotime:") {
			t.Errorf("%v: carries the internal package's prefix", c.err)
		}
		for _, f := range c.frags {
			if c.err == nil || !strings.Contains(c.err.Error(), f) {
				t.Errorf("%v: want it to mention %q", c.err, f)
			}
		}
	}
}

func second[T any](_ T, err error) error { return err }
