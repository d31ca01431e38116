package core

import (
	"os"
	"strconv"
	"strings"
	"testing"
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
