/* Private to the cgo package: the thread-local last-error slot, reading a descriptor's
 * strings, and the trampolines of the log and descriptor callbacks. The exported functions
 * take handles as uintptr_t (see handles.go), ABI-identical to the opaque pointers of
 * include/tsstore.h; cgo declares them from the //export comments, which is why tsstore.h is
 * included for its types only. */
#ifndef TSSTORE_CAPI_H
#define TSSTORE_CAPI_H
#include <stddef.h>
#include <stdint.h>
#define TSSTORE_TYPES_ONLY
#include "../include/tsstore.h"

/* Internal helpers: hidden, so the library exports exactly the functions of tsstore.h. */
#define TS_HIDDEN __attribute__((visibility("hidden")))
/* The calling thread's last failure (capi.c): its strings are operation, detail, reason and
 * message, in that order, at text + offsets[i]. */
#define TS_ERROR_STRINGS 4
#define TS_ERROR_MESSAGE 3
typedef struct ts_error_record {
    int32_t status;
    int32_t arg;
    int64_t item;
    size_t offsets[TS_ERROR_STRINGS];
    char text[];
} ts_error_record;
TS_HIDDEN void ts_set_error_record(int32_t status, int32_t arg, int64_t item, const char *text,
                                   const size_t lens[TS_ERROR_STRINGS]);
TS_HIDDEN const ts_error_record *ts_get_error_record(void);
TS_HIDDEN const char *ts_error_string(const ts_error_record *r, int i);
TS_HIDDEN const char *ts_get_error(void);
TS_HIDDEN void ts_call_log(void *fn, const char *line, void *user);
/* What ts_call_fill returns: the callback's status and the descriptors it set. Results come
 * back by value, not through a pointer into Go memory, here and in ts_desc_strings: see
 * capi.c. */
typedef struct ts_fill_result {
    int32_t status;
    const tsstore_series_desc *descs;
} ts_fill_result;
TS_HIDDEN ts_fill_result ts_call_fill(void *fn, void *user, size_t first, size_t count);
/* Copy n bytes of caller memory into Go memory, and of Go memory into caller memory: see
 * capi.c. */
TS_HIDDEN void ts_copy_in(void *go_dst, const void *src, size_t n);
TS_HIDDEN void ts_copy_out(void *dst, const void *go_src, size_t n);
TS_HIDDEN void ts_go_store(void *go_dst, const void *src, size_t n);
TS_HIDDEN void ts_go_load(void *dst, const void *go_src, size_t n);
/* A batch add reads each descriptor's strings with one call: see capi.c. */
#define TS_DESC_STRINGS 5
#define TS_STR_NULL (-1)
#define TS_STR_SAME (-2)
typedef struct ts_desc_lens {
    int64_t len[TS_DESC_STRINGS];
} ts_desc_lens;
TS_HIDDEN ts_desc_lens ts_desc_strings(const tsstore_series_desc *d, const tsstore_series_desc *prev);
#endif
