//go:build unix

package ncstore

import (
	"errors"
	"syscall"
)

// wOK is access(2)'s W_OK, 2 on every Unix (the syscall package does not name it).
const wOK = 2

// NotWritable reports whether this process is denied write access to path, a file or a
// directory, with the errno that says why (EACCES, EPERM or EROFS). Anything else — the
// path missing, for one — is not a denial: the open that follows reports it itself.
func NotWritable(path string) (bool, error) {
	err := syscall.Access(path, wOK)
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EROFS) {
		return true, err
	}
	return false, nil
}

// permissionErrno says whether errno is a denial of write access rather than a failing
// device or a full disk.
func permissionErrno(errno syscall.Errno) bool {
	return errno == syscall.EACCES || errno == syscall.EPERM || errno == syscall.EROFS
}
