package core

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// sharedDir locates the project's shared/ material (spec, conformance store), which sits
// beside the checkout; TSSTORE_SHARED overrides it.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TSSTORE_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "conformance", "independent.nc")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("conformance store not found under %s", dir)
		}
		t.Skipf("conformance store not found under %s", dir)
	}
	return dir
}

// copyConformanceStore copies the independent writer's store into a temporary directory:
// the original is read-only input and must never be opened in place.
func copyConformanceStore(t *testing.T) string {
	t.Helper()
	src := filepath.Join(sharedDir(t), "conformance")
	dst := t.TempDir()
	for _, name := range []string{"independent.nc", "independent.nc.sqlite"} {
		in, err := os.Open(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
	return filepath.Join(dst, "independent.nc")
}

type expectedValues map[string]json.RawMessage

func loadExpected(t *testing.T) expectedValues {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedDir(t), "conformance", "independent.nc.expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e expectedValues
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// flatFloats flattens nested JSON arrays of numbers (null = NaN) in row-major order.
func flatFloats(t *testing.T, raw json.RawMessage) []float64 {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var out []float64
	var walk func(any)
	walk = func(x any) {
		switch y := x.(type) {
		case []any:
			for _, z := range y {
				walk(z)
			}
		case float64:
			out = append(out, y)
		case nil:
			out = append(out, math.NaN())
		}
	}
	walk(v)
	return out
}

func toFloats(t *testing.T, a TypedArray) []float64 {
	t.Helper()
	switch a.DType {
	case F32:
		return widen[float32](a)
	case I64:
		return widen[int64](a)
	case U64:
		return widen[uint64](a)
	case Bool:
		v, _ := Values[bool](a)
		out := make([]float64, len(v))
		for i, x := range v {
			if x {
				out[i] = 1
			}
		}
		return out
	}
	return floats(t, a)
}

func widen[T float32 | int64 | uint64](a TypedArray) []float64 {
	v, _ := Values[T](a)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func TestReadsIndependentWriterStore(t *testing.T) {
	path := copyConformanceStore(t)
	s, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkIndependentStore(t, s)
}

// checkIndependentStore reads every series of the independent store back against its
// expected values.
func checkIndependentStore(t *testing.T, s *Store) {
	t.Helper()
	exp := loadExpected(t)
	var loads [][]float64
	if err := json.Unmarshal(exp["load"], &loads); err != nil {
		t.Fatal(err)
	}
	feat2 := Features{"model_year": Int(2030), "scenario": Str("high")}
	hour, day := Hours(1), Days(1)
	cases := []struct {
		key   Key
		want  []float64
		shape []int
		dtype DType
		units string
		ext   string
	}{
		{Key{OwnerID: 1, Type: SingleTimeSeriesType, Name: "max_active_power", Resolution: hour}, loads[0], []int{48}, F64, "MW", ""},
		{Key{OwnerID: 2, Type: SingleTimeSeriesType, Name: "max_active_power", Resolution: hour, Features: feat2}, loads[1], []int{48}, F64, "MW", ""},
		{Key{OwnerID: 3, Type: SingleTimeSeriesType, Name: "max_active_power", Resolution: hour}, loads[2], []int{48}, F64, "MW", ""},
		{Key{OwnerID: 10, OwnerCategory: SupplementalAttribute, Type: SingleTimeSeriesType, Name: "max_active_power", Resolution: hour}, loads[0], []int{48}, F64, "", ""},
		{Key{OwnerID: 20, Type: SingleTimeSeriesType, Name: "variable_cost", Resolution: day}, flatFloats(t, exp["cost"]), []int{24, 3}, I64, "", `{"function_type":"QuadraticFunctionData"}`},
		{Key{OwnerID: 21, Type: SingleTimeSeriesType, Name: "variable_cost", Resolution: day}, flatFloats(t, exp["cost2"]), []int{24, 3}, I64, "", `{"function_type":"QuadraticFunctionData"}`},
		{Key{OwnerID: 50, Type: SingleTimeSeriesType, Name: "inflow", Resolution: Months(1)}, flatFloats(t, exp["monthly"]), []int{12}, F32, "", ""},
		{Key{OwnerID: 51, Type: SingleTimeSeriesType, Name: "must_run", Resolution: hour}, flatFloats(t, exp["flags"]), []int{48}, Bool, "", ""},
		{Key{OwnerID: 52, Type: SingleTimeSeriesType, Name: "tap_matrix", Resolution: hour, Features: Features{"calibrated": BoolValue(true), "weight": Float(0.5)}}, nil, []int{24, 2, 2}, U64, "", ""},
	}
	for _, c := range cases {
		ts, err := s.Get(c.key)
		if err != nil {
			t.Errorf("%s: %v", c.key, err)
			continue
		}
		got := ts.(*SingleTimeSeries)
		if got.Data.DType != c.dtype || !slices.Equal(got.Data.Shape, c.shape) {
			t.Errorf("%s: %s %v, want %s %v", c.key, got.Data.DType, got.Data.Shape, c.dtype, c.shape)
		}
		if c.want != nil && !equalFloats(toFloats(t, got.Data), c.want) {
			t.Errorf("%s: values differ", c.key)
		}
		m, err := s.GetMetadata(c.key)
		if err != nil {
			t.Fatal(err)
		}
		if m.DataHash != got.Data.hash() {
			t.Errorf("%s: content hash %x differs from catalog data_hash %x", c.key, got.Data.hash(), m.DataHash)
		}
		if m.Units != c.units || m.Ext != c.ext {
			t.Errorf("%s: units %q ext %q", c.key, m.Units, m.Ext)
		}
	}
	// u64 values exceed float64 precision: compare them exactly.
	var grid [][][]uint64
	json.Unmarshal(exp["grid"], &grid)
	ts, _ := s.Get(cases[8].key)
	g, _ := Values[uint64](ts.(*SingleTimeSeries).Data)
	for i := range grid {
		for j := range grid[i] {
			for k := range grid[i][j] {
				if g[i*4+j*2+k] != grid[i][j][k] {
					t.Fatalf("grid[%d][%d][%d] = %d, want %d", i, j, k, g[i*4+j*2+k], grid[i][j][k])
				}
			}
		}
	}
	// The calendar series starts on a month end and clamps (docs/format.md §5.1).
	ms, _ := s.Get(cases[6].key)
	if st, _ := ms.(*SingleTimeSeries).Timestamp(1); !st.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("monthly step 1 = %v", st)
	}

	outage, err := s.Get(Key{OwnerID: 30, Type: NonSequentialTimeSeriesType, Name: "outage"})
	if err != nil {
		t.Fatal(err)
	}
	ns := outage.(*NonSequentialTimeSeries)
	if !equalFloats(floats(t, ns.Data), flatFloats(t, exp["outage"])) {
		t.Errorf("outage values %v", floats(t, ns.Data))
	}
	var stamps []string
	json.Unmarshal(exp["timestamps"], &stamps)
	for i, st := range stamps {
		want, _ := time.Parse(time.RFC3339Nano, st)
		if !ns.Timestamps[i].Equal(want) {
			t.Errorf("outage timestamp %d = %v, want %v", i, ns.Timestamps[i], want)
		}
	}

	checkIndependentForecasts(t, s, exp, loads[0])

	keys, err := s.ListKeys(KeyFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 14 {
		t.Errorf("listed %d keys, want 14", len(keys))
	}
}

// A writable open of the independent store runs the idempotent DDL and changes no row.
func TestWritableOpenOfIndependentStore(t *testing.T) {
	path := copyConformanceStore(t)
	before := run(t, "sqlite3", CatalogPath(path), "SELECT * FROM time_series_associations; SELECT * FROM feature_sets;")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	// A new series lands in the dataset's free slot between used columns.
	k := mustAdd(t, s, gen(7), &SingleTimeSeries{Name: "max_active_power", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(ramp(48, 0.25))}, nil)
	s.Close()
	slots := hashSlots(t, path, "sts_f64_s_48_PT1H")
	free := 0
	for _, h := range slots {
		if h == "" {
			free++
		}
	}
	// The writer's dataset had free slots 1 and 4: the first free one is taken.
	if len(slots) != 5 || free != 1 || slots[1] != hashOf(ArrayOf(ramp(48, 0.25))) {
		t.Fatalf("slots after add: %v", slots)
	}
	after := run(t, "sqlite3", CatalogPath(path), "SELECT * FROM time_series_associations WHERE id <= 14; SELECT * FROM feature_sets;")
	if after != before {
		t.Fatal("a writable open changed existing catalog rows")
	}
	s = openAgain(t, path)
	if !equalFloats(floats(t, mustGetSingle(t, s, k).Data), ramp(48, 0.25)) {
		t.Fatal("new series reads wrong values")
	}
}

// checkIndependentForecasts reads the four forecasts of the independent store: whole, by
// window and (for the DeterministicSingleTimeSeries) as a view over load[0].
func checkIndependentForecasts(t *testing.T, s *Store, exp expectedValues, load0 []float64) {
	t.Helper()
	hour, day, half := Hours(1), Days(1), Hours(12)
	cases := []struct {
		key   Key
		shape []int
		want  []float64
	}{
		{Key{OwnerID: 40, Type: DeterministicType, Name: "max_active_power", Resolution: hour, Interval: day}, []int{24, 7}, flatFloats(t, exp["det"])},
		{Key{OwnerID: 60, Type: ProbabilisticType, Name: "max_active_power", Resolution: hour, Interval: half}, []int{3, 24, 2}, flatFloats(t, exp["prob"])},
		{Key{OwnerID: 61, Type: ScenariosType, Name: "max_active_power", Resolution: hour, Interval: half}, []int{4, 24, 2}, flatFloats(t, exp["scen"])},
	}
	for _, c := range cases {
		ts, err := s.Get(c.key)
		if err != nil {
			t.Fatalf("%s: %v", c.key, err)
		}
		fc := ts.(Forecast)
		if !slices.Equal(fc.Array().Shape, c.shape) || !equalFloats(floats(t, fc.Array()), c.want) {
			t.Errorf("%s: shape %v or values differ", c.key, fc.Array().Shape)
		}
		g := fc.Grid()
		if !g.InitialTimestamp.Equal(t0) || g.Horizon != day || g.Count != c.shape[len(c.shape)-1] {
			t.Errorf("%s: grid %+v", c.key, g)
		}
		// Every window read alone equals the slice of the whole.
		for i := 0; i < g.Count; i++ {
			start, _ := g.WindowStart(i)
			w, err := s.GetWindow(c.key, start)
			if err != nil {
				t.Fatalf("%s window %d: %v", c.key, i, err)
			}
			one, _ := w.Window(0)
			whole, _ := fc.Window(i)
			if !equalFloats(floats(t, one), floats(t, whole)) {
				t.Errorf("%s window %d differs from the whole read", c.key, i)
			}
		}
	}
	if p := mustGet(t, s, cases[1].key).(*Probabilistic); !slices.Equal(p.Percentiles, []float64{0.1, 0.5, 0.9}) {
		t.Errorf("percentiles %v", p.Percentiles)
	}
	dst := Key{OwnerID: 1, Type: DeterministicSingleTimeSeriesType, Name: "max_active_power", Resolution: hour, Interval: half}
	abstract := dst
	abstract.Type = AbstractDeterministicType
	for _, k := range []Key{dst, abstract} {
		fc := mustGet(t, s, k).(*Deterministic)
		if fc.Count != 3 || !slices.Equal(fc.Data.Shape, []int{24, 3}) {
			t.Fatalf("%s: count %d shape %v", k, fc.Count, fc.Data.Shape)
		}
		for i := 0; i < 3; i++ {
			w, _ := fc.Window(i)
			if !equalFloats(floats(t, w), load0[12*i:12*i+24]) {
				t.Errorf("%s window %d is not load[0][%d:%d]", k, i, 12*i, 12*i+24)
			}
		}
	}
}

func mustGet(t *testing.T, s *Store, k Key) TimeSeries {
	t.Helper()
	ts, err := s.Get(k)
	if err != nil {
		t.Fatalf("get %s: %v", k, err)
	}
	return ts
}

// The independent store's associations read back, and every one of its arrays rehashes to
// the hash its writer recorded.
func TestIndependentStoreAssociationsAndIntegrity(t *testing.T) {
	s, err := OpenReadOnly(copyConformanceStore(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sa, err := s.ListSupplementalAssociations(SupplementalFilter{})
	if err != nil || len(sa) != 1 || sa[0].ComponentID != 1 || sa[0].AttributeID != 10 || sa[0].AttributeType != "GeographicInfo" {
		t.Fatalf("supplemental associations %v (%v)", sa, err)
	}
	if parents, _ := s.ParentsOf(99); len(parents) != 1 || parents[0] != 40 {
		t.Fatalf("parents of 99: %v", parents)
	}
	rep, err := s.VerifyIntegrity()
	if err != nil || !rep.OK() || rep.ArraysChecked != 12 { // 14 series, two sharing load[0]
		t.Fatalf("integrity of the independent store: %+v (%v)", rep, err)
	}
}
