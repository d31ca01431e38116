package core

import "github.com/tsstore/tsstore/core/internal/hashing"

// cleanOrphans runs on every writable open. Arrays that no catalog row names are what a crash
// can leave behind (see the write protocol in unit.go), possibly half-written. Packed columns
// among them are freed by emptying their hash slots — so no later add deduplicates onto
// them — but not zero-filled, in case the catalog rather than the file is what was damaged;
// standalone variables, which netCDF cannot delete, leave the index, and an add of the same
// content rewrites them in place.
func (s *Store) cleanOrphans() error {
	hashes, err := s.cat.DistinctHashes()
	if err != nil {
		return wrapIO("", err, "listing the arrays the catalog references")
	}
	named := make(map[hashing.Digest]bool, len(hashes))
	for _, h := range hashes {
		if len(h) == 32 {
			named[hashing.Digest(h)] = true
		}
	}
	var free []hashing.Digest
	for d := range s.nc.packed {
		if !named[d] {
			free = append(free, d)
		}
	}
	for d, sv := range s.nc.standalone {
		if !named[d] {
			s.nc.untrusted[d] = sv
			delete(s.nc.standalone, d)
		}
	}
	if len(free) == 0 {
		return nil
	}
	if err := s.nc.forgetArrays(free); err != nil {
		return wrapIO("", err, "freeing %d unreferenced packed columns", len(free))
	}
	return wrapIO("", s.nc.sync(), "syncing the NetCDF file")
}
