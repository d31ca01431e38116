package catalog

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

func row(owner int64, name string) *Row {
	h := make([]byte, 32)
	return &Row{OwnerID: owner, OwnerType: "G", OwnerCategory: "Component", SeriesType: "SingleTimeSeries",
		Name: name, Resolution: sql.NullString{String: "PT1H", Valid: true}, DType: "f64",
		DataHash: h, FeaturesHash: h}
}

func count(t *testing.T, c *Catalog) int {
	t.Helper()
	rows, err := c.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

func TestNestedRollbackUndoesOnlyTheInnerLevel(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	c.Insert(row(1, "a"))
	if err := c.Begin(); err != nil {
		t.Fatal(err)
	}
	c.Insert(row(2, "b"))
	if n := count(t, c); n != 2 {
		t.Fatalf("inside: %d rows", n)
	}
	if err := c.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c); n != 1 {
		t.Fatalf("after inner rollback + outer commit: %d rows, want 1", n)
	}
}

func TestDuplicateIdentityIsErrUnique(t *testing.T) {
	c, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Insert(row(1, "a")); err != nil {
		t.Fatal(err)
	}
	// NULL interval: only the COALESCE index catches this duplicate.
	if _, err := c.Insert(row(1, "a")); !errors.Is(err, ErrUnique) {
		t.Fatalf("want ErrUnique, got %v", err)
	}
}

func TestOpenWithoutCreateRefusesMissingFile(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "missing.sqlite"), false, false)
	if !errors.Is(err, ErrNoCatalog) {
		t.Fatalf("want ErrNoCatalog, got %v", err)
	}
}

// InsertRows adds rows in order on both of its paths and reports the index of a duplicate.
func TestInsertRowsReportsTheDuplicate(t *testing.T) {
	for _, n := range []int{3, 40} {
		c, err := Open(filepath.Join(t.TempDir(), "c.sqlite"), false, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Begin(); err != nil {
			t.Fatal(err)
		}
		rows := make([]*Row, n)
		for i := range rows {
			rows[i] = row(int64(i), "a")
		}
		if done, err := c.InsertRows(rows); err != nil || done != n {
			t.Fatalf("%d rows: InsertRows = %d, %v", n, done, err)
		}
		if got := count(t, c); got != n {
			t.Fatalf("%d rows: %d stored", n, got)
		}
		again := []*Row{row(int64(n), "a"), rows[n-1]} // the second row is stored already
		for len(again) < n {
			again = append(again, row(int64(n+len(again)), "a"))
		}
		if done, err := c.InsertRows(again); !errors.Is(err, ErrUnique) || done != 1 {
			t.Fatalf("%d rows: a duplicate second row: InsertRows = %d, %v; want 1, ErrUnique", n, done, err)
		}
		c.Rollback()
		c.Close()
	}
}
