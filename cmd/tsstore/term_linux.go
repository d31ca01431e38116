package main

import "syscall"

// getTermios is the ioctl that reads a tty's settings; Linux names it TCGETS.
const getTermios = syscall.TCGETS
