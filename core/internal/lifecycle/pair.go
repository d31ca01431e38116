package lifecycle

import (
	"errors"
	"fmt"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// CatalogSuffix is appended to the NetCDF path to name the catalog.
const CatalogSuffix = ".sqlite"

// CatalogPath is the catalog file of the store whose NetCDF file is ncPath.
func CatalogPath(ncPath string) string { return ncPath + CatalogSuffix }

// OpenPair opens a store's two files: the NetCDF file, then the catalog.
func OpenPair(op, path string, readOnly bool) (*ncstore.File, *catalog.Catalog, error) {
	nc, err := ncstore.Open(path, readOnly)
	if err != nil {
		return nil, nil, err
	}
	cat, err := catalog.Open(CatalogPath(path), readOnly, false)
	if err != nil {
		nc.Close()
		if errors.Is(err, catalog.ErrNoCatalog) {
			return nil, nil, refuse(ncstore.Integrity, op,
				"catalog %s is missing; a store is the pair %s + %s and neither works alone",
				CatalogPath(path), path, CatalogPath(path))
		}
		return nil, nil, ioErr(op, err, "opening catalog %s", CatalogPath(path))
	}
	return nc, cat, nil
}

// refuse is a refusal that names the store's path as the argument to blame.
func refuse(kind ncstore.Kind, op, format string, args ...any) error {
	return &ncstore.Error{Kind: kind, Op: op, Field: "path", Msg: fmt.Sprintf(format, args...)}
}

// ioErr is a failure of the operating system under op, said as what was being done.
func ioErr(op string, err error, format string, args ...any) error {
	var e *ncstore.Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	return &ncstore.Error{Kind: ncstore.IO, Op: op, Msg: fmt.Sprintf(format, args...), Err: err}
}
