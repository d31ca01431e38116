package core

import (
	"time"

	"github.com/tsstore/tsstore/core/internal/serial"
)

// Stats counts what a store has done at the storage level since it was opened; the
// difference of two snapshots says what the calls between them did. NetCDFTime is
// process-wide: netcdf-c is serialised across every store in the process.
type Stats struct {
	ChunkReads   int64         // HDF5 chunks array reads intersected
	NCWrites     int64         // netcdf write calls of the packed paths (bands, hash slots)
	DefinePhases int64         // netcdf define phases left (each flushes HDF5 metadata); 0 where the file is written through HDF5
	ColumnsFreed int64         // packed columns freed
	Pending      int           // arrays waiting in the unit of work
	PendingBytes int           // their bytes
	NetCDFTime   time.Duration // time spent holding the netcdf lock, in this process
}

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.nc.Counters()
	return Stats{ChunkReads: c.ChunkReads, NCWrites: c.NCWrites, DefinePhases: c.DefinePhases,
		ColumnsFreed: c.ColumnsFreed, Pending: len(s.unit.pending), PendingBytes: s.unit.pendingBytes,
		NetCDFTime: serial.BusyTime()}
}
