/* Many threads on one store handle at once, reads and writes mixed: writers adding series
 * one at a time and in a batch, reading each back, checking it with has and removing every
 * third; readers stepping a StaticReader of their own over a shared base set, reading it in
 * bulk and one series at a time through key handles all threads share, and reading one
 * shared series handle; a flusher committing all the while; and the last error kept per
 * thread. The same program runs under valgrind (memcheck_test_threads) and, linked against
 * a -race build of the library, under Go's race detector (threads_race).
 *
 * Usage: test_threads DIR [ROUNDS]: the threads run ROUNDS times (default 1) on one store. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include "check.h"

#define T0 1704067200000LL
#define WRITERS 6
#define ADDS 30     /* one-at-a-time adds per writer; every third is removed again */
#define BATCH 5     /* plus one batch per writer */
#define READERS 2
#define PASSES 3    /* a reader's sweeps over the base set */
#define BASE 16     /* series every reader reads, added before the threads start */
#define BASE_LEN 48 /* their length (hours) */
#define LEN 24      /* the writers' series' length */
#define THREADS (WRITERS + READERS + 1)

static tsstore_store *store;
static int round_no; /* set before each round's threads start */
static tsstore_key *base_keys[BASE];  /* shared by every reader */
static tsstore_series *base_series;   /* base series 0, read once, shared by every thread */
static int thread_failures[THREADS];
static atomic_int writers_done;
static int flushes;

/* A failed step on thread t: counted, and said with the thread's own last error. */
#define FAIL(t, what, st)                                                                                  \
    do {                                                                                                   \
        thread_failures[t]++;                                                                              \
        char m_[512];                                                                                      \
        size_t n_ = 0;                                                                                     \
        if (tsstore_last_error(m_, sizeof m_, &n_) != TSSTORE_OK) m_[0] = '\0';                            \
        fprintf(stderr, "%s:%d: thread %d: %s -> %s (%s)\n", __FILE__, __LINE__, t, what,                \
                tsstore_status_name(st), m_);                                                              \
    } while (0)
#define TRY(t, call)                                                                                       \
    do {                                                                                                   \
        int32_t st_ = (call);                                                                              \
        if (st_ != TSSTORE_OK) FAIL(t, #call, st_);                                                        \
    } while (0)
#define WANT(t, cond)                                                                                      \
    do {                                                                                                   \
        if (!(cond)) FAIL(t, "assertion failed: " #cond, TSSTORE_OK);                                      \
    } while (0)

/* Every series has its own values (so none shares an array with another). */
static double value(int64_t owner, int h) { return (double)owner * 100.0 + h; }

static int64_t writer_owner(int round, int t, int i) { return 10000 * (int64_t)round + 1000 * (int64_t)(t + 1) + i; }

/* Whether series r holds owner's values over len steps. */
static int holds(tsstore_series *r, int64_t owner, int len) {
    double back[BASE_LEN];
    size_t needed = 0;
    if (tsstore_series_data(r, back, sizeof back, &needed) != TSSTORE_OK || needed != (size_t)len * sizeof(double))
        return 0;
    for (int h = 0; h < len; h++)
        if (back[h] != value(owner, h)) return 0;
    return 1;
}

/* Reads the shared handles, as every thread may at any time. */
static void read_shared(int t) {
    int32_t type = -1, dtype = -1;
    int64_t initial = 0;
    TRY(t, tsstore_series_info(base_series, &type, &dtype, NULL, &initial, NULL));
    WANT(t, type == TSSTORE_SINGLE_TIME_SERIES && dtype == TSSTORE_DTYPE_F64 && initial == T0);
    WANT(t, holds(base_series, 9000, BASE_LEN));
    char name[16];
    size_t needed = 0;
    TRY(t, tsstore_key_name(base_keys[t % BASE], name, sizeof name, &needed));
    WANT(t, strcmp(name, "base") == 0);
}

/* Checks that the calling thread's last error is its own, whatever the others did since. */
static void own_last_error(int t) {
    char name[32], msg[512];
    snprintf(name, sizeof name, "thread-%d", t);
    tsstore_key *bad = NULL;
    int32_t st = tsstore_key_new(1, 0, 0, name, "not-a-period", NULL, NULL, &bad);
    WANT(t, st == TSSTORE_E_INVALID_PARAMETER && bad == NULL);
    for (int i = 0; i < 100; i++) sched_yield();
    size_t needed = 0;
    TRY(t, tsstore_last_error(msg, sizeof msg, &needed));
    WANT(t, strstr(msg, "not-a-period") != NULL);
}

static void *writer(void *arg) {
    int t = (int)(size_t)arg;
    double v[LEN];
    int64_t shape[1] = {LEN};
    for (int i = 0; i < ADDS; i++) {
        int64_t owner = writer_owner(round_no, t, i);
        for (int h = 0; h < LEN; h++) v[h] = value(owner, h);
        tsstore_key *k = NULL;
        int32_t st = tsstore_add_single(store, owner, "G", 0, "p", T0, "PT1H", TSSTORE_DTYPE_F64, shape, 1, v, sizeof v,
                                        NULL, NULL, NULL, &k);
        if (st != TSSTORE_OK) {
            FAIL(t, "tsstore_add_single", st);
            continue;
        }
        int32_t found = -1;
        TRY(t, tsstore_has(store, k, &found));
        WANT(t, found == 1);
        tsstore_series *r = NULL;
        TRY(t, tsstore_get(store, k, &r));
        WANT(t, r != NULL && holds(r, owner, LEN));
        tsstore_series_free(r);
        if (i % 3 == 2) {
            TRY(t, tsstore_remove(store, k));
            TRY(t, tsstore_has(store, k, &found));
            WANT(t, found == 0);
            r = NULL;
            st = tsstore_get(store, k, &r);
            WANT(t, st == TSSTORE_E_NOT_FOUND && r == NULL);
            st = tsstore_remove(store, k);
            WANT(t, st == TSSTORE_E_NOT_FOUND);
        }
        if (i % 10 == 9) {
            /* This writer's series so far: i + 1 added, (i + 1) / 3 removed. */
            tsstore_keys *mine = NULL;
            size_t n = 0;
            for (int j = 0; j <= i; j++) {
                TRY(t, tsstore_list_keys(store, 1, writer_owner(round_no, t, j), 0, -1, "p", NULL, NULL, &mine));
                TRY(t, tsstore_keys_len(mine, &n));
                WANT(t, n == (size_t)(j % 3 == 2 ? 0 : 1));
                tsstore_keys_free(mine);
                mine = NULL;
            }
        }
        tsstore_key_free(k);
        if (i % 5 == 0) read_shared(t);
    }

    /* A batch, all or nothing, read back in bulk. */
    tsstore_batch *b = NULL;
    TRY(t, tsstore_batch_new(store, &b));
    for (int j = 0; j < BATCH; j++) {
        int64_t owner = writer_owner(round_no, t, 500 + j);
        for (int h = 0; h < LEN; h++) v[h] = value(owner, h);
        TRY(t, tsstore_batch_add_single(b, owner, "G", 0, "p", T0, "PT1H", TSSTORE_DTYPE_F64, shape, 1, v, sizeof v,
                                        NULL, NULL, NULL));
    }
    tsstore_keys *keys = NULL;
    size_t n = 0;
    TRY(t, tsstore_batch_commit(b, &keys));
    tsstore_batch_free(b);
    if (keys != NULL) {
        TRY(t, tsstore_keys_len(keys, &n));
        WANT(t, n == BATCH);
        tsstore_key *ks[BATCH] = {NULL};
        tsstore_series *rs[BATCH] = {NULL};
        for (size_t j = 0; j < n && j < BATCH; j++) TRY(t, tsstore_keys_get(keys, j, &ks[j]));
        TRY(t, tsstore_get_many(store, (const tsstore_key *const *)ks, BATCH, rs));
        for (int j = 0; j < BATCH; j++) {
            WANT(t, rs[j] != NULL && holds(rs[j], writer_owner(round_no, t, 500 + j), LEN));
            tsstore_series_free(rs[j]);
            tsstore_key_free(ks[j]);
        }
        tsstore_keys_free(keys);
    }
    own_last_error(t);
    atomic_fetch_add(&writers_done, 1);
    return NULL;
}

static void *reader(void *arg) {
    int t = (int)(size_t)arg;
    tsstore_key *const *ks = base_keys;
    tsstore_series *rs[BASE];
    /* A StaticReader of this thread's own (a reader handle is not to be shared). */
    tsstore_static_reader *sr = NULL;
    TRY(t, tsstore_static_reader_new(store, "PT1H", (const tsstore_key *const *)ks, BASE, &sr));
    int64_t idx[BASE] = {0};
    size_t groups = 0, needed = 0;
    TRY(t, tsstore_static_reader_groups(sr, &groups));
    WANT(t, groups == 1);
    TRY(t, tsstore_static_reader_group_keys(sr, 0, idx, BASE, &needed));
    for (int pass = 0; pass < PASSES; pass++) {
        double step[BASE];
        for (int h = 0; h < BASE_LEN; h++) {
            TRY(t, tsstore_static_reader_read_step(sr, h));
            TRY(t, tsstore_static_reader_group_values(sr, 0, step, sizeof step, &needed));
            for (int j = 0; j < BASE; j++) WANT(t, step[j] == value(9000 + idx[j], h));
        }
        int32_t st = tsstore_get_many(store, (const tsstore_key *const *)ks, BASE, rs);
        if (st != TSSTORE_OK) FAIL(t, "tsstore_get_many", st);
        for (int j = 0; j < BASE && st == TSSTORE_OK; j++) {
            WANT(t, holds(rs[j], 9000 + j, BASE_LEN));
            tsstore_series_free(rs[j]);
        }
        int j = (t + pass) % BASE;
        tsstore_series *one = NULL;
        TRY(t, tsstore_get(store, ks[j], &one));
        WANT(t, one != NULL && holds(one, 9000 + j, BASE_LEN));
        tsstore_series_free(one);
        int32_t found = 0;
        TRY(t, tsstore_has(store, ks[j], &found));
        WANT(t, found == 1);
        read_shared(t);
    }
    tsstore_static_reader_free(sr);
    own_last_error(t);
    return NULL;
}

/* Commits while the writers write, until they are done (and at least a few times). */
static void *flusher(void *arg) {
    int t = (int)(size_t)arg;
    struct timespec pause = {0, 2 * 1000 * 1000};
    do {
        TRY(t, tsstore_flush(store));
        flushes++;
        tsstore_keys *all = NULL;
        size_t n = 0;
        TRY(t, tsstore_list_keys(store, 0, 0, -1, -1, NULL, NULL, NULL, &all));
        TRY(t, tsstore_keys_len(all, &n));
        WANT(t, n >= BASE && n <= BASE + (size_t)(round_no + 1) * WRITERS * (ADDS + BATCH));
        tsstore_keys_free(all);
        read_shared(t);
        nanosleep(&pause, NULL);
    } while (atomic_load(&writers_done) < WRITERS || flushes < 3);
    own_last_error(t);
    return NULL;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    int rounds = argc > 2 ? atoi(argv[2]) : 1;
    if (rounds < 1 || rounds > 9) {
        fprintf(stderr, "usage: %s DIR [ROUNDS (1-9)]\n", argv[0]);
        return 2;
    }
    char path[1024];
    store_path(path, sizeof path, dir, "threads");
    CHECK(tsstore_create(path, NULL, &store));

    /* The base set the readers read, committed before any thread starts. */
    tsstore_batch *b = NULL;
    double v[BASE_LEN];
    int64_t shape[1] = {BASE_LEN};
    CHECK(tsstore_batch_new(store, &b));
    for (int j = 0; j < BASE; j++) {
        for (int h = 0; h < BASE_LEN; h++) v[h] = value(9000 + j, h);
        CHECK(tsstore_batch_add_single(b, 9000 + j, "Base", 0, "base", T0, "PT1H", TSSTORE_DTYPE_F64, shape, 1, v,
                                       sizeof v, NULL, NULL, NULL));
    }
    CHECK(tsstore_batch_commit(b, NULL));
    tsstore_batch_free(b);
    CHECK(tsstore_flush(store));
    for (int j = 0; j < BASE; j++) CHECK(tsstore_key_new(9000 + j, 0, 0, "base", "PT1H", NULL, NULL, &base_keys[j]));
    CHECK(tsstore_get(store, base_keys[0], &base_series));

    for (round_no = 0; round_no < rounds; round_no++) {
        atomic_store(&writers_done, 0);
        pthread_t th[THREADS];
        for (int t = 0; t < THREADS; t++) {
            void *(*fn)(void *) = t < WRITERS ? writer : t < WRITERS + READERS ? reader : flusher;
            ASSERT(pthread_create(&th[t], NULL, fn, (void *)(size_t)t) == 0);
        }
        for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    }
    for (int t = 0; t < THREADS; t++) ASSERT(thread_failures[t] == 0);
    tsstore_series_free(base_series);
    for (int j = 0; j < BASE; j++) tsstore_key_free(base_keys[j]);

    /* What is left: the base set, two of every three single adds, every batch. */
    size_t want = BASE + (size_t)rounds * WRITERS * (ADDS - ADDS / 3 + BATCH);
    ASSERT(count_keys(store) == want);
    CHECK(tsstore_close(store));
    /* And it is what a fresh open finds. */
    CHECK(tsstore_open(path, 1, &store));
    ASSERT(count_keys(store) == want);
    tsstore_key *k = NULL;
    tsstore_series *r = NULL;
    CHECK(tsstore_key_new(writer_owner(rounds - 1, WRITERS - 1, ADDS - 2), 0, 0, "p", "PT1H", NULL, NULL, &k));
    CHECK(tsstore_get(store, k, &r));
    ASSERT(holds(r, writer_owner(rounds - 1, WRITERS - 1, ADDS - 2), LEN));
    tsstore_series_free(r);
    tsstore_key_free(k);
    CHECK(tsstore_close(store));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_threads: ok (%d rounds of %d writers, %d readers and a flusher; %d flushes)\n", rounds, WRITERS,
           READERS, flushes);
    return 0;
}
