//go:build darwin || freebsd || netbsd || openbsd

package main

import "syscall"

// getTermios is the ioctl that reads a tty's settings; the BSDs name it TIOCGETA.
const getTermios = syscall.TIOCGETA
