/* Batches, transactions, the transform, bulk reads and both readers through the C API. */
#include "check.h"

#define T0 1704067200000LL
#define HOUR 3600000LL
#define N 50
#define LEN 96

static double value(int owner, int h) { return owner * 1000.0 + h; }

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024];
    store_path(path, sizeof path, dir, "bulk");
    tsstore_store *s = NULL;
    CHECK(tsstore_create(path, NULL, &s));

    /* A batch of N hourly series, all or nothing. */
    tsstore_batch *b = NULL;
    double v[LEN];
    int64_t shape[1] = {LEN};
    CHECK(tsstore_batch_new(s, &b));
    for (int o = 0; o < N; o++) {
        for (int h = 0; h < LEN; h++) v[h] = value(o, h);
        CHECK(tsstore_batch_add_single(b, o, "PowerLoad", TSSTORE_OWNER_COMPONENT, "max_active_power", T0, "PT1H",
                                       TSSTORE_DTYPE_F64, shape, 1, v, sizeof v, NULL, "MW", NULL));
    }
    for (int h = 0; h < LEN; h++) v[h] = -1; /* the batch copied the arrays */
    size_t n = 0;
    CHECK(tsstore_batch_len(b, &n));
    ASSERT(n == N);
    tsstore_keys *keys = NULL;
    CHECK(tsstore_batch_commit(b, &keys));
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == N);
    CHECK(tsstore_batch_len(b, &n));
    ASSERT(n == 0);
    /* A failing batch adds nothing: item 1 duplicates owner 0's series. */
    CHECK(tsstore_batch_add_single(b, 999, "PowerLoad", 0, "max_active_power", T0, "PT1H", 0, shape, 1, v, sizeof v,
                                   NULL, NULL, NULL));
    CHECK(tsstore_batch_add_single(b, 0, "PowerLoad", 0, "max_active_power", T0, "PT1H", 0, shape, 1, v, sizeof v,
                                   NULL, NULL, NULL));
    tsstore_keys *none = NULL;
    EXPECT(tsstore_batch_commit(b, &none), TSSTORE_E_DUPLICATE_TIME_SERIES);
    ASSERT(none == NULL);
    tsstore_batch_free(b);
    tsstore_batch_free(b);

    /* Transactions: a rolled-back add is gone, a committed one stays. */
    tsstore_key *tk = NULL;
    int32_t found = 0;
    CHECK(tsstore_begin(s));
    CHECK(tsstore_add_single(s, 500, "X", 0, "t", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &tk));
    CHECK(tsstore_has(s, tk, &found));
    ASSERT(found == 1);
    EXPECT(tsstore_flush(s), TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_rollback(s));
    CHECK(tsstore_has(s, tk, &found));
    ASSERT(found == 0);
    EXPECT(tsstore_commit(s), TSSTORE_E_INVALID_PARAMETER);
    tsstore_key_free(tk);
    CHECK(tsstore_set_write_buffer(s, 1 << 20));
    EXPECT(tsstore_set_write_buffer(s, -1), TSSTORE_E_INVALID_PARAMETER);

    /* Day-ahead views: windows of 24 h every 24 h over LEN hours → 4 windows. */
    int64_t added = 0;
    CHECK(tsstore_transform_single_time_series(s, "P1D", "P1D", TSSTORE_OWNER_COMPONENT, "PT1H", &added));
    ASSERT(added == N);
    CHECK(tsstore_transform_single_time_series(s, "P1D", "P1D", -1, NULL, &added));
    ASSERT(added == 0);
    EXPECT(tsstore_transform_single_time_series(s, "PT90M", "P1D", -1, NULL, &added), TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_flush(s));

    /* Bulk read: every series, in order. */
    tsstore_key *ks[N];
    tsstore_series *rs[N];
    for (size_t i = 0; i < N; i++) CHECK(tsstore_keys_get(keys, i, &ks[i]));
    CHECK(tsstore_get_many(s, (const tsstore_key *const *)ks, N, rs));
    for (int o = 0; o < N; o++) {
        size_t needed = 0;
        CHECK(tsstore_series_data(rs[o], v, sizeof v, &needed));
        ASSERT(v[0] == value(o, 0) && v[LEN - 1] == value(o, LEN - 1));
        tsstore_series_free(rs[o]);
    }

    /* One-at-a-time reads under each read-cache setting (off, a block of columns, the
     * default) equal what was written, twice over (the second read from the cache). */
    int64_t caches[3] = {0, 2 * LEN * 8 * 4, 64 << 20};
    for (int c = 0; c < 3; c++) {
        CHECK(tsstore_set_read_cache(s, caches[c]));
        for (int pass = 0; pass < 2; pass++) {
            for (int o = 0; o < N; o++) {
                tsstore_series *one = NULL;
                size_t needed = 0;
                CHECK(tsstore_get(s, ks[o], &one));
                CHECK(tsstore_series_data(one, v, sizeof v, &needed));
                ASSERT(v[0] == value(o, 0) && v[LEN - 1] == value(o, LEN - 1));
                tsstore_series_free(one);
            }
        }
    }
    EXPECT(tsstore_set_read_cache(s, -1), TSSTORE_E_INVALID_PARAMETER);

    /* StaticReader: every step of every key equals what was written. */
    tsstore_static_reader *sr = NULL;
    CHECK(tsstore_static_reader_new(s, "PT1H", (const tsstore_key *const *)ks, N, &sr));
    int64_t initial = 0, length = 0, idx[N];
    size_t groups = 0, nkeys = 0, ndim = 9, needed = 0;
    int32_t dtype = -1;
    CHECK(tsstore_static_reader_grid(sr, &initial, &length));
    ASSERT(initial == T0 && length == LEN);
    CHECK(tsstore_static_reader_groups(sr, &groups));
    ASSERT(groups == 1);
    CHECK(tsstore_static_reader_group_info(sr, 0, &dtype, &nkeys, NULL, 0, &ndim));
    ASSERT(dtype == TSSTORE_DTYPE_F64 && nkeys == N && ndim == 0);
    CHECK(tsstore_static_reader_group_keys(sr, 0, idx, N, &needed));
    double step[N];
    for (int h = 0; h < LEN; h++) {
        CHECK(tsstore_static_reader_read(sr, T0 + h * HOUR));
        CHECK(tsstore_static_reader_group_values(sr, 0, step, sizeof step, &needed));
        for (int j = 0; j < N; j++) ASSERT(step[j] == value((int)idx[j], h));
    }
    EXPECT(tsstore_static_reader_read(sr, T0 + HOUR / 2), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_static_reader_read_step(sr, LEN), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_static_reader_group_values(sr, 1, step, sizeof step, &needed), TSSTORE_E_INVALID_PARAMETER);
    tsstore_static_reader_free(sr);
    tsstore_static_reader_free(sr);
    EXPECT(tsstore_static_reader_read_step(sr, 0), TSSTORE_E_INVALID_HANDLE);

    /* ForecastReader over the views: window w of key j is hours [24w, 24w + 24). */
    tsstore_key *fk[N];
    for (int o = 0; o < N; o++)
        CHECK(tsstore_key_new(o, 0, TSSTORE_ABSTRACT_DETERMINISTIC, "max_active_power", "PT1H", "P1D", NULL, &fk[o]));
    tsstore_forecast_reader *fr = NULL;
    CHECK(tsstore_forecast_reader_new(s, TSSTORE_ABSTRACT_DETERMINISTIC, "PT1H", (const tsstore_key *const *)fk, N, &fr));
    int64_t count = 0, layers = 0, steps = 0;
    CHECK(tsstore_forecast_reader_grid(fr, &initial, &count));
    ASSERT(initial == T0 && count == LEN / 24);
    CHECK(tsstore_forecast_reader_group_info(fr, 0, &dtype, &nkeys, &layers, &steps, NULL, 0, &ndim));
    ASSERT(nkeys == N && layers == 1 && steps == 24);
    CHECK(tsstore_forecast_reader_group_keys(fr, 0, idx, N, &needed));
    static double win[N * 24];
    for (int w = 0; w < count; w++) {
        CHECK(tsstore_forecast_reader_read(fr, T0 + w * 24 * HOUR));
        CHECK(tsstore_forecast_reader_group_values(fr, 0, win, sizeof win, &needed));
        for (int j = 0; j < N; j++)
            for (int h = 0; h < 24; h++) ASSERT(win[j * 24 + h] == value((int)idx[j], 24 * w + h));
    }
    EXPECT(tsstore_forecast_reader_read(fr, T0 + HOUR), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_forecast_reader_read_window(fr, count), TSSTORE_E_INVALID_PARAMETER);
    tsstore_forecast_reader_free(fr);
    EXPECT(tsstore_forecast_reader_new(s, TSSTORE_SINGLE_TIME_SERIES, "PT1H", (const tsstore_key *const *)fk, N, &fr),
           TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_static_reader_new(s, "PT1H", NULL, 3, &sr), TSSTORE_E_INVALID_PARAMETER);

    for (int o = 0; o < N; o++) {
        tsstore_key_free(ks[o]);
        tsstore_key_free(fk[o]);
    }
    tsstore_keys_free(keys);
    CHECK(tsstore_close(s));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_bulk: ok\n");
    return 0;
}
