package ncstore

import (
	"os"
	"strings"

	"github.com/tsstore/tsstore/core/internal/h5"
	"github.com/tsstore/tsstore/core/internal/journal"
)

// A writable store is written through HDF5 directly, as read-only ones are read
// (h5file.go): netcdf-c's writable open reads every variable's metadata (58 s and 5 GB at
// 100,000 forecasts), and every define phase it ends walks every open variable (311 ms per
// durable forecast add at 100,000). Through HDF5 the open costs what a read-only open costs,
// and defining a variable creates its datasets and nothing else. The datasets and attributes
// written are those netcdf-c writes (package h5, write.go; docs/format.md §7.8), so netcdf-c,
// xarray and the other implementation read the file as before.
//
// flushAtDefine makes the HDF5 route hand its buffers to the file at the end of every define
// phase, as netcdf-c's nc_enddef does. Without it a unit reaches the file only when HDF5's
// caches evict or the unit ends; the journal's tests kill writers after such mid-unit
// flushes, to find committed pages rewritten before the unit's end
// (TSSTORE_HDF5_FLUSH_AT_DEFINE=1 for a child process).
var flushAtDefine = os.Getenv("TSSTORE_HDF5_FLUSH_AT_DEFINE") == "1"

// SetFlushAtDefineForTesting sets flushAtDefine and returns its previous value.
func SetFlushAtDefineForTesting(on bool) bool {
	prev := flushAtDefine
	flushAtDefine = on
	return prev
}

// openH5Writable opens path for writing through HDF5 with the journalling driver, and
// returns the file with its journal.
func openH5Writable(path string) (*File, *journal.Journal, error) {
	fapl, err := journal.FileAccess()
	if err != nil {
		return nil, nil, err
	}
	hf, err := h5.OpenReadWrite(path, fapl)
	journal.CloseFileAccess(fapl)
	if err != nil {
		return nil, nil, err
	}
	return newFile(hf, false, false), journal.Lookup(path), nil
}

// dimNote records, while the group's names are walked, what the first new dimension's id
// needs: how many netCDF dimensions the group holds and which was listed last (the one
// created last when the group is in dense storage; firstFreeDimID checks it).
func (v *h5view) dimNote(name string) {
	v.dimCount++
	v.lastDim = name
}

// newDimID is the file-wide id of the next dimension defined. netcdf-c numbers dimensions
// 0, 1, 2, … in creation order and records each id in _Netcdf4Dimid, so the next id is
// the number of dimensions when the last one created holds the highest (docs/format.md §7.8).
// A file where that does not hold (another writer, a group walked by name) is scanned for
// its highest id once.
func (f *File) newDimID() (int, error) {
	v := f.h5
	if v.nextDimID < 0 {
		next, err := f.firstFreeDimID()
		if err != nil {
			return 0, err
		}
		v.nextDimID = next
	}
	id := v.nextDimID
	v.nextDimID++
	return id, nil
}

// firstFreeDimID is one past the highest dimension id of the file. Ids are file-wide, and
// netcdf-c gives a dimension another tool adds (in the root group, or beside the store's
// own) the next id after all of them: the other groups are always read (they hold no
// dataset in a file only stores have written, so that costs two group walks), and a group
// holding links no store writer makes is scanned whole, since the dimension counted last
// then need not hold the highest id.
func (f *File) firstFreeDimID() (int, error) {
	v := f.h5
	outside, err := v.file.NextDimIDOutside(v.grp)
	if err != nil {
		return 0, wrapIO("write", err, "reading the dimension ids of the other groups")
	}
	if v.lastDim != "" && !v.byName && !v.foreign {
		id, ok, err := v.grp.DimensionID(v.lastDim)
		if err != nil {
			return 0, wrapIO("write", err, "reading the id of dimension %s", v.lastDim)
		}
		if ok && id == v.dimCount-1 {
			return max(v.dimCount, outside), nil
		}
	}
	f.dimScans++
	names, err := v.grp.Names()
	if err != nil {
		return 0, wrapIO("write", err, "listing dimensions")
	}
	next := outside
	for _, n := range names {
		if ok, err := v.grp.IsDataset(n); err != nil || !ok {
			continue
		}
		id, ok, err := v.grp.DimensionID(n)
		if err != nil {
			return 0, wrapIO("write", err, "reading the id of dimension %s", n)
		}
		if ok {
			next = max(next, id+1)
		}
	}
	return next, nil
}

// defineDimsH5 creates the named dimensions, adding each name to created; the caller closes
// them (h5.CloseDims).
func (f *File) defineDimsH5(names []string, lens []uint64, created *[]string) ([]h5.Dim, error) {
	f.defining = true
	dims := make([]h5.Dim, 0, len(names))
	for i, n := range names {
		id, err := f.newDimID()
		if err != nil {
			h5.CloseDims(dims)
			return nil, err
		}
		d, err := f.h5.grp.DefineDim(n, lens[i], id)
		if err != nil {
			h5.CloseDims(dims)
			return nil, wrapIO("write", err, "defining dimension %s", n)
		}
		dims = append(dims, d)
		*created = append(*created, n)
	}
	return dims, nil
}

// filters gives a data variable the store's compression policy.
func (f *File) filters(s *h5.VarSpec) {
	if f.comp.Deflate {
		s.Shuffle, s.DeflateLevel = f.comp.Shuffle, f.comp.Level
	}
}

// undefine removes what a define that failed part way created (created lists the names),
// so that the file holds no dimension or variable of it: a later define of the same names
// would otherwise fail on them for as long as the store lives. When every name is gone it gives back the dimension ids
// taken since nextDimID was mark: left unused they would be a gap, after which the dimension
// created last never again has id count−1 and every later session scans the whole group
// for the highest id (firstFreeDimID).
func (f *File) undefine(created []string, mark int) {
	gone := true
	for _, n := range created {
		if f.h5.grp.Unlink(n) != nil { // best effort: the define has failed already
			gone = false
		}
	}
	if gone {
		f.h5.nextDimID = mark
	}
}

// definePackedH5 is definePackedAs through HDF5: dimensions first, then the data and its
// hash companion, in netcdf-c's order.
func (f *File) definePackedH5(ds *Packed, dimNames []string, lens []uint64) (err error) {
	var created []string
	mark := f.h5.nextDimID
	defer func() {
		if err != nil {
			f.undefine(created, mark)
		}
	}()
	dims, err := f.defineDimsH5(dimNames, lens, &created)
	if err != nil {
		return err
	}
	defer h5.CloseDims(dims)
	spec := h5.VarSpec{Name: ds.name, DType: int(ds.fam.dtype), Dims: dims,
		Chunks: append([]uint64{1, uint64(ds.cols)}, ToU64(ds.eshape)...)}
	spec.CacheBytes, spec.CacheSlots = packedCacheSize(ds)
	f.filters(&spec)
	data, err := f.h5.grp.DefineVar(spec)
	if err != nil {
		return wrapIO("write", err, "defining %s", ds.name)
	}
	created = append(created, ds.name)
	hash, err := f.h5.grp.DefineVar(h5.VarSpec{Name: ds.name + "_h", DType: -1, Dims: dims[1:2]})
	if err != nil {
		data.Close()
		return wrapIO("write", err, "defining %s_h", ds.name)
	}
	ds.varid, ds.hvarid = f.h5.add(data), f.h5.add(hash)
	return nil
}

// defineStandaloneH5 is defineStandalone through HDF5.
func (f *File) defineStandaloneH5(sv *Variable) (err error) {
	names := make([]string, len(sv.shape))
	for i := range names {
		names[i] = standaloneDimName(sv.name, i)
	}
	var created []string
	mark := f.h5.nextDimID
	defer func() {
		if err != nil {
			f.undefine(created, mark)
		}
	}()
	dims, err := f.defineDimsH5(names, sv.shape, &created)
	if err != nil {
		return err
	}
	defer h5.CloseDims(dims)
	spec := h5.VarSpec{Name: sv.name, DType: int(sv.dtype), Dims: dims, Chunks: sv.chunks}
	f.filters(&spec)
	d, err := f.h5.grp.DefineVar(spec)
	if err != nil {
		return wrapIO("write", err, "defining %s", sv.name)
	}
	f.h5.keepWritten(sv, d)
	return nil
}

// keepWritten makes d the open dataset of sv, a variable defined in this unit, until the
// unit's sync (closeWritten). Read-only opens keep up to maxOpenStandalone datasets open
// for readers; a writer that kept a bulk load's datasets as long paid for them at every
// later durable write, since HDF5's flush visits each open dataset (2 ms per flush with
// 1,024 of them open, docs/architecture.md "Writes through HDF5").
func (v *h5view) keepWritten(sv *Variable, d h5.Dataset) {
	sv.varid = v.add(d)
	v.written = append(v.written, sv)
}

// closeWritten closes the datasets keepWritten kept; a later read opens them again.
func (v *h5view) closeWritten() {
	for _, sv := range v.written {
		v.closeStandalone(sv)
	}
	v.written = v.written[:0]
}

// syncH5 hands a writable HDF5 file's buffers to its driver, with every dataset this unit
// defined closed first, and then gives back the metadata cache a bulk load grew
// (h5.File.TrimMetadataCache).
func (f *File) syncH5() error {
	f.h5.closeWritten()
	if err := f.h5.file.Flush(); err != nil {
		return err
	}
	trimmed, err := f.h5.file.TrimMetadataCache()
	if trimmed {
		f.cacheTrims++
	}
	return err
}

// existingStandaloneH5 finds arr_{hex} in the file when the index does not hold it.
func (f *File) existingStandaloneH5(name string) (*Variable, error) {
	if ok, err := f.h5.grp.IsDataset(name); err != nil || !ok {
		return nil, nil
	}
	sv := &Variable{name: name, varid: -1}
	if _, err := f.openStandaloneLocked(sv); err != nil {
		return nil, err
	}
	return sv, nil
}

// putSlice writes buf into the hyperslab [start, start+count) of variable varid, by the
// file's route.
func (f *File) putSlice(varid int, dt DType, buf []byte, start, count []uint64) error {
	return f.slice(varid, dt, buf, start, count, true)
}

// isDimensionName says whether a link name of the group is one of the netCDF dimensions a
// store's writer defines (rebuildIndexH5 skips them; a writer counts them).
func isDimensionName(name string, present map[string]bool) bool {
	return (strings.HasPrefix(name, "arr_") && isStandaloneDim(name)) ||
		(strings.HasPrefix(name, "sts_") && isPackedDim(name, present))
}
