package core

import (
	"encoding/hex"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/fhs/go-netcdf/netcdf"

	"github.com/tsstore/tsstore/core/internal/ncshim"
	"github.com/tsstore/tsstore/core/internal/ncstore"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// Regression tests for the read-only route through HDF5 (core/internal/h5,
// core/internal/ncstore/h5file.go): each builds a file the netcdf-c route reads and checks
// that a read-only open reads it the same way.

// residentKiB is the process's resident set size, after Go has returned what it can: the
// C heap's growth is what the caller compares.
func residentKiB(t *testing.T) int {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no VmRSS")
	return 0
}

// Listing the group's link names must not leak the C block they are gathered in: a
// process that opens a store of 2,000 forecasts (6,000 links, ~400 KiB of names) read-only
// again and again keeps its memory.
func TestReadOnlyOpenFreesLinkNames(t *testing.T) {
	s, path := newStore(t)
	var items []BatchItem
	for i := 0; i < 2000; i++ {
		items = append(items, BatchItem{Owner: Owner{ID: int64(i), Type: "Gen", Category: Component},
			Series: sampleForecast(DeterministicType, F64, nil, 2, 1, 1, Days(1), i)})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	openClose := func(n int) {
		for range n {
			ro, err := OpenReadOnly(path)
			if err != nil {
				t.Fatal(err)
			}
			ro.Close()
		}
	}
	openClose(20) // warm up allocators and caches
	before := residentKiB(t)
	openClose(150)
	// A leak of the names block is ~60 MiB here; without it growth is a few MiB.
	if grew := residentKiB(t) - before; grew > 24<<10 {
		t.Fatalf("150 read-only opens grew the resident set by %d MiB", grew>>10)
	}
}

// withSingleGroup opens the store file at path with netcdf-c and runs fn on its
// /time_series/single group, then closes it.
func withSingleGroup(t *testing.T, path string, fn func(g netcdf.Dataset)) {
	t.Helper()
	serial.Lock()
	defer serial.Unlock()
	root, err := netcdf.OpenFile(path, netcdf.WRITE)
	if err != nil {
		t.Fatal(err)
	}
	top, err := ncshim.Group(root, "time_series")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ncshim.Group(top, "single")
	if err != nil {
		t.Fatal(err)
	}
	fn(g)
	if err := root.Close(); err != nil {
		t.Fatal(err)
	}
}

// netcdf-c lists only variables; a group in /time_series/single is no array, whatever its
// name. A read-only open must neither refuse the file over a group named like a packed
// dataset nor report a group named like a standalone variable as an unreadable array.
func TestReadOnlyOpenIgnoresGroupsNamedLikeArrays(t *testing.T) {
	s, path := newStore(t)
	single := &SingleTimeSeries{Name: "load", InitialTimestamp: t0, Resolution: Hours(1), Data: sampleArray(F64, 24, nil, 1)}
	fc := sampleForecast(DeterministicType, F64, nil, 4, 3, 1, Days(1), 2)
	keys, err := s.AddBatch([]BatchItem{
		{Owner: Owner{ID: 1, Type: "Bus", Category: Component}, Series: single},
		{Owner: Owner{ID: 2, Type: "Gen", Category: Component}, Series: fc},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	withSingleGroup(t, path, func(g netcdf.Dataset) {
		for _, name := range []string{
			ncstore.PackedName(F64, nil, 24, Hours(1).String()) + "__7",
			"arr_" + strings.Repeat("0", 64),
		} {
			if _, err := ncshim.DefGroup(g, name); err != nil {
				t.Fatal(err)
			}
		}
	})
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("read-only open: %v", err)
	}
	defer ro.Close()
	checkSeries(t, ro, keys[0], single.Data)
	checkSeries(t, ro, keys[1], fc.(*Deterministic).Data)
	rep, err := ro.VerifyIntegrity()
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.ArraysChecked != 2 {
		t.Fatalf("verify: %+v; want 2 arrays checked and nothing wrong", rep)
	}
}

// A packed dataset whose column dimension is unlimited (netCDF4-python writers may define
// it so) can leave its hash companion shorter than the data: {ds}_c is as long as the
// longest dataset on it, and netcdf-c reads the slots past the companion's end as ""
// (free). A read-only open reads the file as netcdf-c does.
func TestReadOnlyOpenUnlimitedColumnsShortHashCompanion(t *testing.T) {
	s, path := newStore(t)
	col := make([]float64, 24)
	for i := range col {
		col[i] = float64(i) + 0.5
	}
	single := &SingleTimeSeries{Name: "load", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(col, 24)}
	k, err := s.Add(Owner{ID: 1, Type: "Bus", Category: Component}, single, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := s.ListMetadata(KeyFilter{})
	if err != nil || len(ms) != 1 {
		t.Fatalf("metadata: %v %v", ms, err)
	}
	hash := hex.EncodeToString(ms[0].DataHash[:])
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Rewrite the file with the one packed dataset two columns wide on an unlimited _c:
	// column 0 holds the series, column 1 was written (zeros) but its slot never was.
	name := ncstore.PackedName(F64, nil, 24, Hours(1).String())
	func() {
		serial.Lock()
		defer serial.Unlock()
		root, err := netcdf.CreateFile(path, netcdf.CLOBBER|netcdf.NETCDF4)
		if err != nil {
			t.Fatal(err)
		}
		for attr, v := range map[string]string{"data_format_version": ncstore.DataFormatVersion, "compression": "none"} {
			if err := ncshim.PutAttText(root, ncshim.GlobalVarID, attr, v); err != nil {
				t.Fatal(err)
			}
		}
		top, err := ncshim.DefGroup(root, "time_series")
		if err != nil {
			t.Fatal(err)
		}
		g, err := ncshim.DefGroup(top, "single")
		if err != nil {
			t.Fatal(err)
		}
		td, err := g.AddDim(name+"_t", 24)
		if err != nil {
			t.Fatal(err)
		}
		cd, err := g.AddDim(name+"_c", 0) // unlimited
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.AddVar(name, netcdf.DOUBLE, []netcdf.Dim{td, cd}); err != nil {
			t.Fatal(err)
		}
		if _, err := g.AddVar(name+"_h", netcdf.STRING, []netcdf.Dim{cd}); err != nil {
			t.Fatal(err)
		}
		if err := root.EndDef(); err != nil {
			t.Fatal(err)
		}
		both := make([]float64, 2*24)
		for i, x := range col {
			both[2*i] = x
		}
		vid, err := ncshim.VarID(g, name)
		if err != nil {
			t.Fatal(err)
		}
		// go-netcdf checks a slice against the current length of _c (0); netcdf-c extends it.
		if err := ncshim.PutVara(g, vid, []uint64{0, 0}, []uint64{24, 2}, unsafe.Pointer(&both[0])); err != nil {
			t.Fatal(err)
		}
		hid, err := ncshim.VarID(g, name+"_h")
		if err != nil {
			t.Fatal(err)
		}
		if err := ncshim.PutStrings(g, hid, 0, []string{hash}); err != nil {
			t.Fatal(err)
		}
		if err := root.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("read-only open: %v", err)
	}
	defer ro.Close()
	checkSeries(t, ro, k, single.Data)
	rep, err := ro.VerifyIntegrity()
	if err != nil || !rep.OK() || rep.ArraysChecked != 1 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}
