package isotime

import (
	"fmt"
	"time"
)

// ParseTimestamp accepts any RFC 3339 date-time (Z or a numeric offset,
// upper- or lower-case T and Z, up to 9 fractional digits) and returns the
// instant in UTC, so that differently spelled but equal instants compare
// equal. Leap seconds (:60) are refused: time.Time cannot represent them.
func ParseTimestamp(s string) (time.Time, error) {
	t, why := parseTimestamp(s)
	if why != "" {
		return time.Time{}, fmt.Errorf("isotime: invalid timestamp %q: %s", s, why)
	}
	return t, nil
}

func parseTimestamp(s string) (time.Time, string) {
	const shape = "want YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm)"
	if len(s) < len("2006-01-02T15:04:05Z") {
		return time.Time{}, "too short; " + shape
	}
	// RFC 3339 §5.6 lets applications use a space instead of T; readers
	// accept every RFC 3339 spelling, so it is allowed too.
	sep := s[10]
	if s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':' || (sep != 'T' && sep != 't' && sep != ' ') {
		return time.Time{}, shape
	}
	year, ok1 := atoi(s[0:4])
	month, ok2 := atoi(s[5:7])
	day, ok3 := atoi(s[8:10])
	hour, ok4 := atoi(s[11:13])
	minute, ok5 := atoi(s[14:16])
	sec, ok6 := atoi(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return time.Time{}, shape
	}
	switch {
	case month < 1 || month > 12:
		return time.Time{}, "month out of range"
	case day < 1 || day > daysIn(year, time.Month(month)):
		return time.Time{}, "day out of range for the month"
	case hour > 23:
		return time.Time{}, "hour out of range"
	case minute > 59:
		return time.Time{}, "minute out of range"
	case sec == 60:
		return time.Time{}, "leap seconds cannot be represented"
	case sec > 59:
		return time.Time{}, "second out of range"
	}

	rest := s[19:]
	nsec := 0
	if len(rest) > 0 && rest[0] == '.' {
		j := 1
		for j < len(rest) && isDigit(rest[j]) {
			j++
		}
		digits := rest[1:j]
		switch {
		case digits == "":
			return time.Time{}, "the decimal point must be followed by digits"
		case len(digits) > 9:
			return time.Time{}, "more than 9 fractional digits"
		}
		nsec, _ = atoi(digits)
		for n := len(digits); n < 9; n++ {
			nsec *= 10
		}
		rest = rest[j:]
	}

	offset := 0 // seconds east of UTC
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := atoi(rest[1:3])
		om, ok2 := atoi(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return time.Time{}, "offset out of range"
		}
		offset = oh*3600 + om*60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return time.Time{}, "missing or malformed offset; " + shape
	}

	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC).
		Add(-time.Duration(offset) * time.Second)
	if !inRange(t) {
		return time.Time{}, "in UTC the instant is outside years 0000–9999"
	}
	return t, ""
}

// atoi parses an unsigned run of ASCII digits; strconv.Atoi would also take
// signs, which RFC 3339 fields do not have.
func atoi(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}

// FormatTimestamp writes t in the initial_timestamp form:
// 2024-01-01T00:00:00+00:00, with the shortest exact fraction.
func FormatTimestamp(t time.Time) string { return string(appendTimestamp(nil, t, "+00:00")) }

// FormatTimestampZ writes t in the timestamps_json form:
// 2024-01-01T07:30:00Z, with the shortest exact fraction.
func FormatTimestampZ(t time.Time) string { return string(appendTimestamp(nil, t, "Z")) }

// appendTimestamp is written by hand because time.Format's .000/.999 layouts
// cannot express "none, or exactly 3, 6 or 9 digits". t should lie in years
// 0000–9999, as everything this package returns does.
func appendTimestamp(b []byte, t time.Time, zone string) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	b = appendPadded(b, y, 4)
	b = append(b, '-')
	b = appendPadded(b, int(mo), 2)
	b = append(b, '-')
	b = appendPadded(b, d, 2)
	b = append(b, 'T')
	b = appendPadded(b, h, 2)
	b = append(b, ':')
	b = appendPadded(b, mi, 2)
	b = append(b, ':')
	b = appendPadded(b, s, 2)
	switch ns := t.Nanosecond(); {
	case ns == 0:
	case ns%1e6 == 0:
		b = appendPadded(append(b, '.'), ns/1e6, 3)
	case ns%1e3 == 0:
		b = appendPadded(append(b, '.'), ns/1e3, 6)
	default:
		b = appendPadded(append(b, '.'), ns, 9)
	}
	return append(b, zone...)
}

// appendPadded writes a non-negative v with at least width digits.
func appendPadded(b []byte, v, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for v > 0 || width > 0 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		width--
	}
	return append(b, buf[i:]...)
}

// UnixMillis returns the UTC instant ms milliseconds after the Unix epoch.
func UnixMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// ToUnixMillis returns t in Unix milliseconds, rounding down so that an
// instant just before 1970 maps to -1 rather than 0 and the millisecond
// containing t is always the one returned.
func ToUnixMillis(t time.Time) int64 {
	// Nanosecond() is always in [0, 1e9), so this is floor division.
	return t.Unix()*msPerSecond + int64(t.Nanosecond())/1e6
}
