package main

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tsstore/tsstore/core"
)

func TestHelpForEveryCommand(t *testing.T) {
	t.Parallel()
	top := ok(t, "--help")
	for name := range commands {
		if !strings.Contains(top, "\n  "+name+" ") {
			t.Errorf("tsstore --help does not list %s", name)
		}
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}} {
			out := ok(t, args...)
			for _, want := range []string{"Usage: tsstore " + name, "Example:", "tsstore " + name + " "} {
				if !strings.Contains(out, want) {
					t.Errorf("tsstore %v: help lacks %q:\n%s", args, want, out)
				}
			}
		}
	}
	for _, name := range []string{"import", "export"} {
		if out := ok(t, name, "--help"); !strings.Contains(out, "strconv 'g', precision -1") {
			t.Errorf("%s --help does not document the number format", name)
		}
	}
	if r := run(t); r.code != 2 || !strings.Contains(r.stderr, "Usage:") {
		t.Errorf("tsstore without arguments: exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(top, "tsstore --version") {
		t.Error("tsstore --help does not mention --version")
	}
}

// TestVersion: --version names the tool's and the library's version and the data format.
func TestVersion(t *testing.T) {
	t.Parallel()
	want := "tsstore " + core.Version + " (library " + core.Version + ", data format 0.11.0)\n"
	for _, arg := range []string{"--version", "-version", "version"} {
		if out := ok(t, arg); out != want {
			t.Errorf("tsstore %s: %q, want %q", arg, out, want)
		}
	}
}

// TestUsageErrors covers the mistakes every command shares: exit 2, one line naming the
// bad flag or value.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	p := fx.path
	cases := []struct {
		args  []string
		code  int
		frags []string
	}{
		{[]string{"frobnicate", p}, 2, []string{`unknown command "frobnicate"`}},
		{[]string{"help", "frobnicate"}, 2, []string{`unknown command "frobnicate"`}},
		{[]string{"ls", "--bogus", p}, 2, []string{"-bogus", "tsstore ls --help"}},
		{[]string{"ls"}, 2, []string{"wrong number of arguments", "tsstore ls"}},
		{[]string{"ls", p, p}, 2, []string{"wrong number of arguments"}},
		{[]string{"ls", "--format", "xml", p}, 2, []string{`--format "xml"`, "table, csv, json"}},
		{[]string{"info", "--format", "csv", p}, 2, []string{`--format "csv"`}},
		{[]string{"ls", "--type", "Weekly", p}, 2, []string{`--type "Weekly"`, "SingleTimeSeries"}},
		{[]string{"ls", "--owner-id", "seven", p}, 2, []string{`--owner-id "seven"`}},
		{[]string{"ls", "--category", "Bus", p}, 2, []string{`--category "Bus"`}},
		{[]string{"ls", "--resolution", "1h", p}, 2, []string{`--resolution "1h"`}},
		{[]string{"ls", "--interval", "-P1D", p}, 2, []string{`--interval "-P1D"`, "positive"}},
		{[]string{"ls", "--features", "{scenario}", p}, 2, []string{"--features", "{scenario}"}},
		{[]string{"ls", "--features", `{"a":[1]}`, p}, 2, []string{"--features", "features.a", "array"}},
		{[]string{"show", "--owner-id", "2", "--name", "max_active_power", "--start", "yesterday", p}, 2, []string{`--start "yesterday"`}},
		{[]string{"show", "--owner-id", "2", "--name", "max_active_power", "--end", "2030-13-01T00:00:00Z", p}, 2, []string{`--end "2030-13-01T00:00:00Z"`}},
		{[]string{"show", "--owner-id", "2", "--name", "max_active_power", "--window", "2030-01-01T00:00:00Z", p}, 2, []string{"--window", "static series"}},
		{[]string{"show", "--owner-id", "1", "--type", "Deterministic", "--start", "2030-01-01T00:00:00Z", p}, 2, []string{"--start/--end", "forecast"}},
		{[]string{"show", "--owner-id", "2", "--name", "max_active_power", "--plot", "chart.pdf", p}, 2, []string{`--plot "chart.pdf"`, ".svg or .png"}},
		{[]string{"export", "--type", "Deterministic", p}, 2, []string{"--type Deterministic", "SingleTimeSeries only"}},
		{[]string{"export", "--header", "name", p}, 2, []string{`--header "name"`}},
		{[]string{"ls", "--exact-features", p}, 2, []string{"--exact-features needs --features"}},
		{[]string{"compact", p}, 2, []string{"not a terminal", "--yes"}},
		// The catalog given where the store's .nc is wanted, by any command.
		{[]string{"ls", core.CatalogPath(p)}, 2, []string{"catalog half of a store", "pass its NetCDF file " + p}},
		{[]string{"compact", "--yes", core.CatalogPath(p)}, 2, []string{"catalog half", p}},
		{[]string{"import", "--owner-type", "T", core.CatalogPath(p), "x.csv"}, 2, []string{"catalog half", p}},
	}
	for _, c := range cases {
		before := fileHashes(t, p)
		fails(t, c.code, c.frags, c.args...)
		if after := fileHashes(t, p); after != before {
			t.Errorf("tsstore %v changed the store", c.args)
		}
	}
}

// TestOperationErrors covers failures of the operation itself: exit 1, the core message.
func TestOperationErrors(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	p := fx.path
	missing := p + ".missing"
	for _, name := range []string{"info", "ls", "show", "verify", "check-grid", "export"} {
		fails(t, 1, []string{missing}, name, missing)
	}
	fails(t, 1, []string{missing}, "compact", "--yes", missing)
	onlyNC := writeFile(t, "lonely.nc", "")
	fails(t, 1, []string{"lonely.nc"}, "ls", onlyNC)
	cases := []struct {
		args  []string
		frags []string
	}{
		{[]string{"show", "--owner-id", "42", p}, []string{"no series matches"}},
		{[]string{"show", "--owner-id", "1", "--name", "max_active_power", p}, []string{"2 series match", "exactly one", `"scenario":"high"`}},
		{[]string{"show", p}, []string{"series match", "and ", "more"}},
		{[]string{"show", "--owner-id", "1", "--type", "Deterministic", "--window", "2030-01-01T05:00:00Z", p}, []string{"2030-01-01T05:00:00"}},
		{[]string{"show", "--owner-id", "2", "--name", "max_active_power", "--start", "2030-01-03T00:00:00Z", "--end", "2030-01-01T00:00:00Z", p}, []string{"end"}},
		{[]string{"export", "--owner-id", "42", p}, []string{"no SingleTimeSeries matches"}},
		{[]string{"export", "--owner-id", "1", p}, []string{"would both be column", `"1:max_active_power"`}},
		{[]string{"export", "--name", "max_active_power", "--header", "id", "--owner-id", "1", p}, []string{`column "1"`}},
		{[]string{"export", "--header", "id", "--features", "{}", "--exact-features", "--glob", "[ms]*", p}, []string{"--header id drops the series names", `"max_active_power"`, `"status"`}},
	}
	for _, c := range cases {
		fails(t, 1, c.frags, c.args...)
	}
}

func TestInfo(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	text := ok(t, "info", fx.path)
	for _, want := range []string{"format version", core.DataFormatVersion, "deflate:3:shuffle", "netcdf file", "catalog file",
		"SingleTimeSeries", "Probabilistic", "Component ThermalStandard", "SupplementalAttribute GeographicInfo",
		"PT1H", "P1D", "shared arrays", "1, referenced by 2 series", "reclaimable", "not computed"} {
		if !strings.Contains(text, want) {
			t.Errorf("info lacks %q:\n%s", want, text)
		}
	}
	var rep infoReport
	parseJSON(t, ok(t, "info", "--format", "json", "--reclaimable", fx.path), &rep)
	st, _ := os.Stat(fx.path)
	cst, _ := os.Stat(core.CatalogPath(fx.path))
	if rep.FormatVersion != core.DataFormatVersion || rep.Compression != "deflate:3:shuffle" ||
		rep.NetCDFBytes != st.Size() || rep.CatalogBytes != cst.Size() {
		t.Errorf("info header %+v", rep)
	}
	withStore(t, fx.path, func(s *core.Store) {
		counts, _ := s.CountsByType(core.KeyFilter{})
		total := 0
		for typ, n := range counts {
			total += n
			if rep.ByType[typ.String()] != n {
				t.Errorf("info counts %d %s, core %d", rep.ByType[typ.String()], typ, n)
			}
		}
		if rep.Series != total || len(rep.ByType) != len(counts) {
			t.Errorf("info series %d by type %v, core %v", rep.Series, rep.ByType, counts)
		}
		arrays, _ := s.CountArrays(core.KeyFilter{})
		if rep.Arrays != arrays {
			t.Errorf("info arrays %d, core %d", rep.Arrays, arrays)
		}
	})
	wantOwners := []ownerSummary{
		{"Component", "HydroDispatch", 1, 1},
		{"Component", "ThermalStandard", 6, 10},
		{"SupplementalAttribute", "GeographicInfo", 1, 1},
	}
	if !slices.Equal(rep.Owners, wantOwners) {
		t.Errorf("info owners %+v, want %+v", rep.Owners, wantOwners)
	}
	if !slices.Equal(rep.Resolutions, []string{"PT1H"}) || !slices.Equal(rep.Intervals, []string{"P1D"}) {
		t.Errorf("info periods %v %v", rep.Resolutions, rep.Intervals)
	}
	if len(rep.StaticGrids) != 1 || rep.StaticGrids[0].Length != steps || rep.StaticGrids[0].Series != 8 {
		t.Errorf("info grids %+v", rep.StaticGrids)
	}
	if len(rep.Forecasts) != 3 || rep.Forecasts[0].Count != 2 || rep.Forecasts[0].Horizon != "PT4H" {
		t.Errorf("info forecasts %+v", rep.Forecasts)
	}
	if rep.SharedArrays != 1 || rep.SharingSeries != 2 {
		t.Errorf("info shared %d/%d, want 1/2", rep.SharedArrays, rep.SharingSeries)
	}
	if rep.Supplemental != (supplementalSummary{1, 1, 1}) || rep.ParentChild != (parentChildSummary{1, 1, 1}) {
		t.Errorf("info associations %+v %+v", rep.Supplemental, rep.ParentChild)
	}
	if rep.Reclaimable == nil || rep.Reclaimable.FreePackedColumns < 1 || rep.Reclaimable.UnreachableFeatures != 1 {
		t.Errorf("info reclaimable %+v, want ≥1 free column and 1 unreachable feature set", rep.Reclaimable)
	}
	var plain map[string]any
	parseJSON(t, ok(t, "info", "--format", "json", fx.path), &plain)
	if plain["reclaimable"] != nil {
		t.Errorf("reclaimable without --reclaimable: %v", plain["reclaimable"])
	}
}

func TestLs(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	var metas []core.Metadata
	var shapes []stepShape
	withStore(t, fx.path, func(s *core.Store) {
		var err error
		if metas, err = s.ListMetadata(core.KeyFilter{}); err != nil {
			t.Fatal(err)
		}
		for i := range metas {
			shapes = append(shapes, shapeOf(t, s, metas[i].Key))
		}
	})
	table := ok(t, "ls", fx.path)
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != len(metas)+2 || !strings.HasPrefix(lines[0], "OWNER_ID") || lines[len(lines)-1] != strconv.Itoa(len(metas))+" series" {
		t.Fatalf("ls table:\n%s", table)
	}
	for i, m := range metas {
		fields := strings.Fields(lines[i+1])
		if fields[0] != strconv.FormatInt(m.OwnerID, 10) || fields[3] != m.Type.String() || fields[4] != m.Name {
			t.Errorf("ls row %d %q, want %s", i, lines[i+1], m.Key)
		}
	}

	recs := parseCSV(t, ok(t, "ls", "--format", "csv", fx.path))
	if !slices.Equal(recs[0], keyCSVHeader) || len(recs) != len(metas)+1 {
		t.Fatalf("ls csv header %v, %d rows", recs[0], len(recs))
	}
	var js []keyRecord
	parseJSON(t, ok(t, "ls", "--format", "json", fx.path), &js)
	if len(js) != len(metas) {
		t.Fatalf("ls json: %d records, want %d", len(js), len(metas))
	}
	for i := range metas {
		m := &metas[i]
		checkKeyCSV(t, recs[i+1], m, shapes[i])
		checkKeyJSON(t, js[i], m, shapes[i])
	}
}

// stepShape is a series' steps (per window, for a forecast) and one step's value shape.
type stepShape struct {
	steps  int
	eshape []int
}

// shapeOf reads a series (its first window, for a forecast) and takes its shape from the
// documented data layout: [L, *E]; a window [H, *E], or [P|S, H, *E] when layered.
func shapeOf(t *testing.T, s *core.Store, k core.Key) stepShape {
	t.Helper()
	ts, err := s.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	switch v := ts.(type) {
	case *core.SingleTimeSeries:
		return stepShape{v.Data.Len(), v.Data.ElementShape()}
	case *core.NonSequentialTimeSeries:
		return stepShape{v.Data.Len(), v.Data.ElementShape()}
	case core.Forecast:
		w, err := v.Window(0)
		if err != nil {
			t.Fatal(err)
		}
		if k.Type == core.ProbabilisticType || k.Type == core.ScenariosType {
			return stepShape{w.Shape[1], w.Shape[2:]}
		}
		return stepShape{w.Shape[0], w.Shape[1:]}
	}
	t.Fatalf("unexpected %T", ts)
	return stepShape{}
}

// checkKeyCSV compares one ls CSV row with the catalog record core returns.
func checkKeyCSV(t *testing.T, row []string, m *core.Metadata, sh stepShape) {
	t.Helper()
	feats, err := core.ParseFeaturesJSON(row[7])
	if err != nil || !feats.Equal(m.Features) {
		t.Errorf("features %q, want %v (%v)", row[7], m.Features.JSON(), err)
	}
	res, _ := periodOrZero(row[5])
	iv, _ := periodOrZero(row[6])
	hz, _ := periodOrZero(row[10])
	length, _ := strconv.Atoi(row[9])
	count, _ := strconv.Atoi(row[11])
	var shape []int
	json.Unmarshal([]byte(row[13]), &shape)
	got := []any{row[0], row[1], row[2], row[3], row[4], res, iv, length, hz, count, row[12], row[14], len(shape)}
	want := []any{strconv.FormatInt(m.OwnerID, 10), m.OwnerCategory.String(), m.OwnerType, m.Type.String(), m.Name,
		m.Resolution, m.Interval, sh.steps, m.Horizon, m.Count, m.DType.String(), m.Units, len(sh.eshape)}
	if !slices.Equal(got, want) || !slices.Equal(shape, sh.eshape) {
		t.Errorf("ls csv row %v\n want %v", got, want)
	}
	if m.InitialTimestamp.IsZero() != (row[8] == "") {
		t.Errorf("initial timestamp %q for %s", row[8], m.Key)
	} else if row[8] != "" {
		ts, err := core.ParseTimestamp(row[8])
		if err != nil || !ts.Equal(m.InitialTimestamp) {
			t.Errorf("initial timestamp %q, want %v", row[8], m.InitialTimestamp)
		}
	}
}

func checkKeyJSON(t *testing.T, r keyRecord, m *core.Metadata, sh stepShape) {
	t.Helper()
	feats, err := core.ParseFeaturesJSON(string(r.Features))
	if err != nil || !feats.Equal(m.Features) {
		t.Errorf("json features %s, want %s", r.Features, m.Features.JSON())
	}
	res, _ := periodOrZero(r.Resolution)
	iv, _ := periodOrZero(r.Interval)
	if r.OwnerID != m.OwnerID || r.Category != m.OwnerCategory.String() || r.Type != m.Type.String() || r.Name != m.Name ||
		res != m.Resolution || iv != m.Interval || r.Length != sh.steps || r.Count != m.Count || r.DType != m.DType.String() ||
		r.Units != m.Units || r.OwnerType != m.OwnerType || !slices.Equal(r.ElementShape, sh.eshape) {
		t.Errorf("ls json %+v, want %s", r, m.Key)
	}
}

func periodOrZero(s string) (core.Period, error) {
	if s == "" {
		return core.Period{}, nil
	}
	return core.ParsePeriod(s)
}

// TestLsFilters checks every filter flag against core's ListKeys with the same filter.
func TestLsFilters(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	cat, typ, name, glob, ot := core.SupplementalAttribute, core.ProbabilisticType, "max_active_power", "load_*", "HydroDispatch"
	id, res, iv := int64(1), core.Hours(1), core.Hours(24)
	cases := []struct {
		args   []string
		filter core.KeyFilter
		want   int
	}{
		{[]string{"--owner-id", "1"}, core.KeyFilter{OwnerID: &id}, 3},
		{[]string{"--category", "SupplementalAttribute"}, core.KeyFilter{OwnerCategory: &cat}, 1},
		{[]string{"--type", "probabilistic"}, core.KeyFilter{Type: &typ}, 1},
		{[]string{"--name", name}, core.KeyFilter{Name: &name}, 5},
		{[]string{"--glob", glob}, core.KeyFilter{NameGlob: &glob}, 3},
		{[]string{"--owner-type", ot}, core.KeyFilter{OwnerType: &ot}, 1},
		{[]string{"--resolution", "PT60M"}, core.KeyFilter{Resolution: &res}, 11},
		{[]string{"--interval", "P1D"}, core.KeyFilter{Interval: &iv}, 3},
		{[]string{"--interval", "PT24H"}, core.KeyFilter{Interval: &iv}, 3},
		{[]string{"--interval", "PT1H"}, core.KeyFilter{Interval: &res}, 0},
		{[]string{"--features", `{"scenario":"high"}`}, core.KeyFilter{Features: core.Features{"scenario": core.Str("high")}}, 1},
		{[]string{"--owner-id", "1", "--name", name, "--features", "{}"}, core.KeyFilter{OwnerID: &id, Name: &name, Features: core.Features{}}, 2},
	}
	for _, c := range cases {
		var js []keyRecord
		parseJSON(t, ok(t, append(append([]string{"ls", "--format", "json"}, c.args...), fx.path)...), &js)
		var keys []core.Key
		withStore(t, fx.path, func(s *core.Store) { keys, _ = s.ListKeys(c.filter) })
		if len(js) != len(keys) || len(js) != c.want {
			t.Errorf("ls %v: %d keys, core %d, want %d", c.args, len(js), len(keys), c.want)
			continue
		}
		for i, k := range keys {
			if js[i].OwnerID != k.OwnerID || js[i].Name != k.Name || js[i].Type != k.Type.String() {
				t.Errorf("ls %v key %d: %+v, core %s", c.args, i, js[i], k)
			}
		}
	}
}
