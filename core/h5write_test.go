package core

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fhs/go-netcdf/netcdf"
	"github.com/tsstore/tsstore/core/internal/h5"
	"github.com/tsstore/tsstore/core/internal/ncshim"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// h5WriteWorkload writes a store that exercises every write the file layer makes: packed
// datasets of several dtypes and element shapes, a second dataset of a family (__1),
// forecasts (standalone variables, chunked by window), a freed column, and a second session
// after a reopen, whose new dimensions take ids after those already in the file.
//
// It returns how many times the second session scanned the group for its highest dimension
// id.
func h5WriteWorkload(t *testing.T, path string) (dimensionScans int64) {
	t.Helper()
	s, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []Key
	for b := 0; b < 2; b++ { // two batches of a family: a dataset as wide as each, the second __1
		var items []BatchItem
		for i := 3 * b; i < 3*b+3; i++ {
			items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(24, float64(i)))})
		}
		ks, err := s.AddBatch(items)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, ks...)
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	for i, dt := range allDTypes {
		mustAdd(t, s, gen(int64(100+i)), &SingleTimeSeries{Name: "q", InitialTimestamp: t0, Resolution: Hours(1),
			Data: sampleArray(dt, 12, []int{3}, i)}, nil)
		mustAdd(t, s, gen(int64(200+i)), sampleForecast(DeterministicType, dt, nil, 24, 5, 1, Days(1), i), nil)
	}
	mustAdd(t, s, gen(300), sampleForecast(ProbabilisticType, F64, []int{2}, 6, 3, 4, Hours(6), 7), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(keys[1]); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, path)
	mustAdd(t, s, gen(400), hourly("p", ramp(24, 400)), nil) // reuses the freed column
	mustAdd(t, s, gen(401), sampleForecast(DeterministicType, F64, nil, 48, 3, 1, Days(1), 9), nil)
	mustAdd(t, s, gen(402), hourly("r", ramp(36, 1)), nil) // a new family after the reopen
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	scans := s.nc.Counters().DimensionScans
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return scans
}

// The netCDF-C reference: what netcdf-c 4.9.0 over HDF5 1.10.8 wrote for h5WriteWorkload when
// this project still had a netcdf-c write route (until C boundary v0.3), normalized by
// referenceDump and referenceNCDump: h5dump -p -A (every object, property and attribute with
// its value, no dataset data), ncdump -s -h, and the SHA-256 of the whole ncdump -s output.
const referenceDir = "testdata/netcdf-c-reference"

// referenceDump is h5dump's description of every object, property and attribute of the file
// at path, with what differs between two writers of the same content, or between two
// netcdf-c builds, left out: object addresses (in references and in data offsets) and the
// _NCProperties attribute, which names the versions of netcdf-c and HDF5 that made the file.
func referenceDump(t *testing.T, path string) string {
	t.Helper()
	out := run(t, "h5dump", "-p", "-A", path)
	out = out[strings.Index(out, "\n")+1:] // the first line names the file
	out = regexp.MustCompile(`DATASET [0-9]+ `).ReplaceAllString(out, "DATASET ")
	out = regexp.MustCompile(`OFFSET [0-9]+`).ReplaceAllString(out, "OFFSET")
	return regexp.MustCompile(`(?s)\n   ATTRIBUTE "_NCProperties" \{.*?\n   \}`).ReplaceAllString(out, "")
}

// referenceNCDump is ncdump's output (args, then the file) with the dataset's name and the
// _NCProperties attribute left out.
func referenceNCDump(t *testing.T, path string, args ...string) string {
	t.Helper()
	out := run(t, "ncdump", append(args, path)...)
	out = out[strings.Index(out, "\n")+1:] // "netcdf NAME {"
	return regexp.MustCompile(`(?m)^\t\t:_NCProperties = .*\n`).ReplaceAllString(out, "")
}

// TestHDF5WritesMatchNetCDF writes the reference workload through HDF5 and compares the file
// with what netcdf-c wrote for it (referenceDir), as h5dump and ncdump print them: the same
// datasets, types, shapes, chunking, filters, fill values, attributes (the dimension scales,
// _Netcdf4Dimid, _Netcdf4Coordinates, DIMENSION_LIST, REFERENCE_LIST) and values. A second
// store walks the group by name at its reopen, which takes the scan for the highest
// dimension id.
func TestHDF5WritesMatchNetCDF(t *testing.T) {
	requireTool(t, "h5dump")
	requireTool(t, "ncdump")
	reference := func(name string) string {
		b, err := os.ReadFile(filepath.Join(referenceDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want, wantHeader := reference("h5dump-attributes.txt"), reference("ncdump-header.txt")
	wantSum := strings.TrimSpace(reference("ncdump.sha256"))
	noFill := regexp.MustCompile(`(?m)^[ \t]+[A-Za-z0-9_]+_h:_NoFill = "true" ;\n`)
	for _, byName := range []bool{false, true} {
		name := map[bool]string{false: "hdf5.nc", true: "hdf5-by-name.nc"}[byName]
		path := filepath.Join(t.TempDir(), name)
		h5.WalkByNameForTesting(byName)
		// Walked by creation order, the dimension listed last gives the next id; walked by
		// name it cannot, and the group is scanned once.
		scans := h5WriteWorkload(t, path)
		h5.WalkByNameForTesting(false)
		if want := map[bool]int64{false: 0, true: 1}[byName]; scans != want {
			t.Errorf("%s: %d scans for the highest dimension id, want %d", name, scans, want)
		}
		got, companions := asNetCDFCompanionFill(referenceDump(t, path))
		if got != want {
			t.Errorf("%s: h5dump differs from netcdf-c's file:\n%s", name, lineDiff(want, got))
		}
		header := referenceNCDump(t, path, "-s", "-h")
		if n := len(noFill.FindAllString(header, -1)); n != companions || n == 0 {
			t.Errorf("%s: ncdump shows _NoFill on %d variables, the file has %d hash companions", name, n, companions)
		}
		if header = noFill.ReplaceAllString(header, ""); header != wantHeader {
			t.Errorf("%s: ncdump -h differs from netcdf-c's file:\n%s", name, lineDiff(wantHeader, header))
		}
		sum := sha256.Sum256([]byte(noFill.ReplaceAllString(referenceNCDump(t, path, "-s"), "")))
		if hex.EncodeToString(sum[:]) != wantSum {
			t.Errorf("%s: ncdump's values differ from netcdf-c's file (SHA-256 of ncdump -s)", name)
		}
	}
}

// asNetCDFCompanionFill is dump with the one property the HDF5 route writes unlike netcdf-c
// spelled as netcdf-c writes it: a hash companion's fill (docs/format.md §7.8: zero-filled
// storage, no fill value, where netcdf-c's is ""). It also returns how many it respelled.
func asNetCDFCompanionFill(dump string) (string, int) {
	fill := regexp.MustCompile(`FILL_TIME H5D_FILL_TIME_ALLOC\n(\s+)VALUE  H5D_FILL_VALUE_DEFAULT`)
	n := len(fill.FindAllString(dump, -1))
	return fill.ReplaceAllString(dump, "FILL_TIME H5D_FILL_TIME_IFSET\n${1}VALUE  \"\""), n
}

// lineDiff lists the lines of b that differ from a's at the same position (at most 20).
func lineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(la), len(lb)) && len(out) < 20; i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			out = append(out, "line "+itoa(int64(i+1))+":\n  netcdf-c: "+x+"\n  hdf5:     "+y)
		}
	}
	return strings.Join(out, "\n")
}

// New dimensions written into the independent writer's store take ids no dimension of that
// writer holds, and netcdf-c reads the file: ncdump prints it, and a store opened again
// reads the new series, removes them, and reads the writer's as before.
func TestHDF5WritesIntoIndependentStore(t *testing.T) {
	path := copyConformanceStore(t)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fc := sampleForecast(DeterministicType, F32, []int{2}, 24, 4, 1, Days(1), 3)
	kf := mustAdd(t, s, gen(900), fc, nil)
	ks := mustAdd(t, s, gen(901), hourly("fresh_family", ramp(30, 2)), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ids := regexp.MustCompile(`ATTRIBUTE "_Netcdf4Dimid" \{[^}]*?\(0\): (\d+)`).
		FindAllStringSubmatch(run(t, "h5dump", "-A", path), -1)
	seen := map[string]bool{}
	for _, m := range ids {
		if seen[m[1]] {
			t.Errorf("dimension id %s is held twice", m[1])
		}
		seen[m[1]] = true
	}
	if len(ids) != 25+5 { // the writer's 25, the forecast's 3, the family's 2
		t.Errorf("%d dimension ids, want 30", len(ids))
	}
	run(t, "ncdump", "-h", path)
	s = openAgain(t, path)
	if got := mustGet(t, s, kf).(*Deterministic); !sameArray(got.Data, fc.Array()) {
		t.Error("the forecast written through HDF5 reads differently after a reopen")
	}
	if !equalFloats(floats(t, mustGetSingle(t, s, ks).Data), ramp(30, 2)) {
		t.Error("the series written through HDF5 reads differently after a reopen")
	}
	// Removed, they leave the writer's fourteen series as they were.
	for _, k := range []Key{kf, ks} {
		if err := s.Remove(k); err != nil {
			t.Fatal(err)
		}
	}
	checkIndependentStore(t, s)
}

// Dimension ids are file-wide. A dimension another netCDF writer added to the file, in the
// root group or beside the store's own in /time_series/single, may hold the highest id;
// a new dimension written through HDF5 must not take it, or netcdf-c attaches variables to
// the wrong dimension (ncdump showed the root variable over a forecast's dimension).
func TestHDF5WritesKeepOtherWritersDimensionIDs(t *testing.T) {
	requireTool(t, "h5dump")
	for _, where := range []string{"/", "/time_series/single"} {
		t.Run(where, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.nc")
			s, err := Create(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			addForeignDimension(t, path, where)
			s = openAgain(t, path)
			mustAdd(t, s, gen(2), sampleForecast(DeterministicType, F64, nil, 24, 3, 1, Days(1), 9), nil)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, m := range regexp.MustCompile(`ATTRIBUTE "_Netcdf4Dimid" \{[^}]*?\(0\): (\d+)`).
				FindAllStringSubmatch(run(t, "h5dump", "-A", path), -1) {
				if seen[m[1]] {
					t.Errorf("dimension id %s is held twice", m[1])
				}
				seen[m[1]] = true
			}
			if out := run(t, "ncdump", "-h", path); !strings.Contains(out, "double station_weight(station) ;") {
				t.Errorf("netcdf-c reads the other writer's variable over another dimension:\n%s", out)
			}
		})
	}
}

// addForeignDimension adds, through netcdf-c, a dimension "station" and a variable over it
// to the group at where: what another netCDF tool may leave in a store's file.
func addForeignDimension(t *testing.T, path, where string) {
	t.Helper()
	serial.Lock()
	defer serial.Unlock()
	ds, err := netcdf.OpenFile(path, netcdf.WRITE)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	g := ds
	for _, name := range strings.Split(strings.Trim(where, "/"), "/") {
		if name == "" {
			continue
		}
		if g, err = ncshim.Group(g, name); err != nil {
			t.Fatal(err)
		}
	}
	d, err := g.AddDim("station", 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.AddVar("station_weight", netcdf.DOUBLE, []netcdf.Dim{d}); err != nil {
		t.Fatal(err)
	}
	if err := ncshim.EndDef(ds); err != nil {
		t.Fatal(err)
	}
}

// A unit that fails after defining a packed dataset (its standalone write poisoned) leaves
// the dataset defined and none of its hash slots written; the next sync writes that
// companion whole, so the file holds no null string in any slot, before and after a reopen
// adds to the family (docs/format.md §7.8).
func TestFailedUnitLeavesNoNullSlot(t *testing.T) {
	requireTool(t, "ncdump")
	requireTool(t, "h5dump")
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
	poisonStandalone(t, s, outage())
	if _, err := s.Add(gen(77), outage(), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err == nil {
		t.Fatal("the flush of a poisoned write succeeded")
	}
	mustAdd(t, s, gen(2), hourly("q", ramp(48, 1)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	const companion = "/time_series/single/sts_f64_s_24_PT1H_h"
	null := regexp.MustCompile(`\bNULL\b`) // h5dump's null string (its type says STR_NULLTERM)
	if d := run(t, "h5dump", "-d", companion, path); null.MatchString(d) || !strings.Contains(d, `""`) {
		t.Fatalf("after the failed unit, h5dump shows a null slot or no empty one:\n%s", d)
	}
	s = openAgain(t, path)
	mustAdd(t, s, gen(3), hourly("r", ramp(24, 5)), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := run(t, "h5dump", "-d", companion, path); null.MatchString(d) || strings.Count(d, `"`) < 4 {
		t.Fatalf("after a reopen and an add, h5dump shows a null slot:\n%s", d)
	}
	if d := run(t, "ncdump", path); strings.Contains(d, "NIL") {
		t.Fatalf("ncdump shows a null slot:\n%s", d)
	}
}
