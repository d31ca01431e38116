package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSupplementalAssociations(t *testing.T) {
	s, path := newStore(t)
	as := []SupplementalAssociation{
		{1, "ThermalStandard", 10, "GeographicInfo"},
		{2, "ThermalStandard", 10, "GeographicInfo"},
		{2, "ThermalStandard", 11, "Outage"},
		{3, "PowerLoad", 11, "Outage"},
	}
	if err := s.AddSupplementalAssociations(as); err != nil {
		t.Fatal(err)
	}
	// The same pair under other type names is a duplicate; a batch with one is refused whole.
	err := s.AddSupplementalAssociation(SupplementalAssociation{1, "Other", 10, "Other"})
	wantKind(t, err, ErrDuplicateAssociation)
	err = s.AddSupplementalAssociations([]SupplementalAssociation{{9, "X", 90, "Y"}, {1, "ThermalStandard", 10, "GeographicInfo"}})
	wantKind(t, err, ErrDuplicateAssociation)
	err = s.AddSupplementalAssociations([]SupplementalAssociation{{8, "X", 80, "Y"}, {8, "X", 80, "Y"}})
	wantKind(t, err, ErrDuplicateAssociation)
	var e *Error
	if err := s.AddSupplementalAssociation(SupplementalAssociation{5, "", 50, "Y"}); !errors.As(err, &e) || e.Field() != "items[0].component_type" {
		t.Fatalf("empty type: %v", err)
	}
	if ok, _ := s.HasSupplementalAssociation(9, 90); ok {
		t.Fatal("a refused batch added part of itself")
	}
	if ok, _ := s.HasSupplementalAssociation(2, 11); !ok {
		t.Fatal("has: missing pair")
	}
	if ok, _ := s.HasSupplementalAssociation(11, 2); ok {
		t.Fatal("has: reversed pair found")
	}
	got, _ := s.ListSupplementalAssociations(SupplementalFilter{AttributeIDs: []int64{11}})
	if len(got) != 2 || got[0].ComponentID != 2 || got[1].ComponentType != "PowerLoad" {
		t.Fatalf("list by attribute: %v", got)
	}
	got, _ = s.ListSupplementalAssociations(SupplementalFilter{ComponentTypes: []string{"ThermalStandard"}, AttributeTypes: []string{"Outage"}})
	if len(got) != 1 || got[0].ComponentID != 2 {
		t.Fatalf("list by types: %v", got)
	}
	if ids, _ := s.ListAssociatedComponentIDs(SupplementalFilter{AttributeIDs: []int64{10, 11}}); fmt.Sprint(ids) != "[1 2 3]" {
		t.Fatalf("component ids %v", ids)
	}
	if ids, _ := s.ListAssociatedAttributeIDs(SupplementalFilter{ComponentIDs: []int64{2}}); fmt.Sprint(ids) != "[10 11]" {
		t.Fatalf("attribute ids %v", ids)
	}
	if c, _ := s.SupplementalAssociationCounts(); c != (AssociationCounts{4, 3, 2}) {
		t.Fatalf("counts %+v", c)
	}
	byType, _ := s.SupplementalAssociationCountsByType()
	if fmt.Sprint(byType) != "[{PowerLoad Outage 1} {ThermalStandard GeographicInfo 2} {ThermalStandard Outage 1}]" {
		t.Fatalf("counts by type %v", byType)
	}
	// Replacing a component id onto a pair that exists is refused and changes nothing.
	_, err = s.ReplaceSupplementalComponentID(1, 2)
	wantKind(t, err, ErrDuplicateAssociation)
	if n, err := s.ReplaceSupplementalComponentID(3, 7); n != 1 || err != nil {
		t.Fatalf("replace: %d %v", n, err)
	}
	if n, _ := s.RemoveSupplementalAssociations(SupplementalFilter{AttributeIDs: []int64{10}}); n != 2 {
		t.Fatalf("removed %d", n)
	}
	s.Close()
	if out := run(t, "sqlite3", CatalogPath(path), "SELECT component_id, component_type, attribute_id, attribute_type FROM supplemental_attribute_associations ORDER BY id"); out != "2|ThermalStandard|11|Outage\n7|PowerLoad|11|Outage\n" {
		t.Fatalf("table seen by sqlite3:\n%s", out)
	}
}

func TestParentChildAssociations(t *testing.T) {
	s, _ := newStore(t)
	edges := []ParentChildAssociation{{40, "ThermalStandard", 99, "ACBus"}, {41, "RenewableDispatch", 99, "ACBus"}, {99, "ACBus", 40, "ThermalStandard"}}
	if err := s.AddParentChildAssociations(edges); err != nil {
		t.Fatal(err) // the reversed pair is another edge
	}
	wantKind(t, s.AddParentChildAssociation(ParentChildAssociation{40, "X", 99, "Y"}), ErrDuplicateAssociation)
	if ok, _ := s.HasParentChildAssociation(99, 40); !ok {
		t.Fatal("reversed edge missing")
	}
	if ids, _ := s.ChildrenOf(40); fmt.Sprint(ids) != "[99]" {
		t.Fatalf("children %v", ids)
	}
	if ids, _ := s.ParentsOf(99); fmt.Sprint(ids) != "[40 41]" {
		t.Fatalf("parents %v", ids)
	}
	if got, _ := s.ListParentChildAssociations(ParentChildFilter{ChildTypes: []string{"ACBus"}}); len(got) != 2 {
		t.Fatalf("list %v", got)
	}
	// Replace on both ends: 40 becomes 50 as parent and as child.
	if n, err := s.ReplaceParentChildID(40, 50); n != 2 || err != nil {
		t.Fatalf("replace: %d %v", n, err)
	}
	if ok, _ := s.HasParentChildAssociation(99, 50); !ok {
		t.Fatal("child end not replaced")
	}
	_, err := s.ReplaceParentChildID(41, 50) // (50, 99) exists
	wantKind(t, err, ErrDuplicateAssociation)
	if c, _ := s.ParentChildAssociationCounts(); c.Rows != 3 || c.DistinctA != 3 {
		t.Fatalf("counts %+v", c)
	}
	if n, _ := s.RemoveParentChildAssociations(ParentChildFilter{ParentIDs: []int64{99}}); n != 1 {
		t.Fatalf("removed %d", n)
	}
}

// Series and associations are independent in both directions.
func TestAssociationsIndependentOfSeries(t *testing.T) {
	s, path := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	if err := s.AddSupplementalAssociation(SupplementalAssociation{1, "ThermalStandard", 10, "GeographicInfo"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddParentChildAssociation(ParentChildAssociation{1, "ThermalStandard", 2, "ACBus"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(k); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Clear(); err != nil {
		t.Fatal(err)
	}
	k = mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	if _, err := s.RemoveSupplementalAssociations(SupplementalFilter{}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	out := run(t, "sqlite3", CatalogPath(path), "SELECT count(*) FROM parent_child_associations; SELECT count(*) FROM supplemental_attribute_associations; SELECT count(*) FROM time_series_associations;")
	if out != "1\n0\n1\n" {
		t.Fatalf("tables after removals:\n%s", out)
	}
}

// A store written before the association tables existed reads them as empty read-only and
// gains them on its next writable open (docs/format.md §9.6).
func TestStoreWithoutAssociationTables(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	s.Close()
	run(t, "sqlite3", CatalogPath(path), "DROP TABLE supplemental_attribute_associations; DROP TABLE parent_child_associations;")
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := ro.HasSupplementalAssociation(1, 10); ok || err != nil {
		t.Fatalf("has: %v %v", ok, err)
	}
	if l, err := ro.ListParentChildAssociations(ParentChildFilter{}); len(l) != 0 || err != nil {
		t.Fatalf("list: %v %v", l, err)
	}
	if c, err := ro.SupplementalAssociationCounts(); c.Rows != 0 || err != nil {
		t.Fatalf("counts: %v %v", c, err)
	}
	if ids, err := ro.ChildrenOf(1); len(ids) != 0 || err != nil {
		t.Fatalf("children: %v %v", ids, err)
	}
	wantKind(t, ro.AddParentChildAssociation(ParentChildAssociation{1, "A", 2, "B"}), ErrReadOnly)
	ro.Close()
	if out := run(t, "sqlite3", CatalogPath(path), ".tables"); strings.Contains(out, "parent_child") {
		t.Fatal("a read-only open created a table")
	}
	s = openAgain(t, path)
	if err := s.AddParentChildAssociation(ParentChildAssociation{1, "A", 2, "B"}); err != nil {
		t.Fatalf("after a writable open: %v", err)
	}
	s.Close()
	if out := run(t, "sqlite3", CatalogPath(path), ".tables"); !strings.Contains(out, "parent_child_associations") || !strings.Contains(out, "supplemental_attribute_associations") {
		t.Fatalf("tables after a writable open: %s", out)
	}
}

func TestQueriesAndSummaries(t *testing.T) {
	s, _ := newStore(t)
	load := Owner{ID: 5, Type: "PowerLoad", Category: Component}
	mustAdd(t, s, gen(1), hourly("max_active_power", ramp(24, 0)), nil)
	mustAdd(t, s, gen(2), hourly("max_active_power", ramp(24, 0)), nil) // shares gen 1's array
	mustAdd(t, s, load, hourly("max_reactive_power", ramp(24, 1)), nil)
	mustAdd(t, s, load, &SingleTimeSeries{Name: "max_active_power", InitialTimestamp: t0.Add(time.Hour), Resolution: Hours(1), Data: ArrayOf(ramp(48, 2))}, nil)
	mustAdd(t, s, load, &SingleTimeSeries{Name: "inflow", InitialTimestamp: t0, Resolution: Days(1), Data: ArrayOf(ramp(7, 0))}, nil)
	fk := mustAdd(t, s, gen(1), sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1), nil)
	if names, _ := s.ListNames(KeyFilter{}); fmt.Sprint(names) != "[inflow max_active_power max_reactive_power p]" {
		t.Fatalf("names %v", names)
	}
	if types, _ := s.ListOwnerTypes(KeyFilter{}); fmt.Sprint(types) != "[PowerLoad ThermalStandard]" {
		t.Fatalf("owner types %v", types)
	}
	if ids, _ := s.ListOwnerIDs(KeyFilter{Name: ptr("max_active_power")}); fmt.Sprint(ids) != "[1 2 5]" {
		t.Fatalf("owner ids %v", ids)
	}
	ms, _ := s.ListMetadata(KeyFilter{OwnerType: ptr("PowerLoad"), NameGlob: ptr("max_*")})
	if len(ms) != 2 {
		t.Fatalf("owner type + glob matched %d", len(ms))
	}
	if n, _ := s.CountArrays(KeyFilter{}); n != 5 {
		t.Fatalf("%d distinct arrays, want 5", n)
	}
	sum, _ := s.StaticSummary(KeyFilter{})
	want := []StaticGrid{{Hours(1), t0, 24, 3, 3}, {Hours(1), t0.Add(time.Hour), 48, 1, 1}, {Days(1), t0, 7, 1, 1}}
	if fmt.Sprint(sum) != fmt.Sprint(want) {
		t.Fatalf("static summary\n%v\nwant\n%v", sum, want)
	}
	cons, _ := s.CheckStaticConsistency()
	if len(cons) != 2 || cons[0].Consistent || !cons[1].Consistent || len(cons[0].Grids) != 2 {
		t.Fatalf("consistency %+v", cons)
	}
	if fs, _ := s.ForecastSummary(KeyFilter{}); len(fs) != 1 || fs[0].Count != 3 {
		t.Fatalf("forecast summary %v", fs)
	}
	groups, _ := s.ArrayGroups(KeyFilter{}, true)
	if len(groups) != 1 || len(groups[0].Keys) != 2 || groups[0].Keys[1].OwnerID != 2 {
		t.Fatalf("shared arrays %v", groups)
	}
	if _, err := s.TransformSingleTimeSeries(Hours(4), Hours(4), &TransformFilter{Resolution: ptr(Hours(1))}); err != nil {
		t.Fatal(err)
	}
	if ks, err := s.KeysByHash(groups[0].DataHash); err != nil || len(ks) != 4 || ks[1].OwnerID != 2 {
		t.Fatalf("keys by hash: %v (%v)", ks, err)
	}
	counts, _ := s.CountByHash(groups[0].DataHash)
	if fmt.Sprint(counts) != fmt.Sprint(map[SeriesType]int{SingleTimeSeriesType: 2, DeterministicSingleTimeSeriesType: 2}) {
		t.Fatalf("counts by hash %v", counts)
	}
	for _, flush := range []bool{false, true} { // pending, then from the file
		if flush {
			s.Flush()
		}
		arr, err := s.GetArray(groups[0].DataHash)
		if err != nil || !equalFloats(floats(t, arr), ramp(24, 0)) {
			t.Fatalf("get array: %v", err)
		}
		m, _ := s.GetMetadata(fk)
		if arr, err := s.GetArray(m.DataHash); err != nil || arr.Shape[1] != 3 {
			t.Fatalf("get forecast array: %v %v", arr.Shape, err)
		}
	}
	_, err := s.GetArray([32]byte{1})
	wantKind(t, err, ErrNotFound)
}

func TestOwnerMoves(t *testing.T) {
	s, path := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), &AddOptions{Features: Features{"zone": Int(3)}})
	mustAdd(t, s, gen(2), hourly("q", ramp(24, 9)), nil)
	bus := Owner{ID: 7, Type: "ACBus", Category: Component}
	c, err := s.CopySeries(k, bus, "")
	if err != nil || c.OwnerID != 7 || c.Name != "p" || !c.Features.Equal(k.Features) {
		t.Fatalf("copy: %v %v", c, err)
	}
	_, err = s.CopySeries(k, bus, "")
	wantKind(t, err, ErrDuplicateTimeSeries)
	r, err := s.RenameSeries(c, "p2")
	if err != nil || r.Name != "p2" {
		t.Fatalf("rename: %v %v", r, err)
	}
	if ok, _ := s.Has(c); ok {
		t.Fatal("the old name still exists")
	}
	_, err = s.RenameSeries(Key{OwnerID: 2, Name: "q", Resolution: Hours(1)}, "p") // gen 2 has no "p": fine
	if err != nil {
		t.Fatal(err)
	}
	// Owner 2 now has "p" without features, owner 1 has "p" with zone=3: a move of owner 2
	// onto 1 does not collide; a copy of owner 2's "p" onto owner 1 under the same features does.
	_, err = s.CopySeries(k, gen(2), "")
	if err != nil {
		t.Fatal(err) // other features than owner 2's "p"
	}
	_, err = s.ReplaceOwnerID(Component, 2, 1)
	wantKind(t, err, ErrDuplicateTimeSeries) // owner 2's copy of k collides with k
	missing := Key{OwnerID: 404, Name: "p", Resolution: Hours(1)}
	_, err = s.CopySeries(missing, bus, "")
	wantKind(t, err, ErrNotFound)
	_, err = s.RenameSeries(missing, "x")
	wantKind(t, err, ErrNotFound)
	if n, err := s.ReplaceOwnerID(Component, 404, 405); n != 0 || err != nil {
		t.Fatalf("replacing an owner with no series: %d %v", n, err)
	}
	_, err = s.RenameSeries(k, "")
	wantKind(t, err, ErrInvalidParameter)
	if n, err := s.ReplaceOwnerID(Component, 7, 70); n != 1 || err != nil {
		t.Fatalf("replace owner id: %d %v", n, err)
	}
	s.Close()
	// The copies share the array: one column for the three rows with ramp(24, 0).
	out := run(t, "sqlite3", CatalogPath(path), "SELECT count(DISTINCT data_hash), count(*) FROM time_series_associations; SELECT owner_id, name FROM time_series_associations WHERE owner_id = 70")
	if out != "2|4\n70|p2\n" {
		t.Fatalf("catalog after moves:\n%s", out)
	}
}

func TestMovesKeepTheForecastExclusion(t *testing.T) {
	s, _ := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(48, 0)), nil)
	if _, err := s.TransformSingleTimeSeries(Hours(4), Hours(4), nil); err != nil {
		t.Fatal(err)
	}
	det := mustAdd(t, s, gen(2), sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(8), 1), nil)
	_, err := s.CopySeries(det, gen(1), "")
	wantKind(t, err, ErrInvalidParameter)
	_, err = s.ReplaceOwnerID(Component, 2, 1)
	wantKind(t, err, ErrInvalidParameter)
	if ok, _ := s.Has(det); !ok {
		t.Fatal("a refused owner move changed the owner")
	}
	dst := dstKey(1, Hours(4))
	_, err = s.CopySeries(dst, gen(2), "")
	wantKind(t, err, ErrInvalidParameter)
}

func TestCompactDeletesUnreachableFeatureSets(t *testing.T) {
	s, path := newStore(t)
	a := mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), &AddOptions{Features: Features{"zone": Int(1), "model": Str("x")}})
	mustAdd(t, s, gen(2), hourly("p", ramp(24, 1)), &AddOptions{Features: Features{"zone": Int(2)}})
	mustAdd(t, s, gen(3), hourly("p", ramp(24, 2)), &AddOptions{Features: Features{"zone": Int(2)}})
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(a); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Compact(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Exactly the two rows of {zone: 1, model: x}; one slot freed of a 1,000-column dataset.
	if rep.FeatureSetsReclaimed != 2 || rep.SlotsReclaimed != 998 || rep.DatasetsDropped != 0 {
		t.Fatalf("report %+v", rep)
	}
	s.Close()
	if out := run(t, "sqlite3", CatalogPath(path), "SELECT key, value_int FROM feature_sets"); out != "zone|2\n" {
		t.Fatalf("feature sets left:\n%s", out)
	}
}

func TestVerifyIntegrityFindsDamage(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	victim := mustAdd(t, s, gen(2), hourly("p", ramp(24, 100)), nil)
	mustAdd(t, s, gen(3), sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1), nil)
	rep, err := s.VerifyIntegrity()
	if err != nil || !rep.OK() || rep.ArraysChecked != 3 {
		t.Fatalf("healthy store: %+v %v", rep, err)
	}
	s.Close()
	// Flip one stored value: in a store without compression the f64 sits verbatim in the
	// file, so patch its bytes.
	s2, path2 := newUncompressedStore(t)
	mustAdd(t, s2, gen(1), hourly("p", ramp(24, 0)), nil)
	mustAdd(t, s2, gen(2), hourly("p", ramp(24, 100)), nil)
	s2.Close()
	flipFloat(t, path2, 117.0, 117.5) // step 17 of owner 2's series
	s2 = openAgain(t, path2)
	rep, err = s2.VerifyIntegrity()
	if err != nil || len(rep.HashMismatches) != 1 || !strings.Contains(rep.HashMismatches[0], "column 1") {
		t.Fatalf("flipped byte: %+v %v", rep, err)
	}
	// A catalog hash altered from outside names no array.
	run(t, "sqlite3", CatalogPath(path), fmt.Sprintf("UPDATE time_series_associations SET data_hash = zeroblob(32) WHERE owner_id = %d", victim.OwnerID))
	// A writable open refuses the pair (it would free the array the row lost); read-only,
	// verify names the row.
	before := fileDigests(t, path)
	if _, err := Open(path); !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), "1 of the 3 arrays") {
		t.Fatalf("writable open of a dangling row: %v", err)
	}
	if fileDigests(t, path) != before {
		t.Fatal("the refused open changed the files")
	}
	s, err = OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err = s.VerifyIntegrity()
	if err != nil || len(rep.DanglingRows) != 1 || !strings.Contains(rep.DanglingRows[0], "names no packed column") {
		t.Fatalf("altered hash: %+v %v", rep, err)
	}
	if len(rep.HashMismatches) != 0 {
		t.Fatalf("mismatches %v", rep.HashMismatches)
	}
}

// A catalog copied from another store names arrays this file does not hold: the writable
// open refuses before its orphan cleanup could empty the hash slots of this file's arrays,
// and reads through a read-only open fail per series, naming the missing array.
func TestCatalogOfAnotherStoreIsRefused(t *testing.T) {
	dir := t.TempDir()
	build := func(name string, offset float64) string {
		p := filepath.Join(dir, name)
		s, err := Create(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 4; i++ {
			mustAdd(t, s, gen(int64(i)), hourly("p", ramp(24, offset+float64(i))), nil)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := build("a.nc", 0), build("b.nc", 1000)
	foreign, err := os.ReadFile(CatalogPath(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(CatalogPath(a), foreign, 0o644); err != nil {
		t.Fatal(err)
	}
	before := fileDigests(t, a)
	_, err = Open(a)
	if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), "4 of the 4 arrays") || !strings.Contains(err.Error(), "another store") {
		t.Fatalf("writable open with a foreign catalog: %v", err)
	}
	if fileDigests(t, a) != before {
		t.Fatal("the refused open changed the files")
	}
	s, err := OpenReadOnly(a)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Get(Key{OwnerID: 2, Name: "p", Resolution: Hours(1)}); !errors.Is(err, ErrIntegrity) {
		t.Fatalf("read through a foreign catalog: %v", err)
	}
	if slots := hashSlots(t, a, "sts_f64_s_24_PT1H"); slots[0] == "" {
		t.Fatal("the file's own arrays lost their hash slots")
	}
}

func newUncompressedStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := t.TempDir() + "/plain.nc"
	s, err := Create(path, &CreateOptions{Compression: &Compression{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// flipFloat replaces the one occurrence of a little-endian f64 in a file.
func flipFloat(t *testing.T, path string, from, to float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old, repl := ArrayOf([]float64{from}).Data, ArrayOf([]float64{to}).Data
	if n := strings.Count(string(b), string(old)); n != 1 {
		t.Fatalf("%v occurs %d times in the file", from, n)
	}
	i := strings.Index(string(b), string(old))
	copy(b[i:], repl)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Cases from a second reading of the catalog surface.

func TestVerifyIntegrityReportsStandaloneAndShapeDamage(t *testing.T) {
	s, path := newUncompressedStore(t)
	fc := &Deterministic{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Horizon: Hours(2), Interval: Hours(2),
		Count: 2, Data: ArrayOf([]float64{1, 2, 3, 4.25}, 2, 2)}
	mustAdd(t, s, gen(1), fc, nil)
	mustAdd(t, s, gen(2), hourly("q", ramp(24, 500)), nil)
	s.Close()
	flipFloat(t, path, 4.25, 4.5)
	run(t, "sqlite3", CatalogPath(path), "UPDATE time_series_associations SET length = 23 WHERE owner_id = 2")
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rep, err := ro.VerifyIntegrity()
	if err != nil || len(rep.HashMismatches) != 1 || !strings.Contains(rep.HashMismatches[0], "arr_") ||
		len(rep.ShapeMismatches) != 1 || !strings.Contains(rep.ShapeMismatches[0], "[23]") {
		t.Fatalf("report %+v (%v)", rep, err)
	}
}

// Damage in a compressed store usually makes a chunk unreadable: it is reported, and the
// other arrays are still checked.
func TestVerifyIntegrityReportsUnreadableChunks(t *testing.T) {
	s, path := newStore(t)
	for i := 0; i < 20; i++ {
		mustAdd(t, s, gen(int64(i)), hourly("p", ramp(2000, float64(i*7))), nil)
	}
	s.Close()
	b, _ := os.ReadFile(path)
	for i := len(b) / 3; i < len(b)/3+4096; i++ {
		b[i] ^= 0x5a
	}
	os.WriteFile(path, b, 0o644)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Skipf("the damage hit HDF5 metadata: %v", err)
	}
	defer ro.Close()
	rep, err := ro.VerifyIntegrity()
	if err != nil {
		t.Fatalf("verify gave up: %v", err)
	}
	if rep.OK() || rep.ArraysChecked != 20 {
		t.Fatalf("4 KiB of flipped bytes went unnoticed or stopped the check: %+v", rep)
	}
}

func TestEmptyFilterListMatchesNothing(t *testing.T) {
	s, _ := newStore(t)
	if err := s.AddSupplementalAssociation(SupplementalAssociation{1, "G", 10, "A"}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.RemoveSupplementalAssociations(SupplementalFilter{ComponentIDs: []int64{}}); n != 0 || err != nil {
		t.Fatalf("an empty id list removed %d (%v)", n, err)
	}
	if l, _ := s.ListSupplementalAssociations(SupplementalFilter{AttributeTypes: []string{}}); len(l) != 0 {
		t.Fatalf("an empty type list matched %v", l)
	}
	var e *Error
	if _, err := s.ListSupplementalAssociations(SupplementalFilter{ComponentTypes: []string{"\xff"}}); !errors.As(err, &e) || e.Field() != "filter.component_types[0]" {
		t.Fatalf("invalid UTF-8 in a filter: %v", err)
	}
}

func TestReplaceParentChildIDCountsRows(t *testing.T) {
	s, _ := newStore(t)
	if err := s.AddParentChildAssociations([]ParentChildAssociation{{1, "A", 1, "A"}, {1, "A", 2, "B"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ReplaceParentChildID(1, 3); n != 2 || err != nil {
		t.Fatalf("replace changed %d rows (%v), want 2", n, err)
	}
	if ok, _ := s.HasParentChildAssociation(3, 3); !ok {
		t.Fatal("the self-edge was not moved")
	}
}

func TestCountArraysCountsStorageNotHashes(t *testing.T) {
	s, _ := newStore(t)
	arr := ArrayOf([]float64{0, 1, 2, 3})
	mustAdd(t, s, gen(1), &SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Data: arr}, nil)
	mustAdd(t, s, gen(1), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0, t0.Add(time.Hour), t0.Add(2 * time.Hour), t0.Add(5 * time.Hour)}, Data: arr}, nil)
	if n, _ := s.CountArrays(KeyFilter{}); n != 2 {
		t.Fatalf("%d arrays counted; one packed column and one standalone variable are stored", n)
	}
}

// A column no row names is forgotten on a writable open but its bytes stay, so data whose
// catalog row was damaged is not destroyed before anyone can look at it.
func TestOrphanColumnsKeepTheirBytes(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 7)), nil)
	s.Close()
	run(t, "sqlite3", CatalogPath(path), "DELETE FROM time_series_associations")
	openAgain(t, path).Close()
	if slots := hashSlots(t, path, "sts_f64_s_24_PT1H"); slots[0] != "" {
		t.Fatalf("orphan slot kept: %v", slots[:1])
	}
	if out := run(t, "ncdump", "-v", "sts_f64_s_24_PT1H", path); !strings.Contains(out, "sts_f64_s_24_PT1H =\n  7, _,") {
		t.Fatalf("orphan column was zero-filled:\n%s", out[len(out)-400:])
	}
}
