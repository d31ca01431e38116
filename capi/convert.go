package main

// #include <stdlib.h>
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

// optString reads a C string that may be NULL ("" then).
func optString(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// reqString reads a C string that must not be NULL.
func reqString(p *C.char, field string) (string, error) {
	if p == nil {
		return "", invalidArg("%s is NULL", field)
	}
	return C.GoString(p), nil
}

func optPeriod(p *C.char, field string) (core.Period, error) {
	s := optString(p)
	if s == "" {
		return core.Period{}, nil
	}
	v, err := core.ParsePeriod(s)
	if err != nil {
		return core.Period{}, invalidArg("%s: %q is not an ISO-8601 duration (%v)", field, s, err)
	}
	return v, nil
}

func reqPeriod(p *C.char, field string) (core.Period, error) {
	if p == nil || *p == 0 {
		return core.Period{}, invalidArg("%s is NULL or empty", field)
	}
	return optPeriod(p, field)
}

func optFeatures(p *C.char) (core.Features, error) {
	s := optString(p)
	if s == "" {
		return core.Features{}, nil
	}
	f, err := core.ParseFeaturesJSON(s)
	if err != nil {
		return nil, invalidArg("features_json: %v", err)
	}
	return f, nil
}

func fromMillis(ms C.int64_t) time.Time { return time.UnixMilli(int64(ms)).UTC() }

func toMillis(t time.Time) C.int64_t { return C.int64_t(t.UnixMilli()) }

// maxNdim bounds a shape passed in (netCDF's limit on dimensions).
const maxNdim = 1024

// typedArray builds a TypedArray from the caller's shape and bytes, checking every size
// before reading any memory: the core then checks the bytes against the shape.
func typedArray(dtype C.int32_t, shape *C.int64_t, ndim C.size_t, data unsafe.Pointer, nbytes C.size_t) (core.TypedArray, error) {
	if dtype < 0 || dtype > 5 {
		return core.TypedArray{}, invalidArg("dtype: unknown code %d (0 f64 … 5 bool)", dtype)
	}
	if ndim == 0 || ndim > maxNdim {
		return core.TypedArray{}, invalidArg("ndim: %d is not in 1–%d", ndim, maxNdim)
	}
	if shape == nil {
		return core.TypedArray{}, invalidArg("shape is NULL")
	}
	dims := unsafe.Slice((*int64)(unsafe.Pointer(shape)), int(ndim))
	out := make([]int, ndim)
	for i, d := range dims {
		if d <= 0 || d > 1<<40 {
			return core.TypedArray{}, invalidArg("shape[%d]: %d is not a positive axis length", i, d)
		}
		out[i] = int(d)
	}
	if nbytes > 0 && data == nil {
		return core.TypedArray{}, invalidArg("data is NULL but nbytes is %d", nbytes)
	}
	if uint64(nbytes) > 1<<46 {
		return core.TypedArray{}, invalidArg("nbytes: %d is too large", nbytes)
	}
	var b []byte
	if nbytes > 0 {
		// A view of the caller's memory: the core checks its length against the shape and
		// copies what it keeps.
		b = unsafe.Slice((*byte)(data), int(nbytes))
	}
	return core.TypedArray{DType: core.DType(dtype), Shape: out, Data: b}, nil
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
		return invalidArg("buf is NULL but capacity is %d", capacity)
	}
	if int(capacity) < n {
		return tooSmall(uintptr(n), "bytes")
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(buf)), n)
	copy(dst, s)
	dst[n-1] = 0
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
		return invalidArg("buf is NULL but capacity is %d", capacity)
	}
	if int(capacity) < len(b) {
		return tooSmall(uintptr(len(b)), "bytes")
	}
	copy(unsafe.Slice((*byte)(buf), len(b)), b)
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
