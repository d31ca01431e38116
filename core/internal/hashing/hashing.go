// Package hashing computes the two content addresses of the on-disk format (docs/format.md §6).
// The byte sequences hashed here are part of the format: another implementation must arrive
// at the same digests, so nothing in this file may change for convenience.
package hashing

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"sort"
)

// Digest is a raw SHA-256 digest, as stored in the catalog's BLOB columns.
type Digest [32]byte

const (
	canonicalNaN64 = 0x7ff8000000000000
	canonicalNaN32 = 0x7fc00000
)

// FloatKind says how elements are canonicalised before hashing.
type FloatKind int

const (
	NotFloat FloatKind = iota
	Float32
	Float64
)

// Array hashes a typed array: the dtype name and a NUL, the rank and dimensions of the full
// shape as u64 LE, then the little-endian element bytes with every NaN replaced by the
// canonical quiet NaN so that NaN payloads do not split otherwise equal arrays.
func Array(dtypeName string, shape []uint64, data []byte, kind FloatKind) Digest {
	if n := len(dtypeName) + 1 + 8*(1+len(shape)) + len(data); n <= smallArray {
		// A small array (a day of hourly values is 192 bytes) is hashed in one call over a
		// stack buffer holding exactly the bytes the incremental hasher feeds: no allocation.
		var buf [smallArray]byte
		return sha256.Sum256(appendArrayMessage(buf[:0], dtypeName, shape, data, kind))
	}
	h := NewArrayHasher(dtypeName, shape, kind)
	h.Write(data)
	return h.Sum()
}

// smallArray bounds the message Array hashes from a stack buffer.
const smallArray = 2048

// appendArrayMessage appends the whole hashed message of an array: the header
// NewArrayHasher writes, then the elements, NaNs canonicalised as writeWhole does.
func appendArrayMessage(b []byte, dtypeName string, shape []uint64, data []byte, kind FloatKind) []byte {
	b = append(b, dtypeName...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(shape)))
	for _, d := range shape {
		b = binary.LittleEndian.AppendUint64(b, d)
	}
	start := len(b)
	b = append(b, data...)
	els := b[start:]
	// Most arrays hold no NaN: the word-at-a-time scans find that before any element is
	// rewritten (the per-element loop cost as much as the SHA-256 of a day of values).
	switch kind {
	case Float64:
		for i := firstNaN64(els) &^ 7; i+8 <= len(els); i += 8 {
			if v := binary.LittleEndian.Uint64(els[i:]); math.IsNaN(math.Float64frombits(v)) {
				binary.LittleEndian.PutUint64(els[i:], canonicalNaN64)
			}
		}
	case Float32:
		for i := firstNaN32(els) &^ 3; i+4 <= len(els); i += 4 {
			if v := binary.LittleEndian.Uint32(els[i:]); math.IsNaN(float64(math.Float32frombits(v))) {
				binary.LittleEndian.PutUint32(els[i:], canonicalNaN32)
			}
		}
	}
	return b
}

// ArrayHasher computes Array incrementally: the elements may arrive in pieces (whole
// elements each), in row-major order.
type ArrayHasher struct {
	h     hash.Hash
	kind  FloatKind
	carry []byte // the start of an element split across two writes
}

// NewArrayHasher starts the hash of an array of the given dtype and full shape.
func NewArrayHasher(dtypeName string, shape []uint64, kind FloatKind) *ArrayHasher {
	h := sha256.New()
	var word [8]byte
	h.Write([]byte(dtypeName))
	h.Write([]byte{0})
	binary.LittleEndian.PutUint64(word[:], uint64(len(shape)))
	h.Write(word[:])
	for _, d := range shape {
		binary.LittleEndian.PutUint64(word[:], d)
		h.Write(word[:])
	}
	return &ArrayHasher{h: h, kind: kind}
}

// Write adds the next bytes of the elements; a piece may end in the middle of an element.
func (a *ArrayHasher) Write(data []byte) {
	width := 0
	switch a.kind {
	case Float64:
		width = 8
	case Float32:
		width = 4
	}
	if width == 0 {
		a.h.Write(data)
		return
	}
	if len(a.carry) > 0 {
		n := min(width-len(a.carry), len(data))
		a.carry = append(a.carry, data[:n]...)
		data = data[n:]
		if len(a.carry) < width {
			return
		}
		a.writeWhole(a.carry)
		a.carry = a.carry[:0]
	}
	whole := len(data) - len(data)%width
	a.writeWhole(data[:whole])
	a.carry = append(a.carry, data[whole:]...)
}

func (a *ArrayHasher) writeWhole(data []byte) {
	switch a.kind {
	case Float64:
		writeCanonicalRuns(a.h, data, 8, firstNaN64, canonicalNaN64Bytes[:])
	case Float32:
		writeCanonicalRuns(a.h, data, 4, firstNaN32, canonicalNaN32Bytes[:])
	default:
		a.h.Write(data)
	}
}

var canonicalNaN64Bytes = [8]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}
var canonicalNaN32Bytes = [4]byte{0, 0, 0xc0, 0x7f}

// writeCanonicalRuns feeds data to w as it is up to each NaN and the canonical NaN in its
// place (data holds whole elements), so the caller's bytes are neither modified nor copied (an array without NaN is one
// Write: no scratch buffer, no call per element).
func writeCanonicalRuns(w interface{ Write([]byte) (int, error) }, data []byte, width int, firstNaN func([]byte) int, nan []byte) {
	for len(data) > 0 {
		i := firstNaN(data)
		if i > 0 {
			w.Write(data[:i])
		}
		if i == len(data) {
			return
		}
		w.Write(nan)
		data = data[i+width:]
	}
}

// firstNaN64 is the byte offset of the first NaN among the f64 elements of b, else len(b).
func firstNaN64(b []byte) int {
	const abs, inf = 0x7fffffffffffffff, 0x7ff0000000000000
	i := 0
	for ; i+32 <= len(b); i += 32 { // four at a time: one branch per 32 bytes
		w := b[i : i+32]
		m := max(binary.LittleEndian.Uint64(w)&abs, binary.LittleEndian.Uint64(w[8:])&abs,
			binary.LittleEndian.Uint64(w[16:])&abs, binary.LittleEndian.Uint64(w[24:])&abs)
		if m > inf {
			break
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x7fffffffffffffff > 0x7ff0000000000000 {
			return i
		}
	}
	return len(b)
}

// firstNaN32 is the byte offset of the first NaN among the f32 elements of b, else len(b).
func firstNaN32(b []byte) int {
	for i := 0; i+4 <= len(b); i += 4 {
		if binary.LittleEndian.Uint32(b[i:])&0x7fffffff > 0x7f800000 {
			return i
		}
	}
	return len(b)
}

// Sum returns the digest of everything written.
func (a *ArrayHasher) Sum() Digest {
	var d Digest
	a.h.Sum(d[:0])
	return d
}

// FeatureKind is the one-byte tag of a feature value in the features hash.
type FeatureKind byte

const (
	KindInt   FeatureKind = 'i'
	KindFloat FeatureKind = 'f'
	KindBool  FeatureKind = 'b'
	KindStr   FeatureKind = 's'
)

// CanonicalNaN64 is the quiet NaN every f64 NaN is hashed as.
func CanonicalNaN64() float64 { return math.Float64frombits(canonicalNaN64) }

// Feature is one entry of a feature map as the hash sees it.
type Feature struct {
	Key   string
	Kind  FeatureKind
	Int   int64
	Float float64
	Bool  bool
	Str   string
}

// Features hashes a feature map: "features" and a NUL, the entry count, then each entry in
// ascending byte order of its key. The empty map has a digest too, because the features hash
// is part of every series' identity.
func Features(entries []Feature) Digest {
	sorted := append([]Feature(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Key < sorted[j].Key })
	h := sha256.New()
	var word [8]byte
	putU64 := func(v uint64) {
		binary.LittleEndian.PutUint64(word[:], v)
		h.Write(word[:])
	}
	h.Write([]byte("features\x00"))
	putU64(uint64(len(sorted)))
	for _, e := range sorted {
		putU64(uint64(len(e.Key)))
		h.Write([]byte(e.Key))
		h.Write([]byte{byte(e.Kind)})
		switch e.Kind {
		case KindInt:
			putU64(uint64(e.Int))
		case KindFloat:
			bits := math.Float64bits(e.Float)
			if math.IsNaN(e.Float) {
				bits = canonicalNaN64
			}
			putU64(bits)
		case KindBool:
			b := byte(0)
			if e.Bool {
				b = 1
			}
			h.Write([]byte{b})
		case KindStr:
			putU64(uint64(len(e.Str)))
			h.Write([]byte(e.Str))
		}
	}
	var d Digest
	h.Sum(d[:0])
	return d
}
