/* Private to the cgo package: the thread-local last-error slot, the string arena and the log
 * trampoline. The exported functions take handles as uintptr_t (see handles.go),
 * ABI-identical to the opaque pointers of include/tsstore.h; cgo declares them from the
 * //export comments, which is why tsstore.h is included for its types only. */
#ifndef TSSTORE_CAPI_H
#define TSSTORE_CAPI_H
#include <stddef.h>
#include <stdint.h>
#define TSSTORE_TYPES_ONLY
#include "../include/tsstore.h"

#define TS_ERROR_CAP 4096
/* Internal helpers: hidden, so the library exports exactly the functions of tsstore.h. */
#define TS_HIDDEN __attribute__((visibility("hidden")))
TS_HIDDEN void ts_set_error(const char *msg, size_t len);
TS_HIDDEN const char *ts_get_error(void);
TS_HIDDEN void ts_call_log(void *fn, const char *line, void *user);
/* The calling thread's block for the strings of struct answers: each call frees the last. */
TS_HIDDEN char *ts_arena_take(size_t n);
#endif
