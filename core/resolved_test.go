package core

import (
	"database/sql"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/tsstore/tsstore/core/internal/catalog"
)

// A read-only store answers every lookup from its cache as the catalog answered it the
// first time: by key, with and without the id hint, by owner and name, with features; a
// refusal (ambiguous, not found) is refused again each time; a record handed out is the
// caller's, so changing it changes no later answer.
func TestReadOnlyLookupsAnswerAlikeAgain(t *testing.T) {
	s, path := newStore(t)
	plain, high := addLoads(t, s)
	wide := mustAdd(t, s, gen(3), &SingleTimeSeries{Name: "curve", InitialTimestamp: t0, Resolution: Hours(1),
		Data: ArrayOf(ramp(24, 300), 8, 3)}, nil)
	withID := plain.Lookup()
	withID.ID = 1
	lookups := []Lookup{
		plain.Lookup(), withID, wide.Lookup(),
		{OwnerID: 1, Name: "load"},
		{OwnerID: 2, Name: "load", Features: high},
		{OwnerID: 2, Name: "load", Features: high, ExactFeatures: true},
		{OwnerID: 2, Name: "load"}, // two series include no features: ambiguous
		{OwnerID: 9, Name: "load"}, // none
	}
	type answer struct {
		m    *Metadata
		data []float64
		err  string
	}
	read := func(s *Store, q Lookup) answer {
		t.Helper()
		dst := make([]byte, 24*8)
		m, _, err := s.ReadInto(q, Part{}, dst)
		if err != nil {
			return answer{err: err.Error()}
		}
		return answer{m: m, data: floats(t, TypedArray{DType: F64, Shape: []int{24}, Data: dst})}
	}
	want := make([]answer, len(lookups))
	for i, q := range lookups {
		want[i] = read(s, q) // a writable store keeps nothing
	}
	s = reopenReadOnly(t, s, path)
	for round := range 3 {
		for i, q := range lookups {
			got := read(s, q)
			if !reflect.DeepEqual(got, want[i]) {
				t.Fatalf("round %d, lookup %d (%s): %+v, want %+v", round, i, q, got, want[i])
			}
			if got.m != nil { // the caller's copy
				if len(got.m.ElementShape) > 0 {
					got.m.ElementShape[0] = 99
				}
				got.m.Features["added"] = Str("by the caller")
			}
		}
	}
	if n := len(s.resolved.entries); n != 5 {
		t.Fatalf("%d lookups kept, want the 5 that found a series (a hint makes no entry of its own)", n)
	}
}

// The cache holds at most resolvedEntries lookups, and what it still holds is what was put.
func TestResolvedCacheStaysBounded(t *testing.T) {
	var c resolvedCache
	for i := range resolvedEntries + 1000 {
		q := Lookup{OwnerID: int64(i), Name: "load"}
		c.put(q.resolvedKey(), &catalog.Row{Name: "load"}, &Metadata{ID: int64(i), ElementShape: []int{i}})
		if len(c.entries) > resolvedEntries {
			t.Fatalf("%d entries after %d puts", len(c.entries), i+1)
		}
	}
	kept := 0
	for i := range resolvedEntries + 1000 {
		_, m, ok := c.get(Lookup{OwnerID: int64(i), Name: "load"}.resolvedKey())
		if !ok {
			continue
		}
		kept++
		if m.ID != int64(i) || !reflect.DeepEqual(m.ElementShape, []int{i}) {
			t.Fatalf("lookup %d gives %+v", i, m)
		}
	}
	if kept < resolvedEntries/2 {
		t.Fatalf("only %d kept", kept)
	}
	// Large entries: the bytes bound the cache, and one too large is not kept.
	var big resolvedCache
	ext := strings.Repeat("x", 100_000)
	for i := range 1000 {
		r := &catalog.Row{Name: "load", Ext: sql.NullString{String: ext, Valid: true}}
		big.put(Lookup{OwnerID: int64(i), Name: "load"}.resolvedKey(), r, &Metadata{ID: int64(i), Ext: ext})
		if big.bytes > resolvedBytes || big.bytes < 100_000*len(big.entries) {
			t.Fatalf("after %d puts: %d bytes counted for %d entries", i+1, big.bytes, len(big.entries))
		}
	}
	huge := &catalog.Row{Name: "load", TimestampsJSON: sql.NullString{String: strings.Repeat("1", resolvedLargest), Valid: true}}
	big.put(Lookup{OwnerID: -1, Name: "load"}.resolvedKey(), huge, &Metadata{})
	if _, _, ok := big.get(Lookup{OwnerID: -1, Name: "load"}.resolvedKey()); ok {
		t.Fatal("an entry larger than resolvedLargest was kept")
	}
	for k, e := range big.entries { // a key kept again is counted once
		before, small := big.bytes, &catalog.Row{Name: "load"}
		big.put(k, small, &Metadata{})
		if want := before - e.size + entrySize(small, &Metadata{}); big.bytes != want {
			t.Fatalf("a key put again: %d bytes counted, want %d", big.bytes, want)
		}
		break
	}
	// Lookups that differ in any part are different entries.
	base := Lookup{OwnerID: 1, Name: "load"}
	keys := map[lookupKey]string{}
	for name, q := range map[string]Lookup{
		"base": base, "name": {OwnerID: 1, Name: "Load"}, "owner": {OwnerID: 2, Name: "load"},
		"category": {OwnerID: 1, Name: "load", OwnerCategory: ptr(Component)},
		"type":     {OwnerID: 1, Name: "load", Type: ptr(SingleTimeSeriesType)},
		"res":      {OwnerID: 1, Name: "load", Resolution: ptr(Hours(1))},
		"interval": {OwnerID: 1, Name: "load", Interval: ptr(Hours(1))},
		"none":     {OwnerID: 1, Name: "load", Features: Features{}},
		"zero":     {OwnerID: 1, Name: "load", Features: Features{"x": FloatAsGiven(0)}},
		"minus0":   {OwnerID: 1, Name: "load", Features: Features{"x": FloatAsGiven(math.Copysign(0, -1))}},
		"exact":    {OwnerID: 1, Name: "load", ExactFeatures: true},
	} {
		if other, dup := keys[q.resolvedKey()]; dup {
			t.Fatalf("lookups %q and %q share an entry", name, other)
		}
		keys[q.resolvedKey()] = name
	}
	hinted := base
	hinted.ID = 7
	if base.resolvedKey() != hinted.resolvedKey() {
		t.Fatal("the id hint changes the entry")
	}
}

// Bulk reads of a read-only store, some of whose series were read one at a time first (kept)
// and some not, read what a writable store reads, again and again.
func TestBulkReadsAnswerAlikeFromTheCache(t *testing.T) {
	s, path := newStore(t)
	var keys []Key
	for i := range 40 {
		var opts *AddOptions
		if i%3 == 0 {
			opts = &AddOptions{Features: Features{"n": Int(int64(i))}}
		}
		keys = append(keys, mustAdd(t, s, gen(int64(i)), hourly("load", ramp(24, float64(100*i))), opts))
	}
	want, err := s.GetMany(keys)
	if err != nil {
		t.Fatal(err)
	}
	s = reopenReadOnly(t, s, path)
	for i := 0; i < len(keys); i += 2 {
		if _, err := s.GetMetadata(keys[i].Lookup()); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 {
		got, err := s.GetMany(keys)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: GetMany differs (%v)", round, err)
		}
		dsts := make([][]byte, len(keys))
		for i := range dsts {
			dsts[i] = make([]byte, 24*8)
		}
		ms, _, err := s.ReadManyInto(Lookups(keys), dsts)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range ms {
			if m.Key.String() != keys[i].String() || len(m.Features) != len(keys[i].Features) {
				t.Fatalf("round %d: ReadManyInto item %d is %s", round, i, m.Key)
			}
			v := floats(t, TypedArray{DType: F64, Shape: []int{24}, Data: dsts[i]})
			if v[5] != float64(100*i+5) {
				t.Fatalf("round %d: ReadManyInto item %d reads %v", round, i, v[:6])
			}
			m.Features["added"] = Str("by the caller")
		}
	}
	if n := len(s.resolved.entries); n != len(keys) {
		t.Fatalf("%d lookups kept for %d keys", n, len(keys))
	}
	// A first bulk read that names series twice keeps each once, its size counted once.
	s = reopenReadOnly(t, s, path)
	twice := append(slices.Clone(keys[1:7]), keys[1:7]...)
	got, err := s.GetMany(twice)
	if err != nil || !reflect.DeepEqual(got[6:], want[1:7]) || !reflect.DeepEqual(got[:6], want[1:7]) {
		t.Fatalf("a read naming series twice differs (%v)", err)
	}
	sum := 0
	for _, e := range s.resolved.entries {
		sum += e.size
	}
	if len(s.resolved.entries) != 6 || s.resolved.bytes != sum {
		t.Fatalf("%d entries of %d bytes counted as %d", len(s.resolved.entries), sum, s.resolved.bytes)
	}
}

// A listing on a read-only store keeps what it decoded, and every exact spelling of a key
// listed then answers from that entry: Key.Lookup, the one a binding makes (no interval
// given, no features as nil), with an id hint. Has answers from it too. Lookups that are
// not exact keep entries of their own, and a listing keeps nothing on a writable store.
func TestAListingKeepsWhatEveryExactSpellingAsks(t *testing.T) {
	s, path := newStore(t)
	plain, high := addLoads(t, s)
	if _, err := s.ListKeys(KeyFilter{}); err != nil || len(s.resolved.entries) != 0 {
		t.Fatalf("a writable store's listing kept %d entries (%v)", len(s.resolved.entries), err)
	}
	s = reopenReadOnly(t, s, path)
	keys, err := s.ListKeys(KeyFilter{})
	if err != nil || len(keys) != 3 || len(s.resolved.entries) != 3 {
		t.Fatalf("%d keys listed, %d entries kept (%v)", len(keys), len(s.resolved.entries), err)
	}
	for i, k := range keys {
		bare := Lookup{OwnerID: k.OwnerID, OwnerCategory: &k.OwnerCategory, Type: &k.Type, Name: k.Name,
			Resolution: &k.Resolution, ExactFeatures: true}
		if len(k.Features) > 0 {
			bare.Features = k.Features
		}
		hinted := k.Lookup()
		hinted.ID = int64(100 + i) // no such row: the hint is not followed, and not part of the entry
		for _, q := range []Lookup{k.Lookup(), bare, hinted} {
			if !s.resolved.has(q.resolvedKey()) {
				t.Fatalf("key %d: %s is not the listed entry", i, q)
			}
			if found, err := s.Has(q); !found || err != nil {
				t.Fatalf("key %d: Has(%s) = %v, %v", i, q, found, err)
			}
			m, err := s.GetMetadata(q)
			if err != nil || m.Key.String() != k.String() {
				t.Fatalf("key %d: %s found %v (%v)", i, q, m, err)
			}
		}
	}
	if len(s.resolved.entries) != 3 {
		t.Fatalf("the exact lookups made %d entries of 3", len(s.resolved.entries))
	}
	// Not exact: its own entry, its own answer (the plain series and the "high" superset).
	loose := Lookup{OwnerID: plain.OwnerID, Name: "load"}
	if _, err := s.GetMetadata(loose); err != nil || len(s.resolved.entries) != 4 {
		t.Fatalf("a loose lookup: %d entries (%v)", len(s.resolved.entries), err)
	}
	missing := plain
	missing.Features = high
	if found, err := s.Has(missing); found || err != nil {
		t.Fatalf("Has of a key not stored: %v, %v", found, err)
	}
}

// A listing fills the cache only while there is room: it evicts nothing.
func TestAListingEvictsNothing(t *testing.T) {
	var c resolvedCache
	for i := range resolvedEntries - 2 {
		c.putMissed(Lookup{OwnerID: int64(-1 - i), Name: "kept"}.resolvedKey(), &catalog.Row{}, &Metadata{})
	}
	rows := make([]catalog.Row, 5)
	ms := make([]Metadata, 5)
	for i := range ms {
		ms[i].Key = Key{OwnerID: int64(i), OwnerCategory: Component, Name: "listed", Type: SingleTimeSeriesType,
			Resolution: Hours(1)}
		id, err := keyIdentity(ms[i].Key)
		if err != nil {
			t.Fatal(err)
		}
		rows[i] = catalog.Row{OwnerID: id.OwnerID, OwnerCategory: id.OwnerCategory, SeriesType: id.SeriesType,
			Name: id.Name, Resolution: sql.NullString{String: id.Resolution, Valid: true}, FeaturesHash: id.FeaturesHash}
	}
	// A row too large to keep, listed first, is neither kept nor copied beside the kept ones:
	// once the listing is dropped, its text is collected.
	bigText := strings.Repeat("1", resolvedLargest+1)
	text := weak.Make(unsafe.StringData(bigText))
	big := rows[0]
	big.Name, big.TimestampsJSON = "big", sql.NullString{String: bigText, Valid: true}
	bigKey := ms[0].Key
	bigKey.Name = "big"
	c.prime(append([]catalog.Row{big}, rows...), append([]Metadata{{Key: bigKey}}, ms...))
	big, bigText = catalog.Row{}, ""
	runtime.GC()
	if text.Value() != nil {
		t.Fatal("a row too large to keep is held by the cache")
	}
	for _, e := range c.entries { // copies: a kept row does not hold the listing's array
		for i := range rows {
			if e.r == &rows[i] {
				t.Fatalf("entry of row %d points into the listing", i)
			}
		}
	}
	if len(c.entries) != resolvedEntries {
		t.Fatalf("%d entries after the listing, want %d", len(c.entries), resolvedEntries)
	}
	for i := range resolvedEntries - 2 {
		if !c.has(Lookup{OwnerID: int64(-1 - i), Name: "kept"}.resolvedKey()) {
			t.Fatalf("entry %d was evicted by a listing", i)
		}
	}
}

// rewriteCatalog runs statements on a closed store's catalog, as another writer might.
func rewriteCatalog(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+CatalogPath(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
}

// Rows another writer spelled otherwise are found by no exact lookup of the key they decode
// to: a resolution written "PT60M" (alone, and as the twin of a "PT1H" row), a feature set
// with no feature_sets rows. A listing keeps no such row, and a hinted lookup does not take
// one, so has, a lookup, a bulk read and a hinted lookup answer as they did before anything
// was listed.
func TestOnlyRowsTheirKeysFindAreKept(t *testing.T) {
	s, path := newStore(t)
	twin := mustAdd(t, s, gen(1), hourly("load", ramp(24, 0)), nil)
	mustAdd(t, s, gen(1), hourly("other", ramp(24, 100)), nil)
	solo := mustAdd(t, s, gen(2), hourly("solo", ramp(24, 200)), nil)
	plain := mustAdd(t, s, gen(3), hourly("p", ramp(24, 300)), nil)
	mustAdd(t, s, gen(3), hourly("p", ramp(24, 400)), &AddOptions{Features: Features{"x": Int(1)}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	x := Features{"x": Int(1)}.hash()
	rewriteCatalog(t, path,
		"UPDATE time_series_associations SET name = 'load', resolution = 'PT60M' WHERE name = 'other'",
		"UPDATE time_series_associations SET resolution = 'PT60M' WHERE name = 'solo'",
		fmt.Sprintf("DELETE FROM feature_sets WHERE hex(features_hash) = '%X'", x[:]))
	answers := func(s *Store) string {
		var b strings.Builder
		for _, k := range []Key{twin, solo, plain} {
			has, err := s.Has(k)
			fmt.Fprintf(&b, "%s: has %v %v; ", k, has, err)
			first := has
			m, err := s.GetMetadata(k.Lookup())
			fmt.Fprintf(&b, "lookup %d %v; ", idOf(m), err)
			hinted := k.Lookup()
			for id := int64(1); id <= 5; id++ {
				hinted.ID = id
				m, err = s.GetMetadata(hinted)
				fmt.Fprintf(&b, "hint %d: %d %v; ", id, idOf(m), err)
			}
			ts, err := s.GetMany([]Key{k})
			if err == nil {
				v, _ := Values[float64](ts[0].(*SingleTimeSeries).Data)
				fmt.Fprintf(&b, "bulk %v; ", v[0])
			} else {
				fmt.Fprintf(&b, "bulk %v; ", err)
			}
			if has, err = s.Has(k); has != first || err != nil {
				t.Errorf("%s: has %v, then after the lookups %v (%v)", k, first, has, err)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	s, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	want := answers(s)
	s.Close()
	if !strings.Contains(want, "solo") || !strings.Contains(want, "has false") {
		t.Fatalf("the rewritten rows are found by their keys:\n%s", want)
	}
	if s, err = OpenReadOnly(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ListKeys(KeyFilter{}); err != nil {
		t.Fatal(err)
	}
	if got := answers(s); got != want {
		t.Fatalf("after a listing:\n%s\nbefore:\n%s", got, want)
	}
}

func idOf(m *Metadata) int64 {
	if m == nil {
		return -1
	}
	return m.ID
}
