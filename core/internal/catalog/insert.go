// Inserting rows: one at a time, and in bulk with the non-unique indexes set aside.

package catalog

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
)

// insertRow inserts a row with every column of insertColumns given.
var insertRow = insertOf(1<<insertColumnCount - 1)

// insertColumns are the columns insertRow fills, in its order (Row.insertValues').
var insertColumns = [...]string{"owner_id", "owner_type", "owner_category", "time_series_type",
	"name", "initial_timestamp", "resolution", "length", "horizon", "interval", "count", "timestamps_json", "units",
	"percentiles_json", "dtype", "element_shape", "ext", "data_hash", "features_hash"}

const insertColumnCount = len(insertColumns)

// insertValues are r's values in insertColumns' order, nil for NULL.
func (r *Row) insertValues() [insertColumnCount]any {
	return [insertColumnCount]any{r.OwnerID, r.OwnerType, r.OwnerCategory, r.SeriesType, r.Name,
		str(r.InitialTimestamp), str(r.Resolution), num(r.Length), str(r.Horizon), str(r.Interval), num(r.Count),
		str(r.TimestampsJSON), str(r.Units), str(r.PercentilesJSON), r.DType, str(r.ElementShape), str(r.Ext),
		r.DataHash, r.FeaturesHash}
}

// insertStatements are the driver statements a bulk insert used, one per set of non-NULL
// columns. A row names only the columns it sets, and SQLite stores the others as their
// default, NULL (dtype alone has another, and every row sets it: Row.DType is a string).
// The driver binds each argument in a call of its own into C, and the eight or so NULLs of a
// usual SingleTimeSeries row cost about 0.4 µs of its add (docs/benchmarks.md).
type insertStatements struct {
	set   uint32 // the columns of the statement in use (bit i: insertColumns[i])
	ex    driver.StmtExecContext
	args  []driver.NamedValue
	bySet map[uint32]*driverStmt
}

// of is the statement for vals' non-NULL columns, with vals written into its arguments.
func (st *insertStatements) of(c *Catalog, dc any, vals *[insertColumnCount]any) (driver.StmtExecContext, []driver.NamedValue, error) {
	var set uint32
	for i, v := range vals {
		if v != nil {
			set |= 1 << i
		}
	}
	if st.ex == nil || set != st.set {
		if err := st.use(c, dc, set); err != nil {
			return nil, nil, err
		}
	}
	j := 0
	for _, v := range vals {
		if v != nil {
			st.args[j].Value = v
			j++
		}
	}
	return st.ex, st.args, nil
}

// use makes the statement of the columns in set the one in use.
func (st *insertStatements) use(c *Catalog, dc any, set uint32) error {
	ds := st.bySet[set]
	if ds == nil {
		var err error
		if ds, err = c.driverStatement(dc, insertOf(set)); err != nil {
			return err
		}
		if st.bySet == nil {
			st.bySet = map[uint32]*driverStmt{}
		}
		st.bySet[set] = ds
	}
	ex, ok := ds.stmt.(driver.StmtExecContext)
	if !ok {
		return fmt.Errorf("catalog: the driver statement %T cannot execute", ds.stmt)
	}
	st.set, st.ex, st.args = set, ex, ds.args
	return nil
}

// clear drops the values the statements' arguments still hold.
func (st *insertStatements) clear() {
	for _, ds := range st.bySet {
		for i := range ds.args {
			ds.args[i].Value = nil
		}
	}
}

// insertOf is the INSERT of the columns in set.
func insertOf(set uint32) string {
	var cols []string
	for i, name := range insertColumns {
		if set&(1<<i) != 0 {
			cols = append(cols, name)
		}
	}
	return "INSERT INTO time_series_associations (" + strings.Join(cols, ", ") + ") VALUES (" +
		strings.Repeat("?,", len(cols)-1) + "?)"
}

// Insert adds one association row and returns its id. A duplicate identity is ErrUnique.
func (c *Catalog) Insert(r *Row) (int64, error) {
	vals := r.insertValues()
	res, err := c.exec(insertRow, vals[:]...)
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
	var rebuild []string
	var err error
	if !c.bulk {
		if rebuild, err = c.setIndexesAside(len(rows)); err != nil {
			return 0, err
		}
	}
	done := 0
	err = c.conn.Raw(func(dc any) error {
		var st insertStatements
		// The statements outlive the call: their argument values are dropped after, or the
		// last row's hash slices, which point into the caller's batch, keep it all alive.
		defer st.clear()
		for _, r := range rows {
			vals := r.insertValues()
			ex, args, err := st.of(c, dc, &vals)
			if err != nil {
				return err
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

// BeginInserts opens a bulk insert of n rows by the InsertRows calls that follow, until
// EndInserts: the non-unique indexes are set aside once for all n, as InsertRows sets them
// aside for its own rows, so that a batch inserted a slice at a time (core's bulk add) is
// indexed as fast as one inserted at once.
func (c *Catalog) BeginInserts(n int) error {
	if c.bulk {
		return errors.New("catalog: BeginInserts inside a bulk insert")
	}
	aside, err := c.setIndexesAside(n)
	if err != nil {
		return err
	}
	c.bulk, c.aside = true, aside
	if n >= bulkIndexRows {
		c.shrinkCacheForInserts()
	}
	return nil
}

// The page cache. Lookups read the catalog's index pages at random, so a read-mostly
// connection keeps up to readCachePragma of them (the catalog of 100,000 series is 52 MB).
// A bulk insert only appends, and every page it writes stays in the cache, dirty, until its
// transaction commits: 52 MB of process memory at 100,000 rows. From a large bulk insert
// until its transaction ends the cache is bulkCachePragma, and SQLite writes the pages past
// it to the database file, where the commit would have written them anyway (issue 32: peak
// RSS of a bulk add; docs/benchmarks.md). Negative sizes are KiB.
const (
	readCachePragma = "-65536"
	bulkCachePragma = "-16384"
)

func (c *Catalog) shrinkCacheForInserts() {
	if c.writeCache {
		return
	}
	// Best effort, as the cache size changes no result: a failure keeps the larger cache.
	if _, err := c.conn.ExecContext(ctx, "PRAGMA cache_size = "+bulkCachePragma); err == nil {
		c.writeCache = true
	}
}

// restoreReadCache gives the connection its read cache again once a transaction ends.
func (c *Catalog) restoreReadCache() {
	if !c.writeCache {
		return
	}
	if _, err := c.conn.ExecContext(ctx, "PRAGMA cache_size = "+readCachePragma); err == nil {
		c.writeCache = false
	}
}

// EndInserts ends the bulk insert BeginInserts opened, building the indexes it set aside;
// it is called also when an insert failed (a rollback of the caller's transaction would
// restore them, but the level may be released).
func (c *Catalog) EndInserts() error {
	aside := c.aside
	c.bulk, c.aside = false, nil
	return c.rebuildIndexes(aside)
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
