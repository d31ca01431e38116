// Package chunkpipe encodes and decodes HDF5 chunks outside HDF5, on a pool of workers, so
// that a bulk write or read uses every core while HDF5 itself (which is not thread-safe as
// built here, package serial) only moves bytes that are already encoded: H5Dwrite_chunk
// and H5Dread_chunk (package h5).
//
// A chunk is encoded for the filter pipeline its dataset records, so that HDF5, netcdf-c
// and every other reader decode it as if HDF5 had encoded it (docs/format.md §7.9):
//
//   - shuffle (HDF5's H5Z_FILTER_SHUFFLE): byte j of element i moves to j·n + i, for n
//     elements of the dataset type's size; a chunk of one element, or of 1-byte elements, is
//     left as it is;
//   - deflate (H5Z_FILTER_DEFLATE): one zlib stream at the dataset's level into a buffer of
//     ⌈1.001·size⌉ + 12 bytes, HDF5's own bound. It is zlib's compress2, the very bytes
//     HDF5's filter stores, except in shuffled chunks of at least 4,096 elements: there the
//     byte planes that string matching cannot shorten (the low mantissa bytes of floats:
//     nearly uniform bytes, no repeated runs) are coded with Huffman codes alone, which
//     halves deflate's time on them and stores about as many bytes (deflate.c). Where a stream does
//     not fit (zlib's stored blocks always do), HDF5 stores the chunk without it and sets
//     the filter's bit in the chunk's filter mask, since netCDF-4 adds the filter as
//     optional; so does Encode. Each worker reuses its zlib streams (deflateReset), where
//     compress2 allocates and clears about 270 KB per chunk.
//
// Decoding undoes the filters whose bits the chunk's mask leaves clear. It inflates with
// libdeflate, 2.6× zlib's speed on these chunks. libdeflate also compresses 2× faster than
// zlib, but zlib (inside HDF5, for netcdf-c, h5py, xarray and the other implementation)
// inflates libdeflate's streams of these chunks 3× slower than zlib's own (220 against
// 650 MB/s), and files are read far more often than written; so writes stay zlib's.
// zlib and libdeflate keep no global state, so workers call them without the process-wide
// lock.
package chunkpipe
