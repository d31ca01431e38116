package core

import (
	"strings"
	"time"

	"github.com/tsstore/tsstore/core/internal/isotime"
)

// The grid arithmetic a caller needs around a SingleTimeSeries: the instants of a grid,
// whether timestamps lie on one, and which one they lie on. It lives here, beside the
// arithmetic the store itself uses (docs/format.md §5), so that every tool computes
// instants the same way: calendar steps are taken from the initial timestamp in one jump
// and clamp to month ends (31 Jan + P1M is 28 or 29 Feb, + 2·P1M is 31 Mar).

// GridTimestamps returns the n instants initial + i·resolution, i = 0 … n−1: the timestamps
// of a SingleTimeSeries of n steps, or of one forecast window of n steps.
func GridTimestamps(initial time.Time, resolution Period, n int) ([]time.Time, error) {
	ts, err := isotime.Grid(initial, resolution, n)
	if err != nil {
		return nil, timeErr("grid_timestamps", ArgResolution, err)
	}
	return ts, nil
}

// Timestamps returns the instant of every step of the series.
func (s *SingleTimeSeries) Timestamps() ([]time.Time, error) {
	return GridTimestamps(s.InitialTimestamp, s.Resolution, s.Data.Len())
}

// CheckResolution reports whether timestamps form the grid of resolution starting at the
// first of them (timestamps[i] == timestamps[0] + i·resolution): the timestamps a
// SingleTimeSeries with that resolution would have. The ErrInvalidParameter it returns
// otherwise names the first step off the grid, the instant it has and the one the grid
// wants.
func CheckResolution(timestamps []time.Time, resolution Period) error {
	return timeErr("check_resolution", ArgTimestamps, isotime.CheckGrid(timestamps, resolution))
}

// InferResolution returns the resolution of the regular grid the timestamps lie on,
// inferred from the first two and checked against every one (CheckResolution). The
// candidates are the fixed span between the first two instants (a whole number of
// milliseconds) and, when that span is a whole number n of calendar months, P{n}M; the
// fixed span wins when both fit, and P{n}M is taken when only it fits (month-end series).
// Fewer than two timestamps, timestamps that do not increase, a step finer than a
// millisecond, or timestamps off both grids are ErrInvalidParameter.
func InferResolution(timestamps []time.Time) (Period, error) {
	p, err := isotime.InferPeriod(timestamps)
	if err != nil {
		return Period{}, timeErr("infer_resolution", ArgTimestamps, err)
	}
	return p, nil
}

// timeErr is an isotime failure as the store's InvalidParameter, without isotime's prefix.
func timeErr(op string, arg Arg, err error) error {
	if err == nil {
		return nil
	}
	return invalid(op, arg, "%s", strings.TrimPrefix(err.Error(), "isotime: "))
}
