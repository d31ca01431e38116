package core

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tsstore/tsstore/core/internal/catalog"
)

// Derived views and their sources.
//
// A DeterministicSingleTimeSeries made by TransformSingleTimeSeries is a view: a catalog row
// over the array of the SingleTimeSeries of its family (same owner, name, resolution and
// features). The other implementation of the format refuses to remove a SingleTimeSeries
// while such a view over it remains ("remove the derived forecast first"), unless the same
// call removes the view too, so it never writes a store holding a view without its source.
// Neither does this one: every call that takes a SingleTimeSeries out of its family (Remove,
// RemoveWhere, RenameSeries) is refused when a view of that family would remain, and a view
// cannot be moved or copied to where its source is not (RenameSeries, CopySeries). The
// refusal is ErrInvalidParameter and the call changes nothing. Clear and ClearOwner remove
// every series of the store or of the owner, so sources and views go together.
// ReplaceOwnerID moves all of an owner's series, so families move whole.

// refuseOrphanedViews runs after a call deleted rows (inside the call's savepoint, so an
// error undoes the deletion): it fails when a deleted SingleTimeSeries still has a
// DeterministicSingleTimeSeries in its family. A view deleted by the same call is gone by
// then and does not count.
func (s *Store) refuseOrphanedViews(deleted []catalog.Row) error {
	var first error
	n := 0
	for i := range deleted {
		r := &deleted[i]
		if r.SeriesType != SingleTimeSeriesType.String() {
			continue
		}
		id := identityOf(r)
		id.SeriesType = DeterministicSingleTimeSeriesType.String()
		found, err := s.cat.HasFamily(id)
		if err != nil {
			return wrapIO("", err, "looking up derived forecasts")
		}
		if !found {
			continue
		}
		n++
		if first == nil {
			views, err := s.viewsOf(r)
			if err != nil {
				return err
			}
			first = s.viewError(r, views, "remove the derived forecast first, or both in one call (remove_where with a filter selecting both)")
		}
	}
	if first != nil && n > 1 {
		e := first.(*Error)
		e.Msg += fmt.Sprintf(" (%d of the series selected have derived forecasts the call would leave behind)", n)
	}
	return first
}

// viewsOf lists the DeterministicSingleTimeSeries rows in the family of a SingleTimeSeries row.
func (s *Store) viewsOf(r *catalog.Row) ([]catalog.Row, error) {
	id := identityOf(r)
	id.SeriesType = DeterministicSingleTimeSeriesType.String()
	views, err := s.cat.FamilyRows(id)
	if err != nil {
		return nil, wrapIO("", err, "looking up derived forecasts")
	}
	return views, nil
}

// viewError says which series backs which views and what the user can do.
func (s *Store) viewError(src *catalog.Row, views []catalog.Row, remedy string) error {
	var names []string
	for i := range views {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(views)-3))
			break
		}
		names = append(names, s.describeRow(&views[i]))
	}
	noun := "the derived forecast"
	if len(views) > 1 {
		noun = "the derived forecasts"
	}
	return invalid("", ArgLookup, "%s backs %s %s (made over it by transform_single_time_series), which would be left without its source: %s",
		s.describeRow(src), noun, strings.Join(names, ", "), remedy)
}

// describeRow names a row by its key, or by its columns when the row does not decode.
func (s *Store) describeRow(r *catalog.Row) string {
	if k, err := s.keyOf(r, nil); err == nil {
		return k.String()
	}
	return fmt.Sprintf("%s %q of %s %d", r.SeriesType, r.Name, r.OwnerCategory, r.OwnerID)
}

// checkViewSource refuses to put a DeterministicSingleTimeSeries row (a copy or a renamed
// view) where no SingleTimeSeries of its family holds the array it reads.
func (s *Store) checkViewSource(view *catalog.Row) error {
	if view.SeriesType != DeterministicSingleTimeSeriesType.String() {
		return nil
	}
	id := identityOf(view)
	id.SeriesType = SingleTimeSeriesType.String()
	id.Interval = ""
	src, err := s.cat.Lookup(id)
	if err != nil {
		return wrapIO("", err, "looking up the source of a derived forecast")
	}
	if src != nil && bytes.Equal(src.DataHash, view.DataHash) {
		return nil
	}
	return invalid("", ArgLookup, "%s would be a derived forecast without its source: a DeterministicSingleTimeSeries is a view "+
		"transform_single_time_series makes over the SingleTimeSeries of the same owner, name, resolution and features, and that "+
		"owner has no such series holding its array; copy or rename the SingleTimeSeries and derive the forecast again",
		s.describeRow(view))
}
