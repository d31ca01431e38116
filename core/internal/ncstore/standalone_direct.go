package ncstore

import (
	"slices"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
)

// Standalone arrays whose variable is one chunk (docs/format.md §7.5: a NonSequential array,
// a forecast whose windows fit one block) are encoded on chunkpipe's workers and written
// whole with H5Dwrite_chunk, as a batch's packed rows are (direct.go); the bytes are those
// Encode makes of any chunk (format §7.9).

// directStandaloneMax bounds the arrays written as one encoded chunk: a larger one (a
// NonSequential array is one chunk whatever its size) goes through HDF5's pipeline, so that
// each worker's slots stay within a few MiB.
const directStandaloneMax = 4 << 20

// standaloneWrite is one array bound for its standalone variable.
type standaloneWrite struct {
	p  *Array
	sv *Variable
}

// encodedArray is one slot's memory in fillStandalones.
type encodedArray struct {
	enc     []byte
	out     []byte
	mask    uint32
	scratch chunkpipe.Scratch
}

// fillStandalones writes each array into its defined variable, in order, and calls done
// after each: encoded on the workers and written as one chunk where standalonePipeline
// allows, else through HDF5's pipeline on this goroutine. The caller holds the lock.
func (f *File) fillStandalones(ws []standaloneWrite, done func(standaloneWrite)) error {
	pipes := make([]chunkpipe.Pipeline, len(ws))
	direct := make([]bool, len(ws))
	for i, w := range ws {
		var err error
		if pipes[i], direct[i], err = f.standalonePipeline(w); err != nil {
			return err
		}
	}
	slots := make([]encodedArray, chunkpipe.Window())
	return chunkpipe.Ordered(len(ws), func(slot, i int) error {
		if !direct[i] {
			return nil
		}
		g, raw := &slots[slot], ws[i].p.Data
		need := pipes[i].Bound(len(raw))
		if cap(g.enc) < need {
			g.enc = make([]byte, need)
		}
		g.out, g.mask = pipes[i].Encode(raw, g.enc[:need], &g.scratch)
		return nil
	}, func(slot, i int) error {
		w := ws[i]
		if !direct[i] {
			if err := f.fillStandalone(w.sv, w.p.Data, w.p.Digest); err != nil {
				return err
			}
			done(w)
			return nil
		}
		id, err := f.openStandaloneLocked(w.sv) // open again: at most maxOpenStandalone stay open
		if err != nil {
			return err
		}
		offset := make([]uint64, len(w.sv.shape))
		if err := f.h5.sets[id].WriteChunk(offset, slots[slot].mask, slots[slot].out); err != nil {
			return wrapIO("write", err, "writing %s", w.sv.name)
		}
		f.directChunks++
		f.standalone[w.p.Digest] = w.sv
		done(w)
		return nil
	})
}

// standalonePipeline is how w's array is encoded as its variable's one chunk, or false when
// it goes through HDF5: too large, a variable of several chunks, or a pipeline this package
// does not encode (pipelineFor).
func (f *File) standalonePipeline(w standaloneWrite) (chunkpipe.Pipeline, bool, error) {
	width := w.sv.dtype.Width()
	if len(w.p.Data) == 0 || len(w.p.Data) > directStandaloneMax ||
		len(w.p.Data) != ElementCount(FromU64(w.sv.shape))*width ||
		(w.sv.chunks != nil && !slices.Equal(w.sv.chunks, w.sv.shape)) {
		return chunkpipe.Pipeline{}, false, nil
	}
	id, err := f.openStandaloneLocked(w.sv)
	if err != nil {
		return chunkpipe.Pipeline{}, false, err
	}
	p, ok := pipelineFor(f.h5.sets[id], width, w.sv.shape)
	return p, ok, nil
}
