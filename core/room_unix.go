//go:build unix

package core

import (
	"math"
	"os"
	"path/filepath"
	"syscall"
)

// roomFor is how many bytes the file at path can still grow by: the filesystem's space
// available to this user, capped by the process's file-size limit.
func roomFor(path string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err != nil {
		return 0, false
	}
	free := int64(math.MaxInt64)
	if avail := uint64(st.Bavail) * uint64(st.Bsize); avail < math.MaxInt64 {
		free = int64(avail)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err == nil && lim.Cur != math.MaxUint64 && lim.Cur < math.MaxInt64 {
		size := int64(0)
		if fi, err := os.Stat(path); err == nil {
			size = fi.Size()
		}
		free = min(free, max(int64(lim.Cur)-size, 0))
	}
	return free, true
}
