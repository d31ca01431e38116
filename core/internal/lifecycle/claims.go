package lifecycle

import (
	"os"
	"sync"
	"syscall"

	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// Within one process HDF5 hands a second open of a file the same underlying file object, so
// two Store handles on one path would keep two diverging indexes of one file's columns and
// overwrite each other. The registry refuses that: one writable handle per file, or any
// number of read-only ones. (Across processes HDF5's own file locking refuses a second
// writer.)
type FileID struct{ dev, ino uint64 }

var openFiles = struct {
	sync.Mutex
	m map[FileID]int // >0: read-only handles, -1: one writable handle
}{m: map[FileID]int{}}

func identify(path string) (FileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileID{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, nil
	}
	return FileID{uint64(st.Dev), uint64(st.Ino)}, nil
}

// Claim registers a handle on path; Release must follow when it closes.
func Claim(op, path string, readOnly bool) (FileID, error) {
	id, err := identify(path)
	if err != nil {
		return id, ioErr(op, err, "the NetCDF file of the store")
	}
	openFiles.Lock()
	defer openFiles.Unlock()
	n := openFiles.m[id]
	if err := refusal(op, path, n, readOnly); err != nil {
		return id, err
	}
	if readOnly {
		openFiles.m[id] = n + 1
	} else {
		openFiles.m[id] = -1
	}
	return id, nil
}

// Release ends a claim.
func Release(id FileID, readOnly bool) {
	openFiles.Lock()
	defer openFiles.Unlock()
	if readOnly && openFiles.m[id] > 1 {
		openFiles.m[id]--
		return
	}
	delete(openFiles.m, id)
}

func refusal(op, path string, n int, readOnly bool) error {
	switch {
	case n < 0:
		return refuse(ncstore.InvalidParameter, op, "%s is already open for writing in this process; use that Store", path)
	case n > 0 && !readOnly:
		return refuse(ncstore.InvalidParameter, op, "%s is open read-only in this process; close those handles before opening it for writing", path)
	}
	return nil
}

// Probe is Claim's check without the claim: an open runs it before it finishes a committed
// rewrite, which a Store of this process may be in the middle of (it holds both files).
func Probe(op, path string, readOnly bool) error {
	id, err := identify(path)
	if err != nil {
		return nil // Claim reports it
	}
	openFiles.Lock()
	defer openFiles.Unlock()
	return refusal(op, path, openFiles.m[id], readOnly)
}
