//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package main

import "os"

// isTerminal falls back to "is a character device" where no tty ioctl is wired up.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
