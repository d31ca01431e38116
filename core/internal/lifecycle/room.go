package lifecycle

import (
	"fmt"

	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// A write that runs out of room half way can leave HDF5's metadata for the datasets it
// touched half flushed — and those datasets hold committed columns too (the file-size-limit
// test measured every committed series of a shared dataset lost). So before a unit writes
// anything, it checks that the most it could need fits in what the filesystem (and the
// process's file-size limit) allows, and refuses otherwise with nothing written and the unit
// kept, so a Flush after making room succeeds. Quotas and other processes' writes are not
// visible here; the check narrows the failure, it cannot rule it out.

// NoRoom marks a refusal of the room check: nothing was written. Need and Free are bytes.
type NoRoom struct{ Need, Free int64 }

func (e *NoRoom) Error() string {
	return e.What() + "; nothing was written and the writes stay pending — make room and flush again"
}

// What says what was missing.
func (e *NoRoom) What() string {
	return fmt.Sprintf("not enough room to write the pending arrays: up to %.1f MiB needed, %.1f MiB free (filesystem or file-size limit)",
		float64(e.Need)/(1<<20), float64(e.Free)/(1<<20))
}

// Undone is the message when the write buffer's overflow was refused inside a call: the call
// is rolled back, the unit's earlier writes stay pending.
func (e *NoRoom) Undone() string {
	return e.What() + "; nothing was written, this call was undone and the writes before it stay pending"
}

// Lost is the message when Close met no room: the unit cannot stay pending past Close.
func (e *NoRoom) Lost() string {
	return e.What() + "; nothing was written, and the writes since the last commit are lost with the close"
}

// CheckRoom refuses a write of arrays into nc, with a *NoRoom, when the file cannot grow by
// what writing them may need (ncstore's Room; an in-memory file has no filesystem to fill).
func CheckRoom(nc *ncstore.File, arrays []*ncstore.Array) error {
	need, free, ok := nc.Room(arrays)
	if ok && need > free {
		return &NoRoom{need, free}
	}
	return nil
}
