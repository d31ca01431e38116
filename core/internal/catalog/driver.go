// Statements run through the SQLite driver directly, for the lookups a loop makes one at a time.

package catalog

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
)

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
	return c.driverRowBound(query, func(ds *driverStmt) {
		for i, v := range args {
			ds.args[i].Value = v
		}
	}, dest)
}

// driverIdentityRow is driverRow with an identity's values as the arguments (identityWhere's
// order), each boxed again only when it differs from the statement's last: a loop over keys
// of one group boxes its owner id alone (the five others were five allocations of a 3 µs
// has_time_series that misses).
func (c *Catalog) driverIdentityRow(query string, k *Identity, dest []driver.Value) (bool, error) {
	return c.driverRowBound(query, func(ds *driverStmt) {
		ds.args[0].Value = k.OwnerID
		for i, s := range [...]string{k.OwnerCategory, k.SeriesType, k.Name, k.Resolution, k.Interval} {
			if old, ok := ds.args[1+i].Value.(string); !ok || old != s {
				ds.args[1+i].Value = s
			}
		}
		if old, ok := ds.args[6].Value.([]byte); !ok || string(old) != string(k.FeaturesHash) {
			ds.args[6].Value = k.FeaturesHash
		}
	}, dest)
}

// driverRowBound is driverRow with the arguments set by bind.
func (c *Catalog) driverRowBound(query string, bind func(*driverStmt), dest []driver.Value) (found bool, err error) {
	err = c.conn.Raw(func(dc any) error {
		ds, err := c.driverStatement(dc, query)
		if err != nil {
			return err
		}
		bind(ds)
		rows, err := ds.run()
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

// driverRows is queryRows through the driver (as driverRow), for every listing (List): ok is
// false when a column holds a value of another type than its field's (a catalog another
// writer filled), for the caller to read through database/sql instead.
func (c *Catalog) driverRows(query string, args []any) (rows []Row, ok bool, err error) {
	if _, kept := c.driverStmts[query]; !kept && len(c.driverStmts) >= maxKeptStatements {
		return nil, false, nil
	}
	ok = true
	err = c.conn.Raw(func(dc any) error {
		ds, err := c.driverStatement(dc, query)
		if err != nil {
			return err
		}
		dr, err := ds.query(args...)
		if err != nil {
			return err
		}
		var vals [20]driver.Value
		for {
			if err = dr.Next(vals[:]); err != nil {
				break
			}
			rows = withRoom(rows)
			rows = rows[:len(rows)+1]
			if !rows[len(rows)-1].fromDriver(vals[:]) {
				ok = false
				break
			}
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
		return errors.Join(err, dr.Close())
	})
	return rows, ok, err
}

// withRoom is rows with room for one more, its capacity doubled when full. Go's append grows
// a large slice by a quarter at a time, so a listing of 100,000 rows of 400 bytes copied its
// 40 MB about five times over (15% of the listing's time).
func withRoom(rows []Row) []Row {
	if len(rows) < cap(rows) {
		return rows
	}
	return slices.Grow(rows, max(len(rows), 16))
}

// query runs the statement with args, one for each of its parameters, in order.
func (ds *driverStmt) query(args ...any) (driver.Rows, error) {
	for i, v := range args {
		ds.args[i].Value = v
	}
	return ds.run()
}

// run runs the statement with the arguments set.
func (ds *driverStmt) run() (driver.Rows, error) {
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
