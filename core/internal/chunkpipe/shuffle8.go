package chunkpipe

import (
	"encoding/binary"
	"runtime"
	"slices"
	"unsafe"
)

// wordAccess: the word loads and stores below read a plane's bytes in memory order only on
// a little-endian host, and are unaligned, which only some architectures do in hardware;
// others take the byte loops.
var wordAccess = binary.NativeEndian.Uint16([]byte{1, 0}) == 1 &&
	slices.Contains([]string{"amd64", "arm64", "386", "ppc64le"}, runtime.GOARCH)

// shuffle8 and unshuffle8 are shuffle and unshuffle of n 8-byte elements, eight elements at
// a time: the eight elements and the eight planes' bytes of them are the rows and the columns
// of an 8×8 byte matrix, which transpose8 turns over in twelve masked word operations, where
// the byte loops took 8 loads, 7 shifts and 7 ors an element. Loads and stores go through
// unsafe pointers within the slices' bounds, checked once.
func shuffle8(dst, src []byte, n int) {
	s, d, blocks := wordBlocks(dst, src, n)
	i := 0
	for ; i < blocks; i += 8 {
		e := unsafe.Add(s, i*8)
		r0, r1, r2, r3, r4, r5, r6, r7 := transpose8(*(*uint64)(e), *(*uint64)(unsafe.Add(e, 8)),
			*(*uint64)(unsafe.Add(e, 16)), *(*uint64)(unsafe.Add(e, 24)), *(*uint64)(unsafe.Add(e, 32)),
			*(*uint64)(unsafe.Add(e, 40)), *(*uint64)(unsafe.Add(e, 48)), *(*uint64)(unsafe.Add(e, 56)))
		p := unsafe.Add(d, i)
		*(*uint64)(p), *(*uint64)(unsafe.Add(p, n)), *(*uint64)(unsafe.Add(p, 2*n)) = r0, r1, r2
		*(*uint64)(unsafe.Add(p, 3*n)), *(*uint64)(unsafe.Add(p, 4*n)), *(*uint64)(unsafe.Add(p, 5*n)) = r3, r4, r5
		*(*uint64)(unsafe.Add(p, 6*n)), *(*uint64)(unsafe.Add(p, 7*n)) = r6, r7
	}
	for ; i < n; i++ {
		for j := 0; j < 8; j++ {
			dst[j*n+i] = src[i*8+j]
		}
	}
}

func unshuffle8(dst, src []byte, n int) {
	s, d, blocks := wordBlocks(dst, src, n)
	i := 0
	for ; i < blocks; i += 8 {
		p := unsafe.Add(s, i)
		r0, r1, r2, r3, r4, r5, r6, r7 := transpose8(*(*uint64)(p), *(*uint64)(unsafe.Add(p, n)),
			*(*uint64)(unsafe.Add(p, 2*n)), *(*uint64)(unsafe.Add(p, 3*n)), *(*uint64)(unsafe.Add(p, 4*n)),
			*(*uint64)(unsafe.Add(p, 5*n)), *(*uint64)(unsafe.Add(p, 6*n)), *(*uint64)(unsafe.Add(p, 7*n)))
		e := unsafe.Add(d, i*8)
		*(*uint64)(e), *(*uint64)(unsafe.Add(e, 8)), *(*uint64)(unsafe.Add(e, 16)) = r0, r1, r2
		*(*uint64)(unsafe.Add(e, 24)), *(*uint64)(unsafe.Add(e, 32)), *(*uint64)(unsafe.Add(e, 40)) = r3, r4, r5
		*(*uint64)(unsafe.Add(e, 48)), *(*uint64)(unsafe.Add(e, 56)) = r6, r7
	}
	for ; i < n; i++ {
		for j := 0; j < 8; j++ {
			dst[i*8+j] = src[j*n+i]
		}
	}
}

// wordBlocks checks that dst and src hold n 8-byte elements and returns their first bytes
// and how many elements the word loops move: whole blocks of eight where wordAccess allows,
// none elsewhere (the byte loops move the rest).
func wordBlocks(dst, src []byte, n int) (s, d unsafe.Pointer, blocks int) {
	if n <= 0 {
		return nil, nil, 0
	}
	_, _ = dst[8*n-1], src[8*n-1]
	if wordAccess {
		blocks = n &^ 7
	}
	return unsafe.Pointer(unsafe.SliceData(src)), unsafe.Pointer(unsafe.SliceData(dst)), blocks
}

// transpose8 transposes the 8×8 byte matrix whose row r is mr (its byte c, little-endian,
// in column c): bytes, then 2-byte and 4-byte units, are swapped between rows 1, 2 and 4
// apart. Eight values in and out, not an array, so that they stay in registers.
func transpose8(m0, m1, m2, m3, m4, m5, m6, m7 uint64) (r0, r1, r2, r3, r4, r5, r6, r7 uint64) {
	const b1, b2, b4 = 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF
	m0, m1 = m0&b1|(m1&b1)<<8, (m0>>8)&b1|m1&^b1
	m2, m3 = m2&b1|(m3&b1)<<8, (m2>>8)&b1|m3&^b1
	m4, m5 = m4&b1|(m5&b1)<<8, (m4>>8)&b1|m5&^b1
	m6, m7 = m6&b1|(m7&b1)<<8, (m6>>8)&b1|m7&^b1
	m0, m2 = m0&b2|(m2&b2)<<16, (m0>>16)&b2|m2&^b2
	m1, m3 = m1&b2|(m3&b2)<<16, (m1>>16)&b2|m3&^b2
	m4, m6 = m4&b2|(m6&b2)<<16, (m4>>16)&b2|m6&^b2
	m5, m7 = m5&b2|(m7&b2)<<16, (m5>>16)&b2|m7&^b2
	return m0&b4 | m4<<32, m1&b4 | m5<<32, m2&b4 | m6<<32, m3&b4 | m7<<32,
		m0>>32 | m4&^b4, m1>>32 | m5&^b4, m2>>32 | m6&^b4, m3>>32 | m7&^b4
}
