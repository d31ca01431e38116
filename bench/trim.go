package main

// #include <malloc.h>
import "C"

// trimCHeap returns the C heap's free pages to the OS (netcdf-c, HDF5 and SQLite free their
// memory when a store closes, but glibc keeps it), so the next workload's peak RSS is its own.
func trimCHeap() { C.malloc_trim(0) }
