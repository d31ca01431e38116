#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "capi.h"

/* One message per C thread (the exported functions run on their caller's thread), in a
 * buffer a pthread key owns and frees when the thread ends. Not __thread: a shared library
 * loaded with dlopen (Python's ctypes, Julia's ccall) must not need static TLS, which glibc
 * has only a few hundred spare bytes of and the Go runtime already uses. */
static pthread_key_t ts_error_key;
static pthread_once_t ts_error_once = PTHREAD_ONCE_INIT;

static void ts_make_key(void) { pthread_key_create(&ts_error_key, free); }

static char *ts_error_buffer(void) {
    pthread_once(&ts_error_once, ts_make_key);
    char *b = pthread_getspecific(ts_error_key);
    if (b == NULL) {
        b = calloc(1, TS_ERROR_CAP);
        if (b != NULL && pthread_setspecific(ts_error_key, b) != 0) {
            free(b);
            b = NULL;
        }
    }
    return b;
}

void ts_set_error(const char *msg, size_t len) {
    char *b = ts_error_buffer();
    if (b == NULL) return;
    if (len >= TS_ERROR_CAP) len = TS_ERROR_CAP - 1;
    if (msg != NULL) memcpy(b, msg, len);
    b[msg != NULL ? len : 0] = 0;
}

const char *ts_get_error(void) {
    const char *b = ts_error_buffer();
    return b != NULL ? b : "";
}

/* Calls a host's log callback (a C function pointer Go cannot call itself). */
typedef void (*ts_log_fn)(const char *line, void *user);
void ts_call_log(void *fn, const char *line, void *user) { ((ts_log_fn)fn)(line, user); }

/* The strings of a struct answer (names, types, features of a series_info) live in one
 * block per thread, freed by the thread's next call that makes one and when the thread
 * ends: the header promises them until the thread's next call into the library. */
static pthread_key_t ts_arena_key;
static pthread_once_t ts_arena_once = PTHREAD_ONCE_INIT;

static void ts_make_arena_key(void) { pthread_key_create(&ts_arena_key, free); }

char *ts_arena_take(size_t n) {
    pthread_once(&ts_arena_once, ts_make_arena_key);
    free(pthread_getspecific(ts_arena_key));
    char *b = malloc(n > 0 ? n : 1);
    if (pthread_setspecific(ts_arena_key, b) != 0) {
        free(b);
        return NULL;
    }
    return b;
}

/* The strings of a series descriptor, in the order owner_type, name, features_json, units,
 * ext: out[i] is TS_STR_NULL for NULL, TS_STR_SAME when the text equals the same field of
 * prev (the previous descriptor of a batch; NULL for none), else its length. A batch of
 * 100,000 series of one owner type and name then makes two Go strings, not 200,000, and
 * reads each descriptor's strings in one call rather than five. */
void ts_desc_strings(const tsstore_series_desc *d, const tsstore_series_desc *prev, int64_t out[TS_DESC_STRINGS]) {
    const char *mine[TS_DESC_STRINGS] = {d->owner_type, d->name, d->features_json, d->units, d->ext};
    const char *before[TS_DESC_STRINGS] = {0};
    if (prev != NULL) {
        before[0] = prev->owner_type, before[1] = prev->name, before[2] = prev->features_json;
        before[3] = prev->units, before[4] = prev->ext;
    }
    for (int i = 0; i < TS_DESC_STRINGS; i++) {
        if (mine[i] == NULL) {
            out[i] = TS_STR_NULL;
        } else if (before[i] != NULL && (before[i] == mine[i] || strcmp(before[i], mine[i]) == 0)) {
            out[i] = TS_STR_SAME;
        } else {
            out[i] = (int64_t)strlen(mine[i]);
        }
    }
}

/* Copies the data of n descriptors (stride bytes apart), whose sizes the caller checked,
 * into dst at offsets[i]: one call for a batch's arrays. */
void ts_copy_arrays(const char *descs, size_t stride, size_t n, char *dst, const uint64_t *offsets) {
    for (size_t i = 0; i < n; i++) {
        const tsstore_series_desc *d = (const tsstore_series_desc *)(descs + i * stride);
        if (d->nbytes > 0) memcpy(dst + offsets[i], d->data, d->nbytes);
    }
}
