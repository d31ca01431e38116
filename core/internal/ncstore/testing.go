package ncstore

import (
	"syscall"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// Hooks for the store's tests, which reach the file's failure paths through them. Nothing
// else calls them.

// FailForTesting marks the journalled file failed as a write failing with errno would (see
// journal.Journal.FailForTesting); it reports false when the file is not journalled.
func (f *File) FailForTesting(errno syscall.Errno) bool {
	if f.journal == nil {
		return false
	}
	f.journal.FailForTesting(errno)
	return true
}

// PoisonForTesting makes the next write of the standalone array d fail, as an I/O error
// would: d is taken for a variable left by an earlier session whose shape disagrees.
func (f *File) PoisonForTesting(d hashing.Digest) {
	f.untrusted[d] = &Variable{name: "arr_poisoned", dtype: I64, shape: []uint64{1}}
}

// DefineOnlyForTesting defines a's standalone variable and leaves define mode without writing
// its data, as a crash in the middle of a write would leave it.
func (f *File) DefineOnlyForTesting(a *Array) error {
	serial.Lock()
	defer serial.Unlock()
	if _, err := f.defineStandalone(a.DType, ToU64(a.Shape), a.Digest, a.Chunks); err != nil {
		return err
	}
	return f.endDefine()
}

// AssumeChunkCacheForTesting sets what the read cache assumes of HDF5's chunk caches: with on
// false every packed dataset is taken as too large for its own, so a block is read on the
// first whole-column miss; with on true, the default, datasets up to packedCacheCap fit.
func (f *File) AssumeChunkCacheForTesting(on bool) {
	f.colCache.chunkCached = 0
	if on {
		f.colCache.chunkCached = packedCacheCap
	}
}

// OpenDatasetsForTesting counts the HDF5 datasets the file holds open.
func (f *File) OpenDatasetsForTesting() int {
	serial.Lock()
	defer serial.Unlock()
	return f.h5.file.OpenDatasets()
}

// MetadataCacheForTesting is the maximum size in bytes of HDF5's metadata cache for a
// writable file (0 for a read-only one).
func (f *File) MetadataCacheForTesting() (uint64, error) {
	if f.readOnly {
		return 0, nil
	}
	serial.Lock()
	defer serial.Unlock()
	return f.h5.file.MetadataCacheSize()
}

// GrowMetadataCacheForTesting sets HDF5's metadata cache for a file written through HDF5 to
// bytes, as a bulk load grows it.
func (f *File) GrowMetadataCacheForTesting(bytes uint64) error {
	serial.Lock()
	defer serial.Unlock()
	return f.h5.file.GrowMetadataCacheForTesting(bytes)
}

// SetMaxOpenStandaloneForTesting bounds the standalone datasets a file read through HDF5
// keeps open, and returns the bound it replaces.
func SetMaxOpenStandaloneForTesting(n int) int {
	old := maxOpenStandalone
	maxOpenStandalone = n
	return old
}

// PatchRowsForTesting turns the patching of row chunks (patch.go) on or off; off, writes of
// some columns go through HDF5's own pipeline, as the tests' reference.
func (f *File) PatchRowsForTesting(on bool) { f.noPatch = !on }
