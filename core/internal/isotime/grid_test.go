package isotime

import (
	"strings"
	"testing"
	"time"
)

func stamps(ts ...time.Time) []time.Time { return ts }

func TestGrid(t *testing.T) {
	jan31 := date(2024, 1, 31, 6, 0, 0, 0)
	got, err := Grid(jan31, MustParsePeriod("P1M"), 4)
	if err != nil {
		t.Fatal(err)
	}
	// One jump from the origin per step: month ends clamp and come back (no drift to the 29th).
	want := stamps(jan31, date(2024, 2, 29, 6, 0, 0, 0), date(2024, 3, 31, 6, 0, 0, 0), date(2024, 4, 30, 6, 0, 0, 0))
	if !equalTimes(got, want) {
		t.Errorf("P1M grid from 31 Jan: %v, want %v", got, want)
	}
	got, err = Grid(date(2030, 1, 1, 0, 0, 0, 0), MustParsePeriod("PT15M"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := stamps(date(2030, 1, 1, 0, 0, 0, 0), date(2030, 1, 1, 0, 15, 0, 0), date(2030, 1, 1, 0, 30, 0, 0)); !equalTimes(got, want) {
		t.Errorf("PT15M grid: %v, want %v", got, want)
	}
	if got, err := Grid(date(2030, 1, 1, 0, 0, 0, 0), Period{}, 0); err != nil || len(got) != 0 {
		t.Errorf("an empty grid: %v, %v", got, err)
	}
	for _, c := range []struct {
		p    string
		n    int
		frag string
	}{
		{"PT0S", 2, "must be positive"},
		{"-PT1H", 2, "must be positive"},
		{"PT1H", -1, "-1 instants"},
		{"P1000Y", 10, "outside years"},
	} {
		if _, err := Grid(date(2030, 1, 1, 0, 0, 0, 0), MustParsePeriod(c.p), c.n); err == nil || !strings.Contains(err.Error(), c.frag) {
			t.Errorf("Grid(%s, %d): %v, want an error mentioning %q", c.p, c.n, err, c.frag)
		}
	}
}

func TestCheckGrid(t *testing.T) {
	h := MustParsePeriod("PT1H")
	t0 := date(2030, 1, 1, 0, 0, 0, 0)
	if err := CheckGrid(stamps(t0, t0.Add(time.Hour), t0.Add(2*time.Hour)), h); err != nil {
		t.Errorf("a regular hourly grid: %v", err)
	}
	if err := CheckGrid(stamps(t0), h); err != nil {
		t.Errorf("one instant is on every grid: %v", err)
	}
	err := CheckGrid(stamps(t0, t0.Add(time.Hour), t0.Add(3*time.Hour)), h)
	for _, frag := range []string{"not regular at resolution PT1H", "step 2", "2030-01-01T03:00:00Z", "want 2030-01-01T02:00:00Z"} {
		if err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("an hour missing: %v, want it to mention %q", err, frag)
		}
	}
	if err := CheckGrid(stamps(t0, t0), Period{}); err == nil || !strings.Contains(err.Error(), "must be positive") {
		t.Errorf("a zero period: %v", err)
	}
	// Instants in another zone are the same instants.
	est := time.FixedZone("EST", -5*3600)
	if err := CheckGrid(stamps(t0.In(est), t0.Add(time.Hour)), h); err != nil {
		t.Errorf("zones: %v", err)
	}
}

func TestInferPeriod(t *testing.T) {
	t0 := date(2030, 1, 1, 0, 0, 0, 0)
	for _, c := range []struct {
		name  string
		times []time.Time
		want  string
	}{
		{"hourly", stamps(t0, t0.Add(time.Hour), t0.Add(2*time.Hour)), "PT1H"},
		{"two instants", stamps(t0, t0.Add(90*time.Minute)), "PT1H30M"},
		{"milliseconds", stamps(t0, t0.Add(250*time.Millisecond), t0.Add(500*time.Millisecond)), "PT0.25S"},
		{"daily", stamps(t0, t0.AddDate(0, 0, 1), t0.AddDate(0, 0, 2)), "P1D"},
		// A 31-day step that goes on as the first of each month is monthly.
		{"first of the month", stamps(t0, date(2030, 2, 1, 0, 0, 0, 0), date(2030, 3, 1, 0, 0, 0, 0)), "P1M"},
		// Month ends: 28 days, then 31; only P1M from 31 Jan fits.
		{"month ends", stamps(date(2030, 1, 31, 0, 0, 0, 0), date(2030, 2, 28, 0, 0, 0, 0), date(2030, 3, 31, 0, 0, 0, 0)), "P1M"},
		{"quarterly", stamps(t0, date(2030, 4, 1, 0, 0, 0, 0), date(2030, 7, 1, 0, 0, 0, 0)), "P3M"},
		// 365 days, then 366 (2032 is a leap year): yearly.
		{"yearly", stamps(date(2031, 1, 1, 0, 0, 0, 0), date(2032, 1, 1, 0, 0, 0, 0), date(2033, 1, 1, 0, 0, 0, 0)), "P1Y"},
		// Two instants fit the fixed span too, which wins.
		{"two firsts of the month", stamps(t0, date(2030, 2, 1, 0, 0, 0, 0)), "P31D"},
		// Further apart than time.Duration reaches (292 years).
		{"centuries", stamps(date(1700, 1, 1, 0, 0, 0, 0), date(2100, 1, 1, 0, 0, 0, 0)), "P146097D"},
		{"offsets", stamps(t0.In(time.FixedZone("X", 3600)), t0.Add(time.Hour)), "PT1H"},
	} {
		got, err := InferPeriod(c.times)
		if err != nil || got.String() != c.want {
			t.Errorf("%s: %v, %v; want %s", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct {
		name  string
		times []time.Time
		frags []string
	}{
		{"none", nil, []string{"0 timestamps", "at least two"}},
		{"one", stamps(t0), []string{"1 timestamps"}},
		{"equal", stamps(t0, t0), []string{"not increasing"}},
		{"decreasing", stamps(t0.Add(time.Hour), t0), []string{"not increasing", "2030-01-01T01:00:00Z"}},
		{"sub-millisecond", stamps(t0, t0.Add(time.Microsecond)), []string{"whole number of milliseconds"}},
		{"gap", stamps(t0, t0.Add(time.Hour), t0.Add(3*time.Hour)), []string{"resolution PT1H", "step 2"}},
		// Neither grid fits: the error is the fixed span's.
		{"months then a gap", stamps(t0, date(2030, 2, 1, 0, 0, 0, 0), date(2030, 4, 1, 0, 0, 0, 0)), []string{"resolution P31D", "step 2"}},
	} {
		_, err := InferPeriod(c.times)
		for _, f := range c.frags {
			if err == nil || !strings.Contains(err.Error(), f) {
				t.Errorf("%s: %v, want an error mentioning %q", c.name, err, f)
			}
		}
	}
}

func equalTimes(a, b []time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}
