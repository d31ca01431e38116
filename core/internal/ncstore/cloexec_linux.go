package ncstore

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// closeOnExec marks the descriptors this process holds on path close-on-exec. HDF5 opens
// the .nc file without O_CLOEXEC, so every child a program starts while a store is open
// (os/exec, system(), a Python subprocess) inherited the file — and, with it, HDF5's lock:
// other opens of the store failed until the child exited. SQLite already opens its files
// close-on-exec. Called under the netcdf lock right after the open, so no descriptor
// netcdf-c creates for another file can be mistaken for this one.
func closeOnExec(path string) {
	for _, fd := range DescriptorsOf(path) {
		syscall.CloseOnExec(fd)
	}
}

// DescriptorsOf lists the descriptors this process has open on the file at path.
func DescriptorsOf(path string) []int {
	want, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil
	}
	if abs, err := filepath.Abs(want); err == nil {
		want = abs
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var fds []int
	for _, e := range entries {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || target != want {
			continue
		}
		if fd, err := strconv.Atoi(e.Name()); err == nil {
			fds = append(fds, fd)
		}
	}
	return fds
}
