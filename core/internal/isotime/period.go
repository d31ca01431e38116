package isotime

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"time"
)

// Kind says whether a Period is a fixed span of time or a number of months.
// The two are kept apart because a month has no fixed length: P1M and PT720H
// put grid points at different instants and so must never compare equal.
type Kind uint8

const (
	// Fixed is the zero Kind so that the zero Period is PT0S.
	Fixed Kind = iota
	Calendar
)

func (k Kind) String() string {
	switch k {
	case Fixed:
		return "fixed"
	case Calendar:
		return "calendar"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

const (
	msPerSecond = 1000
	msPerMinute = 60 * msPerSecond
	msPerHour   = 60 * msPerMinute
	msPerDay    = 24 * msPerHour // instants are UTC, so there are no 23- or 25-hour days
	msPerWeek   = 7 * msPerDay
)

// Period is a resolution, horizon or interval. The zero value is PT0S.
//
// Invariants, which make == a correct equality test: a Fixed period has
// months == 0; a Calendar period has millis == 0 and months != 0 (a zero
// calendar span is normalised to the fixed zero, see CalendarMonths).
type Period struct {
	kind   Kind
	months int64
	millis int64
}

// FixedMillis returns the fixed period of ms milliseconds.
func FixedMillis(ms int64) Period { return Period{kind: Fixed, millis: ms} }

// CalendarMonths returns the calendar period of n months. n == 0 gives PT0S:
// a zero span has no calendar meaning (it never moves a date, whatever the
// month lengths), and it is never a valid resolution anyway, so giving it a
// single representation keeps "P0M", "P0Y" and "PT0S" equal (docs/format.md §13.2).
func CalendarMonths(n int64) Period {
	if n == 0 {
		return Period{}
	}
	return Period{kind: Calendar, months: n}
}

// MustParsePeriod is ParsePeriod for constants and tests; it panics on error.
func MustParsePeriod(s string) Period {
	p, err := ParsePeriod(s)
	if err != nil {
		panic(err)
	}
	return p
}

func (p Period) Kind() Kind       { return p.kind }
func (p Period) IsCalendar() bool { return p.kind == Calendar }

// Millis is the length of a fixed period; 0 for a calendar one, whose length
// depends on where it is applied.
func (p Period) Millis() int64 { return p.millis }

// Months is the length of a calendar period; 0 for a fixed one.
func (p Period) Months() int64 { return p.months }

func (p Period) IsZero() bool { return p == Period{} }

// IsPositive reports whether p can serve as a resolution, horizon or
// interval; ParsePeriod accepts negative and zero periods, so callers check.
func (p Period) IsPositive() bool { return p.millis > 0 || p.months > 0 }

func (p Period) Equal(q Period) bool { return p == q }

// String returns the canonical spelling (docs/format.md §5.1), the form that
// goes into uniqueness keys and dataset names.
func (p Period) String() string {
	if s, ok := commonText[p]; ok {
		return s
	}
	return p.spell()
}

// commonText holds the spelling of the periods power-system series mostly use, made once:
// a bulk read spells the resolution of every key it looks up, and an allocation each was a
// twentieth of the objects a first read of 10,000 series made.
var commonText = func() map[Period]string {
	m := map[Period]string{}
	for _, minutes := range []int64{1, 5, 10, 15, 30, 60, 120, 180, 240, 360, 720, 1440, 7 * 1440} {
		p := FixedMillis(minutes * msPerMinute)
		m[p] = p.spell()
	}
	for _, months := range []int64{1, 3, 12} {
		p := Period{kind: Calendar, months: months}
		m[p] = p.spell()
	}
	return m
}()

// spell is String's work.
func (p Period) spell() string {
	b := make([]byte, 0, 32)
	if p.kind == Calendar {
		neg, n := magnitude(p.months)
		if neg {
			b = append(b, '-')
		}
		b = append(b, 'P')
		if n%12 == 0 {
			b = strconv.AppendUint(b, n/12, 10)
			return string(append(b, 'Y'))
		}
		b = strconv.AppendUint(b, n, 10)
		return string(append(b, 'M'))
	}
	if p.millis == 0 {
		return "PT0S"
	}
	neg, ms := magnitude(p.millis)
	if neg {
		b = append(b, '-')
	}
	b = append(b, 'P')
	if d := ms / msPerDay; d > 0 {
		b = strconv.AppendUint(b, d, 10)
		b = append(b, 'D')
	}
	ms %= msPerDay
	if ms == 0 {
		return string(b)
	}
	b = append(b, 'T')
	if h := ms / msPerHour; h > 0 {
		b = strconv.AppendUint(b, h, 10)
		b = append(b, 'H')
	}
	ms %= msPerHour
	if m := ms / msPerMinute; m > 0 {
		b = strconv.AppendUint(b, m, 10)
		b = append(b, 'M')
	}
	ms %= msPerMinute
	if ms > 0 {
		b = strconv.AppendUint(b, ms/msPerSecond, 10)
		if frac := ms % msPerSecond; frac > 0 {
			b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
			for b[len(b)-1] == '0' {
				b = b[:len(b)-1]
			}
		}
		b = append(b, 'S')
	}
	return string(b)
}

// magnitude splits v into sign and absolute value; uint64 so that
// math.MinInt64 has one too.
func magnitude(v int64) (neg bool, abs uint64) {
	if v < 0 {
		return true, uint64(-v) // -MinInt64 wraps to itself, and uint64 of that is 1<<63
	}
	return false, uint64(v)
}

// unit is one ISO-8601 duration designator. order enforces the ISO sequence
// Y M W D T H M S, which also rules out repeats.
type unit struct {
	order    int
	calendar bool
	size     uint64 // months when calendar, else milliseconds
}

func lookupUnit(letter byte, inTime bool) (unit, bool) {
	if !inTime {
		switch letter {
		case 'Y':
			return unit{0, true, 12}, true
		case 'M':
			return unit{1, true, 1}, true
		case 'W':
			return unit{2, false, msPerWeek}, true
		case 'D':
			return unit{3, false, msPerDay}, true
		}
		return unit{}, false
	}
	switch letter {
	case 'H':
		return unit{4, false, msPerHour}, true
	case 'M':
		return unit{5, false, msPerMinute}, true
	case 'S':
		return unit{6, false, msPerSecond}, true
	}
	return unit{}, false
}

// ParsePeriod accepts any valid ISO-8601 duration with an optional leading
// '-' and returns it canonicalised, so that callers can compare and key on
// String() regardless of how the writer spelled it.
func ParsePeriod(s string) (Period, error) {
	p, why := parsePeriod(s)
	if why != "" {
		return Period{}, fmt.Errorf("isotime: invalid period %q: %s", s, why)
	}
	return p, nil
}

func parsePeriod(s string) (Period, string) {
	const lower = "lower-case designators are not allowed"
	rest := s
	neg := len(rest) > 0 && rest[0] == '-'
	if neg {
		rest = rest[1:]
	}
	switch {
	case rest == "":
		return Period{}, "empty duration"
	case rest[0] == 'p':
		return Period{}, lower
	case rest[0] != 'P':
		return Period{}, "a duration starts with P (a negative one with -P)"
	}
	rest = rest[1:]

	// One more than MaxInt64 is allowed when negative so that every int64,
	// including MinInt64, has a spelling that parses back.
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	var (
		total            uint64
		components       int
		last             = -1
		inTime, timeUnit bool
		sawCal, sawFixed bool
		afterFraction    bool
	)
	for len(rest) > 0 {
		c := rest[0]
		if c == 'T' {
			if inTime {
				return Period{}, "T appears twice"
			}
			inTime = true
			rest = rest[1:]
			continue
		}
		if c == 't' {
			return Period{}, lower
		}
		if afterFraction {
			return Period{}, "a fraction is allowed only on the last component"
		}
		i := 0
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		if i == 0 {
			switch {
			case c == '-' || c == '+':
				return Period{}, "components cannot be signed; write a negative period as -P…"
			case isLower(c):
				return Period{}, lower
			}
			return Period{}, fmt.Sprintf("expected a number at %q", rest)
		}
		intDigits, fracDigits := rest[:i], ""
		// ISO 8601 allows ',' as the decimal sign as well as '.'.
		if i < len(rest) && (rest[i] == '.' || rest[i] == ',') {
			j := i + 1
			for j < len(rest) && isDigit(rest[j]) {
				j++
			}
			fracDigits = rest[i+1 : j]
			switch {
			case fracDigits == "":
				return Period{}, "the decimal sign must be followed by digits"
			case len(fracDigits) > 3:
				return Period{}, "more than 3 fractional digits"
			}
			afterFraction = true
			i = j
		}
		if i == len(rest) {
			return Period{}, fmt.Sprintf("number %q has no unit designator", rest)
		}
		letter := rest[i]
		u, ok := lookupUnit(letter, inTime)
		if !ok {
			switch {
			case isLower(letter):
				return Period{}, lower
			case !inTime && (letter == 'H' || letter == 'S'):
				return Period{}, fmt.Sprintf("%c is a time unit and must come after T", letter)
			case inTime && (letter == 'Y' || letter == 'W' || letter == 'D'):
				return Period{}, fmt.Sprintf("%c is a date unit and must come before T", letter)
			}
			return Period{}, fmt.Sprintf("unknown designator %q", letter)
		}
		if u.order <= last {
			return Period{}, fmt.Sprintf("%c is repeated or out of order (the order is Y M W D T H M S)", letter)
		}
		last = u.order
		if u.calendar {
			sawCal = true
		} else {
			sawFixed = true
		}
		if sawCal && sawFixed {
			return Period{}, "mixes calendar units (Y, M before T) with fixed units (W, D, H, M after T, S)"
		}
		v, why := componentValue(intDigits, fracDigits, u)
		if why != "" {
			return Period{}, why
		}
		var carry uint64
		total, carry = bits.Add64(total, v, 0)
		if carry != 0 || total > limit {
			return Period{}, "out of range of int64 " + unitName(u)
		}
		components++
		timeUnit = timeUnit || inTime
		rest = rest[i+1:]
	}
	if inTime && !timeUnit {
		return Period{}, "T must be followed by at least one of H, M, S"
	}
	if components == 0 {
		return Period{}, "empty duration"
	}
	v := int64(total) // 1<<63 wraps to MinInt64, which negates to itself: still right
	if neg {
		v = -v
	}
	if sawCal {
		return CalendarMonths(v), ""
	}
	return FixedMillis(v), ""
}

// componentValue converts one "digits[.frac]" component to u's base unit,
// refusing anything that is not a whole number of it.
func componentValue(intDigits, fracDigits string, u unit) (uint64, string) {
	overflow := "out of range of int64 " + unitName(u)
	var n uint64
	for i := 0; i < len(intDigits); i++ {
		hi, lo := bits.Mul64(n, 10)
		if hi != 0 {
			return 0, overflow
		}
		var carry uint64
		n, carry = bits.Add64(lo, uint64(intDigits[i]-'0'), 0)
		if carry != 0 {
			return 0, overflow
		}
	}
	hi, v := bits.Mul64(n, u.size)
	if hi != 0 {
		return 0, overflow
	}
	if fracDigits == "" {
		return v, ""
	}
	var thousandths uint64
	for i := 0; i < 3; i++ {
		thousandths *= 10
		if i < len(fracDigits) {
			thousandths += uint64(fracDigits[i] - '0')
		}
	}
	f := thousandths * u.size // < 1000 * msPerWeek, no overflow
	if f%1000 != 0 {
		return 0, "the fraction is not a whole number of " + unitName(u)
	}
	v, carry := bits.Add64(v, f/1000, 0)
	if carry != 0 {
		return 0, overflow
	}
	return v, ""
}

func unitName(u unit) string {
	if u.calendar {
		return "months"
	}
	return "milliseconds"
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// Ratio returns n when p = n·q for a whole n >= 0. Periods of different
// kinds have no whole ratio (a month is not a whole number of hours), and q
// must be positive because it is the finer grid p is being expressed in.
func (p Period) Ratio(q Period) (int64, bool) {
	if p.kind != q.kind || !q.IsPositive() {
		return 0, false
	}
	a, b := p.millis, q.millis
	if p.kind == Calendar {
		a, b = p.months, q.months
	}
	if a < 0 || a%b != 0 {
		return 0, false
	}
	return a / b, true
}

// Step returns grid point i of a series starting at t0: t0 + i·p, computed in
// one jump so that calendar steps clamp to month ends relative to t0 rather
// than drifting (31 Jan, 29 Feb, 31 Mar — not 31 Jan, 29 Feb, 29 Mar).
func (p Period) Step(t0 time.Time, i int64) (time.Time, error) {
	t0 = t0.UTC()
	if !inRange(t0) {
		return time.Time{}, fmt.Errorf("isotime: step origin %s is outside years 0000–9999", t0)
	}
	outside := func() error {
		return fmt.Errorf("isotime: step %d of %s from %s is outside years 0000–9999", i, p, FormatTimestampZ(t0))
	}
	if p.kind == Calendar {
		y, m, d := t0.Date()
		delta, ok1 := mul64(i, p.months)
		idx, ok2 := add64(monthIndex(y, m), delta)
		if !ok1 || !ok2 || idx < 0 || idx > maxMonthIndex {
			return time.Time{}, outside()
		}
		ty, tm := int(idx/12), time.Month(idx%12+1)
		h, mi, s := t0.Clock()
		return time.Date(ty, tm, min(d, daysIn(ty, tm)), h, mi, s, t0.Nanosecond(), time.UTC), nil
	}
	off, ok := mul64(i, p.millis)
	// The span bound keeps addMillis's second arithmetic from overflowing.
	if !ok || off > maxSpanMillis || off < -maxSpanMillis {
		return time.Time{}, outside()
	}
	t := addMillis(t0, off)
	if !inRange(t) {
		return time.Time{}, outside()
	}
	return t, nil
}

// StepsFloor returns the largest i with Step(t0, i) <= t. The index itself may
// lie outside the representable range (e.g. just before year 0000).
func (p Period) StepsFloor(t0, t time.Time) (int64, error) {
	i, _, err := p.steps(t0, t)
	return i, err
}

// StepsCeil returns the smallest i with Step(t0, i) >= t.
func (p Period) StepsCeil(t0, t time.Time) (int64, error) {
	i, exact, err := p.steps(t0, t)
	if err != nil {
		return 0, err
	}
	if !exact {
		i++ // steps are strictly increasing, so the next one is the first >= t
	}
	return i, nil
}

// StepsExact returns the i with Step(t0, i) == t, or ok == false when t is
// not a grid point.
func (p Period) StepsExact(t0, t time.Time) (i int64, ok bool, err error) {
	i, exact, err := p.steps(t0, t)
	if err != nil || !exact {
		return 0, false, err
	}
	return i, true, nil
}

// steps returns the floor index of t on the grid (t0, p) and whether t lies
// exactly on it.
func (p Period) steps(t0, t time.Time) (int64, bool, error) {
	if !p.IsPositive() {
		return 0, false, fmt.Errorf("isotime: grid period %s must be positive", p)
	}
	t0, t = t0.UTC(), t.UTC()
	if !inRange(t0) {
		return 0, false, fmt.Errorf("isotime: grid origin %s is outside years 0000–9999", t0)
	}
	if !inRange(t) {
		return 0, false, fmt.Errorf("isotime: instant %s is outside years 0000–9999", t)
	}
	if p.kind == Fixed {
		// The difference is split into whole milliseconds and a sub-ms
		// remainder in [0, 1ms): 10,000 years of nanoseconds would overflow
		// int64, milliseconds do not. Because the period is a whole number of
		// ms, the remainder can never carry the floor past a grid point.
		dns := int64(t.Nanosecond() - t0.Nanosecond())
		dms := (t.Unix()-t0.Unix())*msPerSecond + floorDiv(dns, 1e6)
		sub := dns - floorDiv(dns, 1e6)*1e6
		i := floorDiv(dms, p.millis)
		return i, sub == 0 && dms-i*p.millis == 0, nil
	}

	// Estimate from the month difference alone: step i = floor(k/M) lands in
	// t's month or earlier, and step i+1 in a later month than t. So the only
	// correction needed is when step i is in t's month but, after clamping
	// and time of day, falls after t; then step i-1 is a whole period earlier
	// and certainly before t. i·M cannot overflow: it is a multiple of M in
	// (k−M, k] with |k| <= 120,000 months, so it is either small or exactly −M.
	y0, m0, d0 := t0.Date()
	y, m, _ := t.Date()
	tIdx := monthIndex(y, m)
	k := tIdx - monthIndex(y0, m0)
	i := floorDiv(k, p.months)
	if monthIndex(y0, m0)+i*p.months < tIdx {
		return i, false, nil
	}
	h, mi, s := t0.Clock()
	at := time.Date(y, m, min(d0, daysIn(y, m)), h, mi, s, t0.Nanosecond(), time.UTC)
	switch at.Compare(t) {
	case 0:
		return i, true, nil
	case -1:
		return i, false, nil
	}
	return i - 1, false, nil
}

var (
	minTime = time.Date(0, time.January, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, time.December, 31, 23, 59, 59, 999999999, time.UTC)
)

const (
	maxMonthIndex = 9999*12 + 11
	// Wider than the whole range, so any jump beyond it is out of range.
	maxSpanMillis = 10000 * 366 * msPerDay
)

func inRange(t time.Time) bool { return !t.Before(minTime) && !t.After(maxTime) }

func monthIndex(y int, m time.Month) int64 { return int64(y)*12 + int64(m) - 1 }

func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// addMillis adds off ms through Unix seconds rather than time.Duration,
// which only reaches ±292 years.
func addMillis(t time.Time, off int64) time.Time {
	sec := floorDiv(off, msPerSecond)
	ms := off - sec*msPerSecond
	return time.Unix(t.Unix()+sec, int64(t.Nanosecond())+ms*1e6).UTC()
}

// floorDiv rounds towards negative infinity, which grid indices need for
// instants before t0 (Go's / truncates towards zero).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if (c < 0) != ((a < 0) != (b < 0)) || c/b != a {
		return 0, false
	}
	return c, true
}

func add64(a, b int64) (int64, bool) {
	c := a + b
	if (b > 0 && c < a) || (b < 0 && c > a) {
		return 0, false
	}
	return c, true
}
