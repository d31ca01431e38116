package lifecycle

import (
	"fmt"
	"path/filepath"

	"github.com/tsstore/tsstore/core/internal/journal"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// Opening a store for writing needs write permission on both of its files and on their
// directory, where the rollback journals of both halves are created (the NetCDF file's
// <name>.nc-journal, SQLite's <name>.nc.sqlite-journal). Without it the failure would
// surface deep inside HDF5 or the journal, as a "damaged" file or a failed journal write;
// checked first, it is said as what it is, with the way out: a read-only open needs no
// write permission at all.

// CheckWritable refuses a writable open of the store at path that this process has no
// permission for, naming what is not writable. It changes nothing.
func CheckWritable(op, path string) error {
	for _, p := range []string{path, CatalogPath(path)} {
		if no, errno := ncstore.NotWritable(p); no {
			return &ncstore.Error{Kind: ncstore.IO, Op: op, Field: "path", Err: errno, Msg: fmt.Sprintf(
				"%s is not writable by this process, so the store cannot be opened for writing; it can be opened read-only (OpenReadOnly), which needs no write permission, or for writing once the file is writable", p)}
		}
	}
	dir := filepath.Dir(path)
	if no, errno := ncstore.NotWritable(dir); no {
		return &ncstore.Error{Kind: ncstore.IO, Op: op, Field: "path", Err: errno, Msg: unwritableDirMsg(dir, path)}
	}
	return nil
}

func unwritableDirMsg(dir, path string) string {
	return fmt.Sprintf("the directory %s is not writable by this process, and a store open for writing keeps its rollback journals there (%s, %s); "+
		"the store can be opened read-only (OpenReadOnly), which needs no write permission, or for writing once the directory is writable",
		dir, journal.Path(path), CatalogPath(path)+"-journal")
}
