/* Shared by the C tests.
 *
 *   CHECK(call)                 the call must succeed, else the test stops there, printing the
 *                               call, its status and the thread's last error message
 *   EXPECT(call, status)        the call must return status (else a failure is counted)
 *   ASSERT(cond)                the condition must hold (else a failure is counted)
 *   REFUSE(call, status, word)  a refusal: the status, and a message of the call's own (not the
 *                               one of an earlier failure) that contains word
 *   NAMES_ARG(field)            the last message names the C argument or field
 *   finish(name)                what main returns: 1 if any check failed, else 0
 *
 * and the fixtures several tests build: store paths, periods, lookups, hourly f64 series. */
#ifndef TSSTORE_TEST_CHECK_H
#define TSSTORE_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tsstore.h"

#define T0 1704067200000LL /* 2024-01-01T00:00:00Z */
#define HOUR 3600000LL

static int failures = 0;

/* The calling thread's last error message (tsstore_last_error_message into a buffer of the
 * thread's; a failure of that call is counted). */
static inline const char *errmsg(void) {
    static _Thread_local char buf[8192];
    if (tsstore_last_error_message(buf, sizeof buf, NULL) != TSSTORE_OK) {
        fprintf(stderr, "tsstore_last_error_message failed\n");
        failures++;
        return "(no message)";
    }
    return buf;
}

#define CHECK(call)                                                                                           \
    do {                                                                                                      \
        int32_t st_ = (call);                                                                                 \
        if (st_ != TSSTORE_OK) {                                                                              \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call, tsstore_status_name(st_),    \
                    errmsg());                                                                                \
            exit(1);                                                                                          \
        }                                                                                                     \
    } while (0)

#define EXPECT(call, want)                                                                                    \
    do {                                                                                                      \
        int32_t st_ = (call);                                                                                 \
        if (st_ != (want)) {                                                                                  \
            fprintf(stderr, "%s:%d: %s -> %s, want %s (%s)\n", __FILE__, __LINE__, #call,                    \
                    tsstore_status_name(st_), tsstore_status_name(want), errmsg());                           \
            failures++;                                                                                       \
        }                                                                                                     \
    } while (0)

#define ASSERT(cond)                                                                                          \
    do {                                                                                                      \
        if (!(cond)) {                                                                                        \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);                     \
            failures++;                                                                                       \
        }                                                                                                     \
    } while (0)

/* The last message names the C argument or field, as the header promises ("desc.shape",
 * "which[0]", "rows[0].b_type"). */
#define NAMES_ARG(field)                                                                                      \
    do {                                                                                                      \
        if (strstr(errmsg(), field) == NULL) {                                                                \
            fprintf(stderr, "%s:%d: message \"%s\" does not name %s\n", __FILE__, __LINE__, errmsg(), field);  \
            failures++;                                                                                       \
        }                                                                                                     \
    } while (0)

/* Leaves a failure whose message says "sentinel" on this thread (an unparsable period). */
static inline void set_sentinel(void) {
    tsstore_period p;
    tsstore_period_parse("sentinel", &p);
}

#define REFUSE(call, want, word)                                                                              \
    do {                                                                                                      \
        set_sentinel();                                                                                       \
        EXPECT(call, want);                                                                                   \
        const char *m_ = errmsg();                                                                            \
        if (strstr(m_, "sentinel") != NULL) {                                                                 \
            fprintf(stderr, "%s:%d: %s left no message of its own\n", __FILE__, __LINE__, #call);            \
            failures++;                                                                                       \
        } else if (strstr(m_, word) == NULL) {                                                                \
            fprintf(stderr, "%s:%d: %s: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, #call, m_, word); \
            failures++;                                                                                       \
        }                                                                                                     \
    } while (0)

static inline int finish(const char *name) {
    if (failures) {
        fprintf(stderr, "%s: %d failures\n", name, failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

/* A fresh store path <dir>/<name>.nc: both files of an earlier run removed. */
static inline void store_path(char *buf, size_t cap, const char *dir, const char *name) {
    snprintf(buf, cap, "%s/%s.nc", dir, name);
    remove(buf);
    char cat[1100];
    snprintf(cat, sizeof cat, "%.1000s.sqlite", buf);
    remove(cat);
}

static inline tsstore_period millis(int64_t ms) {
    tsstore_period p = {ms, TSSTORE_PERIOD_MILLIS, 0};
    return p;
}

static inline tsstore_period months(int64_t n) {
    tsstore_period p = {n, TSSTORE_PERIOD_MONTHS, 0};
    return p;
}

static inline int same_period(tsstore_period a, tsstore_period b) { return a.value == b.value && a.unit == b.unit; }

/* The lookup of owner's SingleTimeSeries name (component, any resolution and features). */
static inline tsstore_lookup lookup_of(int64_t owner, const char *name) {
    tsstore_lookup q = TSSTORE_LOOKUP_INIT;
    q.owner_id = owner;
    q.name = name;
    return q;
}

/* The descriptor of an hourly f64 SingleTimeSeries of n steps from T0; shape must outlive it. */
static inline tsstore_series_desc hourly_desc(int64_t owner, const char *owner_type, const char *name,
                                              const double *v, int64_t *shape, int64_t n) {
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    shape[0] = n;
    d.owner_id = owner;
    d.owner_type = owner_type;
    d.name = name;
    d.initial_ms = T0;
    d.resolution = millis(HOUR);
    d.shape = shape;
    d.ndim = 1;
    d.data = v;
    d.nbytes = (size_t)n * sizeof *v;
    return d;
}

/* Adds an hourly f64 SingleTimeSeries (v[n] from T0) with these features and units. */
static inline int32_t add_hourly(tsstore_store *s, int64_t owner, const char *owner_type, const char *name,
                                 const double *v, int64_t n, const char *features, const char *units) {
    int64_t shape[1];
    tsstore_series_desc d = hourly_desc(owner, owner_type, name, v, shape, n);
    d.features_json = features;
    d.units = units;
    return tsstore_add(s, &d, NULL);
}

/* How many series a filter lists (NULL: every series). */
static inline size_t count_listed(tsstore_store *s, const tsstore_filter *filter) {
    tsstore_keys *keys = NULL;
    size_t n = 0;
    CHECK(tsstore_list_keys(s, filter, &keys));
    CHECK(tsstore_keys_len(keys, &n));
    tsstore_keys_free(keys);
    return n;
}

/* How many series the store holds. */
static inline size_t count_keys(tsstore_store *s) { return count_listed(s, NULL); }

/* A new store at <dir>/<name>.nc, both files of an earlier run removed; the path into path
 * (1024 bytes) when it is not NULL. */
static inline tsstore_store *fresh_store(const char *dir, const char *name, char *path) {
    char own[1024];
    if (path == NULL) path = own;
    store_path(path, 1024, dir, name);
    tsstore_store *s = NULL;
    CHECK(tsstore_create(path, NULL, &s));
    return s;
}

/* The store the bad-input tests refuse things on: a fresh <dir>/<name>.nc holding one series,
 * owner 1's hourly "p" of v[24] (0, 1, ... 23) from T0, whose lookup goes into *k. */
static inline tsstore_store *bad_input_store(const char *dir, const char *name, tsstore_lookup *k, double v[24]) {
    tsstore_store *s = fresh_store(dir, name, NULL);
    for (int i = 0; i < 24; i++) v[i] = i;
    CHECK(add_hourly(s, 1, "G", "p", v, 24, NULL, NULL));
    *k = lookup_of(1, "p");
    return s;
}

/* Whether tsstore_period_format writes want for p. */
static inline int formats_as(tsstore_period p, const char *want) {
    char buf[64];
    size_t needed = 0;
    return tsstore_period_format(&p, buf, sizeof buf, &needed) == TSSTORE_OK && strcmp(buf, want) == 0 &&
           needed == strlen(want) + 1;
}

#endif
