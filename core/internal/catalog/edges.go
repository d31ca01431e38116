package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// EdgeTable describes one of the two association tables (docs/format.md §9.3, §9.4): an id and a
// type name at each end, identity the ordered pair of ids.
type EdgeTable struct {
	Name, AID, AType, BID, BType string
}

// The two association tables.
var (
	Supplemental = EdgeTable{"supplemental_attribute_associations", "component_id", "component_type", "attribute_id", "attribute_type"}
	ParentChild  = EdgeTable{"parent_child_associations", "parent_id", "parent_type", "child_id", "child_type"}
)

// Edge is one row of an association table.
type Edge struct {
	A     int64
	AType string
	B     int64
	BType string
}

// EdgeFilter selects rows; a nil list matches everything, an empty list nothing. Lists go to
// SQLite as one JSON array each (json_each), so they may be as long as the caller likes.
type EdgeFilter struct {
	A, B           []int64
	ATypes, BTypes []string
}

func (f EdgeFilter) where(t EdgeTable) (string, []any) {
	var conds []string
	var args []any
	// A nil list matches everything; an empty one matches nothing, so a caller whose own
	// selection came out empty never removes the whole table by accident.
	add := func(column string, list any, isNil bool) {
		if isNil {
			return
		}
		js, _ := json.Marshal(list)
		conds = append(conds, column+" IN (SELECT value FROM json_each(?))")
		args = append(args, string(js))
	}
	add(t.AID, f.A, f.A == nil)
	add(t.BID, f.B, f.B == nil)
	add(t.AType, f.ATypes, f.ATypes == nil)
	add(t.BType, f.BTypes, f.BTypes == nil)
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// HasTable reports whether a table exists. A read-only open of a store written before the
// association tables existed finds neither (docs/format.md §9.6).
func (c *Catalog) HasTable(name string) (bool, error) {
	if ok, known := c.tables[name]; known {
		return ok, nil
	}
	var n int
	err := c.conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	if err != nil {
		return false, err
	}
	c.tables[name] = n > 0
	return n > 0, nil
}

// DuplicateEdgeError says which pair a unique index refused.
type DuplicateEdgeError struct{ Detail string }

func (e *DuplicateEdgeError) Error() string { return e.Detail }

// InsertEdges adds rows; a pair already present is a *DuplicateEdgeError (wrapping ErrUnique).
func (c *Catalog) InsertEdges(t EdgeTable, edges []Edge) error {
	s, err := c.stmt(`INSERT INTO ` + t.Name + ` (` + t.AID + `, ` + t.AType + `, ` + t.BID + `, ` + t.BType + `) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	for _, e := range edges {
		if _, err := s.ExecContext(ctx, e.A, e.AType, e.B, e.BType); err != nil {
			if err = translate(err); errors.Is(err, ErrUnique) {
				return fmt.Errorf("%w: %w", &DuplicateEdgeError{fmt.Sprintf("the pair (%d, %d) is already associated", e.A, e.B)}, ErrUnique)
			}
			return err
		}
	}
	return nil
}

// HasEdge reports whether the pair (a, b) is present.
func (c *Catalog) HasEdge(t EdgeTable, a, b int64) (bool, error) {
	if ok, err := c.HasTable(t.Name); !ok || err != nil {
		return false, err
	}
	var n int
	err := c.conn.QueryRowContext(ctx, `SELECT count(*) FROM `+t.Name+` WHERE `+t.AID+` = ? AND `+t.BID+` = ?`, a, b).Scan(&n)
	return n > 0, err
}

// ListEdges returns the rows matching f in id order.
func (c *Catalog) ListEdges(t EdgeTable, f EdgeFilter) ([]Edge, error) {
	if ok, err := c.HasTable(t.Name); !ok || err != nil {
		return nil, err
	}
	where, args := f.where(t)
	rows, err := c.conn.QueryContext(ctx, `SELECT `+t.AID+`, `+t.AType+`, `+t.BID+`, `+t.BType+` FROM `+t.Name+where+` ORDER BY id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Edge
	for rows.Next() {
		var e Edge
		if err := rows.Scan(&e.A, &e.AType, &e.B, &e.BType); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// DistinctEdgeIDs lists the distinct ids at one end (b = false: the A end) of the rows
// matching f, ascending.
func (c *Catalog) DistinctEdgeIDs(t EdgeTable, b bool, f EdgeFilter) ([]int64, error) {
	if ok, err := c.HasTable(t.Name); !ok || err != nil {
		return nil, err
	}
	col := t.AID
	if b {
		col = t.BID
	}
	where, args := f.where(t)
	rows, err := c.conn.QueryContext(ctx, `SELECT DISTINCT `+col+` FROM `+t.Name+where+` ORDER BY 1`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// DeleteEdges removes the rows matching f and returns how many.
func (c *Catalog) DeleteEdges(t EdgeTable, f EdgeFilter) (int64, error) {
	where, args := f.where(t)
	res, err := c.conn.ExecContext(ctx, `DELETE FROM `+t.Name+where, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// ReplaceEdgeID changes id old to new at the A end, and at the B end too when both is set,
// in one statement (a self-edge is one row changed). A pair that would then exist twice is a
// *DuplicateEdgeError.
func (c *Catalog) ReplaceEdgeID(t EdgeTable, old, new int64, both bool) (int64, error) {
	q := `UPDATE ` + t.Name + ` SET ` + t.AID + ` = ? WHERE ` + t.AID + ` = ?`
	args := []any{new, old}
	if both {
		q = `UPDATE ` + t.Name + ` SET ` + t.AID + ` = CASE WHEN ` + t.AID + ` = ? THEN ? ELSE ` + t.AID + ` END, ` +
			t.BID + ` = CASE WHEN ` + t.BID + ` = ? THEN ? ELSE ` + t.BID + ` END WHERE ` + t.AID + ` = ? OR ` + t.BID + ` = ?`
		args = []any{old, new, old, new, old, old}
	}
	res, err := c.conn.ExecContext(ctx, q, args...)
	if err != nil {
		if err = translate(err); errors.Is(err, ErrUnique) {
			return 0, fmt.Errorf("%w: %w", &DuplicateEdgeError{fmt.Sprintf("replacing id %d with %d would associate one pair twice", old, new)}, ErrUnique)
		}
		return 0, err
	}
	return res.RowsAffected()
}

// EdgeCounts returns the number of rows and of distinct ids at each end.
func (c *Catalog) EdgeCounts(t EdgeTable) (rows, distinctA, distinctB int64, err error) {
	if ok, err := c.HasTable(t.Name); !ok || err != nil {
		return 0, 0, 0, err
	}
	err = c.conn.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT `+t.AID+`), count(DISTINCT `+t.BID+`) FROM `+t.Name).
		Scan(&rows, &distinctA, &distinctB)
	return rows, distinctA, distinctB, err
}

// TypeCount is the number of rows with one pair of type names.
type TypeCount struct {
	AType, BType string
	Rows         int64
}

// EdgeCountsByType counts rows per (A type, B type), ordered by the type names.
func (c *Catalog) EdgeCountsByType(t EdgeTable) ([]TypeCount, error) {
	if ok, err := c.HasTable(t.Name); !ok || err != nil {
		return nil, err
	}
	rows, err := c.conn.QueryContext(ctx, `SELECT `+t.AType+`, `+t.BType+`, count(*) FROM `+t.Name+` GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TypeCount
	for rows.Next() {
		var tc TypeCount
		if err := rows.Scan(&tc.AType, &tc.BType, &tc.Rows); err != nil {
			return nil, err
		}
		out = append(out, tc)
	}
	return out, rows.Err()
}
