package chunkpipe

// #cgo pkg-config: zlib libdeflate
// #include <zlib.h>
// #include <libdeflate.h>
// #include "deflate.h"
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// Pipeline is a dataset's filter pipeline as this package can encode it: shuffle (when
// present, filter 0), then deflate (when present). ElemSize is the dataset type's size,
// which shuffle works in.
type Pipeline struct {
	ElemSize int
	Shuffle  bool
	Deflate  bool
	Level    int // deflate's level, 0–9
}

// shuffleBit and deflateBit are the filters' bits in a chunk's filter mask: a set bit is a
// filter HDF5 skipped for that chunk.
func (p Pipeline) shuffleBit() uint32 { return 1 }

func (p Pipeline) deflateBit() uint32 {
	if p.Shuffle {
		return 2
	}
	return 1
}

// Bound is the most bytes Encode stores for a chunk of raw bytes.
func (p Pipeline) Bound(raw int) int {
	if !p.Deflate {
		return raw
	}
	return deflateBound(raw)
}

// deflateBound is HDF5's output buffer for deflate, ⌈1.001·n⌉ + 12 bytes (H5Z_DEFLATE_SIZE_ADJUST).
func deflateBound(n int) int { return (n*1001+999)/1000 + 12 }

// Scratch is one worker's buffer for the shuffled bytes between the two filters.
type Scratch struct{ shuffled []byte }

func (s *Scratch) take(n int) []byte {
	if cap(s.shuffled) < n {
		s.shuffled = make([]byte, n)
	}
	return s.shuffled[:n]
}

// Encode returns raw as the pipeline stores it, in dst's memory (dst must hold Bound(len(raw))
// bytes), and the chunk's filter mask.
func (p Pipeline) Encode(raw, dst []byte, s *Scratch) ([]byte, uint32) {
	if !p.Deflate {
		if p.Shuffle {
			shuffle(dst[:len(raw)], raw, p.ElemSize)
		} else {
			copy(dst, raw)
		}
		return dst[:len(raw)], 0
	}
	src, planes := raw, 0
	if p.Shuffle {
		src, planes = s.take(len(raw)), p.ElemSize
		shuffle(src, raw, p.ElemSize)
	}
	n, ok := deflate(dst[:deflateBound(len(src))], src, p.Level, planes)
	if !ok {
		// HDF5 skips an optional filter whose output does not fit, and says so in the mask.
		return dst[:copy(dst, src)], p.deflateBit()
	}
	return dst[:n], 0
}

// Decode fills raw (the chunk's size in bytes) from a chunk stored with the given filter
// mask. A chunk that does not decode to exactly len(raw) bytes is an error.
func (p Pipeline) Decode(stored []byte, mask uint32, raw []byte, s *Scratch) error {
	unshuffled := p.Shuffle && mask&p.shuffleBit() == 0
	src := stored
	if p.Deflate && mask&p.deflateBit() == 0 {
		out := raw
		if unshuffled {
			out = s.take(len(raw))
		}
		n, err := inflate(out, stored)
		if err != nil {
			return err
		}
		if n != len(raw) {
			return fmt.Errorf("chunk inflates to %d bytes, not %d", n, len(raw))
		}
		if !unshuffled {
			return nil
		}
		src = out
	} else if len(stored) != len(raw) {
		return fmt.Errorf("chunk stored unfiltered holds %d bytes, not %d", len(stored), len(raw))
	}
	if unshuffled {
		unshuffle(raw, src, p.ElemSize)
	} else {
		copy(raw, src)
	}
	return nil
}

// freeList keeps C objects that one goroutine at a time may use, for reuse: at most as
// many as were ever in use at once.
type freeList[T any] struct {
	sync.Mutex
	free []T
}

// take hands out a kept object, or the zero T when none is kept.
func (l *freeList[T]) take() (x T) {
	l.Lock()
	defer l.Unlock()
	if len(l.free) > 0 {
		x, l.free = l.free[len(l.free)-1], l.free[:len(l.free)-1]
	}
	return x
}

// put keeps x for the next take.
func (l *freeList[T]) put(x T) {
	l.Lock()
	l.free = append(l.free, x)
	l.Unlock()
}

// deflaters are zlib deflaters (two streams of about 270 KB each, made on first use): as
// many as the workers and the caller ever deflated with at once.
var deflaters freeList[*C.chunkpipe_deflater]

// deflate compresses src into dst as one zlib stream at level; false when the stream does
// not fit. When planes > 1, src is shuffle's output of planes-byte elements, and byte planes
// that deflate's matching cannot shorten are coded with Huffman codes alone (deflate.c,
// docs/format.md §7.9); otherwise the bytes are compress2's.
func deflate(dst, src []byte, level, planes int) (int, bool) {
	if len(dst) == 0 {
		return 0, false
	}
	d := deflaters.take()
	if d == nil {
		if d = C.chunkpipe_deflater_new(); d == nil {
			panic("chunkpipe: no memory for a zlib deflater")
		}
	}
	defer deflaters.put(d)
	return deflateWith(d, dst, src, level, planes)
}

// deflateWith is deflate on the deflater d.
func deflateWith(d *C.chunkpipe_deflater, dst, src []byte, level, planes int) (int, bool) {
	n := C.size_t(len(dst))
	planeLen := 0
	if planes > 1 {
		planeLen = len(src) / planes
	}
	rc := C.chunkpipe_deflate_chunk(d, (*C.uchar)(unsafe.Pointer(&dst[0])), &n, bytesPtr(src),
		C.size_t(len(src)), C.int(level), C.size_t(planeLen), C.int(planes))
	if rc == C.Z_BUF_ERROR {
		return 0, false
	}
	if rc != C.Z_OK {
		// Only Z_MEM_ERROR or Z_STREAM_ERROR (a bad level, which Pipeline never holds) remain.
		panic(fmt.Sprintf("chunkpipe: zlib deflate returned %d", int(rc)))
	}
	return int(n), true
}

// deflateFresh is deflate with a deflater of its own, made and freed for the call: what the
// pool's reused ones must match.
func deflateFresh(dst, src []byte, level, planes int) (int, bool) {
	d := C.chunkpipe_deflater_new()
	defer C.chunkpipe_deflater_free(d)
	return deflateWith(d, dst, src, level, planes)
}

// planeIsNoise says whether deflate.c codes plane with Huffman codes alone.
func planeIsNoise(plane []byte) bool {
	d := C.chunkpipe_deflater_new()
	defer C.chunkpipe_deflater_free(d)
	return C.chunkpipe_plane_is_noise(d, bytesPtr(plane), C.size_t(len(plane))) != 0
}

// decompressors are libdeflate's decompressors, not safe for concurrent use.
var decompressors freeList[*C.struct_libdeflate_decompressor]

// inflate decompresses the zlib stream src into dst and returns the bytes it wrote, with
// libdeflate: 2.6× zlib's inflate on these chunks (docs/benchmarks.md).
func inflate(dst, src []byte) (int, error) {
	if len(dst) == 0 || len(src) == 0 {
		return 0, fmt.Errorf("chunk of %d stored bytes cannot inflate to %d", len(src), len(dst))
	}
	d := decompressors.take()
	if d == nil {
		if d = C.libdeflate_alloc_decompressor(); d == nil {
			return 0, fmt.Errorf("no memory for a libdeflate decompressor")
		}
	}
	var n C.size_t
	rc := C.libdeflate_zlib_decompress(d, unsafe.Pointer(&src[0]), C.size_t(len(src)),
		unsafe.Pointer(&dst[0]), C.size_t(len(dst)), &n)
	decompressors.put(d)
	switch rc {
	case C.LIBDEFLATE_SUCCESS:
		return int(n), nil
	case C.LIBDEFLATE_INSUFFICIENT_SPACE:
		return 0, fmt.Errorf("chunk inflates to more than %d bytes", len(dst))
	default:
		return 0, fmt.Errorf("chunk is not a whole zlib stream (libdeflate status %d)", int(rc))
	}
}

func bytesPtr(b []byte) *C.uchar {
	if len(b) == 0 {
		return nil
	}
	return (*C.uchar)(unsafe.Pointer(&b[0]))
}

// shuffle writes src with byte j of element i at j·n + i (n elements of size bytes); bytes
// past the last whole element stay at the end, as HDF5's shuffle leaves them.
func shuffle(dst, src []byte, size int) {
	n := len(src) / max(size, 1)
	if size <= 1 || n <= 1 {
		copy(dst, src)
		return
	}
	if size == 8 {
		shuffle8(dst, src, n)
		copy(dst[n*8:], src[n*8:])
		return
	}
	for j := 0; j < size; j++ {
		plane := dst[j*n : (j+1)*n]
		for i := range plane {
			plane[i] = src[i*size+j]
		}
	}
	copy(dst[n*size:], src[n*size:])
}

// unshuffle is shuffle's inverse.
func unshuffle(dst, src []byte, size int) {
	n := len(src) / max(size, 1)
	if size <= 1 || n <= 1 {
		copy(dst, src)
		return
	}
	if size == 8 {
		unshuffle8(dst, src, n)
		copy(dst[n*8:], src[n*8:])
		return
	}
	for j := 0; j < size; j++ {
		plane := src[j*n : (j+1)*n]
		for i, b := range plane {
			dst[i*size+j] = b
		}
	}
	copy(dst[n*size:], src[n*size:])
}
