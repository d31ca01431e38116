/* Several threads on one store handle at once (adds, reads, lists), and the last error
 * kept per thread. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include "check.h"

#define T0 1704067200000LL
#define THREADS 8
#define ADDS 40

static tsstore_store *store;
static int thread_failures[THREADS];

static void *worker(void *arg) {
    int t = (int)(size_t)arg;
    double v[24];
    int64_t shape[1] = {24};
    for (int i = 0; i < ADDS; i++) {
        for (int h = 0; h < 24; h++) v[h] = t * 1000 + i + h;
        tsstore_key *k = NULL;
        if (tsstore_add_single(store, t * 1000 + i, "G", 0, "p", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL,
                               &k) != TSSTORE_OK) {
            thread_failures[t]++;
            continue;
        }
        tsstore_series *r = NULL;
        double back[24];
        size_t needed = 0;
        if (tsstore_get(store, k, &r) != TSSTORE_OK || tsstore_series_data(r, back, sizeof back, &needed) != TSSTORE_OK ||
            back[23] != v[23])
            thread_failures[t]++;
        tsstore_series_free(r);
        tsstore_key_free(k);
    }
    /* A failure on this thread is this thread's message, whatever the others do. */
    char name[32], msg[512];
    snprintf(name, sizeof name, "thread-%d", t);
    tsstore_key *bad = NULL;
    if (tsstore_key_new(1, 0, 0, name, "not-a-period", NULL, NULL, &bad) != TSSTORE_E_INVALID_PARAMETER)
        thread_failures[t]++;
    for (int i = 0; i < 100; i++) sched_yield();
    size_t needed = 0;
    if (tsstore_last_error(msg, sizeof msg, &needed) != TSSTORE_OK || strstr(msg, "not-a-period") == NULL)
        thread_failures[t]++;
    return NULL;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024];
    store_path(path, sizeof path, dir, "threads");
    CHECK(tsstore_create(path, NULL, &store));
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(size_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) ASSERT(thread_failures[t] == 0);
    tsstore_keys *keys = NULL;
    size_t n = 0;
    CHECK(tsstore_list_keys(store, 0, 0, -1, -1, NULL, NULL, NULL, &keys));
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == THREADS * ADDS);
    tsstore_keys_free(keys);
    CHECK(tsstore_close(store));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_threads: ok\n");
    return 0;
}
