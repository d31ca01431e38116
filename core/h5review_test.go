package core

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fhs/go-netcdf/netcdf"

	"github.com/tsstore/tsstore/core/internal/ncshim"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// Regression tests for the read-only route through HDF5 (core/internal/h5,
// core/internal/ncstore/h5file.go): each builds a file the netcdf-c route reads and checks
// that a read-only open reads it the same way.

// residentKiB is the process's resident set size.
func residentKiB(t *testing.T) int {
	t.Helper()
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
	ncshim.Lock()
	defer ncshim.Unlock()
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
