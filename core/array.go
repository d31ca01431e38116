package core

import (
	"unsafe"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// TypedArray is a stored array: an element dtype, a full shape [length, *element_shape]
// whose first axis is time, and the raw row-major little-endian element bytes.
type TypedArray struct {
	DType DType
	Shape []int
	Data  []byte
}

// Element is the set of Go types that map one-to-one onto a dtype.
type Element interface {
	float64 | float32 | int64 | int32 | uint64 | bool
}

func dtypeOf[T Element]() DType {
	var z T
	switch any(z).(type) {
	case float64:
		return F64
	case float32:
		return F32
	case int64:
		return I64
	case int32:
		return I32
	case uint64:
		return U64
	default:
		return Bool
	}
}

// ArrayOf builds a TypedArray from Go values. shape is the full shape; when omitted the
// array is one-dimensional. The values are copied.
//
// The byte copies here and in Values rely on the host being little-endian, which endian.go
// enforces at build time: the format's bytes are then the values' own memory layout.
func ArrayOf[T Element](values []T, shape ...int) TypedArray {
	dt := dtypeOf[T]()
	if len(shape) == 0 {
		shape = []int{len(values)}
	}
	data := ncstore.AlignedBytes(len(values) * dt.Width())
	if bs, ok := any(values).([]bool); ok {
		for i, v := range bs {
			if v {
				data[i] = 1
			}
		}
	} else if len(values) > 0 {
		copy(data, unsafe.Slice((*byte)(unsafe.Pointer(&values[0])), len(data)))
	}
	return TypedArray{DType: dt, Shape: append([]int(nil), shape...), Data: data}
}

// Values decodes a TypedArray into Go values; T must match the array's dtype.
func Values[T Element](a TypedArray) ([]T, error) {
	if dtypeOf[T]() != a.DType {
		return nil, invalid("", ArgDType, "array holds %s, not %s", a.DType, dtypeOf[T]())
	}
	n := len(a.Data) / a.DType.Width()
	out := make([]T, n)
	if bs, ok := any(out).([]bool); ok {
		// Bytes from a file may hold values other than 0 and 1; never reinterpret them.
		for i := range bs {
			bs[i] = a.Data[i] != 0
		}
	} else if n > 0 {
		src := ncstore.Aligned(a.Data, a.DType.Width())
		copy(out, unsafe.Slice((*T)(unsafe.Pointer(&src[0])), n))
	}
	return out, nil
}

// Len is the length of the time axis.
func (a TypedArray) Len() int {
	if len(a.Shape) == 0 {
		return 0
	}
	return a.Shape[0]
}

// ElementShape is the per-step shape (the trailing axes).
func (a TypedArray) ElementShape() []int {
	if len(a.Shape) <= 1 {
		return []int{}
	}
	return append([]int(nil), a.Shape[1:]...)
}

// maxElements bounds any one array so that byte counts never overflow an int.
const maxElements = 1 << 40

// validate checks the array for writing: a known dtype, a non-empty shape with no zero or
// negative axis (a fixed netCDF dimension cannot be 0, docs/format.md §7.6), a byte length
// equal to shape × width, and bools that are 0 or 1.
func (a TypedArray) validate() error {
	if !a.DType.Valid() {
		return invalid("", ArgDType, "unknown dtype code %d", uint8(a.DType))
	}
	if len(a.Shape) == 0 {
		return invalid("", ArgShape, "shape is empty; the first axis is time")
	}
	n := 1
	for i, d := range a.Shape {
		if d <= 0 {
			return invalidIn("", ArgShape, itoa(int64(i)), "axis %d of shape %v is %d; every axis must be at least 1", i, a.Shape, d)
		}
		if n > maxElements/d {
			return invalid("", ArgShape, "shape %v is too large", a.Shape)
		}
		n *= d
	}
	if want := n * a.DType.Width(); len(a.Data) != want {
		return invalid("", ArgData, "%d bytes do not match shape %v of %s (%d elements × %d bytes = %d)",
			len(a.Data), a.Shape, a.DType, n, a.DType.Width(), want)
	}
	if a.DType == Bool {
		for i, b := range a.Data {
			if b > 1 {
				return invalidIn("", ArgData, itoa(int64(i)), "bool element %d is %d; bools are stored as 0 or 1", i, b)
			}
		}
	}
	return nil
}

func (a TypedArray) hash() hashing.Digest {
	shape := make([]uint64, len(a.Shape))
	for i, d := range a.Shape {
		shape[i] = uint64(d)
	}
	return hashing.Array(a.DType.String(), shape, a.Data, ncstore.FloatKind(a.DType))
}
