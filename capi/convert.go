package main

// #include <stdlib.h>
// #include <string.h>
// #include "capi.h"
import "C"

import (
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// Every byte crossing the boundary in either direction is copied by C (ts_copy_in for fromC,
// ts_copy_out for toC), not by Go code: valgrind then sees each access to caller memory in a
// C frame it checks, so a wrong length in this layer is an error it reports
// (tests/ctest/go-runtime.supp hides Go-internal noise, and the two helpers' accesses to Go
// memory).

// borrowed views n bytes of caller memory at p, valid during the call only (never nil).
func borrowed(p unsafe.Pointer, n int) []byte {
	if n == 0 {
		return []byte{}
	}
	return unsafe.Slice((*byte)(p), n)
}

// fromC copies n bytes of caller memory into a new Go buffer, aligned for any element type.
func fromC(p unsafe.Pointer, n int) []byte {
	b := alignedBuffer(n)
	if n > 0 {
		C.ts_copy_in(unsafe.Pointer(&b[0]), p, C.size_t(n))
	}
	return b
}

// toC copies b into caller memory at dst.
func toC(dst unsafe.Pointer, b []byte) {
	if len(b) > 0 {
		C.ts_copy_out(dst, unsafe.Pointer(&b[0]), C.size_t(len(b)))
	}
}

// alignedBuffer is n bytes backed by uint64 words, so typed views of it are aligned.
func alignedBuffer(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

// bytesOf views a slice of fixed-size values as bytes (for toC).
func bytesOf[T int64 | float64](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
}

// valuesFromC copies n fixed-size values out of caller memory.
func valuesFromC[T int64 | float64](p unsafe.Pointer, n int) []T {
	out := make([]T, n)
	if n > 0 {
		C.ts_copy_in(unsafe.Pointer(&out[0]), p, C.size_t(n*int(unsafe.Sizeof(out[0]))))
	}
	return out
}

// optString reads a C string that may be NULL ("" then).
func optString(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// reqString reads a C string that must not be NULL.
func reqString(p *C.char, arg core.Arg) (string, error) {
	if p == nil {
		return "", badArg(arg, "is NULL")
	}
	return C.GoString(p), nil
}

func fromMillis(ms C.int64_t) time.Time { return time.UnixMilli(int64(ms)).UTC() }

func toMillis(t time.Time) C.int64_t { return C.int64_t(t.UnixMilli()) }

// maxNdim bounds a shape passed in (netCDF's limit on dimensions).
const maxNdim = 1024

// typedArray builds a TypedArray from a descriptor's dtype, shape and bytes, checking every
// size before reading any memory: the core then checks the bytes against the shape. Data is
// the caller's own memory, not a copy: the core reads it during the call and copies what it
// keeps (once, into its pending arrays), so the caller's buffer is free when the call
// returns, as the header promises.
func typedArray(dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer, nbytes C.size_t, w where) (core.TypedArray, error) {
	if dtype < 0 || dtype > 5 {
		return core.TypedArray{}, w.bad(core.ArgDType, "", "unknown code %d (0 f64 … 5 bool)", dtype)
	}
	if ndim == 0 || ndim > maxNdim {
		return core.TypedArray{}, w.badField(core.ArgShape, "ndim", "%d is not in 1–%d", ndim, maxNdim)
	}
	if shape == nil {
		return core.TypedArray{}, w.bad(core.ArgShape, "", "is NULL")
	}
	dims := valuesFromC[int64](unsafe.Pointer(shape), int(ndim))
	out := make([]int, ndim)
	for i, d := range dims {
		if d <= 0 || d > 1<<40 {
			return core.TypedArray{}, w.bad(core.ArgShape, itoa(i), "%d is not a positive axis length", d)
		}
		out[i] = int(d)
	}
	if nbytes > 0 && data == nil {
		return core.TypedArray{}, w.bad(core.ArgData, "", "is NULL but nbytes is %d", nbytes)
	}
	if uint64(nbytes) > 1<<46 {
		return core.TypedArray{}, w.badField(core.ArgData, "nbytes", "%d is too large", nbytes)
	}
	// The size is checked here, before any caller memory is read, and named as the caller
	// wrote it (the core would check it again under its own name).
	want := uint64(core.DType(dtype).Width())
	for _, d := range out {
		if want > (1<<46)/uint64(d) { // checked before multiplying: the product could wrap
			return core.TypedArray{}, w.bad(core.ArgShape, "", "%v holds more than 2^46 bytes", dims)
		}
		want *= uint64(d)
	}
	if uint64(nbytes) != want {
		return core.TypedArray{}, w.badField(core.ArgData, "nbytes", "%d bytes do not match shape %v of %s (%d bytes)", nbytes,
			dims, core.DType(dtype), want)
	}
	return core.TypedArray{DType: core.DType(dtype), Shape: out, Data: borrowed(data, int(nbytes))}, nil
}

// putString copies s and a NUL into buf[capacity], reporting the size needed.
func putString(s string, buf *C.char, capacity C.size_t, needed *C.size_t) error {
	n := len(s) + 1
	if needed != nil {
		*needed = C.size_t(n)
	}
	if buf == nil && capacity == 0 {
		return nil
	}
	if buf == nil {
		return badArg(core.ArgBuffer, "buf is NULL but capacity is %d", capacity)
	}
	if uint64(capacity) < uint64(n) {
		return tooSmall(uintptr(n), "bytes")
	}
	toC(unsafe.Pointer(buf), append([]byte(s), 0))
	return nil
}

// putBytes copies b into buf[capacity] (bytes), reporting the size needed.
func putBytes(b []byte, buf unsafe.Pointer, capacity C.size_t, needed *C.size_t) error {
	if needed != nil {
		*needed = C.size_t(len(b))
	}
	if buf == nil && capacity == 0 {
		return nil
	}
	if buf == nil {
		return badArg(core.ArgBuffer, "buf is NULL but capacity is %d", capacity)
	}
	if uint64(capacity) < uint64(len(b)) {
		return tooSmall(uintptr(len(b)), "bytes")
	}
	toC(buf, b)
	return nil
}

// The opt-in debug log: TSSTORE_DEBUG=1 writes a line per call to stderr; a host may install
// a callback instead (tsstore_set_log_callback). Each line says what the call did at the
// storage level (see logCall).
var logState = struct {
	sync.Mutex
	env  bool
	fn   unsafe.Pointer
	user unsafe.Pointer
}{env: os.Getenv("TSSTORE_DEBUG") != ""}

func logging() bool {
	logState.Lock()
	defer logState.Unlock()
	return logState.env || logState.fn != nil
}

func logf(format string, args ...any) {
	logState.Lock()
	env, fn, user := logState.env, logState.fn, logState.user
	logState.Unlock()
	if !env && fn == nil {
		return
	}
	line := "tsstore: " + fmt.Sprintf(format, args...)
	if fn != nil {
		c := C.CString(line)
		C.ts_call_log(fn, c, user)
		C.free(unsafe.Pointer(c))
		return
	}
	fmt.Fprintln(os.Stderr, line)
}

// logCall reports one call on a store: the chunks it read, the netcdf writes and define
// phases it issued, the columns it freed, what it left pending, and its netcdf and total time.
func logCall(name string, before, after core.Stats, took time.Duration) {
	logf("%s: %d chunk reads, %d netcdf writes, %d define phases, %d columns freed, %d arrays (%d bytes) pending; netcdf %.3f ms of %.3f ms",
		name, after.ChunkReads-before.ChunkReads, after.NCWrites-before.NCWrites, after.DefinePhases-before.DefinePhases,
		after.ColumnsFreed-before.ColumnsFreed, after.Pending, after.PendingBytes,
		float64(after.NetCDFTime-before.NetCDFTime)/1e6, float64(took)/1e6)
}

// putElements copies a slice of 8-byte elements into buf[capacity] (counted in elements).
func putElements[T int64 | float64](v []T, buf unsafe.Pointer, capacity C.size_t, needed *C.size_t) error {
	if needed != nil {
		*needed = C.size_t(len(v))
	}
	if buf == nil && capacity == 0 {
		return nil
	}
	if buf == nil {
		return badArg(core.ArgBuffer, "is NULL but capacity is %d", capacity)
	}
	if uint64(capacity) < uint64(len(v)) {
		return tooSmall(uintptr(len(v)), "elements")
	}
	toC(buf, bytesOf(v))
	return nil
}
