// Package h5 reads and writes a store's NetCDF-4 file through HDF5's own C API, one object
// at a time.
//
// netcdf-c's nc_open reads the metadata of every variable in the file and keeps three HDF5
// datasets open per forecast; a store of 100,000 forecasts took 31 s and gigabytes to open
// that way. HDF5 itself opens a file by its superblock and root group, and a dataset only
// when it is asked for. Stores on disk use this package (docs/architecture.md, "Read-only
// opens through HDF5" and "Writes through HDF5"); write.go keeps the netCDF-4 conventions
// netcdf-c would.
//
// HDF5 is not thread-safe as Debian builds it, and netcdf-c calls into the same library: every
// call here must be made with ncshim's lock held, exactly like a netcdf-c call.
package h5

// #cgo pkg-config: hdf5
// #include <stdlib.h>
// #include <string.h>
// #include <hdf5.h>
//
// /* The link names of a group as one NUL-separated block (malloc'd). */
// typedef struct { char *buf; size_t len, cap; size_t count; } tsstore_names;
// static herr_t tsstore_name_cb(hid_t g, const char *name, const H5L_info_t *info, void *op) {
//     (void)g; (void)info;
//     tsstore_names *n = op;
//     size_t l = strlen(name) + 1;
//     if (n->len + l > n->cap) {
//         size_t cap = n->cap ? n->cap * 2 : 1 << 16;
//         while (cap < n->len + l) cap *= 2;
//         char *b = realloc(n->buf, cap);
//         if (!b) return -1;
//         n->buf = b; n->cap = cap;
//     }
//     memcpy(n->buf + n->len, name, l);
//     n->len += l;
//     n->count++;
//     return 0;
// }
// /* netCDF-4 groups track and index their links' creation order, and walking that index
//    in native order costs a tenth of walking the name index (0.34 s against 3.8 s for the
//    300,000 links of 100,000 forecasts). A file without it is walked by name. */
// static herr_t tsstore_link_names(hid_t g, int by_name, tsstore_names *out) {
//     hsize_t idx = 0;
//     if (!by_name && H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_NATIVE, &idx, tsstore_name_cb, out) >= 0) return 0;
//     out->len = out->count = 0;
//     idx = 0;
//     return H5Literate(g, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, tsstore_name_cb, out) < 0 ? -1 : 1;
// }
//
// /* A dataset opened with its own chunk cache (bytes 0: none). */
// static hid_t tsstore_dopen(hid_t g, const char *name, size_t bytes, size_t slots) {
//     hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
//     if (dapl < 0) return -1;
//     if (H5Pset_chunk_cache(dapl, slots, bytes, 1.0) < 0) { H5Pclose(dapl); return -1; }
//     hid_t d = H5Dopen2(g, name, dapl);
//     H5Pclose(dapl);
//     return d;
// }
//
// /* 1 when name in g is a dataset, 0 when it is another object (a group, a named type), -1 on error. */
// static int tsstore_is_dataset(hid_t g, const char *name) {
//     hid_t o = H5Oopen(g, name, H5P_DEFAULT);
//     if (o < 0) return -1;
//     int is = H5Iget_type(o) == H5I_DATASET;
//     H5Oclose(o);
//     return is;
// }
//
// /* The element type and extent of a dataset: class, size, sign, rank and dims (up to 32). */
// static int tsstore_describe(hid_t d, int *cls, size_t *size, int *sign, int *varstr, int *rank, hsize_t *dims) {
//     hid_t t = H5Dget_type(d);
//     if (t < 0) return -1;
//     *cls = (int)H5Tget_class(t);
//     *size = H5Tget_size(t);
//     *sign = *cls == H5T_INTEGER ? (int)H5Tget_sign(t) : -1;
//     *varstr = *cls == H5T_STRING ? H5Tis_variable_str(t) > 0 : 0;
//     H5Tclose(t);
//     hid_t s = H5Dget_space(d);
//     if (s < 0) return -1;
//     int r = H5Sget_simple_extent_ndims(s);
//     if (r < 0 || r > 32) { H5Sclose(s); return -1; }
//     *rank = r;
//     if (r > 0 && H5Sget_simple_extent_dims(s, dims, NULL) < 0) { H5Sclose(s); return -1; }
//     H5Sclose(s);
//     return 0;
// }
//
// /* The chunk shape of a dataset; 0 when it is not chunked, -1 on error. */
// static int tsstore_chunks(hid_t d, int rank, hsize_t *chunks) {
//     hid_t p = H5Dget_create_plist(d);
//     if (p < 0) return -1;
//     int chunked = H5Pget_layout(p) == H5D_CHUNKED;
//     if (chunked && H5Pget_chunk(p, rank, chunks) < 0) chunked = -1;
//     H5Pclose(p);
//     return chunked;
// }
//
// /* Reads (write 0) or writes the hyperslab [start, start+count) from or into buf as memory
//    type mt. */
// static herr_t tsstore_io(hid_t d, hid_t mt, int rank, const hsize_t *start, const hsize_t *count, void *buf, int write) {
//     hid_t fs = H5Dget_space(d);
//     if (fs < 0) return -1;
//     herr_t rc = -1;
//     hid_t ms = -1;
//     if (rank > 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0) goto out;
//     ms = rank > 0 ? H5Screate_simple(rank, count, NULL) : H5Screate(H5S_SCALAR);
//     if (ms < 0) goto out;
//     rc = write ? H5Dwrite(d, mt, ms, fs, H5P_DEFAULT, buf) : H5Dread(d, mt, ms, fs, H5P_DEFAULT, buf);
// out:
//     if (ms >= 0) H5Sclose(ms);
//     H5Sclose(fs);
//     return rc;
// }
//
// /* Reads or writes n variable-length strings from index start of a 1-D string dataset
//    (strings read are freed by the caller with tsstore_free_strings). */
// static herr_t tsstore_strings_io(hid_t d, hsize_t start, hsize_t n, char **ptrs, int write) {
//     hid_t ft = H5Dget_type(d);
//     if (ft < 0) return -1;
//     hid_t mt = H5Tcopy(H5T_C_S1);
//     H5Tset_size(mt, H5T_VARIABLE);
//     H5Tset_cset(mt, H5Tget_cset(ft));
//     H5Tclose(ft);
//     herr_t rc = tsstore_io(d, mt, 1, &start, &n, ptrs, write);
//     H5Tclose(mt);
//     return rc;
// }
// static void tsstore_free_strings(hsize_t n, char **ptrs) {
//     for (hsize_t i = 0; i < n; i++) H5free_memory(ptrs[i]);
// }
// /* The length of each of n strings (NULL: 0), in one call rather than a strlen call each. */
// static void tsstore_strlens(hsize_t n, char **ptrs, size_t *lens) {
//     for (hsize_t i = 0; i < n; i++) lens[i] = ptrs[i] ? strlen(ptrs[i]) : 0;
// }
//
// /* A text attribute of object o: fixed-size (NC_CHAR) or variable-length (NC_STRING).
//    Returns a malloc'd string, NULL with *found 0 when absent, NULL with *found 1 on error. */
// static char *tsstore_attr_text(hid_t o, const char *name, int *found) {
//     *found = 0;
//     htri_t ex = H5Aexists(o, name);
//     if (ex <= 0) { if (ex < 0) *found = 1; return NULL; }
//     *found = 1;
//     hid_t a = H5Aopen(o, name, H5P_DEFAULT);
//     if (a < 0) return NULL;
//     hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
//     char *out = NULL;
//     /* One string only: a read of more elements would overrun the buffer. */
//     int one = sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1;
//     if (sp >= 0) H5Sclose(sp);
//     if (one && t >= 0 && H5Tget_class(t) == H5T_STRING) {
//         if (H5Tis_variable_str(t) > 0) {
//             char *p = NULL;
//             hid_t mt = H5Tcopy(H5T_C_S1);
//             H5Tset_size(mt, H5T_VARIABLE);
//             H5Tset_cset(mt, H5Tget_cset(t));
//             if (H5Aread(a, mt, &p) >= 0 && p) { out = strdup(p); H5free_memory(p); }
//             H5Tclose(mt);
//         } else {
//             size_t n = H5Tget_size(t);
//             out = calloc(n + 1, 1);
//             if (out && H5Aread(a, t, out) < 0) { free(out); out = NULL; }
//         }
//     }
//     if (t >= 0) H5Tclose(t);
//     H5Aclose(a);
//     return out;
// }
//
// static hid_t tsstore_fopen_ro(const char *path) {
//     hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
//     if (fapl < 0) return -1;
//     /* Closing the file closes every object still open in it. */
//     H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
//     hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
//     H5Pclose(fapl);
//     return f;
// }
// /* The start and count of the hyperslab a call reads or writes. Every call into HDF5 holds
//    the process's netcdf lock, so one pair serves them all, and a read allocates nothing. */
// static hsize_t tsstore_slab_start[32], tsstore_slab_count[32];
// static hsize_t *tsstore_slab(int which) { return which ? tsstore_slab_count : tsstore_slab_start; }
//
// static hid_t tsstore_native(int code) {
//     switch (code) {
//     case 0: return H5T_NATIVE_DOUBLE;
//     case 1: return H5T_NATIVE_FLOAT;
//     case 2: return H5T_NATIVE_INT64;
//     case 3: return H5T_NATIVE_INT32;
//     case 4: return H5T_NATIVE_UINT64;
//     default: return H5T_NATIVE_UINT8;
//     }
// }
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// Error is an HDF5 call that failed, with what it was doing.
type Error struct{ Op string }

func (e *Error) Error() string { return "HDF5 " + e.Op + " failed" }

// File is an HDF5 file open read-only.
type File struct{ id C.hid_t }

// Group is a group of an open file.
type Group struct{ id C.hid_t }

// Dataset is an open dataset.
type Dataset struct{ id C.hid_t }

// OpenReadOnly opens the HDF5 file at path for reading, taking HDF5's shared file lock as
// netcdf-c's read-only open does.
func OpenReadOnly(path string) (*File, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	id := C.tsstore_fopen_ro(cpath)
	if id < 0 {
		return nil, &Error{Op: "open of " + path}
	}
	return &File{id: id}, nil
}

// Close closes the file and every object still open in it.
func (f *File) Close() error {
	if C.H5Fclose(f.id) < 0 {
		return &Error{Op: "close"}
	}
	return nil
}

// RootAttrText reads a text attribute of the root group; ok is false when it is absent.
func (f *File) RootAttrText(name string) (value string, ok bool, err error) {
	return attrText(f.id, name)
}

func attrText(obj C.hid_t, name string) (string, bool, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var found C.int
	p := C.tsstore_attr_text(obj, cname, &found)
	if p == nil {
		if found != 0 {
			return "", true, &Error{Op: "reading attribute " + name}
		}
		return "", false, nil
	}
	defer C.free(unsafe.Pointer(p))
	return C.GoString(p), true, nil
}

// OpenGroup opens the group at an absolute path ("/a/b").
func (f *File) OpenGroup(path string) (Group, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	id := C.H5Gopen2(f.id, cpath, C.H5P_DEFAULT)
	if id < 0 {
		return Group{}, &Error{Op: "open of group " + path}
	}
	return Group{id}, nil
}

// Names lists the names of every link in the group, in no particular order.
func (g Group) Names() ([]string, error) {
	names, _, err := g.NamesInOrder()
	return names, err
}

// NamesInOrder lists the names of every link in the group, in creation order when the group
// indexes it (inOrder), else by name.
func (g Group) NamesInOrder() (names []string, inOrder bool, err error) {
	var n C.tsstore_names
	// In a closure: a deferred call's arguments are evaluated here, while n.buf is NULL.
	defer func() { C.free(unsafe.Pointer(n.buf)) }()
	byName := C.int(0)
	if walkByName {
		byName = 1
	}
	rc := C.tsstore_link_names(g.id, byName, &n)
	if rc < 0 {
		return nil, false, &Error{Op: "listing a group"}
	}
	out := make([]string, 0, int(n.count))
	// One string for the block, each name a part of it: a string per name was most of the
	// listing's cost in a read-only open of 1,000 forecasts (3,000 names).
	block := string(unsafe.Slice((*byte)(unsafe.Pointer(n.buf)), int(n.len)))
	for start := 0; start < len(block); {
		end := start + strings.IndexByte(block[start:], 0)
		if end < start { // the C side ends every name with a NUL; a last one without is whole
			end = len(block)
		}
		out = append(out, block[start:end])
		start = end + 1
	}
	return out, rc == 0, nil
}

// walkByName makes Names walk the name index, as it does for a group without a
// creation-order index (WalkByNameForTesting).
var walkByName bool

// WalkByNameForTesting makes Names walk every group by its name index, the way taken for
// files whose groups do not index creation order, so tests reach it with the files at hand.
func WalkByNameForTesting(on bool) { walkByName = on }

// OpenDatasets counts the datasets open in the file.
func (f *File) OpenDatasets() int {
	return int(C.H5Fget_obj_count(f.id, C.H5F_OBJ_DATASET))
}

// OpenDataset opens the dataset called name with a chunk cache of the given bytes and slots
// (0 bytes: no cache).
func (g Group) OpenDataset(name string, cacheBytes, slots uint64) (Dataset, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	id := C.tsstore_dopen(g.id, cname, C.size_t(cacheBytes), C.size_t(max(slots, 1)))
	if id < 0 {
		return Dataset{}, &Error{Op: "open of dataset " + name}
	}
	return Dataset{id}, nil
}

// IsDataset says whether the link name of the group leads to a dataset, not a group or a
// named datatype (which netcdf-c does not list as variables).
func (g Group) IsDataset(name string) (bool, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	switch C.tsstore_is_dataset(g.id, cname) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, &Error{Op: "opening object " + name}
}

// Class is an HDF5 datatype class, as far as a store's datasets use them.
type Class int

const (
	Integer Class = C.H5T_INTEGER
	Float   Class = C.H5T_FLOAT
	String  Class = C.H5T_STRING
)

// Type describes a dataset's element type.
type Type struct {
	Class Class
	Size  int
	// Signed is meaningful for integers.
	Signed bool
	// VarString is a variable-length string (netCDF's NC_STRING).
	VarString bool
}

// Describe gives the dataset's element type and dimensions.
func (d Dataset) Describe() (Type, []uint64, error) {
	var cls, sign, varstr, rank C.int
	var size C.size_t
	var dims [32]C.hsize_t
	if C.tsstore_describe(d.id, &cls, &size, &sign, &varstr, &rank, &dims[0]) < 0 {
		return Type{}, nil, &Error{Op: "reading a dataset's type and shape"}
	}
	out := make([]uint64, int(rank))
	for i := range out {
		out[i] = uint64(dims[i])
	}
	return Type{Class: Class(cls), Size: int(size), Signed: sign == C.H5T_SGN_2, VarString: varstr != 0}, out, nil
}

// Chunks gives the chunk shape of a dataset of the given rank; chunked is false for a
// contiguous or compact one.
func (d Dataset) Chunks(rank int) (chunked bool, chunks []uint64, err error) {
	var c [32]C.hsize_t
	if rank > len(c) {
		return false, nil, fmt.Errorf("rank %d", rank)
	}
	switch C.tsstore_chunks(d.id, C.int(rank), &c[0]) {
	case 0:
		return false, nil, nil
	case 1:
		out := make([]uint64, rank)
		for i := range out {
			out[i] = uint64(c[i])
		}
		return true, out, nil
	}
	return false, nil, &Error{Op: "reading a dataset's chunking"}
}

// Read reads the hyperslab [start, start+count) into buf as the native type of the store
// dtype code (docs/format.md §2: 0 f64, 1 f32, 2 i64, 3 i32, 4 u64, 5 bool); HDF5 converts
// from the file's byte order. buf must hold exactly the hyperslab.
func (d Dataset) Read(dtype int, start, count []uint64, buf unsafe.Pointer) error {
	return d.io(dtype, start, count, buf, false)
}

// io reads or writes the hyperslab [start, start+count) through tsstore_io.
func (d Dataset) io(dtype int, start, count []uint64, buf unsafe.Pointer, write bool) error {
	s, c, err := slab(start, count)
	if err != nil {
		return err
	}
	w, op := C.int(0), "read"
	if write {
		w, op = 1, "write"
	}
	if C.tsstore_io(d.id, C.tsstore_native(C.int(dtype)), C.int(len(start)), s, c, buf, w) < 0 {
		return &Error{Op: op}
	}
	return nil
}

// slab puts a hyperslab in the shared C arrays (see tsstore_slab_start).
func slab(start, count []uint64) (s, c *C.hsize_t, err error) {
	if len(start) > 32 || len(start) != len(count) {
		return nil, nil, fmt.Errorf("hyperslab of rank %d/%d", len(start), len(count))
	}
	s, c = C.tsstore_slab(0), C.tsstore_slab(1)
	ss, cs := unsafe.Slice(s, len(start)), unsafe.Slice(c, len(start))
	for i := range start {
		ss[i], cs[i] = C.hsize_t(start[i]), C.hsize_t(count[i])
	}
	return s, c, nil
}

// Write writes buf, elements of the store dtype code in native layout, into the hyperslab
// [start, start+count). buf must hold exactly the hyperslab.
func (d Dataset) Write(dtype int, start, count []uint64, buf unsafe.Pointer) error {
	if len(start) == 0 {
		return fmt.Errorf("h5: a write of rank 0")
	}
	return d.io(dtype, start, count, buf, true)
}

// ReadStringsEach reads n strings from index start of a 1-D variable-length string dataset
// and hands each to each, NULL as "". The string is a view of HDF5's memory, valid only
// during the call: each copies what it keeps. (A hash companion of 100,000 slots made as
// many Go strings at every open.)
func (d Dataset) ReadStringsEach(start, n uint64, each func(i int, s string) error) error {
	if n == 0 {
		return nil
	}
	ptrs := (**C.char)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(ptrs))
	if C.tsstore_strings_io(d.id, C.hsize_t(start), C.hsize_t(n), ptrs, 0) < 0 {
		return &Error{Op: "reading strings"}
	}
	defer C.tsstore_free_strings(C.hsize_t(n), ptrs)
	lens := make([]C.size_t, n)
	C.tsstore_strlens(C.hsize_t(n), ptrs, &lens[0])
	for i, p := range unsafe.Slice(ptrs, n) {
		var s string
		if p != nil {
			s = unsafe.String((*byte)(unsafe.Pointer(p)), int(lens[i]))
		}
		if err := each(i, s); err != nil {
			return err
		}
	}
	return nil
}

// WriteStringBlock writes len(block)/width strings from index start of a 1-D
// variable-length string dataset: entry i is block[i*width:(i+1)*width] up to its first NUL
// (all NULs: ""). One C block holds them all, not a C string each.
func (d Dataset) WriteStringBlock(start uint64, block []byte, width int) error {
	n := len(block) / width
	if n == 0 {
		return nil
	}
	text := (*C.char)(C.malloc(C.size_t(n * (width + 1))))
	defer C.free(unsafe.Pointer(text))
	ptrs := (**C.char)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(ptrs))
	dst := unsafe.Slice((*byte)(unsafe.Pointer(text)), n*(width+1))
	list := unsafe.Slice(ptrs, n)
	for i := range list {
		copy(dst[i*(width+1):], block[i*width:(i+1)*width])
		dst[i*(width+1)+width] = 0
		list[i] = (*C.char)(unsafe.Pointer(&dst[i*(width+1)]))
	}
	if C.tsstore_strings_io(d.id, C.hsize_t(start), C.hsize_t(n), ptrs, 1) < 0 {
		return &Error{Op: "writing strings"}
	}
	return nil
}

// Close closes the dataset.
func (d Dataset) Close() {
	if d.id > 0 {
		C.H5Dclose(d.id)
	}
}
