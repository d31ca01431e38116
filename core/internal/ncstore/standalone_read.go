// Reading many standalone spans at once: whole chunks read as stored and decoded on the
// workers.

package ncstore

import (
	"errors"
	"fmt"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// SpanRead is one span ReadSpans reads: N entries from First along Axis of a standalone
// variable, every other axis whole. Out receives the span's bytes, laid out as ReadSpan
// returns them.
type SpanRead struct {
	Var            *Variable
	Axis, First, N int
	Out            []byte
}

// ReadSpans does ReadSpan for every read. In a read-only file, a span that is exactly one
// chunk of its variable is read as stored (H5Dread_chunk) on this goroutine and decoded on
// chunkpipe's workers: a ForecastReader's first window reads one block of every forecast,
// and HDF5 decoded them one after another on the caller's thread. The other spans, and
// chunks this package does not decode (pipelineFor), go through HDF5.
func (f *File) ReadSpans(reads []SpanRead) error {
	serial.Lock()
	defer serial.Unlock()
	direct := make([]int, 0, len(reads))
	pipes := make([]chunkpipe.Pipeline, len(reads))
	for i := range reads {
		p, ok, err := f.spanPipeline(&reads[i])
		if err != nil {
			return err
		}
		if ok {
			direct, pipes[i] = append(direct, i), p
			continue
		}
		if err := f.readSpanLocked(&reads[i]); err != nil {
			return err
		}
	}
	return f.readSpanChunks(reads, direct, pipes)
}

// readSpanLocked reads r through HDF5; the caller holds the lock. An error names the
// variable, as HDF5's own does not.
func (f *File) readSpanLocked(r *SpanRead) (err error) {
	start, count := spanHyperslab(r.Var, r.Axis, r.First, r.N)
	if r.Out, err = f.readHyperslabLocked(r.Var, start, count, nil); err != nil {
		return wrapIO("read", err, "reading %d entries from %d of %s", r.N, r.First, r.Var.name)
	}
	return nil
}

// spanBytes is the size of r's span.
func spanBytes(r *SpanRead) int {
	return ElementCount(FromU64(r.Var.shape)) / max(int(r.Var.shape[r.Axis]), 1) * r.N * r.Var.dtype.Width()
}

// spanPipeline is how r's one chunk is encoded, or false when r is not exactly one chunk of
// its variable (the last, partial block of windows is not), the file is writable (see
// canReadDirect) or the chunk's filters are not ones this package decodes.
func (f *File) spanPipeline(r *SpanRead) (chunkpipe.Pipeline, bool, error) {
	if !f.readOnly {
		return chunkpipe.Pipeline{}, false, nil
	}
	chunks, err := f.chunkShape(r.Var)
	if err != nil {
		return chunkpipe.Pipeline{}, false, err
	}
	for a, c := range chunks {
		whole := r.Var.shape[a]
		if a == r.Axis {
			whole = uint64(r.N)
		}
		if c != whole || (a == r.Axis && r.First%max(r.N, 1) != 0) {
			return chunkpipe.Pipeline{}, false, nil
		}
	}
	if r.Var.pipe != nil {
		return *r.Var.pipe, r.Var.pipeOK, nil
	}
	id, err := f.openStandaloneLocked(r.Var)
	if err != nil {
		return chunkpipe.Pipeline{}, false, err
	}
	p, ok := pipelineFor(f.h5.sets[id], r.Var.dtype.Width(), chunks)
	r.Var.pipe, r.Var.pipeOK = &p, ok
	return p, ok, nil
}

// storedSpan is one slot's memory in readSpanChunks: a chunk as stored, with its mask.
type storedSpan struct {
	stored  []byte
	mask    uint32
	scratch chunkpipe.Scratch
}

// readSpanChunks reads the chunks of reads[direct[k]] as stored and decodes them on the
// workers; a chunk left to HDF5 (never written, or a stored size out of bounds) is read
// through it instead. The caller holds the lock.
func (f *File) readSpanChunks(reads []SpanRead, direct []int, pipes []chunkpipe.Pipeline) error {
	slots := make([]storedSpan, chunkpipe.Window())
	return chunkpipe.Fanout(len(direct), func(slot, k int) error {
		r := &reads[direct[k]]
		g := &slots[slot]
		b, mask, err := f.storedSpan(r, g.stored)
		if errors.Is(err, errLeaveToHDF5) {
			g.stored = g.stored[:0]
			return f.readSpanLocked(r)
		}
		if err != nil {
			return err
		}
		g.stored, g.mask = b, mask
		return nil
	}, func(slot, k int) error {
		r := &reads[direct[k]]
		g := &slots[slot]
		if len(g.stored) == 0 { // read through HDF5 above
			return nil
		}
		r.Out = AlignedBytes(spanBytes(r))
		if err := pipes[direct[k]].Decode(g.stored, g.mask, r.Out, &g.scratch); err != nil {
			return newErr(IO, "read", r.Var.name, "chunk at %d: %v", r.First, err)
		}
		return nil
	})
}

// storedSpan reads r's chunk as stored into buf's memory (grown as needed), with its filter
// mask; errLeaveToHDF5 when it was never written or stores more than twice its bytes (as
// maxStored bounds a row chunk). The caller holds the lock.
func (f *File) storedSpan(r *SpanRead, buf []byte) ([]byte, uint32, error) {
	id, err := f.openStandaloneLocked(r.Var) // open again when the open-dataset bound closed it
	if err != nil {
		return nil, 0, err
	}
	offset := make([]uint64, len(r.Var.shape))
	offset[r.Axis] = uint64(r.First)
	return f.storedChunk(f.h5.sets[id], offset, 2*spanBytes(r)+64, buf,
		func() string { return fmt.Sprintf("the chunk at %d of %s", r.First, r.Var.name) })
}
