/* tsstore_errmsg(): never NULL; "" on a thread that never failed; after a failure, that
 * failure's message (the same text as the store's last error, and also for an open that made
 * no handle); unchanged by later successes; kept per thread, so a failure on another thread
 * does not change it; and cut to a whole UTF-8 character when very long. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include "check.h"

static tsstore_store *store;
static pthread_barrier_t failed, checked;
static char other_seen[4096];
static int other_ok;

/* Another thread: its first message is "", then its own failure, while main keeps its own. */
static void *other(void *arg) {
    (void)arg;
    const char *m = tsstore_errmsg();
    other_ok = m != NULL && m[0] == '\0';
    tsstore_lookup q = lookup_of(1, "only-on-the-other-thread");
    double v[1];
    other_ok &= tsstore_get(store, &q, v, sizeof v, NULL) == TSSTORE_E_NOT_FOUND;
    pthread_barrier_wait(&failed); /* main checks its own message now */
    pthread_barrier_wait(&checked);
    m = tsstore_errmsg();
    snprintf(other_seen, sizeof other_seen, "%s", m != NULL ? m : "(NULL)");
    return NULL;
}

/* A thread that only reads tsstore_errmsg(). */
static void *fresh(void *arg) {
    const char *m = tsstore_errmsg();
    *(int *)arg = m != NULL && m[0] == '\0';
    return NULL;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024], copy[4096], store_msg[4096];
    size_t needed = 0;
    store_path(path, sizeof path, dir, "errmsg");

    /* Before any failure: "" and never NULL. */
    ASSERT(tsstore_errmsg() != NULL && strcmp(errmsg(), "") == 0);

    /* A failed open made no handle; its message is still there. */
    tsstore_store *none = NULL;
    ASSERT(tsstore_open(path, 0, &none) != TSSTORE_OK && none == NULL);
    ASSERT(strstr(errmsg(), "errmsg.nc") != NULL);
    ASSERT(errmsg() == tsstore_errmsg()); /* reading it changes nothing */

    /* A store's failure: the same text as tsstore_store_last_error. */
    CHECK(tsstore_create(path, NULL, &store));
    double v[4] = {1, 2, 3, 4};
    CHECK(add_hourly(store, 1, "G", "p", v, 4, NULL, NULL));
    EXPECT(add_hourly(store, 1, "G", "p", v, 4, NULL, NULL), TSSTORE_E_DUPLICATE_TIME_SERIES);
    snprintf(copy, sizeof copy, "%s", errmsg());
    CHECK(tsstore_store_last_error(store, store_msg, sizeof store_msg, &needed));
    ASSERT(strcmp(copy, store_msg) == 0 && strstr(copy, "already stored") != NULL);
    /* Successes leave it. */
    int32_t found = 0;
    tsstore_lookup k = lookup_of(1, "p");
    CHECK(tsstore_has(store, &k, &found));
    CHECK(tsstore_flush(store));
    ASSERT(strcmp(errmsg(), copy) == 0);
    /* A buffer too small is a failure with a message of its own. */
    EXPECT(tsstore_get(store, &k, v, sizeof v - 1, NULL), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(strcmp(errmsg(), copy) != 0 && strstr(errmsg(), "32") != NULL);
    snprintf(copy, sizeof copy, "%s", errmsg());
    store_msg[0] = '#';
    EXPECT(tsstore_store_last_error(store, store_msg, 1, &needed), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(store_msg[0] == '#' && needed == strlen(copy) + 1); /* nothing written; the size needed */
    ASSERT(strcmp(errmsg(), copy) != 0 && strstr(errmsg(), "small") != NULL); /* its own message */

    /* Per thread: main's message stays while another thread fails, and the reverse. */
    tsstore_period p;
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

    CHECK(tsstore_close(store));
    return finish("test_errmsg");
}
