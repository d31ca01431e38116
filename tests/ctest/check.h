/* Shared by the C tests: CHECK(call) fails the test with the call, its status and the
 * library's message; EXPECT(call, status) checks a refusal. */
#ifndef TSSTORE_TEST_CHECK_H
#define TSSTORE_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tsstore.h"

static int failures = 0;

static const char *last_message(void) {
    static char msg[4096];
    size_t needed = 0;
    if (tsstore_last_error(msg, sizeof msg, &needed) != TSSTORE_OK) return "(message too long)";
    return msg;
}

#define CHECK(call)                                                                          \
    do {                                                                                     \
        int32_t st_ = (call);                                                                \
        if (st_ != TSSTORE_OK) {                                                             \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,             \
                    tsstore_status_name(st_), last_message());                               \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#define EXPECT(call, want)                                                                   \
    do {                                                                                     \
        int32_t st_ = (call);                                                                \
        if (st_ != (want)) {                                                                 \
            fprintf(stderr, "%s:%d: %s -> %s, want %s (%s)\n", __FILE__, __LINE__, #call,   \
                    tsstore_status_name(st_), tsstore_status_name(want), last_message());    \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

#define ASSERT(cond)                                                                         \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);    \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

/* A fresh store path under dir: both files removed. */
/* How many series the store holds (every key, no filter). */
static inline size_t count_keys(tsstore_store *s) {
    tsstore_keys *keys = NULL;
    size_t n = 0;
    CHECK(tsstore_list_keys(s, 0, 0, -1, -1, NULL, NULL, NULL, &keys));
    CHECK(tsstore_keys_len(keys, &n));
    tsstore_keys_free(keys);
    return n;
}

static void store_path(char *buf, size_t cap, const char *dir, const char *name) {
    snprintf(buf, cap, "%s/%s.nc", dir, name);
    remove(buf);
    char cat[1100];
    snprintf(cat, sizeof cat, "%.1000s.sqlite", buf);
    remove(cat);
}

#endif
