package core

import (
	"fmt"
	"strings"
	"time"

	"github.com/tsstore/tsstore/core/internal/isotime"
)

// Period is a resolution, horizon or interval: either a fixed span of milliseconds or a
// calendar span of months, never both (docs/format.md §5.1). The zero value is PT0S.
type Period = isotime.Period

// ParsePeriod reads any valid ISO-8601 duration and canonicalises it.
func ParsePeriod(s string) (Period, error) {
	p, err := isotime.ParsePeriod(s)
	if err != nil {
		return Period{}, invalid("parse_period", ArgResolution, "%v", err)
	}
	return p, nil
}

// MustParsePeriod is ParsePeriod for constants; it panics on a malformed period.
func MustParsePeriod(s string) Period { return isotime.MustParsePeriod(s) }

// Hours, Minutes and Days build fixed periods; Months builds a calendar one.
func Hours(n int64) Period   { return isotime.FixedMillis(n * 3_600_000) }
func Minutes(n int64) Period { return isotime.FixedMillis(n * 60_000) }
func Days(n int64) Period    { return isotime.FixedMillis(n * 86_400_000) }
func Months(n int64) Period  { return isotime.CalendarMonths(n) }

// Milliseconds builds a fixed period of n milliseconds.
func Milliseconds(n int64) Period { return isotime.FixedMillis(n) }

// ParseTimestamp reads any RFC 3339 timestamp and returns it in UTC.
func ParseTimestamp(s string) (time.Time, error) {
	t, err := isotime.ParseTimestamp(s)
	if err != nil {
		return time.Time{}, invalid("parse_timestamp", ArgStep, "%v", err)
	}
	return t, nil
}

// OwnerCategory says what kind of entity owns a series (docs/format.md §3).
type OwnerCategory uint8

const (
	Component             OwnerCategory = 0
	SupplementalAttribute OwnerCategory = 1
)

func (c OwnerCategory) String() string {
	switch c {
	case Component:
		return "Component"
	case SupplementalAttribute:
		return "SupplementalAttribute"
	}
	return fmt.Sprintf("OwnerCategory(%d)", uint8(c))
}

// Valid reports whether c is a known category.
func (c OwnerCategory) Valid() bool { return c <= SupplementalAttribute }

func parseOwnerCategory(s string) (OwnerCategory, error) {
	switch s {
	case "Component":
		return Component, nil
	case "SupplementalAttribute":
		return SupplementalAttribute, nil
	}
	return 0, fmt.Errorf("unknown owner_category %q", s)
}

// SeriesType is a time-series type with the stable code of docs/format.md §3.
type SeriesType uint8

const (
	SingleTimeSeriesType              SeriesType = 0
	NonSequentialTimeSeriesType       SeriesType = 1
	DeterministicType                 SeriesType = 2
	DeterministicSingleTimeSeriesType SeriesType = 3
	ProbabilisticType                 SeriesType = 4
	ScenariosType                     SeriesType = 5
	// AbstractDeterministicType is request-only: it addresses whichever of Deterministic and
	// DeterministicSingleTimeSeries is stored. It is never stored.
	AbstractDeterministicType SeriesType = 6
)

var seriesTypeNames = [...]string{
	"SingleTimeSeries", "NonSequentialTimeSeries", "Deterministic",
	"DeterministicSingleTimeSeries", "Probabilistic", "Scenarios", "AbstractDeterministic",
}

func (t SeriesType) String() string {
	if int(t) < len(seriesTypeNames) {
		return seriesTypeNames[t]
	}
	return fmt.Sprintf("SeriesType(%d)", uint8(t))
}

// Valid reports whether t is a known code (including the request-only abstract one).
func (t SeriesType) Valid() bool { return int(t) < len(seriesTypeNames) }

// storedPacked says where a row of type t keeps its array: a SingleTimeSeries (and a view
// over one) in a packed column, everything else in a standalone variable (docs/format.md
// §7.2).
func storedPacked(t SeriesType) bool {
	return t == SingleTimeSeriesType || t == DeterministicSingleTimeSeriesType
}

// packedTypeNames are the catalog names of the types storedPacked keeps in packed columns.
var packedTypeNames = func() (names []string) {
	for i, n := range seriesTypeNames[:6] {
		if storedPacked(SeriesType(i)) {
			names = append(names, n)
		}
	}
	return names
}()

func parseSeriesType(s string) (SeriesType, error) {
	for i, n := range seriesTypeNames[:6] {
		if n == s {
			return SeriesType(i), nil
		}
	}
	return 0, fmt.Errorf("unknown time_series_type %q", s)
}

// Owner is the entity a series is attached to. The identity is (ID, Category); Type is the
// owner's concrete type name (e.g. "ThermalStandard"), descriptive only.
type Owner struct {
	ID       int64
	Type     string
	Category OwnerCategory
}

// Key is the identity of a stored series (docs/format.md §10.1). A zero Resolution or Interval
// means "none" (a NonSequential series has no resolution, a static series no interval): a
// zero period is never valid in either role. Nil Features equals the empty map.
type Key struct {
	OwnerID       int64
	OwnerCategory OwnerCategory
	Type          SeriesType
	Name          string
	Resolution    Period
	Interval      Period
	Features      Features
}

func (k Key) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q of %s %d", k.Type, k.Name, k.OwnerCategory, k.OwnerID)
	if !k.Resolution.IsZero() {
		b.WriteString(" at " + k.Resolution.String())
	}
	if !k.Interval.IsZero() {
		b.WriteString(" every " + k.Interval.String())
	}
	if len(k.Features) > 0 {
		b.WriteString(" " + k.Features.JSON())
	}
	return b.String()
}

// Metadata is everything the catalog records about one series.
type Metadata struct {
	Key
	// ID is the series' catalog row id: stable while the series is stored (a removal and a
	// new add of the same key make a new id), and a lookup's hint (Lookup.ID).
	ID               int64
	OwnerType        string
	InitialTimestamp time.Time // zero for NonSequential
	Length           int       // first axis of the stored array (docs/format.md §4.2)
	Horizon          Period
	Count            int
	Units            string // "" when not recorded
	Ext              string // opaque package payload, "" when not recorded
	Percentiles      []float64
	DType            DType
	ElementShape     []int
	DataHash         [32]byte
	FeaturesHash     [32]byte
}

// StoredShape is the shape of the stored array: [length, *element_shape].
func (m *Metadata) StoredShape() []int { return append([]int{m.Length}, m.ElementShape...) }

// TimeSeries is implemented by the series types the store holds.
type TimeSeries interface {
	SeriesType() SeriesType
	SeriesName() string
}

// SingleTimeSeries is a regular series: Data's first axis is time, one step per Resolution
// from InitialTimestamp.
type SingleTimeSeries struct {
	Name             string
	InitialTimestamp time.Time
	Resolution       Period
	Data             TypedArray
}

func (s *SingleTimeSeries) SeriesType() SeriesType { return SingleTimeSeriesType }
func (s *SingleTimeSeries) SeriesName() string     { return s.Name }

// Timestamp is the instant of step i.
func (s *SingleTimeSeries) Timestamp(i int) (time.Time, error) {
	return s.Resolution.Step(s.InitialTimestamp, int64(i))
}

// NonSequentialTimeSeries is an irregular series: one strictly increasing timestamp per step.
type NonSequentialTimeSeries struct {
	Name       string
	Timestamps []time.Time
	Data       TypedArray
}

func (s *NonSequentialTimeSeries) SeriesType() SeriesType { return NonSequentialTimeSeriesType }
func (s *NonSequentialTimeSeries) SeriesName() string     { return s.Name }

// AddOptions are the optional parts of an add.
type AddOptions struct {
	Features Features
	Units    string // free-form label such as "MW"; "" records NULL
	Ext      string // opaque payload stored verbatim; "" records NULL
}
