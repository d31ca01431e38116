/* Batches, transactions, the transform, bulk reads, the read cache and both readers through
 * the C API. */
#include <pthread.h>

#include "check.h"

#define N 50
#define LEN 96

static double value(int owner, int h) { return owner * 1000.0 + h; }

static double values[N][LEN];
static int64_t shapes[N][1];
static tsstore_series_desc descs[N];

/* A batch larger than the 8,192 items the library converts and adds at a time at most: a
 * refusal of a descriptor in a later slice names its item and leaves nothing stored, and an
 * accepted batch writes every key into stored, at the caller's stride, in order. */
#define BIG (2 * 8192 + 5)
static void big_batch(const char *dir) {
    tsstore_store *s = fresh_store(dir, "bulk_big", NULL);
    static double v[BIG][4];
    static int64_t shape[BIG][1];
    static tsstore_series_desc d[BIG];
    /* a stride wider than the struct, as a later header's callers would give */
    static struct { tsstore_lookup q; char later[24]; } stored[BIG];
    for (int i = 0; i < BIG; i++) {
        for (int h = 0; h < 4; h++) v[i][h] = value(i, h);
        d[i] = hourly_desc(i, "PowerLoad", "p", v[i], shape[i], 4);
    }
    d[8195].dtype = 99;
    EXPECT(tsstore_add_batch(s, d, BIG, NULL), TSSTORE_E_INVALID_PARAMETER);
    NAMES_ARG("descs[8195].dtype");
    tsstore_error *e = NULL;
    tsstore_error_info info = TSSTORE_ERROR_INFO_INIT;
    CHECK(tsstore_last_error(&e));
    CHECK(tsstore_error_get(e, &info));
    ASSERT(info.item == 8195 && info.arg == TSSTORE_ARG_DTYPE);
    tsstore_error_free(e);
    ASSERT(count_keys(s) == 0);

    d[8195].dtype = TSSTORE_DTYPE_F64;
    stored[0].q.struct_size = sizeof stored[0];
    CHECK(tsstore_add_batch(s, d, BIG, &stored[0].q));
    ASSERT(count_keys(s) == BIG);
    for (int i = 0; i < BIG; i++) {
        const tsstore_lookup *q = &stored[i].q;
        if (q->owner_id != i || q->series_id <= (i ? stored[i - 1].q.series_id : 0) || strcmp(q->name, "p") != 0 ||
            q->struct_size != sizeof stored[0]) {
            fprintf(stderr, "stored[%d]: owner %lld, series id %lld, name %s\n", i, (long long)q->owner_id,
                    (long long)q->series_id, q->name ? q->name : "(null)");
            failures++;
            break;
        }
    }
    double back[4];
    tsstore_series_info si = TSSTORE_SERIES_INFO_INIT;
    CHECK(tsstore_get(s, &stored[BIG - 1].q, back, sizeof back, &si));
    ASSERT(back[3] == value(BIG - 1, 3));
    CHECK(tsstore_close(s));
}

/* What fill_slices hands out: descriptors of a batch, a slice at a time, as a binding that
 * converts its items while the library adds the slice before would. */
struct slices {
    const tsstore_series_desc *d;
    size_t next;          /* the first item the next call must ask for */
    int calls, on_caller; /* calls made; calls made on the thread that called the add */
    pthread_t caller;
    size_t stop_at;       /* a call asking for this item returns TSSTORE_E_IO (0: none) */
    int give_null;        /* the call for the second slice sets no descriptors */
};

static int32_t fill_slices(void *user, size_t first, size_t count, const tsstore_series_desc **descs) {
    struct slices *sl = user;
    if (first != sl->next || count == 0 || count > 8192) {
        fprintf(stderr, "fill asked for %zu..+%zu, expected %zu\n", first, count, sl->next);
        failures++;
    }
    sl->next = first + count;
    sl->calls++;
    sl->on_caller += pthread_equal(pthread_self(), sl->caller) != 0;
    if (sl->stop_at && first <= sl->stop_at && sl->stop_at < first + count) return TSSTORE_E_IO;
    *descs = sl->give_null && first > 0 ? NULL : &sl->d[first];
    return TSSTORE_OK;
}

/* tsstore_add_batch_from over the descriptors big_batch adds: asked for in order, in six
 * slices, the first on the calling thread; a fill that stops the add, sets no descriptors or
 * gives a bad one in a later slice leaves nothing stored; the keys land in stored. */
static void batch_from_a_callback(const char *dir) {
    tsstore_store *s = fresh_store(dir, "bulk_from", NULL);
    static double v[BIG][4];
    static int64_t shape[BIG][1];
    static tsstore_series_desc d[BIG];
    static tsstore_lookup stored[BIG];
    for (int i = 0; i < BIG; i++) {
        for (int h = 0; h < 4; h++) v[i][h] = value(i, h);
        d[i] = hourly_desc(i, "PowerLoad", "p", v[i], shape[i], 4);
    }
    struct slices sl = {.d = d, .caller = pthread_self(), .stop_at = 9000};
    EXPECT(tsstore_add_batch_from(s, fill_slices, &sl, BIG, NULL), TSSTORE_E_IO);
    /* slices of 512, 1,024, 2,048, 4,096, then 8,192 items: item 9000 is in the fifth */
    ASSERT(strstr(errmsg(), "fill stopped the add, returning 7 (TSSTORE_E_IO) for items 7680 to 15871") != NULL &&
           sl.calls == 5);
    ASSERT(count_keys(s) == 0);

    sl = (struct slices){.d = d, .caller = pthread_self(), .give_null = 1};
    EXPECT(tsstore_add_batch_from(s, fill_slices, &sl, BIG, NULL), TSSTORE_E_INVALID_PARAMETER);
    ASSERT(count_keys(s) == 0);

    d[9000].dtype = 99;
    sl = (struct slices){.d = d, .caller = pthread_self()};
    EXPECT(tsstore_add_batch_from(s, fill_slices, &sl, BIG, NULL), TSSTORE_E_INVALID_PARAMETER);
    NAMES_ARG("items[9000].dtype");
    ASSERT(count_keys(s) == 0);
    d[9000].dtype = TSSTORE_DTYPE_F64;

    EXPECT(tsstore_add_batch_from(s, NULL, NULL, BIG, NULL), TSSTORE_E_INVALID_PARAMETER);
    NAMES_ARG("fill");
    sl = (struct slices){.d = d, .caller = pthread_self()};
    stored[0].struct_size = sizeof stored[0];
    CHECK(tsstore_add_batch_from(s, fill_slices, &sl, BIG, stored));
    ASSERT(sl.calls == 6 && sl.on_caller >= 1 && sl.next == BIG);
    ASSERT(count_keys(s) == BIG);
    for (int i = 0; i < BIG; i++) {
        if (stored[i].owner_id != i || stored[i].series_id <= 0 || strcmp(stored[i].name, "p") != 0) {
            fprintf(stderr, "stored[%d]: owner %lld, series id %lld\n", i, (long long)stored[i].owner_id,
                    (long long)stored[i].series_id);
            failures++;
            break;
        }
    }
    double back[4];
    tsstore_series_info si = TSSTORE_SERIES_INFO_INIT;
    CHECK(tsstore_get(s, &stored[12345], back, sizeof back, &si));
    ASSERT(back[3] == value(12345, 3));
    CHECK(tsstore_close(s));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    tsstore_store *s = fresh_store(dir, "bulk", NULL);

    /* A batch of N hourly series in one call, all or nothing. */
    for (int o = 0; o < N; o++) {
        for (int h = 0; h < LEN; h++) values[o][h] = value(o, h);
        descs[o] = hourly_desc(o, "PowerLoad", "max_active_power", values[o], shapes[o], LEN);
        descs[o].units = "MW";
    }
    CHECK(tsstore_add_batch(s, descs, N, NULL));
    for (int o = 0; o < N; o++)
        for (int h = 0; h < LEN; h++) values[o][h] = -1; /* the batch copied the arrays */
    ASSERT(count_keys(s) == N);
    CHECK(tsstore_add_batch(s, descs, 0, NULL)); /* an empty batch adds nothing */

    /* A failing batch adds nothing: item 1 repeats owner 0's series; the message names it. */
    double v[LEN];
    int64_t shape2[2][1];
    tsstore_series_desc two[2] = {hourly_desc(999, "PowerLoad", "max_active_power", v, shape2[0], LEN),
                                  hourly_desc(0, "PowerLoad", "max_active_power", v, shape2[1], LEN)};
    for (int h = 0; h < LEN; h++) v[h] = h;
    EXPECT(tsstore_add_batch(s, two, 2, NULL), TSSTORE_E_DUPLICATE_TIME_SERIES);
    ASSERT(strstr(errmsg(), "[1]") != NULL);
    NAMES_ARG("descs[1]");
    ASSERT(count_keys(s) == N);
    tsstore_lookup q999 = lookup_of(999, "max_active_power");
    int32_t found = -1;
    CHECK(tsstore_has(s, &q999, &found));
    ASSERT(found == 0);
    /* Two items of one batch with one identity. */
    two[1].owner_id = 999;
    EXPECT(tsstore_add_batch(s, two, 2, NULL), TSSTORE_E_DUPLICATE_TIME_SERIES);
    CHECK(tsstore_has(s, &q999, &found));
    ASSERT(found == 0);

    /* Transactions: a rolled-back add is gone, a committed one stays. */
    tsstore_lookup t500 = lookup_of(500, "t");
    CHECK(tsstore_begin(s));
    CHECK(add_hourly(s, 500, "X", "t", v, LEN, NULL, NULL));
    CHECK(tsstore_has(s, &t500, &found));
    ASSERT(found == 1);
    EXPECT(tsstore_flush(s), TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_rollback(s));
    CHECK(tsstore_has(s, &t500, &found));
    ASSERT(found == 0);
    EXPECT(tsstore_commit(s), TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_begin(s));
    CHECK(add_hourly(s, 500, "X", "t", v, LEN, NULL, NULL));
    CHECK(tsstore_remove(s, &t500));
    CHECK(tsstore_commit(s));
    CHECK(tsstore_has(s, &t500, &found));
    ASSERT(found == 0);
    CHECK(tsstore_set_write_buffer(s, 1 << 20));
    EXPECT(tsstore_set_write_buffer(s, -1), TSSTORE_E_INVALID_PARAMETER);

    /* Day-ahead views: windows of 24 h every 24 h over LEN hours, so LEN / 24 windows. */
    int64_t added = 0;
    tsstore_period day = millis(24 * HOUR), hour = millis(HOUR), ninety = millis(90 * 60000);
    CHECK(tsstore_transform_single_time_series(s, &day, &day, TSSTORE_OWNER_COMPONENT, &hour, &added));
    ASSERT(added == N);
    CHECK(tsstore_transform_single_time_series(s, &day, &day, TSSTORE_OWNER_ANY, NULL, &added));
    ASSERT(added == 0);
    EXPECT(tsstore_transform_single_time_series(s, &ninety, &day, TSSTORE_OWNER_ANY, NULL, &added),
           TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_flush(s));

    /* Bulk read of every listed series, in the order asked: first the sizes, then the arrays. */
    tsstore_filter statics = TSSTORE_FILTER_INIT;
    statics.series_type = TSSTORE_SINGLE_TIME_SERIES;
    tsstore_keys *keys = NULL;
    size_t n = 0;
    CHECK(tsstore_list_keys(s, &statics, &keys));
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == N);
    static tsstore_series_info infos[N];
    static tsstore_lookup ks[N];
    infos[0].struct_size = sizeof infos[0];
    CHECK(tsstore_keys_get(keys, 0, N, infos));
    for (int o = 0; o < N; o++) {
        ks[N - 1 - o] = infos[o].key; /* reversed */
        ASSERT(infos[o].key.owner_id == o);
    }
    static tsstore_series_info got[N];
    got[0].struct_size = sizeof got[0];
    CHECK(tsstore_get_many(s, ks, N, NULL, NULL, got));
    static double many[N][LEN];
    void *dst[N];
    size_t cap[N];
    for (int i = 0; i < N; i++) {
        ASSERT(got[i].nbytes == LEN * sizeof(double) && got[i].key.owner_id == N - 1 - i);
        dst[i] = many[i];
        cap[i] = (size_t)got[i].nbytes;
    }
    CHECK(tsstore_get_many(s, ks, N, dst, cap, got));
    for (int i = 0; i < N; i++) {
        int o = N - 1 - i;
        ASSERT(many[i][0] == value(o, 0) && many[i][LEN - 1] == value(o, LEN - 1));
        ASSERT(got[i].initial_ms == T0 && got[i].shape[0] == LEN);
    }
    /* A call that reads nothing keeps what it resolved for the very next call only: changed
     * lookups (which[0] now naming another series) are resolved afresh, and so is a read
     * after another call in between; each reads what its lookups name. */
    static size_t zero[N];
    EXPECT(tsstore_get_many(s, ks, N, dst, zero, got), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(got[0].nbytes == LEN * sizeof(double));
    tsstore_lookup first = ks[0];
    ks[0] = ks[1];
    CHECK(tsstore_get_many(s, ks, N, dst, cap, got));
    ASSERT(many[0][0] == value(N - 2, 0) && got[0].key.owner_id == N - 2);
    ks[0] = first;
    CHECK(tsstore_get_many(s, ks, N, NULL, NULL, got));
    CHECK(tsstore_has(s, &ks[3], &found));
    CHECK(tsstore_get_many(s, ks, N, dst, cap, got));
    ASSERT(many[0][0] == value(N - 1, 0) && got[0].key.owner_id == N - 1);
    ASSERT(many[N - 1][LEN - 1] == value(0, LEN - 1));
    /* Lookups sharing their strings (as the Python binding builds them) that differ by owner
     * only; one of them asking another resolution names itself when it matches nothing. */
    static tsstore_lookup shared[N];
    for (int i = 0; i < N; i++) {
        shared[i] = ks[0];
        shared[i].owner_id = ks[i].owner_id;
    }
    CHECK(tsstore_get_many(s, shared, N, dst, cap, got));
    for (int i = 0; i < N; i++)
        ASSERT(got[i].key.owner_id == N - 1 - i && many[i][0] == value(N - 1 - i, 0));
    shared[7].resolution = millis(2 * HOUR);
    REFUSE(tsstore_get_many(s, shared, N, dst, cap, got), TSSTORE_E_NOT_FOUND, "which[7]");

    /* One-at-a-time reads under each read-cache setting (off, a block of columns, the
     * default) equal what was written, twice over (the second read from the cache). */
    int64_t caches[3] = {0, 2 * LEN * 8 * 4, 64 << 20};
    for (int c = 0; c < 3; c++) {
        CHECK(tsstore_set_read_cache(s, caches[c]));
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < N; i++) {
                int o = N - 1 - i;
                CHECK(tsstore_get(s, &ks[i], v, sizeof v, NULL));
                ASSERT(v[0] == value(o, 0) && v[LEN - 1] == value(o, LEN - 1));
            }
        }
    }
    EXPECT(tsstore_set_read_cache(s, -1), TSSTORE_E_INVALID_PARAMETER);

    /* StaticReader: every step of every key equals what was written, by index and by time. */
    tsstore_static_reader *sr = NULL;
    CHECK(tsstore_static_reader_new(s, &hour, ks, N, &sr));
    tsstore_reader_info ri = TSSTORE_READER_INFO_INIT;
    CHECK(tsstore_static_reader_info(sr, &ri));
    ASSERT(ri.initial_ms == T0 && ri.steps == LEN && ri.n_groups == 1);
    ASSERT(same_period(ri.step_period, hour) && same_period(ri.resolution, hour));
    tsstore_group_info gi = TSSTORE_GROUP_INFO_INIT;
    CHECK(tsstore_static_reader_group(sr, 0, &gi));
    ASSERT(gi.dtype == TSSTORE_DTYPE_F64 && gi.n_keys == N && gi.element_ndim == 0);
    ASSERT(gi.layers == 1 && gi.steps == 1 && gi.nbytes == N * sizeof(double));
    int64_t idx[N];
    CHECK(tsstore_static_reader_group_keys(sr, 0, idx, N, &n));
    ASSERT(n == N);
    double step[N];
    CHECK(tsstore_static_reader_bind(sr, 0, step, sizeof step));
    for (int h = 0; h < LEN; h++) {
        if (h % 2)
            CHECK(tsstore_static_reader_read_step(sr, h));
        else
            CHECK(tsstore_static_reader_read_at(sr, T0 + h * HOUR));
        for (int j = 0; j < N; j++) ASSERT(step[j] == value(N - 1 - (int)idx[j], h));
    }
    EXPECT(tsstore_static_reader_read_at(sr, T0 + HOUR / 2), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_static_reader_read_at(sr, T0 + LEN * HOUR), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_static_reader_read_step(sr, LEN), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_static_reader_group(sr, 1, &gi), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_static_reader_bind(sr, 1, step, sizeof step), TSSTORE_E_INVALID_PARAMETER);
    tsstore_static_reader_free(sr);
    tsstore_static_reader_free(sr);
    EXPECT(tsstore_static_reader_read_step(sr, 0), TSSTORE_E_INVALID_HANDLE);

    /* ForecastReader over the views: window w of key j is hours [24w, 24w + 24). */
    tsstore_lookup fk[N];
    for (int o = 0; o < N; o++) {
        fk[o] = lookup_of(o, "max_active_power");
        fk[o].series_type = TSSTORE_ABSTRACT_DETERMINISTIC;
        fk[o].resolution = hour;
        fk[o].interval = day;
    }
    tsstore_forecast_reader *fr = NULL;
    CHECK(tsstore_forecast_reader_new(s, TSSTORE_ABSTRACT_DETERMINISTIC, &hour, fk, N, &fr));
    CHECK(tsstore_forecast_reader_info(fr, &ri));
    ASSERT(ri.initial_ms == T0 && ri.steps == LEN / 24 && ri.n_groups == 1);
    ASSERT(same_period(ri.step_period, day) && same_period(ri.resolution, hour));
    CHECK(tsstore_forecast_reader_group(fr, 0, &gi));
    ASSERT(gi.n_keys == N && gi.layers == 1 && gi.steps == 24 && gi.nbytes == N * 24 * sizeof(double));
    CHECK(tsstore_forecast_reader_group_keys(fr, 0, idx, N, &n));
    static double win[N * 24];
    CHECK(tsstore_forecast_reader_bind(fr, 0, win, sizeof win));
    for (int w = 0; w < ri.steps; w++) {
        if (w % 2)
            CHECK(tsstore_forecast_reader_read_window(fr, w));
        else
            CHECK(tsstore_forecast_reader_read_at(fr, T0 + w * 24 * HOUR));
        for (int j = 0; j < N; j++)
            for (int h = 0; h < 24; h++) ASSERT(win[j * 24 + h] == value((int)idx[j], 24 * w + h));
    }
    EXPECT(tsstore_forecast_reader_read_at(fr, T0 + HOUR), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_forecast_reader_read_window(fr, ri.steps), TSSTORE_E_INVALID_PARAMETER);
    tsstore_forecast_reader_free(fr);
    EXPECT(tsstore_forecast_reader_new(s, TSSTORE_SINGLE_TIME_SERIES, &hour, fk, N, &fr), TSSTORE_E_INVALID_PARAMETER);
    ASSERT(fr == NULL);
    EXPECT(tsstore_static_reader_new(s, &hour, NULL, 3, &sr), TSSTORE_E_INVALID_PARAMETER);
    ASSERT(sr == NULL);

    tsstore_keys_free(keys);
    CHECK(tsstore_close(s));
    big_batch(dir);
    batch_from_a_callback(dir);
    return finish("test_bulk");
}
