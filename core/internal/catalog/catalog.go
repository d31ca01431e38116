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
	"errors"
	"fmt"
	"net/url"
	"os"

	"github.com/mattn/go-sqlite3"
)

// ErrUnique reports a violated unique index (a duplicate key).
var ErrUnique = errors.New("unique constraint violated")

// ErrNoCatalog reports that the catalog file of an existing store is missing.
var ErrNoCatalog = errors.New("catalog file does not exist")

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
	// listQueries are List's statements by the shape of their filter (listQuery).
	listQueries map[filterShape]string
	// tables caches HasTable: a read-only catalog cannot gain tables, a writable one has
	// them all from its DDL.
	tables map[string]bool
	// bulk is open between BeginInserts and EndInserts; aside holds the statements that
	// rebuild the indexes BeginInserts set aside.
	bulk  bool
	aside []string
	// writeCache is set while the page cache is bulkCachePragma's size (insert.go,
	// shrinkCacheForInserts), from a large bulk insert until its transaction ends.
	writeCache bool
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
		"&_foreign_keys=on&_journal_mode=DELETE&_busy_timeout=10000&_cache_size=" + readCachePragma + "&_mutex=no"
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
	// Temporary b-trees (an ORDER BY the index does not give, as a listing by owner sorts by
	// id) in memory: go-sqlite3's build keeps them in a temporary file by default, whose
	// creation cost 30 µs of a 33 µs lookup. A connection setting; the files are unchanged.
	if _, err := c.conn.ExecContext(ctx, "PRAGMA temp_store = MEMORY"); err != nil {
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

// maxKeptStatements bounds the statements stmt keeps. Listings build their text from the
// filter's shape (which fields, how many features), so a program sees a few dozen texts;
// past the bound a text is prepared for its call only.
const maxKeptStatements = 512

// query runs query with args through a kept statement: a lookup by owner and name runs the
// same text every time, and preparing it again cost a third of the call.
func (c *Catalog) query(query string, args ...any) (*sql.Rows, error) {
	if _, ok := c.stmts[query]; !ok && len(c.stmts) >= maxKeptStatements {
		return c.conn.QueryContext(ctx, query, args...)
	}
	s, err := c.stmt(query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
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
			c.restoreReadCache()
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
		c.restoreReadCache()
		c.holdReadLock() // best effort, as in Commit
	}
	return err
}
