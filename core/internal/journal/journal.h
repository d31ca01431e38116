/* Rollback journal for the store's NetCDF file: see journal.c for the design. */
#ifndef TSSTORE_JOURNAL_H
#define TSSTORE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include <hdf5.h>

typedef struct tsj_file tsj_file;

/* 1 when netcdf-c's HDF5 opens can be routed through the journalling driver. */
int tsj_active(void);

/* While armed, every file netcdf-c opens or creates goes through the journalling driver,
   holding overwrites of pre-existing bytes in memory until spill_bytes (0 = default). */
void tsj_arm(size_t spill_bytes);
void tsj_disarm(void);

/* A file-access property list (the caller closes it) that opens a file through the
   journalling driver, for opens made with HDF5's own API rather than netcdf-c's; -1 on
   failure. Files it opens hold overwrites in memory until spill_bytes (0 = default). */
hid_t tsj_fapl(size_t spill_bytes);

/* The journalled file open on path (by device and inode), or NULL. */
tsj_file *tsj_lookup(const char *path);

/* Ends the unit: the file's bytes are made durable and the journal invalidated, so a later
   rollback returns to this state. Returns 0 or an errno; msg receives the reason. */
int tsj_end_unit(tsj_file *f, char *msg, size_t msglen);

/* Nonzero once a write or journal step of f failed. */
int tsj_failed(const tsj_file *f);

/* Marks f failed as a write failing with err would (tests of what the store does then). */
void tsj_fail_for_testing(tsj_file *f, int err);

/* Marks every writable file opened from now on failed with err as it opens (0: none), as a
   journal that cannot be written would (tests of how an open reports it). */
void tsj_fail_opens_for_testing(int err);

/* 0 while f works; once a write or journal step failed, its errno (msg says what to do). */
int tsj_failure(tsj_file *f, char *msg, size_t msglen);

/* When the last file that failed and closed is path's, its errno (0 otherwise), with the
   reason in msg; the record is cleared. */
int tsj_take_failure(const char *path, char *msg, size_t msglen);

/* Bytes of pre-images written to the journal and pages spilled since the file opened. */
void tsj_stats(tsj_file *f, uint64_t *journal_bytes, uint64_t *spills);

/* Rolls path back from a hot journal left by a writer that did not finish its unit.
   Returns 0 when there was nothing to do, 1 when it rolled back, -1 on error (msg says why;
   *busy is set when another process holds the file). */
int tsj_recover(const char *path, int may_write, int *busy, char *msg, size_t msglen);

#endif
