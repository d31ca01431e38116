// Package ncstore is the NetCDF half of a store: the layout of its .nc file and every byte
// moved into or out of it (docs/format.md §7). It knows datasets, variables, columns and
// content addresses, not series, owners or catalog rows; the store's behaviour (the write
// protocol, lookups, views, readers' public types) is in package core, which asks this
// package for arrays by their SHA-256 digest.
//
// What lives here, file by file:
//
//   - file.go: File, the open NetCDF file or in-memory image: Create (netcdf-c makes the
//     skeleton), Open (with recovery from a hot journal and the reasons an open fails), Sync
//     (a unit's commit point), Close, CopyTo (Persist), and the file's counters;
//   - h5file.go: the file as HDF5 sees it, read-only or writable, on disk or in memory (the
//     core driver): the index of arrays built from the group's link names, and every
//     hyperslab read and write;
//   - lazyindex.go: read-only files listed when first needed, forecasts opened by name;
//   - h5write.go: writable files: the journalled open, defining datasets with the
//     conventions netcdf-c keeps (dimension ids, scales), syncs;
//   - packed.go: packed datasets sts_{dtype}_{shape}_{length}_{res}[__n] and their hash
//     companions (§7.3, §7.4): names, the index, widths, chunk caches, column reads;
//   - standalone.go: standalone variables arr_{hex} (§7.5);
//   - stage.go: writing arrays (one define phase, columns placed and written in row bands)
//     and freeing columns (§8);
//   - direct.go: whole row chunks encoded and decoded on package chunkpipe's workers and
//     moved by HDF5's direct chunk I/O (batch writes, reads of read-only files);
//   - readahead.go: the rows a StaticReader reads in order, read ahead and decoded on the
//     workers;
//   - colcache.go: the read cache of decoded column blocks;
//   - readers.go: the reads of bulk reads and of the step readers;
//   - room.go, room_*.go: the bounds a write is checked against before it starts;
//   - verify.go: rehashing every array for verify_integrity;
//   - journal_errors.go, writable_*.go, lockprobe_*.go, cloexec_*.go: what an open needs of
//     the OS (explaining journal failures, write permission, who holds a lock,
//     close-on-exec);
//   - dtype.go, compression.go: element types and the compression policy as the file
//     records them (§2, §7.7); buffer.go: the aligned buffers of hyperslab I/O;
//   - errors.go: Error and its kinds, which core maps to its public errors.
//
// Array bytes move through HDF5 only (package h5); netcdf-c creates a new file's skeleton.
// Every HDF5 and netcdf-c call is made under the process-wide lock (serial.Lock; neither
// library is thread-safe as built): exported methods take it themselves; unexported helpers
// named …Locked, and those called from them, expect it held. A File is not safe for
// concurrent use; the store serialises its calls.
package ncstore
