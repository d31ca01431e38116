//go:build !linux

package ncstore

// closeOnExec is a no-op where /proc/self/fd does not list the process's descriptors.
func closeOnExec(string) {}

// DescriptorsOf cannot list descriptors here.
func DescriptorsOf(string) []int { return nil }
