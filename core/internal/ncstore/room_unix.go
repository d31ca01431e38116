//go:build unix

package ncstore

import (
	"math"
	"os"
	"path/filepath"
	"syscall"
)

// roomFor is how many bytes the file at path can still grow by: the filesystem's space
// available to this user, and the process's file-size limit less the file's size.
func roomFor(path string) (room, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err != nil {
		return room{}, false
	}
	r := room{filesystem: math.MaxInt64, limit: math.MaxInt64}
	if avail := uint64(st.Bavail) * uint64(st.Bsize); avail < math.MaxInt64 {
		r.filesystem = int64(avail)
	}
	if fi, err := os.Stat(path); err == nil {
		r.fileSize = fi.Size()
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err == nil && lim.Cur != math.MaxUint64 && lim.Cur < math.MaxInt64 {
		r.limit = max(int64(lim.Cur)-r.fileSize, 0)
	}
	return r, true
}
