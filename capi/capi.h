/* Private to the cgo package: the thread-local last-error slot and the log trampoline. The
 * exported functions take handles as uintptr_t (see handles.go), ABI-identical to the opaque
 * pointers of include/tsstore.h; cgo declares them from the //export comments, which is why
 * tsstore.h itself is not included here. */
#ifndef TSSTORE_CAPI_H
#define TSSTORE_CAPI_H
#include <stddef.h>
#include <stdint.h>

#define TS_ERROR_CAP 4096
/* Internal helpers: hidden, so the library exports exactly the functions of tsstore.h. */
#define TS_HIDDEN __attribute__((visibility("hidden")))
TS_HIDDEN void ts_set_error(const char *msg, size_t len);
TS_HIDDEN const char *ts_get_error(void);
TS_HIDDEN void ts_call_log(void *fn, const char *line, void *user);
#endif
