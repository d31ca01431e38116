package core

import (
	"slices"

	"github.com/tsstore/tsstore/core/internal/catalog"
)

// resolvedCache keeps what find answered for each lookup on a read-only store: the catalog
// row and its decoded record. A read-only catalog holds a read transaction for as long as it
// is open, so no writer can commit a change to it (nor, where HDF5 locks files, open the .nc),
// and the store's read cache already keeps decoded data on the same ground
// (docs/architecture.md, "Lookups again"). A get of 24 values by a key
// spent 60% of its 3.7 µs fetching and decoding its row (36 allocations); a hit costs a map
// probe and a copy. Failures are not kept: a miss is asked of the catalog each time.
type resolvedCache struct {
	entries map[lookupKey]resolvedRow
}

// resolvedEntries bounds the cache: about 800 bytes an entry, 13 MB when full. A full cache
// drops a quarter of its entries, chosen by the map's random order.
const resolvedEntries = 16384

// noFeatures is the empty feature set of every entry without features.
var noFeatures = Features{}

type resolvedRow struct {
	r *catalog.Row
	m *Metadata
}

// lookupKey is a Lookup as a map key: its optional parts with whether they are given, its
// features as the hash of their bits ("" for any features, a nil map). The ID is left out:
// it is a hint that changes how a row is found, never which (byHint).
type lookupKey struct {
	owner                      int64
	category                   OwnerCategory
	typ                        SeriesType
	name                       string
	resolution, interval       Period
	hasCategory, hasType       bool
	hasResolution, hasInterval bool
	features                   string
	exactFeatures              bool
}

func (q Lookup) resolvedKey() lookupKey {
	k := lookupKey{owner: q.OwnerID, name: q.Name, exactFeatures: q.ExactFeatures}
	if q.OwnerCategory != nil {
		k.category, k.hasCategory = *q.OwnerCategory, true
	}
	if q.Type != nil {
		k.typ, k.hasType = *q.Type, true
	}
	if q.Resolution != nil {
		k.resolution, k.hasResolution = *q.Resolution, true
	}
	if q.Interval != nil {
		k.interval, k.hasInterval = *q.Interval, true
	}
	if q.Features != nil {
		h := q.Features.bitsHash() // -0.0 and 0.0 are told apart, as the lookup does
		k.features = string(h[:])
	}
	return k
}

// resolvedKey is k.Lookup().resolvedKey(), made without the lookup's pointers.
func (k Key) resolvedKey() lookupKey {
	fs := k.Features
	if fs == nil {
		fs = Features{}
	}
	h := fs.bitsHash()
	return lookupKey{owner: k.OwnerID, category: k.OwnerCategory, typ: k.Type, name: k.Name, resolution: k.Resolution,
		interval: k.Interval, hasCategory: true, hasType: true, hasResolution: true, hasInterval: true,
		features: string(h[:]), exactFeatures: true}
}

// get returns the row and a copy of the record kept for key, whose slices and features map
// are its own, as every record metadataInto makes is.
func (c *resolvedCache) get(key lookupKey) (*catalog.Row, *Metadata, bool) {
	var m Metadata
	r, ok := c.getInto(key, &m)
	if !ok {
		return nil, nil, false
	}
	return r, &m, true
}

// getInto is get writing the copy into *m (a bulk read's slab).
func (c *resolvedCache) getInto(key lookupKey, m *Metadata) (*catalog.Row, bool) {
	e, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	*m = *e.m
	m.Percentiles, m.ElementShape = slices.Clone(m.Percentiles), slices.Clone(m.ElementShape)
	m.Features = cloneFeatures(m.Features)
	return e.r, true
}

// reserve makes room for n more entries at once, as a bulk read about to keep them does:
// a map grown one entry at a time rehashes its entries again and again.
func (c *resolvedCache) reserve(n int) {
	if c.entries == nil {
		c.entries = make(map[lookupKey]resolvedRow, min(n, resolvedEntries))
	}
}

// put keeps a copy of what find answered for key.
func (c *resolvedCache) put(key lookupKey, r *catalog.Row, m *Metadata) {
	if c.entries == nil {
		c.entries = make(map[lookupKey]resolvedRow)
	}
	if len(c.entries) >= resolvedEntries {
		for k := range c.entries {
			delete(c.entries, k)
			if len(c.entries) <= resolvedEntries*3/4 {
				break
			}
		}
	}
	kept := *m
	kept.Percentiles, kept.ElementShape = slices.Clone(m.Percentiles), slices.Clone(m.ElementShape)
	kept.Features = noFeatures // never handed out (get copies it), so every entry may share it
	if len(m.Features) > 0 {
		kept.Features = cloneFeatures(m.Features)
	}
	c.entries[key] = resolvedRow{r, &kept}
}
