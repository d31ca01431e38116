package ncstore

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/tsstore/tsstore/core/internal/h5"
	"github.com/tsstore/tsstore/core/internal/hashing"
)

// A store opens its file through HDF5 directly (package h5), not through netcdf-c:
// nc_open reads every variable's metadata and keeps three datasets open per forecast, so its
// cost grows with what the store holds (31 s and gigabytes at 100,000 forecasts), where
// HDF5 opens the file by its root group and a dataset only when a read needs it
// (docs/architecture.md, "Read-only opens through HDF5"). The file is the same netCDF-4 file:
// the group, the names and the types are those netcdf-c wrote, and every read returns the
// bytes netcdf-c would.
//
// A writable open lists the group's link names (a name, no dataset opened); a read-only
// open lists them when something first needs the whole list (lazyindex.go). The listing
// opens and indexes packed datasets and their hash companions, and enters each arr_{hex}
// standalone variable by its name alone. Its type and shape are read, and its dataset
// opened, the first time a read asks for it.

// h5view is the HDF5 side of a File. A "varid" indexes sets.
type h5view struct {
	file *h5.File
	grp  h5.Group
	sets []h5.Dataset
	// idle are indexes of sets that were closed and may be reused.
	idle []int
	// open is the standalone variables whose datasets are open, oldest first; past
	// maxOpenStandalone the oldest is closed (its type and shape stay known).
	open []*Variable
	// written is the standalone variables defined since the last sync, whose datasets stay
	// open until it (h5write.go, keepWritten).
	written []*Variable
	// unwritten is the packed datasets defined since the last sync whose hash companion may
	// not be written yet (Packed.unwritten; writeUnwrittenCompanions).
	unwritten []*Packed

	// For a writable file (h5write.go): the netCDF dimensions the group held at open, the
	// one created last, whether the names were walked by name rather than creation order,
	// whether the group holds links no store writer makes (another tool's, which may be
	// dimensions), and the id the next new dimension gets (-1 until the first is defined).
	dimCount  int
	lastDim   string
	byName    bool
	foreign   bool
	nextDimID int
}

// maxOpenStandalone bounds the standalone datasets a read-only file keeps open: each costs
// HDF5 some kilobytes of state, and a sweep over 100,000 forecasts would otherwise keep all of
// them. Reopening one costs tens of microseconds.
var maxOpenStandalone = 1024

// openH5 opens path read-only through HDF5 and indexes it. On failure it returns the error
// HDF5 gave, for Open to explain.
func openH5(path string) (*File, error) {
	hf, err := h5.OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	return newFile(hf, false, true), nil
}

// load validates the version attribute, finds the group and indexes every array.
func (f *File) load(path string) error {
	version, ok, err := f.h5.file.RootAttrText(attrVersion)
	if err != nil {
		return wrapIO("open", err, "reading %s of %s", attrVersion, path)
	}
	if err := f.checkVersion(path, version, ok); err != nil {
		return err
	}
	if s, ok, err := f.h5.file.RootAttrText(attrCompression); err == nil && ok {
		f.setCompressionAttr(s)
	}
	if f.h5.grp, err = f.h5.file.OpenGroup("/" + GroupTop + "/" + GroupSingle); err != nil {
		return newErr(Integrity, "open", "", "%s has no /%s/%s group", path, GroupTop, GroupSingle)
	}
	if f.readOnly {
		f.unindexed = true // listed when a read needs it (lazyindex.go)
		return nil
	}
	return f.rebuildIndex()
}

// rebuildIndex indexes the group from its link names. HDF5 lists netCDF dimensions too
// (each is a dataset of its own, which netcdf-c hides): a packed dataset's {ds}_t, {ds}_c
// and {ds}_e{i}, and a standalone variable's arr_{hex}_d{i}. Those are skipped by name.
func (f *File) rebuildIndex() error {
	f.listings++
	names, inOrder, err := f.h5.grp.NamesInOrder()
	if err != nil {
		return wrapIO("open", err, "listing variables")
	}
	f.h5.byName = !inOrder
	if len(f.standalone) == 0 { // sized for the usual file, whose links are mostly standalone variables and their dimensions
		f.standalone = make(map[hashing.Digest]*Variable, len(names)/3)
	}
	present := make(map[string]bool)
	for _, n := range names {
		if strings.HasPrefix(n, "sts_") {
			present[n] = true
		}
	}
	for _, name := range names {
		switch {
		case strings.HasPrefix(name, "arr_") && len(name) > 4:
			if isStandaloneDim(name) {
				f.h5.dimNote(name)
				continue
			}
			d, err := parseHexDigest(name[4:])
			if err != nil {
				return newErr(Integrity, "open", name, "standalone variable name is not arr_ and a hash: %v", err)
			}
			if f.standalone[d] == nil { // one found by its name before the list keeps its state
				f.standalone[d] = &Variable{name: name, varid: -1}
			}
		case strings.HasPrefix(name, "sts_") && isPackedDim(name, present):
			f.h5.dimNote(name)
		case strings.HasPrefix(name, "sts_") && len(name) > 4 && !isHashCompanion(name):
			// netcdf-c lists variables only; a group or named type is no packed dataset.
			if ok, err := f.h5.grp.IsDataset(name); err != nil {
				return wrapIO("open", err, "opening %s", name)
			} else if !ok {
				continue
			}
			if !present[name+"_h"] {
				return newErr(Integrity, "open", name, "packed dataset has no %s_h hash companion", name)
			}
			if err := f.indexPackedH5(name); err != nil {
				return err
			}
		case strings.HasPrefix(name, "sts_") && isHashCompanion(name):
		default:
			f.h5.foreign = true
		}
	}
	for _, list := range f.families {
		sortByName(list)
	}
	return nil
}

// isStandaloneDim says whether name is arr_{64 hex}_d{n}: a standalone variable's dimension.
func isStandaloneDim(name string) bool {
	return len(name) > 4+64+2 && name[4+64:4+64+2] == "_d" && allDigits(name[4+64+2:])
}

// isPackedDim says whether name is {ds}_t, {ds}_c or {ds}_e{n} of a packed dataset {ds}
// the group holds.
func isPackedDim(name string, present map[string]bool) bool {
	i := strings.LastIndex(name, "_")
	if i < 0 || !present[name[:i]] {
		return false
	}
	tail := name[i+1:]
	return tail == "t" || tail == "c" || (len(tail) > 1 && tail[0] == 'e' && allDigits(tail[1:]))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// indexPackedH5 opens a packed dataset and its companion and indexes them.
func (f *File) indexPackedH5(name string) error {
	data, err := f.h5.grp.OpenDataset(name, 0, 1)
	if err != nil {
		return wrapIO("open", err, "opening %s", name)
	}
	typ, lens, err := data.Describe()
	if err != nil {
		data.Close()
		return wrapIO("open", err, "reading dimensions of %s", name)
	}
	hash, err := f.h5.grp.OpenDataset(name+"_h", 0, 1)
	if err != nil {
		data.Close()
		return wrapIO("open", err, "opening %s_h", name)
	}
	htyp, hlens, err := hash.Describe()
	if err != nil {
		data.Close()
		hash.Close()
		return wrapIO("open", err, "reading %s_h", name)
	}
	// An unlimited {ds}_c is as long as the longer of the two datasets on it, and netcdf-c
	// reads a companion shorter than the data as "" (free slots) past its end. (Data
	// shorter than its companion is still refused: HDF5 reads no fill past an extent.)
	stored := uint64(0)
	if len(hlens) == 1 {
		stored = hlens[0]
		if len(lens) >= 2 && stored < lens[1] {
			hlens = []uint64{lens[1]}
		}
	}
	dt, ok := dtypeForH5(typ)
	meta := packedMeta{lens: lens, dtype: dt, dtypeOK: ok, typeName: h5TypeName(typ), hlens: hlens,
		hIsString: htyp.Class == h5.String && htyp.VarString,
		slots: func(cols int) ([]hashing.Digest, error) {
			out := make([]hashing.Digest, cols) // past what is stored: free slots
			err := hash.ReadStringsEach(0, min(uint64(cols), stored), func(i int, s string) error {
				return parseSlot(&out[i], i, s)
			})
			return out, err
		},
	}
	// Reopen the data with the chunk cache its shape calls for (packedCacheSize).
	if ok && len(lens) >= 2 {
		probe := &Packed{fam: familyKey{dtype: dt, length: int(lens[0])}, cols: int(lens[1]), eshape: FromU64(lens[2:])}
		if bytes, slots := packedCacheSize(probe); bytes > 0 {
			data.Close()
			if data, err = f.h5.grp.OpenDataset(name, bytes, slots); err != nil {
				hash.Close()
				return wrapIO("open", err, "opening %s", name)
			}
		}
	}
	varid, hvarid := f.h5.add(data), f.h5.add(hash)
	return f.indexPacked(name, varid, hvarid, meta)
}

// add keeps an open dataset and returns its index.
func (v *h5view) add(d h5.Dataset) int {
	if n := len(v.idle); n > 0 {
		id := v.idle[n-1]
		v.idle = v.idle[:n-1]
		v.sets[id] = d
		return id
	}
	v.sets = append(v.sets, d)
	return len(v.sets) - 1
}

// dtypeForH5 maps an HDF5 element type to the dtype netcdf-c would report for it.
func dtypeForH5(t h5.Type) (DType, bool) {
	switch {
	case t.Class == h5.Float && t.Size == 8:
		return F64, true
	case t.Class == h5.Float && t.Size == 4:
		return F32, true
	case t.Class == h5.Integer && t.Size == 8 && t.Signed:
		return I64, true
	case t.Class == h5.Integer && t.Size == 4 && t.Signed:
		return I32, true
	case t.Class == h5.Integer && t.Size == 8 && !t.Signed:
		return U64, true
	case t.Class == h5.Integer && t.Size == 1 && !t.Signed:
		return Bool, true
	}
	return 0, false
}

func h5TypeName(t h5.Type) string {
	switch t.Class {
	case h5.Float:
		return fmt.Sprintf("%d-byte float", t.Size)
	case h5.Integer:
		if t.Signed {
			return fmt.Sprintf("%d-byte signed integer", t.Size)
		}
		return fmt.Sprintf("%d-byte unsigned integer", t.Size)
	case h5.String:
		return "string"
	}
	return fmt.Sprintf("HDF5 type class %d", t.Class)
}

// errNotVariable is an arr_ name that leads to a group or a named type: netcdf-c never
// listed it, so it is no array (the index keeps its name, entered before it was opened).
var errNotVariable = errors.New("not a variable")

// describeLocked reads a standalone variable's type and shape the first time it is asked
// for, through HDF5; a variable netcdf-c indexed at open is described already.
func (f *File) describeLocked(sv *Variable) error {
	if sv.described {
		return nil
	}
	_, err := f.openStandaloneLocked(sv)
	return err
}

// openStandaloneLocked returns the index of sv's open dataset, opening it (and describing
// it the first time) when it is not.
func (f *File) openStandaloneLocked(sv *Variable) (int, error) {
	if sv.varid >= 0 {
		return sv.varid, nil
	}
	v := f.h5
	d, err := v.grp.OpenDataset(sv.name, 0, 1) // no chunk cache: a standalone array moves whole chunks
	if err != nil {
		if ok, ierr := v.grp.IsDataset(sv.name); ierr == nil && !ok {
			return -1, errNotVariable
		}
		return -1, wrapIO("read", err, "opening %s", sv.name)
	}
	if !sv.described {
		typ, lens, err := d.Describe()
		if err != nil {
			d.Close()
			return -1, wrapIO("read", err, "reading the type and shape of %s", sv.name)
		}
		dt, ok := dtypeForH5(typ)
		if !ok {
			d.Close()
			return -1, newErr(Integrity, "read", sv.name, "HDF5 type %s is not one of the six dtypes", h5TypeName(typ))
		}
		if len(lens) == 0 {
			d.Close()
			return -1, newErr(Integrity, "read", sv.name, "standalone array has no dimensions")
		}
		sv.dtype, sv.shape, sv.described = dt, lens, true
	}
	v.keepOpen(sv, d)
	f.standaloneOpens++
	return sv.varid, nil
}

// keepOpen makes d the open dataset of sv, closing the one opened longest ago past
// maxOpenStandalone (never d itself).
func (v *h5view) keepOpen(sv *Variable, d h5.Dataset) {
	sv.varid = v.add(d)
	v.open = append(v.open, sv)
	if len(v.open) > max(maxOpenStandalone, 1) {
		old := v.open[0]
		v.open = v.open[1:]
		v.closeStandalone(old)
	}
}

// closeStandalone closes sv's dataset and gives its slot back; its type and shape stay known
// and a later read opens it again.
func (v *h5view) closeStandalone(sv *Variable) {
	v.sets[sv.varid].Close()
	v.idle = append(v.idle, sv.varid)
	sv.varid = -1
}

// readSlice reads the hyperslab [start, start+count) of variable varid into buf, by the
// file's route (ioSlice for netcdf-c).
func (f *File) readSlice(varid int, dt DType, buf []byte, start, count []uint64) error {
	return f.slice(varid, dt, buf, start, count, false)
}

// slice moves a hyperslab of variable varid between buf and the file, by the file's route.
func (f *File) slice(varid int, dt DType, buf []byte, start, count []uint64, write bool) error {
	if empty, err := checkSlab(dt, buf, count); empty || err != nil {
		return err
	}
	if write {
		return f.h5.sets[varid].Write(int(dt), start, count, unsafe.Pointer(&buf[0]))
	}
	return f.h5.sets[varid].Read(int(dt), start, count, unsafe.Pointer(&buf[0]))
}

// readVariableSlice reads a hyperslab of a standalone variable, opening its dataset first
// on a file read through HDF5.
func (f *File) readVariableSlice(sv *Variable, buf []byte, start, count []uint64) error {
	id, err := f.openStandaloneLocked(sv)
	if err != nil {
		return err
	}
	return f.readSlice(id, sv.dtype, buf, start, count)
}

// chunking is a standalone variable's chunking, by the file's route.
func (f *File) chunking(sv *Variable) (bool, []uint64, error) {
	id, err := f.openStandaloneLocked(sv)
	if err != nil {
		return false, nil, err
	}
	return f.h5.sets[id].Chunks(len(sv.shape))
}
