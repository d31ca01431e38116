package ncstore

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncshim"
)

// A define that fails part way leaves none of its dimensions or variables in the file, so
// the same array can be defined again: HDF5 refuses a chunk larger than a fixed dimension
// after the dimensions are made.
func TestFailedDefineLeavesNothingBehind(t *testing.T) {
	if !h5Writes {
		t.Skip("TSSTORE_HDF5_WRITES=0: netcdf-c's route")
	}
	f, err := Create(filepath.Join(t.TempDir(), "s.nc"), DefaultCompression, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var d hashing.Digest
	d[0] = 7
	ncshim.Lock()
	defer ncshim.Unlock()
	if _, err := f.defineStandalone(F64, []uint64{4, 2}, d, []uint64{8, 2}); err == nil {
		t.Fatal("a chunk larger than its fixed dimension was accepted")
	}
	names, err := f.h5.grp.Names()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, VariableName(d)) {
			t.Errorf("%s is left in the file", n)
		}
	}
	sv, err := f.defineStandalone(F64, []uint64{4, 2}, d, nil)
	if err != nil {
		t.Fatalf("the same array after the failure: %v", err)
	}
	if err := f.fillStandalone(sv, make([]byte, 64), d); err != nil {
		t.Fatal(err)
	}
}

// A define that fails gives back the dimension ids it took: otherwise the ids it removed
// leave a gap, the dimension created last no longer has id count−1, and every later session
// scans the whole group (every dataset opened) before its first new dimension.
func TestFailedDefineLeavesNoDimensionIDGap(t *testing.T) {
	if !h5Writes {
		t.Skip("TSSTORE_HDF5_WRITES=0: netcdf-c's route")
	}
	path := filepath.Join(t.TempDir(), "s.nc")
	f, err := Create(path, DefaultCompression, false)
	if err != nil {
		t.Fatal(err)
	}
	define := func(f *File, b byte, chunks []uint64) error {
		ncshim.Lock()
		defer ncshim.Unlock()
		_, err := f.defineStandalone(F64, []uint64{4, 2}, hashing.Digest{b}, chunks)
		return err
	}
	if err := define(f, 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := define(f, 2, []uint64{8, 2}); err == nil {
		t.Fatal("a chunk larger than its fixed dimension was accepted")
	}
	if err := define(f, 3, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := define(f, 4, nil); err != nil {
		t.Fatal(err)
	}
	if n := f.Counters().DimensionScans; n != 0 {
		t.Errorf("%d scans of the group for the highest dimension id after a failed define", n)
	}
}
