package ncstore

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// A define that fails part way leaves none of its dimensions or variables in the file, so
// the same array can be defined again: HDF5 refuses a chunk larger than a fixed dimension
// after the dimensions are made.
func TestFailedDefineLeavesNothingBehind(t *testing.T) {
	f := newH5WrittenFile(t)
	var d hashing.Digest
	d[0] = 7
	serial.Lock()
	defer serial.Unlock()
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
	path := filepath.Join(t.TempDir(), "s.nc")
	f, err := Create(path, DefaultCompression, false)
	if err != nil {
		t.Fatal(err)
	}
	define := func(f *File, b byte, chunks []uint64) error {
		serial.Lock()
		defer serial.Unlock()
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

// The standalone datasets a unit defines are closed at its sync: kept open, every later flush
// visited each of them (HDF5's H5Fflush flushes every open dataset), so a durable write after
// a bulk load cost 2 ms more with 1,024 open.
func TestSyncClosesTheDatasetsAUnitDefined(t *testing.T) {
	f := newH5WrittenFile(t)
	before := f.OpenDatasetsForTesting()
	var arrays []*Array
	for b := byte(1); b <= 20; b++ {
		values := make([]byte, 8*8)
		values[0] = b
		arrays = append(arrays, &Array{DType: F64, Shape: []int{4, 2}, Data: values, Digest: hashing.Digest{b}})
	}
	if _, err := f.WriteArrays(arrays); err != nil {
		t.Fatal(err)
	}
	if n := f.OpenDatasetsForTesting(); n != before+20 {
		t.Fatalf("%d datasets open before the sync, want the 20 defined beside %d", n, before)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := f.OpenDatasetsForTesting(); n != before {
		t.Errorf("%d datasets open after the sync, want %d: the unit's are still open", n, before)
	}
	sv, ok := f.Variable(hashing.Digest{7})
	if !ok {
		t.Fatal("the seventh array is not indexed")
	}
	got, err := f.ReadVariable(sv, nil)
	if err != nil {
		t.Fatalf("reading an array after its dataset was closed: %v", err)
	}
	if got[0] != 7 {
		t.Errorf("read back first byte %d, want 7", got[0])
	}
}

// A sync returns a metadata cache HDF5 grew to its initial size: HDF5 1.10's flush walks
// every entry of the cache, so a cache a bulk load grew to 22 MiB made each later durable
// write pay for it.
func TestSyncTrimsAGrownMetadataCache(t *testing.T) {
	f := newH5WrittenFile(t)
	initial, err := f.MetadataCacheForTesting()
	if err != nil || initial == 0 {
		t.Fatalf("metadata cache %d, %v", initial, err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := f.Counters().MetadataCacheTrims; n != 0 {
		t.Fatalf("%d trims of a cache at its initial size", n)
	}
	if err := f.GrowMetadataCacheForTesting(4 * initial); err != nil {
		t.Fatal(err)
	}
	if grown, _ := f.MetadataCacheForTesting(); grown != 4*initial {
		t.Fatalf("cache %d after growing it to %d", grown, 4*initial)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.MetadataCacheForTesting(); got != initial {
		t.Errorf("cache %d bytes after the sync, want its initial %d", got, initial)
	}
	if n := f.Counters().MetadataCacheTrims; n != 1 {
		t.Errorf("%d trims, want 1", n)
	}
}

// newH5WrittenFile creates a store file for the test, closed at its end.
func newH5WrittenFile(t *testing.T) *File {
	t.Helper()
	f, err := Create(filepath.Join(t.TempDir(), "s.nc"), DefaultCompression, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
