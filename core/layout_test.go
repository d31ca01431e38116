package core

import (
	"strings"
	"testing"
	"time"
)

// The layout as netcdf-c's own tools see it: groups, per-variable dimensions, chunking and
// filters (docs/format.md §7).
func TestLayoutSeenByNcdump(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	cost := ArrayOf(make([]int64, 24*3), 24, 3)
	mustAdd(t, s, gen(1), &SingleTimeSeries{Name: "cost", InitialTimestamp: t0, Resolution: Days(1), Data: cost}, nil)
	wide := ArrayOf(make([]float64, 4*512*2), 4, 512, 2) // 8 KiB per step: 128 columns per chunk
	mustAdd(t, s, gen(1), &SingleTimeSeries{Name: "wide", InitialTimestamp: t0, Resolution: Hours(1), Data: wide}, nil)
	ns := ArrayOf([]float64{1, 2, 3})
	mustAdd(t, s, gen(1), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0, t0.Add(time.Hour), t0.Add(3 * time.Hour)}, Data: ns}, nil)
	s.Close()
	out := run(t, "ncdump", "-hs", path)
	arr := "arr_" + hashOf(ns)
	for _, want := range []string{
		`:data_format_version = "0.11.0" ;`,
		`:compression = "deflate:3:shuffle" ;`,
		"group: time_series {",
		"group: single {",
		"sts_f64_s_24_PT1H_t = 24 ;",
		"sts_f64_s_24_PT1H_c = 1000 ;",
		"double sts_f64_s_24_PT1H(sts_f64_s_24_PT1H_t, sts_f64_s_24_PT1H_c) ;",
		"sts_f64_s_24_PT1H:_ChunkSizes = 1, 1000 ;",
		"sts_f64_s_24_PT1H:_DeflateLevel = 3 ;",
		`sts_f64_s_24_PT1H:_Shuffle = "true" ;`,
		"string sts_f64_s_24_PT1H_h(sts_f64_s_24_PT1H_c) ;",
		"int64 sts_i64_3_24_P1D(sts_i64_3_24_P1D_t, sts_i64_3_24_P1D_c, sts_i64_3_24_P1D_e0) ;",
		"sts_i64_3_24_P1D_e0 = 3 ;",
		"sts_i64_3_24_P1D:_ChunkSizes = 1, 1000, 3 ;",
		"sts_f64_512x2_4_PT1H:_ChunkSizes = 1, 128, 512, 2 ;",
		"sts_f64_512x2_4_PT1H_c = 128 ;",
		"double " + arr + "(" + arr + "_d0) ;",
		arr + ":_ChunkSizes = 3 ;",
		arr + ":_DeflateLevel = 3 ;",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ncdump -hs lacks %q", want)
		}
	}
	// The hash companion is never compressed.
	if strings.Contains(out, "sts_f64_s_24_PT1H_h:_DeflateLevel") {
		t.Error("hash companion is compressed")
	}
	// Root attributes are NC_CHAR, never NC_STRING (docs/format.md §1): ncdump prints a
	// string-typed attribute with a "string" prefix.
	if strings.Contains(out, "string :data_format_version") || strings.Contains(out, "string :compression") {
		t.Error("root attributes are NC_STRING")
	}
}

func TestCatalogSchemaSeenBySqlite3(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(3, 0)), &AddOptions{Features: Features{"scenario": Str("high")}})
	s.Close()
	schema := run(t, "sqlite3", CatalogPath(path), ".schema")
	for _, want := range []string{
		"CREATE TABLE time_series_associations", "CREATE TABLE feature_sets",
		"CREATE TABLE supplemental_attribute_associations", "CREATE TABLE parent_child_associations",
		"CREATE TABLE schema_version", "CREATE UNIQUE INDEX uq_ts_assoc ON", "CREATE UNIQUE INDEX uq_ts_assoc_coalesced ON",
		"CREATE INDEX idx_hash", "CREATE INDEX idx_owner", "CREATE INDEX idx_resolution",
		"CREATE UNIQUE INDEX uq_sa_assoc", "CREATE UNIQUE INDEX uq_parent_child",
		"CHECK(owner_category IN ('Component','SupplementalAttribute'))",
	} {
		if !strings.Contains(schema, want) {
			t.Errorf(".schema lacks %q", want)
		}
	}
	row := run(t, "sqlite3", CatalogPath(path), `SELECT owner_category, time_series_type, initial_timestamp, resolution,
		length, dtype, element_shape, length(data_hash), length(features_hash), interval IS NULL, units IS NULL FROM time_series_associations;
		SELECT version FROM schema_version; PRAGMA journal_mode;`)
	want := "Component|SingleTimeSeries|2024-01-01T00:00:00+00:00|PT1H|3|f64|[]|32|32|1|1\n1\ndelete\n"
	if row != want {
		t.Errorf("catalog row:\n%s\nwant:\n%s", row, want)
	}
}

// Opening an old store renames the pre-association index names in place.
func TestOldIndexNamesRenamedOnWritableOpen(t *testing.T) {
	s, path := newStore(t)
	s.Close()
	run(t, "sqlite3", CatalogPath(path), `DROP INDEX uq_ts_assoc; DROP INDEX uq_ts_assoc_coalesced;
		CREATE UNIQUE INDEX uq_assoc ON time_series_associations (owner_id, owner_category, time_series_type, name, resolution, interval, features_hash);
		DROP TABLE supplemental_attribute_associations; DROP TABLE parent_child_associations;`)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	if idx := run(t, "sqlite3", CatalogPath(path), "SELECT name FROM sqlite_master WHERE name LIKE 'uq_%' ORDER BY name"); idx != "uq_assoc\n" {
		t.Fatalf("read-only open ran DDL: %q", idx)
	}
	s = openAgain(t, path)
	s.Close()
	idx := run(t, "sqlite3", CatalogPath(path), "SELECT name FROM sqlite_master WHERE name LIKE 'uq_%' ORDER BY name")
	if idx != "uq_parent_child\nuq_sa_assoc\nuq_ts_assoc\nuq_ts_assoc_coalesced\n" {
		t.Fatalf("indexes after writable open: %q", idx)
	}
}
