package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core"
)

// storedSTS reads every SingleTimeSeries of a store: key string → series and metadata.
func storedSTS(t *testing.T, path string) (map[string]*core.SingleTimeSeries, map[string]core.Metadata) {
	t.Helper()
	series, metas := map[string]*core.SingleTimeSeries{}, map[string]core.Metadata{}
	withStore(t, path, func(s *core.Store) {
		ms, err := s.ListMetadata(core.KeyFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			ts, err := s.Get(m.Key)
			if err != nil {
				t.Fatal(err)
			}
			id := fmt.Sprintf("%d:%s", m.OwnerID, m.Name)
			series[id], metas[id] = ts.(*core.SingleTimeSeries), m
		}
	})
	return series, metas
}

func floats(t *testing.T, a core.TypedArray) []float64 {
	t.Helper()
	v, err := core.Values[float64](a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestImportWide(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "new.nc")
	csvText := "timestamp,17,18:min_active_power,19\n" +
		"2030-01-01T00:00:00Z,101.5,20,1e+06\n" +
		"2030-01-01T01:00:00+01:00,99.25,-0.5,NaN\n" + // an offset: the same instant as 00:00Z
		"2030-01-01T02:00:00Z,98,20,+Inf\n"
	fails(t, 1, []string{"not increasing", "2030-01-01T00:00:00Z"}, "import", "--create", "--owner-type", "ThermalStandard",
		"--name", "max_active_power", store, writeFile(t, "bad.csv", csvText))
	if _, err := os.Stat(store); err == nil {
		t.Fatal("a failed import created the store")
	}
	csvText = strings.Replace(csvText, "01:00:00+01:00", "02:00:00+01:00", 1)
	out := ok(t, "import", "--create", "--compression", "none", "--owner-type", "ThermalStandard", "--name", "max_active_power",
		"--units", "MW", "--features", `{"scenario":"base","year":2030}`, store, writeFile(t, "gens.csv", csvText))
	if !strings.Contains(out, "imported 3 series (3 steps at PT1H from 2030-01-01T00:00:00Z)") {
		t.Errorf("import said %q", out)
	}
	series, metas := storedSTS(t, store)
	want := map[string][]float64{"17:max_active_power": {101.5, 99.25, 98}, "18:min_active_power": {20, -0.5, 20},
		"19:max_active_power": {1e6, math.NaN(), math.Inf(1)}}
	if len(series) != 3 {
		t.Fatalf("stored %d series", len(series))
	}
	for id, w := range want {
		s, m := series[id], metas[id]
		if s == nil || !slices.EqualFunc(floats(t, s.Data), w, sameFloat) || !s.InitialTimestamp.Equal(t0) ||
			s.Resolution != core.Hours(1) || m.Units != "MW" || m.OwnerType != "ThermalStandard" || m.OwnerCategory != core.Component ||
			!m.Features.Equal(core.Features{"scenario": core.Str("base"), "year": core.Int(2030)}) {
			t.Errorf("%s stored as %+v / %+v", id, s, m)
		}
	}
	withStore(t, store, func(s *core.Store) {
		if c := s.Compression(); c.Deflate {
			t.Errorf("--compression none made %v", c)
		}
	})
	// The same file again: every key exists, so nothing is added (one batch, all or nothing).
	before := fileHashes(t, store)
	fails(t, 1, []string{"duplicate time series"}, "import", "--owner-type", "ThermalStandard", "--name", "max_active_power",
		"--units", "MW", "--features", `{"scenario":"base","year":2030}`, store, writeFile(t, "gens.csv", csvText))
	if fileHashes(t, store) != before {
		t.Error("a refused import changed the store")
	}
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestImportOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "s.nc")
	// Monthly timestamps on month ends: calendar months, not a fixed span.
	monthly := "when,900:rainfall\n2030-01-31T00:00:00Z,1\n2030-02-28T00:00:00Z,2\n2030-03-31T00:00:00Z,3\n2030-04-30T00:00:00Z,4\n"
	ok(t, "import", "--create", "--owner-type", "Region", "--category", "SupplementalAttribute", "--dtype", "i64", store,
		writeFile(t, "m.csv", monthly))
	// Stdin, an explicit resolution, f32.
	fifteen := "timestamp,5:flow\n2030-01-01T00:00:00Z,0.1\n2030-01-01T00:15:00Z,0.2\n2030-01-01T00:30:00Z,0.3\n"
	r := runIn(t, fifteen, "import", "--owner-type", "Line", "--resolution", "PT15M", "--dtype", "f32", store, "-")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("import from stdin: %d %q", r.code, r.stderr)
	}
	withStore(t, store, func(s *core.Store) {
		ms, _ := s.ListMetadata(core.KeyFilter{})
		if len(ms) != 2 {
			t.Fatalf("%d series", len(ms))
		}
		m := ms[0]
		if m.Resolution != core.Months(1) || m.OwnerCategory != core.SupplementalAttribute || m.DType != core.I64 || m.OwnerID != 900 {
			t.Errorf("monthly stored as %+v", m)
		}
		ts, _ := s.Get(m.Key)
		if v, _ := core.Values[int64](ts.(*core.SingleTimeSeries).Data); !slices.Equal(v, []int64{1, 2, 3, 4}) {
			t.Errorf("monthly values %v", v)
		}
		ts, _ = s.Get(ms[1].Key)
		if v, _ := core.Values[float32](ts.(*core.SingleTimeSeries).Data); !slices.Equal(v, []float32{0.1, 0.2, 0.3}) ||
			ms[1].Resolution != core.Minutes(15) {
			t.Errorf("f32 series %v at %s", v, ms[1].Resolution)
		}
	})
	// And out again in the same spelling.
	got := ok(t, "export", "--owner-id", "5", store)
	if got != fifteen {
		t.Errorf("f32 export:\n%s\nwant\n%s", got, fifteen)
	}
}

func TestImportLong(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "long.nc")
	long := "timestamp,owner_id,name,value\n" +
		"2030-01-01T02:00:00Z,17,max_active_power,3\n" +
		"2030-01-01T00:00:00Z,18,,10\n" +
		"2030-01-01T00:00:00Z,17,max_active_power,1\n" +
		"2030-01-01T01:00:00Z,18,,11\n" +
		"2030-01-01T01:00:00Z,17,max_active_power,2\n"
	fails(t, 1, []string{"line 3", "empty name", "--name"}, "import", "--create", "--owner-type", "Load", store, writeFile(t, "l.csv", long))
	ok(t, "import", "--create", "--owner-type", "Load", "--name", "demand", store, writeFile(t, "l.csv", long))
	series, _ := storedSTS(t, store)
	if v := floats(t, series["17:max_active_power"].Data); !slices.Equal(v, []float64{1, 2, 3}) {
		t.Errorf("17 = %v", v)
	}
	if v := floats(t, series["18:demand"].Data); !slices.Equal(v, []float64{10, 11}) {
		t.Errorf("18 = %v", v)
	}
	// The long header read as wide is refused: "owner_id" is no owner id.
	fails(t, 1, []string{`column 2 header "owner_id"`, "OWNER_ID:NAME"}, "import", "--layout", "wide", "--owner-type", "Load",
		store, writeFile(t, "l.csv", long))
	fails(t, 1, []string{"--layout long", "timestamp,owner_id,name,value"}, "import", "--layout", "long", "--owner-type", "Load",
		store, writeFile(t, "w.csv", "timestamp,1\n2030-01-01T00:00:00Z,1\n"))
}

// TestImportErrors: every bad input names the flag, line, column or value at fault.
func TestImportErrors(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	p := fx.path
	good := "timestamp,40:x\n2030-01-01T00:00:00Z,1\n2030-01-01T01:00:00Z,2\n"
	base := []string{"import", "--owner-type", "ThermalStandard"}
	cases := []struct {
		csv   string
		flags []string
		code  int
		frags []string
	}{
		{good, []string{"--owner-type", ""}, 2, []string{"--owner-type is required"}},
		{good, []string{"--resolution", "hourly"}, 2, []string{`--resolution "hourly"`}},
		{good, []string{"--dtype", "f16"}, 2, []string{`--dtype "f16"`}},
		{good, []string{"--layout", "tall"}, 2, []string{`--layout "tall"`}},
		{good, []string{"--category", "Area"}, 2, []string{`--category "Area"`}},
		{good, []string{"--features", "[1]"}, 2, []string{"--features"}},
		{good, []string{"--compression", "lz4"}, 2, []string{`--compression "lz4"`, "--create"}},
		{good, []string{"--create", "--compression", "lz4"}, 2, []string{`--compression "lz4"`}},
		{good, []string{"--create", "--compression", "none"}, 2, []string{"--compression", "exists"}},
		{good, []string{"--resolution", "PT30M"}, 1, []string{`column 2 "40:x"`, "not regular at resolution PT30M", "step 1"}},
		{"", nil, 1, []string{"is empty", "header"}},
		{"timestamp\n2030-01-01T00:00:00Z\n", nil, 1, []string{"no series columns"}},
		{"timestamp,40:x\n", nil, 1, []string{"no data rows"}},
		{"timestamp,40:x\n2030-01-01T00:00:00Z,1\n", nil, 1, []string{"one timestamp", "--resolution"}},
		{"timestamp,x40\n2030-01-01T00:00:00Z,1\n", nil, 1, []string{`column 2 header "x40"`, "OWNER_ID or OWNER_ID:NAME"}},
		{"timestamp,40\n2030-01-01T00:00:00Z,1\n", nil, 1, []string{`column 2 header "40"`, "--name"}},
		{"timestamp,40:\n2030-01-01T00:00:00Z,1\n", nil, 1, []string{`column 2 header "40:"`, "empty series name"}},
		{"timestamp,40:x,41:y,40:x\n2030-01-01T00:00:00Z,1,2,3\n", nil, 1, []string{`column 4 header "40:x"`, "column 2"}},
		{"timestamp,40:x\n2030-01-01T00:00:00Z,1\nnoon,2\n", nil, 1, []string{"line 3", `timestamp "noon"`}},
		{"timestamp,40:x\n2030-01-01T00:00:00Z,1\n2030-01-01T01:00:00Z,abc\n", nil, 1, []string{"line 3", `"40:x"`, `"abc" is not a number`}},
		{"timestamp,40:x\n2030-01-01T00:00:00Z,1\n2030-01-01T01:00:00Z,\n", nil, 1, []string{"line 3", "empty cell"}},
		{"timestamp,40:x\n2030-01-01T00:00:00Z,1\n2030-01-01T01:00:00Z,1e999\n", nil, 1, []string{`"1e999" is not a number`}},
		{"timestamp,40:x\n2030-01-01T00:00:00Z,1\n2030-01-01T01:00:00Z,1.5\n", []string{"--dtype", "i32"}, 1, []string{`"1.5" is not a 32-bit integer`}},
		{"timestamp,40:x\n2030-01-01T00:00:00Z,1,9\n", nil, 1, []string{"line 2", "wrong number of fields"}},
		{"timestamp,40:x\n2030-01-01T01:00:00Z,1\n2030-01-01T00:00:00Z,2\n", nil, 1, []string{"not increasing"}},
		{"timestamp,40:x\n2030-01-01T00:00:00Z,1\n2030-01-01T01:00:00Z,2\n2030-01-01T03:00:00Z,3\n", nil, 1, []string{"not regular at resolution PT1H", "step 2", "2030-01-01T03:00:00Z"}},
		{"timestamp,owner_id,name,value\n2030-01-01T00:00:00Z,4x,a,1\n", nil, 1, []string{"line 2", `owner_id "4x"`}},
		{"timestamp,owner_id,name,value\n2030-01-01T00:00:00Z,4,a,1\n2030-01-01T00:00:00Z,4,a,2\n", nil, 1, []string{"line 3", "twice", "line 2"}},
		{"timestamp,1:max_active_power\n2030-01-01T00:00:00Z,1\n2030-01-01T01:00:00Z,2\n", nil, 1, []string{"duplicate time series", "max_active_power"}},
		{"timestamp,40:x\n2030-01-01T00:00:00Z,1\n2030-01-01T01:00:00Z,2\n", []string{"--units", "M\xffW"}, 1, []string{"units", "UTF-8"}},
	}
	before := fileHashes(t, p)
	for _, c := range cases {
		args := append(append(slices.Clone(base), c.flags...), p, writeFile(t, "in.csv", c.csv))
		fails(t, c.code, c.frags, args...)
		if fileHashes(t, p) != before {
			t.Fatalf("failed import %v changed the store", c.flags)
		}
	}
	fails(t, 1, []string{"missing.csv"}, "import", "--owner-type", "T", p, filepath.Join(t.TempDir(), "missing.csv"))
	fails(t, 1, []string{"absent.nc does not exist", "pass --create"}, "import", "--owner-type", "T", filepath.Join(t.TempDir(), "absent.nc"), writeFile(t, "in.csv", good))
	fails(t, 2, []string{"wrong number of arguments"}, "import", "--owner-type", "T", p)
}

// exportDoc is export --format json parsed back.
type exportDoc struct {
	Resolution       string   `json:"resolution"`
	InitialTimestamp string   `json:"initial_timestamp"`
	Timestamps       []string `json:"timestamps"`
	Series           []struct {
		OwnerID   int64             `json:"owner_id"`
		Category  string            `json:"category"`
		OwnerType string            `json:"owner_type"`
		Name      string            `json:"name"`
		Features  json.RawMessage   `json:"features"`
		Units     string            `json:"units"`
		DType     string            `json:"dtype"`
		Values    []json.RawMessage `json:"values"`
	} `json:"series"`
}

func TestExport(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	sel := []string{"--glob", "max_*", "--features", "{}", "--exact-features"}
	recs := parseCSV(t, ok(t, append(append([]string{"export"}, sel...), fx.path)...))
	if !slices.Equal(recs[0], []string{"timestamp", "1:max_active_power", "2:max_active_power", "3:max_active_power", "8:max_active_power"}) {
		t.Fatalf("export header %v", recs[0])
	}
	stamps := hourly(steps)
	for i, row := range recs[1:] {
		if row[0] != stamps[i] {
			t.Fatalf("row %d timestamp %s", i, row[0])
		}
		for c, id := range []int64{1, 2, 3, 1} {
			if row[c+1] != fmtFloat(fx.gens[id][i]) {
				t.Fatalf("row %d column %d = %s, want %v", i, c, row[c+1], fx.gens[id][i])
			}
		}
	}
	// To a file, in a range, headed by ids.
	out := filepath.Join(t.TempDir(), "part.csv")
	if s := ok(t, append(append([]string{"export", "--header", "id", "--start", "2030-01-02T00:00:00Z", "--end", "2030-01-02T02:00:00Z",
		"--out", out}, sel...), fx.path)...); s != "" {
		t.Errorf("export --out wrote to stdout: %q", s)
	}
	data, _ := os.ReadFile(out)
	recs = parseCSV(t, string(data))
	if !slices.Equal(recs[0], []string{"timestamp", "1", "2", "3", "8"}) || len(recs) != 4 || recs[1][0] != stamps[24] ||
		recs[3][2] != fmtFloat(fx.gens[2][26]) {
		t.Errorf("ranged export %v", recs)
	}

	var doc exportDoc
	parseJSON(t, ok(t, "export", "--format", "json", "--owner-id", "900", fx.path), &doc)
	if doc.Resolution != "PT1H" || doc.InitialTimestamp != stamps[0] || !slices.Equal(doc.Timestamps, stamps) || len(doc.Series) != 1 {
		t.Fatalf("export json %+v", doc)
	}
	s := doc.Series[0]
	if s.OwnerID != 900 || s.Category != "SupplementalAttribute" || s.OwnerType != "GeographicInfo" || s.Name != "temperature" ||
		s.Units != "degC" || s.DType != "f64" || string(s.Features) != "{}" || len(s.Values) != steps {
		t.Fatalf("export json series %+v", s)
	}
	for i, raw := range s.Values {
		if v, err := strconv.ParseFloat(string(raw), 64); err != nil || v != fx.temp[i] {
			t.Errorf("json value %d = %s, want %v", i, raw, fx.temp[i])
		}
	}
	// Integers stay integers.
	recs = parseCSV(t, ok(t, "export", "--owner-id", "5", fx.path))
	if recs[0][1] != "5:status" || recs[2][1] != "1" || recs[3][1] != "2" {
		t.Errorf("i64 export %v", recs[:4])
	}
}

// TestExportElementShape: a series with an element shape (owner 6's cost, [48, 2]) exports
// one column per element, NAME[0] and NAME[1], beside scalar series on the same grid; JSON
// nests each step's elements.
func TestExportElementShape(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	recs := parseCSV(t, ok(t, "export", "--owner-id", "6", fx.path))
	if !slices.Equal(recs[0], []string{"timestamp", "6:cost[0]", "6:cost[1]"}) || len(recs) != steps+1 {
		t.Fatalf("export header %v, %d rows", recs[0], len(recs))
	}
	for i, row := range recs[1:] {
		if row[1] != fmtFloat(fx.cost[2*i]) || row[2] != fmtFloat(fx.cost[2*i+1]) {
			t.Fatalf("row %d = %v, want %v %v", i, row, fx.cost[2*i], fx.cost[2*i+1])
		}
	}
	// Beside scalar series, in insertion order; --header id keeps the element suffix.
	recs = parseCSV(t, ok(t, "export", "--glob", "[cs]*", fx.path))
	if !slices.Equal(recs[0], []string{"timestamp", "5:status", "6:cost[0]", "6:cost[1]"}) {
		t.Errorf("mixed export header %v", recs[0])
	}
	recs = parseCSV(t, ok(t, "export", "--name", "cost", "--header", "id", fx.path))
	if !slices.Equal(recs[0], []string{"timestamp", "6[0]", "6[1]"}) {
		t.Errorf("--header id export header %v", recs[0])
	}
	var doc struct {
		Series []struct {
			ElementShape []int        `json:"element_shape"`
			Values       [][2]float64 `json:"values"`
		} `json:"series"`
	}
	parseJSON(t, ok(t, "export", "--format", "json", "--name", "cost", fx.path), &doc)
	if len(doc.Series) != 1 || !slices.Equal(doc.Series[0].ElementShape, []int{2}) || len(doc.Series[0].Values) != steps ||
		doc.Series[0].Values[3] != [2]float64{fx.cost[6], fx.cost[7]} {
		t.Errorf("export json of a [2] series: %+v", doc)
	}
	help := ok(t, "export", "--help")
	if !strings.Contains(help, "one column per element") || !strings.Contains(help, "variable_cost[0]") {
		t.Errorf("export --help does not say how element shapes are exported:\n%s", help)
	}
}

// TestFloatsPrintShortest: every value the tool prints — table cells, sparkline bounds,
// CSV and JSON — is the shortest decimal that reads back to the stored float64.
func TestFloatsPrintShortest(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "f.nc")
	ok(t, "import", "--create", "--owner-type", "T", store,
		writeFile(t, "f.csv", "timestamp,1:x\n2030-01-01T00:00:00Z,13.000\n2030-01-01T01:00:00Z,1.234567891\n2030-01-01T02:00:00Z,12.999999999999998\n"))
	table := ok(t, "show", store)
	for _, row := range [][]string{{"2030-01-01T00:00:00Z", "13"}, {"2030-01-01T01:00:00Z", "1.234567891"}, {"2030-01-01T02:00:00Z", "12.999999999999998"}} {
		found := false
		for _, line := range strings.Split(table, "\n") {
			found = found || slices.Equal(strings.Fields(line), row)
		}
		if !found {
			t.Errorf("table lacks the row %v:\n%s", row, table)
		}
	}
	if !strings.Contains(table, "min 1.234567891 max 13") {
		t.Errorf("sparkline bounds are not shortest round-trip:\n%s", table)
	}
	if csv := ok(t, "show", "--format", "csv", store); !strings.Contains(csv, "T00:00:00Z,13\n") || !strings.Contains(csv, ",1.234567891\n") {
		t.Errorf("show csv: %s", csv)
	}
	if js := ok(t, "export", "--format", "json", store); !strings.Contains(js, `"values":[13,1.234567891,12.999999999999998]`) {
		t.Errorf("export json: %s", js)
	}
}

// TestExportNonFiniteJSON: JSON has no NaN or Inf, so they are strings.
func TestExportNonFiniteJSON(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "nf.nc")
	ok(t, "import", "--create", "--owner-type", "T", store,
		writeFile(t, "nf.csv", "timestamp,1:x\n2030-01-01T00:00:00Z,NaN\n2030-01-01T01:00:00Z,-Inf\n2030-01-01T02:00:00Z,0.1\n"))
	var doc exportDoc
	parseJSON(t, ok(t, "export", "--format", "json", store), &doc)
	got := []string{}
	for _, v := range doc.Series[0].Values {
		got = append(got, string(v))
	}
	if !slices.Equal(got, []string{`"NaN"`, `"-Inf"`, "0.1"}) {
		t.Errorf("non-finite json %v", got)
	}
}

// TestRoundTrip10000Columns imports a 10,000-column wide CSV in one batch and exports it
// back byte for byte.
func TestRoundTrip10000Columns(t *testing.T) {
	t.Parallel()
	const cols, rows = 10000, 48
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("timestamp")
	for c := 0; c < cols; c++ {
		name := "max_active_power"
		if c%2 == 1 {
			name = "min_active_power"
		}
		fmt.Fprintf(&b, ",%d:%s", 100000+c/2, name)
	}
	b.WriteByte('\n')
	for r := 0; r < rows; r++ {
		b.WriteString(t0.Add(time.Duration(r) * 30 * time.Minute).Format(time.RFC3339))
		for c := 0; c < cols; c++ {
			var v float64
			switch c % 4 {
			case 0:
				v = math.Round(rng.Float64()*1e5) / 100 // 0.01 steps
			case 1:
				v = rng.NormFloat64() * 1e-7
			case 2:
				v = float64(rng.IntN(1000)) * 1e6
			default:
				v = rng.Float64()
			}
			b.WriteByte(',')
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	input := writeFile(t, "wide.csv", b.String())
	store := filepath.Join(t.TempDir(), "wide.nc")
	began := time.Now()
	out := ok(t, "import", "--create", "--owner-type", "ThermalStandard", store, input)
	imported := time.Since(began)
	if !strings.Contains(out, "imported 10000 series (48 steps at PT30M") {
		t.Errorf("import said %q", out)
	}
	began = time.Now()
	exported := filepath.Join(t.TempDir(), "back.csv")
	ok(t, "export", "--out", exported, store)
	t.Logf("10,000 × 48: import %v, export %v", imported, time.Since(began))
	got, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != b.String() {
		want := strings.Split(b.String(), "\n")
		for i, line := range strings.Split(string(got), "\n") {
			if i >= len(want) || line != want[i] {
				t.Fatalf("export differs from the import at line %d (of %d / %d bytes)", i+1, len(got), b.Len())
			}
		}
		t.Fatalf("export has %d bytes, the import %d", len(got), b.Len())
	}
	withStore(t, store, func(s *core.Store) {
		if n, _ := s.CountsByType(core.KeyFilter{}); n[core.SingleTimeSeriesType] != cols {
			t.Errorf("store holds %v", n)
		}
	})
}
