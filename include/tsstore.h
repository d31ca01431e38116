/*
 * tsstore.h — the C interface of tsstore, a time-series store for power-system modelling.
 *
 * A store is a pair of files, <name>.nc (NetCDF4, the arrays) and <name>.nc.sqlite (SQLite,
 * the catalog), in on-disk format 0.11.0. This header is the whole contract: anything not
 * declared here is not API.
 *
 * Conventions, the same for every function:
 *   - Every function returns an int32_t status (TSSTORE_OK or one of the TSSTORE_E_* codes
 *     below), except the few documented to return something else.
 *   - Output parameters come last. On failure they are left untouched (handles: set to NULL).
 *   - Handles are opaque pointers. NULL is never a valid handle. A handle that was freed, or
 *     that this library never issued, or one of another kind, is reported as
 *     TSSTORE_E_INVALID_HANDLE — never dereferenced, never a crash. Handles are never reused.
 *   - Every handle a function hands out has exactly one matching free function; freeing NULL,
 *     or freeing twice, is harmless.
 *   - Strings are NUL-terminated UTF-8. Strings going out are copied into caller buffers as
 *     (buf, capacity, *needed): *needed receives the size including the terminating NUL; when
 *     capacity is smaller, nothing is copied and TSSTORE_E_BUFFER_TOO_SMALL is returned. Call
 *     with buf = NULL, capacity = 0 to ask the size.
 *   - Array data goes into caller buffers the same way, in bytes: query the shape first.
 *   - Timestamps are Unix milliseconds (int64_t, UTC). Periods (resolution, horizon,
 *     interval) are ISO-8601 duration strings ("PT1H", "P1D", "P1M"); calendar periods are
 *     kept distinct from fixed ones. Features are a JSON object string
 *     ({"scenario": "high", "model_year": 2030}); NULL or "" means no features.
 *   - After a failure, tsstore_last_error() on the same thread returns its message, also when
 *     no handle was made (a failed open).
 *
 * Statuses: besides those its comment names, any function may return
 *   TSSTORE_E_INVALID_HANDLE    for a handle argument (NULL, freed, foreign, wrong kind);
 *   TSSTORE_E_INVALID_PARAMETER for a NULL pointer where a value is required, an unknown
 *                               code, malformed text, or a size out of range — the message
 *                               names the argument and the value;
 *   TSSTORE_E_BUFFER_TOO_SMALL  when it fills a caller buffer;
 *   TSSTORE_E_INTERNAL          on a bug in tsstore (never a crash: Go panics are caught);
 * and any function taking a store may return TSSTORE_E_IO (netcdf-c, HDF5, SQLite or the OS
 * failed) and, when it writes, TSSTORE_E_READ_ONLY. A failed call changes nothing.
 *
 * Ownership: the library copies what it is given (arrays, strings) before a call returns
 * and never keeps a caller's pointer (the one exception: the user pointer of
 * tsstore_set_log_callback); what it hands out is a handle (freed by its free
 * function) or bytes in the caller's buffer.
 *
 * Linking: libtsstore.so exports only the functions below. libtsstore.a, an archive, cannot
 * hide its contents: it carries its own SQLite (sqlite3_* symbols) and the Go runtime, so a
 * program that links it statically must not also link another libsqlite3 (link order
 * would decide which one each caller gets); use the shared library there.
 *
 * Thread safety: every function may be called from any thread. Calls on one store are
 * serialised inside the library (and every netcdf-c call in the process, which is not
 * thread-safe); handles derived from a store (keys, series, lists) may be used from any
 * thread, but a single reader handle must not be used by two threads at once.
 */
#ifndef TSSTORE_H
#define TSSTORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TSSTORE_API __declspec(dllimport)
#elif defined(__GNUC__)
#define TSSTORE_API __attribute__((visibility("default")))
#else
#define TSSTORE_API
#endif

/* ---- Versions ------------------------------------------------------------------------ */

/* The version of this header. The library's own version is tsstore_version(); a program
 * can compare the two to catch a header / library mismatch. */
#define TSSTORE_VERSION_MAJOR 0
#define TSSTORE_VERSION_MINOR 1
#define TSSTORE_VERSION_PATCH 0
#define TSSTORE_VERSION_NUMBER (TSSTORE_VERSION_MAJOR * 10000 + TSSTORE_VERSION_MINOR * 100 + TSSTORE_VERSION_PATCH)
#define TSSTORE_VERSION_STRING "0.1.0"
/* The on-disk format this library reads and writes. */
#define TSSTORE_DATA_FORMAT_VERSION "0.11.0"

/* Returns the library's version as TSSTORE_VERSION_NUMBER encodes it. Never fails. */
TSSTORE_API int32_t tsstore_version(void);

/* ---- Status codes (never renumbered) -------------------------------------------------- */

#define TSSTORE_OK 0
#define TSSTORE_E_INVALID_PARAMETER 1     /* a bad argument; the message names it */
#define TSSTORE_E_NOT_FOUND 2             /* no such series / array / association */
#define TSSTORE_E_DUPLICATE_TIME_SERIES 3 /* the key is already stored */
#define TSSTORE_E_DUPLICATE_ASSOCIATION 4 /* the pair is already associated */
#define TSSTORE_E_INTEGRITY 5             /* the files disagree with each other */
#define TSSTORE_E_READ_ONLY 6             /* a write on a store opened read-only */
#define TSSTORE_E_IO 7                    /* netcdf-c, HDF5, SQLite or the OS failed */
#define TSSTORE_E_INCOMPATIBLE_FORMAT 8   /* the file's data_format_version is not this build's */
#define TSSTORE_E_INTERNAL 9              /* a bug in tsstore; please report the message */
#define TSSTORE_E_BUFFER_TOO_SMALL 10     /* *needed says how much is needed */
#define TSSTORE_E_INVALID_HANDLE 11       /* NULL, freed, foreign or wrong-kind handle */

/* Returns a static, never-NULL name for a status ("TSSTORE_E_NOT_FOUND"; "unknown status"
 * for a code this library does not know). */
TSSTORE_API const char *tsstore_status_name(int32_t status);

/* Copies the message of the calling thread's last failure ("" if none) into buf.
 * Returns TSSTORE_OK or TSSTORE_E_BUFFER_TOO_SMALL. It does not change the message. */
TSSTORE_API int32_t tsstore_last_error(char *buf, size_t capacity, size_t *needed);

/* ---- Diagnostics ------------------------------------------------------------------------ */

/* The debug log says, per call on a store, what it did at the storage level: chunks read,
 * netcdf writes and define phases, columns freed, arrays left pending in the write buffer,
 * and the time spent in netcdf-c / HDF5 against the call's total (the rest is SQLite and
 * the library). Failures are logged too. It is off unless the environment variable
 * TSSTORE_DEBUG is set (lines go to stderr) or a callback is installed. */
typedef void (*tsstore_log_fn)(const char *line, void *user);

/* Installs fn (called with each line and user, from the thread that made the call, while
 * the library holds no lock of the host's) in place of stderr; NULL uninstalls it. A call
 * already running on another thread may still deliver one line to the previous callback,
 * so keep its user data alive a moment after uninstalling. Never fails. The netcdf time in
 * a line is process-wide: netcdf-c work of concurrent calls on other threads counts too. */
TSSTORE_API int32_t tsstore_set_log_callback(tsstore_log_fn fn, void *user);

/* ---- Enumerations (format-details §1, §2) ---------------------------------------------- */

#define TSSTORE_DTYPE_F64 0
#define TSSTORE_DTYPE_F32 1
#define TSSTORE_DTYPE_I64 2
#define TSSTORE_DTYPE_I32 3
#define TSSTORE_DTYPE_U64 4
#define TSSTORE_DTYPE_BOOL 5 /* one byte per element, 0 or 1 */

#define TSSTORE_OWNER_COMPONENT 0
#define TSSTORE_OWNER_SUPPLEMENTAL_ATTRIBUTE 1

#define TSSTORE_SINGLE_TIME_SERIES 0
#define TSSTORE_NON_SEQUENTIAL_TIME_SERIES 1
#define TSSTORE_DETERMINISTIC 2
#define TSSTORE_DETERMINISTIC_SINGLE_TIME_SERIES 3
#define TSSTORE_PROBABILISTIC 4
#define TSSTORE_SCENARIOS 5
/* Request only: whichever of Deterministic and DeterministicSingleTimeSeries is stored. */
#define TSSTORE_ABSTRACT_DETERMINISTIC 6

/* ---- Handles --------------------------------------------------------------------------- */

typedef struct tsstore_store tsstore_store;   /* an open store */
typedef struct tsstore_key tsstore_key;       /* the identity of one series */
typedef struct tsstore_series tsstore_series; /* a series read from a store */
typedef struct tsstore_keys tsstore_keys;     /* a list of keys */
typedef struct tsstore_batch tsstore_batch;   /* series collected for one all-or-nothing add */
typedef struct tsstore_static_reader tsstore_static_reader;     /* one timestamp of many series */
typedef struct tsstore_forecast_reader tsstore_forecast_reader; /* one window of many forecasts */
typedef struct tsstore_metadata tsstore_metadata;   /* the catalog record of one series */
typedef struct tsstore_strings tsstore_strings;     /* a list of strings */
typedef struct tsstore_associations tsstore_associations; /* rows of an association table */
typedef struct tsstore_filter tsstore_filter;             /* which series a listing selects */

/* ---- Stores ---------------------------------------------------------------------------- */

/* Creates a new store at path (and path + ".sqlite"); neither file may exist.
 * compression: "none", "deflate:{0-9}:shuffle", "deflate:{0-9}:noshuffle", or NULL for the
 * default "deflate:3:shuffle". On success *out is a new store handle (free: tsstore_close).
 * Status: OK, INVALID_PARAMETER (path, compression), IO. */
TSSTORE_API int32_t tsstore_create(const char *path, const char *compression, tsstore_store **out);

/* Opens an existing store. read_only != 0 opens it without write access (no DDL, no write
 * permission needed; every write fails with READ_ONLY).
 * Status: OK, INVALID_PARAMETER, INTEGRITY (a half of the pair is missing or damaged),
 * INCOMPATIBLE_FORMAT (the message names both versions), IO. */
TSSTORE_API int32_t tsstore_open(const char *path, int32_t read_only, tsstore_store **out);

/* Creates a store that lives in memory; tsstore_persist writes it to disk. */
TSSTORE_API int32_t tsstore_open_in_memory(const char *compression, tsstore_store **out);

/* Commits pending writes (as tsstore_flush does) and closes the store; an open transaction
 * is rolled back. The handle is freed even when the commit fails (the status says so).
 * NULL, or a handle already closed, returns TSSTORE_OK. */
TSSTORE_API int32_t tsstore_close(tsstore_store *store);

/* Makes every write so far durable: pending arrays written, the NetCDF file synced, the
 * catalog committed. Status: OK, INVALID_HANDLE, INVALID_PARAMETER (inside a transaction),
 * IO (and every write since the previous commit is rolled back; the message says so). */
TSSTORE_API int32_t tsstore_flush(tsstore_store *store);

/* Writes an in-memory store to path and path + ".sqlite" (neither may exist). */
TSSTORE_API int32_t tsstore_persist(tsstore_store *store, const char *path);

/* Copies the message of this store's last failure ("" if none) into buf. */
TSSTORE_API int32_t tsstore_store_last_error(tsstore_store *store, char *buf, size_t capacity, size_t *needed);

/* Copies what opening this store rolled back into buf ("" if nothing): a writer that died in
 * the middle of a write leaves a hot journal beside the NetCDF file, and the next writable open
 * restores the file from it to its last commit. */
TSSTORE_API int32_t tsstore_store_recovered(tsstore_store *store, char *buf, size_t capacity, size_t *needed);

/* ---- Keys ------------------------------------------------------------------------------ */

/* Makes a key. resolution and interval may be NULL or "" (none: a NonSequential series has
 * no resolution, a static series no interval). features_json: NULL, "" or a JSON object.
 * Free with tsstore_key_free. Status: OK, INVALID_PARAMETER (naming the field). */
TSSTORE_API int32_t tsstore_key_new(int64_t owner_id, int32_t owner_category, int32_t series_type,
                                    const char *name, const char *resolution, const char *interval,
                                    const char *features_json, tsstore_key **out);

/* Frees a key. NULL and freed handles are ignored. */
TSSTORE_API void tsstore_key_free(tsstore_key *key);

/* Reads the parts of a key. Strings as (buf, capacity, *needed); an absent period reads "". */
TSSTORE_API int32_t tsstore_key_owner(const tsstore_key *key, int64_t *owner_id, int32_t *owner_category);
TSSTORE_API int32_t tsstore_key_series_type(const tsstore_key *key, int32_t *series_type);
TSSTORE_API int32_t tsstore_key_name(const tsstore_key *key, char *buf, size_t capacity, size_t *needed);
TSSTORE_API int32_t tsstore_key_resolution(const tsstore_key *key, char *buf, size_t capacity, size_t *needed);
TSSTORE_API int32_t tsstore_key_interval(const tsstore_key *key, char *buf, size_t capacity, size_t *needed);
TSSTORE_API int32_t tsstore_key_features(const tsstore_key *key, char *buf, size_t capacity, size_t *needed);

/* ---- Adding series --------------------------------------------------------------------- */

/* The common arguments of an add:
 *   owner_id, owner_type (e.g. "ThermalStandard"), owner_category (TSSTORE_OWNER_*);
 *   name; features_json, units, ext: NULL or "" for none;
 *   dtype (TSSTORE_DTYPE_*), shape[ndim] the full array shape, data the row-major,
 *   little-endian element bytes, nbytes their length (must equal product(shape) × width);
 *   key_out: receives the new key when not NULL (free: tsstore_key_free).
 * Arrays are copied: the caller may reuse data as soon as the call returns. A write is
 * durable at the next flush, close or outermost commit.
 * Status: OK, INVALID_HANDLE, INVALID_PARAMETER (naming the field and value),
 * DUPLICATE_TIME_SERIES, READ_ONLY, IO. A refused add writes nothing. */

/* A regular series: shape [length, *element_shape], one step per resolution from initial_ms. */
TSSTORE_API int32_t tsstore_add_single(tsstore_store *store, int64_t owner_id, const char *owner_type,
                                       int32_t owner_category, const char *name, int64_t initial_ms,
                                       const char *resolution, int32_t dtype, const int64_t *shape,
                                       size_t ndim, const void *data, size_t nbytes,
                                       const char *features_json, const char *units, const char *ext,
                                       tsstore_key **key_out);

/* An irregular series: timestamps_ms[shape[0]] strictly increasing. */
TSSTORE_API int32_t tsstore_add_nonsequential(tsstore_store *store, int64_t owner_id, const char *owner_type,
                                              int32_t owner_category, const char *name,
                                              const int64_t *timestamps_ms, size_t n_timestamps,
                                              int32_t dtype, const int64_t *shape, size_t ndim,
                                              const void *data, size_t nbytes, const char *features_json,
                                              const char *units, const char *ext, tsstore_key **key_out);

/* A dense forecast. series_type: TSSTORE_DETERMINISTIC (shape [H, count, *E]),
 * TSSTORE_PROBABILISTIC ([P, H, count, *E], percentiles[P] strictly increasing) or
 * TSSTORE_SCENARIOS ([S, H, count, *E]); H = horizon / resolution. percentiles is ignored
 * (may be NULL) unless the type is Probabilistic. */
TSSTORE_API int32_t tsstore_add_forecast(tsstore_store *store, int64_t owner_id, const char *owner_type,
                                         int32_t owner_category, const char *name, int32_t series_type,
                                         int64_t initial_ms, const char *resolution, const char *horizon,
                                         const char *interval, int64_t count, const double *percentiles,
                                         size_t n_percentiles, int32_t dtype, const int64_t *shape,
                                         size_t ndim, const void *data, size_t nbytes,
                                         const char *features_json, const char *units, const char *ext,
                                         tsstore_key **key_out);

/* ---- Reading --------------------------------------------------------------------------- */

/* Reports whether a series with exactly this key is stored (*found 1 or 0). */
TSSTORE_API int32_t tsstore_has(tsstore_store *store, const tsstore_key *key, int32_t *found);

/* Reads a whole series. A DeterministicSingleTimeSeries reads as a Deterministic.
 * Free *out with tsstore_series_free. Status: OK, INVALID_HANDLE, INVALID_PARAMETER,
 * NOT_FOUND, INTEGRITY, IO. */
TSSTORE_API int32_t tsstore_get(tsstore_store *store, const tsstore_key *key, tsstore_series **out);

/* Reads part of a static series: a SingleTimeSeries from floor(start) to ceil(end) on its
 * grid, clamped; a NonSequentialTimeSeries over [start, end). A forecast key is
 * INVALID_PARAMETER. */
TSSTORE_API int32_t tsstore_get_range(tsstore_store *store, const tsstore_key *key, int64_t start_ms,
                                      int64_t end_ms, tsstore_series **out);

/* Reads the forecast windows starting in [first_ms, last_ms]; both must be window starts
 * (initial + k × interval). A static key is INVALID_PARAMETER. */
TSSTORE_API int32_t tsstore_get_windows(tsstore_store *store, const tsstore_key *key, int64_t first_ms,
                                        int64_t last_ms, tsstore_series **out);

/* Frees a series. NULL and freed handles are ignored. */
TSSTORE_API void tsstore_series_free(tsstore_series *series);

/* The shape of what a series read holds:
 *   series_type: TSSTORE_SINGLE_TIME_SERIES, _NON_SEQUENTIAL_, _DETERMINISTIC, _PROBABILISTIC
 *   or _SCENARIOS (a DeterministicSingleTimeSeries reads as Deterministic);
 *   dtype; ndim (the rank of the array; at most 1024);
 *   initial_ms: first step (static) or first window start (forecasts); 0 for NonSequential;
 *   count: windows (forecasts), 0 otherwise. Any pointer may be NULL. */
TSSTORE_API int32_t tsstore_series_info(const tsstore_series *series, int32_t *series_type, int32_t *dtype,
                                        size_t *ndim, int64_t *initial_ms, int64_t *count);

/* Copies the array's shape into shape[capacity]; *ndim receives the rank.
 * BUFFER_TOO_SMALL when capacity < rank. */
TSSTORE_API int32_t tsstore_series_shape(const tsstore_series *series, int64_t *shape, size_t capacity,
                                         size_t *ndim);

/* Copies the array's bytes (row-major, little-endian) into buf[capacity]. */
TSSTORE_API int32_t tsstore_series_data(const tsstore_series *series, void *buf, size_t capacity,
                                        size_t *needed);

/* A NonSequentialTimeSeries' timestamps into buf[capacity] (count in elements). */
TSSTORE_API int32_t tsstore_series_timestamps(const tsstore_series *series, int64_t *buf, size_t capacity,
                                              size_t *needed);

/* Periods of a series ("" when it has none): resolution, horizon, interval. */
TSSTORE_API int32_t tsstore_series_resolution(const tsstore_series *series, char *buf, size_t capacity,
                                              size_t *needed);
TSSTORE_API int32_t tsstore_series_horizon(const tsstore_series *series, char *buf, size_t capacity,
                                           size_t *needed);
TSSTORE_API int32_t tsstore_series_interval(const tsstore_series *series, char *buf, size_t capacity,
                                            size_t *needed);

/* A Probabilistic forecast's percentiles into buf[capacity] (count in elements). */
TSSTORE_API int32_t tsstore_series_percentiles(const tsstore_series *series, double *buf, size_t capacity,
                                               size_t *needed);

/* ---- Removing and listing -------------------------------------------------------------- */

/* Removes one series; its array is freed once no other series references it and the
 * removal is committed. Status: OK, INVALID_HANDLE, NOT_FOUND, READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_remove(tsstore_store *store, const tsstore_key *key);

/* Lists the keys of the series matching a filter, in insertion order. Every filter argument
 * may be "no filter": owner_id with has_owner_id = 0, owner_category / series_type < 0,
 * name / resolution NULL, features_json NULL (a subset match otherwise).
 * Free *out with tsstore_keys_free. */
TSSTORE_API int32_t tsstore_list_keys(tsstore_store *store, int32_t has_owner_id, int64_t owner_id,
                                      int32_t owner_category, int32_t series_type, const char *name,
                                      const char *resolution, const char *features_json, tsstore_keys **out);

/* A filter for tsstore_list_keys_where: starts matching everything; each setter narrows it
 * (setting a field again replaces it). Free with tsstore_filter_free. Setters return
 * INVALID_HANDLE or INVALID_PARAMETER (naming the field) and leave the filter as it was. */
TSSTORE_API int32_t tsstore_filter_new(tsstore_filter **out);
TSSTORE_API void tsstore_filter_free(tsstore_filter *filter);
/* One owner: owner_category a code, or -1 for the id under either category. */
TSSTORE_API int32_t tsstore_filter_owner(tsstore_filter *filter, int64_t owner_id, int32_t owner_category);
/* One owner category, whatever the owner (replaces the category set by tsstore_filter_owner). */
TSSTORE_API int32_t tsstore_filter_owner_category(tsstore_filter *filter, int32_t owner_category);
/* A type code; TSSTORE_ABSTRACT_DETERMINISTIC selects both deterministic kinds. */
TSSTORE_API int32_t tsstore_filter_series_type(tsstore_filter *filter, int32_t series_type);
TSSTORE_API int32_t tsstore_filter_name(tsstore_filter *filter, const char *name);
/* A SQLite GLOB pattern on the name ("max_*", "load_[0-9]*"). */
TSSTORE_API int32_t tsstore_filter_name_glob(tsstore_filter *filter, const char *pattern);
TSSTORE_API int32_t tsstore_filter_owner_type(tsstore_filter *filter, const char *owner_type);
TSSTORE_API int32_t tsstore_filter_resolution(tsstore_filter *filter, const char *resolution);
TSSTORE_API int32_t tsstore_filter_interval(tsstore_filter *filter, const char *interval);
/* A JSON object of features the series must have (a subset match). */
TSSTORE_API int32_t tsstore_filter_features(tsstore_filter *filter, const char *features_json);

/* Lists the keys of the series a filter selects (NULL: all), in insertion order. */
TSSTORE_API int32_t tsstore_list_keys_where(tsstore_store *store, const tsstore_filter *filter, tsstore_keys **out);
/* Removes every series the filter selects (NULL: every series) in one all-or-nothing write;
 * arrays no other series references are freed once it commits. *removed (may be NULL) gets
 * the count. Status: OK, INVALID_HANDLE, READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_remove_where(tsstore_store *store, const tsstore_filter *filter, int64_t *removed);

/* Lists the keys of every series that references the array with this hash. */
TSSTORE_API int32_t tsstore_keys_by_hash(tsstore_store *store, const uint8_t hash[32], tsstore_keys **out);

/* The number of keys in a list. */
TSSTORE_API int32_t tsstore_keys_len(const tsstore_keys *keys, size_t *len);

/* Key i of a list, as a new key handle (free: tsstore_key_free). INVALID_PARAMETER when
 * i is out of range. */
TSSTORE_API int32_t tsstore_keys_get(const tsstore_keys *keys, size_t i, tsstore_key **out);

/* Frees a key list. NULL and freed handles are ignored. */
TSSTORE_API void tsstore_keys_free(tsstore_keys *keys);


/* ---- Transactions and the write buffer ------------------------------------------------- */

/* Opens a transaction; nested calls open savepoints, and only the outermost commit is
 * durable. Reads inside see the transaction's writes; removals free their arrays only after
 * the outermost commit. A transaction belongs to the store: while it is open every thread's
 * writes on that store join it. Status: OK, INVALID_HANDLE, READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_begin(tsstore_store *store);

/* Commits the innermost transaction (the outermost: durably; if that fails the whole
 * transaction is rolled back and the status says so). INVALID_PARAMETER when none is open. */
TSSTORE_API int32_t tsstore_commit(tsstore_store *store);

/* Rolls the innermost transaction back: its rows, arrays and removals. */
TSSTORE_API int32_t tsstore_rollback(tsstore_store *store);

/* Sets how many bytes of pending arrays the store holds before writing them out (and,
 * outside a transaction, committing). Default 256 MiB. */
TSSTORE_API int32_t tsstore_set_write_buffer(tsstore_store *store, int64_t bytes);

/* Sets how many bytes of decoded packed columns the store keeps for one-at-a-time reads
 * (default 64 MiB; 0: none). A packed chunk holds one timestamp of every column, so reading
 * one whole SingleTimeSeries decompresses every chunk of its dataset; the store reads the
 * block of neighbouring columns with it (at the same decompression cost) and serves the
 * next reads of those columns from memory. Any write to the file empties the cache. */
TSSTORE_API int32_t tsstore_set_read_cache(tsstore_store *store, int64_t bytes);

/* ---- Batches --------------------------------------------------------------------------- */

/* Starts an empty batch on a store (free: tsstore_batch_free, which discards what is queued). */
TSSTORE_API int32_t tsstore_batch_new(tsstore_store *store, tsstore_batch **out);

/* Queue one series, with the arguments of the matching tsstore_add_* function. Arguments are
 * checked and arrays copied when queued; keys and the store are checked at commit. */
TSSTORE_API int32_t tsstore_batch_add_single(tsstore_batch *batch, int64_t owner_id, const char *owner_type,
                                             int32_t owner_category, const char *name, int64_t initial_ms,
                                             const char *resolution, int32_t dtype, const int64_t *shape,
                                             size_t ndim, const void *data, size_t nbytes,
                                             const char *features_json, const char *units, const char *ext);
TSSTORE_API int32_t tsstore_batch_add_nonsequential(tsstore_batch *batch, int64_t owner_id, const char *owner_type,
                                                    int32_t owner_category, const char *name,
                                                    const int64_t *timestamps_ms, size_t n_timestamps,
                                                    int32_t dtype, const int64_t *shape, size_t ndim,
                                                    const void *data, size_t nbytes, const char *features_json,
                                                    const char *units, const char *ext);
TSSTORE_API int32_t tsstore_batch_add_forecast(tsstore_batch *batch, int64_t owner_id, const char *owner_type,
                                               int32_t owner_category, const char *name, int32_t series_type,
                                               int64_t initial_ms, const char *resolution, const char *horizon,
                                               const char *interval, int64_t count, const double *percentiles,
                                               size_t n_percentiles, int32_t dtype, const int64_t *shape,
                                               size_t ndim, const void *data, size_t nbytes,
                                               const char *features_json, const char *units, const char *ext);

/* The number of series queued. */
TSSTORE_API int32_t tsstore_batch_len(const tsstore_batch *batch, size_t *len);

/* Adds every queued series, all or nothing; keys_out (may be NULL) receives their keys in
 * queue order (free: tsstore_keys_free). The batch is empty afterwards either way.
 * Status: as tsstore_add_single; a duplicate names the item ("items[3]"). */
TSSTORE_API int32_t tsstore_batch_commit(tsstore_batch *batch, tsstore_keys **keys_out);

/* Discards what is queued and frees the batch. NULL and freed handles are ignored. */
TSSTORE_API void tsstore_batch_free(tsstore_batch *batch);

/* ---- Transform ------------------------------------------------------------------------- */

/* Derives a DeterministicSingleTimeSeries (horizon, interval) over every SingleTimeSeries,
 * or only those of one owner category (>= 0) and/or one resolution (non-NULL); all or
 * nothing, writing catalog rows only. Deriving again with the same horizon is a no-op.
 * *added receives the number of rows added. Status: OK, INVALID_HANDLE, INVALID_PARAMETER
 * (naming the series whose resolution does not divide the horizon or interval),
 * DUPLICATE_TIME_SERIES (the same identity with another horizon), READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_transform_single_time_series(tsstore_store *store, const char *horizon,
                                                         const char *interval, int32_t owner_category,
                                                         const char *resolution, int64_t *added);

/* ---- Bulk reads ------------------------------------------------------------------------ */

/* Reads n whole series in one pass per packed dataset: out[i] receives the series of
 * keys[i] (free each with tsstore_series_free). On failure every out[i] is NULL. */
TSSTORE_API int32_t tsstore_get_many(tsstore_store *store, const tsstore_key *const *keys, size_t n,
                                     tsstore_series **out);

/* ---- Readers for simulation loops ------------------------------------------------------- */

/* A StaticReader reads one timestamp of many SingleTimeSeries at once: keys[n] at one
 * resolution, all on one grid (initial timestamp and length; another grid is
 * INVALID_PARAMETER naming the key). The keys are grouped by (dtype, element shape); after
 * each read, group g's values are [nkeys, *element_shape] for that step, in the order of its
 * key indices. Free with tsstore_static_reader_free. A reader must not be used by two
 * threads at once. */
TSSTORE_API int32_t tsstore_static_reader_new(tsstore_store *store, const char *resolution,
                                              const tsstore_key *const *keys, size_t n,
                                              tsstore_static_reader **out);
/* The shared grid: step i is at initial_ms + i × resolution, 0 <= i < length. */
TSSTORE_API int32_t tsstore_static_reader_grid(const tsstore_static_reader *reader, int64_t *initial_ms,
                                               int64_t *length);
/* Reads the step at timestamp_ms (which must be a grid point: never clamped), or step i. */
TSSTORE_API int32_t tsstore_static_reader_read(tsstore_static_reader *reader, int64_t timestamp_ms);
TSSTORE_API int32_t tsstore_static_reader_read_step(tsstore_static_reader *reader, int64_t step);
/* The number of groups. */
TSSTORE_API int32_t tsstore_static_reader_groups(const tsstore_static_reader *reader, size_t *n_groups);
/* A group's dtype, number of keys and element shape (into element_shape[capacity]; *ndim
 * receives its rank, 0 for scalars). */
TSSTORE_API int32_t tsstore_static_reader_group_info(const tsstore_static_reader *reader, size_t group,
                                                     int32_t *dtype, size_t *n_keys, int64_t *element_shape,
                                                     size_t capacity, size_t *ndim);
/* The indices (into the keys given to _new) of a group's keys, into buf[capacity]. */
TSSTORE_API int32_t tsstore_static_reader_group_keys(const tsstore_static_reader *reader, size_t group,
                                                     int64_t *buf, size_t capacity, size_t *needed);
/* Copies a group's values of the last step read into buf[capacity] (bytes). */
TSSTORE_API int32_t tsstore_static_reader_group_values(const tsstore_static_reader *reader, size_t group,
                                                       void *buf, size_t capacity, size_t *needed);
TSSTORE_API void tsstore_static_reader_free(tsstore_static_reader *reader);

/* A ForecastReader reads one window of many forecasts at once: keys[n] of one series_type
 * (TSSTORE_ABSTRACT_DETERMINISTIC mixes Deterministic and DeterministicSingleTimeSeries)
 * and one resolution, sharing a window timeline (initial timestamp, interval, count).
 * Groups are by (dtype, element shape, layers, steps); after each read, group g's values
 * are [nkeys, H, *E] (deterministic) or [nkeys, layers, H, *E] (Probabilistic, Scenarios).
 * A sweep over the windows in order decompresses each storage chunk once. */
TSSTORE_API int32_t tsstore_forecast_reader_new(tsstore_store *store, int32_t series_type, const char *resolution,
                                                const tsstore_key *const *keys, size_t n,
                                                tsstore_forecast_reader **out);
/* The shared timeline: window i starts at initial_ms + i × interval, 0 <= i < count. */
TSSTORE_API int32_t tsstore_forecast_reader_grid(const tsstore_forecast_reader *reader, int64_t *initial_ms,
                                                 int64_t *count);
/* Reads the window starting at start_ms (which must be a window start), or window i. */
TSSTORE_API int32_t tsstore_forecast_reader_read(tsstore_forecast_reader *reader, int64_t start_ms);
TSSTORE_API int32_t tsstore_forecast_reader_read_window(tsstore_forecast_reader *reader, int64_t window);
TSSTORE_API int32_t tsstore_forecast_reader_groups(const tsstore_forecast_reader *reader, size_t *n_groups);
/* A group's dtype, number of keys, layers (percentiles or scenarios; 1 for deterministic
 * types), steps per window and element shape. */
TSSTORE_API int32_t tsstore_forecast_reader_group_info(const tsstore_forecast_reader *reader, size_t group,
                                                       int32_t *dtype, size_t *n_keys, int64_t *layers,
                                                       int64_t *steps, int64_t *element_shape, size_t capacity,
                                                       size_t *ndim);
TSSTORE_API int32_t tsstore_forecast_reader_group_keys(const tsstore_forecast_reader *reader, size_t group,
                                                       int64_t *buf, size_t capacity, size_t *needed);
TSSTORE_API int32_t tsstore_forecast_reader_group_values(const tsstore_forecast_reader *reader, size_t group,
                                                         void *buf, size_t capacity, size_t *needed);
TSSTORE_API void tsstore_forecast_reader_free(tsstore_forecast_reader *reader);

/* ---- Metadata and queries ---------------------------------------------------------------- */

/* The catalog record of one series (free: tsstore_metadata_free). */
TSSTORE_API int32_t tsstore_get_metadata(tsstore_store *store, const tsstore_key *key, tsstore_metadata **out);
TSSTORE_API void tsstore_metadata_free(tsstore_metadata *metadata);
/* Its stored type (never abstract), dtype, length (the first axis of the stored array,
 * format-details §6), windows (forecasts) and first timestamp (0 for NonSequential). */
TSSTORE_API int32_t tsstore_metadata_info(const tsstore_metadata *metadata, int32_t *series_type, int32_t *dtype,
                                          int64_t *length, int64_t *count, int64_t *initial_ms);
/* The element shape column (format-details §6). */
TSSTORE_API int32_t tsstore_metadata_element_shape(const tsstore_metadata *metadata, int64_t *shape, size_t capacity,
                                                   size_t *ndim);
/* A text field: 0 owner_type, 1 units, 2 ext, 3 resolution, 4 horizon, 5 interval; "" when absent. */
TSSTORE_API int32_t tsstore_metadata_text(const tsstore_metadata *metadata, int32_t field, char *buf,
                                          size_t capacity, size_t *needed);
/* The 32-byte content hashes: 0 data_hash, 1 features_hash. */
TSSTORE_API int32_t tsstore_metadata_hash(const tsstore_metadata *metadata, int32_t which, uint8_t hash[32]);
/* The series' key (free: tsstore_key_free). */
TSSTORE_API int32_t tsstore_metadata_key(const tsstore_metadata *metadata, tsstore_key **out);

/* Distinct values over the whole store: field 0 names, 1 owner types, 2 resolutions,
 * 3 intervals (free: tsstore_strings_free). */
TSSTORE_API int32_t tsstore_list_distinct(tsstore_store *store, int32_t field, tsstore_strings **out);
TSSTORE_API int32_t tsstore_strings_len(const tsstore_strings *strings, size_t *len);
TSSTORE_API int32_t tsstore_strings_get(const tsstore_strings *strings, size_t i, char *buf, size_t capacity,
                                        size_t *needed);
TSSTORE_API void tsstore_strings_free(tsstore_strings *strings);

/* counts[7] receives the number of series of each type code (index 6, abstract, is 0). */
TSSTORE_API int32_t tsstore_counts_by_type(tsstore_store *store, int64_t counts[7]);
/* The number of distinct stored arrays. */
TSSTORE_API int32_t tsstore_count_arrays(tsstore_store *store, int64_t *n);
/* counts[7] receives, per type, how many series reference the array with this hash. */
TSSTORE_API int32_t tsstore_count_by_hash(tsstore_store *store, const uint8_t hash[32], int64_t counts[7]);
/* Reads a stored array by its hash, as a series handle of type -1 (shape and data only). */
TSSTORE_API int32_t tsstore_get_array(tsstore_store *store, const uint8_t hash[32], tsstore_series **out);

/* The forecast parameters of the store as text lines, one per distinct set:
 * "<type code> <initial_ms> <resolution> <horizon> <interval> <count> <n series>\n". */
TSSTORE_API int32_t tsstore_forecast_parameters(tsstore_store *store, char *buf, size_t capacity, size_t *needed);
/* The static summary as text lines, one per grid:
 * "<resolution> <initial_ms> <length> <n series> <n owners>\n". */
TSSTORE_API int32_t tsstore_static_summary(tsstore_store *store, char *buf, size_t capacity, size_t *needed);

/* ---- Owner moves --------------------------------------------------------------------- */

/* Attaches a stored series to another owner too (the array is shared), optionally renamed
 * (new_name NULL keeps the name). key_out may be NULL. Status: OK, NOT_FOUND,
 * DUPLICATE_TIME_SERIES, INVALID_PARAMETER (the Deterministic / DST exclusion), READ_ONLY. */
TSSTORE_API int32_t tsstore_copy_series(tsstore_store *store, const tsstore_key *key, int64_t owner_id,
                                        const char *owner_type, int32_t owner_category, const char *new_name,
                                        tsstore_key **key_out);
/* Renames a stored series. */
TSSTORE_API int32_t tsstore_rename_series(tsstore_store *store, const tsstore_key *key, const char *new_name,
                                          tsstore_key **key_out);
/* Moves every series of owner (old_id, owner_category) to new_id, all or nothing. */
TSSTORE_API int32_t tsstore_replace_owner_id(tsstore_store *store, int32_t owner_category, int64_t old_id,
                                             int64_t new_id, int64_t *moved);

/* ---- Associations ---------------------------------------------------------------------- */

/* table: 0 supplemental attributes (A = component, B = attribute), 1 parent/child
 * (A = parent, B = child). Identity is the ordered (A id, B id) pair; adding a stored pair,
 * whatever its type names, is DUPLICATE_ASSOCIATION. */
#define TSSTORE_SUPPLEMENTAL_ASSOCIATIONS 0
#define TSSTORE_PARENT_CHILD_ASSOCIATIONS 1

/* Adds n rows, all or nothing: a_ids[n], a_types[n], b_ids[n], b_types[n]. */
TSSTORE_API int32_t tsstore_add_associations(tsstore_store *store, int32_t table, size_t n, const int64_t *a_ids,
                                             const char *const *a_types, const int64_t *b_ids,
                                             const char *const *b_types);
/* Reports whether the pair (a_id, b_id) is present. */
TSSTORE_API int32_t tsstore_has_association(tsstore_store *store, int32_t table, int64_t a_id, int64_t b_id,
                                            int32_t *found);
/* Filters, for list and remove: a_ids[n_a] and b_ids[n_b]; a NULL list matches everything,
 * a non-NULL list of length 0 nothing. a_type / b_type: NULL or one type name. */
TSSTORE_API int32_t tsstore_list_associations(tsstore_store *store, int32_t table, const int64_t *a_ids, size_t n_a,
                                              const int64_t *b_ids, size_t n_b, const char *a_type,
                                              const char *b_type, tsstore_associations **out);
TSSTORE_API int32_t tsstore_remove_associations(tsstore_store *store, int32_t table, const int64_t *a_ids,
                                                size_t n_a, const int64_t *b_ids, size_t n_b, const char *a_type,
                                                const char *b_type, int64_t *removed);
/* Replaces id old with new: at the component end (supplemental) or at both ends (parent/child). */
TSSTORE_API int32_t tsstore_replace_association_id(tsstore_store *store, int32_t table, int64_t old_id,
                                                   int64_t new_id, int64_t *changed);
/* Rows, distinct A ids and distinct B ids. */
TSSTORE_API int32_t tsstore_association_counts(tsstore_store *store, int32_t table, int64_t *rows,
                                               int64_t *distinct_a, int64_t *distinct_b);
TSSTORE_API int32_t tsstore_associations_len(const tsstore_associations *rows, size_t *len);
/* Row i's ids, and its type names (end 0: A, 1: B). */
TSSTORE_API int32_t tsstore_associations_ids(const tsstore_associations *rows, size_t i, int64_t *a_id,
                                             int64_t *b_id);
TSSTORE_API int32_t tsstore_associations_type(const tsstore_associations *rows, size_t i, int32_t end, char *buf,
                                              size_t capacity, size_t *needed);
TSSTORE_API void tsstore_associations_free(tsstore_associations *rows);

/* ---- Maintenance ----------------------------------------------------------------------- */

/* Commits pending writes and deletes feature sets no series references; reports free packed
 * columns, datasets dropped (always 0 in format 0.11.0), feature_sets rows deleted and dead
 * standalone variables. Any pointer may be NULL. */
TSSTORE_API int32_t tsstore_compact(tsstore_store *store, int64_t *slots_reclaimed, int64_t *datasets_dropped,
                                    int64_t *feature_sets_reclaimed, int64_t *dead_standalone);
/* Rehashes every array and checks every row; *problems receives how many were found and buf
 * their descriptions, one per line. TSSTORE_OK even when problems are found (read *problems);
 * an error status means the check itself could not run. Each call runs the whole check, a
 * size query (buf NULL) included: pass a generous buffer once rather than asking first. */
TSSTORE_API int32_t tsstore_verify_integrity(tsstore_store *store, int64_t *arrays_checked, int64_t *problems,
                                             char *buf, size_t capacity, size_t *needed);
/* *consistent = 1 when, at every resolution, all SingleTimeSeries share one grid. */
TSSTORE_API int32_t tsstore_check_static_consistency(tsstore_store *store, int32_t *consistent);

#ifdef __cplusplus
}
#endif

#endif /* TSSTORE_H */
