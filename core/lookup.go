package core

import (
	"errors"
	"strings"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
)

// Lookup names a series the way a modeller does: an owner and a series name, narrowed by
// whatever else the caller knows. Nil fields match anything. Features nil matches any
// features; a non-nil set (even an empty one) takes the series whose features are exactly
// these, or else the one series whose features include them all. A Key converts to a Lookup
// that names exactly its series (Key.Lookup).
type Lookup struct {
	OwnerID       int64
	OwnerCategory *OwnerCategory // nil: either category
	Type          *SeriesType    // nil: any type; AbstractDeterministicType: either deterministic kind
	Name          string
	Resolution    *Period
	Interval      *Period
	Features      Features
	// ExactFeatures takes only the series whose features are exactly Features (nil meaning
	// none), never one whose set includes them: what a held Key means.
	ExactFeatures bool
	// ID is a hint: the Metadata.ID of the series an exact lookup (ExactFeatures, or every
	// part of a key given) names. That row is read without a search of the catalog when it
	// is that series; otherwise the hint is ignored. 0: none.
	ID int64
}

// Lookup is the lookup naming exactly k's series.
func (k Key) Lookup() Lookup {
	c, t, r, iv := k.OwnerCategory, k.Type, k.Resolution, k.Interval
	fs := k.Features
	if fs == nil {
		fs = Features{}
	}
	return Lookup{OwnerID: k.OwnerID, OwnerCategory: &c, Type: &t, Name: k.Name, Resolution: &r, Interval: &iv,
		Features: fs, ExactFeatures: true}
}

// lookupKeys finds the rows of many keys, those of a concrete type together
// (catalog.LookupMany: one statement per few hundred keys differing only in owner id). found[i]
// is nil where keys[i] was not looked up so (an abstract type, a -0.0 feature, which has two
// identities to probe in order (keyIdentities), a key that does not validate) or is not
// stored: the caller resolves those one by one, as it would have, for the same result or error.
func (s *Store) lookupKeys(keys []Key, seen func(*catalog.Row)) ([]*catalog.Row, error) {
	ids := make([]catalog.Identity, 0, len(keys))
	at := make([]int, 0, len(keys))
	for i, k := range keys {
		if k.Type == AbstractDeterministicType || k.Features.hasNegativeZero() {
			continue
		}
		id, err := keyIdentity(k)
		if err != nil {
			continue
		}
		ids, at = append(ids, id), append(at, i)
	}
	found := make([]*catalog.Row, len(keys))
	if len(ids) == 0 {
		return found, nil
	}
	rows, err := s.cat.LookupMany(ids, seen)
	if err != nil {
		return nil, wrapIO("", err, "looking up the keys")
	}
	for j, r := range rows {
		found[at[j]] = r
	}
	return found, nil
}

// resolveLookups resolves the lookups of a reader's build in one pass (findMany), giving
// their keys and records; a failure names which[i].
func (s *Store) resolveLookups(op string, qs []Lookup) ([]Key, []*Metadata, error) {
	found, err := s.findMany(op, qs, nil)
	if err != nil {
		return nil, nil, err
	}
	keys, ms := make([]Key, len(found)), make([]*Metadata, len(found))
	for i, f := range found {
		keys[i], ms[i] = f.m.Key, f.m
	}
	return keys, ms, nil
}

// findMany resolves many lookups as find resolves each; item failures name which[i]. The
// exact lookups are found in one batched probe (catalog.LookupMany), their hints unused: a
// statement per hinted key read 10,000 series 0.4-0.5 µs a series slower (4.1-4.2 against
// 3.7 µs, BenchmarkReadManyInto). Only a lookup of a single key gains by its hint (find).
func (s *Store) findMany(op string, qs []Lookup, seen func(*catalog.Row)) ([]foundRow, error) {
	keys := make([]Key, len(qs))
	for i, q := range qs {
		var exact bool
		if keys[i], exact = q.exactKey(); !exact {
			keys[i].Type = AbstractDeterministicType // not batched
		}
	}
	return s.findBatch(op, "which", keys, func(i int) lookupKey { return qs[i].resolvedKey() },
		func(i int) (*catalog.Row, *Metadata, error) { return s.find(qs[i]) }, seen) // kept by find itself
}

// findBatch resolves many items, item i by keys[i] (of AbstractDeterministicType: not one to
// look up with the others) or else by one(i): the concrete keys together (lookupKeys), and on
// a read-only store what was kept for cacheKey(i) first (the zero key: an item not to keep),
// keeping what the batch finds. keys may be changed. Failures name list[i]. seen, when not
// nil, is given each row the batched probe reads (catalog.LookupMany).
func (s *Store) findBatch(op, list string, keys []Key, cacheKey func(i int) lookupKey,
	one func(i int) (*catalog.Row, *Metadata, error), seen func(*catalog.Row)) ([]foundRow, error) {
	found := make([]foundRow, len(keys))
	slab := make([]Metadata, len(keys)) // the records of the rows found at once: one allocation
	var kept []lookupKey                // a read-only store's cache keys
	if s.readOnly {
		kept = make([]lookupKey, len(keys))
		s.resolved.reserve(len(keys))
		for i := range keys {
			if kept[i] = cacheKey(i); kept[i] == (lookupKey{}) {
				continue
			}
			if r, hit := s.resolved.getInto(kept[i], &slab[i]); hit {
				found[i] = foundRow{r, &slab[i]}
				keys[i].Type = AbstractDeterministicType // found: not looked up again
			}
		}
	}
	rows, err := s.lookupKeys(keys, seen)
	if err != nil {
		return nil, withOp(op, err)
	}
	var recent catalog.Recent
	for i := range keys {
		if found[i].r != nil {
			continue
		}
		var m *Metadata
		r := rows[i]
		if r != nil {
			m, err = &slab[i], s.metadataInto(&slab[i], r, keys[i].Features, &recent)
			if err == nil && kept != nil && kept[i] != (lookupKey{}) {
				s.resolved.putMissed(kept[i], r, m)
			}
		} else {
			r, m, err = one(i)
		}
		if err != nil {
			return nil, withOp(op, atItem(err, list, i))
		}
		found[i] = foundRow{r, m}
	}
	return found, nil
}

// lookupCandidates bounds how many matches an ambiguity error lists.
const lookupCandidates = 10

// Lookups is the lookup of each key, in order: what a reader's build takes.
func Lookups(keys []Key) []Lookup {
	qs := make([]Lookup, len(keys))
	for i, k := range keys {
		qs[i] = k.Lookup()
	}
	return qs
}

// Which names the one series an operation acts on: a Key (exactly that series) or a Lookup
// (an owner and a name, narrowed by whatever else it gives; several matches are refused,
// listing them). Has, GetMetadata and Remove take either.
type Which interface{ which() Lookup }

func (k Key) which() Lookup    { return k.Lookup() }
func (q Lookup) which() Lookup { return q }

// rowOf resolves w under the store's lock: a Key by its identity, a Lookup by find.
func (s *Store) rowOf(w Which) (*catalog.Row, *Metadata, error) {
	if k, ok := w.(Key); ok {
		return s.lookupMetadata(k, nil)
	}
	return s.find(w.which())
}

// GetMetadata returns the catalog record of the one series w names. No match is
// ErrNotFound; several are ErrInvalidParameter, listing them.
func (s *Store) GetMetadata(w Which) (*Metadata, error) {
	const op = "get_metadata"
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	_, m, err := s.rowOf(w)
	return m, withOp(op, err)
}

// Has reports whether w's series is stored: for a Lookup, whether at least one series
// matches it (several are not an error here).
func (s *Store) Has(w Which) (bool, error) {
	const op = "has_time_series"
	if err := s.lock(op, false); err != nil {
		return false, err
	}
	defer s.mu.Unlock()
	if k, ok := w.(Key); ok {
		found, err := s.existsKept(k)
		return found, withOp(op, err)
	}
	q := w.which()
	if k, ok := q.exactKey(); ok {
		found, err := s.existsKept(k)
		if err != nil || found || q.ExactFeatures {
			return found, withOp(op, err)
		}
	}
	rows, err := s.matchRows(q, 1)
	return len(rows) > 0, withOp(op, err)
}

// existsKept is exists answered from the read-only store's cache when an exact lookup of k
// has found its row before (or a listing has kept it): a read-only catalog does not change.
func (s *Store) existsKept(k Key) (bool, error) {
	if s.readOnly && s.resolved.has(k.resolvedKey()) {
		return true, nil
	}
	return s.exists(k)
}

// exists probes the catalog's identity index for k (an abstract type: either kind).
func (s *Store) exists(k Key) (bool, error) {
	for _, t := range concreteTypes(k.Type) {
		k.Type = t
		ids, err := keyIdentities(k)
		if err != nil {
			return false, err
		}
		for _, id := range ids {
			found, err := s.cat.Exists(id)
			if err != nil {
				return false, wrapIO("", err, "looking up the key")
			}
			if found {
				return true, nil
			}
		}
	}
	return false, nil
}

// keyIdentities are the identities a key may be stored under, in the order to probe them.
// A key whose features carry -0.0 (docs/format.md §13.3) is first the set written under
// -0.0's own bits, which only another implementation writes and which is then a series
// apart from any {x: 0.0} beside it; failing that it is the 0.0 this build writes for -0.0.
// So a lookup never returns the {x: 0.0} series for -0.0 while a -0.0 one is stored, nor
// the -0.0 series for an exact 0.0.
func keyIdentities(k Key) ([]catalog.Identity, error) {
	id, err := keyIdentity(k)
	if err != nil || !k.Features.hasNegativeZero() {
		return []catalog.Identity{id}, err
	}
	bits := id
	h := k.Features.bitsHash()
	bits.FeaturesHash = h[:]
	return []catalog.Identity{bits, id}, nil
}

func concreteTypes(t SeriesType) []SeriesType {
	if t == AbstractDeterministicType {
		return []SeriesType{DeterministicType, DeterministicSingleTimeSeriesType}
	}
	return []SeriesType{t}
}

// find resolves q under the store's lock: its ID hint first, then an exact identity probe
// when q names every part of a key, then a catalog query.
func (s *Store) find(q Lookup) (*catalog.Row, *Metadata, error) {
	if !s.readOnly {
		return s.search(q)
	}
	key := q.resolvedKey()
	if r, m, ok := s.resolved.get(key); ok {
		return r, m, nil
	}
	r, m, err := s.search(q)
	if err == nil {
		s.resolved.put(key, r, m)
	}
	return r, m, err
}

// search is find without the read-only store's cache.
func (s *Store) search(q Lookup) (*catalog.Row, *Metadata, error) {
	if r, m, ok := s.byHint(q); ok {
		return r, m, nil
	}
	if k, ok := q.exactKey(); ok {
		known := k.Features
		if known.hasNegativeZero() { // the row found says which zero it holds
			known = nil
		}
		r, m, err := s.lookupMetadata(k, known)
		if !errors.Is(err, ErrNotFound) || q.ExactFeatures {
			return r, m, err
		}
	}
	rows, err := s.matchRows(q, lookupCandidates+1)
	if err != nil {
		return nil, nil, err
	}
	switch len(rows) {
	case 0:
		return nil, nil, newErr(ErrNotFound, "", ArgLookup, "no series matches %s", q)
	case 1:
		m, err := s.metadataOf(&rows[0], nil)
		return &rows[0], m, err
	}
	return nil, nil, s.ambiguous(q, rows)
}

// byHint is the row q's ID names, when that row is the one series q names exactly: a row
// fetched by its primary key and compared with q, in place of the search. A lookup that is
// not exact (it may match several series, or one with more features) ignores its hint, as
// does one with a -0.0 feature, which has two identities to probe in order (keyIdentities).
func (s *Store) byHint(q Lookup) (*catalog.Row, *Metadata, bool) {
	if q.ID <= 0 {
		return nil, nil, false
	}
	k, exact := q.exactKey()
	if !exact || k.Features.hasNegativeZero() {
		return nil, nil, false
	}
	r, err := s.cat.RowByID(q.ID)
	if err != nil || r == nil || r.OwnerID != k.OwnerID || r.Name != k.Name {
		return nil, nil, false
	}
	// The row is taken only where the identity probe would find it: its identity columns the
	// text k's identity searches for (a row another writer spelled "PT60M" decodes as PT1H,
	// but no lookup by identity finds it).
	for _, t := range concreteTypes(k.Type) {
		k.Type = t
		if foundByItsKey(r, k) {
			m, err := s.metadataOf(r, k.Features)
			return r, m, err == nil
		}
	}
	return nil, nil, false
}

// matchRows lists up to limit rows matching q, exact feature sets first.
func (s *Store) matchRows(q Lookup, limit int) ([]catalog.Row, error) {
	f := KeyFilter{OwnerID: &q.OwnerID, OwnerCategory: q.OwnerCategory, Type: q.Type, Name: &q.Name,
		Resolution: q.Resolution, Interval: q.Interval, Features: q.Features}
	cf, err := f.toCatalog()
	if err != nil {
		return nil, err
	}
	cf.Limit = limit
	if q.ExactFeatures {
		fs := q.Features
		if fs == nil {
			fs = Features{}
		}
		// The set's own hash, and for a -0.0 also its bits' hash (§13.3): the loop below
		// prefers the latter.
		h, bits := fs.hash(), fs.bitsHash()
		cf.Features, cf.FeaturesHashes = nil, [][]byte{h[:]}
		if bits != h {
			cf.FeaturesHashes = append(cf.FeaturesHashes, bits[:])
		}
	}
	rows, err := s.cat.List(cf)
	if err != nil {
		return nil, wrapIO("", err, "looking up the series")
	}
	if q.Features == nil || len(rows) < 2 {
		return rows, nil
	}
	// Several series include the features asked for: those whose set is exactly those win
	// (still ambiguous when there are several, at two resolutions say), a -0.0 asked for
	// matching its own bits before 0.0 (keyIdentities, §13.3).
	for _, want := range []hashing.Digest{q.Features.bitsHash(), q.Features.hash()} {
		var exact []catalog.Row
		for i := range rows {
			if string(rows[i].FeaturesHash) == string(want[:]) {
				exact = append(exact, rows[i])
			}
		}
		if len(exact) > 0 {
			return exact, nil
		}
	}
	return rows, nil
}

func (s *Store) ambiguous(q Lookup, rows []catalog.Row) error {
	var b strings.Builder
	for i := range rows {
		if i == lookupCandidates {
			b.WriteString("; and more")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		if m, err := s.metadataOf(&rows[i], nil); err == nil {
			b.WriteString(m.Key.String())
		}
	}
	return invalid("", ArgLookup, "%s matches several series (%s): narrow it by type, resolution or features", q, b.String())
}

// exactKey is q as a Key when q names every part of one: then one index probe finds it.
func (q Lookup) exactKey() (Key, bool) {
	fs := q.Features
	if fs == nil && q.ExactFeatures {
		fs = Features{}
	}
	if q.OwnerCategory == nil || q.Type == nil || fs == nil {
		return Key{}, false
	}
	k := Key{OwnerID: q.OwnerID, OwnerCategory: *q.OwnerCategory, Type: *q.Type, Name: q.Name, Features: fs}
	static := k.Type == SingleTimeSeriesType || k.Type == NonSequentialTimeSeriesType
	switch {
	case q.Resolution != nil:
		k.Resolution = *q.Resolution
	case k.Type != NonSequentialTimeSeriesType:
		return Key{}, false
	}
	switch {
	case q.Interval != nil:
		k.Interval = *q.Interval
	case !static:
		return Key{}, false
	}
	return k, true
}

func (q Lookup) String() string {
	var b strings.Builder
	typ := "a series"
	if q.Type != nil {
		typ = "a " + q.Type.String()
	}
	b.WriteString(typ + " " + quote(q.Name) + " of ")
	if q.OwnerCategory != nil {
		b.WriteString(q.OwnerCategory.String() + " ")
	} else {
		b.WriteString("owner ")
	}
	b.WriteString(itoa(q.OwnerID))
	if q.Resolution != nil && !q.Resolution.IsZero() {
		b.WriteString(" at " + q.Resolution.String())
	}
	if q.Interval != nil && !q.Interval.IsZero() {
		b.WriteString(" every " + q.Interval.String())
	}
	if len(q.Features) > 0 {
		b.WriteString(" with " + q.Features.JSON())
	}
	return b.String()
}

func quote(s string) string { return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\"" }
