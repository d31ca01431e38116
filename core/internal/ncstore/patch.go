package ncstore

import (
	"errors"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
)

// Patching row chunks (docs/architecture.md "Chunks on every core"): a write of some columns
// of a packed dataset (one-at-a-time adds into a dataset with free columns) changes every row
// chunk of the dataset. HDF5's own pipeline inflates those chunks into its chunk cache, where
// the unit's later writes change them again for free, and deflates them one after the other on
// the calling thread when the unit syncs. A unit's last write, which a Sync follows, gains
// nothing from the cache: there the stored chunks are read as they are, decoded, changed and
// encoded again on chunkpipe's workers, and written back whole, as writeRowChunks writes new
// datasets. Earlier writes of a unit stay HDF5's: patching each of them would encode every
// chunk once per write instead of once per unit.

// WriteArraysBeforeSync is WriteArrays for a unit's last write, which Sync follows: columns
// written into datasets that hold others are patched on the workers.
func (f *File) WriteArraysBeforeSync(ps []*Array) ([]ArrayKey, error) {
	f.lastWrite = true
	defer func() { f.lastWrite = false }()
	return f.WriteArrays(ps)
}

// minPatchBytes is the smallest dataset (rows × row bytes) patched here: below it HDF5's
// pipeline costs less than flushing the dataset's cached chunks and waking the workers.
const minPatchBytes = 64 << 10

// patchRows rewrites every row chunk of ds with change(row, t) applied to row t decoded
// (every column, row-major); change must only touch its own row. false, with nothing
// written, when ds is not patched here (not a unit's last write, another pipeline, too
// small, a row never written or stored oddly): the caller writes through HDF5. A row group
// at a time (about itemBytes of rows): this goroutine reads the group's stored chunks, the
// workers decode, change and encode them, and this goroutine writes them. Should a later
// group hold a row HDF5 must handle, false comes back with the earlier groups written: the
// caller's HDF5 write then writes the same values into them again. The caller holds the
// lock.
func (f *File) patchRows(ds *Packed, change func(row []byte, t int)) (bool, error) {
	p, ok := f.pipelineOf(ds)
	rowBytes, length := ds.cols*ds.elementBytes(), ds.fam.length
	if !ok || !f.lastWrite || f.noPatch || length*rowBytes < minPatchBytes {
		return false, nil
	}
	set := f.h5.sets[ds.varid]
	// Chunks HDF5 changed in its cache reach the file first, so that the stored chunks read
	// below are the current ones; writing a chunk directly drops HDF5's cached copy.
	if err := set.Flush(); err != nil {
		return false, wrapIO("write", err, "flushing %s", ds.name)
	}
	k := min(rowsPerItem(rowBytes), length)
	stored, masks := make([][]byte, k), make([]uint32, k)
	encoded := make([]byte, k*p.Bound(rowBytes))
	out := make([][]byte, k)
	offset := make([]uint64, 2+len(ds.eshape))
	for lo := 0; lo < length; lo += k {
		hi := min(lo+k, length)
		for t := lo; t < hi; t++ {
			b, mask, err := f.storedRow(ds, set, offset, t, stored[t-lo])
			if errors.Is(err, errLeaveToHDF5) {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			stored[t-lo], masks[t-lo] = b, mask
		}
		_, err := chunkpipe.Split(hi-lo, 2, func(a, b int) (int, error) {
			return patchRange(p, ds, lo+a, lo+b, lo, stored, masks, encoded, out, change)
		})
		if err != nil {
			return false, err
		}
		if lo == 0 { // counted once something is written: a new dataset's probe writes nothing
			f.ncWrites++
			f.colCache.reset() // its blocks may hold the bytes this write replaces
		}
		for t := lo; t < hi; t++ {
			offset[0] = uint64(t)
			if err := set.WriteChunk(offset, masks[t-lo], out[t-lo]); err != nil {
				return false, wrapIO("write", err, "writing row %d of %s", t, ds.name)
			}
			f.directChunks++
		}
	}
	return true, nil
}

// patchRange decodes, changes and encodes rows [from, to) of a group starting at row lo, on
// one worker: stored[t-lo] holds row t as stored and comes back encoded in out[t-lo] (in
// encoded's memory, Bound bytes a row), with its mask in masks[t-lo]. It returns the first
// row that failed to decode (as t-lo), or −1.
func patchRange(p chunkpipe.Pipeline, ds *Packed, from, to, lo int, stored [][]byte, masks []uint32,
	encoded []byte, out [][]byte, change func(row []byte, t int)) (int, error) {
	rowBytes := ds.cols * ds.elementBytes()
	bound := p.Bound(rowBytes)
	row := AlignedBytes(rowBytes)
	var scratch chunkpipe.Scratch
	for t := from; t < to; t++ {
		i := t - lo
		if err := p.Decode(stored[i], masks[i], row, &scratch); err != nil {
			return i, newErr(IO, "write", "", "row %d of %s: %v", t, ds.name, err)
		}
		change(row, t)
		out[i], masks[i] = p.Encode(row, encoded[i*bound:(i+1)*bound], &scratch)
	}
	return -1, nil
}
