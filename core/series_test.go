package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/ncstore"
)

func TestSingleRoundTripThroughReopen(t *testing.T) {
	s, path := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("max_active_power", ramp(48, 0.5)), &AddOptions{Units: "MW", Ext: `{"a":1}`})
	s = reopen(t, s, path)
	got := mustGetSingle(t, s, k)
	if !equalFloats(floats(t, got.Data), ramp(48, 0.5)) {
		t.Fatalf("values differ: %v", floats(t, got.Data))
	}
	if !got.InitialTimestamp.Equal(t0) || got.Resolution.String() != "PT1H" {
		t.Fatalf("grid differs: %v %v", got.InitialTimestamp, got.Resolution)
	}
	m, err := s.GetMetadata(k)
	if err != nil {
		t.Fatal(err)
	}
	if m.Units != "MW" || m.Ext != `{"a":1}` || m.OwnerType != "ThermalStandard" || m.Length != 48 {
		t.Fatalf("metadata: %+v", m)
	}
}

// sampleArray makes n steps of the given dtype and element shape with distinct values.
func sampleArray(dt DType, n int, eshape []int, seed int) TypedArray {
	shape := append([]int{n}, eshape...)
	count := ncstore.ElementCount(shape)
	switch dt {
	case F64:
		v := make([]float64, count)
		for i := range v {
			v[i] = float64(i*7+seed) / 4
		}
		v[0] = math.NaN()
		return ArrayOf(v, shape...)
	case F32:
		v := make([]float32, count)
		for i := range v {
			v[i] = float32(i*3+seed) / 2
		}
		return ArrayOf(v, shape...)
	case I64:
		v := make([]int64, count)
		for i := range v {
			v[i] = int64(i*1_000_000_007) - 1<<40 + int64(seed)
		}
		return ArrayOf(v, shape...)
	case I32:
		v := make([]int32, count)
		for i := range v {
			v[i] = int32(i*-13 + seed)
		}
		return ArrayOf(v, shape...)
	case U64:
		v := make([]uint64, count)
		for i := range v {
			v[i] = math.MaxUint64 - uint64(i) - uint64(seed)
		}
		return ArrayOf(v, shape...)
	default:
		v := make([]bool, count)
		for i := range v {
			v[i] = (i+seed)%3 == 0
		}
		return ArrayOf(v, shape...)
	}
}

func TestEveryDTypeAndShapeRoundTrips(t *testing.T) {
	s, path := newStore(t)
	type added struct {
		key  Key
		data TypedArray
	}
	var all []added
	shapes := [][]int{{}, {3}, {3, 2}}
	for dt := F64; dt <= Bool; dt++ {
		for si, es := range shapes {
			arr := sampleArray(dt, 24, es, int(dt)*10+si)
			k := mustAdd(t, s, gen(int64(100+int(dt)*10+si)),
				&SingleTimeSeries{Name: "v", InitialTimestamp: t0, Resolution: Minutes(15), Data: arr}, nil)
			all = append(all, added{k, arr})
			ns := &NonSequentialTimeSeries{Name: "irregular", Data: sampleArray(dt, 5, es, 99+si)}
			for i := 0; i < 5; i++ {
				ns.Timestamps = append(ns.Timestamps, t0.Add(time.Duration(i*i+1)*time.Minute))
			}
			k2 := mustAdd(t, s, gen(int64(100+int(dt)*10+si)), ns, nil)
			all = append(all, added{k2, ns.Data})
		}
	}
	s = reopen(t, s, path)
	for _, a := range all {
		ts, err := s.Get(a.key)
		if err != nil {
			t.Fatal(err)
		}
		var got TypedArray
		switch v := ts.(type) {
		case *SingleTimeSeries:
			got = v.Data
		case *NonSequentialTimeSeries:
			got = v.Data
		}
		if got.DType != a.data.DType || fmt.Sprint(got.Shape) != fmt.Sprint(a.data.Shape) || string(got.Data) != string(a.data.Data) {
			t.Errorf("%s: got %s %v, want %s %v", a.key, got.DType, got.Shape, a.data.DType, a.data.Shape)
		}
		m, _ := s.GetMetadata(a.key)
		if m.DataHash != a.data.hash() {
			t.Errorf("%s: stored hash differs from content hash", a.key)
		}
	}
}

func TestByteLengthMustMatchShape(t *testing.T) {
	s, _ := newStore(t)
	bad := TypedArray{DType: F64, Shape: []int{4, 3}, Data: make([]byte, 8*11)}
	_, err := s.Add(gen(1), &SingleTimeSeries{Name: "x", InitialTimestamp: t0, Resolution: Hours(1), Data: bad}, nil)
	wantKind(t, err, ErrInvalidParameter)
	for _, frag := range []string{"data", "88 bytes", "[4 3]"} {
		if !contains(err.Error(), frag) {
			t.Errorf("error %q does not mention %q", err, frag)
		}
	}
	boolBad := TypedArray{DType: Bool, Shape: []int{2}, Data: []byte{1, 2}}
	_, err = s.Add(gen(1), &SingleTimeSeries{Name: "x", InitialTimestamp: t0, Resolution: Hours(1), Data: boolBad}, nil)
	wantKind(t, err, ErrInvalidParameter)
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestTwoKeysShareOneColumn(t *testing.T) {
	s, path := newStore(t)
	vals := ramp(24, 3)
	k1 := mustAdd(t, s, gen(1), hourly("p", vals), nil)
	k2 := mustAdd(t, s, Owner{ID: 1, Type: "Geo", Category: SupplementalAttribute}, hourly("p", vals), nil)
	s.Close()
	slots := hashSlots(t, path, "sts_f64_s_24_PT1H")
	s = openAgain(t, path)
	if h := hashOf(ArrayOf(vals)); slots[0] != h || slots[1] != "" || len(slots) != DefaultColsPerDataset {
		t.Fatalf("slots %v..., want one column holding %s", slots[:3], h)
	}
	for _, k := range []Key{k1, k2} {
		if !equalFloats(floats(t, mustGetSingle(t, s, k).Data), vals) {
			t.Fatalf("%s reads wrong values", k)
		}
	}
	// Removing one sharer keeps the data for the other.
	if err := s.Remove(k1); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, path)
	if !equalFloats(floats(t, mustGetSingle(t, s, k2).Data), vals) {
		t.Fatal("the remaining sharer lost its values")
	}
	if ok, _ := s.Has(k1); ok {
		t.Fatal("removed key still present")
	}
}

func hashOf(a TypedArray) string { d := a.hash(); return hex.EncodeToString(d[:]) }

func countOccurrences(s, sub string) int {
	n := 0
	for i := indexOf(s, sub); i >= 0; {
		n++
		s = s[i+len(sub):]
		i = indexOf(s, sub)
	}
	return n
}

func TestFreedColumnIsZeroedAndReused(t *testing.T) {
	s, path := newStore(t)
	k1 := mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
	mustAdd(t, s, gen(2), hourly("p", ramp(24, 100)), nil)
	if err := s.Flush(); err != nil { // both columns reach the file before the removal
		t.Fatal(err)
	}
	if err := s.Remove(k1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Column 0 must hold zeros and an empty slot, as seen by ncdump.
	out := run(t, "ncdump", "-v", "sts_f64_s_24_PT1H", path)
	slots := hashSlots(t, path, "sts_f64_s_24_PT1H")
	s = openAgain(t, path)
	if slots[0] != "" || slots[1] != hashOf(ArrayOf(ramp(24, 100))) {
		t.Fatalf("slot 0 is not free: %v", slots[:2])
	}
	if !contains(out, "sts_f64_s_24_PT1H =\n  0, 100,") {
		t.Fatalf("column 0 is not zero-filled:\n%s", out[:min(len(out), 3000)])
	}
	// The next compatible write reuses column 0.
	k3 := mustAdd(t, s, gen(3), hourly("p", ramp(24, 500)), nil)
	s.Close()
	slots = hashSlots(t, path, "sts_f64_s_24_PT1H")
	s = openAgain(t, path)
	if slots[0] != hashOf(ArrayOf(ramp(24, 500))) {
		t.Fatalf("column 0 was not reused: %v", slots[:2])
	}
	if !equalFloats(floats(t, mustGetSingle(t, s, k3).Data), ramp(24, 500)) {
		t.Fatal("reused column reads wrong values")
	}
}

func TestFamilySpillsPastDefaultWidth(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 1,001 series")
	}
	s, path := newStore(t)
	var last Key
	for i := 0; i <= DefaultColsPerDataset; i++ {
		last = mustAdd(t, s, gen(int64(i)), &SingleTimeSeries{Name: "p", InitialTimestamp: t0,
			Resolution: Hours(1), Data: ArrayOf(ramp(4, float64(i)*10))}, nil)
	}
	s.Close()
	out := run(t, "ncdump", "-h", path)
	s = openAgain(t, path)
	for _, want := range []string{"sts_f64_s_4_PT1H_c = 1000 ;", "sts_f64_s_4_PT1H__1_c = 1000 ;",
		"double sts_f64_s_4_PT1H__1(sts_f64_s_4_PT1H__1_t, sts_f64_s_4_PT1H__1_c)"} {
		if !contains(out, want) {
			t.Fatalf("ncdump -h lacks %q:\n%s", want, out)
		}
	}
	if !equalFloats(floats(t, mustGetSingle(t, s, last).Data), ramp(4, 10000)) {
		t.Fatal("spilled series reads wrong values")
	}
}

func TestGetRangeFloorsCeilsAndClamps(t *testing.T) {
	s, _ := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(48, 0)), nil)
	cases := []struct {
		start, end time.Time
		first      float64
		n          int
	}{
		{t0.Add(90 * time.Minute), t0.Add(4*time.Hour + time.Minute), 1, 5}, // 01:00 .. 05:00
		{t0.Add(-5 * time.Hour), t0.Add(2 * time.Hour), 0, 3},               // clamped start
		{t0.Add(45 * time.Hour), t0.Add(100 * time.Hour), 45, 3},            // clamped end
		{t0.Add(3 * time.Hour), t0.Add(3 * time.Hour), 3, 1},
	}
	for _, c := range cases {
		ts, err := s.GetRange(k, c.start, c.end)
		if err != nil {
			t.Fatal(err)
		}
		got := ts.(*SingleTimeSeries)
		want := ramp(c.n, c.first)
		if !equalFloats(floats(t, got.Data), want) {
			t.Errorf("range %v–%v: got %v want %v", c.start, c.end, floats(t, got.Data), want)
		}
		if wantT0 := t0.Add(time.Duration(c.first) * time.Hour); !got.InitialTimestamp.Equal(wantT0) {
			t.Errorf("range %v–%v starts at %v, want %v", c.start, c.end, got.InitialTimestamp, wantT0)
		}
	}
	_, err := s.GetRange(k, t0.Add(2*time.Hour), t0.Add(time.Hour))
	wantKind(t, err, ErrInvalidParameter)
	_, err = s.GetRange(k, t0.Add(100*time.Hour), t0.Add(200*time.Hour))
	wantKind(t, err, ErrInvalidParameter)
}

func TestCalendarResolutionRange(t *testing.T) {
	s, _ := newStore(t)
	start := time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)
	k := mustAdd(t, s, gen(1), &SingleTimeSeries{Name: "inflow", InitialTimestamp: start,
		Resolution: Months(1), Data: ArrayOf([]float32{0, 1, 2, 3, 4, 5})}, nil)
	// 2024-03-30 floors to step 1 (2024-02-29); 2024-04-01 ceils to step 3 (2024-04-30).
	ts, err := s.GetRange(k, time.Date(2024, 3, 30, 0, 0, 0, 0, time.UTC), time.Date(2024, 4, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	got := ts.(*SingleTimeSeries)
	v, _ := Values[float32](got.Data)
	if fmt.Sprint(v) != "[1 2 3]" || !got.InitialTimestamp.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("got %v from %v", v, got.InitialTimestamp)
	}
	m, _ := s.GetMetadata(k)
	if m.Resolution.String() != "P1M" || !m.Resolution.IsCalendar() {
		t.Fatalf("resolution %v", m.Resolution)
	}
}

func TestNonSequentialHalfOpenRange(t *testing.T) {
	s, path := newStore(t)
	stamps := []time.Time{t0, t0.Add(30 * time.Minute), t0.Add(2 * time.Hour), t0.Add(2*time.Hour + 500*time.Millisecond)}
	k := mustAdd(t, s, gen(1), &NonSequentialTimeSeries{Name: "outage", Timestamps: stamps, Data: ArrayOf([]float64{1, 2, 3, 4})}, nil)
	s.Close()
	js := run(t, "sqlite3", CatalogPath(path), "SELECT timestamps_json FROM time_series_associations")
	s = openAgain(t, path)
	ts, err := s.GetRange(k, t0.Add(30*time.Minute), t0.Add(2*time.Hour+500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	got := ts.(*NonSequentialTimeSeries)
	if !equalFloats(floats(t, got.Data), []float64{2, 3}) || len(got.Timestamps) != 2 || !got.Timestamps[0].Equal(stamps[1]) {
		t.Fatalf("got %v at %v", floats(t, got.Data), got.Timestamps)
	}
	ts, err = s.GetRange(k, t0.Add(10*time.Hour), t0.Add(20*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.(*NonSequentialTimeSeries); got.Data.Len() != 0 || len(got.Timestamps) != 0 {
		t.Fatalf("empty range returned %d steps", got.Data.Len())
	}
	want := `["2024-01-01T00:00:00Z","2024-01-01T00:30:00Z","2024-01-01T02:00:00Z","2024-01-01T02:00:00.500Z"]`
	if js != want+"\n" {
		t.Fatalf("timestamps_json = %s, want %s", js, want)
	}
}

func TestFeaturesAreIdentityAndFilter(t *testing.T) {
	s, path := newStore(t)
	high := Features{"scenario": Str("high"), "model_year": Int(2030)}
	low := Features{"scenario": Str("low"), "model_year": Int(2030)}
	kh := mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), &AddOptions{Features: high})
	kl := mustAdd(t, s, gen(1), hourly("p", ramp(24, 2)), &AddOptions{Features: low})
	kn := mustAdd(t, s, gen(1), hourly("p", ramp(24, 3)), nil)
	_, err := s.Add(gen(1), hourly("p", ramp(24, 4)), &AddOptions{Features: Features{"model_year": Int(2030), "scenario": Str("high")}})
	wantKind(t, err, ErrDuplicateTimeSeries)
	s.Close()
	// The feature set is stored once, with its content hash (docs/format.md §6.2, §9.2).
	rows := run(t, "sqlite3", CatalogPath(path), "SELECT key, value_kind, hex(features_hash) FROM feature_sets ORDER BY features_hash, key")
	if countOccurrences(rows, "model_year|int|") != 2 || countOccurrences(rows, "scenario|str|") != 2 {
		t.Fatalf("feature_sets:\n%s", rows)
	}
	s = openAgain(t, path)
	keys, err := s.ListKeys(KeyFilter{Features: Features{"model_year": Int(2030)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || !keys[0].Features.Equal(high) || !keys[1].Features.Equal(low) {
		t.Fatalf("subset filter returned %v", keys)
	}
	keys, _ = s.ListKeys(KeyFilter{Features: Features{"scenario": Str("low")}})
	if len(keys) != 1 || keys[0].Features["scenario"].Value() != "low" {
		t.Fatalf("got %v", keys)
	}
	for k, want := range map[*Key]float64{&kh: 1, &kl: 2, &kn: 3} {
		if got := floats(t, mustGetSingle(t, s, *k).Data); got[0] != want {
			t.Errorf("%s read %v", k, got[0])
		}
	}
}

func TestReservedFeatureNameRefused(t *testing.T) {
	s, _ := newStore(t)
	_, err := s.Add(gen(1), hourly("p", ramp(3, 0)), &AddOptions{Features: Features{"resolution": Str("x")}})
	wantKind(t, err, ErrInvalidParameter)
	if !contains(err.Error(), "resolution") {
		t.Fatalf("error does not name the field: %v", err)
	}
}

func TestListFilters(t *testing.T) {
	s, _ := newStore(t)
	mustAdd(t, s, gen(1), hourly("a", ramp(3, 0)), nil)
	mustAdd(t, s, gen(1), &SingleTimeSeries{Name: "a", InitialTimestamp: t0, Resolution: Days(1), Data: ArrayOf(ramp(3, 1))}, nil)
	mustAdd(t, s, gen(2), hourly("b", ramp(3, 2)), nil)
	mustAdd(t, s, Owner{ID: 1, Type: "Geo", Category: SupplementalAttribute}, hourly("a", ramp(3, 3)), nil)
	mustAdd(t, s, gen(3), &NonSequentialTimeSeries{Name: "a", Timestamps: []time.Time{t0}, Data: ArrayOf([]float64{1})}, nil)
	one, comp, nsType, name, day := int64(1), Component, NonSequentialTimeSeriesType, "a", Days(1)
	cases := []struct {
		f    KeyFilter
		want int
	}{
		{KeyFilter{}, 5},
		{KeyFilter{OwnerID: &one}, 3},
		{KeyFilter{OwnerID: &one, OwnerCategory: &comp}, 2},
		{KeyFilter{Name: &name}, 4},
		{KeyFilter{Type: &nsType}, 1},
		{KeyFilter{Resolution: &day}, 1},
	}
	for i, c := range cases {
		keys, err := s.ListKeys(c.f)
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != c.want {
			t.Errorf("case %d: %d keys, want %d: %v", i, len(keys), c.want, keys)
		}
	}
}

func TestClearAllAndOneOwner(t *testing.T) {
	s, path := newStore(t)
	f := &AddOptions{Features: Features{"scenario": Str("x")}}
	mustAdd(t, s, gen(1), hourly("a", ramp(3, 0)), f)
	mustAdd(t, s, gen(1), hourly("b", ramp(3, 1)), nil)
	k := mustAdd(t, s, gen(2), hourly("a", ramp(3, 2)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	n, err := s.ClearOwner(1, Component)
	if err != nil || n != 2 {
		t.Fatalf("ClearOwner = %d, %v", n, err)
	}
	if keys, _ := s.ListKeys(KeyFilter{}); len(keys) != 1 || keys[0].OwnerID != 2 {
		t.Fatalf("left %v", keys)
	}
	if !equalFloats(floats(t, mustGetSingle(t, s, k).Data), ramp(3, 2)) {
		t.Fatal("other owner's data damaged")
	}
	n, err = s.Clear()
	if err != nil || n != 1 {
		t.Fatalf("Clear = %d, %v", n, err)
	}
	s.Close()
	if out := run(t, "sqlite3", CatalogPath(path), "SELECT count(*) FROM time_series_associations; SELECT count(*) FROM feature_sets;"); out != "0\n0\n" {
		t.Fatalf("catalog not empty after Clear: %q", out)
	}
	for i, h := range hashSlots(t, path, "sts_f64_s_3_PT1H") {
		if h != "" {
			t.Fatalf("slot %d still holds %s after Clear", i, h)
		}
	}
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	s, path := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(3, 0)), nil)
	s.Close()
	// No write permission on the files or their directory is needed. (Root ignores file
	// modes, so under root this part checks nothing beyond the byte comparison below.)
	if os.Geteuid() == 0 {
		t.Log("running as root: file permissions are not enforced")
	}
	os.Chmod(path, 0o444)
	os.Chmod(CatalogPath(path), 0o444)
	dir := path[:len(path)-len("/system.nc")]
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	before := fileDigests(t, path)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if got := floats(t, mustGetSingle(t, ro, k).Data); !equalFloats(got, ramp(3, 0)) {
		t.Fatal("read-only read failed")
	}
	_, err = ro.Add(gen(2), hourly("p", ramp(3, 0)), nil)
	wantKind(t, err, ErrReadOnly)
	wantKind(t, ro.Remove(k), ErrReadOnly)
	_, err = ro.Clear()
	wantKind(t, err, ErrReadOnly)
	_, err = ro.ClearOwner(1, Component)
	wantKind(t, err, ErrReadOnly)
	ro.Close()
	if after := fileDigests(t, path); after != before {
		t.Fatal("a read-only session changed the files")
	}
}

func fileDigests(t *testing.T, path string) string {
	t.Helper()
	var out string
	for _, p := range []string{path, CatalogPath(path)} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out += fmt.Sprintf("%x ", sha256.Sum256(b))
	}
	return out
}

func TestHandEditedVersionIsIncompatible(t *testing.T) {
	s, path := newStore(t)
	s.Close()
	run(t, "ncatted", "-h", "-a", "data_format_version,global,o,c,0.10.0", path)
	_, err := Open(path)
	wantKind(t, err, ErrIncompatibleFormat)
	for _, v := range []string{"0.10.0", "0.11.0"} {
		if !contains(err.Error(), v) {
			t.Errorf("error %q does not name version %s", err, v)
		}
	}
	run(t, "ncatted", "-h", "-a", "data_format_version,global,d,,", path)
	_, err = OpenReadOnly(path)
	wantKind(t, err, ErrIncompatibleFormat)
	if !contains(err.Error(), "unspecified") {
		t.Errorf("missing version should read as unspecified: %v", err)
	}
}

func TestRefusalsLeaveFilesUnchanged(t *testing.T) {
	s, path := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), &AddOptions{Features: Features{"scenario": Str("a")}})
	mustAdd(t, s, gen(1), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0, t0.Add(time.Hour)}, Data: ArrayOf([]float64{1, 2})}, nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	before := fileDigests(t, path)
	nan := ArrayOf([]float64{1, 2})
	refusals := []struct {
		name string
		o    Owner
		ts   TimeSeries
		opts *AddOptions
	}{
		{"duplicate key", gen(1), hourly("p", ramp(24, 9)), &AddOptions{Features: Features{"scenario": Str("a")}}},
		{"reserved feature", gen(2), hourly("p", ramp(24, 9)), &AddOptions{Features: Features{"units": Str("MW")}}},
		{"zero resolution", gen(2), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Data: nan}, nil},
		{"negative resolution", gen(2), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: MustParsePeriod("-PT1H"), Data: nan}, nil},
		{"empty name", gen(2), hourly("", ramp(24, 9)), nil},
		{"empty owner type", Owner{ID: 2, Category: Component}, hourly("p", ramp(24, 9)), nil},
		{"bad category", Owner{ID: 2, Type: "G", Category: 7}, hourly("p", ramp(24, 9)), nil},
		{"bad dtype", gen(2), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: TypedArray{DType: 9, Shape: []int{1}, Data: []byte{0}}}, nil},
		{"zero-length axis", gen(2), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: TypedArray{DType: F64, Shape: []int{0}}}, nil},
		{"short data", gen(2), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: TypedArray{DType: F64, Shape: []int{3}, Data: make([]byte, 16)}}, nil},
		{"timestamps count", gen(2), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0}, Data: nan}, nil},
		{"timestamps order", gen(2), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0, t0}, Data: nan}, nil},
		{"invalid utf8 name", gen(2), hourly("\xff", ramp(24, 9)), nil},
		{"nil series", gen(2), nil, nil},
	}
	for _, r := range refusals {
		_, err := s.Add(r.o, r.ts, r.opts)
		if err == nil {
			t.Errorf("%s: accepted", r.name)
			continue
		}
		if r.name == "duplicate key" {
			wantKind(t, err, ErrDuplicateTimeSeries)
		} else {
			wantKind(t, err, ErrInvalidParameter)
		}
	}
	wantKind(t, s.Remove(Key{OwnerID: 9, Type: SingleTimeSeriesType, Name: "p", Resolution: Hours(1)}), ErrNotFound)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if after := fileDigests(t, path); after != before {
		t.Fatal("a refused write changed the files")
	}
	s.Close()
	// HDF5 writes its close record when a file closes, so compare with a twin store made by
	// the same accepted calls and no refused ones.
	twin, twinPath := newStore(t)
	mustAdd(t, twin, gen(1), hourly("p", ramp(24, 0)), &AddOptions{Features: Features{"scenario": Str("a")}})
	mustAdd(t, twin, gen(1), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0, t0.Add(time.Hour)}, Data: ArrayOf([]float64{1, 2})}, nil)
	twin.Close()
	if fileDigests(t, path) != fileDigests(t, twinPath) {
		t.Fatal("after close, the store with refused writes differs from its twin")
	}
	s2, _ := Open(path)
	defer s2.Close()
	if ok, _ := s2.Has(k); !ok {
		t.Fatal("original series lost")
	}
}

func TestClosedStoreRefusesCalls(t *testing.T) {
	s, _ := newStore(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	_, err := s.Add(gen(1), hourly("p", ramp(3, 0)), nil)
	wantKind(t, err, ErrInvalidParameter)
	_, err = s.ListKeys(KeyFilter{})
	wantKind(t, err, ErrInvalidParameter)
}

func TestCreateRefusesExistingFiles(t *testing.T) {
	_, path := newStore(t)
	_, err := Create(path, nil)
	wantKind(t, err, ErrInvalidParameter)
}

func TestMissingCatalogRefused(t *testing.T) {
	s, path := newStore(t)
	s.Close()
	os.Remove(CatalogPath(path))
	_, err := Open(path)
	wantKind(t, err, ErrIntegrity)
	if _, statErr := os.Stat(CatalogPath(path)); statErr == nil {
		t.Fatal("open created an empty catalog")
	}
}

func TestInMemoryPersist(t *testing.T) {
	s, err := InMemory(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := mustAdd(t, s, gen(1), hourly("p", ramp(24, 7)), &AddOptions{Features: Features{"w": Float(0.5)}})
	kn := mustAdd(t, s, gen(1), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0}, Data: ArrayOf([]int64{42})}, nil)
	path := t.TempDir() + "/persisted.nc"
	if err := s.Persist(path); err != nil {
		t.Fatal(err)
	}
	// The in-memory store keeps working after persisting.
	k2 := mustAdd(t, s, gen(2), hourly("p", ramp(24, 8)), nil)
	if !equalFloats(floats(t, mustGetSingle(t, s, k2).Data), ramp(24, 8)) {
		t.Fatal("in-memory store broken after persist")
	}
	if err := s.Persist(path); err == nil {
		t.Fatal("persist over an existing store accepted")
	}
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !equalFloats(floats(t, mustGetSingle(t, d, k).Data), ramp(24, 7)) {
		t.Fatal("persisted values differ")
	}
	if ok, _ := d.Has(kn); !ok {
		t.Fatal("persisted store lacks the irregular series")
	}
	if ok, _ := d.Has(k2); ok {
		t.Fatal("persisted store has a series added after persisting")
	}
	if _, err := os.Stat(CatalogPath(path) + "-journal"); err == nil {
		t.Fatal("journal left beside the persisted catalog")
	}
}

func TestCompressionPolicyRecordedAndReused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []Compression{{}, {Deflate: true, Level: 7, Shuffle: false}, DefaultCompression} {
		path := fmt.Sprintf("%s/%s.nc", dir, c.String())
		s, err := Create(path, &CreateOptions{Compression: &c})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s, err = Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if s.Compression() != c {
			t.Errorf("reopened compression %v, want %v", s.Compression(), c)
		}
		mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
		s.Close()
		out := run(t, "ncdump", "-hs", path)
		if !contains(out, `:compression = "`+c.String()+`"`) {
			t.Errorf("attribute not %s:\n%s", c, out)
		}
		hasDeflate := contains(out, "sts_f64_s_24_PT1H:_DeflateLevel = "+fmt.Sprint(c.Level))
		hasShuffle := contains(out, `sts_f64_s_24_PT1H:_Shuffle = "true"`)
		if hasDeflate != c.Deflate || hasShuffle != c.Shuffle {
			t.Errorf("%s: ncdump shows deflate=%v shuffle=%v:\n%s", c, hasDeflate, hasShuffle, out)
		}
	}
	bad := Compression{Deflate: true, Level: 12}
	_, err := Create(dir+"/bad.nc", &CreateOptions{Compression: &bad})
	wantKind(t, err, ErrInvalidParameter)
}

func TestConcurrentUseOfOneStore(t *testing.T) {
	s, _ := newStore(t)
	const workers, each = 4, 25
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			for i := 0; i < each; i++ {
				id := int64(w*1000 + i)
				k, err := s.Add(gen(id), hourly("p", ramp(12, float64(id))), nil)
				if err != nil {
					errs <- err
					return
				}
				ts, err := s.Get(k)
				if err != nil {
					errs <- err
					return
				}
				got, err := Values[float64](ts.(*SingleTimeSeries).Data)
				if err != nil || got[0] != float64(id) {
					errs <- fmt.Errorf("owner %d read %v (%v)", id, got, err)
					return
				}
				if i%5 == 0 {
					if err := s.Remove(k); err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	keys, _ := s.ListKeys(KeyFilter{})
	if len(keys) != workers*(each-each/5) {
		t.Fatalf("%d keys left", len(keys))
	}
}

// After Flush the two files alone hold the store: beside them only the NetCDF file's empty
// journal, and no SQLite journal or WAL.
func TestFlushLeavesOnlyThePair(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(path[:len(path)-len("system.nc")])
	if err != nil {
		t.Fatal(err)
	}
	// While the store is open its NetCDF file's journal stays beside it, empty between units
	// (journal/journal.c); it holds nothing the pair needs, and goes at Close.
	var names []string
	for _, e := range entries {
		if e.Name() == "system.nc-journal" {
			if fi, err := e.Info(); err != nil || fi.Size() != 0 {
				t.Fatalf("the journal is not empty after a flush (%v)", err)
			}
			continue
		}
		names = append(names, e.Name())
	}
	if fmt.Sprint(names) != "[system.nc system.nc.sqlite]" {
		t.Fatalf("directory holds %v", names)
	}
	// A copy of the pair taken now, while the store is still open, is a complete store.
	dst := t.TempDir() + "/copy.nc"
	for _, p := range [][2]string{{path, dst}, {CatalogPath(path), CatalogPath(dst)}} {
		b, _ := os.ReadFile(p[0])
		os.WriteFile(p[1], b, 0o644)
	}
	c, err := OpenReadOnly(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if keys, _ := c.ListKeys(KeyFilter{}); len(keys) != 1 {
		t.Fatalf("copy holds %d keys", len(keys))
	}
	if !equalFloats(floats(t, mustGetSingle(t, c, Key{OwnerID: 1, Type: SingleTimeSeriesType, Name: "p", Resolution: Hours(1)}).Data), ramp(24, 0)) {
		t.Fatal("copy reads wrong values")
	}
}

func TestSecondHandleOnAnOpenStoreRefused(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(3, 0)), nil)
	_, err := Open(path)
	wantKind(t, err, ErrInvalidParameter)
	_, err = OpenReadOnly(path)
	wantKind(t, err, ErrInvalidParameter)
	s.Close()
	r1, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(path)
	wantKind(t, err, ErrInvalidParameter)
	r1.Close()
	r2.Close()
	w, err := Open(path)
	if err != nil {
		t.Fatalf("writable open after readers closed: %v", err)
	}
	w.Close()
}

// Refusals that only netCDF's limits would otherwise catch are made before anything is
// defined: no half-defined variable is left behind and the store reopens.
func TestStorageLimitRefusalsDefineNothing(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(4, 0)), nil)
	s.Flush()
	before := fileDigests(t, path)
	ones := func(n int) []int {
		shape := make([]int, n)
		for i := range shape {
			shape[i] = 1
		}
		return shape
	}
	longName := TypedArray{DType: F64, Shape: ones(121), Data: make([]byte, 8)} // 120 element dims
	_, err := s.Add(gen(2), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: longName}, nil)
	wantKind(t, err, ErrInvalidParameter)
	tooDeep := TypedArray{DType: F64, Shape: ones(1100), Data: make([]byte, 8)}
	_, err = s.Add(gen(2), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0}, Data: tooDeep}, nil)
	wantKind(t, err, ErrInvalidParameter)
	s.Flush()
	if fileDigests(t, path) != before {
		t.Fatal("a refused add changed the files")
	}
	s.Close()
	s = openAgain(t, path)
	if keys, _ := s.ListKeys(KeyFilter{}); len(keys) != 1 {
		t.Fatalf("%d keys after reopen", len(keys))
	}
}

func TestFloatFeaturesRoundTrip(t *testing.T) {
	s, path := newStore(t)
	_, err := s.Add(gen(1), hourly("p", ramp(3, 0)), &AddOptions{Features: Features{"w": Float(math.NaN())}})
	wantKind(t, err, ErrInvalidParameter)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(3, 0)), &AddOptions{Features: Features{"w": Float(math.Copysign(0, -1)), "inf": Float(math.Inf(1))}})
	s = reopen(t, s, path)
	keys, err := s.ListKeys(KeyFilter{})
	if err != nil || len(keys) != 1 {
		t.Fatal(keys, err)
	}
	if !keys[0].Features.Equal(k.Features) {
		t.Fatalf("listed features %s, added %s", keys[0].Features.JSON(), k.Features.JSON())
	}
	if ok, err := s.Has(keys[0]); !ok || err != nil {
		t.Fatalf("the listed key is not found by Has: %v", err)
	}
}

// A catalog row that disagrees with the array it names is an IntegrityError, not a read of
// the wrong bytes (or a netcdf error from an out-of-range hyperslab).
func TestRowDisagreeingWithArrayIsIntegrityError(t *testing.T) {
	s, path := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	kn := mustAdd(t, s, gen(1), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0}, Data: ArrayOf([]float64{1})}, nil)
	s.Close()
	run(t, "sqlite3", CatalogPath(path), `UPDATE time_series_associations SET length = 25 WHERE name = 'p';
		UPDATE time_series_associations SET dtype = 'i64' WHERE name = 'o';`)
	s = openAgain(t, path)
	_, err := s.Get(k)
	wantKind(t, err, ErrIntegrity)
	_, err = s.Get(kn)
	wantKind(t, err, ErrIntegrity)
}

// RemoveWhere removes exactly what a filter selects (a features subset here), in one write,
// frees the arrays no one else references and leaves the rest readable; sqlite3 checks the rows.
func TestRemoveWhereRemovesWhatTheFilterSelects(t *testing.T) {
	s, path := newStore(t)
	high := &AddOptions{Features: Features{"scenario": Str("high")}}
	for i := int64(0); i < 6; i++ {
		opts := (*AddOptions)(nil)
		if i%2 == 0 {
			opts = high
		}
		mustAdd(t, s, gen(i), hourly("p", ramp(4, float64(10*i))), opts)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	n, err := s.RemoveWhere(KeyFilter{Features: Features{"scenario": Str("high")}})
	if err != nil || n != 3 {
		t.Fatalf("RemoveWhere = %d, %v", n, err)
	}
	if _, err := s.RemoveWhere(KeyFilter{Features: Features{"units": Str("MW")}}); err == nil {
		t.Fatal("a reserved feature name in the filter was accepted")
	}
	for i := int64(1); i < 6; i += 2 {
		ts := mustGetSingle(t, s, Key{OwnerID: i, Name: "p", Resolution: Hours(1)})
		if !equalFloats(floats(t, ts.Data), ramp(4, float64(10*i))) {
			t.Fatalf("owner %d damaged", i)
		}
	}
	s.Close()
	if out := run(t, "sqlite3", CatalogPath(path), "SELECT group_concat(owner_id) FROM time_series_associations;"); out != "1,3,5\n" {
		t.Fatalf("rows left: %q", out)
	}
}
