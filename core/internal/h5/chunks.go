package h5

// #cgo pkg-config: hdf5
// #include <hdf5.h>
//
// /* The dataset's filter pipeline: up to 8 filter ids and each one's first client value
//    (deflate's level, shuffle's element size). Returns the number of filters, or -1. */
// static int tsstore_filters(hid_t d, int *ids, unsigned *first) {
//     hid_t p = H5Dget_create_plist(d);
//     if (p < 0) return -1;
//     int n = H5Pget_nfilters(p);
//     for (int i = 0; i < n && i < 8; i++) {
//         unsigned flags, cd[4] = {0};
//         size_t ncd = 4;
//         unsigned config;
//         H5Z_filter_t id = H5Pget_filter2(p, (unsigned)i, &flags, &ncd, cd, 0, NULL, &config);
//         if (id < 0) { n = -1; break; }
//         ids[i] = (int)id;
//         first[i] = ncd > 0 ? cd[0] : 0;
//     }
//     H5Pclose(p);
//     return n;
// }
//
// /* 1 when the dataset's file type keeps its elements little-endian (or has no byte order),
//    0 when not, -1 on error. */
// static int tsstore_little_endian(hid_t d) {
//     hid_t t = H5Dget_type(d);
//     if (t < 0) return -1;
//     H5T_order_t o = H5Tget_order(t);
//     H5Tclose(t);
//     if (o == H5T_ORDER_ERROR) return -1;
//     return o == H5T_ORDER_LE || o == H5T_ORDER_NONE;
// }
//
// /* A chunk's offset for the next call: calls are serialised (package serial), as for
//    tsstore_slab. */
// static hsize_t tsstore_chunk_at[32];
// static hsize_t *tsstore_chunk_offset(void) { return tsstore_chunk_at; }
//
// /* The bytes chunk offset holds in the file: 0 when it was never written. */
// static int tsstore_chunk_size(hid_t d, const hsize_t *offset, hsize_t *bytes) {
//     haddr_t addr;
//     unsigned mask;
//     *bytes = 0;
//     if (H5Dget_chunk_storage_size(d, offset, bytes) >= 0 && *bytes > 0) return 0;
//     /* It fails, or says 0, for a chunk never written; H5Dget_chunk_info_by_coord (slower:
//        it walks the index where H5Dget_chunk_storage_size looks the chunk up) tells that
//        from a failure by an undefined address. */
//     if (H5Dget_chunk_info_by_coord(d, offset, &mask, &addr, bytes) < 0) return -1;
//     if (addr == HADDR_UNDEF) *bytes = 0;
//     return 0;
// }
import "C"

import (
	"fmt"
	"unsafe"
)

// Filter ids of HDF5's built-in filters this package reports.
const (
	FilterDeflate = int(C.H5Z_FILTER_DEFLATE)
	FilterShuffle = int(C.H5Z_FILTER_SHUFFLE)
)

// Filter is one filter of a dataset's pipeline: its id and its first client value.
type Filter struct {
	ID    int
	First uint32
}

// LittleEndian reports whether the dataset's file type keeps its elements little-endian, as
// this format writes them (docs/format.md §2). Another writer may store big-endian types,
// which HDF5 converts on a hyperslab read but a chunk read hands over as they are.
func (d Dataset) LittleEndian() (bool, error) {
	switch C.tsstore_little_endian(d.id) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, &Error{Op: "reading a dataset's byte order"}
}

// Filters is the dataset's filter pipeline, in the order HDF5 applies it when writing.
func (d Dataset) Filters() ([]Filter, error) {
	var ids [8]C.int
	var first [8]C.uint
	n := int(C.tsstore_filters(d.id, &ids[0], &first[0]))
	if n < 0 || n > 8 {
		return nil, &Error{Op: "reading the filter pipeline"}
	}
	out := make([]Filter, n)
	for i := range out {
		out[i] = Filter{int(ids[i]), uint32(first[i])}
	}
	return out, nil
}

// chunkOffset puts a chunk's logical offset (element coordinates of its first element) in
// C memory of the dataset's rank.
func chunkOffset(offset []uint64) (*C.hsize_t, error) {
	if len(offset) == 0 || len(offset) > 32 {
		return nil, fmt.Errorf("h5: chunk offset of rank %d", len(offset))
	}
	s := C.tsstore_chunk_offset()
	ss := unsafe.Slice(s, len(offset))
	for i, o := range offset {
		ss[i] = C.hsize_t(o)
	}
	return s, nil
}

// WriteChunk stores data, a chunk already passed through the dataset's filters except those
// whose bits mask sets, as the chunk at offset. HDF5 drops any cached copy of the chunk.
func (d Dataset) WriteChunk(offset []uint64, mask uint32, data []byte) error {
	off, err := chunkOffset(offset)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return fmt.Errorf("h5: an empty chunk")
	}
	if C.H5Dwrite_chunk(d.id, C.H5P_DEFAULT, C.uint32_t(mask), off, C.size_t(len(data)), unsafe.Pointer(&data[0])) < 0 {
		return &Error{Op: "writing a chunk"}
	}
	return nil
}

// StoredChunkSize is how many bytes the chunk at offset holds in the file, 0 for a chunk
// never written. What it says of a chunk changed in HDF5's cache and not yet flushed is not
// relied on: ncstore reads chunks directly from read-only files, and from a writable file's
// dataset only after Flush.
func (d Dataset) StoredChunkSize(offset []uint64) (int, error) {
	off, err := chunkOffset(offset)
	if err != nil {
		return 0, err
	}
	var n C.hsize_t
	if C.tsstore_chunk_size(d.id, off, &n) < 0 {
		return 0, &Error{Op: "reading a chunk's size"}
	}
	return int(n), nil
}

// ReadChunk reads the chunk at offset as stored, into buf (which must hold
// StoredChunkSize bytes), and returns its filter mask.
func (d Dataset) ReadChunk(offset []uint64, buf []byte) (uint32, error) {
	off, err := chunkOffset(offset)
	if err != nil {
		return 0, err
	}
	if len(buf) == 0 {
		return 0, fmt.Errorf("h5: a chunk read into no memory")
	}
	var mask C.uint32_t
	if C.H5Dread_chunk(d.id, C.H5P_DEFAULT, off, &mask, unsafe.Pointer(&buf[0])) < 0 {
		return 0, &Error{Op: "reading a chunk"}
	}
	return uint32(mask), nil
}

// Flush writes the chunks HDF5 holds changed in the dataset's cache to the file, so that
// H5Dread_chunk and H5Dget_chunk_storage_size see them there.
func (d Dataset) Flush() error {
	if C.H5Dflush(d.id) < 0 {
		return &Error{Op: "flushing a dataset"}
	}
	return nil
}
