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
