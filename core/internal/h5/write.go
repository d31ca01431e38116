package h5

// Writing a netCDF-4 file through HDF5 means keeping the conventions netcdf-c keeps, so that
// netcdf-c (ncdump, xarray, the other implementation) reads what is written here as if it had
// written it. What netcdf-c 4.9 writes for a dimension without a coordinate variable and for
// a variable, as h5dump shows it, and what these functions therefore write
// (docs/format.md §7.8):
//
//   - a dimension is a dataset of H5T_IEEE_F32BE of its length, never written, that is an
//     HDF5 dimension scale: CLASS "DIMENSION_SCALE" and NAME "This is a netCDF dimension but
//     not a netCDF variable." followed by the length in ten columns; then _Netcdf4Dimid, its
//     file-wide dimension id, as a scalar 32-bit integer;
//   - a variable is a dataset whose creation properties track and index attribute creation
//     order, do not track times, and hold netcdf-c's default fill value for its type; it
//     carries _Netcdf4Coordinates (the dimension ids, 32-bit integers) and DIMENSION_LIST
//     (one object reference per axis), and each of its dimensions lists it back in
//     REFERENCE_LIST {dataset reference, axis}.
//
// The dimension-scale attributes are written here rather than by HDF5's high-level H5DS
// library, which the C library's users would otherwise have to link as well; they are the
// attributes H5DS writes, with the same types.

// #cgo pkg-config: hdf5
// #include <stdlib.h>
// #include <string.h>
// #include <stdio.h>
// #include <hdf5.h>
// #include <netcdf.h>
//
// static hid_t tsstore_fopen_rw(const char *path, hid_t fapl_in) {
//     hid_t fapl = H5Pcopy(fapl_in > 0 ? fapl_in : H5P_FILE_ACCESS_DEFAULT);
//     if (fapl < 0) return -1;
//     H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
//     hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
//     H5Pclose(fapl);
//     return f;
// }
//
// /* A writable file that lives in memory: the core driver, starting from a copy of image,
//    growing in steps of 1 MiB, never written to disk (H5Pset_fapl_core's backing_store 0). */
// static hid_t tsstore_fopen_image(const char *name, const void *image, size_t n) {
//     hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
//     if (fapl < 0) return -1;
//     H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
//     hid_t f = -1;
//     if (H5Pset_fapl_core(fapl, 1 << 20, 0) >= 0 && H5Pset_file_image(fapl, (void *)image, n) >= 0)
//         f = H5Fopen(name, H5F_ACC_RDWR, fapl);
//     H5Pclose(fapl);
//     return f;
// }
//
// /* The metadata cache's current maximum size. */
// static herr_t tsstore_mdc_size(hid_t f, size_t *max) {
//     size_t min_clean, cur;
//     int n;
//     return H5Fget_mdc_size(f, max, &min_clean, &cur, &n);
// }
//
// /* Sets the metadata cache's current size, as HDF5's automatic resizing does (the rest of
//    its configuration as it is). */
// static herr_t tsstore_mdc_set_size(hid_t f, size_t bytes) {
//     H5AC_cache_config_t c;
//     c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
//     if (H5Fget_mdc_config(f, &c) < 0) return -1;
//     c.set_initial_size = 1;
//     c.initial_size = bytes;
//     return H5Fset_mdc_config(f, &c);
// }
//
// /* Returns the file's metadata cache to its initial size if HDF5's automatic resizing has
//    grown it past that; 1 when it had grown. Its clean entries past the size are evicted at
//    the next access. */
// static int tsstore_mdc_trim(hid_t f) {
//     size_t max;
//     H5AC_cache_config_t initial;
//     initial.version = H5AC__CURR_CACHE_CONFIG_VERSION;
//     if (tsstore_mdc_size(f, &max) < 0) return -1;
//     /* The file's configuration reports its current size as the initial one; HDF5's
//        default access list holds the size files open with. */
//     if (H5Pget_mdc_config(H5P_FILE_ACCESS_DEFAULT, &initial) < 0) return -1;
//     if (max <= initial.initial_size) return 0;
//     return tsstore_mdc_set_size(f, initial.initial_size) < 0 ? -1 : 1;
// }
//
// /* The little-endian file type netcdf-c gives each store dtype (docs/format.md §2). */
// static hid_t tsstore_file_type(int code) {
//     switch (code) {
//     case 0: return H5T_IEEE_F64LE;
//     case 1: return H5T_IEEE_F32LE;
//     case 2: return H5T_STD_I64LE;
//     case 3: return H5T_STD_I32LE;
//     case 4: return H5T_STD_U64LE;
//     default: return H5T_STD_U8LE;
//     }
// }
//
// /* netcdf-c's default fill value of each dtype, as bytes of the file type. */
// static void tsstore_default_fill(int code, void *out) {
//     double d = NC_FILL_DOUBLE; float fl = NC_FILL_FLOAT;
//     long long i64 = NC_FILL_INT64; int i32 = NC_FILL_INT;
//     unsigned long long u64 = NC_FILL_UINT64; unsigned char u8 = NC_FILL_UBYTE;
//     switch (code) {
//     case 0: memcpy(out, &d, 8); break;
//     case 1: memcpy(out, &fl, 4); break;
//     case 2: memcpy(out, &i64, 8); break;
//     case 3: memcpy(out, &i32, 4); break;
//     case 4: memcpy(out, &u64, 8); break;
//     default: memcpy(out, &u8, 1); break;
//     }
// }
//
// /* netcdf-c's NC_STRING: variable-length, NUL-terminated, UTF-8. */
// static hid_t tsstore_vstring(void) {
//     hid_t t = H5Tcopy(H5T_C_S1);
//     if (t < 0) return -1;
//     if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
//         H5Tset_cset(t, H5T_CSET_UTF8) < 0) { H5Tclose(t); return -1; }
//     return t;
// }
//
// static hid_t tsstore_netcdf_dcpl(void) {
//     hid_t p = H5Pcreate(H5P_DATASET_CREATE);
//     if (p < 0) return -1;
//     if (H5Pset_obj_track_times(p, 0) < 0 ||
//         H5Pset_attr_creation_order(p, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0) {
//         H5Pclose(p); return -1;
//     }
//     return p;
// }
//
// static herr_t tsstore_put_attr(hid_t o, const char *name, hid_t ft, hid_t mt, int rank, const hsize_t *dims, const void *val) {
//     hid_t sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
//     if (sp < 0) return -1;
//     hid_t a = H5Acreate2(o, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT);
//     herr_t rc = a < 0 ? -1 : H5Awrite(a, mt, val);
//     if (a >= 0) H5Aclose(a);
//     H5Sclose(sp);
//     return rc;
// }
//
// static herr_t tsstore_put_fixed_text(hid_t o, const char *name, const char *text) {
//     hid_t t = H5Tcopy(H5T_C_S1);
//     if (t < 0) return -1;
//     herr_t rc = -1;
//     if (H5Tset_size(t, strlen(text) + 1) >= 0 && H5Tset_strpad(t, H5T_STR_NULLTERM) >= 0)
//         rc = tsstore_put_attr(o, name, t, t, 0, NULL, text);
//     H5Tclose(t);
//     return rc;
// }
//
// /* Creates the dimension name of length len in g, with file-wide id dimid. */
// static hid_t tsstore_def_dim(hid_t g, const char *name, hsize_t len, int dimid) {
//     hid_t dcpl = tsstore_netcdf_dcpl();
//     if (dcpl < 0) return -1;
//     hid_t sp = H5Screate_simple(1, &len, &len);
//     hid_t d = sp < 0 ? -1 : H5Dcreate2(g, name, H5T_IEEE_F32BE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
//     if (sp >= 0) H5Sclose(sp);
//     H5Pclose(dcpl);
//     if (d < 0) return -1;
//     char label[96];
//     snprintf(label, sizeof label, "This is a netCDF dimension but not a netCDF variable.%10d", (int)len);
//     if (tsstore_put_fixed_text(d, "CLASS", "DIMENSION_SCALE") < 0 ||
//         tsstore_put_fixed_text(d, "NAME", label) < 0 ||
//         tsstore_put_attr(d, "_Netcdf4Dimid", H5T_NATIVE_INT, H5T_NATIVE_INT, 0, NULL, &dimid) < 0) {
//         H5Dclose(d);
//         H5Ldelete(g, name, H5P_DEFAULT);
//         return -1;
//     }
//     return d;
// }
//
// /* H5DS's REFERENCE_LIST element. */
// typedef struct { hobj_ref_t ref; int axis; } tsstore_backref;
//
// static hid_t tsstore_backref_type(void) {
//     hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(tsstore_backref));
//     if (t < 0) return -1;
//     if (H5Tinsert(t, "dataset", HOFFSET(tsstore_backref, ref), H5T_STD_REF_OBJ) < 0 ||
//         H5Tinsert(t, "dimension", HOFFSET(tsstore_backref, axis), H5T_NATIVE_INT) < 0) {
//         H5Tclose(t); return -1;
//     }
//     return t;
// }
//
// /* Appends {var, axis} to the REFERENCE_LIST of the dimension scale dim (var is named
//    var_name in group g). */
// static herr_t tsstore_add_backref(hid_t g, hid_t dim, const char *var_name, int axis) {
//     hid_t t = tsstore_backref_type();
//     if (t < 0) return -1;
//     herr_t rc = -1;
//     tsstore_backref *list = NULL;
//     hssize_t n = 0;
//     htri_t ex = H5Aexists(dim, "REFERENCE_LIST");
//     if (ex < 0) goto out;
//     if (ex > 0) {
//         hid_t a = H5Aopen(dim, "REFERENCE_LIST", H5P_DEFAULT);
//         if (a < 0) goto out;
//         hid_t sp = H5Aget_space(a);
//         n = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
//         if (sp >= 0) H5Sclose(sp);
//         list = n >= 0 ? calloc((size_t)n + 1, sizeof *list) : NULL;
//         herr_t r = list ? H5Aread(a, t, list) : -1;
//         H5Aclose(a);
//         if (r < 0 || H5Adelete(dim, "REFERENCE_LIST") < 0) goto out;
//     } else {
//         list = calloc(1, sizeof *list);
//         if (!list) goto out;
//     }
//     if (H5Rcreate(&list[n].ref, g, var_name, H5R_OBJECT, -1) < 0) goto out;
//     list[n].axis = axis;
//     hsize_t len = (hsize_t)n + 1;
//     rc = tsstore_put_attr(dim, "REFERENCE_LIST", t, t, 1, &len, list);
// out:
//     free(list);
//     H5Tclose(t);
//     return rc;
// }
//
// /* Gives the variable d (var_name in g) its _Netcdf4Coordinates and DIMENSION_LIST, and
//    lists it in each dimension's REFERENCE_LIST. */
// static herr_t tsstore_attach_dims(hid_t g, hid_t d, const char *var_name, int rank,
//                                   const hid_t *dims, const char *const *dim_names, const int *dimids) {
//     hsize_t r = (hsize_t)rank;
//     if (tsstore_put_attr(d, "_Netcdf4Coordinates", H5T_NATIVE_INT, H5T_NATIVE_INT, 1, &r, dimids) < 0) return -1;
//     hobj_ref_t refs[32];
//     hvl_t vl[32];
//     for (int i = 0; i < rank; i++) {
//         if (H5Rcreate(&refs[i], g, dim_names[i], H5R_OBJECT, -1) < 0) return -1;
//         vl[i].len = 1;
//         vl[i].p = &refs[i];
//     }
//     hid_t vt = H5Tvlen_create(H5T_STD_REF_OBJ);
//     if (vt < 0) return -1;
//     herr_t rc = tsstore_put_attr(d, "DIMENSION_LIST", vt, vt, 1, &r, vl);
//     H5Tclose(vt);
//     for (int i = 0; rc >= 0 && i < rank; i++) rc = tsstore_add_backref(g, dims[i], var_name, i);
//     return rc;
// }
//
// /* Creates variable name in g of dtype code (or an NC_STRING when code < 0) over the given
//    dimensions, chunked when chunks is not NULL, with shuffle and deflate when level > 0.
//    A string variable gets no fill value but zero-filled storage (docs/format.md §7.8): with
//    netcdf-c's "" HDF5 writes a heap object per element when it allocates the dataset and
//    deletes each one again when the element is written, 4 us an element at 100,000; zeros
//    are null strings, which the writer overwrites all at once (ncstore's putSlots). */
// static hid_t tsstore_def_var(hid_t g, const char *name, int code, int rank, const hsize_t *lens,
//                              const hsize_t *chunks, int shuffle, int level,
//                              size_t cache_bytes, size_t cache_slots) {
//     hid_t ft = code < 0 ? tsstore_vstring() : H5Tcopy(tsstore_file_type(code));
//     if (ft < 0) return -1;
//     hid_t dcpl = tsstore_netcdf_dcpl(), dapl = H5Pcreate(H5P_DATASET_ACCESS);
//     hid_t sp = H5Screate_simple(rank, lens, lens);
//     hid_t d = -1;
//     unsigned char fill[8];
//     if (dcpl < 0 || dapl < 0 || sp < 0) goto out;
//     if (code < 0) {
//         if (H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC) < 0) goto out;
//     } else {
//         tsstore_default_fill(code, fill);
//         if (H5Pset_fill_value(dcpl, ft, fill) < 0) goto out;
//     }
//     if (chunks && H5Pset_chunk(dcpl, rank, chunks) < 0) goto out;
//     if (chunks && shuffle && H5Pset_shuffle(dcpl) < 0) goto out;
//     if (chunks && level > 0 && H5Pset_deflate(dcpl, (unsigned)level) < 0) goto out;
//     if (H5Pset_chunk_cache(dapl, cache_slots, cache_bytes, 1.0) < 0) goto out;
//     d = H5Dcreate2(g, name, ft, sp, H5P_DEFAULT, dcpl, dapl);
// out:
//     if (sp >= 0) H5Sclose(sp);
//     if (dcpl >= 0) H5Pclose(dcpl);
//     if (dapl >= 0) H5Pclose(dapl);
//     H5Tclose(ft);
//     return d;
// }
//
// /* The _Netcdf4Dimid of dataset name in g, or -1 when it has none. */
// static int tsstore_dimid(hid_t g, const char *name) {
//     hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
//     if (d < 0) return -2;
//     int id = -1;
//     if (H5Aexists(d, "_Netcdf4Dimid") > 0) {
//         hid_t a = H5Aopen(d, "_Netcdf4Dimid", H5P_DEFAULT);
//         if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &id) < 0) id = -2;
//         if (a >= 0) H5Aclose(a);
//     }
//     H5Dclose(d);
//     return id;
// }
//
// /* netCDF dimension ids are file-wide, so a new one must also pass the ids of dimensions in
//    groups other than the one a store writes. This walk raises next past the _Netcdf4Dimid of
//    every dataset in the groups under a group, leaving out the group at address skip (the
//    store's own, which the caller scans its own way) and any group met before: netcdf-c
//    writes a tree, but HDF5's hard links may make a cycle, which must not hang the walk. */
// typedef struct { haddr_t skip; haddr_t seen[256]; int nseen; int next; } tsstore_dimwalk;
//
// static herr_t tsstore_dimwalk_cb(hid_t g, const char *name, const H5L_info_t *info, void *op) {
//     tsstore_dimwalk *w = op;
//     if (info->type != H5L_TYPE_HARD) return 0; /* netcdf-c makes no soft or external links */
//     hid_t o = H5Oopen(g, name, H5P_DEFAULT);
//     if (o < 0) return -1;
//     H5O_info_t oi;
//     herr_t rc = H5Oget_info2(o, &oi, H5O_INFO_BASIC);
//     if (rc >= 0 && oi.type == H5O_TYPE_DATASET) {
//         htri_t ex = H5Aexists(o, "_Netcdf4Dimid");
//         int id = -1;
//         if (ex < 0) rc = -1;
//         else if (ex > 0) {
//             hid_t a = H5Aopen(o, "_Netcdf4Dimid", H5P_DEFAULT);
//             if (a < 0 || H5Aread(a, H5T_NATIVE_INT, &id) < 0) rc = -1;
//             if (a >= 0) H5Aclose(a);
//         }
//         if (rc >= 0 && id >= w->next) w->next = id + 1;
//     } else if (rc >= 0 && oi.type == H5O_TYPE_GROUP && oi.addr != w->skip) {
//         int seen = 0;
//         for (int i = 0; i < w->nseen; i++) seen |= w->seen[i] == oi.addr;
//         if (!seen) {
//             if (w->nseen == (int)(sizeof w->seen / sizeof w->seen[0])) rc = -1;
//             else {
//                 hsize_t idx = 0;
//                 w->seen[w->nseen++] = oi.addr;
//                 rc = H5Literate(o, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, tsstore_dimwalk_cb, w);
//             }
//         }
//     }
//     H5Oclose(o);
//     return rc < 0 ? -1 : 0;
// }
//
// /* One past the highest dimension id outside the group skip_grp of file f (0: none), or -1. */
// static int tsstore_next_dimid_outside(hid_t f, hid_t skip_grp) {
//     H5O_info_t si, ri;
//     hid_t root = H5Gopen2(f, "/", H5P_DEFAULT);
//     if (root < 0) return -1;
//     tsstore_dimwalk w = {0};
//     hsize_t idx = 0;
//     herr_t rc = H5Oget_info2(skip_grp, &si, H5O_INFO_BASIC);
//     if (rc >= 0) rc = H5Oget_info2(root, &ri, H5O_INFO_BASIC);
//     if (rc >= 0) {
//         w.skip = si.addr;
//         w.seen[w.nseen++] = ri.addr;
//         rc = H5Literate(root, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, tsstore_dimwalk_cb, &w);
//     }
//     H5Gclose(root);
//     return rc < 0 ? -1 : w.next;
// }
//
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// OpenReadWrite opens the HDF5 file at path for writing with the file-access properties
// fapl (0: HDF5's defaults), for example a journalling driver's.
func OpenReadWrite(path string, fapl int64) (*File, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	id := C.tsstore_fopen_rw(cpath, C.hid_t(fapl))
	if id < 0 {
		return nil, &Error{Op: "open for writing of " + path}
	}
	return &File{id: id}, nil
}

// imageOpens numbers the in-memory files, so that each has a name of its own: the core
// driver tells files apart by name when none has a backing file, and two in-memory stores
// must never be taken for one file.
var imageOpens atomic.Int64

// OpenImage opens a writable file that lives in memory, starting as a copy of image (the
// bytes of an HDF5 file, such as netcdf-c's in-memory create hands back). Nothing of it
// reaches a disk; closing it frees it.
func OpenImage(image []byte) (*File, error) {
	if len(image) == 0 {
		return nil, &Error{Op: "open of an empty file image"}
	}
	name := C.CString(fmt.Sprintf("tsstore-in-memory-%d.nc", imageOpens.Add(1)))
	defer C.free(unsafe.Pointer(name))
	id := C.tsstore_fopen_image(name, unsafe.Pointer(&image[0]), C.size_t(len(image)))
	if id < 0 {
		return nil, &Error{Op: "open of an in-memory file image"}
	}
	return &File{id: id}, nil
}

// Flush hands every buffered byte of the file to its driver (H5Fflush, global scope).
func (f *File) Flush() error {
	if C.H5Fflush(f.id, C.H5F_SCOPE_GLOBAL) < 0 {
		return &Error{Op: "flush"}
	}
	return nil
}

// TrimMetadataCache returns the file's metadata cache to its initial size (HDF5's default,
// 2 MiB) when HDF5 has grown it, and says whether it had. HDF5 grows the cache while a bulk
// load misses in it — to 8 MiB and 6,600 entries over 100,000 forecasts — and never shrinks
// it while the hit rate stays high; HDF5 1.10's H5Fflush walks every entry of the cache, so
// each later durable write paid for the bulk load (docs/architecture.md, "Writes through
// HDF5"). A caller trims after a flush, when every entry is clean and evicting costs no write.
func (f *File) TrimMetadataCache() (bool, error) {
	switch C.tsstore_mdc_trim(f.id) {
	case -1:
		return false, &Error{Op: "metadata cache resize"}
	case 1:
		return true, nil
	}
	return false, nil
}

// MetadataCacheSize is the metadata cache's current maximum size in bytes.
func (f *File) MetadataCacheSize() (uint64, error) {
	var m C.size_t
	if C.tsstore_mdc_size(f.id, &m) < 0 {
		return 0, &Error{Op: "metadata cache size"}
	}
	return uint64(m), nil
}

// GrowMetadataCacheForTesting sets the metadata cache's size to bytes (at most HDF5's
// maximum, 32 MiB), as HDF5 grows it during a bulk load.
func (f *File) GrowMetadataCacheForTesting(bytes uint64) error {
	if C.tsstore_mdc_set_size(f.id, C.size_t(bytes)) < 0 {
		return &Error{Op: "metadata cache resize"}
	}
	return nil
}

// DimensionID reads the _Netcdf4Dimid of the dataset name; ok is false when it has none.
func (g Group) DimensionID(name string) (id int, ok bool, err error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	switch v := C.tsstore_dimid(g.id, cname); {
	case v == -2:
		return 0, false, &Error{Op: "reading _Netcdf4Dimid of " + name}
	case v < 0:
		return 0, false, nil
	default:
		return int(v), true, nil
	}
}

// NextDimIDOutside is one past the highest _Netcdf4Dimid of a dataset in any group of the
// file but skip (0 when there is none). A store's file normally has no other dataset, so
// this opens the root group and /time_series and nothing else.
func (f *File) NextDimIDOutside(skip Group) (int, error) {
	next := C.tsstore_next_dimid_outside(f.id, skip.id)
	if next < 0 {
		return 0, &Error{Op: "reading the dimension ids of the other groups"}
	}
	return int(next), nil
}

// Dim is a netCDF dimension defined in a group: its dataset and file-wide id.
type Dim struct {
	Name string
	ID   int
	d    Dataset
}

// DefineDim creates a netCDF dimension of length n with the file-wide id dimid. The caller
// closes the returned dimension once the variables over it are defined (CloseDims).
func (g Group) DefineDim(name string, n uint64, dimid int) (Dim, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	id := C.tsstore_def_dim(g.id, cname, C.hsize_t(n), C.int(dimid))
	if id < 0 {
		return Dim{}, &Error{Op: "defining dimension " + name}
	}
	return Dim{Name: name, ID: dimid, d: Dataset{id}}, nil
}

// CloseDims closes dimensions returned by DefineDim.
func CloseDims(dims []Dim) {
	for _, d := range dims {
		d.d.Close()
	}
}

// VarSpec is what a netCDF variable is defined with.
type VarSpec struct {
	Name string
	// DType is a store dtype code (docs/format.md §2), or -1 for an NC_STRING variable.
	DType int
	Dims  []Dim
	// Chunks is the chunk shape; nil stores the variable contiguously.
	Chunks []uint64
	// Shuffle and DeflateLevel (> 0) are the filters of a chunked variable.
	Shuffle      bool
	DeflateLevel int
	// CacheBytes and CacheSlots size the dataset's chunk cache (0 bytes: none).
	CacheBytes, CacheSlots uint64
}

// DefineVar creates a variable over dimensions made by DefineDim, as netcdf-c would, and
// returns its open dataset.
func (g Group) DefineVar(s VarSpec) (Dataset, error) {
	rank := len(s.Dims)
	if rank == 0 || rank > 32 || (s.Chunks != nil && len(s.Chunks) != rank) {
		return Dataset{}, fmt.Errorf("h5: variable %s of rank %d with %d chunk sizes", s.Name, rank, len(s.Chunks))
	}
	var lens, chunks [32]C.hsize_t
	var ids [32]C.hid_t
	var dimids [32]C.int
	names := make([]*C.char, rank)
	for i, d := range s.Dims {
		_, shape, err := d.d.Describe()
		if err != nil || len(shape) != 1 {
			return Dataset{}, &Error{Op: "reading dimension " + d.Name}
		}
		lens[i], ids[i], dimids[i] = C.hsize_t(shape[0]), d.d.id, C.int(d.ID)
		names[i] = C.CString(d.Name)
		defer C.free(unsafe.Pointer(names[i]))
	}
	var pchunks *C.hsize_t
	if s.Chunks != nil {
		for i, c := range s.Chunks {
			chunks[i] = C.hsize_t(c)
		}
		pchunks = &chunks[0]
	}
	shuffle := C.int(0)
	if s.Shuffle {
		shuffle = 1
	}
	cname := C.CString(s.Name)
	defer C.free(unsafe.Pointer(cname))
	id := C.tsstore_def_var(g.id, cname, C.int(s.DType), C.int(rank), &lens[0], pchunks, shuffle,
		C.int(s.DeflateLevel), C.size_t(s.CacheBytes), C.size_t(max(s.CacheSlots, 1)))
	if id < 0 {
		return Dataset{}, &Error{Op: "defining variable " + s.Name}
	}
	// names is a Go slice of C pointers: copy it to C memory for the call.
	cnames := (**C.char)(C.malloc(C.size_t(rank) * C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(cnames))
	copy(unsafe.Slice(cnames, rank), names)
	if C.tsstore_attach_dims(g.id, id, cname, C.int(rank), &ids[0], cnames, &dimids[0]) < 0 {
		C.H5Dclose(id)
		C.H5Ldelete(g.id, cname, C.H5P_DEFAULT)
		return Dataset{}, &Error{Op: "attaching the dimensions of " + s.Name}
	}
	return Dataset{id}, nil
}

// Unlink removes the link name from the group (the object's space is not reclaimed).
func (g Group) Unlink(name string) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if C.H5Ldelete(g.id, cname, C.H5P_DEFAULT) < 0 {
		return &Error{Op: "unlinking " + name}
	}
	return nil
}
