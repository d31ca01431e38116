/* Private to the cgo package: the opaque handle types of include/tsstore.h (the functions are
 * declared by cgo from the //export comments, which is why tsstore.h itself is not included
 * where the exports are) and the thread-local last-error slot. */
#ifndef TSSTORE_CAPI_H
#define TSSTORE_CAPI_H
#include <stddef.h>
#include <stdint.h>

typedef struct tsstore_store tsstore_store;
typedef struct tsstore_key tsstore_key;
typedef struct tsstore_series tsstore_series;
typedef struct tsstore_keys tsstore_keys;
typedef struct tsstore_batch tsstore_batch;
typedef struct tsstore_static_reader tsstore_static_reader;
typedef struct tsstore_forecast_reader tsstore_forecast_reader;
typedef struct tsstore_metadata tsstore_metadata;
typedef struct tsstore_strings tsstore_strings;
typedef struct tsstore_associations tsstore_associations;
typedef struct tsstore_filter tsstore_filter;
typedef void (*tsstore_log_fn)(const char *line, void *user);

#define TS_ERROR_CAP 4096
/* Internal helpers: hidden, so the library exports exactly the functions of tsstore.h. */
#define TS_HIDDEN __attribute__((visibility("hidden")))
TS_HIDDEN void ts_set_error(const char *msg, size_t len);
TS_HIDDEN const char *ts_get_error(void);
TS_HIDDEN void *ts_ptr(uintptr_t id);
TS_HIDDEN uintptr_t ts_id(const void *p);
TS_HIDDEN void ts_call_log(void *fn, const char *line, void *user);
#endif
