//go:build unix

package ncstore

import (
	"errors"
	"os"
	"syscall"
)

// lockedElsewhere reports whether another process holds HDF5's lock on path in a way that
// keeps this open out. HDF5 1.10 flocks the file for the life of an open — exclusive for
// writing, shared for reading — and netcdf-c then reports only "HDF error"; probing with
// the same kind of lock says what happened. The probe lock is dropped at once.
func lockedElsewhere(path string, readOnly bool) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	how := syscall.LOCK_EX
	if readOnly {
		how = syscall.LOCK_SH
	}
	err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}
