package core

import (
	"encoding/hex"
	"fmt"

	"github.com/fhs/go-netcdf/netcdf"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncshim"
)

// standaloneVar is one arr_{hex} variable: a whole array of its own.
type standaloneVar struct {
	name   string
	varid  int
	dtype  DType
	shape  []uint64
	chunks []uint64 // nil until known: read lazily, as asking opens the HDF5 dataset
}

// chunkShape is the variable's chunk shape (its full shape when it is not chunked).
func (f *ncFile) chunkShape(sv *standaloneVar) ([]uint64, error) {
	if sv.chunks == nil {
		chunked, chunks, err := ncshim.Chunking(f.grp, sv.varid, len(sv.shape))
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

func standaloneName(d hashing.Digest) string { return "arr_" + hex.EncodeToString(d[:]) }

// indexStandalone adds an arr_{hex} variable found on open. Its name is its hash, so a name
// that is not 64 lowercase hex digits, or a type that is no dtype, is an IntegrityError.
func (f *ncFile) indexStandalone(name string, varid int) error {
	d, err := parseHexDigest(name[4:])
	if err != nil {
		return newErr(ErrIntegrity, "open", name, "standalone variable name is not arr_ and a hash: %v", err)
	}
	lens, typ, err := ncshim.VarDimLens(f.grp, varid)
	if err != nil {
		return wrapIO("open", err, "reading dimensions of %s", name)
	}
	dt, ok := dtypeForNC(typ)
	if !ok {
		return newErr(ErrIntegrity, "open", name, "netcdf type %v is not one of the six dtypes", typ)
	}
	if len(lens) == 0 {
		return newErr(ErrIntegrity, "open", name, "standalone array has no dimensions")
	}
	f.standalone[d] = &standaloneVar{name: name, varid: varid, dtype: dt, shape: lens}
	return nil
}

// defineStandalone defines arr_{hex} for an array, chunked as given (nil: one whole-array
// chunk). The caller writes it with fillStandalone once define mode is left.
//
// Removing a standalone array leaves its variable in the file (netcdf cannot delete a
// variable, docs/format.md §8), so the index keeps it too: its content still matches its
// name, and a later add of the same content reuses it instead of colliding with the name
// (docs/format.md §13.9).
func (f *ncFile) defineStandalone(dt DType, shape []uint64, d hashing.Digest, chunks []uint64) (*standaloneVar, error) {
	name := standaloneName(d)
	if chunks == nil {
		chunks = shape
	}
	f.defining = true
	dims := make([]netcdf.Dim, len(shape))
	for i, n := range shape {
		dim, err := f.grp.AddDim(fmt.Sprintf("%s_d%d", name, i), n)
		if err != nil {
			return nil, err
		}
		dims[i] = dim
	}
	v, err := f.grp.AddVar(name, dt.ncType(), dims)
	if err != nil {
		return nil, err
	}
	varid, err := ncshim.VarID(f.grp, name)
	if err != nil {
		return nil, err
	}
	if err := ncshim.DefChunking(f.grp, varid, chunks); err != nil {
		return nil, err
	}
	if err := f.applyCompression(v); err != nil {
		return nil, err
	}
	// Reads and writes move whole chunks (blocks) at once; a cache would only retain memory
	// until the file closes (see openWithStandaloneCache).
	if err := ncshim.SetVarChunkCache(f.grp, varid, 0, 1, 1.0); err != nil {
		return nil, err
	}
	return &standaloneVar{name: name, varid: varid, dtype: dt, shape: shape, chunks: chunks}, nil
}

// fillStandalone writes the whole array into a defined variable and indexes it.
func (f *ncFile) fillStandalone(sv *standaloneVar, data []byte, d hashing.Digest) error {
	start := make([]uint64, len(sv.shape))
	if err := ioSlice(f.grp, sv.varid, sv.dtype, aligned(data, sv.dtype.Width()), start, sv.shape, true); err != nil {
		return err
	}
	f.standalone[d] = sv
	return nil
}

// readStandalone reads the hyperslab [start, start+count) of a standalone array.
func (f *ncFile) readStandalone(sv *standaloneVar, start, count []uint64, dst []byte) ([]byte, error) {
	ncshim.Lock()
	defer ncshim.Unlock()
	chunks, err := f.chunkShape(sv)
	if err != nil {
		return nil, err
	}
	f.chunkReads += chunksTouched(chunks, start, count)
	buf := into(dst, elementCount(fromU64(count))*sv.dtype.Width())
	if err := ioSlice(f.grp, sv.varid, sv.dtype, buf, start, count, false); err != nil {
		return nil, err
	}
	return buf, nil
}
