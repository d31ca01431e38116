package ncstore

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tsstore/tsstore/core/internal/journal"
)

// explainJournalFailure rewords a journal failure that is a denied write in a directory
// that is no longer writable (made read-only while the store was open): the file refuses
// further I/O, and what helps is said instead of a reopen for writing that cannot work.
func explainJournalFailure(path string, err error) error {
	var je *journal.Error
	if !errors.As(err, &je) || !permissionErrno(je.Errno) {
		return err
	}
	dir := filepath.Dir(path)
	if no, _ := NotWritable(dir); !no {
		return err
	}
	return &journal.Error{Errno: je.Errno, Msg: fmt.Sprintf(
		"the journal %s could not be written (%s): the directory %s is not writable by this process, so the file refuses further I/O; "+
			"close the store: it can be opened read-only (OpenReadOnly), which needs no write permission, or for writing once the directory is writable",
		journal.Path(path), je.Errno, dir)}
}
