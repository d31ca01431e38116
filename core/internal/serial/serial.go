// Package serial owns the process-wide lock around the C libraries the store calls: netcdf-c
// and HDF5. Neither is thread-safe as Debian builds it, so every call into either, from any
// store of the process, is made while the lock is held; parallel work (encoding, hashing)
// happens outside it. Callers hold it around whole operations: a column write is several
// HDF5 calls that must not interleave with another goroutine's.
package serial

// #cgo pkg-config: hdf5
// #include <hdf5.h>
//
// /* HDF5 built thread-safe (as Debian builds it) keeps its error-printing switch per
//    thread, and netcdf-c turns printing off only on the thread that initialised it. Both
//    probe for optional attributes and expect failures, so on any other thread HDF5 would
//    print those expected failures to stderr. Each OS thread turns printing off once. */
// static __thread int tsstore_hdf5_quiet;
// static void tsstore_quiet_hdf5(void) {
//     if (!tsstore_hdf5_quiet) {
//         H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
//         tsstore_hdf5_quiet = 1;
//     }
// }
import "C"

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// mu serialises every netcdf-c and HDF5 call in the process.
var mu sync.Mutex

// held is when the lock was taken; busy accumulates how long it has been held, which is
// the time the process spent in netcdf-c and HDF5 (and the little Go between those calls).
var (
	held time.Time
	busy atomic.Int64
)

// Lock takes the process-wide lock and pins the goroutine to its OS thread until Unlock, so
// that the per-thread HDF5 state set here holds for every call made under it.
func Lock() {
	mu.Lock()
	runtime.LockOSThread()
	C.tsstore_quiet_hdf5()
	held = time.Now()
}

// Unlock releases what Lock took.
func Unlock() {
	busy.Add(int64(time.Since(held)))
	runtime.UnlockOSThread()
	mu.Unlock()
}

// BusyTime is the total time the lock has been held in this process.
func BusyTime() time.Duration { return time.Duration(busy.Load()) }
