// Listings and summaries: filters, distinct values, counts, grids, rows by hash.

package catalog

import (
	"cmp"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tsstore/tsstore/core/internal/hashing"
)

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
	var out [][]byte
	err := c.conn.Raw(func(dc any) error {
		ds, err := c.driverStatement(dc, `SELECT DISTINCT data_hash FROM time_series_associations`)
		if err != nil {
			return err
		}
		rows, err := ds.query()
		if err != nil {
			return err
		}
		// Through the driver, as driverRow: every writable open lists every array, and
		// database/sql's scanning cost a third of the open of 10,000 series.
		vals := make([]driver.Value, 1)
		for err = rows.Next(vals); err == nil; err = rows.Next(vals) {
			out = append(out, blobOf(vals[0]))
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
		return errors.Join(err, rows.Close())
	})
	return out, err
}

// blobOf is a BLOB column's value as database/sql would scan it into a []byte: a TEXT value
// another writer left gives its bytes, NULL gives nil, a number its decimal text.
func blobOf(v driver.Value) []byte {
	switch v := v.(type) {
	case []byte:
		return v
	case string:
		return []byte(v)
	case nil:
		return nil
	}
	return []byte(fmt.Sprint(v))
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

// textConds are the conditions on Filter's text fields (Name, Resolution, OwnerType,
// NameGlob, Interval), without and with an owner given (clauses says why the +).
var textConds = [2][5]string{
	{"a.name = ?", "a.resolution = ?", "a.owner_type = ?", "a.name GLOB ?", "a.interval = ?"},
	{"a.name = ?", "+a.resolution = ?", "+a.owner_type = ?", "a.name GLOB ?", "a.interval = ?"},
}

// where is f's WHERE clause ("" when f selects every row) and its arguments.
func (f *Filter) where() (string, []any) { return f.clauses(true) }

// filterShape is what a Filter's SQL text depends on when it has no feature entries (whose
// conditions depend on each value's kind): which fields are set, the lengths of its IN lists
// and its limit.
type filterShape struct {
	set           uint8
	types, hashes int
	limit         int
}

// shape is f's filterShape, and whether it has one.
func (f *Filter) shape() (filterShape, bool) {
	if len(f.Features) > 0 {
		return filterShape{}, false
	}
	s := filterShape{types: len(f.SeriesTypes), hashes: len(f.FeaturesHashes), limit: f.Limit}
	for i, set := range [...]bool{f.OwnerID != nil, f.OwnerCategory != nil, f.Name != nil, f.Resolution != nil,
		f.OwnerType != nil, f.NameGlob != nil, f.Interval != nil} {
		if set {
			s.set |= 1 << i
		}
	}
	return s, true
}

// clauses builds f's WHERE clause, when sql, and its arguments in order; without sql only the
// arguments, for a statement kept by f's shape (listQuery).
func (f *Filter) clauses(sql bool) (string, []any) {
	var conds []string
	args := make([]any, 0, 8)
	if f.OwnerID != nil {
		if sql {
			conds = append(conds, "a.owner_id = ?")
		}
		args = append(args, *f.OwnerID)
	}
	if f.OwnerCategory != nil {
		if sql {
			conds = append(conds, "a.owner_category = ?")
		}
		args = append(args, *f.OwnerCategory)
	}
	// With an owner given, the owner's index is the one to search: a store holds a few series
	// per owner and thousands per type, resolution or owner type. Without statistics (the
	// format's catalog has no sqlite_stat1) SQLite may pick the type's index instead and scan
	// every series of the type (60 µs a step at 1,000 series); a unary + keeps those
	// columns' indexes out of the choice.
	col := func(name string) string {
		if f.OwnerID != nil {
			return "+a." + name
		}
		return "a." + name
	}
	if len(f.SeriesTypes) > 0 {
		if sql {
			conds = append(conds, col("time_series_type")+" IN ("+strings.TrimSuffix(strings.Repeat("?,", len(f.SeriesTypes)), ",")+")")
		}
		for _, t := range f.SeriesTypes {
			args = append(args, t)
		}
	}
	byOwner := 0
	if f.OwnerID != nil {
		byOwner = 1
	}
	for i, v := range [...]*string{f.Name, f.Resolution, f.OwnerType, f.NameGlob, f.Interval} {
		if v != nil {
			if sql {
				conds = append(conds, textConds[byOwner][i])
			}
			args = append(args, *v)
		}
	}
	if len(f.FeaturesHashes) > 0 {
		if sql {
			conds = append(conds, "a.features_hash IN ("+strings.TrimSuffix(strings.Repeat("?,", len(f.FeaturesHashes)), ",")+")")
		}
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
		return "", args
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// List returns the rows matching f in id order.
func (c *Catalog) List(f Filter) ([]Row, error) {
	query, args := c.listQuery(&f)
	// Through the driver: database/sql's conversions cost more than SQLite's work here.
	rows, ok, err := c.driverRows(query, args)
	if err == nil && !ok {
		rows, err = c.queryRows(query, args...)
	}
	if f.OwnerID != nil { // its rows come in the owner index's order (listQuery)
		slices.SortFunc(rows, func(a, b Row) int { return cmp.Compare(a.ID, b.ID) })
	}
	return rows, err
}

// listQuery is List's statement for f, and its arguments. The text of a filter without
// feature entries is kept by its shape: building it took 0.6 µs of the 5 µs a get by owner
// and name takes.
func (c *Catalog) listQuery(f *Filter) (string, []any) {
	shape, ok := f.shape()
	if query, kept := c.listQueries[shape]; ok && kept {
		_, args := f.clauses(false)
		return query, args
	}
	where, args := f.where()
	query := `SELECT ` + rowColumns + ` FROM time_series_associations a` + where
	if f.OwnerID == nil {
		query += ` ORDER BY a.id`
	}
	// With an owner, its few rows are sorted by List instead: SQLite's ORDER BY over the
	// owner's index cost 30 µs of the 33 µs a lookup by owner and name took (go-sqlite3
	// 1.14, 1,000 series). With a limit, the rows kept are then the first of the owner's
	// index (a lookup's limit only tells one match from several).
	if f.Limit > 0 {
		query += " LIMIT " + strconv.Itoa(f.Limit)
	}
	if ok && len(c.listQueries) < maxKeptStatements {
		if c.listQueries == nil {
			c.listQueries = map[filterShape]string{}
		}
		c.listQueries[shape] = query
	}
	return query, args
}

// queryRows runs a query selecting rowColumns and scans every row.
func (c *Catalog) queryRows(query string, args ...any) ([]Row, error) {
	rows, err := c.query(query, args...)
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

// HasRowOfType says whether a row of one of types (time_series_type values) exists.
func (c *Catalog) HasRowOfType(types []string) (bool, error) {
	if len(types) == 0 {
		return false, nil
	}
	args := make([]any, len(types))
	for i, t := range types {
		args[i] = t
	}
	var one int
	err := c.conn.QueryRowContext(ctx, `SELECT 1 FROM time_series_associations
		WHERE time_series_type IN (?`+strings.Repeat(", ?", len(types)-1)+`) LIMIT 1`, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
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
