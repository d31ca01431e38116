/* How failures are reported: tsstore_last_error's handle (status, argument code, item,
 * detail, reason, message) and tsstore_last_error_message's copy. A thread that never failed
 * has status OK and empty strings; after a failure its record is that failure's (the same
 * message as the store's last error, and also for an open that made no handle); later
 * successes leave it; it is kept per thread; a handle's strings are the caller's until freed,
 * whatever fails afterwards; a very long message is cut on a UTF-8 character boundary. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include "check.h"

static tsstore_store *store;
static pthread_barrier_t failed, checked;
static char other_seen[8192];
static int other_ok;

/* The calling thread's last failure, copied out of a handle that is then freed. */
typedef struct {
    int32_t status, arg;
    int64_t item;
    char detail[256], reason[4096], message[4096];
} report;

static report last(void) {
    report r;
    memset(&r, 0, sizeof r);
    tsstore_error *e = NULL;
    tsstore_error_info info = TSSTORE_ERROR_INFO_INIT;
    CHECK(tsstore_last_error(&e));
    CHECK(tsstore_error_get(e, &info));
    r.status = info.status, r.arg = info.arg, r.item = info.item;
    snprintf(r.detail, sizeof r.detail, "%s", info.detail);
    snprintf(r.reason, sizeof r.reason, "%s", info.reason);
    snprintf(r.message, sizeof r.message, "%s", info.message);
    tsstore_error_free(e);
    return r;
}

/* Another thread: it has no failure at first, then its own, while main keeps its own. */
static void *other(void *arg) {
    (void)arg;
    report r = last();
    other_ok = r.status == TSSTORE_OK && r.message[0] == '\0' && r.item == -1;
    tsstore_lookup q = lookup_of(1, "only-on-the-other-thread");
    double v[1];
    other_ok &= tsstore_get(store, &q, v, sizeof v, NULL) == TSSTORE_E_NOT_FOUND;
    pthread_barrier_wait(&failed); /* main checks its own record now */
    pthread_barrier_wait(&checked);
    snprintf(other_seen, sizeof other_seen, "%s", errmsg());
    return NULL;
}

/* A thread that only reads its (empty) record. */
static void *fresh(void *arg) {
    report r = last();
    *(int *)arg = r.status == TSSTORE_OK && r.message[0] == '\0';
    return NULL;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024], copy[8192], store_msg[8192];
    size_t needed = 0;
    store_path(path, sizeof path, dir, "errmsg");

    /* Before any failure: status OK, "" everywhere. */
    report r = last();
    ASSERT(r.status == TSSTORE_OK && r.arg == TSSTORE_ARG_NONE && r.item == -1 && strcmp(r.message, "") == 0);
    ASSERT(strcmp(errmsg(), "") == 0);

    /* A failed open made no handle; its record is still there, naming the path. */
    tsstore_store *none = NULL;
    ASSERT(tsstore_open(path, 0, &none) == TSSTORE_E_NOT_FOUND && none == NULL);
    r = last();
    ASSERT(r.status == TSSTORE_E_NOT_FOUND && r.arg == TSSTORE_ARG_PATH);
    ASSERT(strstr(r.message, "errmsg.nc") != NULL && strcmp(r.message, errmsg()) == 0);
    report again = last(); /* reading it changes nothing */
    ASSERT(strcmp(again.message, r.message) == 0 && again.status == r.status);

    /* A store's failure: the same text as tsstore_store_last_error. */
    CHECK(tsstore_create(path, NULL, &store));
    double v[4] = {1, 2, 3, 4};
    CHECK(add_hourly(store, 1, "G", "p", v, 4, NULL, NULL));
    EXPECT(add_hourly(store, 1, "G", "p", v, 4, NULL, NULL), TSSTORE_E_DUPLICATE_TIME_SERIES);
    snprintf(copy, sizeof copy, "%s", errmsg());
    CHECK(tsstore_store_last_error(store, store_msg, sizeof store_msg, &needed));
    ASSERT(strcmp(copy, store_msg) == 0 && strstr(copy, "already stored") != NULL);
    r = last();
    ASSERT(r.status == TSSTORE_E_DUPLICATE_TIME_SERIES && r.arg == TSSTORE_ARG_LOOKUP && r.item == -1);
    ASSERT(strstr(r.message, r.reason) != NULL && strlen(r.reason) < strlen(r.message));

    /* A handle is the caller's: its strings outlive later failures on the thread. */
    tsstore_error *held = NULL;
    tsstore_error_info info = TSSTORE_ERROR_INFO_INIT;
    CHECK(tsstore_last_error(&held));
    CHECK(tsstore_error_get(held, &info));
    tsstore_period p;
    EXPECT(tsstore_period_parse("not a period", &p), TSSTORE_E_INVALID_PARAMETER);
    ASSERT(strcmp(info.message, copy) == 0 && info.status == TSSTORE_E_DUPLICATE_TIME_SERIES);
    tsstore_error_free(held);
    tsstore_error_free(held); /* twice: harmless */
    EXPECT(tsstore_error_get(held, &info), TSSTORE_E_INVALID_HANDLE);
    EXPECT(tsstore_last_error(NULL), TSSTORE_E_INVALID_PARAMETER);

    /* Successes leave the record. */
    EXPECT(add_hourly(store, 1, "G", "p", v, 4, NULL, NULL), TSSTORE_E_DUPLICATE_TIME_SERIES);
    snprintf(copy, sizeof copy, "%s", errmsg());
    int32_t found = 0;
    tsstore_lookup k = lookup_of(1, "p");
    CHECK(tsstore_has(store, &k, &found));
    CHECK(tsstore_flush(store));
    ASSERT(strcmp(errmsg(), copy) == 0);
    /* A buffer too small is a failure of its own, blaming the buffer. */
    EXPECT(tsstore_get(store, &k, v, sizeof v - 1, NULL), TSSTORE_E_BUFFER_TOO_SMALL);
    r = last();
    ASSERT(strcmp(r.message, copy) != 0 && strstr(r.message, "32") != NULL && r.arg == TSSTORE_ARG_BUFFER);
    snprintf(copy, sizeof copy, "%s", errmsg());
    store_msg[0] = '#';
    EXPECT(tsstore_store_last_error(store, store_msg, 1, &needed), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(store_msg[0] == '#' && needed == strlen(copy) + 1); /* nothing written; the size needed */
    ASSERT(strcmp(errmsg(), copy) != 0 && strstr(errmsg(), "small") != NULL); /* its own message */

    /* A batch's refusal: the item, the argument, the detail (the axis), the reason. */
    int64_t shapes[2][1] = {{4}, {0}};
    tsstore_series_desc descs[2];
    descs[0] = hourly_desc(2, "G", "q", v, shapes[0], 4);
    descs[1] = hourly_desc(3, "G", "q", v, shapes[1], 4);
    shapes[1][0] = 0;
    EXPECT(tsstore_add_batch(store, descs, 2, NULL), TSSTORE_E_INVALID_PARAMETER);
    r = last();
    ASSERT(r.item == 1 && r.arg == TSSTORE_ARG_SHAPE && strcmp(r.detail, "0") == 0);
    ASSERT(strstr(r.message, "descs[1].shape[0]") != NULL && strstr(r.reason, "descs") == NULL);
    /* A feature's refusal names the feature in detail. */
    EXPECT(add_hourly(store, 4, "G", "q", v, 4, "{\"units\": 1}", NULL), TSSTORE_E_INVALID_PARAMETER);
    r = last();
    ASSERT(r.arg == TSSTORE_ARG_FEATURES && strcmp(r.detail, "units") == 0 && r.item == -1);
    ASSERT(strstr(r.message, "desc.features_json.units") != NULL);

    /* Per thread: main's record stays while another thread fails, and the reverse. */
    EXPECT(tsstore_period_parse("main-thread-failure", &p), TSSTORE_E_INVALID_PARAMETER);
    snprintf(copy, sizeof copy, "%s", errmsg());
    pthread_barrier_init(&failed, NULL, 2);
    pthread_barrier_init(&checked, NULL, 2);
    pthread_t th;
    ASSERT(pthread_create(&th, NULL, other, NULL) == 0);
    pthread_barrier_wait(&failed);
    ASSERT(strcmp(errmsg(), copy) == 0 && strstr(copy, "main-thread-failure") != NULL);
    EXPECT(tsstore_period_parse("main-again", &p), TSSTORE_E_INVALID_PARAMETER);
    pthread_barrier_wait(&checked);
    pthread_join(th, NULL);
    ASSERT(other_ok);
    ASSERT(strstr(other_seen, "only-on-the-other-thread") != NULL && strstr(other_seen, "main") == NULL);
    ASSERT(strstr(errmsg(), "main-again") != NULL);
    pthread_barrier_destroy(&failed);
    pthread_barrier_destroy(&checked);
    int fresh_ok = 0;
    ASSERT(pthread_create(&th, NULL, fresh, &fresh_ok) == 0);
    pthread_join(th, NULL);
    ASSERT(fresh_ok);

    /* A very long message is cut, on a character boundary, and stays a C string. */
    static char name[6000];
    for (size_t i = 0; i + 2 < sizeof name; i += 2) memcpy(name + i, "\xc3\xa9", 2); /* é */
    name[sizeof name - 1] = 0;
    tsstore_lookup long_name = lookup_of(1, name);
    EXPECT(tsstore_get_info(store, &long_name, &(tsstore_series_info)TSSTORE_SERIES_INFO_INIT), TSSTORE_E_NOT_FOUND);
    const char *m = errmsg();
    size_t len = strlen(m);
    ASSERT(len > 1000 && len < 4096);
    ASSERT(((unsigned char)m[len - 1] & 0xC0) != 0xC0); /* not the first byte of a character */
    if (((unsigned char)m[len - 1] & 0xC0) == 0x80) ASSERT((unsigned char)m[len - 2] == 0xC3);
    /* tsstore_last_error_message cuts to the caller's buffer, on a character boundary too. */
    char small[8];
    needed = 0;
    CHECK(tsstore_last_error_message(small, sizeof small, &needed));
    ASSERT(needed == len + 1 && strlen(small) <= 7 && strncmp(small, m, strlen(small)) == 0);
    CHECK(tsstore_last_error_message(NULL, 0, &needed));
    ASSERT(needed == len + 1);

    CHECK(tsstore_close(store));
    return finish("test_errmsg");
}
