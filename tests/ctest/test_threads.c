/* Many threads on one store handle at once, reads and writes mixed: writers adding series
 * one at a time and in a batch, reading each back, checking it with has and removing every
 * third; readers stepping a StaticReader of their own over a shared base set, reading it in
 * bulk and one series at a time by lookups all threads share, and reading one key list all
 * threads share; a flusher committing all the while; the strings of a description and the
 * last error kept per thread. The same program runs under valgrind (memcheck_test_threads)
 * and, linked against a -race build of the library, under Go's race detector (threads_race).
 *
 * Usage: test_threads DIR [ROUNDS]: the threads run ROUNDS times (default 1) on one store. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include "check.h"

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
static int round_no;                 /* set before each round's threads start */
static tsstore_lookup base_keys[BASE]; /* shared by every reader */
static tsstore_keys *base_list;      /* the base set's key list, read by every thread */
static int thread_failures[THREADS];
static atomic_int writers_done;
static int flushes;

/* A failed step on thread t: counted, and said with the thread's own last error. */
#define FAIL(t, what, st)                                                                                  \
    do {                                                                                                   \
        thread_failures[t]++;                                                                              \
        fprintf(stderr, "%s:%d: thread %d: %s -> %s (%s)\n", __FILE__, __LINE__, t, what,                \
                tsstore_status_name(st), errmsg());                                                        \
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

/* Whether back[len] holds owner's values. */
static int holds(const double *back, int64_t owner, int len) {
    for (int h = 0; h < len; h++)
        if (back[h] != value(owner, h)) return 0;
    return 1;
}

/* Whether the series q names holds owner's values over len steps. */
static int reads_as(const tsstore_lookup *q, int64_t owner, int len) {
    double back[BASE_LEN];
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    if (tsstore_get(store, q, back, sizeof back, &info) != TSSTORE_OK) return 0;
    return info.nbytes == (uint64_t)len * sizeof(double) && holds(back, owner, len);
}

/* Reads the shared key list, as every thread may at any time, and through it a base series;
 * a description's strings stay this thread's while the others call. */
static void read_shared(int t) {
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    int j = t % BASE;
    TRY(t, tsstore_keys_get(base_list, (size_t)j, 1, &info));
    WANT(t, strcmp(info.key.name, "base") == 0 && strcmp(info.owner_type, "Base") == 0);
    WANT(t, info.key.owner_id == 9000 + j && info.initial_ms == T0 && info.length == BASE_LEN);
    WANT(t, reads_as(&info.key, 9000 + j, BASE_LEN));
    TRY(t, tsstore_get_info(store, &base_keys[j], &info));
    for (int i = 0; i < 100; i++) sched_yield();
    WANT(t, strcmp(info.key.name, "base") == 0 && strcmp(info.owner_type, "Base") == 0);
}

/* Checks that the calling thread's last error is its own, whatever the others did since. */
static void own_last_error(int t) {
    char text[32];
    snprintf(text, sizeof text, "thread-%d", t);
    tsstore_period p;
    int32_t st = tsstore_period_parse(text, &p);
    WANT(t, st == TSSTORE_E_INVALID_PARAMETER);
    for (int i = 0; i < 100; i++) sched_yield();
    WANT(t, strstr(errmsg(), text) != NULL);
}

static void *writer(void *arg) {
    int t = (int)(size_t)arg;
    double v[LEN];
    for (int i = 0; i < ADDS; i++) {
        int64_t owner = writer_owner(round_no, t, i);
        for (int h = 0; h < LEN; h++) v[h] = value(owner, h);
        int32_t st = add_hourly(store, owner, "G", "p", v, LEN, NULL, NULL);
        if (st != TSSTORE_OK) {
            FAIL(t, "add_hourly", st);
            continue;
        }
        tsstore_lookup k = lookup_of(owner, "p");
        int32_t found = -1;
        TRY(t, tsstore_has(store, &k, &found));
        WANT(t, found == 1);
        WANT(t, reads_as(&k, owner, LEN));
        if (i % 3 == 2) {
            TRY(t, tsstore_remove(store, &k));
            TRY(t, tsstore_has(store, &k, &found));
            WANT(t, found == 0);
            st = tsstore_get(store, &k, v, sizeof v, NULL);
            WANT(t, st == TSSTORE_E_NOT_FOUND);
            st = tsstore_remove(store, &k);
            WANT(t, st == TSSTORE_E_NOT_FOUND);
        }
        if (i % 10 == 9) {
            /* This writer's series so far: i + 1 added, (i + 1) / 3 removed. */
            for (int j = 0; j <= i; j++) {
                tsstore_filter f = TSSTORE_FILTER_INIT;
                f.match_owner_id = 1;
                f.owner_id = writer_owner(round_no, t, j);
                f.owner_category = TSSTORE_OWNER_COMPONENT;
                f.name = "p";
                tsstore_keys *mine = NULL;
                size_t n = 0;
                TRY(t, tsstore_list_keys(store, &f, &mine));
                TRY(t, tsstore_keys_len(mine, &n));
                WANT(t, n == (size_t)(j % 3 == 2 ? 0 : 1));
                tsstore_keys_free(mine);
            }
        }
        if (i % 5 == 0) read_shared(t);
    }

    /* A batch, all or nothing, read back in bulk. */
    static double values[WRITERS][BATCH][LEN];
    int64_t shapes[BATCH][1];
    tsstore_series_desc descs[BATCH];
    tsstore_lookup ks[BATCH];
    for (int j = 0; j < BATCH; j++) {
        int64_t owner = writer_owner(round_no, t, 500 + j);
        for (int h = 0; h < LEN; h++) values[t][j][h] = value(owner, h);
        descs[j] = hourly_desc(owner, "G", "p", values[t][j], shapes[j], LEN);
        ks[j] = lookup_of(owner, "p");
    }
    TRY(t, tsstore_add_batch(store, descs, BATCH, NULL));
    static double back[WRITERS][BATCH][LEN];
    void *dst[BATCH];
    size_t cap[BATCH];
    tsstore_series_info infos[BATCH];
    infos[0] = (tsstore_series_info)TSSTORE_SERIES_INFO_INIT;
    for (int j = 0; j < BATCH; j++) dst[j] = back[t][j], cap[j] = sizeof back[t][j];
    TRY(t, tsstore_get_many(store, ks, BATCH, dst, cap, infos));
    for (int j = 0; j < BATCH; j++) WANT(t, holds(back[t][j], writer_owner(round_no, t, 500 + j), LEN));
    own_last_error(t);
    atomic_fetch_add(&writers_done, 1);
    return NULL;
}

static void *reader(void *arg) {
    int t = (int)(size_t)arg;
    /* A StaticReader of this thread's own (a reader handle is not to be shared). */
    tsstore_static_reader *sr = NULL;
    tsstore_period hour = millis(HOUR);
    TRY(t, tsstore_static_reader_new(store, &hour, base_keys, BASE, &sr));
    int64_t idx[BASE] = {0};
    size_t n = 0;
    tsstore_reader_info ri = TSSTORE_READER_INFO_INIT;
    TRY(t, tsstore_static_reader_info(sr, &ri));
    WANT(t, ri.n_groups == 1 && ri.steps == BASE_LEN);
    TRY(t, tsstore_static_reader_group_keys(sr, 0, idx, BASE, &n));
    double step[BASE];
    TRY(t, tsstore_static_reader_bind(sr, 0, step, sizeof step));
    static double many[READERS][BASE][BASE_LEN];
    double(*mine)[BASE_LEN] = many[t - WRITERS];
    void *dst[BASE];
    size_t cap[BASE];
    tsstore_series_info infos[BASE];
    infos[0] = (tsstore_series_info)TSSTORE_SERIES_INFO_INIT;
    for (int j = 0; j < BASE; j++) dst[j] = mine[j], cap[j] = sizeof mine[j];
    for (int pass = 0; pass < PASSES; pass++) {
        for (int h = 0; h < BASE_LEN; h++) {
            TRY(t, tsstore_static_reader_read_step(sr, h));
            for (int j = 0; j < BASE; j++) WANT(t, step[j] == value(9000 + idx[j], h));
        }
        int32_t st = tsstore_get_many(store, base_keys, BASE, dst, cap, infos);
        if (st != TSSTORE_OK) FAIL(t, "tsstore_get_many", st);
        for (int j = 0; j < BASE && st == TSSTORE_OK; j++) WANT(t, holds(mine[j], 9000 + j, BASE_LEN));
        int j = (t + pass) % BASE;
        WANT(t, reads_as(&base_keys[j], 9000 + j, BASE_LEN));
        int32_t found = 0;
        TRY(t, tsstore_has(store, &base_keys[j], &found));
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
        TRY(t, tsstore_list_keys(store, NULL, &all));
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
    store = fresh_store(dir, "threads", path);

    /* The base set the readers read, committed before any thread starts. */
    static double v[BASE][BASE_LEN];
    int64_t shapes[BASE][1];
    tsstore_series_desc descs[BASE];
    for (int j = 0; j < BASE; j++) {
        for (int h = 0; h < BASE_LEN; h++) v[j][h] = value(9000 + j, h);
        descs[j] = hourly_desc(9000 + j, "Base", "base", v[j], shapes[j], BASE_LEN);
        base_keys[j] = lookup_of(9000 + j, "base");
    }
    CHECK(tsstore_add_batch(store, descs, BASE, NULL));
    CHECK(tsstore_flush(store));
    tsstore_filter base = TSSTORE_FILTER_INIT;
    base.name = "base";
    CHECK(tsstore_list_keys(store, &base, &base_list));

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
    tsstore_keys_free(base_list);

    /* What is left: the base set, two of every three single adds, every batch. */
    size_t want = BASE + (size_t)rounds * WRITERS * (ADDS - ADDS / 3 + BATCH);
    ASSERT(count_keys(store) == want);
    CHECK(tsstore_close(store));
    /* And it is what a fresh open finds. */
    CHECK(tsstore_open(path, 1, &store));
    ASSERT(count_keys(store) == want);
    tsstore_lookup k = lookup_of(writer_owner(rounds - 1, WRITERS - 1, ADDS - 2), "p");
    ASSERT(reads_as(&k, writer_owner(rounds - 1, WRITERS - 1, ADDS - 2), LEN));
    CHECK(tsstore_close(store));
    if (!failures)
        printf("test_threads: %d rounds of %d writers, %d readers and a flusher; %d flushes\n", rounds, WRITERS,
               READERS, flushes);
    return finish("test_threads");
}
