// Package catalog is the SQLite half of a store: the DDL of the on-disk format, the
// statements the store runs, and transaction nesting. It knows columns and rows, not series:
// validation and the meaning of a row belong to the core package.
//
// A Catalog holds one connection for its whole life. netcdf-c calls are serialised anyway,
// one connection makes "reads inside a transaction see its writes" hold trivially, and an
// in-memory database (":memory:") exists per connection, so a pool would lose it.
package catalog

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/tsstore/tsstore/core/internal/hashing"
)

// ErrUnique reports a violated unique index (a duplicate key).
var ErrUnique = errors.New("unique constraint violated")

// ErrNoCatalog reports that the catalog file of an existing store is missing.
var ErrNoCatalog = errors.New("catalog file does not exist")

// Row is one time_series_associations row. Nullable columns are sql.Null* so that a NULL
// written by another implementation reads back as NULL, not as a zero value.
type Row struct {
	ID               int64
	OwnerID          int64
	OwnerType        string
	OwnerCategory    string
	SeriesType       string
	Name             string
	InitialTimestamp sql.NullString
	Resolution       sql.NullString
	Length           sql.NullInt64
	Horizon          sql.NullString
	Interval         sql.NullString
	Count            sql.NullInt64
	TimestampsJSON   sql.NullString
	Units            sql.NullString
	PercentilesJSON  sql.NullString
	DType            string
	ElementShape     sql.NullString
	Ext              sql.NullString
	DataHash         []byte
	FeaturesHash     []byte
}

const rowColumns = `id, owner_id, owner_type, owner_category, time_series_type, name,
	initial_timestamp, resolution, length, horizon, interval, count, timestamps_json, units,
	percentiles_json, dtype, element_shape, ext, data_hash, features_hash`

func (r *Row) scanTargets() []any {
	return []any{&r.ID, &r.OwnerID, &r.OwnerType, &r.OwnerCategory, &r.SeriesType, &r.Name,
		&r.InitialTimestamp, &r.Resolution, &r.Length, &r.Horizon, &r.Interval, &r.Count,
		&r.TimestampsJSON, &r.Units, &r.PercentilesJSON, &r.DType, &r.ElementShape, &r.Ext,
		&r.DataHash, &r.FeaturesHash}
}

// fromDriver sets r from the driver's values of rowColumns, and reports false when one is not
// of the type its field holds (NULL only where the field is nullable).
func (r *Row) fromDriver(v []driver.Value) bool {
	ok := true
	integer := func(x driver.Value) int64 {
		n, is := x.(int64)
		ok = ok && is
		return n
	}
	text := func(x driver.Value) string {
		t, is := x.(string)
		ok = ok && is
		return t
	}
	blob := func(x driver.Value) []byte {
		b, is := x.([]byte)
		ok = ok && is
		return b
	}
	nullText := func(x driver.Value) sql.NullString {
		if x == nil {
			return sql.NullString{}
		}
		return sql.NullString{String: text(x), Valid: true}
	}
	nullInteger := func(x driver.Value) sql.NullInt64 {
		if x == nil {
			return sql.NullInt64{}
		}
		return sql.NullInt64{Int64: integer(x), Valid: true}
	}
	*r = Row{ID: integer(v[0]), OwnerID: integer(v[1]), OwnerType: text(v[2]), OwnerCategory: text(v[3]),
		SeriesType: text(v[4]), Name: text(v[5]), InitialTimestamp: nullText(v[6]), Resolution: nullText(v[7]),
		Length: nullInteger(v[8]), Horizon: nullText(v[9]), Interval: nullText(v[10]), Count: nullInteger(v[11]),
		TimestampsJSON: nullText(v[12]), Units: nullText(v[13]), PercentilesJSON: nullText(v[14]),
		DType: text(v[15]), ElementShape: nullText(v[16]), Ext: nullText(v[17]), DataHash: blob(v[18]),
		FeaturesHash: blob(v[19])}
	return ok
}

// Identity is the uniqueness key of a row (docs/format.md §10.1). Resolution and Interval are
// "" for NULL, the sentinel uq_ts_assoc_coalesced folds NULL to.
type Identity struct {
	OwnerID       int64
	OwnerCategory string
	SeriesType    string
	Name          string
	Resolution    string
	Interval      string
	FeaturesHash  []byte
}

// IdentityKey is an Identity usable as a map key (built without formatting: batches of
// 100,000 series build one per row).
type IdentityKey struct {
	OwnerID                                               int64
	OwnerCategory, SeriesType, Name, Resolution, Interval string
	FeaturesHash                                          string
}

// MapKey is the identity as a comparable value.
func (k Identity) MapKey() IdentityKey {
	return IdentityKey{k.OwnerID, k.OwnerCategory, k.SeriesType, k.Name, k.Resolution, k.Interval, string(k.FeaturesHash)}
}

// Catalog is an open catalog database. It is not safe for concurrent use; the store
// serialises access.
type Catalog struct {
	db    *sql.DB
	conn  *sql.Conn
	depth int // transaction nesting: 0 none, 1 BEGIN, >1 savepoints
	// holdReads keeps a deferred read transaction open between writes (writable file
	// catalogs); idle says one is open now. See holdReadLock.
	holdReads, idle bool
	stmts           map[string]*sql.Stmt
	// driverStmts are statements prepared on the driver connection itself (driverStatement),
	// for InsertRows and driverRow.
	driverStmts map[string]*driverStmt
	// tables caches HasTable: a read-only catalog cannot gain tables, a writable one has
	// them all from its DDL.
	tables map[string]bool
}

var ctx = context.Background()

// Open opens the catalog at path. A writable open creates the file when create is true and
// applies the DDL; a read-only open runs no DDL and needs no write permission.
func Open(path string, readOnly, create bool) (*Catalog, error) {
	if !create {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s", ErrNoCatalog, path)
			}
			return nil, err
		}
	}
	mode := "rw"
	if readOnly {
		mode = "ro"
	} else if create {
		mode = "rwc"
	}
	// A rollback journal (DELETE mode) exists only while a transaction is open, so after a
	// commit the .nc.sqlite alone holds the catalog: users move the two files as a pair.
	// _mutex=no opens the connection without SQLite's per-call mutex (SQLITE_OPEN_NOMUTEX):
	// the catalog has one connection, which the store and database/sql never use from two
	// threads at once, and the mutex cost 5% of a bulk insert.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=" + mode +
		"&_foreign_keys=on&_journal_mode=DELETE&_busy_timeout=10000&_cache_size=-65536&_mutex=no"
	c, err := open(dsn, readOnly)
	if err == nil {
		c.holdReads = true
		if err = c.holdReadLock(); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, err
}

// holdReadLock opens the idle read transaction of a catalog. In rollback-journal mode every
// statement outside a transaction takes and drops SQLite's SHARED file lock and rechecks the
// file (about six system calls, 6 µs of a 10 µs has_time_series at 100,000 rows; 9 of 11 µs
// in a read-only store of 1,000); holding it between writes, or for the whole life of a
// read-only catalog, makes a lookup cost the B-tree search alone. Readers in other processes
// share the lock and are not delayed. A writer in another process cannot commit while this
// store is open: the store's own rule (a writer excludes every other open, readers exclude
// a writer) which HDF5's lock on the .nc enforces, and which this lock now enforces on the
// catalog too where HDF5's locking is turned off.
func (c *Catalog) holdReadLock() error {
	if !c.holdReads || c.idle || c.depth != 0 {
		return nil
	}
	if _, err := c.conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		return err
	}
	c.idle = true
	return nil
}

// Snapshot runs fn, a sequence of reads, inside one read transaction when none is open: the
// lookups of a reader over 10,000 keys then take SHARED once rather than 10,000 times, and
// see one state of the catalog. Inside a transaction (or the idle one) fn just runs.
func (c *Catalog) Snapshot(fn func() error) error {
	if c.depth != 0 || c.idle {
		return fn()
	}
	if _, err := c.conn.ExecContext(ctx, "BEGIN DEFERRED"); err != nil {
		return err
	}
	err := fn()
	_, cerr := c.conn.ExecContext(ctx, "COMMIT")
	if err != nil {
		return err
	}
	return cerr
}

// releaseReadLock ends the idle read transaction (it holds no writes).
func (c *Catalog) releaseReadLock() error {
	if !c.idle {
		return nil
	}
	c.idle = false
	_, err := c.conn.ExecContext(ctx, "COMMIT")
	return err
}

// OpenMemory opens an empty in-memory catalog with the schema applied.
func OpenMemory() (*Catalog, error) {
	return open("file::memory:?_foreign_keys=on", false)
}

func open(dsn string, readOnly bool) (*Catalog, error) {
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	c := &Catalog{db: db, conn: conn, stmts: map[string]*sql.Stmt{}, tables: map[string]bool{}}
	// Touch the database so that a file that is not SQLite fails here, at open.
	if _, err := c.conn.ExecContext(ctx, "PRAGMA foreign_keys = ON"); err != nil {
		c.Close()
		return nil, err
	}
	var n int
	if err := c.conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err != nil {
		c.Close()
		return nil, err
	}
	if !readOnly {
		if _, err := c.conn.ExecContext(ctx, ddl); err != nil {
			c.Close()
			return nil, fmt.Errorf("applying catalog schema: %w", err)
		}
	}
	return c, nil
}

// Close releases the connection. It is safe to call twice.
func (c *Catalog) Close() error {
	if c == nil || c.db == nil {
		return nil
	}
	for _, s := range c.stmts {
		s.Close()
	}
	c.stmts = nil
	for _, ds := range c.driverStmts {
		ds.stmt.Close()
	}
	c.driverStmts = nil
	c.releaseReadLock()
	c.conn.Close()
	err := c.db.Close()
	c.db = nil
	return err
}

func (c *Catalog) stmt(query string) (*sql.Stmt, error) {
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	s, err := c.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = s
	return s, nil
}

func (c *Catalog) exec(query string, args ...any) (sql.Result, error) {
	s, err := c.stmt(query)
	if err != nil {
		return nil, err
	}
	res, err := s.ExecContext(ctx, args...)
	return res, translate(err)
}

func translate(err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintUnique {
		return fmt.Errorf("%w: %v", ErrUnique, err)
	}
	return err
}

// Depth is the number of open transaction levels (0: none).
func (c *Catalog) Depth() int { return c.depth }

// Begin opens a transaction, or a savepoint inside the current one.
func (c *Catalog) Begin() error {
	var err error
	if c.depth == 0 {
		if err := c.releaseReadLock(); err != nil {
			return err
		}
		if _, err = c.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			c.holdReadLock() // best effort: without it statements run in autocommit, only slower
			return err
		}
	} else {
		_, err = c.conn.ExecContext(ctx, fmt.Sprintf("SAVEPOINT sp%d", c.depth))
	}
	if err == nil {
		c.depth++
	}
	return err
}

// Commit ends the innermost transaction level; only the outermost commit is durable.
func (c *Catalog) Commit() error {
	if c.depth == 0 {
		return errors.New("commit without a transaction")
	}
	var err error
	if c.depth == 1 {
		_, err = c.conn.ExecContext(ctx, "COMMIT")
	} else {
		_, err = c.conn.ExecContext(ctx, fmt.Sprintf("RELEASE sp%d", c.depth-1))
	}
	if err == nil {
		c.depth--
		if c.depth == 0 {
			// The commit is done whatever happens here: failing to take the read lock
			// again only leaves statements in autocommit, slower but right.
			c.holdReadLock()
		}
	}
	return err
}

// Rollback undoes the innermost transaction level.
func (c *Catalog) Rollback() error {
	if c.depth == 0 {
		return errors.New("rollback without a transaction")
	}
	var err error
	if c.depth == 1 {
		_, err = c.conn.ExecContext(ctx, "ROLLBACK")
	} else {
		sp := fmt.Sprintf("sp%d", c.depth-1)
		_, err = c.conn.ExecContext(ctx, "ROLLBACK TO "+sp+"; RELEASE "+sp)
	}
	c.depth--
	if c.depth == 0 {
		c.holdReadLock() // best effort, as in Commit
	}
	return err
}

const insertRow = `INSERT INTO time_series_associations (owner_id, owner_type,
		owner_category, time_series_type, name, initial_timestamp, resolution, length, horizon,
		interval, count, timestamps_json, units, percentiles_json, dtype, element_shape, ext,
		data_hash, features_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// Insert adds one association row and returns its id. A duplicate identity is ErrUnique.
func (c *Catalog) Insert(r *Row) (int64, error) {
	res, err := c.exec(insertRow, r.OwnerID, r.OwnerType, r.OwnerCategory, r.SeriesType, r.Name, str(r.InitialTimestamp),
		str(r.Resolution), num(r.Length), str(r.Horizon), str(r.Interval), num(r.Count), str(r.TimestampsJSON), str(r.Units),
		str(r.PercentilesJSON), r.DType, str(r.ElementShape), str(r.Ext), r.DataHash, r.FeaturesHash)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// InsertRows adds rows in order, each as Insert does (setting its ID), and returns how many it added: on an
// error (ErrUnique for a duplicate identity) that is the index of the row refused. The rows
// go through the driver's own statement (driverStatement), inside one database/sql call: its
// per-call argument conversion, locking and result wrapping cost about 1.7 µs of the 8 µs a
// row of a bulk add took. Batches under insertRowsMin (an Add) go through Insert.
func (c *Catalog) InsertRows(rows []*Row) (int, error) {
	if len(rows) < insertRowsMin {
		for i, r := range rows {
			id, err := c.Insert(r)
			if err != nil {
				return i, err
			}
			r.ID = id
		}
		return len(rows), nil
	}
	rebuild, err := c.setIndexesAside(len(rows))
	if err != nil {
		return 0, err
	}
	done := 0
	err = c.conn.Raw(func(dc any) error {
		ds, err := c.driverStatement(dc, insertRow)
		if err != nil {
			return err
		}
		ex, ok := ds.stmt.(driver.StmtExecContext)
		if !ok {
			return fmt.Errorf("catalog: the driver statement %T cannot execute", ds.stmt)
		}
		args := ds.args
		for _, r := range rows {
			for i, v := range [19]any{r.OwnerID, r.OwnerType, r.OwnerCategory, r.SeriesType, r.Name, str(r.InitialTimestamp),
				str(r.Resolution), num(r.Length), str(r.Horizon), str(r.Interval), num(r.Count), str(r.TimestampsJSON),
				str(r.Units), str(r.PercentilesJSON), r.DType, str(r.ElementShape), str(r.Ext), r.DataHash, r.FeaturesHash} {
				args[i].Value = v
			}
			res, err := ex.ExecContext(ctx, args)
			if err != nil {
				return translate(err)
			}
			if r.ID, err = res.LastInsertId(); err != nil {
				return err
			}
			done++
		}
		return nil
	})
	if rerr := c.rebuildIndexes(rebuild); err == nil && rerr != nil {
		return done, rerr
	}
	return done, err
}

// insertRowsMin is the batch from which InsertRows goes through the driver's statement.
const insertRowsMin = 16

// bulkIndexRows is the batch from which InsertRows builds the non-unique indexes of
// time_series_associations after its rows rather than row by row, when the batch is at least
// as large as the table: CREATE INDEX sorts, where each insert into idx_hash lands at a random
// place in its b-tree. At 100,000 rows into an empty table, the inserts take about 3 µs a row
// less (docs/format.md §9.6).
const bulkIndexRows = 4096

// setIndexesAside drops the non-unique indexes of time_series_associations before a batch of
// n rows, when building them again afterwards costs less than keeping them up to date, and
// returns the statements that rebuild them (nil when it dropped none). The unique indexes
// stay: they refuse a duplicate at its row. Both run inside the caller's transaction, so the
// catalog as committed always has every index, and a rollback restores them.
func (c *Catalog) setIndexesAside(n int) ([]string, error) {
	if n < bulkIndexRows {
		return nil, nil
	}
	if top, err := c.highestID(); err != nil || top > int64(n) {
		return nil, err
	}
	rows, err := c.conn.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'index'
		AND tbl_name = 'time_series_associations' AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%' ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	var names, stmts []string
	for rows.Next() {
		var name, stmt string
		if err := rows.Scan(&name, &stmt); err != nil {
			rows.Close()
			return nil, err
		}
		names, stmts = append(names, name), append(stmts, stmt)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, name := range names {
		if _, err := c.conn.ExecContext(ctx, `DROP INDEX "`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
			return nil, errors.Join(err, c.rebuildIndexes(stmts[:i]))
		}
	}
	return stmts, nil
}

// highestID is the highest row id of time_series_associations, 0 when it is empty: never
// below its number of rows, and one b-tree descent where counting them reads every row.
func (c *Catalog) highestID() (int64, error) {
	var top int64
	err := c.conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM time_series_associations`).Scan(&top)
	return top, err
}

// rebuildIndexes runs the CREATE INDEX statements setIndexesAside returned.
func (c *Catalog) rebuildIndexes(stmts []string) error {
	for _, st := range stmts {
		if _, err := c.conn.ExecContext(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// str and num pass a nullable column as the driver value itself (nil for NULL): the same
// value binds, without database/sql calling the sql.Null* Valuer and boxing it twice (a
// bulk add inserts 100,000 rows of 19 arguments).
func str(v sql.NullString) any {
	if !v.Valid {
		return nil
	}
	return v.String
}

func num(v sql.NullInt64) any {
	if !v.Valid {
		return nil
	}
	return v.Int64
}

// PutFeatureSet stores a feature map under its hash unless a set with that hash exists
// (sets are content-addressed and shared, docs/format.md §9.2).
func (c *Catalog) PutFeatureSet(hash []byte, entries []hashing.Feature) error {
	for _, e := range entries {
		var vi, vf, vb, vs any
		kind := ""
		switch e.Kind {
		case hashing.KindInt:
			kind, vi = "int", e.Int
		case hashing.KindFloat:
			kind, vf = "float", e.Float
		case hashing.KindBool:
			kind, vb = "bool", e.Bool
		case hashing.KindStr:
			kind, vs = "str", e.Str
		default:
			return fmt.Errorf("feature %q has unknown kind %q", e.Key, e.Kind)
		}
		if _, err := c.exec(`INSERT OR IGNORE INTO feature_sets (key, value_kind, value_int,
			value_float, value_bool, value_str, features_hash) VALUES (?,?,?,?,?,?,?)`,
			e.Key, kind, vi, vf, vb, vs, hash); err != nil {
			return err
		}
	}
	return nil
}

// FeatureSet returns the entries stored under hash, in key order. Unknown kinds are an error
// because a reader must not silently drop part of an identity.
func (c *Catalog) FeatureSet(hash []byte) ([]hashing.Feature, error) {
	s, err := c.stmt(`SELECT key, value_kind, value_int, value_float, value_bool, value_str
		FROM feature_sets WHERE features_hash = ? ORDER BY key`)
	if err != nil {
		return nil, err
	}
	rows, err := s.QueryContext(ctx, hash)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hashing.Feature
	for rows.Next() {
		var key, kind string
		var vi sql.NullInt64
		var vf sql.NullFloat64
		var vb sql.NullBool
		var vs sql.NullString
		if err := rows.Scan(&key, &kind, &vi, &vf, &vb, &vs); err != nil {
			return nil, err
		}
		f := hashing.Feature{Key: key}
		switch kind {
		case "int":
			f.Kind, f.Int = hashing.KindInt, vi.Int64
		case "float":
			// SQLite stores a NaN REAL as NULL: a float row holding NULL was written for a
			// NaN (docs/format.md §13.3), which is what its features_hash was computed from.
			f.Kind, f.Float = hashing.KindFloat, vf.Float64
			if !vf.Valid {
				f.Float = hashing.CanonicalNaN64()
			}
		case "bool":
			f.Kind, f.Bool = hashing.KindBool, vb.Bool
		case "str":
			f.Kind, f.Str = hashing.KindStr, vs.String
		default:
			return nil, fmt.Errorf("feature %q has unknown value_kind %q", key, kind)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Lookup returns the row with the given identity, or nil when there is none. The row comes
// through driverRow; a column holding a value of another type than its field's (a catalog
// another writer filled) is read again through database/sql, which converts it.
func (c *Catalog) Lookup(k Identity) (*Row, error) {
	var vals [20]driver.Value
	a := k.args()
	found, err := c.driverRow(`SELECT `+rowColumns+identityWhere, a[:], vals[:])
	if err != nil || !found {
		return nil, err
	}
	var r Row
	if r.fromDriver(vals[:]) {
		return &r, nil
	}
	return c.lookupConverting(k)
}

const byIDQuery = `SELECT ` + rowColumns + ` FROM time_series_associations WHERE id = ?`

// RowByID returns the row with this id, or nil when there is none: a primary-key read, which
// a lookup's hint takes in place of a search (core's Lookup.ID).
func (c *Catalog) RowByID(id int64) (*Row, error) {
	var vals [20]driver.Value
	found, err := c.driverRow(byIDQuery, []any{id}, vals[:])
	if err != nil || !found {
		return nil, err
	}
	var r Row
	if r.fromDriver(vals[:]) {
		return &r, nil
	}
	s, err := c.stmt(byIDQuery) // a column of another type than its field's: database/sql converts
	if err != nil {
		return nil, err
	}
	if err := s.QueryRowContext(ctx, id).Scan(r.scanTargets()...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, err
	}
	return &r, nil
}

// lookupConverting is Lookup through database/sql, whose Scan converts between types.
func (c *Catalog) lookupConverting(k Identity) (*Row, error) {
	s, err := c.stmt(`SELECT ` + rowColumns + identityWhere)
	if err != nil {
		return nil, err
	}
	var r Row
	a := k.args()
	err = s.QueryRowContext(ctx, a[:]...).Scan(r.scanTargets()...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// lookupBatches are the owner-list lengths LookupMany's statements take (a shorter list is
// padded with its last owner): few prepared statements, little padding.
var lookupBatches = [...]int{1, 16, 128, 512}

// LookupMany returns the row of each identity, nil where there is none, in the order of ks.
// Identities that differ only in owner id are looked up together, up to 512 owners a query
// ("owner_id IN (…)" over uq_ts_assoc_coalesced), so 10,000 keys of one series name cost
// about twenty statements rather than 10,000. The rows returned share one allocation.
func (c *Catalog) LookupMany(ks []Identity) ([]*Row, error) {
	out := make([]*Row, len(ks))
	groups := map[lookupGroup][]int{}
	var order []lookupGroup
	for i, k := range ks {
		g := lookupGroup{k.OwnerCategory, k.SeriesType, k.Name, k.Resolution, k.Interval, string(k.FeaturesHash)}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], i)
	}
	slab := make([]Row, 0, len(ks))
	var highest int64 = -1 // the table's highest row id, read once a group is large enough to scan
	args := make([]any, 0, lookupBatches[len(lookupBatches)-1]+6)
	byOwner := map[int64][]int{}
	// One set of scan targets for every row (a []any of 20 pointers a row otherwise): each
	// Scan overwrites every field of scratch, which is then copied into the slab.
	var scratch Row
	targets := scratch.scanTargets()
	for _, g := range order {
		idx := groups[g]
		if len(idx) >= lookupScanMin {
			if highest < 0 {
				var err error
				if highest, err = c.highestID(); err != nil {
					return nil, err
				}
			}
			if int64(len(idx))*lookupScanShare >= highest {
				scanned, err := c.lookupByScan(g, idx, ks, out, &slab)
				if err != nil {
					return nil, err
				}
				if scanned {
					continue
				}
			}
		}
		for len(idx) > 0 {
			b := lookupBatches[len(lookupBatches)-1]
			for _, size := range lookupBatches {
				if size >= len(idx) {
					b = size
					break
				}
			}
			chunk := idx[:min(b, len(idx))]
			idx = idx[len(chunk):]
			clear(byOwner)
			args = args[:0]
			for _, i := range chunk {
				byOwner[ks[i].OwnerID] = append(byOwner[ks[i].OwnerID], i)
				args = append(args, ks[i].OwnerID)
			}
			for len(args) < b {
				args = append(args, args[len(args)-1])
			}
			args = append(args, g.args()...)
			s, err := c.stmt(lookupManyQuery(b))
			if err != nil {
				return nil, err
			}
			rows, err := s.QueryContext(ctx, args...)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				if err := rows.Scan(targets...); err != nil {
					rows.Close()
					return nil, err
				}
				slab = append(slab, scratch)
				r := &slab[len(slab)-1]
				for _, i := range byOwner[r.OwnerID] {
					out[i] = r
				}
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// lookupGroup is what the identities of one LookupMany query share: all but the owner.
type lookupGroup struct{ cat, typ, name, res, iv, fh string }

// args are g's values for groupWhere's parameters, in order.
func (g lookupGroup) args() []any {
	return []any{g.cat, g.typ, g.name, g.res, g.iv, []byte(g.fh)}
}

// A group of at least lookupScanMin identities that is at least 1/lookupScanShare of the table
// (by its highest row id) is looked up in one pass over the table, its rows read through the
// driver, rather than by owner lists: 1.3 against 3.1 µs a row for 10,000 of 10,000.
const (
	lookupScanMin   = 256
	lookupScanShare = 4
)

// lookupByScan sets out[i] for the identities at idx (all of group g) from one pass over the
// rows of g, appending the rows found to slab. It reports false, having set nothing, when a
// row holds a column of another type than its field (the caller then looks the group up by
// owner, through database/sql, which converts such columns).
func (c *Catalog) lookupByScan(g lookupGroup, idx []int, ks []Identity, out []*Row, slab *[]Row) (bool, error) {
	byOwner := make(map[int64][]int, len(idx))
	for _, i := range idx {
		byOwner[ks[i].OwnerID] = append(byOwner[ks[i].OwnerID], i)
	}
	mark := len(*slab)
	var found [][]int // byOwner's entry of each row appended, in order
	foreign := false
	err := c.conn.Raw(func(dc any) error {
		ds, err := c.driverStatement(dc, lookupScanQuery)
		if err != nil {
			return err
		}
		rows, err := ds.query(g.args()...)
		if err != nil {
			return err
		}
		vals := make([]driver.Value, 20)
		for {
			if err := rows.Next(vals); err != nil {
				cerr := rows.Close()
				if errors.Is(err, io.EOF) {
					err = nil
				}
				return errors.Join(err, cerr)
			}
			owner, ok := vals[1].(int64)
			at := byOwner[owner]
			if !ok || at == nil {
				continue // a row of the group no identity asked for
			}
			var r Row
			if !r.fromDriver(vals) {
				foreign = true
				return rows.Close()
			}
			*slab = append(*slab, r)
			found = append(found, at)
		}
	})
	if err != nil || foreign {
		*slab = (*slab)[:mark]
		return false, err
	}
	for j, at := range found {
		for _, i := range at {
			out[i] = &(*slab)[mark+j]
		}
	}
	return true, nil
}

// groupWhere matches every column of an identity but the owner, with NULL periods as ""
// (uq_ts_assoc_coalesced), its parameters in lookupGroup's order and Identity.args' after the
// owner. The three lookups below put the owner before it: one, a list, or none.
const groupWhere = `owner_category = ? AND time_series_type = ? AND name = ?
		AND COALESCE(resolution, '') = ? AND COALESCE(interval, '') = ? AND features_hash = ?`

const lookupScanQuery = `SELECT ` + rowColumns + ` FROM time_series_associations WHERE ` + groupWhere

func lookupManyQuery(owners int) string {
	return `SELECT ` + rowColumns + ` FROM time_series_associations
		WHERE owner_id IN (?` + strings.Repeat(", ?", owners-1) + `) AND ` + groupWhere
}

const identityWhere = ` FROM time_series_associations WHERE owner_id = ? AND ` + groupWhere

// Exists reports whether the row of k exists, reading no column of it (has_time_series: a
// full-row Lookup costs twice as much, most of it scanning columns into Go values).
func (c *Catalog) Exists(k Identity) (bool, error) {
	var one [1]driver.Value
	a := k.args()
	return c.driverRow(`SELECT 1`+identityWhere, a[:], one[:])
}

// args are k's values in identityWhere's order.
func (k Identity) args() [7]any {
	return [7]any{k.OwnerID, k.OwnerCategory, k.SeriesType, k.Name, k.Resolution, k.Interval, k.FeaturesHash}
}

// driverStmt is a statement prepared on the catalog's connection and run through the driver
// itself, with its argument slice.
type driverStmt struct {
	stmt driver.Stmt
	args []driver.NamedValue
}

// driverRow runs query, which returns at most one row, and fills dest with that row's column
// values as the driver gives them; found is false when there is none. It is the path of the
// lookups a loop makes one key at a time (has_time_series, get_time_series): through
// database/sql the same statement cost 3.3 µs, of which 0.8 µs were SQLite's. The statement
// is prepared on first use and kept for the catalog's life.
func (c *Catalog) driverRow(query string, args []any, dest []driver.Value) (found bool, err error) {
	err = c.conn.Raw(func(dc any) error {
		ds, err := c.driverStatement(dc, query)
		if err != nil {
			return err
		}
		rows, err := ds.query(args[:]...)
		if err != nil {
			return err
		}
		err = rows.Next(dest)
		cerr := rows.Close()
		if err == nil {
			found = true
		} else if errors.Is(err, io.EOF) {
			err = nil
		}
		return errors.Join(err, cerr)
	})
	return found, err
}

// query runs the statement with args, one for each of its parameters, in order.
func (ds *driverStmt) query(args ...any) (driver.Rows, error) {
	for i, v := range args {
		ds.args[i].Value = v
	}
	q, ok := ds.stmt.(driver.StmtQueryContext)
	if !ok {
		return nil, fmt.Errorf("catalog: the driver statement %T cannot query", ds.stmt)
	}
	return q.QueryContext(ctx, ds.args)
}

// driverStatement prepares query on the driver connection dc the first time it is asked for,
// and keeps it, with an argument slice numbered for it, for the catalog's life.
func (c *Catalog) driverStatement(dc any, query string) (*driverStmt, error) {
	if ds, ok := c.driverStmts[query]; ok {
		return ds, nil
	}
	conn, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("catalog: the driver connection %T cannot prepare", dc)
	}
	st, err := conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	ds := &driverStmt{stmt: st, args: make([]driver.NamedValue, st.NumInput())}
	for i := range ds.args {
		ds.args[i].Ordinal = i + 1
	}
	if c.driverStmts == nil {
		c.driverStmts = map[string]*driverStmt{}
	}
	c.driverStmts[query] = ds
	return ds, nil
}

// HasFamily reports whether a row of k's type exists with k's owner, name, resolution and
// features, whatever its interval.
func (c *Catalog) HasFamily(k Identity) (bool, error) {
	s, err := c.stmt(`SELECT 1 FROM time_series_associations
		WHERE owner_id = ? AND owner_category = ? AND time_series_type = ? AND name = ?
		AND COALESCE(resolution, '') = ? AND features_hash = ? LIMIT 1`)
	if err != nil {
		return false, err
	}
	var one int
	err = s.QueryRowContext(ctx, k.OwnerID, k.OwnerCategory, k.SeriesType, k.Name,
		k.Resolution, k.FeaturesHash).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// FamilyRows returns the rows of k's type with k's owner, name, resolution and features,
// whatever their interval, in id order.
func (c *Catalog) FamilyRows(k Identity) ([]Row, error) {
	return c.queryRows(`SELECT `+rowColumns+` FROM time_series_associations
		WHERE owner_id = ? AND owner_category = ? AND time_series_type = ? AND name = ?
		AND COALESCE(resolution, '') = ? AND features_hash = ? ORDER BY id`,
		k.OwnerID, k.OwnerCategory, k.SeriesType, k.Name, k.Resolution, k.FeaturesHash)
}

// Delete removes the row with the given id.
func (c *Catalog) Delete(id int64) error {
	_, err := c.exec(`DELETE FROM time_series_associations WHERE id = ?`, id)
	return err
}

// CountByHash counts the rows of any type that reference an array hash.
func (c *Catalog) CountByHash(hash []byte) (int64, error) {
	s, err := c.stmt(`SELECT count(*) FROM time_series_associations WHERE data_hash = ?`)
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.QueryRowContext(ctx, hash).Scan(&n)
	return n, err
}

// DistinctHashes lists every data_hash the rows reference.
func (c *Catalog) DistinctHashes() ([][]byte, error) {
	rows, err := c.conn.QueryContext(ctx, `SELECT DISTINCT data_hash FROM time_series_associations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var h []byte
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Filter selects rows; a nil field matches everything. Features is a subset match: a row
// matches when its feature set contains every given entry.
type Filter struct {
	OwnerID        *int64
	OwnerCategory  *string
	SeriesTypes    []string
	Name           *string
	Resolution     *string
	OwnerType      *string
	NameGlob       *string // SQLite GLOB pattern on the name
	Interval       *string
	Features       []hashing.Feature
	FeaturesHashes [][]byte // exactly one of these feature sets (nil: any)
	Limit          int      // at most this many rows (0: all)
}

func (f *Filter) where() (string, []any) {
	var conds []string
	var args []any
	if f.OwnerID != nil {
		conds = append(conds, "a.owner_id = ?")
		args = append(args, *f.OwnerID)
	}
	if f.OwnerCategory != nil {
		conds = append(conds, "a.owner_category = ?")
		args = append(args, *f.OwnerCategory)
	}
	if len(f.SeriesTypes) > 0 {
		conds = append(conds, "a.time_series_type IN ("+strings.TrimSuffix(strings.Repeat("?,", len(f.SeriesTypes)), ",")+")")
		for _, t := range f.SeriesTypes {
			args = append(args, t)
		}
	}
	for _, c := range []struct {
		cond string
		v    *string
	}{{"a.name = ?", f.Name}, {"a.resolution = ?", f.Resolution}, {"a.owner_type = ?", f.OwnerType},
		{"a.name GLOB ?", f.NameGlob}, {"a.interval = ?", f.Interval}} {
		if c.v != nil {
			conds = append(conds, c.cond)
			args = append(args, *c.v)
		}
	}
	if len(f.FeaturesHashes) > 0 {
		conds = append(conds, "a.features_hash IN ("+strings.TrimSuffix(strings.Repeat("?,", len(f.FeaturesHashes)), ",")+")")
		for _, h := range f.FeaturesHashes {
			args = append(args, h)
		}
	}
	for _, e := range f.Features {
		cond := "EXISTS (SELECT 1 FROM feature_sets fs WHERE fs.features_hash = a.features_hash AND fs.key = ? AND fs.value_kind = ? AND "
		switch e.Kind {
		case hashing.KindInt:
			cond += "fs.value_int = ?)"
			args = append(args, e.Key, "int", e.Int)
		case hashing.KindFloat:
			if math.IsNaN(e.Float) { // stored as NULL (FeatureSet)
				cond += "fs.value_float IS NULL)"
				args = append(args, e.Key, "float")
				break
			}
			cond += "fs.value_float = ?)"
			args = append(args, e.Key, "float", e.Float)
		case hashing.KindBool:
			cond += "fs.value_bool = ?)"
			args = append(args, e.Key, "bool", e.Bool)
		default:
			cond += "fs.value_str = ?)"
			args = append(args, e.Key, "str", e.Str)
		}
		conds = append(conds, cond)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// List returns the rows matching f in id order.
func (c *Catalog) List(f Filter) ([]Row, error) {
	where, args := f.where()
	limit := ""
	if f.Limit > 0 {
		limit = " LIMIT " + strconv.Itoa(f.Limit)
	}
	return c.queryRows(`SELECT `+rowColumns+` FROM time_series_associations a`+where+` ORDER BY a.id`+limit, args...)
}

// queryRows runs a query selecting rowColumns and scans every row.
func (c *Catalog) queryRows(query string, args ...any) ([]Row, error) {
	rows, err := c.conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		if err := rows.Scan(r.scanTargets()...); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// VacuumInto writes a compacted, journal-free copy of the database to path.
func (c *Catalog) VacuumInto(path string) error {
	if err := c.releaseReadLock(); err != nil {
		return err
	}
	_, err := c.conn.ExecContext(ctx, "VACUUM INTO ?", path)
	return errors.Join(err, c.holdReadLock())
}

// DeleteAllFeatureSets empties feature_sets (used when a store is cleared) and returns how
// many rows it deleted.
func (c *Catalog) DeleteAllFeatureSets() (int64, error) {
	res, err := c.exec(`DELETE FROM feature_sets`)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ParamRow is one distinct combination of forecast parameters and how many rows carry it.
type ParamRow struct {
	SeriesType       string
	Resolution       sql.NullString
	Horizon          sql.NullString
	Interval         sql.NullString
	Count            sql.NullInt64
	InitialTimestamp sql.NullString
	Rows             int64
}

// ForecastParams groups the rows matching f by their window parameters.
func (c *Catalog) ForecastParams(f Filter) ([]ParamRow, error) {
	where, args := f.where()
	rows, err := c.conn.QueryContext(ctx, `SELECT a.time_series_type, a.resolution, a.horizon, a.interval,
		a.count, a.initial_timestamp, count(*) FROM time_series_associations a`+where+`
		GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ParamRow
	for rows.Next() {
		var p ParamRow
		if err := rows.Scan(&p.SeriesType, &p.Resolution, &p.Horizon, &p.Interval, &p.Count, &p.InitialTimestamp, &p.Rows); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// distinctColumns are the columns Distinct may list.
var distinctColumns = map[string]bool{"resolution": true, "interval": true, "horizon": true,
	"time_series_type": true, "name": true, "owner_type": true, "owner_id": true}

// Distinct lists the distinct non-NULL values of one column among the rows matching f.
func (c *Catalog) Distinct(column string, f Filter) ([]string, error) {
	if !distinctColumns[column] {
		return nil, fmt.Errorf("column %q cannot be listed", column)
	}
	where, args := f.where()
	cond := " WHERE "
	if where != "" {
		cond = where + " AND "
	}
	rows, err := c.conn.QueryContext(ctx, `SELECT DISTINCT a.`+column+` FROM time_series_associations a`+
		cond+`a.`+column+` IS NOT NULL ORDER BY 1`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string // an INTEGER column scans as its decimal text
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// CountByType counts the rows matching f per time_series_type.
func (c *Catalog) CountByType(f Filter) (map[string]int64, error) {
	where, args := f.where()
	rows, err := c.conn.QueryContext(ctx, `SELECT a.time_series_type, count(*) FROM time_series_associations a`+
		where+` GROUP BY 1`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var t string
		var n int64
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, rows.Err()
}

// CountWhere evaluates one integer aggregate (e.g. count(DISTINCT a.data_hash)) over the rows
// matching f.
func (c *Catalog) CountWhere(expr string, f Filter) (int64, error) {
	where, args := f.where()
	var n int64
	err := c.conn.QueryRowContext(ctx, `SELECT `+expr+` FROM time_series_associations a`+where, args...).Scan(&n)
	return n, err
}

// StaticGrid is one (resolution, initial timestamp, length) of static rows and its counts.
type StaticGrid struct {
	Resolution       string
	InitialTimestamp string
	Length           int64
	Rows, Owners     int64
}

// StaticGrids groups the SingleTimeSeries rows matching f by grid.
func (c *Catalog) StaticGrids(f Filter) ([]StaticGrid, error) {
	f.SeriesTypes = []string{"SingleTimeSeries"}
	where, args := f.where()
	rows, err := c.conn.QueryContext(ctx, `SELECT a.resolution, a.initial_timestamp, a.length, count(*),
		count(DISTINCT a.owner_category || a.owner_id) FROM time_series_associations a`+where+`
		GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StaticGrid
	for rows.Next() {
		var g StaticGrid
		if err := rows.Scan(&g.Resolution, &g.InitialTimestamp, &g.Length, &g.Rows, &g.Owners); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// UpdateRow changes the owner id, owner type and name of one row.
func (c *Catalog) UpdateRow(id, ownerID int64, ownerType, name string) error {
	_, err := c.exec(`UPDATE time_series_associations SET owner_id = ?, owner_type = ?, name = ? WHERE id = ?`,
		ownerID, ownerType, name, id)
	return err
}

// ReplaceOwnerID moves every row of (old, category) to owner id new.
func (c *Catalog) ReplaceOwnerID(category string, old, new int64) (int64, error) {
	res, err := c.conn.ExecContext(ctx, `UPDATE time_series_associations SET owner_id = ? WHERE owner_id = ? AND owner_category = ?`,
		new, old, category)
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

// ExclusionViolation finds a family holding both a Deterministic and a
// DeterministicSingleTimeSeries among the rows of one owner (docs/format.md §10.6), returning
// its name, or "" when there is none.
func (c *Catalog) ExclusionViolation(category string, ownerID int64) (string, error) {
	var name string
	err := c.conn.QueryRowContext(ctx, `SELECT d.name FROM time_series_associations d
		JOIN time_series_associations v ON v.owner_id = d.owner_id AND v.owner_category = d.owner_category
		AND v.name = d.name AND COALESCE(v.resolution, '') = COALESCE(d.resolution, '') AND v.features_hash = d.features_hash
		WHERE d.owner_id = ? AND d.owner_category = ? AND d.time_series_type = 'Deterministic'
		AND v.time_series_type = 'DeterministicSingleTimeSeries' LIMIT 1`, ownerID, category).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return name, err
}

// DeleteUnreachableFeatureSets deletes the feature_sets rows of every set no association
// references and returns how many rows it deleted (docs/format.md §8: compaction reports
// the row count as feature_sets_reclaimed).
func (c *Catalog) DeleteUnreachableFeatureSets() (int64, error) {
	res, err := c.conn.ExecContext(ctx, `DELETE FROM feature_sets
		WHERE features_hash NOT IN (SELECT features_hash FROM time_series_associations)`)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ListByHash returns the time_series_type of every row that references an array hash.
func (c *Catalog) ListByHash(hash []byte) ([]string, error) {
	rows, err := c.conn.QueryContext(ctx, `SELECT time_series_type FROM time_series_associations WHERE data_hash = ?`, hash)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ListByDataHash returns the rows that reference an array hash, in id order.
func (c *Catalog) ListByDataHash(hash []byte) ([]Row, error) {
	return c.queryRows(`SELECT `+rowColumns+` FROM time_series_associations WHERE data_hash = ? ORDER BY id`, hash)
}
