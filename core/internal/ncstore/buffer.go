package ncstore

import (
	"unsafe"
)

// The buffers of hyperslab I/O. netcdf-c moves elements in the variable's own type straight
// into or out of them, so they must be aligned for any element type (docs/format.md §2: the
// host is little-endian, so the bytes are the elements' native layout).

// AlignedBytes returns n zeroed bytes aligned for any element type.
func AlignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

// Aligned returns b itself when it is suitably aligned for width, else an aligned copy.
func Aligned(b []byte, width int) []byte {
	if len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%uintptr(width) == 0 {
		return b
	}
	c := AlignedBytes(len(b))
	copy(c, b)
	return c
}

// Into is dst[:n] when the caller gave a destination (a read straight into its memory,
// which the caller has sized), else n new bytes from AlignedBytes.
func Into(dst []byte, n int) []byte {
	if dst == nil {
		return AlignedBytes(n)
	}
	return dst[:n:n]
}

// ElementCount is the product of dims (1 for none).
func ElementCount(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// ToU64 converts a shape to the size_t counts netcdf-c takes.
func ToU64(dims []int) []uint64 {
	out := make([]uint64, len(dims))
	for i, d := range dims {
		out[i] = uint64(d)
	}
	return out
}

// FromU64 converts netcdf-c's dimension lengths back to a shape.
func FromU64(v []uint64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}
