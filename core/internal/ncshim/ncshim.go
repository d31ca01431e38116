// Package ncshim fills the gaps github.com/fhs/go-netcdf leaves in the netcdf-c API that the
// store's on-disk format needs.
//
// go-netcdf v1.2.1 covers datasets, dimensions, variables, attributes, typed I/O and deflate,
// but it has no groups (the format puts every array under /time_series/single), no nc_sync,
// no chunking control and no NC_STRING I/O. The store itself writes through HDF5 (package h5):
// netcdf-c makes a new file's skeleton (attributes and groups) and, in the tests, writes files
// the way another netCDF tool would. This package adds what those two need, as thin calls
// over netcdf-c; everything else goes through go-netcdf.
//
// netcdf-c is not thread-safe, and neither is the HDF5 build Debian ships. Every call into
// netcdf-c, whether through go-netcdf or through this package, must happen while the
// process-wide lock (package serial) is held; this package does not take it itself.
package ncshim

// #cgo pkg-config: netcdf hdf5
// #include <stdlib.h>
// #include <netcdf.h>
// #include <hdf5.h>
//
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/fhs/go-netcdf/netcdf"
)

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

// Start and count slices are passed to netcdf-c as size_t arrays in place.
var (
	_ [unsafe.Sizeof(C.size_t(0)) - unsafe.Sizeof(uint64(0))]byte
	_ [unsafe.Sizeof(uint64(0)) - unsafe.Sizeof(C.size_t(0))]byte
)

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
