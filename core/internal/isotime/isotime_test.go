package isotime

import (
	"math"
	"strings"
	"testing"
	"time"
)

func date(y int, m time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, m, d, h, mi, s, ns, time.UTC)
}

func TestParsePeriodCanonical(t *testing.T) {
	const (
		sec  = msPerSecond
		min  = msPerMinute
		hour = msPerHour
		day  = msPerDay
	)
	tests := []struct {
		in, want string
		kind     Kind
		millis   int64
		months   int64
	}{
		// canonical spellings from docs/format.md §5.1 round-trip unchanged
		{"PT1H", "PT1H", Fixed, hour, 0},
		{"PT15M", "PT15M", Fixed, 15 * min, 0},
		{"PT1H30M", "PT1H30M", Fixed, 90 * min, 0},
		{"P1D", "P1D", Fixed, day, 0},
		{"P1DT6H", "P1DT6H", Fixed, day + 6*hour, 0},
		{"PT1.5S", "PT1.5S", Fixed, 1500, 0},
		{"PT0S", "PT0S", Fixed, 0, 0},
		{"P7D", "P7D", Fixed, 7 * day, 0},
		{"P3M", "P3M", Calendar, 0, 3},
		{"P1Y", "P1Y", Calendar, 0, 12},
		{"P18M", "P18M", Calendar, 0, 18},
		{"-PT1H", "-PT1H", Fixed, -hour, 0},
		{"P1DT1H1M1.001S", "P1DT1H1M1.001S", Fixed, day + hour + min + sec + 1, 0},
		// non-canonical spellings are canonicalised
		{"P1W", "P7D", Fixed, 7 * day, 0},
		{"PT60M", "PT1H", Fixed, hour, 0},
		{"P12M", "P1Y", Calendar, 0, 12},
		{"PT36H", "P1DT12H", Fixed, 36 * hour, 0},
		{"PT0.001S", "PT0.001S", Fixed, 1, 0},
		{"PT1.500S", "PT1.5S", Fixed, 1500, 0},
		{"PT1.050S", "PT1.05S", Fixed, 1050, 0},
		{"PT1.0S", "PT1S", Fixed, sec, 0},
		{"PT1,5S", "PT1.5S", Fixed, 1500, 0},
		{"P1Y6M", "P18M", Calendar, 0, 18},
		{"P24M", "P2Y", Calendar, 0, 24},
		{"P0D", "PT0S", Fixed, 0, 0},
		{"P0M", "PT0S", Fixed, 0, 0},
		{"P0Y", "PT0S", Fixed, 0, 0},
		{"-P0M", "PT0S", Fixed, 0, 0},
		{"-PT0S", "PT0S", Fixed, 0, 0},
		{"P1DT0.5H", "P1DT30M", Fixed, day + 30*min, 0},
		{"PT1.5H", "PT1H30M", Fixed, 90 * min, 0},
		{"PT0.001M", "PT0.06S", Fixed, 60, 0},
		{"P0.5D", "PT12H", Fixed, 12 * hour, 0},
		{"P1W1D", "P8D", Fixed, 8 * day, 0},
		{"P0.5Y", "P6M", Calendar, 0, 6},
		{"P1.25Y", "P15M", Calendar, 0, 15},
		{"P1.000M", "P1M", Calendar, 0, 1},
		{"PT90M", "PT1H30M", Fixed, 90 * min, 0},
		{"PT3600S", "PT1H", Fixed, hour, 0},
		{"PT86400S", "P1D", Fixed, day, 0},
		{"P001D", "P1D", Fixed, day, 0},
		{"-P1Y6M", "-P18M", Calendar, 0, -18},
		{"-P2Y", "-P2Y", Calendar, 0, -24},
		{"-PT0.5S", "-PT0.5S", Fixed, -500, 0},
		{"PT9223372036854775.807S", "P106751991167DT7H12M55.807S", Fixed, math.MaxInt64, 0},
		{"-PT9223372036854775.808S", "-P106751991167DT7H12M55.808S", Fixed, math.MinInt64, 0},
		{"P9223372036854775807M", "P9223372036854775807M", Calendar, 0, math.MaxInt64},
		{"-P9223372036854775808M", "-P9223372036854775808M", Calendar, 0, math.MinInt64},
	}
	for _, tt := range tests {
		p, err := ParsePeriod(tt.in)
		if err != nil {
			t.Errorf("ParsePeriod(%q): %v", tt.in, err)
			continue
		}
		if got := p.String(); got != tt.want {
			t.Errorf("ParsePeriod(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		if p.Kind() != tt.kind || p.Millis() != tt.millis || p.Months() != tt.months {
			t.Errorf("ParsePeriod(%q) = kind %v millis %d months %d, want %v %d %d",
				tt.in, p.Kind(), p.Millis(), p.Months(), tt.kind, tt.millis, tt.months)
		}
		if p.IsCalendar() != (tt.kind == Calendar) {
			t.Errorf("ParsePeriod(%q).IsCalendar() = %v", tt.in, p.IsCalendar())
		}
		// the canonical form is a fixed point
		q, err := ParsePeriod(tt.want)
		if err != nil || !q.Equal(p) || q.String() != tt.want {
			t.Errorf("ParsePeriod(%q) = %v, %v; want %q equal to parse of %q", tt.want, q, err, tt.want, tt.in)
		}
	}
}

func TestParsePeriodErrors(t *testing.T) {
	tests := []struct{ in, why string }{
		{"", "empty"},
		{"P", "empty"},
		{"PT", "T must be followed"},
		{"-", "empty"},
		{"-P", "empty"},
		{"P1DT", "T must be followed"},
		{"P1M1D", "mixes"},
		{"P1YT1H", "mixes"},
		{"P1Y1W", "mixes"},
		{"P1MT1S", "mixes"},
		{"PT1.0001S", "more than 3"},
		{"1H", "starts with P"},
		{"PT1H30", "no unit"},
		{"P-1D", "signed"},
		{"P+1D", "signed"},
		{"p1d", "lower-case"},
		{"P1d", "lower-case"},
		{"Pt1H", "lower-case"},
		{"PT1h", "lower-case"},
		{"PT1.5H30M", "fraction"},
		{"P1.5DT1H", "fraction"},
		{"PT99999999999999999999H", "out of range"},
		{"PT9223372036854775808S", "out of range"},
		{"PT9223372036854775.808S", "out of range"},
		{"-PT9223372036854775.809S", "out of range"},
		{"P9223372036854775808M", "out of range"},
		{"P768614336404564651Y", "out of range"},
		{"P18446744073709551616D", "out of range"},
		{"P0.5M", "whole number of months"},
		{"P0.1Y", "whole number of months"},
		{"P1H", "after T"},
		{"P1S", "after T"},
		{"PT1D", "before T"},
		{"PT1Y", "before T"},
		{"PT1W", "before T"},
		{"P1D1D", "out of order"},
		{"P1D1W", "out of order"},
		{"PT1M1H", "out of order"},
		{"P1M1Y", "out of order"},
		{"PT1HT1M", "T appears twice"},
		{"PT.5S", "expected a number"},
		{"PT1.S", "followed by digits"},
		{"P1X", "unknown designator"},
		{"PT1H ", "expected a number"},
		{" PT1H", "starts with P"},
		{"+PT1H", "starts with P"},
		{"--PT1H", "starts with P"},
		{"P1", "no unit"},
		{"PT1.5", "no unit"},
	}
	for _, tt := range tests {
		p, err := ParsePeriod(tt.in)
		if err == nil {
			t.Errorf("ParsePeriod(%q) = %v, want error", tt.in, p)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tt.why) {
			t.Errorf("ParsePeriod(%q) error %q does not say %q", tt.in, msg, tt.why)
		}
		if !strings.Contains(msg, `"`+tt.in+`"`) {
			t.Errorf("ParsePeriod(%q) error %q does not name the input", tt.in, msg)
		}
	}
}

func TestMustParsePeriodPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParsePeriod(\"P\") did not panic")
		}
	}()
	MustParsePeriod("P")
}

func TestConstructorsAndZero(t *testing.T) {
	var zero Period
	if zero.String() != "PT0S" || !zero.IsZero() || zero.IsPositive() || zero.Kind() != Fixed {
		t.Errorf("zero Period = %q zero=%v pos=%v kind=%v", zero, zero.IsZero(), zero.IsPositive(), zero.Kind())
	}
	for _, p := range []Period{FixedMillis(0), CalendarMonths(0), MustParsePeriod("PT0S"), MustParsePeriod("P0Y")} {
		if !p.Equal(zero) || p != zero {
			t.Errorf("%#v is not the zero period", p)
		}
	}
	if got := FixedMillis(3 * msPerHour).String(); got != "PT3H" {
		t.Errorf("FixedMillis(3h) = %q", got)
	}
	if got := CalendarMonths(36).String(); got != "P3Y" {
		t.Errorf("CalendarMonths(36) = %q", got)
	}
	if got := CalendarMonths(-5).String(); got != "-P5M" {
		t.Errorf("CalendarMonths(-5) = %q", got)
	}
	if CalendarMonths(-5).IsPositive() || FixedMillis(-1).IsPositive() || !CalendarMonths(1).IsPositive() || !FixedMillis(1).IsPositive() {
		t.Error("IsPositive wrong")
	}
	if c := CalendarMonths(4); c.Millis() != 0 || c.Months() != 4 {
		t.Errorf("CalendarMonths(4) millis=%d months=%d", c.Millis(), c.Months())
	}
	if f := FixedMillis(4); f.Millis() != 4 || f.Months() != 0 {
		t.Errorf("FixedMillis(4) millis=%d months=%d", f.Millis(), f.Months())
	}
	if Fixed.String() != "fixed" || Calendar.String() != "calendar" || Kind(7).String() != "Kind(7)" {
		t.Error("Kind.String wrong")
	}
}

func TestFixedNeverEqualsCalendar(t *testing.T) {
	pairs := [][2]string{
		{"P1M", "PT720H"},
		{"P1M", "P30D"},
		{"P1M", "P31D"},
		{"P1Y", "P365D"},
		{"P1Y", "P366D"},
		{"P1Y", "P52W"},
		{"P3M", "P90D"},
		{"P1M", "PT1H"},
	}
	for _, pr := range pairs {
		a, b := MustParsePeriod(pr[0]), MustParsePeriod(pr[1])
		if a.Equal(b) || b.Equal(a) || a == b || a.String() == b.String() {
			t.Errorf("%s and %s compare equal", pr[0], pr[1])
		}
		if a.Kind() == b.Kind() {
			t.Errorf("%s and %s have the same kind", pr[0], pr[1])
		}
	}
	same := [][2]string{{"P1Y", "P12M"}, {"P1W", "P7D"}, {"PT60M", "PT1H"}, {"P1DT0.5H", "PT24H30M"}, {"P0M", "PT0S"}}
	for _, pr := range same {
		if !MustParsePeriod(pr[0]).Equal(MustParsePeriod(pr[1])) {
			t.Errorf("%s and %s differ", pr[0], pr[1])
		}
	}
}

func TestRatio(t *testing.T) {
	tests := []struct {
		p, q string
		n    int64
		ok   bool
	}{
		{"P1D", "PT1H", 24, true},
		{"P1Y", "P3M", 4, true},
		{"P1Y", "P1M", 12, true},
		{"PT1H", "PT15M", 4, true},
		{"PT1H", "PT1H", 1, true},
		{"PT0S", "PT1H", 0, true},
		{"P7D", "P1D", 7, true},
		{"PT1S", "PT0.001S", 1000, true},
		{"PT90M", "PT1H", 0, false},
		{"P1M", "PT1H", 0, false},
		{"P1D", "P1M", 0, false},
		{"P1Y", "P5M", 0, false},
		{"PT1H", "P1D", 0, false},
		{"PT1H", "PT0S", 0, false},
		{"PT1H", "-PT1H", 0, false},
		{"-PT1H", "PT1H", 0, false},
		{"-P1Y", "P1M", 0, false},
		{"PT0S", "P1M", 0, false},
	}
	for _, tt := range tests {
		n, ok := MustParsePeriod(tt.p).Ratio(MustParsePeriod(tt.q))
		if n != tt.n || ok != tt.ok {
			t.Errorf("%s.Ratio(%s) = %d, %v; want %d, %v", tt.p, tt.q, n, ok, tt.n, tt.ok)
		}
	}
}

func TestStep(t *testing.T) {
	jan31 := date(2024, 1, 31, 0, 0, 0, 0)
	tests := []struct {
		t0   time.Time
		p    string
		i    int64
		want time.Time
	}{
		{jan31, "P1M", 0, jan31},
		{jan31, "P1M", 1, date(2024, 2, 29, 0, 0, 0, 0)},
		{jan31, "P1M", 2, date(2024, 3, 31, 0, 0, 0, 0)},
		{jan31, "P1M", 3, date(2024, 4, 30, 0, 0, 0, 0)},
		{jan31, "P1M", 13, date(2025, 2, 28, 0, 0, 0, 0)},
		{jan31, "P1M", -1, date(2023, 12, 31, 0, 0, 0, 0)},
		{jan31, "P1M", -2, date(2023, 11, 30, 0, 0, 0, 0)},
		{jan31, "P1M", -11, date(2023, 2, 28, 0, 0, 0, 0)},
		{jan31, "P1M", -23, date(2022, 2, 28, 0, 0, 0, 0)},
		{jan31, "P3M", 1, date(2024, 4, 30, 0, 0, 0, 0)},
		{jan31, "-P1M", 1, date(2023, 12, 31, 0, 0, 0, 0)},
		{jan31, "-P1M", -1, date(2024, 2, 29, 0, 0, 0, 0)},
		{date(2023, 1, 31, 0, 0, 0, 0), "P1M", 1, date(2023, 2, 28, 0, 0, 0, 0)},
		{date(2024, 2, 29, 0, 0, 0, 0), "P1Y", 1, date(2025, 2, 28, 0, 0, 0, 0)},
		{date(2024, 2, 29, 0, 0, 0, 0), "P4Y", 1, date(2028, 2, 29, 0, 0, 0, 0)},
		{date(2024, 2, 29, 0, 0, 0, 0), "P1Y", 4, date(2028, 2, 29, 0, 0, 0, 0)},
		{date(2024, 2, 29, 0, 0, 0, 0), "P1Y", -1, date(2023, 2, 28, 0, 0, 0, 0)},
		{date(2024, 2, 29, 0, 0, 0, 0), "P1Y", -4, date(2020, 2, 29, 0, 0, 0, 0)},
		{date(2000, 2, 29, 0, 0, 0, 0), "P100Y", 1, date(2100, 2, 28, 0, 0, 0, 0)},
		{date(2000, 2, 29, 0, 0, 0, 0), "P400Y", 1, date(2400, 2, 29, 0, 0, 0, 0)},
		// time of day is kept, including sub-second parts
		{date(2024, 1, 31, 13, 45, 7, 123456789), "P1M", 1, date(2024, 2, 29, 13, 45, 7, 123456789)},
		{date(2024, 12, 15, 6, 0, 0, 0), "P1M", 1, date(2025, 1, 15, 6, 0, 0, 0)},
		{date(2024, 12, 15, 6, 0, 0, 0), "P18M", 1, date(2026, 6, 15, 6, 0, 0, 0)},
		// fixed
		{date(2024, 1, 1, 0, 0, 0, 0), "PT1H", 5, date(2024, 1, 1, 5, 0, 0, 0)},
		{date(2024, 1, 1, 0, 0, 0, 0), "PT1H", -1, date(2023, 12, 31, 23, 0, 0, 0)},
		{date(2024, 1, 1, 0, 0, 0, 0), "PT15M", 96, date(2024, 1, 2, 0, 0, 0, 0)},
		{date(2024, 1, 1, 0, 0, 0, 0), "P1D", 60, date(2024, 3, 1, 0, 0, 0, 0)},
		{date(2024, 1, 1, 0, 0, 0, 0), "PT0.001S", -1, date(2023, 12, 31, 23, 59, 59, 999000000)},
		{date(2024, 1, 1, 0, 0, 0, 500), "PT1.5S", -3, date(2023, 12, 31, 23, 59, 55, 500000500)},
		{date(2024, 1, 1, 0, 0, 0, 0), "-PT1H", 2, date(2023, 12, 31, 22, 0, 0, 0)},
		{date(2024, 1, 1, 0, 0, 0, 0), "PT0S", 1000, date(2024, 1, 1, 0, 0, 0, 0)},
		// beyond time.Duration's ±292 years
		{date(2024, 1, 1, 0, 0, 0, 0), "P1D", 365 * 1000, date(3023, 5, 4, 0, 0, 0, 0)},
		{date(2024, 1, 1, 0, 0, 0, 0), "P1D", -365 * 1000, date(1024, 8, 31, 0, 0, 0, 0)},
		// the edges of the representable range
		{date(9999, 12, 1, 0, 0, 0, 0), "P1M", 0, date(9999, 12, 1, 0, 0, 0, 0)},
		{date(1, 1, 31, 0, 0, 0, 0), "P1M", -12, date(0, 1, 31, 0, 0, 0, 0)},
		{date(9999, 12, 31, 0, 0, 0, 0), "PT1H", 23, date(9999, 12, 31, 23, 0, 0, 0)},
		{date(0, 1, 1, 1, 0, 0, 0), "PT1H", -1, date(0, 1, 1, 0, 0, 0, 0)},
	}
	for _, tt := range tests {
		got, err := MustParsePeriod(tt.p).Step(tt.t0, tt.i)
		if err != nil {
			t.Errorf("%s.Step(%s, %d): %v", tt.p, FormatTimestampZ(tt.t0), tt.i, err)
			continue
		}
		if !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("%s.Step(%s, %d) = %s, want %s", tt.p, FormatTimestampZ(tt.t0), tt.i, FormatTimestampZ(got), FormatTimestampZ(tt.want))
		}
	}
}

func TestStepNonUTCOrigin(t *testing.T) {
	// 2024-01-31T23:30-05:00 is 2024-02-01T04:30Z: clamping uses the UTC date.
	est := time.FixedZone("EST", -5*3600)
	got, err := MustParsePeriod("P1M").Step(time.Date(2024, 1, 31, 23, 30, 0, 0, est), 1)
	if err != nil || !got.Equal(date(2024, 3, 1, 4, 30, 0, 0)) {
		t.Errorf("Step from EST = %v, %v", got, err)
	}
}

func TestStepErrors(t *testing.T) {
	t0 := date(2024, 1, 1, 0, 0, 0, 0)
	tests := []struct {
		t0 time.Time
		p  Period
		i  int64
	}{
		{t0, FixedMillis(math.MaxInt64), 2},
		{t0, FixedMillis(math.MinInt64), -1},
		{t0, FixedMillis(math.MaxInt64), 1},
		{t0, MustParsePeriod("PT1H"), math.MaxInt64},
		{t0, MustParsePeriod("PT1H"), math.MinInt64},
		{t0, MustParsePeriod("P1D"), 366 * 8000},
		{t0, MustParsePeriod("P1M"), math.MaxInt64},
		{t0, MustParsePeriod("P1M"), math.MinInt64},
		{t0, CalendarMonths(math.MaxInt64), 1},
		{t0, CalendarMonths(math.MinInt64), 1},
		{t0, MustParsePeriod("P1Y"), 8000},
		{t0, MustParsePeriod("P1Y"), -2025},
		{date(9999, 12, 31, 23, 0, 0, 0), MustParsePeriod("PT1H"), 1},
		{date(0, 1, 1, 0, 0, 0, 0), MustParsePeriod("PT0.001S"), -1},
		{date(9999, 12, 1, 0, 0, 0, 0), MustParsePeriod("P1M"), 1},
		{date(10000, 1, 1, 0, 0, 0, 0), MustParsePeriod("PT1H"), -1},
		{date(-1, 12, 31, 0, 0, 0, 0), MustParsePeriod("P1D"), 1},
	}
	for _, tt := range tests {
		if got, err := tt.p.Step(tt.t0, tt.i); err == nil {
			t.Errorf("%s.Step(%v, %d) = %v, want error", tt.p, tt.t0, tt.i, got)
		}
	}
}

type stepsCase struct {
	p           string
	t0, t       time.Time
	floor, ceil int64
	exact       bool
}

func checkSteps(t *testing.T, tt stepsCase) {
	t.Helper()
	p := MustParsePeriod(tt.p)
	f, err := p.StepsFloor(tt.t0, tt.t)
	if err != nil || f != tt.floor {
		t.Errorf("%s.StepsFloor(%s, %s) = %d, %v; want %d", tt.p, FormatTimestampZ(tt.t0), FormatTimestampZ(tt.t), f, err, tt.floor)
	}
	c, err := p.StepsCeil(tt.t0, tt.t)
	if err != nil || c != tt.ceil {
		t.Errorf("%s.StepsCeil(%s, %s) = %d, %v; want %d", tt.p, FormatTimestampZ(tt.t0), FormatTimestampZ(tt.t), c, err, tt.ceil)
	}
	e, ok, err := p.StepsExact(tt.t0, tt.t)
	wantE := int64(0)
	if tt.exact {
		wantE = tt.floor
	}
	if err != nil || ok != tt.exact || e != wantE {
		t.Errorf("%s.StepsExact(%s, %s) = %d, %v, %v; want %d, %v", tt.p, FormatTimestampZ(tt.t0), FormatTimestampZ(tt.t), e, ok, err, wantE, tt.exact)
	}
}

func TestStepsFixed(t *testing.T) {
	t0 := date(2024, 1, 1, 0, 0, 0, 0)
	for _, tt := range []stepsCase{
		{"PT1H", t0, t0, 0, 0, true},
		{"PT1H", t0, date(2024, 1, 1, 5, 0, 0, 0), 5, 5, true},
		{"PT1H", t0, date(2024, 1, 1, 5, 30, 0, 0), 5, 6, false},
		{"PT1H", t0, date(2024, 1, 1, 1, 0, 0, 1), 1, 2, false},
		{"PT1H", t0, date(2024, 1, 1, 0, 59, 59, 999999999), 0, 1, false},
		{"PT1H", t0, date(2023, 12, 31, 23, 59, 59, 999999999), -1, 0, false},
		{"PT1H", t0, date(2023, 12, 31, 23, 30, 0, 0), -1, 0, false},
		{"PT1H", t0, date(2023, 12, 31, 23, 0, 0, 0), -1, -1, true},
		{"PT1H", t0, date(2023, 12, 31, 22, 59, 0, 0), -2, -1, false},
		{"PT15M", t0, date(2024, 1, 2, 0, 0, 0, 0), 96, 96, true},
		{"PT0.001S", t0, date(2024, 1, 1, 0, 0, 0, 999999), 0, 1, false},
		{"PT0.001S", t0, date(2023, 12, 31, 23, 59, 59, 999999999), -1, 0, false},
		{"PT0.001S", t0, date(2023, 12, 31, 23, 59, 59, 999000000), -1, -1, true},
		{"PT1.5S", t0, date(2024, 1, 1, 0, 0, 3, 0), 2, 2, true},
		{"PT1.5S", t0, date(2023, 12, 31, 23, 59, 57, 0), -2, -2, true},
		{"PT1.5S", t0, date(2023, 12, 31, 23, 59, 57, 1), -2, -1, false},
		{"P7D", t0, date(2024, 2, 5, 0, 0, 0, 0), 5, 5, true},
		{"P1D", t0, date(3023, 5, 4, 0, 0, 0, 0), 365000, 365000, true},
		{"P1D", t0, date(1024, 8, 31, 0, 0, 0, 0), -365000, -365000, true},
		{"P1D", date(9999, 12, 31, 23, 59, 59, 999999999), date(0, 1, 1, 0, 0, 0, 0), -3652425, -3652424, false},
		{"PT1H", t0, date(2024, 1, 1, 2, 0, 0, 0).In(time.FixedZone("X", 2*3600)), 2, 2, true},
		// sub-millisecond origin: only instants with the same sub-ms part are on the grid
		{"PT1H", date(2024, 1, 1, 0, 0, 0, 500), date(2024, 1, 1, 2, 0, 0, 500), 2, 2, true},
		{"PT1H", date(2024, 1, 1, 0, 0, 0, 500), date(2024, 1, 1, 2, 0, 0, 499), 1, 2, false},
		{"PT1H", date(2024, 1, 1, 0, 0, 0, 500), date(2023, 12, 31, 23, 0, 0, 500), -1, -1, true},
		{"PT1H", date(2024, 1, 1, 0, 0, 0, 500), date(2023, 12, 31, 23, 0, 0, 501), -1, 0, false},
		{"PT1H", date(2024, 1, 1, 0, 0, 0, 500), date(2023, 12, 31, 23, 0, 0, 499), -2, -1, false},
	} {
		checkSteps(t, tt)
	}
}

func TestStepsCalendar(t *testing.T) {
	jan31 := date(2024, 1, 31, 0, 0, 0, 0)
	for _, tt := range []stepsCase{
		{"P1M", jan31, jan31, 0, 0, true},
		{"P1M", jan31, date(2024, 2, 1, 0, 0, 0, 0), 0, 1, false},
		{"P1M", jan31, date(2024, 2, 29, 0, 0, 0, 0), 1, 1, true},
		{"P1M", jan31, date(2024, 3, 30, 0, 0, 0, 0), 1, 2, false},
		{"P1M", jan31, date(2024, 3, 31, 0, 0, 0, 0), 2, 2, true},
		{"P1M", jan31, date(2024, 3, 31, 0, 0, 0, 1), 2, 3, false},
		{"P1M", jan31, date(2025, 2, 28, 0, 0, 0, 0), 13, 13, true},
		{"P1M", jan31, date(2023, 12, 31, 0, 0, 0, 0), -1, -1, true},
		{"P1M", jan31, date(2023, 12, 30, 0, 0, 0, 0), -2, -1, false},
		{"P1M", jan31, date(2023, 11, 30, 0, 0, 0, 0), -2, -2, true},
		{"P1M", jan31, date(2024, 1, 30, 23, 59, 59, 999999999), -1, 0, false},
		{"P3M", jan31, date(2024, 4, 30, 0, 0, 0, 0), 1, 1, true},
		{"P3M", jan31, date(2024, 5, 1, 0, 0, 0, 0), 1, 2, false},
		{"P3M", jan31, date(2024, 4, 29, 0, 0, 0, 0), 0, 1, false},
		{"P3M", jan31, date(2023, 12, 1, 0, 0, 0, 0), -1, 0, false},
		{"P3M", jan31, date(2023, 10, 31, 0, 0, 0, 0), -1, -1, true},
		{"P3M", jan31, date(2023, 10, 30, 0, 0, 0, 0), -2, -1, false},
		{"P1Y", date(2024, 2, 29, 0, 0, 0, 0), date(2025, 2, 28, 0, 0, 0, 0), 1, 1, true},
		{"P1Y", date(2024, 2, 29, 0, 0, 0, 0), date(2025, 3, 1, 0, 0, 0, 0), 1, 2, false},
		{"P1Y", date(2024, 2, 29, 0, 0, 0, 0), date(2028, 2, 28, 0, 0, 0, 0), 3, 4, false},
		{"P1Y", date(2024, 2, 29, 0, 0, 0, 0), date(2028, 2, 29, 0, 0, 0, 0), 4, 4, true},
		{"P1Y", date(2024, 2, 29, 0, 0, 0, 0), date(2023, 2, 28, 12, 0, 0, 0), -1, 0, false},
		// time of day
		{"P1M", date(2024, 1, 31, 12, 0, 0, 0), date(2024, 2, 29, 11, 59, 59, 999999999), 0, 1, false},
		{"P1M", date(2024, 1, 31, 12, 0, 0, 0), date(2024, 2, 29, 12, 0, 0, 0), 1, 1, true},
		{"P1M", date(2024, 1, 15, 12, 0, 0, 0), date(2024, 1, 15, 11, 0, 0, 0), -1, 0, false},
		// huge periods and the range edges
		{"P1000Y", date(2024, 1, 1, 0, 0, 0, 0), date(24, 6, 1, 0, 0, 0, 0), -2, -1, false},
		{"P10Y", date(5, 6, 1, 0, 0, 0, 0), date(0, 2, 1, 0, 0, 0, 0), -1, 0, false},
		{"P9223372036854775807M", date(2024, 1, 1, 0, 0, 0, 0), date(2023, 1, 1, 0, 0, 0, 0), -1, 0, false},
		{"P9223372036854775807M", date(2024, 1, 1, 0, 0, 0, 0), date(9999, 1, 1, 0, 0, 0, 0), 0, 1, false},
		{"P1M", date(0, 1, 31, 0, 0, 0, 0), date(9999, 12, 31, 0, 0, 0, 0), 119999, 119999, true},
		{"P1M", date(9999, 12, 31, 0, 0, 0, 0), date(0, 1, 31, 0, 0, 0, 0), -119999, -119999, true},
		{"P1M", date(9999, 12, 31, 0, 0, 0, 0), date(0, 1, 1, 0, 0, 0, 0), -120000, -119999, false},
	} {
		checkSteps(t, tt)
	}
}

// TestStepsAgainstStep cross-checks Floor/Ceil/Exact against a brute-force
// scan of Step, around every grid point and between them.
func TestStepsAgainstStep(t *testing.T) {
	origins := []time.Time{
		date(2024, 1, 31, 0, 0, 0, 0),
		date(2024, 2, 29, 12, 30, 0, 0),
		date(2023, 3, 30, 23, 59, 59, 999999999),
		date(2024, 8, 31, 6, 0, 0, 500),
		date(2000, 1, 1, 0, 0, 0, 0),
		date(2024, 1, 28, 0, 0, 0, 0),
	}
	periods := []string{"P1M", "P2M", "P3M", "P5M", "P1Y", "P18M", "PT1H", "PT1.5S", "P1D", "P7D", "PT0.001S", "PT17M"}
	const n = 40
	for _, ps := range periods {
		p := MustParsePeriod(ps)
		for _, t0 := range origins {
			grid := make([]time.Time, 0, 2*n+1)
			for i := int64(-n); i <= n; i++ {
				g, err := p.Step(t0, i)
				if err != nil {
					t.Fatal(err)
				}
				if len(grid) > 0 && !g.After(grid[len(grid)-1]) {
					t.Fatalf("%s from %v: step %d not after step %d", ps, t0, i, i-1)
				}
				grid = append(grid, g)
			}
			brute := func(x time.Time) (floor, ceil int64, exact bool) {
				floor, ceil = math.MinInt64, math.MaxInt64
				for k, g := range grid {
					i := int64(k) - n
					if !g.After(x) {
						floor = i
					}
					if !g.Before(x) && ceil == math.MaxInt64 {
						ceil = i
					}
					if g.Equal(x) {
						exact = true
					}
				}
				return
			}
			for k := 1; k < len(grid)-1; k++ {
				g := grid[k]
				for _, d := range []time.Duration{0, 1, -1, time.Millisecond, -time.Millisecond, time.Hour, -time.Hour, 24 * time.Hour, -24 * time.Hour} {
					x := g.Add(d)
					if x.Before(grid[1]) || x.After(grid[len(grid)-2]) {
						continue
					}
					f, c, e := brute(x)
					checkSteps(t, stepsCase{ps, t0, x, f, c, e})
				}
			}
		}
	}
}

func TestStepsErrors(t *testing.T) {
	t0 := date(2024, 1, 1, 0, 0, 0, 0)
	for _, tt := range []struct {
		p     string
		t0, t time.Time
	}{
		{"PT0S", t0, t0},
		{"-PT1H", t0, t0},
		{"-P1M", t0, t0},
		{"PT1H", t0, date(10000, 1, 1, 0, 0, 0, 0)},
		{"PT1H", date(-1, 1, 1, 0, 0, 0, 0), t0},
		{"P1M", t0, date(-1, 12, 31, 0, 0, 0, 0)},
		{"P1M", date(10000, 1, 1, 0, 0, 0, 0), t0},
	} {
		p := MustParsePeriod(tt.p)
		if _, err := p.StepsFloor(tt.t0, tt.t); err == nil {
			t.Errorf("%s.StepsFloor(%v, %v): want error", tt.p, tt.t0, tt.t)
		}
		if _, err := p.StepsCeil(tt.t0, tt.t); err == nil {
			t.Errorf("%s.StepsCeil(%v, %v): want error", tt.p, tt.t0, tt.t)
		}
		if _, ok, err := p.StepsExact(tt.t0, tt.t); err == nil || ok {
			t.Errorf("%s.StepsExact(%v, %v): want error", tt.p, tt.t0, tt.t)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2024-01-01T00:00:00Z", date(2024, 1, 1, 0, 0, 0, 0)},
		{"2024-01-01T00:00:00+00:00", date(2024, 1, 1, 0, 0, 0, 0)},
		{"2024-01-01T00:00:00-00:00", date(2024, 1, 1, 0, 0, 0, 0)},
		{"2024-01-01T07:30:00Z", date(2024, 1, 1, 7, 30, 0, 0)},
		{"2024-02-01T00:00:00.500+00:00", date(2024, 2, 1, 0, 0, 0, 500000000)},
		{"2024-02-01T00:00:00.500Z", date(2024, 2, 1, 0, 0, 0, 500000000)},
		{"2024-01-01T02:00:00+02:00", date(2024, 1, 1, 0, 0, 0, 0)},
		{"2024-01-01T01:00:00+02:00", date(2023, 12, 31, 23, 0, 0, 0)},
		{"2024-01-01T00:00:00-05:30", date(2024, 1, 1, 5, 30, 0, 0)},
		{"2024-12-31T23:00:00-05:30", date(2025, 1, 1, 4, 30, 0, 0)},
		{"2024-01-01T00:00:00+23:59", date(2023, 12, 31, 0, 1, 0, 0)},
		{"2024-01-01t00:00:00z", date(2024, 1, 1, 0, 0, 0, 0)},
		{"2024-01-01 00:00:00Z", date(2024, 1, 1, 0, 0, 0, 0)},
		{"2024-02-29T12:00:00Z", date(2024, 2, 29, 12, 0, 0, 0)},
		{"2024-01-01T00:00:00.5Z", date(2024, 1, 1, 0, 0, 0, 500000000)},
		{"2024-01-01T00:00:00.12Z", date(2024, 1, 1, 0, 0, 0, 120000000)},
		{"2024-01-01T00:00:00.123Z", date(2024, 1, 1, 0, 0, 0, 123000000)},
		{"2024-01-01T00:00:00.1234Z", date(2024, 1, 1, 0, 0, 0, 123400000)},
		{"2024-01-01T00:00:00.12345Z", date(2024, 1, 1, 0, 0, 0, 123450000)},
		{"2024-01-01T00:00:00.123456Z", date(2024, 1, 1, 0, 0, 0, 123456000)},
		{"2024-01-01T00:00:00.1234567Z", date(2024, 1, 1, 0, 0, 0, 123456700)},
		{"2024-01-01T00:00:00.12345678Z", date(2024, 1, 1, 0, 0, 0, 123456780)},
		{"2024-01-01T00:00:00.123456789Z", date(2024, 1, 1, 0, 0, 0, 123456789)},
		{"2024-01-01T00:00:00.000000001+01:00", date(2023, 12, 31, 23, 0, 0, 1)},
		{"0000-01-01T00:00:00Z", date(0, 1, 1, 0, 0, 0, 0)},
		{"9999-12-31T23:59:59.999999999Z", date(9999, 12, 31, 23, 59, 59, 999999999)},
		{"0000-01-01T00:30:00+00:30", date(0, 1, 1, 0, 0, 0, 0)},
	}
	for _, tt := range tests {
		got, err := ParseTimestamp(tt.in)
		if err != nil {
			t.Errorf("ParseTimestamp(%q): %v", tt.in, err)
			continue
		}
		if !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseTimestamp(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseTimestampErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"2024-01-01",
		"2024-01-01T00:00:00",
		"2024-01-01T00:00Z",
		"2024-01-01T00:00:00+0000",
		"2024-01-01T00:00:00+00",
		"2024-01-01T00:00:00 Z",
		"2024-01-01T00:00:00ZZ",
		"2024-01-01T00:00:00.Z",
		"2024-01-01T00:00:00.1234567890Z",
		"2024-01-01T00:00:00,5Z",
		"2024-13-01T00:00:00Z",
		"2024-00-01T00:00:00Z",
		"2024-02-30T00:00:00Z",
		"2023-02-29T00:00:00Z",
		"2024-01-00T00:00:00Z",
		"2024-01-01T24:00:00Z",
		"2024-01-01T00:60:00Z",
		"2024-12-31T23:59:60Z",
		"2024-01-01T00:00:61Z",
		"2024-01-01T00:00:00+24:00",
		"2024-01-01T00:00:00+01:60",
		"2024-01-01X00:00:00Z",
		"2024/01/01T00:00:00Z",
		"+024-01-01T00:00:00Z",
		"2024-1-01T00:00:00Z",
		"20240101T000000Z",
		"0000-01-01T00:00:00+00:01",
		"9999-12-31T23:59:59-00:01",
		"2024-01-01T00:00:00+1:00",
		"2024-01-01T00:00:00+01:0a",
	} {
		got, err := ParseTimestamp(in)
		if err == nil {
			t.Errorf("ParseTimestamp(%q) = %v, want error", in, got)
			continue
		}
		if !strings.Contains(err.Error(), `"`+in+`"`) {
			t.Errorf("ParseTimestamp(%q) error %q does not name the input", in, err)
		}
	}
}

func TestFormatTimestamp(t *testing.T) {
	tests := []struct {
		t          time.Time
		plus, zulu string
	}{
		{date(2024, 1, 1, 0, 0, 0, 0), "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:00Z"},
		{date(2024, 1, 1, 7, 30, 0, 0), "2024-01-01T07:30:00+00:00", "2024-01-01T07:30:00Z"},
		{date(2024, 2, 1, 0, 0, 0, 500000000), "2024-02-01T00:00:00.500+00:00", "2024-02-01T00:00:00.500Z"},
		{date(2024, 2, 1, 0, 0, 0, 120000000), "2024-02-01T00:00:00.120+00:00", "2024-02-01T00:00:00.120Z"},
		{date(2024, 2, 1, 0, 0, 0, 1000000), "2024-02-01T00:00:00.001+00:00", "2024-02-01T00:00:00.001Z"},
		{date(2024, 2, 1, 0, 0, 0, 1000), "2024-02-01T00:00:00.000001+00:00", "2024-02-01T00:00:00.000001Z"},
		{date(2024, 2, 1, 0, 0, 0, 1500000), "2024-02-01T00:00:00.001500+00:00", "2024-02-01T00:00:00.001500Z"},
		{date(2024, 2, 1, 0, 0, 0, 1), "2024-02-01T00:00:00.000000001+00:00", "2024-02-01T00:00:00.000000001Z"},
		{date(2024, 2, 1, 0, 0, 0, 123456789), "2024-02-01T00:00:00.123456789+00:00", "2024-02-01T00:00:00.123456789Z"},
		{date(999, 12, 31, 23, 59, 59, 0), "0999-12-31T23:59:59+00:00", "0999-12-31T23:59:59Z"},
		{date(0, 1, 1, 0, 0, 0, 0), "0000-01-01T00:00:00+00:00", "0000-01-01T00:00:00Z"},
		{time.Date(2024, 1, 1, 2, 0, 0, 0, time.FixedZone("X", 2*3600)), "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		if got := FormatTimestamp(tt.t); got != tt.plus {
			t.Errorf("FormatTimestamp(%v) = %q, want %q", tt.t, got, tt.plus)
		}
		if got := FormatTimestampZ(tt.t); got != tt.zulu {
			t.Errorf("FormatTimestampZ(%v) = %q, want %q", tt.t, got, tt.zulu)
		}
		for _, s := range []string{tt.plus, tt.zulu} {
			back, err := ParseTimestamp(s)
			if err != nil || !back.Equal(tt.t) {
				t.Errorf("ParseTimestamp(%q) = %v, %v; want %v", s, back, err, tt.t)
			}
		}
	}
}

func TestUnixMillis(t *testing.T) {
	tests := []struct {
		t  time.Time
		ms int64
	}{
		{date(1970, 1, 1, 0, 0, 0, 0), 0},
		{date(2024, 1, 1, 0, 0, 0, 0), 1704067200000},
		{date(2024, 1, 1, 0, 0, 0, 999999), 1704067200000},
		{date(1969, 12, 31, 23, 59, 59, 999999999), -1},
		{date(1969, 12, 31, 23, 59, 59, 999000000), -1},
		{date(1969, 12, 31, 23, 59, 59, 998999999), -2},
		{date(1969, 12, 31, 23, 59, 59, 0), -1000},
		{date(1900, 1, 1, 0, 0, 0, 0), -2208988800000},
	}
	for _, tt := range tests {
		if got := ToUnixMillis(tt.t); got != tt.ms {
			t.Errorf("ToUnixMillis(%v) = %d, want %d", tt.t, got, tt.ms)
		}
		want := tt.t.Truncate(0).Add(-time.Duration(tt.t.Nanosecond() % 1e6))
		if got := UnixMillis(tt.ms); !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("UnixMillis(%d) = %v, want %v", tt.ms, got, want)
		}
	}
}

var periodSeeds = []string{
	"PT1H", "PT15M", "PT1H30M", "P1D", "P1DT6H", "PT1.5S", "PT0S", "P7D",
	"P3M", "P1Y", "P18M", "-PT1H", "P1W", "PT60M", "P12M", "PT36H",
	"PT0.001S", "PT1.500S", "P1Y6M", "P24M", "P0D", "P0M", "P0Y", "P1DT0.5H",
	"P0.5Y", "P0.5M", "P", "PT", "", "P1M1D", "P1YT1H", "PT1.0001S", "1H",
	"PT1H30", "P-1D", "p1d", "PT1.5H30M", "PT99999999999999999999H",
	"PT9223372036854775.807S", "-PT9223372036854775.808S", "-P9223372036854775808M",
	"P1W1D", "PT1,5S", "-P1Y6M", "P1DT1H1M1.001S",
}

func FuzzParsePeriod(f *testing.F) {
	for _, s := range periodSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePeriod(s)
		if err != nil {
			if !strings.Contains(err.Error(), "isotime: invalid period") {
				t.Fatalf("ParsePeriod(%q) error %q lacks the usual prefix", s, err)
			}
			return
		}
		if p.IsCalendar() && (p.Months() == 0 || p.Millis() != 0) || !p.IsCalendar() && p.Months() != 0 {
			t.Fatalf("ParsePeriod(%q) broke the kind invariant: %#v", s, p)
		}
		c := p.String()
		q, err := ParsePeriod(c)
		if err != nil {
			t.Fatalf("ParsePeriod(%q) = %q which does not re-parse: %v", s, c, err)
		}
		if !q.Equal(p) {
			t.Fatalf("ParsePeriod(%q) = %#v, but its String %q parses to %#v", s, p, c, q)
		}
		if q.String() != c {
			t.Fatalf("String is not a fixed point: %q -> %q -> %q", s, c, q.String())
		}
	})
}

// The common periods are spelled without an allocation, as the general spelling spells them;
// others are spelled afresh.
func TestCommonPeriodsSpellWithoutAllocating(t *testing.T) {
	for p, want := range commonText {
		if got := p.spell(); got != want {
			t.Errorf("%+v: kept as %q, spelled %q", p, want, got)
		}
	}
	hour := FixedMillis(msPerHour)
	if n := testing.AllocsPerRun(100, func() { _ = hour.String() }); n != 0 {
		t.Errorf("PT1H allocates %v times a spelling", n)
	}
	if got := FixedMillis(msPerHour + 1).String(); got != "PT1H0.001S" {
		t.Errorf("an uncommon period spells %q", got)
	}
}
