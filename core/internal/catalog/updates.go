// Changing and deleting rows.

package catalog

import (
	"database/sql"
	"errors"
)

// Delete removes the row with the given id.
func (c *Catalog) Delete(id int64) error {
	_, err := c.exec(`DELETE FROM time_series_associations WHERE id = ?`, id)
	return err
}

// VacuumInto writes a compacted, journal-free copy of the database to path.
func (c *Catalog) VacuumInto(path string) error {
	if err := c.releaseReadLock(); err != nil {
		return err
	}
	_, err := c.conn.ExecContext(ctx, "VACUUM INTO ?", path)
	return errors.Join(err, c.holdReadLock())
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
