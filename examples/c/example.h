/* The helper every example shares: check(call) prints which call failed, its status and the
 * library's message, sets status = 1 and jumps to the example's single cleanup label. Each
 * example defines EXAMPLE (its name) and has `int status` and a `done:` label. */
#ifndef TSSTORE_EXAMPLE_H
#define TSSTORE_EXAMPLE_H
#include <stdio.h>
#include "tsstore.h"

#define check(call)                                                                              \
    do {                                                                                         \
        int32_t st_ = (call);                                                                    \
        if (st_ != TSSTORE_OK) {                                                                 \
            char msg_[1024];                                                                     \
            size_t n_ = 0;                                                                       \
            tsstore_last_error(msg_, sizeof msg_, &n_);                                          \
            fprintf(stderr, "%s: %s: %s: %s\n", EXAMPLE, #call, tsstore_status_name(st_), msg_); \
            status = 1;                                                                          \
            goto done;                                                                           \
        }                                                                                        \
    } while (0)

/* A fresh store path <dir>/<name>.nc, both files of any earlier run removed. */
static void fresh_store_path(char *path, size_t capacity, const char *dir, const char *name) {
    char catalog[1100];
    snprintf(path, capacity, "%.1000s/%s.nc", dir, name);
    snprintf(catalog, sizeof catalog, "%.1000s.sqlite", path);
    remove(path);
    remove(catalog);
}

#endif
