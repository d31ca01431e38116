package lifecycle

import (
	"fmt"
	"strings"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// CleanOrphans runs on every writable open. Arrays that no catalog row names are what a crash
// can leave behind (see the write protocol in unit.go), possibly half-written. Packed columns
// among them are freed by emptying their hash slots — so no later add deduplicates onto
// them — but not zero-filled, in case the catalog rather than the file is what was damaged;
// standalone variables, which netCDF cannot delete, leave the index, and an add of the same
// content rewrites them in place (docs/format.md §13.7).
func CleanOrphans(cat *catalog.Catalog, nc *ncstore.File) error {
	hashes, err := cat.DistinctHashes()
	if err != nil {
		return ioErr("", err, "listing the arrays the catalog references")
	}
	named := make(map[hashing.Digest]bool, len(hashes))
	var missing []hashing.Digest
	for _, h := range hashes {
		if len(h) != 32 {
			continue
		}
		d := hashing.Digest(h)
		named[d] = true
		if !nc.Holding(d) {
			missing = append(missing, d)
		}
	}
	// The write protocol never commits a row before its array is on disk, so a row naming an
	// array the file lacks means the pair does not belong together (a catalog copied from
	// another store) or the file is damaged. Freeing "orphans" then would empty the hash
	// slots of every array the wrong catalog does not name, so the writable open is refused
	// and nothing is written; a read-only open still works for inspection.
	if len(missing) > 0 {
		where := "the catalog may belong to another store, or the file is damaged"
		if sealed := nc.DamagedDatasets(); len(sealed) > 0 {
			where = "they may have lived in " + strings.Join(sealed, ", ") + ", whose hash companions are unreadable"
		}
		return &ncstore.Error{Kind: ncstore.Integrity, Field: "catalog", Msg: fmt.Sprintf(
			"%d of the %d arrays the catalog names are not in the NetCDF file (e.g. %x): %s; nothing was changed — open it read-only to inspect it, or run verify_integrity",
			len(missing), len(named), missing[0][:], where)}
	}
	n, err := nc.ForgetUnnamed(named)
	if err != nil {
		return ioErr("", err, "freeing %d unreferenced packed columns", n)
	}
	if n == 0 {
		return nil
	}
	return ioErr("", nc.Sync(), "syncing the NetCDF file")
}
