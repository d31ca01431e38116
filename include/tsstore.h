/*
 * tsstore.h — the C interface of tsstore, a time-series store for power-system modelling.
 *
 * A store is a pair of files, <name>.nc (NetCDF4, the arrays) and <name>.nc.sqlite (SQLite,
 * the catalog), in on-disk format 0.11.0. This header is the whole contract: anything not
 * declared here is not API. The bindings' raw layers (Python's ctypes declarations, Julia's
 * LibTsStore.jl) are generated from it by scripts/gen-bindings, so its declarations keep to a
 * small grammar: one declaration per statement, `TSSTORE_API <type> <name>(<params>);`,
 * structs as `typedef struct <name> { <fields> } <name>;`, constants as `#define TSSTORE_<X> <int>`
 * or `"<text>"`, and _INIT macros that spell out every field. Run scripts/gen-bindings after
 * any change here, comments included (they become the bindings' docstrings).
 *
 * Conventions, the same for every function:
 *   - Every function returns an int32_t status (TSSTORE_OK or one of the TSSTORE_E_* codes
 *     below), except the few documented to return something else.
 *   - Arguments come in one order: the store or handle, then what is looked up, then inputs,
 *     then outputs. On failure outputs are left untouched (handles: set to NULL).
 *   - Handles are opaque pointers. NULL is never a valid handle. A handle that was freed, or
 *     that this library never issued, or one of another kind, is reported as
 *     TSSTORE_E_INVALID_HANDLE — never dereferenced, never a crash. Handles are never reused.
 *     Every handle has exactly one free function; freeing NULL, or twice, is harmless.
 *   - Structs passed in or out carry struct_size first; set it with the struct's _INIT macro
 *     (or to sizeof the struct). The library reads and writes only the first struct_size
 *     bytes, so a program built against an older header keeps working with a newer library.
 *     An array of structs has the stride of its first element's struct_size.
 *   - Arrays go into caller buffers (dst, capacity in bytes or elements as documented, and
 *     a *needed or *n out). When the capacity is too small nothing is written to dst, the
 *     size is still reported, and the status is TSSTORE_E_BUFFER_TOO_SMALL.
 *   - Strings in are NUL-terminated UTF-8. Strings out (and the feature arrays of keys) are
 *     owned by a handle the caller holds and frees, never by a thread: those of a key list,
 *     an association list, a string list or an error by that handle, until it is freed;
 *     those of a series_info or key a store call fills (tsstore_get, tsstore_add, ...) by the
 *     store, until it is closed (the store keeps one copy of each distinct string it hands
 *     out, so a loop of reads does not grow it).
 *   - Timestamps are Unix milliseconds (int64_t, UTC). Periods are tsstore_period values:
 *     a count of milliseconds or of calendar months, kept distinct (P1M is not 30 days).
 *     tsstore_period_parse and tsstore_period_format convert ISO-8601 text ("PT1H", "P1M").
 *   - Features are an array of tsstore_feature (name, kind, value) or, for a C program's
 *     convenience, a JSON object ({"scenario": "high", "model_year": 2030}) that the library
 *     parses; a key the library hands out carries the array.
 *   - After a failure, tsstore_last_error() on the same thread describes it: status, the
 *     argument to blame as a TSSTORE_ARG_* code, the failing element of an array argument,
 *     and the message. It stays until the thread's next failure, also when no handle was made
 *     (a failed open).
 *
 * Statuses: besides those its comment names, any function may return
 *   TSSTORE_E_INVALID_HANDLE    for a handle argument (NULL, freed, foreign, wrong kind);
 *   TSSTORE_E_INVALID_PARAMETER for a NULL pointer where a value is required, an unknown
 *                               code, malformed text, or a size out of range — the error
 *                               names the argument (its TSSTORE_ARG_* code; in the message,
 *                               struct fields as desc.name) and the value;
 *   TSSTORE_E_BUFFER_TOO_SMALL  when it fills a caller buffer;
 *   TSSTORE_E_INTERNAL          on a bug in tsstore (never a crash: Go panics are caught);
 * and any function taking a store may return TSSTORE_E_IO (netcdf-c, HDF5, SQLite or the OS
 * failed) and, when it writes, TSSTORE_E_READ_ONLY. A failed call changes nothing.
 *
 * Ownership: the library copies what it is given (arrays, strings) before a call returns
 * and never keeps a caller's pointer, with two exceptions that say so: the user pointer of
 * tsstore_set_log_callback and the buffers bound to a reader (tsstore_*_reader_bind).
 *
 * Linking: libtsstore.so exports only the functions below. libtsstore.a, an archive, cannot
 * hide its contents: it carries its own SQLite (sqlite3_* symbols) and the Go runtime, so a
 * program that links it statically must not also link another libsqlite3 (link order
 * would decide which one each caller gets); use the shared library there.
 *
 * Loading at run time: a program may dlopen libtsstore.so (RTLD_NOW | RTLD_LOCAL is enough)
 * and dlsym each function it calls, typing the pointers from this header's declarations;
 * comparing tsstore_version() / 100 with TSSTORE_VERSION_NUMBER / 100 catches a library of
 * another minor version, whose ABI differs. dlclose never unloads it: a Go runtime cannot be
 * unloaded, so the library is linked NODELETE; its handles stay valid, its threads keep
 * running, and a later dlopen returns the same library (tests/ctest/dlopen/).
 *
 * Thread safety: every function may be called from any thread. Calls on one store are
 * serialised inside the library, and so is every netcdf-c and HDF5 call in the process
 * (neither library is thread-safe); key and association lists may be used from any thread,
 * but a single reader handle must not be used by two threads at once.
 *
 * Worker threads: bulk adds and reads, and the flush that writes one-at-a-time adds into
 * datasets holding other series, shuffle, deflate and inflate chunks on a pool of workers,
 * TSSTORE_THREADS of them (read once, at the first such call; default: the CPUs the process
 * may run on; a value that is not a count from 1 to 1024 is said once on stderr and the
 * default used), while HDF5 moves the encoded chunks on the calling thread. Memory: a bulk
 * call holds two groups of rows per worker, each at most 3 MiB (1 MiB of rows, their encoded
 * bytes, a scratch row); a flush holds one such group and a row per worker, or two
 * standalone arrays of at most 4 MiB per worker with their shuffled and encoded copies; each
 * thread that has deflated keeps two zlib streams of about 270 KB; a static reader holds,
 * for each dataset it reads, eight rows per worker and one more, each at most 3 chunk
 * sizes, as long as they hold at most 6 MiB, and never fewer than two per worker and one
 * more (a chunk is at most 1 MiB). A read-only store keeps the rows it decodes of each
 * dataset whose rows fit in 128 MiB, as HDF5's chunk cache did before, until it is closed.
 * TSSTORE_THREADS=1 does all the work on the calling thread. Files are the same, byte for
 * byte, whatever the count.
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

/* ==== Constants ========================================================================= */

/* The version of this header. tsstore_version() is the library's; a program can compare the
 * two to catch a header / library mismatch. */
#define TSSTORE_VERSION_MAJOR 0
#define TSSTORE_VERSION_MINOR 3
#define TSSTORE_VERSION_PATCH 1
#define TSSTORE_VERSION_NUMBER 301 /* MAJOR * 10000 + MINOR * 100 + PATCH */
#define TSSTORE_VERSION_STRING "0.3.1"
/* The on-disk format this library reads and writes. */
#define TSSTORE_DATA_FORMAT_VERSION "0.11.0"

/* Status codes (never renumbered). */
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
#define TSSTORE_E_BUFFER_TOO_SMALL 10     /* the size out says how much is needed */
#define TSSTORE_E_INVALID_HANDLE 11       /* NULL, freed, foreign or wrong-kind handle */

/* Element types (docs/format.md §2). */
#define TSSTORE_DTYPE_F64 0
#define TSSTORE_DTYPE_F32 1
#define TSSTORE_DTYPE_I64 2
#define TSSTORE_DTYPE_I32 3
#define TSSTORE_DTYPE_U64 4
#define TSSTORE_DTYPE_BOOL 5 /* one byte per element, 0 or 1 */

/* Owner categories. */
#define TSSTORE_OWNER_COMPONENT 0
#define TSSTORE_OWNER_SUPPLEMENTAL_ATTRIBUTE 1
#define TSSTORE_OWNER_ANY -1 /* lookups and filters only */

/* Series types (stable codes). */
#define TSSTORE_SINGLE_TIME_SERIES 0
#define TSSTORE_NON_SEQUENTIAL_TIME_SERIES 1
#define TSSTORE_DETERMINISTIC 2
#define TSSTORE_DETERMINISTIC_SINGLE_TIME_SERIES 3
#define TSSTORE_PROBABILISTIC 4
#define TSSTORE_SCENARIOS 5
/* Lookups and filters only: whichever of Deterministic and DeterministicSingleTimeSeries is
 * stored. */
#define TSSTORE_ABSTRACT_DETERMINISTIC 6
/* Lookups and filters only: any type. */
#define TSSTORE_ANY_TYPE -1

/* Lookup flags (tsstore_lookup.flags). */
#define TSSTORE_LOOKUP_EXACT_FEATURES 1 /* features exactly as given, no superset */

/* Feature kinds (tsstore_feature.kind). */
#define TSSTORE_FEATURE_INT 1   /* int_value */
#define TSSTORE_FEATURE_FLOAT 2 /* float_value (NaN only in lookups: it names another writer's set) */
#define TSSTORE_FEATURE_BOOL 3  /* int_value, 0 or 1 */
#define TSSTORE_FEATURE_STR 4   /* str_value */

/* Period units. */
#define TSSTORE_PERIOD_NONE 0   /* no period: absent (outputs) or "any" (lookups, filters) */
#define TSSTORE_PERIOD_MILLIS 1 /* value milliseconds: PT1H is 3600000 */
#define TSSTORE_PERIOD_MONTHS 2 /* value calendar months: P1Y is 12 */

/* The largest rank of an array a series_info can describe (time axis included). */
#define TSSTORE_MAX_RANK 16

/* Distinct-value fields (tsstore_list_distinct). */
#define TSSTORE_FIELD_NAME 0
#define TSSTORE_FIELD_OWNER_TYPE 1
#define TSSTORE_FIELD_RESOLUTION 2
#define TSSTORE_FIELD_INTERVAL 3

/* The argument a failure blames (tsstore_error_info.arg), so that a binding names its own
 * argument without reading the message. The comment is the C spelling messages use: a field
 * of the call's struct argument (desc, descs[i], which, which[i], filter, rows[i]) or a plain
 * argument; detail narrows it (a feature's name, an axis or element index). */
#define TSSTORE_ARG_NONE 0              /* none, or a catalog column (detail) of a damaged store */
#define TSSTORE_ARG_PATH 1              /* path */
#define TSSTORE_ARG_COMPRESSION 2       /* compression */
#define TSSTORE_ARG_SERIES 3            /* desc as a whole */
#define TSSTORE_ARG_SERIES_TYPE 4       /* series_type */
#define TSSTORE_ARG_OWNER_ID 5          /* owner_id, match_owner_id */
#define TSSTORE_ARG_OWNER_CATEGORY 6    /* owner_category */
#define TSSTORE_ARG_OWNER_TYPE 7        /* owner_type */
#define TSSTORE_ARG_NAME 8              /* name */
#define TSSTORE_ARG_DTYPE 9             /* dtype */
#define TSSTORE_ARG_SHAPE 10            /* shape, ndim (detail: the axis) */
#define TSSTORE_ARG_DATA 11             /* data, nbytes (detail: an element) */
#define TSSTORE_ARG_INITIAL_TIMESTAMP 12 /* initial_ms */
#define TSSTORE_ARG_RESOLUTION 13       /* resolution; a period argument (text, period, step) */
#define TSSTORE_ARG_TIMESTAMPS 14       /* timestamps_ms (detail: an element) */
#define TSSTORE_ARG_HORIZON 15          /* horizon */
#define TSSTORE_ARG_INTERVAL 16         /* interval */
#define TSSTORE_ARG_COUNT 17            /* count */
#define TSSTORE_ARG_PERCENTILES 18      /* percentiles, n_percentiles */
#define TSSTORE_ARG_FEATURES 19         /* features, features_json (detail: a feature's name) */
#define TSSTORE_ARG_UNITS 20            /* units */
#define TSSTORE_ARG_EXT 21              /* ext */
#define TSSTORE_ARG_START 22            /* start_ms, first_ms */
#define TSSTORE_ARG_END 23              /* end_ms, last_ms */
#define TSSTORE_ARG_LOOKUP 24           /* which (or which[i], descs[i], rows[i]) as a whole */
#define TSSTORE_ARG_KEYS 25             /* which[n], descs[n], rows[n] as a whole (n) */
#define TSSTORE_ARG_BUFFER 26           /* dst, capacity */
#define TSSTORE_ARG_STEP 27             /* a reader's step, window, timestamp_ms, start_ms */
#define TSSTORE_ARG_HASH 28             /* hash32 */
#define TSSTORE_ARG_NEW_NAME 29         /* new_name */
#define TSSTORE_ARG_NEW_ID 30           /* new_id */
#define TSSTORE_ARG_A_TYPE 31           /* a_type */
#define TSSTORE_ARG_B_TYPE 32           /* b_type */
#define TSSTORE_ARG_A_IDS 33            /* a_ids */
#define TSSTORE_ARG_B_IDS 34            /* b_ids */
#define TSSTORE_ARG_GROUP 35            /* group */
#define TSSTORE_ARG_BYTES 36            /* bytes */
#define TSSTORE_ARG_TABLE 37            /* table */
#define TSSTORE_ARG_FIELD 38            /* field */
#define TSSTORE_ARG_OUT 39              /* an out pointer (detail: its name) */
#define TSSTORE_ARG_FILTER 40           /* filter as a whole */

/* Association tables. Identity is the ordered (A id, B id) pair. */
#define TSSTORE_SUPPLEMENTAL_ASSOCIATIONS 0 /* A = component, B = supplemental attribute */
#define TSSTORE_PARENT_CHILD_ASSOCIATIONS 1 /* A = parent, B = child */

/* ==== Structs =========================================================================== */

/* A resolution, horizon or interval. */
typedef struct tsstore_period {
    int64_t value; /* milliseconds or months, as unit says; 0 with TSSTORE_PERIOD_NONE */
    int32_t unit;  /* TSSTORE_PERIOD_* */
    int32_t reserved;
} tsstore_period;

/* One feature of a series: a name and a typed value. */
typedef struct tsstore_feature {
    uint32_t struct_size;
    int32_t kind; /* TSSTORE_FEATURE_* */
    const char *name;
    int64_t int_value;     /* INT, BOOL */
    double float_value;    /* FLOAT */
    const char *str_value; /* STR */
} tsstore_feature;
#define TSSTORE_FEATURE_INIT { sizeof(tsstore_feature), TSSTORE_FEATURE_INT, NULL, 0, 0, NULL }

/* Which series a call means. A lookup names an owner and a series name; every other field
 * narrows it, and may be left at "any":
 *   series_type     a type code, TSSTORE_ABSTRACT_DETERMINISTIC or TSSTORE_ANY_TYPE;
 *                   the _INIT default is TSSTORE_SINGLE_TIME_SERIES;
 *   owner_category  TSSTORE_OWNER_COMPONENT (the default), _SUPPLEMENTAL_ATTRIBUTE, or _ANY;
 *   resolution, interval   unit TSSTORE_PERIOD_NONE (the default): any;
 *   features[n_features]   the features asked for; NULL (and n_features 0): read features_json
 *                   instead. Given (n_features may be 0: none), the series whose features are
 *                   exactly these, or else the one series whose features include them all;
 *   features_json   used when features is NULL: NULL means any features, a JSON object
 *                   features as above;
 *   flags           0, or TSSTORE_LOOKUP_EXACT_FEATURES: only the series whose features are
 *                   exactly the features given (none given then means none), never one that
 *                   has more. A key handed out by the library (series_info.key) carries it;
 *   series_id       0, or the id of a key the library handed out: a hint. When the series it
 *                   names is exactly the one an exact lookup (EXACT_FEATURES, or every field
 *                   given) names, it is read with no search of the catalog; otherwise the hint
 *                   is ignored. A key keeps its hint for as long as its series is stored.
 * A lookup that matches no series is TSSTORE_E_NOT_FOUND; one that matches several is
 * TSSTORE_E_INVALID_PARAMETER, its message listing them. A lookup that gives every field
 * (as the key of a listed series does) costs one index probe. */
typedef struct tsstore_lookup {
    uint32_t struct_size;
    int32_t series_type;
    int64_t owner_id;
    int32_t owner_category;
    int32_t flags; /* TSSTORE_LOOKUP_* */
    const char *name;
    tsstore_period resolution;
    tsstore_period interval;
    const char *features_json;
    const tsstore_feature *features;
    size_t n_features;
    int64_t series_id;
} tsstore_lookup;
#define TSSTORE_LOOKUP_INIT                                                                                 \
    { sizeof(tsstore_lookup), TSSTORE_SINGLE_TIME_SERIES, 0, TSSTORE_OWNER_COMPONENT, 0, NULL, {0, 0, 0}, {0, 0, 0}, \
      NULL, NULL, 0, 0 }

/* One series to add (tsstore_add, tsstore_add_batch). Fields by type:
 *   all types       series_type, owner_id, owner_type (e.g. "ThermalStandard"),
 *                   owner_category, name, dtype, shape[ndim], data[nbytes] (row-major,
 *                   little-endian elements; nbytes = product(shape) × the dtype's width),
 *                   features[n_features] (or, when features is NULL, features_json: NULL
 *                   or "" for none), units, ext (NULL or "" for none);
 *   SingleTimeSeries   shape [length, *element_shape], one step per resolution from
 *                   initial_ms;
 *   NonSequentialTimeSeries   timestamps_ms[shape[0]], strictly increasing; resolution unused;
 *   Deterministic   shape [H, count, *E] with H = horizon / resolution, windows every
 *                   interval from initial_ms;
 *   Probabilistic   shape [P, H, count, *E], percentiles[n_percentiles = P] strictly
 *                   increasing;
 *   Scenarios       shape [S, H, count, *E].
 * Fields a type does not use are ignored. */
typedef struct tsstore_series_desc {
    uint32_t struct_size;
    int32_t series_type;
    int64_t owner_id;
    int32_t owner_category;
    int32_t dtype;
    const char *owner_type;
    const char *name;
    int64_t initial_ms;
    tsstore_period resolution;
    const int64_t *timestamps_ms;
    tsstore_period horizon;
    tsstore_period interval;
    int64_t count;
    const double *percentiles;
    size_t n_percentiles;
    const int64_t *shape;
    size_t ndim;
    const void *data;
    size_t nbytes;
    const char *features_json;
    const char *units;
    const char *ext;
    const tsstore_feature *features;
    size_t n_features;
} tsstore_series_desc;
#define TSSTORE_SERIES_DESC_INIT                                                                      \
    { sizeof(tsstore_series_desc), TSSTORE_SINGLE_TIME_SERIES, 0, TSSTORE_OWNER_COMPONENT, TSSTORE_DTYPE_F64, \
      NULL, NULL, 0, {0, 0, 0}, NULL, {0, 0, 0}, {0, 0, 0}, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL, NULL,    \
      NULL, 0 }

/* What a series is, and what a read returned. key holds the series' full identity, ready to
 * pass back as a lookup: its features both as an array and as canonical JSON text (a lookup
 * reads the array when it is given), its series_id set, its strings and features owned as
 * the rule for strings out says. ndim, shape, nbytes,
 * initial_ms and count describe what the read returned (a range, some windows) or, from
 * tsstore_get_info and listings, what a whole read returns (for a
 * DeterministicSingleTimeSeries its windows, [H, count, *E], not its source's rows). The
 * rest describes the stored series:
 *   series_type      the stored type (DeterministicSingleTimeSeries stays itself);
 *   initial_ms       first step (SingleTimeSeries), first window start (forecasts), first
 *                    timestamp (NonSequentialTimeSeries; 0 when empty);
 *   length           the catalog's length: the first axis of the stored array;
 *   count            windows (forecasts), 0 otherwise;
 *   n_layers         percentiles (Probabilistic) or scenarios (Scenarios), 0 otherwise;
 *   horizon, resolution, interval   unit TSSTORE_PERIOD_NONE where the type has none;
 *   units, ext       "" when not recorded. */
typedef struct tsstore_series_info {
    uint32_t struct_size;
    int32_t dtype;
    tsstore_lookup key;
    const char *owner_type;
    const char *units;
    const char *ext;
    int32_t ndim;
    int32_t n_layers;
    int64_t shape[TSSTORE_MAX_RANK];
    uint64_t nbytes;
    int64_t initial_ms;
    int64_t length;
    int64_t count;
    tsstore_period horizon;
    uint8_t data_hash[32];
    uint8_t features_hash[32];
} tsstore_series_info;
#define TSSTORE_SERIES_INFO_INIT                                                                   \
    { sizeof(tsstore_series_info), 0, TSSTORE_LOOKUP_INIT, NULL, NULL, NULL, 0, 0, {0}, 0, 0, 0, 0, {0, 0, 0}, \
      {0}, {0} }

/* Which series a listing or a bulk removal selects. Every field starts at "everything":
 *   match_owner_id   0: any owner; 1: owner_id only;
 *   owner_category, series_type   TSSTORE_OWNER_ANY / TSSTORE_ANY_TYPE for any;
 *   name, name_glob (a SQLite GLOB: "max_*"), owner_type   NULL for any;
 *   resolution, interval   unit TSSTORE_PERIOD_NONE for any;
 *   features[n_features]   the series' features include these; NULL: read features_json,
 *                    NULL for any, a JSON object of features to include. */
typedef struct tsstore_filter {
    uint32_t struct_size;
    int32_t match_owner_id;
    int64_t owner_id;
    int32_t owner_category;
    int32_t series_type;
    const char *name;
    const char *name_glob;
    const char *owner_type;
    tsstore_period resolution;
    tsstore_period interval;
    const char *features_json;
    const tsstore_feature *features;
    size_t n_features;
} tsstore_filter;
#define TSSTORE_FILTER_INIT                                                                                  \
    { sizeof(tsstore_filter), 0, 0, TSSTORE_OWNER_ANY, TSSTORE_ANY_TYPE, NULL, NULL, NULL, {0, 0, 0}, {0, 0, 0}, \
      NULL, NULL, 0 }

/* The shared timeline of a reader: step (or window) i starts at initial_ms + i × step_period,
 * 0 <= i < steps. For a StaticReader step_period is the resolution; for a ForecastReader it
 * is the interval between windows, and steps is the window count. */
typedef struct tsstore_reader_info {
    uint32_t struct_size;
    int32_t n_groups;
    int64_t initial_ms;
    int64_t steps;
    tsstore_period step_period;
    tsstore_period resolution;
} tsstore_reader_info;
#define TSSTORE_READER_INFO_INIT { sizeof(tsstore_reader_info), 0, 0, 0, {0, 0, 0}, {0, 0, 0} }

/* One group of a reader: the keys of one (dtype, element shape[, layers, steps]). After a
 * read, the group's values for that step are one array of shape
 *   [n_keys, *element_shape]                      (StaticReader),
 *   [n_keys, steps, *element_shape]                (ForecastReader, deterministic types),
 *   [n_keys, layers, steps, *element_shape]        (ForecastReader, Probabilistic, Scenarios),
 * nbytes long, keys in the order of tsstore_*_reader_group_keys. */
typedef struct tsstore_group_info {
    uint32_t struct_size;
    int32_t dtype;
    int64_t n_keys;
    int64_t layers; /* 1 for StaticReader and deterministic types */
    int64_t steps;  /* 1 for StaticReader */
    int32_t element_ndim;
    int32_t reserved;
    int64_t element_shape[TSSTORE_MAX_RANK];
    uint64_t nbytes;
} tsstore_group_info;
#define TSSTORE_GROUP_INFO_INIT { sizeof(tsstore_group_info), 0, 0, 0, 0, 0, 0, {0}, 0 }

/* How many series of each type (tsstore_counts_by_type, tsstore_count_by_hash). */
typedef struct tsstore_type_counts {
    uint32_t struct_size;
    int32_t reserved;
    int64_t single_time_series;
    int64_t non_sequential_time_series;
    int64_t deterministic;
    int64_t deterministic_single_time_series;
    int64_t probabilistic;
    int64_t scenarios;
} tsstore_type_counts;
#define TSSTORE_TYPE_COUNTS_INIT { sizeof(tsstore_type_counts), 0, 0, 0, 0, 0, 0, 0 }

/* One distinct set of forecast parameters and how many forecasts have it. */
typedef struct tsstore_forecast_params {
    uint32_t struct_size;
    int32_t series_type;
    int64_t initial_ms;
    tsstore_period resolution;
    tsstore_period horizon;
    tsstore_period interval;
    int64_t count;
    int64_t n_series;
} tsstore_forecast_params;
#define TSSTORE_FORECAST_PARAMS_INIT { sizeof(tsstore_forecast_params), 0, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0, 0 }

/* One grid shared by SingleTimeSeries: a resolution, a first step and a length. */
typedef struct tsstore_static_grid {
    uint32_t struct_size;
    int32_t reserved;
    tsstore_period resolution;
    int64_t initial_ms;
    int64_t length;
    int64_t n_series;
    int64_t n_owners;
} tsstore_static_grid;
#define TSSTORE_STATIC_GRID_INIT { sizeof(tsstore_static_grid), 0, {0, 0, 0}, 0, 0, 0, 0 }

/* One row of an association table (strings owned by the list). */
typedef struct tsstore_association {
    uint32_t struct_size;
    int32_t reserved;
    int64_t a_id;
    const char *a_type;
    int64_t b_id;
    const char *b_type;
} tsstore_association;
#define TSSTORE_ASSOCIATION_INIT { sizeof(tsstore_association), 0, 0, NULL, 0, NULL }

/* Counts of an association table. */
typedef struct tsstore_association_tally {
    uint32_t struct_size;
    int32_t reserved;
    int64_t rows;
    int64_t distinct_a;
    int64_t distinct_b;
} tsstore_association_tally;
#define TSSTORE_ASSOCIATION_TALLY_INIT { sizeof(tsstore_association_tally), 0, 0, 0, 0 }

/* What tsstore_compact did and found. */
typedef struct tsstore_compact_report {
    uint32_t struct_size;
    int32_t reserved;
    int64_t slots_reclaimed;        /* free packed columns, reusable by the next compatible add */
    int64_t datasets_dropped;       /* always 0 in format 0.11.0 */
    int64_t feature_sets_reclaimed; /* feature_sets rows deleted */
    int64_t dead_standalone;        /* standalone variables no series references */
} tsstore_compact_report;
#define TSSTORE_COMPACT_REPORT_INIT { sizeof(tsstore_compact_report), 0, 0, 0, 0, 0 }

/* What tsstore_verify_integrity found: one count per kind of problem. */
typedef struct tsstore_integrity_report {
    uint32_t struct_size;
    int32_t reserved;
    int64_t arrays_checked;
    int64_t hash_mismatches;  /* arrays whose bytes no longer hash to their recorded hash */
    int64_t unreadable;       /* arrays netcdf-c / HDF5 could not read */
    int64_t dangling_rows;    /* rows whose data_hash names no array */
    int64_t shape_mismatches; /* rows whose dtype or shape disagree with their array */
} tsstore_integrity_report;
#define TSSTORE_INTEGRITY_REPORT_INIT { sizeof(tsstore_integrity_report), 0, 0, 0, 0, 0, 0 }

/* What tsstore_last_error reports of a failure; its strings are the error handle's. */
typedef struct tsstore_error_info {
    uint32_t struct_size;
    int32_t status;        /* the TSSTORE_E_* the call returned */
    int32_t arg;           /* TSSTORE_ARG_*: the argument to blame */
    int32_t reserved;
    int64_t item;          /* the failing element of an array argument (descs, which, rows, dst), -1 for none */
    const char *operation; /* what failed, as the library names its operations ("add_time_series") */
    const char *detail;    /* within arg: a feature's name, an axis or element index; "" */
    const char *reason;    /* why, without the operation and argument */
    const char *message;   /* the whole message, the argument spelled as C names it */
} tsstore_error_info;
#define TSSTORE_ERROR_INFO_INIT { sizeof(tsstore_error_info), 0, 0, 0, -1, NULL, NULL, NULL, NULL }

/* ==== Handles =========================================================================== */

typedef struct tsstore_store tsstore_store;                     /* an open store */
typedef struct tsstore_keys tsstore_keys;                       /* the series a listing found */
typedef struct tsstore_strings tsstore_strings;                 /* a list of strings */
typedef struct tsstore_associations tsstore_associations;       /* rows of an association table */
typedef struct tsstore_static_reader tsstore_static_reader;     /* one timestamp of many series */
typedef struct tsstore_forecast_reader tsstore_forecast_reader; /* one window of many forecasts */
typedef struct tsstore_error tsstore_error;                     /* a failure, as reported */

/* ==== Functions ========================================================================= */

/* TSSTORE_TYPES_ONLY is for the library's own build, which declares these functions with
 * ABI-identical handle types of its own. */
#ifndef TSSTORE_TYPES_ONLY

/* ---- Versions and errors --------------------------------------------------------------- */

/* The library's version as TSSTORE_VERSION_NUMBER encodes it. Never fails. */
TSSTORE_API int32_t tsstore_version(void);

/* A static, never-NULL name for a status ("TSSTORE_E_NOT_FOUND"; "unknown status" for a
 * code this library does not know), owned by the library for the life of the process. Never
 * fails. */
TSSTORE_API const char *tsstore_status_name(int32_t status);

/* A new handle on the calling thread's last failure (free: tsstore_error_free); a thread
 * with no failure yet gets one of status TSSTORE_OK and empty strings. Reading it changes
 * nothing: the thread's record stays until its next failure.
 * Status: OK, INVALID_PARAMETER (out is NULL). */
TSSTORE_API int32_t tsstore_last_error(tsstore_error **out);

/* Fills info with what error records; its strings are the handle's, valid until it is freed.
 * Status: OK, INVALID_HANDLE, INVALID_PARAMETER (info NULL or its struct_size too small). */
TSSTORE_API int32_t tsstore_error_get(const tsstore_error *error, tsstore_error_info *info);

/* Frees an error handle and its strings. NULL and freed handles are ignored. */
TSSTORE_API void tsstore_error_free(tsstore_error *error);

/* Copies the message of the calling thread's last failure ("" if none) into buf[capacity]:
 * as much of it as fits, cut on a character boundary and NUL-terminated, unlike other calls
 * that fill a buffer (a message is for reading, so a part is better than none). *needed (may
 * be NULL) gets the whole message's size with its NUL. The program owns buf; the thread's
 * record is unchanged. Status: OK, INVALID_PARAMETER (buf NULL with a capacity). */
TSSTORE_API int32_t tsstore_last_error_message(char *buf, size_t capacity, size_t *needed);

/* The debug log says, per call on a store, what it did at the storage level: chunks read,
 * netcdf writes and define phases, columns freed, arrays left pending in the write buffer,
 * and the time spent in netcdf-c / HDF5 against the call's total. Failures are logged too.
 * It is off unless the environment variable TSSTORE_DEBUG is set (lines go to stderr) or a
 * callback is installed. */
typedef void (*tsstore_log_fn)(const char *line, void *user);

/* Installs fn (called with each line and user, from the thread that made the call, while
 * the library holds no lock of the host's) in place of stderr; NULL uninstalls it. line is
 * valid during the callback only. A call already running on another thread may still deliver
 * one line to the previous callback, so keep its user data alive a moment after uninstalling.
 * The library keeps user until it is replaced. Status: OK (never fails). */
TSSTORE_API int32_t tsstore_set_log_callback(tsstore_log_fn fn, void *user);

/* ---- Periods and timelines (the store's own time arithmetic) ------------------------------ */

/* Parses an ISO-8601 duration ("PT1H", "P1D", "P1M", "P1Y2M", "PT90M") into *out, in
 * canonical form (fixed periods in milliseconds, calendar ones in months).
 * Status: OK, INVALID_PARAMETER (text NULL, not an ISO-8601 duration, zero or negative, or
 * mixing calendar and fixed parts; out NULL). */
TSSTORE_API int32_t tsstore_period_parse(const char *text, tsstore_period *out);

/* Writes a period's canonical ISO-8601 text ("PT1H", "P1M"; "" for TSSTORE_PERIOD_NONE) into
 * buf[capacity], which the caller owns; *needed (may be NULL) gets its size with the NUL.
 * Status: OK, INVALID_PARAMETER (period NULL, an unknown unit, a value that is not positive),
 * BUFFER_TOO_SMALL (nothing written; *needed says how much). */
TSSTORE_API int32_t tsstore_period_format(const tsstore_period *period, char *buf, size_t capacity,
                                          size_t *needed);

/* Fills dst[n] with the timestamps initial_ms + (first + i) × step for i < n; calendar steps
 * follow the calendar (month ends clamp as the format says).
 * Status: OK, INVALID_PARAMETER (step NULL or not positive, n negative, first out of range,
 * dst NULL with n > 0, a timestamp past the years the format spells). */
TSSTORE_API int32_t tsstore_timeline(int64_t initial_ms, const tsstore_period *step, int64_t first, int64_t n,
                                     int64_t *dst);

/* Infers the regular resolution of timestamps_ms[n] (n >= 2, strictly increasing): a fixed
 * step, or a whole number of calendar months. *regular = 1 and *resolution set when every
 * gap is that step; *regular = 0 (resolution NONE) when the timestamps are irregular. When
 * both fit (1 July of three years 365 days apart), the fixed step is reported.
 * Status: OK, INVALID_PARAMETER (n < 2, a NULL pointer, timestamps not strictly increasing,
 * naming the first that is not). */
TSSTORE_API int32_t tsstore_infer_resolution(const int64_t *timestamps_ms, size_t n, int32_t *regular,
                                             tsstore_period *resolution);

/* ---- Stores ---------------------------------------------------------------------------- */

/* Creates a new store at path (and path + ".sqlite"); neither file may exist.
 * compression: "none", "deflate:{0-9}:shuffle", "deflate:{0-9}:noshuffle", or NULL for the
 * default "deflate:3:shuffle". On success *out is a new store (free: tsstore_close).
 * Status: OK, INVALID_PARAMETER (path, compression), NOT_FOUND (the directory does not
 * exist), IO. */
TSSTORE_API int32_t tsstore_create(const char *path, const char *compression, tsstore_store **out);

/* Opens an existing store (path and path + ".sqlite"). read_only != 0 opens it without
 * write access (no DDL, no write permission needed; every write fails with READ_ONLY). Either
 * way the file is read through HDF5 one dataset at a time, so an open costs what the catalog
 * and the file's index hold, not what is stored. A writable open rolls the file back from a
 * hot journal a writer that died left (tsstore_store_recovered says what it rolled back), and
 * finishes a compaction rewrite cut short after its commit point; a read-only open of such a
 * store fails with IO and changes nothing. On success *out is a new store (free:
 * tsstore_close). Status: OK, INVALID_PARAMETER (path NULL, out NULL; the store is already
 * open for writing in this process), NOT_FOUND (no such file), INTEGRITY (a half of the pair
 * is missing or damaged, or the file is not a store), INCOMPATIBLE_FORMAT (the message names
 * both versions), IO (another process holds it, it is not writable, HDF5 cannot read it: the
 * message says which). */
TSSTORE_API int32_t tsstore_open(const char *path, int32_t read_only, tsstore_store **out);

/* Creates a store that lives in memory (its arrays in HDF5's core driver, its catalog in an
 * in-memory SQLite); tsstore_persist writes it to disk. On success *out is a new store (free:
 * tsstore_close). Status: OK, INVALID_PARAMETER (compression, out NULL), IO. */
TSSTORE_API int32_t tsstore_open_in_memory(const char *compression, tsstore_store **out);

/* Commits pending writes (as tsstore_flush does) and closes the store; an open transaction
 * is rolled back. The handle is freed even when the commit fails, and with it every string
 * and feature array the store handed out. NULL, or a handle already closed, returns
 * TSSTORE_OK. Status: OK, IO (the final commit failed: writes since the last commit are
 * lost; the message says so). */
TSSTORE_API int32_t tsstore_close(tsstore_store *store);

/* Makes every write so far durable: pending arrays written, the NetCDF file synced, the
 * catalog committed. Status: OK, INVALID_PARAMETER (inside a transaction), IO (and every
 * write since the previous commit is rolled back; the message says so). */
TSSTORE_API int32_t tsstore_flush(tsstore_store *store);

/* Writes an in-memory store to path and path + ".sqlite" (neither may exist), as a store
 * written afresh; the store stays in memory. Status: OK, INVALID_PARAMETER (not an in-memory
 * store, a transaction open, path NULL or empty, a file there already), NOT_FOUND (the
 * directory does not exist), IO. */
TSSTORE_API int32_t tsstore_persist(tsstore_store *store, const char *path);

/* Copies the message of this store's last failure on any thread ("" if none) into
 * buf[capacity], which the caller owns; *needed (may be NULL) gets its size with the NUL.
 * Status: OK, INVALID_PARAMETER (buf NULL with a capacity), BUFFER_TOO_SMALL (nothing
 * written; *needed says how much). */
TSSTORE_API int32_t tsstore_store_last_error(tsstore_store *store, char *buf, size_t capacity, size_t *needed);

/* Copies what opening this store rolled back into buf ("" if nothing): a writer that died in
 * the middle of a write leaves a hot journal beside the NetCDF file, and the next writable
 * open restores the file from it to its last commit. Status: as tsstore_store_last_error. */
TSSTORE_API int32_t tsstore_store_recovered(tsstore_store *store, char *buf, size_t capacity, size_t *needed);

/* ---- Adding series --------------------------------------------------------------------- */

/* Adds one series. The array is copied once, before the call returns: the caller may reuse
 * desc's buffers at once. *stored (may be NULL) gets the key the store keeps: the periods
 * and features as stored, the series_id set (strings owned by the store). The write is
 * durable at the next flush, close or outermost commit.
 * Status: OK, INVALID_PARAMETER (naming the field, "desc.shape[0]", and its value),
 * DUPLICATE_TIME_SERIES, READ_ONLY, IO. A refused add writes nothing. */
TSSTORE_API int32_t tsstore_add(tsstore_store *store, const tsstore_series_desc *desc, tsstore_lookup *stored);

/* Adds descs[n] in one call, all or nothing: every item is checked against the store and
 * the rest of the batch, and a refusal leaves the store as it was (items are checked and
 * their rows inserted a slice at a time, 512 items and then twice as many each slice up to
 * 8,192, undone together); the arrays are copied once. stored[n] (may be NULL; the stride is
 * stored[0].struct_size) gets each item's key, as tsstore_add; after a refusal its contents
 * are unspecified (keys of items before the refused one may be written, though none of them
 * stays stored). A refusal names the item (item of tsstore_error_info; "descs[3].name" in the
 * message). Status: as tsstore_add. */
TSSTORE_API int32_t tsstore_add_batch(tsstore_store *store, const tsstore_series_desc *descs, size_t n,
                                      tsstore_lookup *stored);

/* What tsstore_add_batch_from asks for its descriptors with: set *descs to items
 * first..first+count-1 of the batch, count descriptors one struct_size apart (the stride is
 * (*descs)[0].struct_size), and return TSSTORE_OK. The descriptors, and everything they point
 * at, must stay valid and unchanged until tsstore_add_batch_from returns. Any other status
 * of this header's stops the add, which then returns it (a code the header does not list:
 * TSSTORE_E_INVALID_PARAMETER) and leaves the store as it was. */
typedef int32_t (*tsstore_desc_fill)(void *user, size_t first, size_t count, const tsstore_series_desc **descs);

/* tsstore_add_batch over n descriptors that fill gives a slice at a time (since 0.3.1), so a
 * binding converts its own items into descriptors while the library adds the slice before:
 * fill is called for slices in order, starting at 0, the first on the calling thread and the
 * others on threads of the library's while the call waits; never two at once, and none after
 * the call returns. fill must not call a function of this library that takes a store, a
 * reader or a list (the others, tsstore_period_parse say, it may). Everything else, stored
 * included, is as tsstore_add_batch; a refusal names the item by its index in the batch
 * ("items[9000].name"). Status: as tsstore_add, or what fill returned when it stopped the
 * add. */
TSSTORE_API int32_t tsstore_add_batch_from(tsstore_store *store, tsstore_desc_fill fill, void *user, size_t n,
                                           tsstore_lookup *stored);

/* Derives a DeterministicSingleTimeSeries (horizon, interval) over every SingleTimeSeries,
 * or only those of one owner category (not TSSTORE_OWNER_ANY) and/or one resolution (unit
 * not NONE); all or nothing, writing catalog rows only. Deriving again with the same horizon
 * is a no-op. *added gets the number of rows added. Status: OK, INVALID_PARAMETER (naming
 * the series whose resolution does not divide the horizon or interval),
 * DUPLICATE_TIME_SERIES (the same identity with another horizon), READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_transform_single_time_series(tsstore_store *store, const tsstore_period *horizon,
                                                         const tsstore_period *interval, int32_t owner_category,
                                                         const tsstore_period *resolution, int64_t *added);

/* ---- Reading --------------------------------------------------------------------------- */

/* *found = 1 when at least one series matches the lookup (several matching is not an error
 * here), else 0. Status: OK, INVALID_PARAMETER (the lookup: a NULL name, an unknown code,
 * malformed features; found NULL), IO. */
TSSTORE_API int32_t tsstore_has(tsstore_store *store, const tsstore_lookup *which, int32_t *found);

/* Describes the series the lookup names, reading no array. Status: OK, NOT_FOUND,
 * INVALID_PARAMETER (several match), INTEGRITY, IO. */
TSSTORE_API int32_t tsstore_get_info(tsstore_store *store, const tsstore_lookup *which, tsstore_series_info *info);

/* Reads a whole series into dst[capacity] (bytes, row-major, little-endian), straight from
 * the file's chunks; info (may be NULL) describes it. A DeterministicSingleTimeSeries reads
 * its windows as a Deterministic does. When capacity is too small nothing is read, info is
 * still filled (info->nbytes says what is needed) and the status is BUFFER_TOO_SMALL.
 * Status: as tsstore_get_info, and BUFFER_TOO_SMALL. */
TSSTORE_API int32_t tsstore_get(tsstore_store *store, const tsstore_lookup *which, void *dst, size_t capacity,
                                tsstore_series_info *info);

/* Reads part of a static series: a SingleTimeSeries from floor(start) to ceil(end) on its
 * grid, both inclusive, clamped; a NonSequentialTimeSeries over [start, end). info describes
 * the part read (its initial_ms is the first step read). Status: as tsstore_get, and
 * INVALID_PARAMETER for a forecast, an end before the start, or a range outside the series. */
TSSTORE_API int32_t tsstore_get_range(tsstore_store *store, const tsstore_lookup *which, int64_t start_ms,
                                      int64_t end_ms, void *dst, size_t capacity, tsstore_series_info *info);

/* Reads the forecast windows starting in [first_ms, last_ms]; both must be window starts
 * (initial + k × interval) of the series. info describes the windows read. Status: as
 * tsstore_get, and INVALID_PARAMETER for a static series, a time that is not a window start
 * or lies past the windows, or last before first. */
TSSTORE_API int32_t tsstore_get_windows(tsstore_store *store, const tsstore_lookup *which, int64_t first_ms,
                                        int64_t last_ms, void *dst, size_t capacity, tsstore_series_info *info);

/* Fills dst[capacity] (elements) with the timestamps of a series in [start_ms, end_ms]
 * (INT64_MIN, INT64_MAX for all of them): the steps of a SingleTimeSeries (floor(start) to
 * ceil(end), as tsstore_get_range reads), the stored timestamps of a NonSequentialTimeSeries
 * (start <= t < end), the window starts of a forecast. *n gets the count. Status: OK,
 * NOT_FOUND, INVALID_PARAMETER (several match; n NULL; dst NULL with a capacity),
 * BUFFER_TOO_SMALL (nothing written; *n says how many), INTEGRITY, IO. */
TSSTORE_API int32_t tsstore_get_timestamps(tsstore_store *store, const tsstore_lookup *which, int64_t start_ms,
                                           int64_t end_ms, int64_t *dst, size_t capacity, size_t *n);

/* Fills dst[capacity] with a Probabilistic forecast's percentiles (0 of them for other
 * types); *n gets the count. Status: as tsstore_get_timestamps. */
TSSTORE_API int32_t tsstore_get_percentiles(tsstore_store *store, const tsstore_lookup *which, double *dst,
                                            size_t capacity, size_t *n);

/* Reads which[n] whole, in one pass per packed dataset: series i goes into dst[i]
 * (capacity[i] bytes) and infos[i] describes it. dst NULL (capacity then NULL too) reads no
 * array and fills infos only, to size the buffers. On BUFFER_TOO_SMALL no array is read; the
 * message names the first item that does not fit ("dst[3]"), and every infos[i] is filled.
 * infos may not be NULL. Status: as tsstore_get; a lookup's failure names it ("which[3]").
 * The keys of infos carry their series_id: a second call with them as which[n] (buffers
 * sized from infos) reads each series by id, without searching the catalog again. */
TSSTORE_API int32_t tsstore_get_many(tsstore_store *store, const tsstore_lookup *which, size_t n,
                                     void *const *dst, const size_t *capacity, tsstore_series_info *infos);

/* Reads a stored array by its content hash (hash32, 32 bytes) into dst[capacity]; info (may
 * be NULL) gets its dtype, ndim, shape and nbytes only. Status: OK, NOT_FOUND (no array has
 * that hash), INVALID_PARAMETER (hash32 NULL), BUFFER_TOO_SMALL (nothing read), INTEGRITY,
 * IO. */
TSSTORE_API int32_t tsstore_get_array(tsstore_store *store, const uint8_t *hash32, void *dst, size_t capacity,
                                      tsstore_series_info *info);

/* ---- Removing -------------------------------------------------------------------------- */

/* Removes the one series the lookup names; its array is freed once no other series
 * references it and the removal is committed. A SingleTimeSeries that backs a derived
 * DeterministicSingleTimeSeries is refused (remove the derived forecast first).
 * Status: OK, NOT_FOUND, INVALID_PARAMETER (several match), READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_remove(tsstore_store *store, const tsstore_lookup *which);

/* Removes every series the filter selects (NULL: every series) in one all-or-nothing write.
 * *removed (may be NULL) gets the count. Status: OK, INVALID_PARAMETER (the filter; a
 * SingleTimeSeries selected that backs a DeterministicSingleTimeSeries not selected),
 * READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_remove_where(tsstore_store *store, const tsstore_filter *filter, int64_t *removed);

/* ---- Listing --------------------------------------------------------------------------- */

/* Lists the series a filter selects (NULL: all), in insertion order. On success *out is a
 * new list (free: tsstore_keys_free), which owns the strings and feature arrays of its entries.
 * Status: OK, INVALID_PARAMETER (the filter, out NULL), INTEGRITY (a catalog row this build
 * cannot read), IO. */
TSSTORE_API int32_t tsstore_list_keys(tsstore_store *store, const tsstore_filter *filter, tsstore_keys **out);

/* Lists every series that references the array with this content hash (none: an empty list).
 * *out as tsstore_list_keys. Status: OK, INVALID_PARAMETER (hash32 or out NULL), INTEGRITY, IO. */
TSSTORE_API int32_t tsstore_keys_by_hash(tsstore_store *store, const uint8_t *hash32, tsstore_keys **out);

/* The number of series in a list. Status: OK, INVALID_HANDLE, INVALID_PARAMETER (len NULL). */
TSSTORE_API int32_t tsstore_keys_len(const tsstore_keys *keys, size_t *len);

/* Fills infos[n] with entries first .. first + n - 1 of a list (as tsstore_get_info would;
 * strings and features owned by the list). Status: OK, INVALID_HANDLE, INVALID_PARAMETER (the
 * range passes the end; infos NULL or its struct_size too small). */
TSSTORE_API int32_t tsstore_keys_get(const tsstore_keys *keys, size_t first, size_t n, tsstore_series_info *infos);

/* Frees a key list and the strings it owns. NULL and freed handles are ignored. */
TSSTORE_API void tsstore_keys_free(tsstore_keys *keys);

/* ---- Transactions and buffers ---------------------------------------------------------- */

/* Opens a transaction; nested calls open savepoints, and only the outermost commit is
 * durable. Reads inside see the transaction's writes; removals free their arrays only after
 * the outermost commit. A transaction belongs to the store: while it is open every thread's
 * writes on that store join it. Status: OK, READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_begin(tsstore_store *store);

/* Commits the innermost transaction; the outermost one durably. Status: OK,
 * INVALID_PARAMETER (no transaction is open), IO (the outermost commit failed: the whole
 * transaction is rolled back, and the message says so). */
TSSTORE_API int32_t tsstore_commit(tsstore_store *store);

/* Rolls the innermost transaction back: its rows, arrays and removals. Status: OK,
 * INVALID_PARAMETER (no transaction is open), IO. */
TSSTORE_API int32_t tsstore_rollback(tsstore_store *store);

/* Sets how many bytes of pending arrays the store holds before writing them out (and,
 * outside a transaction, committing). Default 256 MiB. Status: OK, INVALID_PARAMETER (bytes
 * negative or too large). */
TSSTORE_API int32_t tsstore_set_write_buffer(tsstore_store *store, int64_t bytes);

/* Sets how many bytes of decoded packed columns the store keeps for one-at-a-time reads
 * (default 64 MiB; 0: none). A packed chunk holds one timestamp of every column, so reading
 * one whole SingleTimeSeries decompresses every chunk of its dataset; the store keeps the
 * block of neighbouring columns it decoded with it and serves the next reads of those from
 * memory. Any write to the file empties the cache. Status: OK, INVALID_PARAMETER (bytes
 * negative or too large). */
TSSTORE_API int32_t tsstore_set_read_cache(tsstore_store *store, int64_t bytes);

/* ---- Readers for simulation loops ------------------------------------------------------- */

/* A StaticReader reads one timestamp of many SingleTimeSeries at once: which[n] at one
 * resolution, all on one grid. The keys are grouped by (dtype, element shape). Bind a buffer
 * to each group you want, then every read fills the bound buffers (one call per step, no copy
 * through library memory). which[] is read during the call only. On success *out is a new
 * reader (free: tsstore_static_reader_free). A reader must not be used by two threads at once.
 * Status: OK, INVALID_PARAMETER (resolution NULL or not positive; n 0; an item of another
 * type, resolution or grid, naming which[i]), NOT_FOUND (an item is not stored, naming
 * which[i]), INTEGRITY, IO. */
TSSTORE_API int32_t tsstore_static_reader_new(tsstore_store *store, const tsstore_period *resolution,
                                              const tsstore_lookup *which, size_t n, tsstore_static_reader **out);
/* The reader's grid and number of groups. Status: OK, INVALID_HANDLE, INVALID_PARAMETER (info
 * NULL or its struct_size too small). */
TSSTORE_API int32_t tsstore_static_reader_info(const tsstore_static_reader *reader, tsstore_reader_info *info);
/* Group g's dtype, key count, element shape and bytes per step. Status: OK, INVALID_HANDLE,
 * INVALID_PARAMETER (g out of range; info NULL or its struct_size too small). */
TSSTORE_API int32_t tsstore_static_reader_group(const tsstore_static_reader *reader, size_t group,
                                                tsstore_group_info *info);
/* The indices (into which[] given to _new) of group g's keys, into dst[capacity]; *n gets
 * how many. Status: OK, INVALID_HANDLE, INVALID_PARAMETER (g out of range, a NULL pointer),
 * BUFFER_TOO_SMALL (nothing written; *n says how many). */
TSSTORE_API int32_t tsstore_static_reader_group_keys(const tsstore_static_reader *reader, size_t group,
                                                     int64_t *dst, size_t capacity, size_t *n);
/* Binds dst[capacity] (bytes; at least the group's nbytes) to group g: each later read writes
 * the group's values there. The reader keeps the pointer until it is bound again, unbound
 * (dst NULL, capacity 0) or freed; the caller keeps the memory alive that long. A refused
 * bind keeps the binding the group had. Status: OK, INVALID_HANDLE, INVALID_PARAMETER (g out
 * of range; dst NULL with a capacity), BUFFER_TOO_SMALL (capacity below the group's nbytes). */
TSSTORE_API int32_t tsstore_static_reader_bind(tsstore_static_reader *reader, size_t group, void *dst,
                                               size_t capacity);
/* Reads step i (0 <= i < steps) into the bound buffers; groups with none are not read.
 * Status: OK, INVALID_HANDLE, INVALID_PARAMETER (step out of range), NOT_FOUND (a key's array
 * was freed after the reader was built: build a new one), IO. */
TSSTORE_API int32_t tsstore_static_reader_read_step(tsstore_static_reader *reader, int64_t step);
/* Reads the step at timestamp_ms, which must be a grid point (never clamped). Status: as
 * tsstore_static_reader_read_step; INVALID_PARAMETER also for a time off the grid. */
TSSTORE_API int32_t tsstore_static_reader_read_at(tsstore_static_reader *reader, int64_t timestamp_ms);
/* Frees a StaticReader (the buffers bound to it stay the caller's). NULL and freed handles are
 * ignored. */
TSSTORE_API void tsstore_static_reader_free(tsstore_static_reader *reader);

/* A ForecastReader reads one window of many forecasts at once: which[n] of one series_type
 * (TSSTORE_ABSTRACT_DETERMINISTIC mixes Deterministic and DeterministicSingleTimeSeries) and
 * one resolution, sharing a window timeline. Groups are by (dtype, element shape, layers,
 * steps). A sweep over the windows in order decompresses each storage chunk once. The
 * functions mirror the StaticReader's; a step is a window. On success *out is a new reader
 * (free: tsstore_forecast_reader_free). Status: OK, INVALID_PARAMETER (series_type not a
 * forecast type; resolution NULL or not positive; n 0; an item of another type, resolution or
 * window timeline, naming which[i]), NOT_FOUND (an item is not stored), INTEGRITY, IO. */
TSSTORE_API int32_t tsstore_forecast_reader_new(tsstore_store *store, int32_t series_type,
                                                const tsstore_period *resolution, const tsstore_lookup *which,
                                                size_t n, tsstore_forecast_reader **out);
/* The reader's window timeline (step_period is the interval) and number of groups. Status:
 * as tsstore_static_reader_info. */
TSSTORE_API int32_t tsstore_forecast_reader_info(const tsstore_forecast_reader *reader, tsstore_reader_info *info);
/* Group g's dtype, key count, layers, steps (the horizon's), element shape and bytes per
 * window. Status: as tsstore_static_reader_group. */
TSSTORE_API int32_t tsstore_forecast_reader_group(const tsstore_forecast_reader *reader, size_t group,
                                                  tsstore_group_info *info);
/* The indices (into which[] given to _new) of group g's keys. Status: as
 * tsstore_static_reader_group_keys. */
TSSTORE_API int32_t tsstore_forecast_reader_group_keys(const tsstore_forecast_reader *reader, size_t group,
                                                       int64_t *dst, size_t capacity, size_t *n);
/* Binds dst[capacity] to group g, as tsstore_static_reader_bind does. Status: as
 * tsstore_static_reader_bind. */
TSSTORE_API int32_t tsstore_forecast_reader_bind(tsstore_forecast_reader *reader, size_t group, void *dst,
                                                 size_t capacity);
/* Reads window i (0 <= i < the window count) into the bound buffers. Status: as
 * tsstore_static_reader_read_step (INVALID_PARAMETER for a window out of range). */
TSSTORE_API int32_t tsstore_forecast_reader_read_window(tsstore_forecast_reader *reader, int64_t window);
/* Reads the window starting at start_ms, which must be a window start. Status: as
 * tsstore_forecast_reader_read_window; INVALID_PARAMETER also for a time that is not a window start. */
TSSTORE_API int32_t tsstore_forecast_reader_read_at(tsstore_forecast_reader *reader, int64_t start_ms);
/* Frees a ForecastReader (the buffers bound to it stay the caller's). NULL and freed handles
 * are ignored. */
TSSTORE_API void tsstore_forecast_reader_free(tsstore_forecast_reader *reader);

/* ---- Queries and summaries --------------------------------------------------------------- */

/* Distinct values over the whole store of one TSSTORE_FIELD_*, in byte order. On success
 * *out is a new string list (free: tsstore_strings_free). Status: OK, INVALID_PARAMETER (an
 * unknown field, out NULL), IO. */
TSSTORE_API int32_t tsstore_list_distinct(tsstore_store *store, int32_t field, tsstore_strings **out);
/* The number of strings in a list. Status: OK, INVALID_HANDLE, INVALID_PARAMETER (len NULL). */
TSSTORE_API int32_t tsstore_strings_len(const tsstore_strings *strings, size_t *len);
/* *out points at string i, owned by the list until it is freed. Status: OK, INVALID_HANDLE,
 * INVALID_PARAMETER (i out of range, out NULL). */
TSSTORE_API int32_t tsstore_strings_get(const tsstore_strings *strings, size_t i, const char **out);
/* Frees a string list and its strings. NULL and freed handles are ignored. */
TSSTORE_API void tsstore_strings_free(tsstore_strings *strings);

/* The number of series of each type. Status: OK, INVALID_PARAMETER (counts NULL or its
 * struct_size too small), IO. */
TSSTORE_API int32_t tsstore_counts_by_type(tsstore_store *store, tsstore_type_counts *counts);
/* The number of distinct stored arrays. Status: OK, INVALID_PARAMETER (n NULL), IO. */
TSSTORE_API int32_t tsstore_count_arrays(tsstore_store *store, int64_t *n);
/* Per type, how many series reference the array with this hash (all 0 for a hash no series
 * has). Status: OK, INVALID_PARAMETER (hash32 or counts NULL), IO. */
TSSTORE_API int32_t tsstore_count_by_hash(tsstore_store *store, const uint8_t *hash32, tsstore_type_counts *counts);

/* The distinct forecast parameters, into dst[capacity] (elements); *n gets how many.
 * Status: OK, INVALID_PARAMETER (n NULL; dst NULL with a capacity), BUFFER_TOO_SMALL (nothing
 * written; *n says how many), INTEGRITY, IO. */
TSSTORE_API int32_t tsstore_forecast_parameters(tsstore_store *store, tsstore_forecast_params *dst, size_t capacity,
                                                size_t *n);
/* The static grids, one per (resolution, first step, length), shortest resolution first,
 * into dst[capacity]; *n gets how many. Status: as tsstore_forecast_parameters. */
TSSTORE_API int32_t tsstore_static_summary(tsstore_store *store, tsstore_static_grid *dst, size_t capacity,
                                           size_t *n);
/* *consistent = 1 when, at every resolution, all SingleTimeSeries share one grid. Status: OK,
 * INVALID_PARAMETER (consistent NULL), INTEGRITY, IO. */
TSSTORE_API int32_t tsstore_check_static_consistency(tsstore_store *store, int32_t *consistent);

/* ---- Owner moves --------------------------------------------------------------------- */

/* Attaches the series the lookup names to another owner too (the array is shared),
 * renamed when new_name is not NULL. Status: OK, NOT_FOUND, DUPLICATE_TIME_SERIES,
 * INVALID_PARAMETER (the Deterministic / DST exclusion), READ_ONLY. */
TSSTORE_API int32_t tsstore_copy_series(tsstore_store *store, const tsstore_lookup *which, int64_t owner_id,
                                        const char *owner_type, int32_t owner_category, const char *new_name);
/* Renames the series the lookup names. Status: OK, NOT_FOUND, INVALID_PARAMETER (several
 * match; new_name NULL, empty or not UTF-8), DUPLICATE_TIME_SERIES (the renamed key is
 * stored already), READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_rename_series(tsstore_store *store, const tsstore_lookup *which, const char *new_name);
/* Moves every series of owner (old_id, owner_category) to new_id, all or nothing; *moved
 * (may be NULL) gets the count. Status: OK, INVALID_PARAMETER (owner_category),
 * DUPLICATE_TIME_SERIES (new_id already has a series with one of the keys), READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_replace_owner_id(tsstore_store *store, int64_t old_id, int32_t owner_category,
                                             int64_t new_id, int64_t *moved);

/* ---- Associations ---------------------------------------------------------------------- */

/* Adds rows[n] to a table (TSSTORE_*_ASSOCIATIONS), all or nothing; the rows are read during
 * the call only. Status: OK, INVALID_PARAMETER (table; rows NULL with n > 0; a type name
 * NULL, empty or not UTF-8, naming rows[i]), DUPLICATE_ASSOCIATION (a stored pair, whatever
 * its type names, or a pair twice in rows), READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_add_associations(tsstore_store *store, int32_t table, const tsstore_association *rows,
                                             size_t n);
/* *found = 1 when the pair (a_id, b_id) is present. Status: OK, INVALID_PARAMETER (table,
 * found NULL), IO. */
TSSTORE_API int32_t tsstore_has_association(tsstore_store *store, int32_t table, int64_t a_id, int64_t b_id,
                                            int32_t *found);
/* Filters, for list and remove: a_ids[n_a] and b_ids[n_b]; a NULL list matches everything,
 * a non-NULL list of length 0 nothing. a_type / b_type: NULL or one type name. On success
 * *out is a new list (free: tsstore_associations_free) that owns its type names. Status: OK,
 * INVALID_PARAMETER (table; an id list NULL with a length; a type not UTF-8; out NULL), IO. */
TSSTORE_API int32_t tsstore_list_associations(tsstore_store *store, int32_t table, const int64_t *a_ids, size_t n_a,
                                              const int64_t *b_ids, size_t n_b, const char *a_type,
                                              const char *b_type, tsstore_associations **out);
/* Removes the rows the filters (as tsstore_list_associations) select; *removed (may be NULL)
 * gets the count. Status: OK, INVALID_PARAMETER (as tsstore_list_associations), READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_remove_associations(tsstore_store *store, int32_t table, const int64_t *a_ids,
                                                size_t n_a, const int64_t *b_ids, size_t n_b, const char *a_type,
                                                const char *b_type, int64_t *removed);
/* Replaces id old_id with new_id: at the component end (supplemental) or at both ends
 * (parent/child); *changed (may be NULL) gets the count. Status: OK, INVALID_PARAMETER
 * (table), DUPLICATE_ASSOCIATION (the new id would repeat a stored pair), READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_replace_association_id(tsstore_store *store, int32_t table, int64_t old_id,
                                                   int64_t new_id, int64_t *changed);
/* The rows of a table and its distinct A and B ids. Status: OK, INVALID_PARAMETER (table;
 * counts NULL or its struct_size too small), IO. */
TSSTORE_API int32_t tsstore_association_counts(tsstore_store *store, int32_t table,
                                               tsstore_association_tally *counts);
/* The number of rows in a list. Status: OK, INVALID_HANDLE, INVALID_PARAMETER (len NULL). */
TSSTORE_API int32_t tsstore_associations_len(const tsstore_associations *rows, size_t *len);
/* Fills dst[n] with rows first .. first + n - 1 (strings owned by the list). Status: OK,
 * INVALID_HANDLE, INVALID_PARAMETER (the range passes the end; dst NULL or its struct_size too
 * small). */
TSSTORE_API int32_t tsstore_associations_get(const tsstore_associations *rows, size_t first, size_t n,
                                             tsstore_association *dst);
/* Frees an association list and its strings. NULL and freed handles are ignored. */
TSSTORE_API void tsstore_associations_free(tsstore_associations *rows);

/* ---- Maintenance ----------------------------------------------------------------------- */

/* Commits pending writes and deletes feature sets no series references; reports what it
 * did and what space could be reclaimed. Status: OK, INVALID_PARAMETER (inside a
 * transaction; report NULL), READ_ONLY, IO. */
TSSTORE_API int32_t tsstore_compact(tsstore_store *store, tsstore_compact_report *report);
/* Compacts as tsstore_compact does, then writes the live series into a new pair of files
 * laid out as a store written afresh and replaces the old pair with it atomically: a kill at
 * any point leaves the old pair or the new one, whole (the next open finishes a replacement
 * that was cut short). Free columns and unreferenced variables take no space afterwards; the
 * report says what the old pair held. It needs room for the new pair beside the old one.
 * Statuses: TSSTORE_OK; TSSTORE_E_READ_ONLY; TSSTORE_E_INVALID_PARAMETER inside a
 * transaction or for an in-memory store; TSSTORE_E_INTEGRITY when an array's bytes no
 * longer match its hash (nothing is changed); TSSTORE_E_IO. The store stays open on the
 * new pair; if reopening it fails, the store is closed and the error says why. */
TSSTORE_API int32_t tsstore_compact_rewrite(tsstore_store *store, tsstore_compact_report *report);
/* Rehashes every array and checks every row. TSSTORE_OK even when problems are found (read
 * the report); *problems (may be NULL) gets one description per problem (free:
 * tsstore_strings_free). An error status means the check itself could not run. Status: OK,
 * INVALID_PARAMETER (report NULL or its struct_size too small), IO. */
TSSTORE_API int32_t tsstore_verify_integrity(tsstore_store *store, tsstore_integrity_report *report,
                                             tsstore_strings **problems);

#endif /* TSSTORE_TYPES_ONLY */

#ifdef __cplusplus
}
#endif

#endif /* TSSTORE_H */
