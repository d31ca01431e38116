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
