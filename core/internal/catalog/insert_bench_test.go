//go:build unix

package catalog

import (
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// benchRows are n rows as a bulk add of n SingleTimeSeries writes them.
func benchRows(n int) []Row {
	fh := sha256.Sum256([]byte("features\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	rows := make([]Row, n)
	for i := range rows {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(i))
		dh := sha256.Sum256(b[:])
		rows[i] = Row{OwnerID: int64(i), OwnerType: "PowerLoad", OwnerCategory: "Component", SeriesType: "SingleTimeSeries",
			Name: "max_active_power", InitialTimestamp: sql.NullString{String: "2030-01-01T00:00:00", Valid: true},
			Resolution: sql.NullString{String: "PT1H", Valid: true}, Length: sql.NullInt64{Int64: 24, Valid: true},
			DType: "f64", ElementShape: sql.NullString{String: "[]", Valid: true}, DataHash: dh[:], FeaturesHash: fh[:]}
	}
	return rows
}

// benchWith times inserting 100,000 rows in one transaction (with the savepoint a store's
// call opens) and its commit, reporting wall and process CPU time per row.
func benchWith(b *testing.B, ins func(c *Catalog, rows []Row) error) {
	rows := benchRows(100_000)
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c, err := Open(filepath.Join(b.TempDir(), "c.sqlite"), false, true)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := cpuTime()
		c.Begin()
		c.Begin()
		if err := ins(c, rows); err != nil {
			b.Fatal(err)
		}
		c.Commit()
		if err := c.Commit(); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		b.StopTimer()
		if n, _ := c.CountWhere("count(*)", Filter{}); n != int64(len(rows)) {
			b.Fatal(n)
		}
		c.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e5/1e3, "µs/row")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e5/1e3, "cpuµs/row")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkInsOne inserts with Insert, one database/sql call a row.
func BenchmarkInsOne(b *testing.B) {
	benchWith(b, func(c *Catalog, rows []Row) error {
		for i := range rows {
			if _, err := c.Insert(&rows[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// BenchmarkInsRows inserts with InsertRows, as a batch add does.
func BenchmarkInsRows(b *testing.B) {
	benchWith(b, func(c *Catalog, rows []Row) error {
		ps := make([]*Row, len(rows))
		for i := range rows {
			ps[i] = &rows[i]
		}
		_, err := c.InsertRows(ps)
		return err
	})
}
