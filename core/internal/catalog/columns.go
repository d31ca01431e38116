// The text columns of a catalog row in their types: what each holds, written and read here
// and nowhere else (docs/format.md §9.2). Package core maps the enumerations (owner
// category, series type, dtype) onto its own types; everything else a row stores as text is
// decoded here.

package catalog

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tsstore/tsstore/core/internal/isotime"
)

// ColumnError is a column that does not hold what the format says it holds.
type ColumnError struct {
	Column string
	Msg    string
}

func (e *ColumnError) Error() string { return e.Column + ": " + e.Msg }

func columnErr(column, format string, args ...any) *ColumnError {
	return &ColumnError{Column: column, Msg: fmt.Sprintf(format, args...)}
}

// Decoded is a row's typed columns, apart from its enumerations and hashes. A NULL period
// is the zero Period; a NULL initial_timestamp is the zero time, with HasInitial false.
type Decoded struct {
	InitialTimestamp              time.Time
	HasInitial                    bool
	Resolution, Interval, Horizon isotime.Period
	Length                        int
	ElementShape                  []int
	Percentiles                   []float64
}

// Decode parses r's text columns; the error is a *ColumnError naming the first bad one.
func (r *Row) Decode() (Decoded, error) { return r.DecodeWith(nil) }

// Recent holds the last periods and initial timestamp a run of Decodes parsed. The rows of a
// bulk read share them, and their parse was a third of a first read's decode (2026-12-07).
// The zero value is ready; one Recent serves one goroutine.
type Recent struct {
	period [3]lastParsed[isotime.Period]
	stamp  lastParsed[time.Time]
}

// lastParsed is the last text a column's parse succeeded on, and what it gave.
type lastParsed[T any] struct {
	text  string
	value T
}

// parse is parse(text), answered from l when text is the last one parsed; l may be nil.
func (l *lastParsed[T]) parse(text string, parse func(string) (T, error)) (T, error) {
	if l == nil {
		return parse(text)
	}
	if l.text == text && text != "" {
		return l.value, nil
	}
	v, err := parse(text)
	if err == nil {
		l.text, l.value = text, v
	}
	return v, err
}

func (m *Recent) periodSlot(slot int) *lastParsed[isotime.Period] {
	if m == nil {
		return nil
	}
	return &m.period[slot]
}

func (m *Recent) stampSlot() *lastParsed[time.Time] {
	if m == nil {
		return nil
	}
	return &m.stamp
}

// periodColumns are the period columns Decode parses, in Recent's slot order.
var periodColumns = [3]string{"resolution", "interval", "horizon"}

// DecodeWith is Decode reusing what recent (which may be nil) parsed last.
func (r *Row) DecodeWith(recent *Recent) (Decoded, error) {
	var d Decoded
	var err error
	if d.ElementShape, err = ParseShape(r.ElementShape.String); err != nil {
		return d, columnErr("element_shape", "%v", err)
	}
	if !r.Length.Valid || r.Length.Int64 < 0 {
		return d, columnErr("length", "is missing or negative")
	}
	d.Length = int(r.Length.Int64)
	texts := [3]sql.NullString{r.Resolution, r.Interval, r.Horizon}
	periods := [3]*isotime.Period{&d.Resolution, &d.Interval, &d.Horizon}
	for slot, v := range texts {
		if !v.Valid {
			continue
		}
		if *periods[slot], err = recent.periodSlot(slot).parse(v.String, isotime.ParsePeriod); err != nil {
			return d, columnErr(periodColumns[slot], "%v", err)
		}
	}
	if d.HasInitial = r.InitialTimestamp.Valid; d.HasInitial {
		if d.InitialTimestamp, err = recent.stampSlot().parse(r.InitialTimestamp.String, isotime.ParseTimestamp); err != nil {
			return d, columnErr("initial_timestamp", "%v", err)
		}
	}
	if r.PercentilesJSON.Valid {
		if err := json.Unmarshal([]byte(r.PercentilesJSON.String), &d.Percentiles); err != nil {
			return d, columnErr("percentiles_json", "is not a JSON array of numbers: %v", err)
		}
	}
	return d, nil
}

// Timestamps parses a NonSequentialTimeSeries row's timestamps_json.
func (r *Row) Timestamps() ([]time.Time, error) {
	var raw []string
	if err := json.Unmarshal([]byte(r.TimestampsJSON.String), &raw); err != nil {
		return nil, columnErr("timestamps_json", "is not a JSON array of strings: %v", err)
	}
	out := make([]time.Time, len(raw))
	for i, s := range raw {
		t, err := isotime.ParseTimestamp(s)
		if err != nil {
			return nil, columnErr("timestamps_json", "entry %d: %v", i, err)
		}
		out[i] = t
	}
	if r.Length.Valid && int64(len(out)) != r.Length.Int64 {
		return nil, columnErr("timestamps_json", "holds %d timestamps for length %d", len(out), r.Length.Int64)
	}
	return out, nil
}

// TimestampsJSON is the timestamps_json of a NonSequentialTimeSeries: RFC 3339 in UTC with
// a Z, as the format writes them.
func TimestampsJSON(ts []time.Time) string {
	stamps := make([]string, len(ts))
	for i, t := range ts {
		stamps[i] = isotime.FormatTimestampZ(t)
	}
	js, _ := json.Marshal(stamps)
	return string(js)
}

// PercentilesJSON is the percentiles_json of a Probabilistic forecast.
func PercentilesJSON(ps []float64) string {
	js, _ := json.Marshal(ps)
	return string(js)
}

// ShapeJSON is the compact JSON of an element shape, as the element_shape column holds it.
func ShapeJSON(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// ParseShape parses an element_shape column: "" and "[]" are scalar elements.
func ParseShape(s string) ([]int, error) {
	if s == "" || s == "[]" { // scalar elements, nearly every row: no JSON decoder
		return []int{}, nil
	}
	var shape []int
	if err := json.Unmarshal([]byte(s), &shape); err != nil {
		return nil, fmt.Errorf("element_shape %q is not a JSON array of integers", s)
	}
	for _, d := range shape {
		if d <= 0 {
			return nil, fmt.Errorf("element_shape %q has an axis below 1", s)
		}
	}
	if shape == nil {
		shape = []int{}
	}
	return shape, nil
}
