package ncstore

import (
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/serial"
)

// A read-only open lists the group's links only when something needs the whole list
// (docs/architecture.md, "Read-only opens through HDF5"). HDF5 walks a link in about 0.2 µs,
// and a store of forecasts has three links a forecast (the variable and two dimensions), so
// the list was 60% of the read-only open of 1,000 forecasts and 0.34 s of one of 100,000.
// Reads of standalone arrays do not need it: the format names each one after its hash
// (docs/format.md §7.5), so it is opened by that name. Packed reads do: a column is found
// through its dataset's hash companion, and only the list says which datasets there are.
// The store's open asks for the index at once when its catalog names packed arrays
// (IndexNow), so the packed reads that follow an open pay nothing more than before.

// IndexNow lists the group and indexes every array, if that has not been done.
func (f *File) IndexNow() error {
	serial.Lock()
	defer serial.Unlock()
	return f.indexLocked()
}

// indexLocked builds the index of a file opened without one; a failure is kept and
// returned to every later caller, as a failed open would have been.
func (f *File) indexLocked() error {
	if f.unindexed {
		f.unindexed = false
		f.indexErr = f.rebuildIndex()
	}
	return f.indexErr
}

// indexed builds the index when it is missing and says whether the file has a whole one.
// (A writable file always has: it never takes the lock here, which WriteArrays holds.)
func (f *File) indexed() bool {
	if f.unindexed {
		f.IndexNow()
	}
	return f.indexErr == nil
}

// byName says whether standalone variables missing from the index are looked for by name:
// in a read-only file not listed yet, or whose listing failed part way. A failed listing
// leaves a partial index, and a variable it did not reach is still on disk.
func (f *File) byName() bool { return f.unindexed || f.indexErr != nil }

// probeStandalone finds the variable of digest d by its name in a file whose group has
// not been listed, and enters it in the index. A name that does not open as a variable is
// looked for in the whole list, so the answer is the one an index built at open gives.
func (f *File) probeStandalone(d hashing.Digest) (*Variable, bool) {
	serial.Lock()
	defer serial.Unlock()
	if sv, ok := f.standalone[d]; !ok {
		sv = &Variable{name: VariableName(d), varid: -1}
		if _, err := f.openStandaloneLocked(sv); err == nil {
			f.standalone[d] = sv
			return sv, true
		}
	}
	f.indexLocked() // on failure, the partial index may still hold d
	sv, ok := f.standalone[d]
	if ok && f.describeLocked(sv) != nil {
		return nil, false
	}
	return sv, ok
}
