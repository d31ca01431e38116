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
