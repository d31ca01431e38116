package ncstore

import (
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// Variable is one arr_{hex} variable: a whole array of its own.
type Variable struct {
	name   string
	varid  int
	dtype  DType
	shape  []uint64
	chunks []uint64 // nil until known: read lazily, as asking opens the HDF5 dataset
	// pipe is how its one-chunk spans are encoded (spanPipeline), nil until known; pipeOK
	// says whether this package decodes them. Kept so that a ForecastReader's later blocks
	// need not open the dataset to ask again: past maxOpenStandalone open datasets, each
	// block opened every forecast twice.
	pipe   *chunkpipe.Pipeline
	pipeOK bool
	// described says dtype and shape are known: always for netcdf-c's index, from the
	// first read for a file read through HDF5 (h5file.go), whose varid is -1 while its
	// dataset is closed.
	described bool
}

// Name is the variable's name, arr_{hex of its hash}.
func (sv *Variable) Name() string { return sv.name }

// DType is the variable's element type.
func (sv *Variable) DType() DType { return sv.dtype }

// Shape is the variable's whole shape, as netcdf-c counts it (a copy).
func (sv *Variable) Shape() []uint64 { return slices.Clone(sv.shape) }

// Holds says whether the variable is an array of the given dtype and shape: what a catalog
// row claims of the array it names.
func (sv *Variable) Holds(dt DType, shape []int) bool {
	return sv.dtype == dt && slices.Equal(FromU64(sv.shape), shape)
}

// ChunkShape is the variable's chunk shape (its full shape when it is not chunked).
func (f *File) ChunkShape(sv *Variable) ([]uint64, error) {
	serial.Lock()
	defer serial.Unlock()
	return f.chunkShape(sv)
}

// chunkShape is the variable's chunk shape (its full shape when it is not chunked).
func (f *File) chunkShape(sv *Variable) ([]uint64, error) {
	if sv.chunks == nil {
		chunked, chunks, err := f.chunking(sv)
		if err != nil {
			return nil, err
		}
		if !chunked {
			chunks = sv.shape
		}
		sv.chunks = chunks
	}
	return sv.chunks, nil
}

// chunksTouched counts the chunks a hyperslab intersects.
func chunksTouched(chunks, start, count []uint64) int64 {
	n := int64(1)
	for i := range chunks {
		if count[i] == 0 {
			return 0
		}
		c := max(chunks[i], 1)
		n *= int64((start[i]+count[i]-1)/c - start[i]/c + 1)
	}
	return n
}

// WindowChunks is the chunking of a dense forecast of the given dtype and shape, whose
// window axis is axis: full on every other axis, and min(count, max(1, MaxChunkBytes / bytes
// of one window)) windows wide along it (docs/format.md §7.5).
func WindowChunks(dt DType, shape []int, axis int) []uint64 {
	window := dt.Width()
	for i, d := range shape {
		if i != axis {
			window *= d
		}
	}
	chunks := ToU64(shape)
	chunks[axis] = uint64(min(shape[axis], max(1, MaxChunkBytes/max(window, 1))))
	return chunks
}

// VariableName is the name of the standalone variable of the array with digest d: arr_ and
// its hash in lowercase hex (docs/format.md §7.5).
func VariableName(d hashing.Digest) string { return "arr_" + hex.EncodeToString(d[:]) }

// standaloneDimName is the name of axis i's dimension of the standalone variable name.
func standaloneDimName(name string, i int) string { return fmt.Sprintf("%s_d%d", name, i) }

// defineStandalone defines arr_{hex} for an array, chunked as given (nil: one whole-array
// chunk). The caller writes it with fillStandalone once define mode is left.
//
// Removing a standalone array leaves its variable in the file (netcdf cannot delete a
// variable, docs/format.md §8), so the index keeps it too: its content still matches its
// name, and a later add of the same content reuses it instead of colliding with the name
// (docs/format.md §13.9).
func (f *File) defineStandalone(dt DType, shape []uint64, d hashing.Digest, chunks []uint64) (*Variable, error) {
	name := VariableName(d)
	if chunks == nil {
		chunks = shape
	}
	f.defining = true
	sv := &Variable{name: name, varid: -1, dtype: dt, shape: shape, chunks: chunks, described: true}
	return sv, f.defineStandaloneH5(sv)
}

// fillStandalone writes the whole array into a defined variable and indexes it.
func (f *File) fillStandalone(sv *Variable, data []byte, d hashing.Digest) error {
	id, err := f.openStandaloneLocked(sv)
	if err != nil {
		return err
	}
	start := make([]uint64, len(sv.shape))
	if err := f.putSlice(id, sv.dtype, Aligned(data, sv.dtype.Width()), start, sv.shape); err != nil {
		return err
	}
	f.standalone[d] = sv
	return nil
}

// readWholeLocked reads a whole standalone array into new memory.
func (f *File) readWholeLocked(sv *Variable) ([]byte, error) {
	buf := AlignedBytes(ElementCount(FromU64(sv.shape)) * sv.dtype.Width())
	return buf, f.readVariableSlice(sv, buf, make([]uint64, len(sv.shape)), sv.shape)
}

// ReadVariable reads a whole standalone array into dst (new memory when nil).
func (f *File) ReadVariable(sv *Variable, dst []byte) ([]byte, error) {
	return f.ReadSpan(sv, 0, 0, int(sv.shape[0]), dst)
}

// ReadSpan reads the span [first, first+n) along one axis of a standalone array, whole along
// every other axis, into dst (new memory when nil): rows of a NonSequential array (axis 0),
// windows of a dense forecast (its window axis).
func (f *File) ReadSpan(sv *Variable, axis, first, n int, dst []byte) ([]byte, error) {
	start, count := spanHyperslab(sv, axis, first, n)
	return f.readHyperslab(sv, start, count, dst)
}

// spanHyperslab is the start and count of n entries from first along axis, every other axis
// whole.
func spanHyperslab(sv *Variable, axis, first, n int) ([]uint64, []uint64) {
	start := make([]uint64, len(sv.shape))
	count := slices.Clone(sv.shape)
	start[axis], count[axis] = uint64(first), uint64(n)
	return start, count
}

func (f *File) readHyperslab(sv *Variable, start, count []uint64, dst []byte) ([]byte, error) {
	serial.Lock()
	defer serial.Unlock()
	return f.readHyperslabLocked(sv, start, count, dst)
}

// readHyperslabLocked is readHyperslab's work; the caller holds the lock.
func (f *File) readHyperslabLocked(sv *Variable, start, count []uint64, dst []byte) ([]byte, error) {
	chunks, err := f.chunkShape(sv)
	if err != nil {
		return nil, err
	}
	f.chunkReads += chunksTouched(chunks, start, count)
	buf := Into(dst, ElementCount(FromU64(count))*sv.dtype.Width())
	if err := f.readVariableSlice(sv, buf, start, count); err != nil {
		return nil, err
	}
	return buf, nil
}
