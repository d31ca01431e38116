//go:build !unix

package core

import "syscall"

// notWritable cannot tell here; the open's own error stands.
func notWritable(string) (bool, error) { return false, nil }

func permissionErrno(syscall.Errno) bool { return false }
