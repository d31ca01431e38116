package core

import (
	"fmt"
)

// A write that runs out of room half way can leave HDF5's metadata for the datasets it
// touched half flushed — and those datasets hold committed columns too (the file-size-limit
// test measured every committed series of a shared dataset lost). So before a unit writes
// anything, it checks that the most it could need fits in what the filesystem (and the
// process's file-size limit) allows, and refuses otherwise with nothing written and the unit
// kept, so a Flush after making room succeeds. Quotas and other processes' writes are not
// visible here; the check narrows the failure, it cannot rule it out.

// errNoRoom marks a refusal of the room check: nothing was written.
type errNoRoom struct{ need, free int64 }

func (e *errNoRoom) Error() string {
	return e.what() + "; nothing was written and the writes stay pending — make room and flush again"
}

func (e *errNoRoom) what() string {
	return fmt.Sprintf("not enough room to write the pending arrays: up to %.1f MiB needed, %.1f MiB free (filesystem or file-size limit)",
		float64(e.need)/(1<<20), float64(e.free)/(1<<20))
}

// undone is the message when the write buffer's overflow was refused inside a call: the call
// is rolled back, the unit's earlier writes stay pending.
func (e *errNoRoom) undone() string {
	return e.what() + "; nothing was written, this call was undone and the writes before it stay pending"
}

// lost is the message when Close met no room: the unit cannot stay pending past Close.
func (e *errNoRoom) lost() string {
	return e.what() + "; nothing was written, and the writes since the last commit are lost with the close"
}

// checkRoom refuses a write of ps when the file cannot grow by what writing them may need
// (ncstore's Room).
func (s *Store) checkRoom(ps []*prepared) error {
	if s.inMemory || len(ps) == 0 {
		return nil
	}
	need, free, ok := s.nc.Room(storedArrays(ps))
	if ok && need > free {
		return &Error{Kind: ErrIO, Msg: (&errNoRoom{need, free}).Error(), Err: &errNoRoom{need, free}}
	}
	return nil
}
