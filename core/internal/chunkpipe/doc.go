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
//   - deflate (H5Z_FILTER_DEFLATE): a zlib stream at the dataset's level, no larger than
//     HDF5's own output buffer, ⌈1.001·size⌉ + 12 bytes. Chunks of FastFrom bytes and more
//     are compressed by libdeflate (1.6× zlib's speed at level 3 here, the same ratio);
//     smaller ones, and any libdeflate cannot fit in the bound, by zlib's compress2, whose
//     bytes are the very bytes HDF5's filter stores. Were zlib's not to fit either, HDF5
//     would store the chunk without deflate and set the filter's bit in the chunk's filter
//     mask, since netCDF-4 adds the filter as optional; so does Encode.
//
// Decoding undoes the filters whose bits the chunk's mask leaves clear, with zlib's inflate
// (faster than libdeflate's on these chunks). zlib and libdeflate keep no global state, so
// workers call them without the process-wide lock.
package chunkpipe
