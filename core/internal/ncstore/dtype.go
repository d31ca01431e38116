package ncstore

import (
	"fmt"

	"github.com/tsstore/tsstore/core/internal/hashing"
)

// DType is an element type with the stable code of docs/format.md §2. The codes are shared
// with the C ABI and the bindings and never change.
type DType uint8

const (
	F64  DType = 0
	F32  DType = 1
	I64  DType = 2
	I32  DType = 3
	U64  DType = 4
	Bool DType = 5 // one byte per element, 0 or 1, stored as NC_UBYTE
)

var dtypeInfo = [...]struct {
	name  string
	width int
	float hashing.FloatKind
}{
	F64:  {"f64", 8, hashing.Float64},
	F32:  {"f32", 4, hashing.Float32},
	I64:  {"i64", 8, hashing.NotFloat},
	I32:  {"i32", 4, hashing.NotFloat},
	U64:  {"u64", 8, hashing.NotFloat},
	Bool: {"bool", 1, hashing.NotFloat},
}

// Valid reports whether d is one of the six dtypes.
func (d DType) Valid() bool { return int(d) < len(dtypeInfo) }

// String is the dtype's name as it appears in dataset names, the catalog and the hash.
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return dtypeInfo[d].name
}

// Width is the size of one element in bytes.
func (d DType) Width() int { return dtypeInfo[d].width }

// ParseDType maps a dtype name ("f64", …) to its DType.
func ParseDType(name string) (DType, error) {
	for i, info := range dtypeInfo {
		if info.name == name {
			return DType(i), nil
		}
	}
	return 0, fmt.Errorf("unknown dtype %q (want f64, f32, i64, i32, u64 or bool)", name)
}

// FloatKind is how the content hash treats d's values (docs/format.md §6).
func FloatKind(d DType) hashing.FloatKind { return dtypeInfo[d].float }
