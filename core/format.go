package core

import "github.com/tsstore/tsstore/core/internal/ncstore"

// DType is an element type with the stable code of docs/format.md §2. The codes are shared
// with the C ABI and the bindings and never change. It is defined beside the NetCDF layout
// (core/internal/ncstore), which maps each code to its netCDF type; its methods are String
// (the name, "f64" …), Width (bytes per element) and Valid.
type DType = ncstore.DType

const (
	F64  = ncstore.F64
	F32  = ncstore.F32
	I64  = ncstore.I64
	I32  = ncstore.I32
	U64  = ncstore.U64
	Bool = ncstore.Bool // one byte per element, 0 or 1, stored as NC_UBYTE
)

// ParseDType maps a dtype name ("f64", …) to its DType.
func ParseDType(name string) (DType, error) {
	d, err := ncstore.ParseDType(name)
	if err != nil {
		return 0, invalid("", ArgDType, "%v", err)
	}
	return d, nil
}

// Compression is the filter policy of a store, fixed at creation (docs/format.md §7.7).
// The zero value is no compression; String is the attribute's spelling, e.g.
// "deflate:3:shuffle". It is defined beside the NetCDF layout (core/internal/ncstore).
type Compression = ncstore.Compression

// DefaultCompression is deflate level 3 with the byte-shuffle filter.
var DefaultCompression = ncstore.DefaultCompression

// ParseCompression reads the attribute grammar: none | deflate:{0-9}:shuffle|noshuffle.
func ParseCompression(s string) (Compression, error) {
	c, err := ncstore.ParseCompression(s)
	if err != nil {
		return Compression{}, invalid("parse_compression", ArgCompression, "%v", err)
	}
	return c, nil
}

// DataFormatVersion is the on-disk format this build reads and writes. Opening a store
// recorded with any other version fails with ErrIncompatibleFormat (exact equality).
const DataFormatVersion = ncstore.DataFormatVersion

const (
	// DefaultColsPerDataset is the width of a packed dataset created by a one-at-a-time
	// write (docs/format.md §7.3).
	DefaultColsPerDataset = ncstore.DefaultColsPerDataset
	// MaxChunkBytes caps one HDF5 chunk (docs/format.md §7.3, §7.5).
	MaxChunkBytes = ncstore.MaxChunkBytes
	// DefaultReadCacheBytes bounds the decoded column blocks a store keeps (SetReadCache).
	DefaultReadCacheBytes = ncstore.DefaultReadCacheBytes
)
