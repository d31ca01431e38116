package core

import (
	"slices"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
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
	bytes   int // the entries' sizes (entrySize), at most resolvedBytes
}

// The cache holds at most resolvedEntries entries and resolvedBytes of them (a usual entry
// is about 800 bytes; a NonSequential series' row carries its timestamps' JSON, and any row
// its ext text, which may be far larger). A full cache drops a quarter of its entries, or
// of its bytes, chosen by the map's random order. An entry larger than resolvedLargest is
// not kept.
const (
	resolvedEntries = 16384
	resolvedBytes   = 32 << 20
	resolvedLargest = resolvedBytes / 64
)

// noFeatures is the empty feature set of every entry without features.
var noFeatures = Features{}

type resolvedRow struct {
	r    *catalog.Row
	m    *Metadata
	size int
}

// entrySize is about what an entry holds: its structures and the text and arrays they refer
// to (the record's strings are the row's).
func entrySize(r *catalog.Row, m *Metadata) int {
	size := 800 + len(r.OwnerType) + len(r.Name) + len(r.TimestampsJSON.String) + len(r.PercentilesJSON.String) +
		len(r.ElementShape.String) + len(r.Units.String) + len(r.Ext.String) + 8*len(m.Percentiles) +
		8*len(m.ElementShape)
	for k, v := range m.Features {
		size += 64 + len(k) + len(v.s)
	}
	return size
}

// lookupKey is a Lookup as a map key: its optional parts with whether they are given, its
// features as the hash of their bits (a nil map, any features: none given). The ID is left
// out: it is a hint that changes how a row is found, never which (byHint). The zero key is
// no lookup's (every lookup names a series), and findBatch uses it for "not kept".
type lookupKey struct {
	owner                      int64
	category                   OwnerCategory
	typ                        SeriesType
	name                       string
	resolution, interval       Period
	hasCategory, hasType       bool
	hasResolution, hasInterval bool
	hasFeatures, exactFeatures bool
	features                   hashing.Digest
}

func (q Lookup) resolvedKey() lookupKey {
	if q.ExactFeatures {
		if k, ok := q.exactKey(); ok {
			return k.resolvedKey()
		}
	}
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
	if q.Features != nil { // -0.0 and 0.0 are told apart, as the lookup does
		k.features, k.hasFeatures = q.Features.bitsHash(), true
	}
	return k
}

// resolvedKey is the one entry every exact lookup of k shares (ExactFeatures, and exactKey
// gives k), however it is spelled: a period of zero given or left out where the type has
// none, no features as nil or empty. Such a lookup's answer is k's row whatever the spelling
// (search: byHint and lookupMetadata both go by exactKey), so a row found by a listing, a
// Key or a binding's lookup serves the others.
func (k Key) resolvedKey() lookupKey {
	return lookupKey{owner: k.OwnerID, category: k.OwnerCategory, typ: k.Type, name: k.Name,
		resolution: k.Resolution, interval: k.Interval, hasCategory: true, hasType: true, hasResolution: true,
		hasInterval: true, hasFeatures: true, exactFeatures: true, features: k.Features.bitsHash()}
}

// has reports whether an entry is kept for key, copying nothing.
func (c *resolvedCache) has(key lookupKey) bool {
	_, ok := c.entries[key]
	return ok
}

// prime keeps what a listing decoded, each record under its key's entry, while there is
// room: a listing evicts nothing, so that listing a store larger than the cache does not
// churn it. The keys listed then cost a first has or get what a repeated one costs. Each row
// kept is copied, so that the listing's other rows are not held. A row is kept only when an
// exact lookup of its decoded key finds it (foundByItsKey: a row another writer spelled
// otherwise, "PT60M" for "PT1H", or whose feature set does not decode to its hash, is found
// by no such lookup); an entry kept already is left as it is.
func (c *resolvedCache) prime(rows []catalog.Row, ms []Metadata) {
	var slab []catalog.Row
	for i := range ms {
		if len(c.entries) >= resolvedEntries || c.bytes >= resolvedBytes*3/4 {
			return
		}
		key := ms[i].Key.resolvedKey()
		if c.has(key) || entrySize(&rows[i], &ms[i]) > resolvedLargest || !foundByItsKey(&rows[i], ms[i].Key) {
			continue // kept already, too large to keep (not copied either), or found by no lookup of its key
		}
		if slab == nil {
			slab = make([]catalog.Row, 0, min(len(ms)-i, resolvedEntries-len(c.entries)))
		}
		slab = append(slab, rows[i])
		c.putMissed(key, &slab[len(slab)-1], &ms[i])
	}
}

// foundByItsKey reports whether r is the row an exact lookup of k, its decoded key, finds:
// r's identity columns are the text k's identity searches for. A key with -0.0 features
// (probed under two identities) is not asked.
func foundByItsKey(r *catalog.Row, k Key) bool {
	if k.Features.hasNegativeZero() {
		return false
	}
	id, err := keyIdentity(k)
	return err == nil && identityOf(r).MapKey() == id.MapKey()
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
	copyRecord(m, e.m, cloneFeatures(e.m.Features))
	return e.r, true
}

// copyRecord writes into dst a copy of src with slices of its own and the given features.
func copyRecord(dst, src *Metadata, features Features) {
	*dst = *src
	dst.Percentiles, dst.ElementShape, dst.Features = slices.Clone(src.Percentiles), slices.Clone(src.ElementShape), features
}

// reserve makes room for n more entries at once, as a bulk read about to keep them does:
// a map grown one entry at a time rehashes its entries again and again.
func (c *resolvedCache) reserve(n int) {
	if c.entries == nil {
		c.entries = make(map[lookupKey]resolvedRow, min(n, resolvedEntries))
	}
}

// put keeps a copy of what find answered for key, unless it is too large to keep.
func (c *resolvedCache) put(key lookupKey, r *catalog.Row, m *Metadata) {
	if old, ok := c.entries[key]; ok { // kept already
		c.bytes -= old.size
		delete(c.entries, key)
	}
	c.putMissed(key, r, m)
}

// putMissed is put for a key that getInto has just missed, as a bulk read's are: one map
// operation (a probe before the assignment was a sixth of what keeping cost a first bulk
// read). A key a bulk read names twice is missed twice and kept twice, the same row each time
// (a read-only catalog answers a lookup the same way), so its size is counted once.
func (c *resolvedCache) putMissed(key lookupKey, r *catalog.Row, m *Metadata) {
	size := entrySize(r, m)
	if size > resolvedLargest {
		return
	}
	if c.entries == nil {
		c.entries = make(map[lookupKey]resolvedRow)
	}
	if len(c.entries) >= resolvedEntries || c.bytes+size > resolvedBytes {
		c.shrink()
	}
	features := noFeatures // never handed out (get copies it), so every entry may share it
	if len(m.Features) > 0 {
		features = cloneFeatures(m.Features)
	}
	kept := new(Metadata)
	copyRecord(kept, m, features)
	before := len(c.entries)
	c.entries[key] = resolvedRow{r, kept, size}
	if len(c.entries) > before {
		c.bytes += size
	}
}

// shrink drops entries, in the map's random order, until at most three quarters of the
// entries and of the bytes the cache may hold are left.
func (c *resolvedCache) shrink() {
	for k, e := range c.entries {
		if len(c.entries) <= resolvedEntries*3/4 && c.bytes <= resolvedBytes*3/4 {
			return
		}
		delete(c.entries, k)
		c.bytes -= e.size
	}
}
