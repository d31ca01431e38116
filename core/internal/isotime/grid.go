package isotime

import (
	"fmt"
	"time"
)

// Grid returns the n instants t0 + i·p, i = 0 … n−1, each computed from t0 in one jump
// (Step), so calendar grids clamp to month ends relative to t0 and never drift.
func Grid(t0 time.Time, p Period, n int) ([]time.Time, error) {
	return GridFrom(t0, p, 0, n)
}

// GridFrom returns the n instants t0 + (first + i)·p of the grid from t0: a part of it,
// still stepped from t0 (a part stepped from its own first instant would clamp differently).
func GridFrom(t0 time.Time, p Period, first int64, n int) ([]time.Time, error) {
	if n < 0 {
		return nil, fmt.Errorf("isotime: a grid of %d instants", n)
	}
	if n > 0 && !p.IsPositive() {
		return nil, fmt.Errorf("isotime: grid period %s must be positive", p)
	}
	out := make([]time.Time, n)
	for i := range out {
		t, err := p.Step(t0, first+int64(i))
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// CheckGrid reports whether times lie exactly on the grid of period p starting at times[0]:
// times[i] == Step(times[0], i) for every i. The error names the first step that does not,
// with the instant it has and the one the grid wants.
func CheckGrid(times []time.Time, p Period) error {
	if !p.IsPositive() {
		return fmt.Errorf("isotime: grid period %s must be positive", p)
	}
	for i, t := range times {
		want, err := p.Step(times[0], int64(i))
		if err != nil {
			return err
		}
		if !want.Equal(t) {
			return fmt.Errorf("isotime: timestamps are not regular at resolution %s: step %d is %s, want %s",
				p, i, FormatTimestampZ(t), FormatTimestampZ(want))
		}
	}
	return nil
}

// InferPeriod returns the period of the regular grid the timestamps lie on, inferred from
// the first two and checked against every one. The candidates are the fixed span from the
// first instant to the second (a whole number of milliseconds, the finest resolution the
// format records) and, when that span is a whole number n of calendar months from the
// first instant, P{n}M; the fixed span wins when both fit, the calendar one is taken when
// only it fits (month-end series: 31 Jan, 28 Feb, 31 Mar). When neither fits, the error is
// the fixed span's: the first step off its grid.
func InferPeriod(times []time.Time) (Period, error) {
	if len(times) < 2 {
		return Period{}, fmt.Errorf("isotime: %d timestamps do not give a resolution: want at least two", len(times))
	}
	t0, t1 := times[0].UTC(), times[1].UTC()
	if !t1.After(t0) {
		return Period{}, fmt.Errorf("isotime: timestamps %s and %s are not increasing", FormatTimestampZ(t0), FormatTimestampZ(t1))
	}
	// In seconds and nanoseconds, not time.Duration, which stops at 292 years.
	dns := int64(t1.Nanosecond() - t0.Nanosecond())
	if dns%1e6 != 0 {
		return Period{}, fmt.Errorf("isotime: the step from %s to %s is not a whole number of milliseconds, the finest resolution the format records",
			FormatTimestampZ(t0), FormatTimestampZ(t1))
	}
	fixed := FixedMillis((t1.Unix()-t0.Unix())*msPerSecond + dns/1e6)
	firstErr := CheckGrid(times, fixed)
	if firstErr == nil {
		return fixed, nil
	}
	if months := monthIndex(t1.Year(), t1.Month()) - monthIndex(t0.Year(), t0.Month()); months > 0 {
		p := CalendarMonths(months)
		if next, err := p.Step(t0, 1); err == nil && next.Equal(t1) && CheckGrid(times, p) == nil {
			return p, nil
		}
	}
	return Period{}, firstErr
}
