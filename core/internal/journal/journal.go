// Package journal is the rollback journal of a store's writable NetCDF file: an HDF5 file
// driver in C (journal.c, whose header comment has the design) that keeps the bytes the last
// commit left recoverable while a unit of work rewrites them, and its Go side here.
//
// netcdf-c cannot be told which HDF5 driver to use, so while Open runs, libnetcdf's calls to
// H5Fopen and H5Fcreate are routed (in libnetcdf's global offset table) to wrappers that set
// the driver. Like every netcdf-c call, every function here must run while the process-wide
// netcdf and HDF5 lock (serial.Lock) is held: the package takes no lock of its own.
package journal

// #cgo pkg-config: hdf5 zlib
// #include <stdlib.h>
// #include "journal.h"
import "C"

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/fhs/go-netcdf/netcdf"
)

// Journal is the rollback journal of one writable NetCDF file (journal.c has the design):
// overwrites of the bytes a unit began with reach the file only after their old bytes are in
// path+"-journal", and EndUnit makes the unit's bytes the new state to roll back to.
type Journal struct{ f *C.tsj_file }

// Active reports whether writable files can be journalled in this process (netcdf-c
// must be a separate shared library whose opens can be routed to the driver).
func Active() bool { return C.tsj_active() == 1 }

// Magic is how every journal file begins (journal.c's tsj_magic).
const Magic = "TSJRNL01"

// Path is the journal kept beside the NetCDF file at path.
func Path(path string) string { return path + "-journal" }

// spillBytes is the overlay budget the next journalled open gets (0: the driver's default,
// 64 MiB). Tests lower it so that units spill, and journal, in the middle of a write; the
// environment variable TSSTORE_JOURNAL_SPILL (bytes) does the same for child processes such
// as the crash harness's writers.
var spillBytes, _ = strconv.Atoi(os.Getenv("TSSTORE_JOURNAL_SPILL"))

// SetSpill sets the overlay budget for files opened from now on; 0 restores the
// default. It is a testing knob: with a small budget every unit journals in mid-write.
func SetSpill(bytes int) { spillBytes = bytes }

// Open runs open (netcdf.OpenFile or CreateFile for path) with the journalling
// driver armed and returns the dataset with its journal; the journal is nil when the driver
// is unavailable (Active) and the file was opened the ordinary way.
func Open(path string, open func() (netcdf.Dataset, error)) (netcdf.Dataset, *Journal, error) {
	C.tsj_arm(C.size_t(spillBytes))
	ds, err := open()
	C.tsj_disarm()
	if err != nil {
		return ds, nil, err
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	f := C.tsj_lookup(cp)
	if f == nil {
		return ds, nil, nil
	}
	return ds, &Journal{f: f}, nil
}

// FileAccess is an HDF5 file-access property list that opens a file through the journalling
// driver, for opens made with HDF5's own API (package h5) rather than through netcdf-c, which
// Open routes instead. Release it with CloseFileAccess once the file is open; Lookup then
// gives the file's journal.
func FileAccess() (int64, error) {
	fapl := C.tsj_fapl(C.size_t(spillBytes))
	if fapl < 0 {
		return 0, errors.New("journal: cannot set up HDF5's journalling driver")
	}
	return int64(fapl), nil
}

// CloseFileAccess releases a property list from FileAccess.
func CloseFileAccess(fapl int64) { C.H5Pclose(C.hid_t(fapl)) }

// Lookup is the journal of the file at path, open through the driver; nil when it is not.
func Lookup(path string) *Journal {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	if f := C.tsj_lookup(cp); f != nil {
		return &Journal{f: f}
	}
	return nil
}

// EndUnit makes every byte written so far durable and empties the journal. Call it after
// Sync and before the catalog commits.
func (j *Journal) EndUnit() error {
	var msg [512]C.char
	if rc := C.tsj_end_unit(j.f, &msg[0], C.size_t(len(msg))); rc != 0 {
		return &Error{Msg: C.GoString(&msg[0]), Errno: syscall.Errno(rc)}
	}
	return nil
}

// Failure is nil while the file works. Once a write into it or its journal failed, the
// driver refuses all further I/O (so HDF5 cannot write half a state over the committed one)
// and Failure says why and that reopening the store rolls the file back.
func (j *Journal) Failure() error {
	if C.tsj_failed(j.f) == 0 { // no buffer handed to C: this runs on every call of the store
		return nil
	}
	var msg [512]C.char
	if rc := C.tsj_failure(j.f, &msg[0], C.size_t(len(msg))); rc != 0 {
		return &Error{Msg: C.GoString(&msg[0]), Errno: syscall.Errno(rc)}
	}
	return nil
}

// FailOpensForTesting makes every writable file opened from now on fail with errno as it
// opens, as a journal that cannot be written would; 0 stops it.
func FailOpensForTesting(errno syscall.Errno) { C.tsj_fail_opens_for_testing(C.int(errno)) }

// FailForTesting marks the file failed as a write failing with errno would. The driver's
// own failure path is tested where it can be provoked (a journal that cannot be created);
// this lets tests reach the store's handling of a failure in the middle of a session.
func (j *Journal) FailForTesting(errno syscall.Errno) { C.tsj_fail_for_testing(j.f, C.int(errno)) }

// TakeOpenFailure returns why the journalled file at path failed, when the open that just
// failed did so because its own writes (HDF5's superblock) could not go through the journal;
// nil otherwise.
func TakeOpenFailure(path string) error {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var msg [600]C.char
	if rc := C.tsj_take_failure(cp, &msg[0], C.size_t(len(msg))); rc != 0 {
		return &Error{Msg: C.GoString(&msg[0]), Errno: syscall.Errno(rc)}
	}
	return nil
}

// Stats are what a journal has done since its file opened.
type Stats struct {
	JournalBytes uint64 // pre-image bytes (with record headers) written to the journal
	Spills       uint64 // times the overlay was journalled and written into the file
}

// Stats reports the journal's counters.
func (j *Journal) Stats() Stats {
	var b, s C.uint64_t
	C.tsj_stats(j.f, &b, &s)
	return Stats{JournalBytes: uint64(b), Spills: uint64(s)}
}

// Error is a failure of the journal or of the file writes it guards.
type Error struct {
	Msg   string
	Errno syscall.Errno
}

func (e *Error) Error() string { return e.Msg }

// Unwrap exposes the errno (for errors.Is against syscall.ENOSPC and the like).
func (e *Error) Unwrap() error { return e.Errno }

// ErrBusy is returned by Recover when another process holds the file;
// ErrBusyHot when that process is a writer in the middle of a unit (its journal is
// hot), which a reader must not read.
var (
	ErrBusy    = errors.New("the file is open in another process")
	ErrBusyHot = errors.New("a writer in another process is in the middle of a write")
)

// Recover rolls the file at path back to its last ended unit when a writer died in the
// middle of one (its journal is hot). It reports what it did; mayWrite false (a read-only
// open) refuses to touch a hot journal and says how to recover.
func Recover(path string, mayWrite bool) (report string, err error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var msg [1024]C.char
	var busy C.int
	w := C.int(0)
	if mayWrite {
		w = 1
	}
	switch C.tsj_recover(cp, w, &busy, &msg[0], C.size_t(len(msg))) {
	case 1:
		return C.GoString(&msg[0]), nil
	case 0:
		switch busy {
		case 1:
			return "", ErrBusy
		case 2:
			return "", ErrBusyHot
		}
		return "", nil
	default:
		return "", &Error{Msg: C.GoString(&msg[0]), Errno: syscall.EIO}
	}
}
