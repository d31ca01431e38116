//go:build !linux

package core

// closeOnExec is a no-op where /proc/self/fd does not list the process's descriptors.
func closeOnExec(string) {}

// descriptorsOf cannot list descriptors here.
func descriptorsOf(string) []int { return nil }
