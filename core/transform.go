package core

import (
	"bytes"
	"database/sql"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/isotime"
)

// TransformFilter narrows a transform to one owner category and/or one resolution; nil
// fields match everything.
type TransformFilter struct {
	OwnerCategory *OwnerCategory
	Resolution    *Period
}

// TransformSingleTimeSeries derives a DeterministicSingleTimeSeries with the given horizon
// and interval from every stored SingleTimeSeries the filter matches (docs/format.md §10.5):
// window i of one is steps [i·k, i·k + H) of its source, with k = interval / resolution and
// H = horizon / resolution. It writes catalog rows only — the rows share the source's array
// and feature set — and all of them or none. Deriving again with the same horizon is a
// no-op (read as docs/format.md §13.6 says); it returns the number of rows it added.
func (s *Store) TransformSingleTimeSeries(horizon, interval Period, f *TransformFilter) (int, error) {
	n := 0
	err := s.mutate("transform_single_time_series", func() error {
		var err error
		n, err = s.transform(horizon, interval, f)
		return err
	})
	return n, err
}

func (s *Store) transform(horizon, interval Period, f *TransformFilter) (int, error) {
	if !horizon.IsPositive() {
		return 0, invalid("", ArgHorizon, "%s is not a positive period", horizon)
	}
	if !interval.IsPositive() {
		return 0, invalid("", ArgInterval, "%s is not a positive period", interval)
	}
	var cf catalog.Filter
	if f != nil && f.OwnerCategory != nil {
		if !f.OwnerCategory.Valid() {
			return 0, invalid("", ArgOwnerCategory, "unknown code %d", uint8(*f.OwnerCategory))
		}
		c := f.OwnerCategory.String()
		cf.OwnerCategory = &c
	}
	if f != nil && f.Resolution != nil {
		r := f.Resolution.String()
		cf.Resolution = &r
	}
	sources, existing, dets, err := s.transformInputs(cf)
	if err != nil {
		return 0, err
	}
	var rows []catalog.Row
	for i := range sources {
		row, err := deriveRow(&sources[i], horizon, interval)
		if err != nil {
			return 0, err
		}
		id := identityOf(row)
		if old, ok := existing[id.MapKey()]; ok {
			if old.Horizon.String == row.Horizon.String && bytes.Equal(old.DataHash, row.DataHash) {
				continue // already derived: a no-op
			}
			what := "with horizon " + old.Horizon.String + "; deriving horizon " + row.Horizon.String + " would change it"
			if old.Horizon.String == row.Horizon.String {
				what = "over an earlier array of its source (the source was replaced); remove the derived series first"
			}
			return 0, newErr(ErrDuplicateTimeSeries, "", ArgHorizon, "%s %q of %s %d at %s every %s is already stored %s",
				DeterministicSingleTimeSeriesType, row.Name, row.OwnerCategory, row.OwnerID, row.Resolution.String, interval, what)
		}
		if dets[familyOf(id)] {
			return 0, invalid("", ArgSeriesType, "%q of %s %d at %s has a Deterministic; a Deterministic and a DeterministicSingleTimeSeries of one series are mutually exclusive",
				row.Name, row.OwnerCategory, row.OwnerID, row.Resolution.String)
		}
		rows = append(rows, *row)
	}
	for i := range rows {
		if _, err := s.cat.Insert(&rows[i]); err != nil {
			return 0, wrapIO("", err, "writing the catalog rows")
		}
	}
	s.unit.changes += len(rows)
	return len(rows), nil
}

// transformInputs lists the candidate sources, the DeterministicSingleTimeSeries already
// stored (by identity) and the families holding a Deterministic, in three queries.
func (s *Store) transformInputs(cf catalog.Filter) ([]catalog.Row, map[catalog.IdentityKey]*catalog.Row, map[catalog.IdentityKey]bool, error) {
	list := func(t SeriesType) ([]catalog.Row, error) {
		f := cf
		f.SeriesTypes = []string{t.String()}
		rows, err := s.cat.List(f)
		if err != nil {
			return nil, wrapIO("", err, "listing %s rows", t)
		}
		return rows, nil
	}
	sources, err := list(SingleTimeSeriesType)
	if err != nil {
		return nil, nil, nil, err
	}
	dsts, err := list(DeterministicSingleTimeSeriesType)
	if err != nil {
		return nil, nil, nil, err
	}
	detRows, err := list(DeterministicType)
	if err != nil {
		return nil, nil, nil, err
	}
	existing := make(map[catalog.IdentityKey]*catalog.Row, len(dsts))
	for i := range dsts {
		existing[identityOf(&dsts[i]).MapKey()] = &dsts[i]
	}
	dets := make(map[catalog.IdentityKey]bool, len(detRows))
	for i := range detRows {
		dets[familyOf(identityOf(&detRows[i]))] = true
	}
	return sources, existing, dets, nil
}

// familyOf is the identity without type and interval: the unit of the Deterministic /
// DeterministicSingleTimeSeries exclusion.
func familyOf(id catalog.Identity) catalog.IdentityKey {
	id.SeriesType, id.Interval = "", ""
	return id.MapKey()
}

// deriveRow builds the DeterministicSingleTimeSeries row over one SingleTimeSeries row: a
// copy of the source row with horizon, interval and count (docs/format.md §4.3).
func deriveRow(src *catalog.Row, horizon, interval Period) (*catalog.Row, error) {
	res, err := isotime.ParsePeriod(src.Resolution.String)
	if err != nil || !res.IsPositive() {
		return nil, corrupt(src, "resolution", "%q is not a positive period", src.Resolution.String)
	}
	if !src.Length.Valid || src.Length.Int64 < 1 {
		return nil, corrupt(src, "length", "is missing or below 1")
	}
	length := src.Length.Int64
	what := func() string {
		return src.Name + " of " + src.OwnerCategory + " " + itoa(src.OwnerID) + " (" + itoa(length) + " steps at " + res.String() + ")"
	}
	h, ok := horizon.Ratio(res)
	if !ok || h < 1 {
		return nil, invalid("", ArgHorizon, "%s is not a whole multiple of the resolution of %s", horizon, what())
	}
	k, ok := interval.Ratio(res)
	if !ok || k < 1 {
		return nil, invalid("", ArgInterval, "%s is not a positive whole multiple of the resolution of %s", interval, what())
	}
	if h > length {
		return nil, invalid("", ArgHorizon, "%s is %d steps, longer than %s", horizon, h, what())
	}
	row := *src
	row.ID = 0
	row.SeriesType = DeterministicSingleTimeSeriesType.String()
	row.Horizon = sql.NullString{String: horizon.String(), Valid: true}
	row.Interval = sql.NullString{String: interval.String(), Valid: true}
	row.Count = sql.NullInt64{Int64: (length-h)/k + 1, Valid: true}
	return &row, nil
}
