package isotime

import (
	"strings"
	"testing"
)

// Every input ends in an error with the usual prefix, or in an instant whose canonical
// spelling parses back to the same instant and is a fixed point.
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{
		"2024-01-01T00:00:00Z", "2024-01-01T00:00:00+00:00", "2024-02-29T23:59:59.999999999-05:30",
		"2024-01-01 00:00:00Z", "2024-01-01t00:00:00z", "1970-01-01T00:00:00.5Z", "0001-01-01T00:00:00Z",
		"9999-12-31T23:59:59Z", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z", "2024-06-30T23:59:60Z",
		"2024-01-01T00:00:00", "2024-01-01T00:00:00+24:00", "2024-01-01T00:00:00.Z", "",
		"2024-01-01T00:00:00.1234567890Z", "2023-02-29T00:00:00Z", "+2024-01-01T00:00:00Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTimestamp(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "isotime: invalid timestamp") {
				t.Fatalf("ParseTimestamp(%q) error %q lacks the usual prefix", s, err)
			}
			return
		}
		c := FormatTimestamp(ts)
		back, err := ParseTimestamp(c)
		if err != nil || !back.Equal(ts) {
			t.Fatalf("ParseTimestamp(%q) = %v, formatted %q, which parses to %v (%v)", s, ts, c, back, err)
		}
		if FormatTimestamp(back) != c {
			t.Fatalf("FormatTimestamp is not a fixed point for %q: %q", s, c)
		}
	})
}
