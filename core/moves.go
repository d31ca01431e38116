package core

import (
	"errors"

	"github.com/tsstore/tsstore/core/internal/catalog"
)

// CopySeries attaches a stored series to another owner as well, optionally under another
// name ("" keeps it). The array and the feature set are shared, not copied. The new key
// obeys the rules of an add: a stored key is ErrDuplicateTimeSeries, and a Deterministic and
// a DeterministicSingleTimeSeries may not share a family (docs/format.md §10.6). A derived
// forecast (DeterministicSingleTimeSeries) is copied only to where the SingleTimeSeries it
// was derived from has been copied (same owner, name and array); elsewhere it would be a
// view without a source, ErrInvalidParameter.
func (s *Store) CopySeries(k Key, to Owner, name string) (Key, error) {
	var out Key
	err := s.mutate("copy_time_series", func() error {
		r, err := s.lookupKey(k)
		if err != nil {
			return err
		}
		row := *r
		row.ID = 0
		row.OwnerID, row.OwnerType, row.OwnerCategory = to.ID, to.Type, to.Category.String()
		if name != "" {
			row.Name = name
		}
		if err := validateOwner(to); err != nil {
			return err
		}
		if err := validateText(ArgNewName, row.Name, true); err != nil {
			return err
		}
		if err := s.checkMovable(&row); err != nil {
			return err
		}
		if err := s.checkViewSource(&row); err != nil {
			return err
		}
		if _, err := s.cat.Insert(&row); err != nil {
			return wrapIO("", err, "writing the catalog row")
		}
		s.unit.changes++
		out, err = s.keyOf(&row, k.Features)
		return err
	})
	return out, err
}

// RenameSeries changes the name of a stored series and returns its new key. A series and
// the forecasts derived over it (TransformSingleTimeSeries) share a name, so neither is
// renamed alone: ErrInvalidParameter says to remove the derived forecast first.
func (s *Store) RenameSeries(k Key, name string) (Key, error) {
	var out Key
	err := s.mutate("rename_time_series", func() error {
		if err := validateText(ArgNewName, name, true); err != nil {
			return err
		}
		r, err := s.lookupKey(k)
		if err != nil {
			return err
		}
		row := *r
		row.Name = name
		if err := s.checkMovable(&row); err != nil {
			return err
		}
		if err := s.checkRenameKeepsViews(r, &row); err != nil {
			return err
		}
		if err := s.cat.UpdateRow(row.ID, row.OwnerID, row.OwnerType, row.Name); err != nil {
			return wrapIO("", err, "updating the catalog row")
		}
		s.unit.changes++
		out, err = s.keyOf(&row, k.Features)
		return err
	})
	return out, err
}

// ReplaceOwnerID moves every series of owner (old, category) to owner id new, all or
// nothing: a key that would then exist twice is ErrDuplicateTimeSeries, a broken
// Deterministic / DeterministicSingleTimeSeries exclusion ErrInvalidParameter. It returns the
// number of series moved.
func (s *Store) ReplaceOwnerID(category OwnerCategory, old, new int64) (int, error) {
	var n int64
	err := s.mutate("replace_owner_id", func() error {
		if !category.Valid() {
			return invalid("", ArgOwnerCategory, "unknown code %d", uint8(category))
		}
		var err error
		n, err = s.cat.ReplaceOwnerID(category.String(), old, new)
		if errors.Is(err, catalog.ErrUnique) {
			return newErr(ErrDuplicateTimeSeries, "", ArgNewID, "%s %d already has a series with a key of %s %d", category, new, category, old)
		}
		if err != nil {
			return wrapIO("", err, "updating owner ids")
		}
		name, err := s.cat.ExclusionViolation(category.String(), new)
		if err != nil {
			return wrapIO("", err, "checking the forecast exclusion")
		}
		if name != "" {
			return invalid("", ArgNewID, "%s %d would hold both a Deterministic and a DeterministicSingleTimeSeries %q; they are mutually exclusive",
				category, new, name)
		}
		s.unit.changes += int(n)
		return nil
	})
	return int(n), err
}

// checkRenameKeepsViews refuses a rename that would part a derived forecast from its
// source: the source renamed while a view remains, or a view renamed away from its source.
func (s *Store) checkRenameKeepsViews(old, renamed *catalog.Row) error {
	if old.Name == renamed.Name {
		return nil
	}
	if old.SeriesType == SingleTimeSeriesType.String() {
		views, err := s.viewsOf(old)
		if err != nil || len(views) == 0 {
			return err
		}
		return s.viewError(old, views, "remove the derived forecast first, rename, and derive it again with TransformSingleTimeSeries")
	}
	return s.checkViewSource(renamed)
}

// checkMovable refuses a row whose identity is taken or whose family would break the
// Deterministic / DeterministicSingleTimeSeries exclusion.
func (s *Store) checkMovable(row *catalog.Row) error {
	id := identityOf(row)
	existing, err := s.cat.Lookup(id)
	if err != nil {
		return wrapIO("", err, "looking up the key")
	}
	if existing != nil && existing.ID != row.ID {
		k, _ := s.keyOf(row, nil)
		return newErr(ErrDuplicateTimeSeries, "", ArgLookup, "%s is already stored", k)
	}
	switch row.SeriesType {
	case DeterministicType.String():
		return s.checkExclusion(id, DeterministicSingleTimeSeriesType)
	case DeterministicSingleTimeSeriesType.String():
		return s.checkExclusion(id, DeterministicType)
	}
	return nil
}

func (s *Store) keyOf(r *catalog.Row, features Features) (Key, error) {
	m, err := s.metadataOf(r, features)
	if err != nil {
		return Key{}, err
	}
	return m.Key, nil
}
