#include <string.h>
#include "capi.h"

/* One message per C thread (the exported functions run on their caller's thread), in a
 * fixed buffer: nothing to allocate or to leak when a thread ends. */
static __thread char ts_error[TS_ERROR_CAP];

void ts_set_error(const char *msg, size_t len) {
    if (len >= TS_ERROR_CAP) len = TS_ERROR_CAP - 1;
    if (msg != NULL) memcpy(ts_error, msg, len);
    ts_error[msg != NULL ? len : 0] = 0;
}

const char *ts_get_error(void) { return ts_error; }


/* Calls a host's log callback (a C function pointer Go cannot call itself). */
typedef void (*ts_log_fn)(const char *line, void *user);
void ts_call_log(void *fn, const char *line, void *user) { ((ts_log_fn)fn)(line, user); }
