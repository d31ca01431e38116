package core

import "time"

// The store's own time arithmetic on whole timelines, for the bindings and the CLI: they
// convert their users' values to and from milliseconds and periods, and leave steps and
// calendars to this file.

// Timeline returns the n timestamps t0 + (first + i) × step; calendar steps follow the
// calendar (docs/format.md on period arithmetic).
func Timeline(t0 time.Time, step Period, first, n int) ([]time.Time, error) {
	if n < 0 {
		return nil, invalid("timeline", "n", "%d is negative", n)
	}
	if !step.IsPositive() {
		return nil, invalid("timeline", "step", "%s is not a positive period", step)
	}
	out := make([]time.Time, n)
	for i := range out {
		t, err := step.Step(t0, int64(first+i))
		if err != nil {
			return nil, invalid("timeline", "step", "%v", err)
		}
		out[i] = t
	}
	return out, nil
}

// InferResolution finds the regular step of stamps (at least two, strictly increasing): a
// fixed period when every gap is the same, else a whole number of calendar months when
// every stamp is that many months after the one before (month ends clamping as Step does).
// ok is false when the stamps are irregular.
func InferResolution(stamps []time.Time) (p Period, ok bool, err error) {
	const op = "infer_resolution"
	if len(stamps) < 2 {
		return Period{}, false, invalid(op, "timestamps", "%d timestamps; a step needs at least two", len(stamps))
	}
	for i := 1; i < len(stamps); i++ {
		if !stamps[i].After(stamps[i-1]) {
			return Period{}, false, invalid(op, "timestamps", "entry %d does not follow entry %d", i, i-1)
		}
	}
	gap := stamps[1].Sub(stamps[0])
	fixed := gap%time.Millisecond == 0
	for i := 2; fixed && i < len(stamps); i++ {
		fixed = stamps[i].Sub(stamps[i-1]) == gap
	}
	if fixed {
		return Milliseconds(gap.Milliseconds()), true, nil
	}
	y0, m0, _ := stamps[0].UTC().Date()
	y1, m1, _ := stamps[1].UTC().Date()
	months := int64(y1-y0)*12 + int64(m1-m0)
	if months <= 0 {
		return Period{}, false, nil
	}
	step := Months(months)
	for i, t := range stamps {
		want, err := step.Step(stamps[0], int64(i))
		if err != nil || !want.Equal(t) {
			return Period{}, false, nil
		}
	}
	return step, true, nil
}
