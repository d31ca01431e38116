// A catalog row and the identity of a series, as the store reads and writes them.

package catalog

import (
	"database/sql"
	"database/sql/driver"
)

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

// identityColumns are the columns of a row a lookup by identity does not fix: its WHERE
// clause (groupWhere) fixes the category, type, name, periods and features hash, so a
// lookup takes those from the identity and reads the rest. Each text or blob column read
// costs the driver two allocations a row: a lookup of 10,000 keys made 35 a row.
const identityColumns = `id, owner_id, owner_type, initial_timestamp, length, horizon, count,
	timestamps_json, units, percentiles_json, dtype, element_shape, ext, data_hash`

func (r *Row) identityScanTargets() []any {
	return []any{&r.ID, &r.OwnerID, &r.OwnerType, &r.InitialTimestamp, &r.Length, &r.Horizon, &r.Count,
		&r.TimestampsJSON, &r.Units, &r.PercentilesJSON, &r.DType, &r.ElementShape, &r.Ext, &r.DataHash}
}

// setGroup sets the columns of r that g, the lookup that found it, fixes; fh is g's
// features hash, shared by the rows of one lookup (no row's hash is written to).
func (r *Row) setGroup(g *lookupGroup, fh []byte) {
	r.OwnerCategory, r.SeriesType, r.Name = g.cat, g.typ, g.name
	r.Resolution = sql.NullString{String: g.res, Valid: g.res != ""}
	r.Interval = sql.NullString{String: g.iv, Valid: g.iv != ""}
	r.FeaturesHash = fh
}

// fromDriver sets r from the driver's values of rowColumns, and reports false when one is not
// of the type its field holds (NULL only where the field is nullable).
func (r *Row) fromDriver(v []driver.Value) bool {
	d := driverValues{ok: true}
	*r = Row{ID: d.integer(v[0]), OwnerID: d.integer(v[1]), OwnerType: d.text(v[2]), OwnerCategory: d.text(v[3]),
		SeriesType: d.text(v[4]), Name: d.text(v[5]), InitialTimestamp: d.nullText(v[6]), Resolution: d.nullText(v[7]),
		Length: d.nullInteger(v[8]), Horizon: d.nullText(v[9]), Interval: d.nullText(v[10]), Count: d.nullInteger(v[11]),
		TimestampsJSON: d.nullText(v[12]), Units: d.nullText(v[13]), PercentilesJSON: d.nullText(v[14]),
		DType: d.text(v[15]), ElementShape: d.nullText(v[16]), Ext: d.nullText(v[17]), DataHash: d.blob(v[18]),
		FeaturesHash: d.blob(v[19])}
	return d.ok
}

// fromDriverInGroup sets r from the driver's values of identityColumns and from g, the
// lookup that found it (setGroup), and reports false as fromDriver does.
func (r *Row) fromDriverInGroup(v []driver.Value, g *lookupGroup, fh []byte) bool {
	d := driverValues{ok: true}
	*r = Row{ID: d.integer(v[0]), OwnerID: d.integer(v[1]), OwnerType: d.text(v[2]), InitialTimestamp: d.nullText(v[3]),
		Length: d.nullInteger(v[4]), Horizon: d.nullText(v[5]), Count: d.nullInteger(v[6]), TimestampsJSON: d.nullText(v[7]),
		Units: d.nullText(v[8]), PercentilesJSON: d.nullText(v[9]), DType: d.text(v[10]), ElementShape: d.nullText(v[11]),
		Ext: d.nullText(v[12]), DataHash: d.blob(v[13])}
	r.setGroup(g, fh)
	return d.ok
}

// driverValues reads the driver's column values into fields; ok turns false at a value of
// another type than its field's.
type driverValues struct{ ok bool }

func (d *driverValues) integer(x driver.Value) int64 {
	n, is := x.(int64)
	d.ok = d.ok && is
	return n
}

func (d *driverValues) text(x driver.Value) string {
	t, is := x.(string)
	d.ok = d.ok && is
	return t
}

func (d *driverValues) blob(x driver.Value) []byte {
	b, is := x.([]byte)
	d.ok = d.ok && is
	return b
}

func (d *driverValues) nullText(x driver.Value) sql.NullString {
	if x == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: d.text(x), Valid: true}
}

func (d *driverValues) nullInteger(x driver.Value) sql.NullInt64 {
	if x == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: d.integer(x), Valid: true}
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

// args are k's values in identityWhere's order.
func (k Identity) args() [7]any {
	return [7]any{k.OwnerID, k.OwnerCategory, k.SeriesType, k.Name, k.Resolution, k.Interval, k.FeaturesHash}
}
