package catalog

import (
	"bytes"
	"database/sql"
	"errors"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"weak"
)

func row(owner int64, name string) *Row {
	h := make([]byte, 32)
	return &Row{OwnerID: owner, OwnerType: "G", OwnerCategory: "Component", SeriesType: "SingleTimeSeries",
		Name: name, Resolution: sql.NullString{String: "PT1H", Valid: true}, DType: "f64",
		DataHash: h, FeaturesHash: h}
}

// freshCatalog is a new writable catalog in a temporary directory, closed at the test's end.
func freshCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func count(t *testing.T, c *Catalog) int {
	t.Helper()
	rows, err := c.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

func TestNestedRollbackUndoesOnlyTheInnerLevel(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	c.Insert(row(1, "a"))
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	c.Insert(row(2, "b"))
	if n := count(t, c); n != 2 {
		t.Fatalf("inside: %d rows", n)
	}
	if err := c.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c); n != 1 {
		t.Fatalf("after inner rollback + outer commit: %d rows, want 1", n)
	}
}

func TestDuplicateIdentityIsErrUnique(t *testing.T) {
	c, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Insert(row(1, "a")); err != nil {
		t.Fatal(err)
	}
	// NULL interval: only the COALESCE index catches this duplicate.
	if _, err := c.Insert(row(1, "a")); !errors.Is(err, ErrUnique) {
		t.Fatalf("want ErrUnique, got %v", err)
	}
}

func TestOpenWithoutCreateRefusesMissingFile(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "missing.sqlite"), false, false)
	if !errors.Is(err, ErrNoCatalog) {
		t.Fatalf("want ErrNoCatalog, got %v", err)
	}
}

// InsertRows adds rows in order on its three paths (one Insert a row, the driver's statement,
// and that with the non-unique indexes built after the rows) and reports the index of a
// duplicate; the catalog keeps every index, as it was defined, on each.
func TestInsertRowsReportsTheDuplicate(t *testing.T) {
	for _, n := range []int{3, 40, bulkIndexRows} {
		c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
		if err != nil {
			t.Fatal(err)
		}
		schema := indexSchema(t, c)
		if len(schema) < 7 {
			t.Fatalf("the new catalog has %d indexes: %q", len(schema), schema)
		}
		if err := c.Begin(); err != nil {
			t.Fatal(err)
		}
		rows := make([]*Row, n)
		for i := range rows {
			rows[i] = row(int64(i), "a")
		}
		if done, err := c.InsertRows(rows); err != nil || done != n {
			t.Fatalf("%d rows: InsertRows = %d, %v", n, done, err)
		}
		if got := count(t, c); got != n {
			t.Fatalf("%d rows: %d stored", n, got)
		}
		again := []*Row{row(int64(n), "a"), rows[n-1]} // the second row is stored already
		for len(again) < n {
			again = append(again, row(int64(n+len(again)), "a"))
		}
		sameIndexes(t, c, schema)
		if done, err := c.InsertRows(again); !errors.Is(err, ErrUnique) || done != 1 {
			t.Fatalf("%d rows: a duplicate second row: InsertRows = %d, %v; want 1, ErrUnique", n, done, err)
		}
		sameIndexes(t, c, schema)
		c.Rollback()
		c.Close()
	}
}

// InsertRows names only the columns a row sets, so rows whose NULLs differ take different
// statements: each row must come back with its own values, NULL and "" told apart, whether
// the rows alternate statements or run in blocks of one, on either insert path.
func TestInsertRowsStoresEachRowsOwnNulls(t *testing.T) {
	text := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	varied := func(i int) *Row {
		r := row(int64(i), "a")
		if i%2 == 0 {
			r.ElementShape = text("3")
		}
		if i%3 == 0 {
			r.Units = text("MW")
		}
		if i%5 == 0 {
			r.Ext = text("") // empty, not NULL
		}
		if i%7 == 0 {
			r.SeriesType, r.Horizon, r.Interval = "Deterministic", text("P1D"), text("PT12H")
			r.Count = sql.NullInt64{Int64: int64(i), Valid: true}
		}
		if i >= 40 { // a block of like rows after the alternating ones
			r.Units = text("kV")
		}
		return r
	}
	for _, n := range []int{insertRowsMin - 1, 60} {
		c := freshCatalog(t)
		rows := make([]*Row, n)
		for i := range rows {
			rows[i] = varied(i)
		}
		if done, err := c.InsertRows(rows); err != nil || done != n {
			t.Fatalf("%d rows: InsertRows = %d, %v", n, done, err)
		}
		stored, err := c.List(Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != n {
			t.Fatalf("%d rows: %d stored", n, len(stored))
		}
		for _, got := range stored {
			want := varied(int(got.OwnerID))
			if g, w := got.insertValues(), want.insertValues(); !reflect.DeepEqual(g, w) {
				t.Fatalf("%d rows: owner %d stored as\n%v\nwant\n%v", n, got.OwnerID, g, w)
			}
		}
	}
}

// InsertRows keeps nothing of the rows it was given: a bulk add's rows and hashes live in
// one slab of its pending series, which the driver statement's arguments (the last row's
// values) once kept alive after the call, with every array the slab referred to.
func TestInsertRowsKeepsNoRowAlive(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	type item struct {
		row    Row
		digest [32]byte
	}
	add := func(first, n int) weak.Pointer[item] {
		slab := make([]item, n)
		rows := make([]*Row, n)
		for i := range slab {
			slab[i].row = *row(int64(first+i), "a")
			slab[i].digest[0] = byte(i)
			slab[i].row.DataHash = slab[i].digest[:]
			rows[i] = &slab[i].row
		}
		if done, err := c.InsertRows(rows); err != nil || done != n {
			t.Fatalf("InsertRows = %d, %v", done, err)
		}
		return weak.Make(&slab[0])
	}
	for i, n := range []int{insertRowsMin, 3 * insertRowsMin} { // the statement's path, twice
		slab := add(i*1000, n)
		runtime.GC()
		if slab.Value() != nil {
			t.Fatalf("batch %d: the rows given to InsertRows are still reachable after it returned", i)
		}
	}
	if got := count(t, c); got != 4*insertRowsMin {
		t.Fatalf("%d rows stored, want %d", got, 4*insertRowsMin)
	}
}

// indexSchema is each index's CREATE statement by name.
func indexSchema(t *testing.T, c *Catalog) map[string]string {
	t.Helper()
	rows, err := c.conn.QueryContext(ctx, `SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'index'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, stmt string
		if err := rows.Scan(&name, &stmt); err != nil {
			t.Fatal(err)
		}
		out[name] = stmt
	}
	return out
}

// sameIndexes fails unless c has the indexes of want, each as defined there, SQLite finds
// them consistent with the table, and a lookup through idx_hash finds every row.
func sameIndexes(t *testing.T, c *Catalog, want map[string]string) {
	t.Helper()
	got := indexSchema(t, c)
	for name, stmt := range want {
		if got[name] != stmt {
			t.Errorf("index %s: %q, want %q", name, got[name], stmt)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d indexes, want %d", len(got), len(want))
	}
	var check string
	if err := c.conn.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	var byHash, all int
	if err := c.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM time_series_associations INDEXED BY idx_hash
		WHERE data_hash = ?`, make([]byte, 32)).Scan(&byHash); err != nil {
		t.Fatal(err)
	}
	if all = count(t, c); byHash != all {
		t.Errorf("idx_hash finds %d rows of %d", byHash, all)
	}
}

// A read-only catalog keeps its read transaction for its whole life, so that a lookup costs
// the B-tree search and not SQLite's lock and recheck: another connection's write waits for it
// to close, as the store's rule (readers exclude a writer) says.
func TestReadOnlyCatalogHoldsItsReadLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	w, err := Open(path, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Insert(row(1, "a")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if found, err := r.Exists(identity(row(1, "a"))); err != nil || !found {
		t.Fatalf("exists: %v %v", found, err)
	}
	other, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(`DELETE FROM time_series_associations`); err == nil {
		t.Fatal("another connection deleted the rows under an open read-only catalog")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(`DELETE FROM time_series_associations`); err != nil {
		t.Fatalf("the write after the read-only catalog closed: %v", err)
	}
}

// Exists sees the rows of the open transaction and forgets them when it rolls back (its
// statement is the driver's own, kept for the catalog's life).
func TestExistsFollowsTheTransaction(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, b := row(1, "a"), row(2, "b")
	if _, err := c.Insert(a); err != nil {
		t.Fatal(err)
	}
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(b); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Row{a, b} {
		if found, err := c.Exists(identity(r)); err != nil || !found {
			t.Fatalf("%s inside the transaction: %v %v", r.Name, found, err)
		}
	}
	if err := c.Rollback(); err != nil {
		t.Fatal(err)
	}
	if found, err := c.Exists(identity(b)); err != nil || found {
		t.Fatalf("b after the rollback: %v %v", found, err)
	}
	if found, err := c.Exists(identity(a)); err != nil || !found {
		t.Fatalf("a after the rollback: %v %v", found, err)
	}
	miss := identity(a)
	miss.Resolution = "PT2H"
	if found, err := c.Exists(miss); err != nil || found {
		t.Fatalf("another resolution: %v %v", found, err)
	}
}

// identity is the row's key as Exists takes it.
func identity(r *Row) Identity {
	return Identity{OwnerID: r.OwnerID, OwnerCategory: r.OwnerCategory, SeriesType: r.SeriesType, Name: r.Name,
		Resolution: r.Resolution.String, Interval: r.Interval.String, FeaturesHash: r.FeaturesHash}
}

// A row whose column holds another type than the field's (here units as a BLOB, which another
// writer may leave in a TEXT column) reads as database/sql converts it.
func TestLookupConvertsForeignColumnTypes(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := row(1, "a")
	if _, err := c.Insert(r); err != nil {
		t.Fatal(err)
	}
	got, err := c.Lookup(identity(r))
	if err != nil || got == nil || got.Units.Valid {
		t.Fatalf("lookup before: %+v %v", got, err)
	}
	if _, err := c.exec(`UPDATE time_series_associations SET units = X'6d57'`); err != nil {
		t.Fatal(err)
	}
	got, err = c.Lookup(identity(r))
	if err != nil || got == nil {
		t.Fatalf("lookup of the BLOB units: %+v %v", got, err)
	}
	if !got.Units.Valid || got.Units.String != "mW" || got.Name != "a" || got.OwnerID != 1 {
		t.Fatalf("units %+v, row %+v", got.Units, got)
	}
	if got, err := c.Lookup(Identity{OwnerID: 2, OwnerCategory: "Component", SeriesType: "SingleTimeSeries", Name: "a",
		Resolution: "PT1H", FeaturesHash: r.FeaturesHash}); err != nil || got != nil {
		t.Fatalf("lookup of a missing row: %+v %v", got, err)
	}
}

// LookupMany finds a group that is a large share of the table in one pass over it, and what
// it finds equals one Lookup per identity: asked-for rows among rows of other names and of
// owners nobody asked for, missing identities (nil), an identity asked twice; and when a row
// holds a column of another type (a BLOB units), the same rows through the owner lists.
func TestLookupManyByScanEqualsLookups(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rows []*Row
	for i := 0; i < 900; i++ {
		r := row(int64(i), []string{"a", "b"}[i%2])
		r.DataHash = append([]byte{byte(i), byte(i >> 8)}, make([]byte, 30)...)
		r.Units = sql.NullString{String: "MW", Valid: i%3 == 0}
		rows = append(rows, r)
	}
	if _, err := c.InsertRows(rows); err != nil {
		t.Fatal(err)
	}
	var ks []Identity
	for i := 0; i < 1000; i += 3 { // every third owner of "a": ~150 stored, ~17 past the table
		ks = append(ks, identity(row(int64(i), "a")))
	}
	for i := 0; i < 1000; i += 2 { // most of the "a" rows, so that the group is a large share
		ks = append(ks, identity(row(int64(i), "a")))
	}
	if len(ks) < lookupScanMin || int64(len(ks))*lookupScanShare < 900 {
		t.Fatalf("%d identities do not take the scan", len(ks))
	}
	check := func(when string) { t.Helper(); lookupManyEqualsLookups(t, c, ks, when) }
	check("scan")
	if _, err := c.exec(`UPDATE time_series_associations SET units = X'6d57' WHERE owner_id = 6`); err != nil {
		t.Fatal(err)
	}
	check("a BLOB column")
	if got, _ := c.LookupMany(ks[2:3], nil); got[0] == nil || got[0].Units.String != "mW" {
		t.Fatalf("the BLOB units read as %+v", got[0])
	}
}

// A listing by owner reads its rows through the driver and sorts them by id: the same rows in
// the same order as without the owner, for an owner with rows in both categories and other
// names, with a limit, and when a column holds another type than its field's (units as a
// BLOB), which only database/sql converts.
func TestListByOwnerEqualsTheFilteredListing(t *testing.T) {
	c := freshCatalog(t)
	for i, spec := range []struct {
		owner    int64
		category string
		name     string
	}{{7, "SupplementalAttribute", "a"}, {7, "Component", "b"}, {8, "Component", "a"}, {7, "Component", "a"},
		{7, "SupplementalAttribute", "b"}, {9, "Component", "a"}} {
		r := row(spec.owner, spec.name)
		r.OwnerCategory = spec.category
		r.DataHash = []byte{byte(i), 1}
		if _, err := c.Insert(r); err != nil {
			t.Fatal(err)
		}
	}
	owner := int64(7)
	byOwner := func(f Filter) []Row {
		t.Helper()
		f.OwnerID = &owner
		rows, err := c.List(f)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	var ids []int64
	for _, r := range byOwner(Filter{}) {
		ids = append(ids, r.ID)
	}
	if !reflect.DeepEqual(ids, []int64{1, 2, 4, 5}) {
		t.Fatalf("owner 7's rows: ids %v, want 1 2 4 5 (insertion order)", ids)
	}
	if got := byOwner(Filter{Limit: 2}); len(got) != 2 || got[0].ID > got[1].ID || got[0].OwnerID != 7 || got[1].OwnerID != 7 {
		t.Fatalf("a limit of 2: %+v", got)
	}
	all, err := c.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{all[0], all[1], all[3], all[4]}
	if got := byOwner(Filter{}); !reflect.DeepEqual(got, want) {
		t.Fatalf("through the driver:\n%+v\nwant\n%+v", got, want)
	}
	if _, err := c.exec(`UPDATE time_series_associations SET units = X'6d57' WHERE id = 4`); err != nil {
		t.Fatal(err)
	}
	got := byOwner(Filter{})
	if len(got) != 4 || !got[2].Units.Valid || got[2].Units.String != "mW" || got[2].ID != 4 {
		t.Fatalf("with a BLOB units: %+v", got)
	}
}

// List keeps a statement per filter shape: filters of one shape with other values, and
// filters that differ only in a list's length, in which fields are set or in the limit, each
// select their own rows, whatever ran before them.
func TestListKeepsOneStatementPerFilterShape(t *testing.T) {
	c := freshCatalog(t)
	for i, spec := range []struct {
		owner int64
		name  string
		typ   string
	}{{1, "a", "SingleTimeSeries"}, {1, "b", "SingleTimeSeries"}, {2, "a", "Deterministic"}, {2, "a", "SingleTimeSeries"}} {
		r := row(spec.owner, spec.name)
		r.SeriesType = spec.typ
		r.DataHash = []byte{byte(i), 2}
		if _, err := c.Insert(r); err != nil {
			t.Fatal(err)
		}
	}
	str := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }
	for round := 0; round < 2; round++ { // the second round runs on kept statements
		for _, tc := range []struct {
			f    Filter
			want []int64
		}{
			{Filter{OwnerID: i64(1), Name: str("a")}, []int64{1}},
			{Filter{OwnerID: i64(2), Name: str("a")}, []int64{3, 4}},
			{Filter{OwnerID: i64(2), Name: str("a"), SeriesTypes: []string{"SingleTimeSeries"}}, []int64{4}},
			{Filter{OwnerID: i64(2), Name: str("a"), SeriesTypes: []string{"SingleTimeSeries", "Deterministic"}}, []int64{3, 4}},
			{Filter{OwnerID: i64(2), Name: str("a"), Limit: 1}, []int64{3}},
			{Filter{OwnerID: i64(1), OwnerType: str("G")}, []int64{1, 2}},
			{Filter{OwnerID: i64(1), Resolution: str("PT1H")}, []int64{1, 2}},
			{Filter{Name: str("a")}, []int64{1, 3, 4}},
			{Filter{Name: str("b")}, []int64{2}},
			{Filter{NameGlob: str("[ab]"), SeriesTypes: []string{"Deterministic"}}, []int64{3}},
		} {
			rows, err := c.List(tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
			if !reflect.DeepEqual(ids, tc.want) {
				t.Fatalf("round %d, %+v: ids %v, want %v", round, tc.f, ids, tc.want)
			}
		}
	}
	if len(c.listQueries) != 8 {
		t.Fatalf("%d statements kept, want 8 (one per shape)", len(c.listQueries))
	}
}

// A large bulk insert keeps a smaller page cache from its start until its transaction
// ends, committed or rolled back; a small one, or no insert, keeps the read cache.
func TestBulkInsertsShrinkThePageCacheUntilTheTransactionEnds(t *testing.T) {
	c := freshCatalog(t)
	cacheSize := func() string {
		t.Helper()
		var v string
		if err := c.conn.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := cacheSize(); got != readCachePragma {
		t.Fatalf("cache after open: %s, want %s", got, readCachePragma)
	}
	for _, end := range []func() error{c.Commit, c.Rollback} {
		if err := c.Begin(); err != nil {
			t.Fatal(err)
		}
		if err := c.BeginInserts(bulkIndexRows - 1); err != nil {
			t.Fatal(err)
		}
		if err := c.EndInserts(); err != nil {
			t.Fatal(err)
		}
		if got := cacheSize(); got != readCachePragma {
			t.Fatalf("cache during a small insert: %s, want %s", got, readCachePragma)
		}
		if err := c.BeginInserts(bulkIndexRows); err != nil {
			t.Fatal(err)
		}
		if err := c.EndInserts(); err != nil {
			t.Fatal(err)
		}
		if got := cacheSize(); got != bulkCachePragma {
			t.Fatalf("cache after a bulk insert, its transaction open: %s, want %s", got, bulkCachePragma)
		}
		if err := end(); err != nil {
			t.Fatal(err)
		}
		if got := cacheSize(); got != readCachePragma {
			t.Fatalf("cache once the transaction ended: %s, want %s", got, readCachePragma)
		}
	}
}

// The lookups read identityColumns into identityScanTargets, and through the driver into a
// slice of identityColumnCount values: the three must agree.
func TestIdentityColumnsAgree(t *testing.T) {
	n := strings.Count(identityColumns, ",") + 1
	if n != identityColumnCount || len((&Row{}).identityScanTargets()) != n {
		t.Fatalf("identityColumns has %d columns, identityColumnCount is %d, identityScanTargets has %d",
			n, identityColumnCount, len((&Row{}).identityScanTargets()))
	}
}

// Exists and Lookup rebind only the arguments that changed since the statement's last call:
// a run of probes each changing one part of the identity (and a features hash whose slice is
// reused, changed in place) answers each as a fresh probe would.
func TestProbesThatChangeOnePartAtATime(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, b := row(1, "a"), row(1, "b")
	b.Resolution = sql.NullString{}
	b.FeaturesHash = bytes.Repeat([]byte{7}, 32)
	for _, r := range []*Row{a, b} {
		if _, err := c.Insert(r); err != nil {
			t.Fatal(err)
		}
	}
	fh := slices.Clone(a.FeaturesHash)
	id := identity(a)
	id.FeaturesHash = fh
	for i, p := range []struct {
		change func(*Identity)
		want   bool
	}{
		{func(*Identity) {}, true},
		{func(k *Identity) { k.OwnerID = 2 }, false},
		{func(k *Identity) { k.OwnerID = 1 }, true},
		{func(k *Identity) { k.Name = "b" }, false},
		{func(k *Identity) { k.Resolution = "" }, false},
		{func(k *Identity) { copy(fh, b.FeaturesHash) }, true}, // the same slice, changed in place
		{func(k *Identity) { k.SeriesType = "Deterministic" }, false},
		{func(k *Identity) { k.SeriesType = "SingleTimeSeries"; k.Interval = "P1D" }, false},
		{func(k *Identity) { k.Interval = ""; k.OwnerCategory = "SupplementalAttribute" }, false},
		{func(k *Identity) { k.OwnerCategory = "Component" }, true},
		{func(k *Identity) { *k = identity(a) }, true},
	} {
		p.change(&id)
		found, err := c.Exists(id)
		r, lerr := c.Lookup(id)
		if err != nil || lerr != nil || found != p.want || (r != nil) != p.want {
			t.Fatalf("probe %d (%+v): exists %v, row %v (%v, %v), want %v", i, id, found, r != nil, err, lerr, p.want)
		}
	}
}

// LookupMany takes a run of identities of one group as one group, and tells apart
// neighbours that differ in any one part but the owner: each finds its own row, as Lookup
// finds it. The variants are asked in a row, each after the one it differs from.
func TestLookupManyTellsNeighbouringGroupsApart(t *testing.T) {
	c := freshCatalog(t)
	otherFeatures := append(make([]byte, 31), 7)
	variants := []func(r *Row){
		func(r *Row) {},
		func(r *Row) { r.OwnerCategory = "SupplementalAttribute" },
		func(r *Row) { r.SeriesType = "NonSequentialTimeSeries" },
		func(r *Row) { r.Name = "b" },
		func(r *Row) { r.Resolution.String = "PT5M" },
		func(r *Row) { r.Interval = sql.NullString{String: "PT1H", Valid: true} },
		func(r *Row) { r.FeaturesHash = otherFeatures },
	}
	var ks []Identity
	for owner := int64(0); owner < 3; owner++ {
		for v, vary := range variants {
			r := row(owner, "a")
			vary(r)
			r.DataHash = append([]byte{byte(owner), byte(v)}, make([]byte, 30)...)
			if owner < 2 { // owner 2's are asked for, not stored
				if _, err := c.Insert(r); err != nil {
					t.Fatal(err)
				}
			}
			ks = append(ks, identity(r), identity(row(owner, "a")))
		}
	}
	lookupManyEqualsLookups(t, c, ks, "neighbours")
}

// lookupManyEqualsLookups fails unless LookupMany finds for each of ks the row Lookup finds.
func lookupManyEqualsLookups(t *testing.T, c *Catalog, ks []Identity, when string) {
	t.Helper()
	got, err := c.LookupMany(ks, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range ks {
		want, err := c.Lookup(k)
		if err != nil {
			t.Fatal(err)
		}
		if (got[i] == nil) != (want == nil) || (want != nil && !reflect.DeepEqual(*got[i], *want)) {
			t.Fatalf("%s: identity %d (owner %d): LookupMany %+v, Lookup %+v", when, i, k.OwnerID, got[i], want)
		}
	}
}
