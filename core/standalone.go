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
	name  string
	varid int
	dtype DType
	shape []uint64
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

// writeStandalone stores arr as arr_{hex} unless it is already there, chunked as given
// (nil: one whole-array chunk). It reports whether it defined a new variable.
//
// Removing a standalone array leaves its variable in the file (netcdf cannot delete a
// variable, on-disk-format.md "Deletion and compaction"), so the index keeps it too: its
// content still matches its name, and a later add of the same content reuses it instead of
// colliding with the name.
func (f *ncFile) writeStandalone(arr TypedArray, d hashing.Digest, chunks []uint64) (bool, error) {
	ncshim.Lock()
	defer ncshim.Unlock()
	return f.writeStandaloneLocked(arr, d, chunks)
}

func (f *ncFile) writeStandaloneLocked(arr TypedArray, d hashing.Digest, chunks []uint64) (bool, error) {
	if _, ok := f.standalone[d]; ok {
		return false, nil
	}
	name := standaloneName(d)
	shape := toU64(arr.Shape)
	if chunks == nil {
		chunks = shape
	}
	dims := make([]netcdf.Dim, len(shape))
	for i, n := range shape {
		dim, err := f.grp.AddDim(fmt.Sprintf("%s_d%d", name, i), n)
		if err != nil {
			return false, err
		}
		dims[i] = dim
	}
	v, err := f.grp.AddVar(name, arr.DType.ncType(), dims)
	if err != nil {
		return false, err
	}
	varid, err := ncshim.VarID(f.grp, name)
	if err != nil {
		return false, err
	}
	if err := ncshim.DefChunking(f.grp, varid, chunks); err != nil {
		return false, err
	}
	if err := f.applyCompression(v); err != nil {
		return false, err
	}
	// Whole chunks are written and read at once; a cache would only retain memory until
	// the file closes (see openWithStandaloneCache).
	if err := ncshim.SetVarChunkCache(f.grp, varid, 0, 1, 1.0); err != nil {
		return false, err
	}
	start := make([]uint64, len(shape))
	if err := ioSlice(v, arr.DType, aligned(arr.Data, arr.DType.Width()), start, shape, true); err != nil {
		return false, err
	}
	f.standalone[d] = &standaloneVar{name: name, varid: varid, dtype: arr.DType, shape: shape}
	return true, nil
}

// readStandalone reads the hyperslab [start, start+count) of a standalone array.
func (f *ncFile) readStandalone(sv *standaloneVar, start, count []uint64) ([]byte, error) {
	ncshim.Lock()
	defer ncshim.Unlock()
	buf := alignedBytes(elementCount(fromU64(count)) * sv.dtype.Width())
	if err := ioSlice(f.grp.VarN(sv.varid), sv.dtype, buf, start, count, false); err != nil {
		return nil, err
	}
	return buf, nil
}
