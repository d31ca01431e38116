// Package ncshim fills the gaps github.com/fhs/go-netcdf leaves in the netcdf-c API that the
// store's on-disk format needs, and owns the process-wide lock around netcdf-c.
//
// go-netcdf v1.2.1 covers datasets, dimensions, variables, attributes, typed I/O and deflate,
// but it has no groups (the format puts every array under /time_series/single), no chunking
// control (packed datasets are chunked (1, cols, *E), forecasts in window blocks), no NC_STRING
// I/O (the {ds}_h hash companions are NC_STRING), no nc_sync (every commit syncs the file), no
// per-variable chunk cache sizing and no way to list a group's variables by id. This package
// adds exactly those, as thin calls over netcdf-c; everything else goes through go-netcdf.
//
// netcdf-c is not thread-safe, and neither is the HDF5 build Debian ships. Every call into
// netcdf-c, whether through go-netcdf or through this package, must happen while Mu is held.
// This package does not take Mu itself: callers hold it around whole operations (a column write
// is several netcdf calls that must not interleave with another goroutine's).
package ncshim

// #cgo pkg-config: netcdf hdf5
// #include <stdlib.h>
// #include <netcdf.h>
// #include <hdf5.h>
//
// /* HDF5 built thread-safe (as Debian builds it) keeps its error-printing switch per
//    thread, and netcdf-c turns printing off only on the thread that initialised it. netcdf-c
//    probes for optional attributes and expects failures, so on any other thread HDF5 would
//    print those expected failures to stderr. Each OS thread turns printing off once. */
// static __thread int tsstore_hdf5_quiet;
// static void tsstore_quiet_hdf5(void) {
//     if (!tsstore_hdf5_quiet) {
//         H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
//         tsstore_hdf5_quiet = 1;
//     }
// }
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/fhs/go-netcdf/netcdf"
)

// mu serialises every netcdf-c call in the process.
var mu sync.Mutex

// held is when the lock was taken; busy accumulates how long it has been held, which is
// the time the process spent in netcdf-c and HDF5 (and the little Go between those calls).
var (
	held time.Time
	busy atomic.Int64
)

// Lock takes the process-wide netcdf lock and pins the goroutine to its OS thread until
// Unlock, so that the per-thread HDF5 state set here holds for every call made under it.
func Lock() {
	mu.Lock()
	runtime.LockOSThread()
	C.tsstore_quiet_hdf5()
	held = time.Now()
}

// Unlock releases what Lock took.
func Unlock() {
	busy.Add(int64(time.Since(held)))
	runtime.UnlockOSThread()
	mu.Unlock()
}

// BusyTime is the total time the netcdf lock has been held in this process.
func BusyTime() time.Duration { return time.Duration(busy.Load()) }

// Error is a netcdf-c status code with the operation that produced it.
type Error struct {
	Op   string
	Code int
}

func (e *Error) Error() string {
	return fmt.Sprintf("netcdf %s: %s (code %d)", e.Op, C.GoString(C.nc_strerror(C.int(e.Code))), e.Code)
}

func check(op string, rc C.int) error {
	if rc == C.NC_NOERR {
		return nil
	}
	return &Error{Op: op, Code: int(rc)}
}

// DefGroup creates a child group and returns it as a dataset handle: in netcdf-c a group id
// is used exactly like a file id, so go-netcdf's Dataset methods work on it unchanged.
func DefGroup(parent netcdf.Dataset, name string) (netcdf.Dataset, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var id C.int
	err := check("def_grp "+name, C.nc_def_grp(C.int(parent), cname, &id))
	return netcdf.Dataset(id), err
}

// Group returns the child group called name.
func Group(parent netcdf.Dataset, name string) (netcdf.Dataset, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var id C.int
	err := check("inq_grp_ncid "+name, C.nc_inq_grp_ncid(C.int(parent), cname, &id))
	return netcdf.Dataset(id), err
}

// VarID returns the id of the variable called name in group g.
func VarID(g netcdf.Dataset, name string) (int, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var id C.int
	err := check("inq_varid "+name, C.nc_inq_varid(C.int(g), cname, &id))
	return int(id), err
}

// VarIDs lists the ids of every variable in group g.
func VarIDs(g netcdf.Dataset) ([]int, error) {
	var n C.int
	if err := check("inq_varids", C.nc_inq_varids(C.int(g), &n, nil)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	ids := make([]C.int, n)
	if err := check("inq_varids", C.nc_inq_varids(C.int(g), &n, &ids[0])); err != nil {
		return nil, err
	}
	out := make([]int, n)
	for i, id := range ids {
		out[i] = int(id)
	}
	return out, nil
}

// DefChunking makes variable varid chunked with the given chunk sizes (one per dimension).
func DefChunking(g netcdf.Dataset, varid int, chunks []uint64) error {
	if len(chunks) == 0 {
		return &Error{Op: "def_var_chunking", Code: int(C.NC_EINVAL)}
	}
	cs := make([]C.size_t, len(chunks))
	for i, c := range chunks {
		cs[i] = C.size_t(c)
	}
	return check("def_var_chunking", C.nc_def_var_chunking(C.int(g), C.int(varid), C.NC_CHUNKED, &cs[0]))
}

// Chunking reports whether varid is chunked and its chunk sizes.
func Chunking(g netcdf.Dataset, varid int, ndims int) (chunked bool, chunks []uint64, err error) {
	var storage C.int
	cs := make([]C.size_t, ndims+1)
	if err = check("inq_var_chunking", C.nc_inq_var_chunking(C.int(g), C.int(varid), &storage, &cs[0])); err != nil {
		return false, nil, err
	}
	chunks = make([]uint64, ndims)
	for i := range chunks {
		chunks[i] = uint64(cs[i])
	}
	return storage == C.NC_CHUNKED, chunks, nil
}

// SetVarChunkCache sizes the HDF5 chunk cache of one variable. netcdf-c gives every variable
// its own cache and keeps it until the file closes, so the store sizes each deliberately
// rather than inheriting the library default for thousands of variables.
func SetVarChunkCache(g netcdf.Dataset, varid int, bytes, slots uint64, preemption float32) error {
	return check("set_var_chunk_cache", C.nc_set_var_chunk_cache(C.int(g), C.int(varid),
		C.size_t(bytes), C.size_t(slots), C.float(preemption)))
}

// Start and count slices are passed to netcdf-c as size_t arrays in place.
var (
	_ [unsafe.Sizeof(C.size_t(0)) - unsafe.Sizeof(uint64(0))]byte
	_ [unsafe.Sizeof(uint64(0)) - unsafe.Sizeof(C.size_t(0))]byte
)

// GetVara reads the hyperslab [start, start+count) of varid into buf in the variable's own
// type (nc_get_vara). buf must hold the whole hyperslab.
func GetVara(g netcdf.Dataset, varid int, start, count []uint64, buf unsafe.Pointer) error {
	return check("get_vara", C.nc_get_vara(C.int(g), C.int(varid),
		(*C.size_t)(unsafe.Pointer(&start[0])), (*C.size_t)(unsafe.Pointer(&count[0])), buf))
}

// PutVara writes buf, in the variable's own type, to the hyperslab [start, start+count).
func PutVara(g netcdf.Dataset, varid int, start, count []uint64, buf unsafe.Pointer) error {
	return check("put_vara", C.nc_put_vara(C.int(g), C.int(varid),
		(*C.size_t)(unsafe.Pointer(&start[0])), (*C.size_t)(unsafe.Pointer(&count[0])), buf))
}

// PutStrings writes strs into the 1-D NC_STRING variable varid starting at index start.
func PutStrings(g netcdf.Dataset, varid int, start uint64, strs []string) error {
	if len(strs) == 0 {
		return nil
	}
	cstrs := make([]*C.char, len(strs))
	for i, s := range strs {
		cstrs[i] = C.CString(s)
	}
	defer func() {
		for _, p := range cstrs {
			C.free(unsafe.Pointer(p))
		}
	}()
	st := C.size_t(start)
	ct := C.size_t(len(strs))
	return check("put_vara_string", C.nc_put_vara_string(C.int(g), C.int(varid), &st, &ct, &cstrs[0]))
}

// GetStrings reads n strings of the 1-D NC_STRING variable varid starting at index start.
// A slot never written reads as the empty string.
func GetStrings(g netcdf.Dataset, varid int, start, n uint64) ([]string, error) {
	if n == 0 {
		return nil, nil
	}
	arr := (**C.char)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(arr))
	st := C.size_t(start)
	ct := C.size_t(n)
	if err := check("get_vara_string", C.nc_get_vara_string(C.int(g), C.int(varid), &st, &ct, arr)); err != nil {
		return nil, err
	}
	ptrs := unsafe.Slice(arr, n)
	out := make([]string, n)
	for i, p := range ptrs {
		if p != nil {
			out[i] = C.GoString(p)
		}
	}
	C.nc_free_string(ct, arr)
	return out, nil
}

// GetAttText reads a text attribute stored either as NC_CHAR or as NC_STRING (the format
// writes NC_CHAR but readers accept both, docs/format.md §1). ok=false when it is absent.
func GetAttText(g netcdf.Dataset, varid int, name string) (value string, ok bool, err error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var typ C.nc_type
	var n C.size_t
	rc := C.nc_inq_att(C.int(g), C.int(varid), cname, &typ, &n)
	if rc == C.NC_ENOTATT {
		return "", false, nil
	}
	if err := check("inq_att "+name, rc); err != nil {
		return "", false, err
	}
	switch typ {
	case C.NC_CHAR:
		if n == 0 {
			return "", true, nil
		}
		buf := C.malloc(n)
		defer C.free(buf)
		if err := check("get_att_text "+name, C.nc_get_att_text(C.int(g), C.int(varid), cname, (*C.char)(buf))); err != nil {
			return "", false, err
		}
		return C.GoStringN((*C.char)(buf), C.int(n)), true, nil
	case C.NC_STRING:
		if n == 0 {
			return "", true, nil
		}
		arr := (**C.char)(C.calloc(n, C.size_t(unsafe.Sizeof(uintptr(0)))))
		defer C.free(unsafe.Pointer(arr))
		if err := check("get_att_string "+name, C.nc_get_att_string(C.int(g), C.int(varid), cname, arr)); err != nil {
			return "", false, err
		}
		first := *arr
		var s string
		if first != nil {
			s = C.GoString(first)
		}
		C.nc_free_string(n, arr)
		return s, true, nil
	}
	return "", true, fmt.Errorf("attribute %q has type %d, not text", name, int(typ))
}

// PutAttText writes a text attribute as NC_CHAR, the type nc_put_att_text writes.
func PutAttText(g netcdf.Dataset, varid int, name, value string) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	cval := C.CString(value)
	defer C.free(unsafe.Pointer(cval))
	return check("put_att_text "+name, C.nc_put_att_text(C.int(g), C.int(varid), cname, C.size_t(len(value)), cval))
}

// GlobalVarID is the varid netcdf-c uses for group-level attributes.
const GlobalVarID = int(C.NC_GLOBAL)

// Sync flushes netcdf-c's and HDF5's buffers (metadata and dirty chunks) to the file.
func Sync(ds netcdf.Dataset) error {
	return check("sync", C.nc_sync(C.int(ds)))
}

// EndDef leaves define mode; a netCDF-4 file is written (metadata flushed) when it does.
func EndDef(ds netcdf.Dataset) error {
	return check("enddef", C.nc_enddef(C.int(ds)))
}

// VarDimLens returns the lengths of varid's dimensions and its netcdf type.
func VarDimLens(g netcdf.Dataset, varid int) (lens []uint64, typ netcdf.Type, err error) {
	var ndims C.int
	var ctyp C.nc_type
	if err = check("inq_var", C.nc_inq_var(C.int(g), C.int(varid), nil, &ctyp, &ndims, nil, nil)); err != nil {
		return nil, 0, err
	}
	if ndims == 0 {
		return nil, netcdf.Type(ctyp), nil
	}
	dimids := make([]C.int, ndims)
	if err = check("inq_vardimid", C.nc_inq_vardimid(C.int(g), C.int(varid), &dimids[0])); err != nil {
		return nil, 0, err
	}
	lens = make([]uint64, ndims)
	for i, d := range dimids {
		var l C.size_t
		if err = check("inq_dimlen", C.nc_inq_dimlen(C.int(g), d, &l)); err != nil {
			return nil, 0, err
		}
		lens[i] = uint64(l)
	}
	return lens, netcdf.Type(ctyp), nil
}

// VarName returns the name of varid in group g.
func VarName(g netcdf.Dataset, varid int) (string, error) {
	buf := (*C.char)(C.malloc(C.NC_MAX_NAME + 1))
	defer C.free(unsafe.Pointer(buf))
	if err := check("inq_varname", C.nc_inq_varname(C.int(g), C.int(varid), buf)); err != nil {
		return "", err
	}
	return C.GoString(buf), nil
}

// ChunkCacheDefault is netcdf-c's process-wide default chunk cache, which every variable
// takes when a file is opened or the variable is defined.
type ChunkCacheDefault struct {
	Bytes, Slots uint64
	Preemption   float32
}

// GetChunkCacheDefault returns the current default.
func GetChunkCacheDefault() (ChunkCacheDefault, error) {
	var size, nelems C.size_t
	var pre C.float
	err := check("get_chunk_cache", C.nc_get_chunk_cache(&size, &nelems, &pre))
	return ChunkCacheDefault{uint64(size), uint64(nelems), float32(pre)}, err
}

// SetChunkCacheDefault changes the default for files opened afterwards.
func SetChunkCacheDefault(c ChunkCacheDefault) error {
	return check("set_chunk_cache", C.nc_set_chunk_cache(C.size_t(c.Bytes), C.size_t(c.Slots), C.float(c.Preemption)))
}
