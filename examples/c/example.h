/* The helpers every example shares.
 *
 * check(call) runs a tsstore call; if it fails, it prints which call, its status and the
 * library's message (the calling thread's last failure), sets status = 1 and
 * jumps to the example's single cleanup label. Each example defines EXAMPLE (its name) and has
 * `int status` and a `done:` label. */
#ifndef TSSTORE_EXAMPLE_H
#define TSSTORE_EXAMPLE_H
#include <stdio.h>
#include "tsstore.h"

/* The calling thread's last error message, in a buffer of the example's own. */
static const char *last_message(void) {
    static char msg[1024];
    tsstore_last_error_message(msg, sizeof msg, NULL);
    return msg;
}

#define check(call)                                                                                  \
    do {                                                                                             \
        int32_t st_ = (call);                                                                        \
        if (st_ != TSSTORE_OK) {                                                                     \
            fprintf(stderr, "%s: %s: %s: %s\n", EXAMPLE, #call, tsstore_status_name(st_), last_message()); \
            status = 1;                                                                              \
            goto done;                                                                               \
        }                                                                                            \
    } while (0)

/* A fresh store path <dir>/<name>.nc, both files of any earlier run removed. */
static void fresh_store_path(char *path, size_t capacity, const char *dir, const char *name) {
    char catalog[1100];
    snprintf(path, capacity, "%.1000s/%s.nc", dir, name);
    snprintf(catalog, sizeof catalog, "%.1000s.sqlite", path);
    remove(path);
    remove(catalog);
}

/* The descriptor of an hourly f64 SingleTimeSeries of one owner: values[hours] from start_ms.
 * shape (one element) must live as long as the descriptor. */
static tsstore_series_desc hourly_series(int64_t owner_id, const char *owner_type, const char *name,
                                         int64_t start_ms, const double *values, int64_t hours, int64_t *shape) {
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT; /* a SingleTimeSeries of f64, a component */
    shape[0] = hours;
    d.owner_id = owner_id;
    d.owner_type = owner_type;
    d.name = name;
    d.initial_ms = start_ms;
    d.resolution.value = 3600000; /* PT1H */
    d.resolution.unit = TSSTORE_PERIOD_MILLIS;
    d.shape = shape;
    d.ndim = 1;
    d.data = values;
    d.nbytes = (size_t)hours * sizeof *values;
    return d;
}

#endif
