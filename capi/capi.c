#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "capi.h"

/* One error record per C thread (the exported functions run on their caller's thread), in a
 * block a pthread key owns and frees when the thread ends. Not __thread: a shared library
 * loaded with dlopen (Python's ctypes, Julia's ccall) must not need static TLS, which glibc
 * has only a few hundred spare bytes of and the Go runtime already uses. The record is the
 * last failure's status, argument code, item and four strings (operation, detail, reason,
 * message), each NUL-terminated, one after the other. */
static pthread_key_t ts_error_key;
static pthread_once_t ts_error_once = PTHREAD_ONCE_INIT;

static void ts_make_key(void) { pthread_key_create(&ts_error_key, free); }

/* No failure yet: every string empty (the union's zeroed byte after the record). */
static const union {
    ts_error_record r;
    char bytes[sizeof(ts_error_record) + 1];
} ts_no_error = {.r = {0, 0, -1, {0, 0, 0, 0}}};

void ts_set_error_record(int32_t status, int32_t arg, int64_t item, const char *text, const size_t lens[TS_ERROR_STRINGS]) {
    pthread_once(&ts_error_once, ts_make_key);
    size_t total = 0;
    for (int i = 0; i < TS_ERROR_STRINGS; i++) total += lens[i] + 1;
    ts_error_record *r = malloc(sizeof *r + total);
    if (r == NULL) return; /* the previous record stays: better than none */
    r->status = status, r->arg = arg, r->item = item;
    size_t at = 0;
    for (int i = 0; i < TS_ERROR_STRINGS; i++) {
        r->offsets[i] = at;
        memcpy(r->text + at, text, lens[i]);
        r->text[at + lens[i]] = 0;
        text += lens[i];
        at += lens[i] + 1;
    }
    free(pthread_getspecific(ts_error_key));
    if (pthread_setspecific(ts_error_key, r) != 0) free(r);
}

const ts_error_record *ts_get_error_record(void) {
    pthread_once(&ts_error_once, ts_make_key);
    const ts_error_record *r = pthread_getspecific(ts_error_key);
    return r != NULL ? r : &ts_no_error.r;
}

const char *ts_error_string(const ts_error_record *r, int i) { return r->text + r->offsets[i]; }

const char *ts_get_error(void) {
    const ts_error_record *r = ts_get_error_record();
    return r->text + r->offsets[TS_ERROR_MESSAGE];
}

/* Calls a host's log callback (a C function pointer Go cannot call itself). */
typedef void (*ts_log_fn)(const char *line, void *user);
void ts_call_log(void *fn, const char *line, void *user) { ((ts_log_fn)fn)(line, user); }

/* The write half of ts_copy_in: kept a frame of its own (not inlined, and no tail call), so
 * that the memcheck suppressions (tests/ctest/go-runtime.supp) can name it. */
__attribute__((noinline)) TS_HIDDEN void ts_go_store(void *go_dst, const void *src, size_t n) {
    memcpy(go_dst, src, n);
    __asm__ volatile("" ::: "memory");
}

/* Copies n bytes of caller memory into Go memory. The caller's bytes are read here first, in
 * C, where memcheck checks every one, so a wrong length is still reported; the write into the
 * Go heap is ts_go_store's, which the memcheck tests do not check: memcheck cannot tell the
 * Go heap from goroutine stacks it held before, and reports writes there (the comment on the
 * memcheck tests in tests/ctest/CMakeLists.txt). */
void ts_copy_in(void *go_dst, const void *src, size_t n) {
    const unsigned char *p = src;
    unsigned char seen = 0;
    for (size_t i = 0; i < n; i++) seen |= p[i];
    __asm__ volatile("" : : "r"(seen));
    ts_go_store(go_dst, src, n);
}

/* The read half of ts_copy_out, a frame of its own as ts_go_store is. */
__attribute__((noinline)) TS_HIDDEN void ts_go_load(void *dst, const void *go_src, size_t n) {
    memcpy(dst, go_src, n);
    __asm__ volatile("" ::: "memory");
}

/* Copies n bytes of Go memory into caller memory, through a buffer of C's: the write into
 * the caller's memory is memcpy's, which memcheck checks; the read of the Go heap is
 * ts_go_load's, which it does not (as ts_copy_in's write). Strings and small arrays only. */
void ts_copy_out(void *dst, const void *go_src, size_t n) {
    unsigned char buf[4096];
    for (size_t off = 0; off < n; off += sizeof buf) {
        size_t k = n - off < sizeof buf ? n - off : sizeof buf;
        ts_go_load(buf, (const unsigned char *)go_src + off, k);
        memcpy((unsigned char *)dst + off, buf, k);
    }
}

/* Calls tsstore_add_batch_from's descriptor callback (tsstore_desc_fill). It runs on the
 * library's threads, on goroutines whose stacks are Go memory that memcheck may still mark
 * inaccessible from an earlier use (tests/ctest/CMakeLists.txt): so the callback writes its
 * descriptors' address into C memory here, and the result goes back by value (cgo's own
 * wrapper stores it, which the memcheck suppressions cover). ts_desc_strings likewise. */
typedef int32_t (*ts_fill_fn)(void *user, size_t first, size_t count, const tsstore_series_desc **descs);
ts_fill_result ts_call_fill(void *fn, void *user, size_t first, size_t count) {
    ts_fill_result r = {0, NULL};
    r.status = ((ts_fill_fn)fn)(user, first, count, &r.descs);
    return r;
}

/* The strings of a series descriptor, in the order owner_type, name, features_json, units,
 * ext: len[i] is TS_STR_NULL for NULL, TS_STR_SAME when the text equals the same field of
 * prev (the previous descriptor of a batch; NULL for none), else its length. A batch of
 * 100,000 series of one owner type and name then makes two Go strings, not 200,000, and
 * reads each descriptor's strings in one call rather than five. */
ts_desc_lens ts_desc_strings(const tsstore_series_desc *d, const tsstore_series_desc *prev) {
    ts_desc_lens r;
    int64_t *out = r.len;
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
    return r;
}
