package core

import (
	"sort"
	"time"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/isotime"
)

// ForecastParameters is one distinct set of window parameters among stored forecasts and
// the number of forecasts that have it.
type ForecastParameters struct {
	Type             SeriesType
	InitialTimestamp time.Time
	Resolution       Period
	Horizon          Period
	Interval         Period
	Count            int // windows
	Series           int // forecasts with exactly these parameters
}

var forecastTypeNames = []string{DeterministicType.String(), DeterministicSingleTimeSeriesType.String(),
	ProbabilisticType.String(), ScenariosType.String()}

// ForecastParameters lists the distinct (type, initial timestamp, resolution, horizon,
// interval, count) of the forecasts matching f — one entry when, as in most systems, every
// forecast shares its windows. f.Type may narrow it to one forecast type (or the abstract
// deterministic one); a static type yields nothing.
func (s *Store) ForecastParameters(f KeyFilter) ([]ForecastParameters, error) {
	const op = "forecast_parameters"
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	cf, err := forecastFilter(f)
	if err != nil {
		return nil, withOp(op, err)
	}
	rows, err := s.cat.ForecastParams(cf)
	if err != nil {
		return nil, wrapIO(op, err, "grouping forecast parameters")
	}
	out := make([]ForecastParameters, 0, len(rows))
	for _, r := range rows {
		p, err := decodeParams(r)
		if err != nil {
			return nil, withOp(op, err)
		}
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Resolution != b.Resolution {
			return periodLess(a.Resolution, b.Resolution)
		}
		if a.Interval != b.Interval {
			return periodLess(a.Interval, b.Interval)
		}
		return periodLess(a.Horizon, b.Horizon)
	})
	return out, nil
}

// forecastFilter restricts f to forecast rows.
func forecastFilter(f KeyFilter) (catalog.Filter, error) {
	cf, err := f.toCatalog()
	if err != nil {
		return cf, err
	}
	if cf.SeriesTypes == nil {
		cf.SeriesTypes = forecastTypeNames
		return cf, nil
	}
	var keep []string
	for _, t := range cf.SeriesTypes {
		for _, ft := range forecastTypeNames {
			if t == ft {
				keep = append(keep, t)
			}
		}
	}
	if keep == nil {
		keep = []string{"none"} // a static type: match nothing
	}
	cf.SeriesTypes = keep
	return cf, nil
}

func decodeParams(r catalog.ParamRow) (ForecastParameters, error) {
	bad := func(column string, err error) error {
		return corruptAt("", column, "a %s row holds an unreadable %s: %v", r.SeriesType, column, err)
	}
	var p ForecastParameters
	var err error
	if p.Type, err = parseSeriesType(r.SeriesType); err != nil {
		return p, bad("time_series_type", err)
	}
	for _, c := range []struct {
		name string
		v    *Period
		s    string
	}{{"resolution", &p.Resolution, r.Resolution.String}, {"horizon", &p.Horizon, r.Horizon.String}, {"interval", &p.Interval, r.Interval.String}} {
		if *c.v, err = isotime.ParsePeriod(c.s); err != nil {
			return p, bad(c.name, err)
		}
	}
	if p.InitialTimestamp, err = isotime.ParseTimestamp(r.InitialTimestamp.String); err != nil {
		return p, bad("initial_timestamp", err)
	}
	p.Count, p.Series = int(r.Count.Int64), int(r.Rows)
	return p, nil
}

// periodLess orders fixed periods before calendar ones, each by length.
func periodLess(a, b Period) bool {
	if a.IsCalendar() != b.IsCalendar() {
		return !a.IsCalendar()
	}
	if a.IsCalendar() {
		return a.Months() < b.Months()
	}
	return a.Millis() < b.Millis()
}

// Resolutions lists the distinct resolutions of the series matching f, shortest first.
func (s *Store) Resolutions(f KeyFilter) ([]Period, error) {
	return s.distinctPeriods("list_resolutions", "resolution", f)
}

// Intervals lists the distinct forecast intervals of the series matching f, shortest first.
func (s *Store) Intervals(f KeyFilter) ([]Period, error) {
	return s.distinctPeriods("list_intervals", "interval", f)
}

func (s *Store) distinctPeriods(op, column string, f KeyFilter) ([]Period, error) {
	vals, err := s.distinctText(op, column, f)
	if err != nil {
		return nil, err
	}
	// Canonical spellings are unique per period (docs/format.md §5.1), so distinct text is a
	// distinct period; parsing still guards against rows written by a careless writer.
	seen := map[Period]bool{}
	var out []Period
	for _, v := range vals {
		p, err := isotime.ParsePeriod(v)
		if err != nil {
			return nil, corruptAt(op, column, "%q is not an ISO-8601 period: %v", v, err)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return periodLess(out[i], out[j]) })
	return out, nil
}

// CountsByType counts the series matching f per type; types with none are absent.
func (s *Store) CountsByType(f KeyFilter) (map[SeriesType]int, error) {
	const op = "counts_by_type"
	var counts map[string]int64
	if err := s.query(op, f, func(cf catalog.Filter) error {
		var err error
		counts, err = s.cat.CountByType(cf)
		return wrapIO("", err, "counting series")
	}); err != nil {
		return nil, err
	}
	out := make(map[SeriesType]int, len(counts))
	for name, n := range counts {
		t, err := parseSeriesType(name)
		if err != nil {
			return nil, corruptAt(op, "time_series_type", "%v", err)
		}
		out[t] = int(n)
	}
	return out, nil
}
