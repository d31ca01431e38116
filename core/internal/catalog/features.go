// Feature sets: the rows of time_series_features, by features hash.

package catalog

import (
	"database/sql"
	"fmt"

	"github.com/tsstore/tsstore/core/internal/hashing"
)

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

// DeleteAllFeatureSets empties feature_sets (used when a store is cleared) and returns how
// many rows it deleted.
func (c *Catalog) DeleteAllFeatureSets() (int64, error) {
	res, err := c.exec(`DELETE FROM feature_sets`)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
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
