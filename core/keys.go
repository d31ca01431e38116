package core

import (
	"strconv"

	"github.com/tsstore/tsstore/core/internal/catalog"
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// Remove deletes the one series w names. Its array is freed only when no remaining row of any type
// references the same data_hash (docs/format.md §8), and only once the removal is committed
// (see unit.go), so a removal that is rolled back loses nothing. A SingleTimeSeries that
// backs a derived forecast (a DeterministicSingleTimeSeries of TransformSingleTimeSeries) is
// not removed: ErrInvalidParameter says to remove the derived forecast first (see views.go).
func (s *Store) Remove(w Which) error {
	return s.mutate("remove_time_series", func() error {
		r, _, err := s.rowOf(w)
		if err != nil {
			return err
		}
		if err := s.cat.Delete(r.ID); err != nil {
			return wrapIO("", err, "deleting the catalog row")
		}
		if err := s.refuseOrphanedViews([]catalog.Row{*r}); err != nil {
			return err
		}
		s.unit.frees = append(s.unit.frees, r.DataHash)
		s.unit.changes++
		return nil
	})
}

// KeyFilter selects series; nil fields match everything. Features is a subset match: a
// series matches when its features include every given entry.
type KeyFilter struct {
	OwnerID       *int64
	OwnerCategory *OwnerCategory
	Type          *SeriesType
	Name          *string
	Resolution    *Period
	OwnerType     *string // the owner's concrete type name
	NameGlob      *string // a SQLite GLOB pattern on the name, e.g. "max_*"
	Interval      *Period
	Features      Features
}

func (f KeyFilter) toCatalog() (catalog.Filter, error) {
	var cf catalog.Filter
	cf.OwnerID, cf.Name, cf.OwnerType, cf.NameGlob = f.OwnerID, f.Name, f.OwnerType, f.NameGlob
	if f.Interval != nil {
		iv := f.Interval.String()
		cf.Interval = &iv
	}
	if f.OwnerCategory != nil {
		if !f.OwnerCategory.Valid() {
			return cf, invalid("", ArgOwnerCategory, "unknown code %d", uint8(*f.OwnerCategory))
		}
		c := f.OwnerCategory.String()
		cf.OwnerCategory = &c
	}
	if f.Type != nil {
		switch {
		case *f.Type == AbstractDeterministicType:
			cf.SeriesTypes = []string{DeterministicType.String(), DeterministicSingleTimeSeriesType.String()}
		case f.Type.Valid():
			cf.SeriesTypes = []string{f.Type.String()}
		default:
			return cf, invalid("", ArgSeriesType, "unknown code %d", uint8(*f.Type))
		}
	}
	if f.Resolution != nil {
		r := f.Resolution.String()
		cf.Resolution = &r
	}
	if err := f.Features.validate(); err != nil {
		return cf, err
	}
	cf.Features = f.Features.entries()
	return cf, nil
}

// ListMetadata returns the catalog records matching f, in insertion order.
func (s *Store) ListMetadata(f KeyFilter) ([]Metadata, error) {
	const op = "list_metadata"
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	ms, err := s.listMetadata(f)
	return ms, withOp(op, err)
}

func (s *Store) listMetadata(f KeyFilter) ([]Metadata, error) {
	cf, err := f.toCatalog()
	if err != nil {
		return nil, err
	}
	rows, err := s.cat.List(cf)
	if err != nil {
		return nil, wrapIO("", err, "listing the catalog")
	}
	out := make([]Metadata, len(rows))
	var recent catalog.Recent
	for i := range rows {
		if err := s.metadataInto(&out[i], &rows[i], nil, &recent); err != nil {
			return nil, err
		}
	}
	if s.readOnly {
		s.resolved.prime(rows, out)
	}
	return out, nil
}

// ListKeys returns the keys of the series matching f, in insertion order.
func (s *Store) ListKeys(f KeyFilter) ([]Key, error) {
	ms, err := s.ListMetadata(f)
	if err != nil {
		return nil, withOp("list_keys", err)
	}
	keys := make([]Key, len(ms))
	for i := range ms {
		keys[i] = ms[i].Key
	}
	return keys, nil
}

// Clear removes every series, and with them every feature set (docs/format.md §9.2: clearing a
// store drops them all outright). It returns the number of series removed.
func (s *Store) Clear() (int, error) {
	return s.clear("clear_time_series", catalog.Filter{}, clearAll)
}

// RemoveWhere removes every series the filter selects, all in one write, and returns how many
// it removed (their arrays are freed once no other series references them). Like Remove it
// refuses, removing nothing, when it would remove a SingleTimeSeries but leave a derived
// forecast over it; a filter that selects both removes both.
func (s *Store) RemoveWhere(f KeyFilter) (int, error) {
	cf, err := f.toCatalog()
	if err != nil {
		return 0, withOp("remove_where", err)
	}
	return s.clear("remove_where", cf, clearSelected)
}

// ClearOwner removes every series of one owner and returns how many it removed. Sources and
// the forecasts derived over them go together.
func (s *Store) ClearOwner(ownerID int64, category OwnerCategory) (int, error) {
	if !category.Valid() {
		return 0, invalid("clear_owner", ArgOwnerCategory, "unknown code %d", uint8(category))
	}
	c := category.String()
	return s.clear("clear_owner", catalog.Filter{OwnerID: &ownerID, OwnerCategory: &c}, clearOwner)
}

// clearScope is what a clear removes: all of the store, all of an owner, or what a filter
// selects (the one scope that can split a derived forecast from its source).
type clearScope int

const (
	clearSelected clearScope = iota
	clearOwner
	clearAll
)

func (s *Store) clear(op string, f catalog.Filter, scope clearScope) (int, error) {
	n := 0
	err := s.mutate(op, func() error {
		rows, err := s.cat.List(f)
		if err != nil {
			return wrapIO("", err, "listing the catalog")
		}
		for _, r := range rows {
			if err := s.cat.Delete(r.ID); err != nil {
				return wrapIO("", err, "deleting catalog rows")
			}
			s.unit.frees = append(s.unit.frees, r.DataHash)
		}
		if scope == clearSelected {
			if err := s.refuseOrphanedViews(rows); err != nil {
				return err
			}
		}
		all := scope == clearAll
		if all {
			sets, err := s.cat.DeleteAllFeatureSets()
			if err != nil {
				return wrapIO("", err, "deleting feature sets")
			}
			// Counted as changes so the unit is not "empty": a later refused call must not
			// end it with ROLLBACK (unit.go), which would bring the sets back.
			s.unit.changes += int(sets)
		}
		n = len(rows)
		s.unit.changes += n
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
