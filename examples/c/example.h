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

/* A descriptor naming a component's series: owner_id, its concrete type and the series name.
 * The rest is the default (a SingleTimeSeries of f64) until the caller sets it. */
static tsstore_series_desc series_of(int64_t owner_id, const char *owner_type, const char *name) {
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.owner_id = owner_id;
    d.owner_type = owner_type;
    d.name = name;
    return d;
}

/* Points a descriptor at its array: nbytes of data, shape[ndim] (which must live as long as the
 * descriptor). */
static void set_array(tsstore_series_desc *d, const void *data, size_t nbytes, const int64_t *shape, size_t ndim) {
    d->data = data;
    d->nbytes = nbytes;
    d->shape = shape;
    d->ndim = ndim;
}

/* The descriptor of an hourly f64 SingleTimeSeries of one owner: values[hours] from start_ms.
 * shape (one element) must live as long as the descriptor. */
static tsstore_series_desc hourly_series(int64_t owner_id, const char *owner_type, const char *name,
                                         int64_t start_ms, const double *values, int64_t hours, int64_t *shape) {
    tsstore_series_desc d = series_of(owner_id, owner_type, name);
    shape[0] = hours;
    d.initial_ms = start_ms;
    d.resolution.value = 3600000; /* PT1H */
    d.resolution.unit = TSSTORE_PERIOD_MILLIS;
    set_array(&d, values, (size_t)hours * sizeof *values, shape, 1);
    return d;
}

#endif
