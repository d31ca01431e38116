//go:build !unix

package ncstore

import (
	"syscall"
)

// NotWritable cannot tell here; the open's own error stands.
func NotWritable(string) (bool, error) { return false, nil }

func permissionErrno(syscall.Errno) bool { return false }
