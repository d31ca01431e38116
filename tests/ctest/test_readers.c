/* The readers' bound buffers: each read writes every bound group's values into its buffer
 * and nothing else; a group never bound, or unbound, is not written; a bind too small is
 * refused and the earlier binding stays; a rebind moves the writes; a larger buffer is
 * written only as far as the group's nbytes. The StaticReader's groups split by dtype and
 * element shape; a ForecastReader's window is [steps] or, with layers, [layers, steps]. */
#include "check.h"

#define LEN 12
#define SENTINEL 0x5A

static int untouched(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != SENTINEL) return 0;
    return 1;
}

static double fval(int owner, int h) { return owner * 100.0 + h; }

/* Which group holds dtype with element rank ndim. */
static size_t group_of(const tsstore_static_reader *sr, int n_groups, int32_t dtype, int32_t ndim) {
    for (int g = 0; g < n_groups; g++) {
        tsstore_group_info gi = TSSTORE_GROUP_INFO_INIT;
        CHECK(tsstore_static_reader_group(sr, (size_t)g, &gi));
        if (gi.dtype == dtype && gi.element_ndim == ndim) return (size_t)g;
    }
    fprintf(stderr, "no group of dtype %d and rank %d\n", dtype, ndim);
    exit(1);
}

static void test_static(tsstore_store *s) {
    /* Owners 0-2: f64 scalars; 3-4: i64 scalars; 5: f64 with element shape [3]. */
    tsstore_lookup which[6];
    for (int o = 0; o < 6; o++) {
        double f[LEN * 3];
        int64_t i64[LEN], shape[2] = {LEN, 3};
        tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
        d.owner_id = o, d.owner_type = "G", d.name = "x", d.initial_ms = T0, d.resolution = millis(HOUR);
        d.shape = shape, d.ndim = o == 5 ? 2 : 1;
        for (int h = 0; h < LEN * 3; h++) f[h] = fval(o, h);
        for (int h = 0; h < LEN; h++) i64[h] = 1000 * o + h;
        d.dtype = o == 3 || o == 4 ? TSSTORE_DTYPE_I64 : TSSTORE_DTYPE_F64;
        d.data = d.dtype == TSSTORE_DTYPE_I64 ? (const void *)i64 : (const void *)f;
        d.nbytes = (o == 5 ? 3 : 1) * LEN * 8;
        CHECK(tsstore_add(s, &d, NULL));
        which[o] = lookup_of(o, "x");
    }
    tsstore_static_reader *sr = NULL;
    tsstore_period hour = millis(HOUR);
    CHECK(tsstore_static_reader_new(s, &hour, which, 6, &sr));
    tsstore_reader_info ri = TSSTORE_READER_INFO_INIT;
    CHECK(tsstore_static_reader_info(sr, &ri));
    ASSERT(ri.n_groups == 3 && ri.steps == LEN);
    size_t gf = group_of(sr, ri.n_groups, TSSTORE_DTYPE_F64, 0), gi64 = group_of(sr, ri.n_groups, TSSTORE_DTYPE_I64, 0),
           gv = group_of(sr, ri.n_groups, TSSTORE_DTYPE_F64, 1);
    tsstore_group_info info = TSSTORE_GROUP_INFO_INIT;
    CHECK(tsstore_static_reader_group(sr, gv, &info));
    ASSERT(info.n_keys == 1 && info.element_shape[0] == 3 && info.nbytes == 3 * 8);
    CHECK(tsstore_static_reader_group(sr, gf, &info));
    ASSERT(info.n_keys == 3 && info.nbytes == 3 * 8);
    int64_t fkeys[3], vkeys[1], ikeys[2];
    size_t n = 0;
    CHECK(tsstore_static_reader_group_keys(sr, gf, fkeys, 3, &n));
    ASSERT(n == 3);
    CHECK(tsstore_static_reader_group_keys(sr, gv, vkeys, 1, &n));
    ASSERT(n == 1 && vkeys[0] == 5);
    CHECK(tsstore_static_reader_group_keys(sr, gi64, ikeys, 2, &n));

    /* Nothing bound: a read succeeds and writes nowhere. */
    CHECK(tsstore_static_reader_read_step(sr, 0));

    /* The f64 group bound with room to spare, the vector group exactly, the i64 group not. */
    double fbuf[3 + 2], vbuf[3];
    int64_t ibuf[2];
    memset(fbuf, SENTINEL, sizeof fbuf);
    memset(ibuf, SENTINEL, sizeof ibuf);
    CHECK(tsstore_static_reader_bind(sr, gf, fbuf, sizeof fbuf));
    CHECK(tsstore_static_reader_bind(sr, gv, vbuf, sizeof vbuf));
    for (int h = 0; h < LEN; h++) {
        CHECK(tsstore_static_reader_read_step(sr, h));
        for (int j = 0; j < 3; j++) ASSERT(fbuf[j] == fval((int)fkeys[j], h));
        for (int e = 0; e < 3; e++) ASSERT(vbuf[e] == fval(5, 3 * h + e));
        ASSERT(untouched(fbuf + 3, 2 * sizeof(double)) && untouched(ibuf, sizeof ibuf));
    }

    /* Too small: refused, and the earlier binding still receives the reads. */
    int64_t tiny[1];
    EXPECT(tsstore_static_reader_bind(sr, gi64, tiny, sizeof tiny), TSSTORE_E_BUFFER_TOO_SMALL);
    EXPECT(tsstore_static_reader_bind(sr, gf, fbuf, 3 * sizeof(double) - 1), TSSTORE_E_BUFFER_TOO_SMALL);
    CHECK(tsstore_static_reader_read_at(sr, T0 + 4 * HOUR));
    ASSERT(fbuf[0] == fval((int)fkeys[0], 4) && untouched(ibuf, sizeof ibuf));

    /* Now bound, the i64 group receives its values; a rebind moves the f64 writes. */
    CHECK(tsstore_static_reader_bind(sr, gi64, ibuf, sizeof ibuf));
    double moved[3];
    memset(fbuf, SENTINEL, sizeof fbuf);
    CHECK(tsstore_static_reader_bind(sr, gf, moved, sizeof moved));
    CHECK(tsstore_static_reader_read_step(sr, 7));
    for (int j = 0; j < 2; j++) ASSERT(ibuf[j] == 1000 * ikeys[j] + 7);
    for (int j = 0; j < 3; j++) ASSERT(moved[j] == fval((int)fkeys[j], 7));
    ASSERT(untouched(fbuf, sizeof fbuf));

    /* Unbound: no longer written. */
    CHECK(tsstore_static_reader_bind(sr, gv, NULL, 0));
    memset(vbuf, SENTINEL, sizeof vbuf);
    CHECK(tsstore_static_reader_read_step(sr, 8));
    ASSERT(untouched(vbuf, sizeof vbuf) && moved[0] == fval((int)fkeys[0], 8));
    /* A failed read writes nothing. */
    memset(moved, SENTINEL, sizeof moved);
    EXPECT(tsstore_static_reader_read_step(sr, LEN), TSSTORE_E_INVALID_PARAMETER);
    ASSERT(untouched(moved, sizeof moved));
    tsstore_static_reader_free(sr);
}

/* ForecastReaders: of a Deterministic, and of a Probabilistic (layers). */
static void test_forecast(tsstore_store *s) {
    enum { H = 3, COUNT = 4, P = 2 };
    double det[H * COUNT], prob[P * H * COUNT], pct[P] = {0.2, 0.8};
    for (int i = 0; i < H * COUNT; i++) det[i] = i;
    for (int i = 0; i < P * H * COUNT; i++) prob[i] = 500 + i;
    int64_t dshape[2] = {H, COUNT}, pshape[3] = {P, H, COUNT};
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.series_type = TSSTORE_DETERMINISTIC;
    d.owner_id = 20, d.owner_type = "Wind", d.name = "f", d.initial_ms = T0;
    d.resolution = millis(HOUR), d.horizon = millis(H * HOUR), d.interval = millis(HOUR), d.count = COUNT;
    d.shape = dshape, d.ndim = 2, d.data = det, d.nbytes = sizeof det;
    CHECK(tsstore_add(s, &d, NULL));
    d.series_type = TSSTORE_PROBABILISTIC, d.owner_id = 21, d.percentiles = pct, d.n_percentiles = P;
    d.shape = pshape, d.ndim = 3, d.data = prob, d.nbytes = sizeof prob;
    CHECK(tsstore_add(s, &d, NULL));

    /* One type per reader: the Deterministic alone, bound; then the Probabilistic. */
    tsstore_lookup q = lookup_of(20, "f");
    q.series_type = TSSTORE_DETERMINISTIC;
    tsstore_period hour = millis(HOUR);
    tsstore_forecast_reader *fr = NULL;
    CHECK(tsstore_forecast_reader_new(s, TSSTORE_DETERMINISTIC, &hour, &q, 1, &fr));
    double win[H + 1];
    memset(win, SENTINEL, sizeof win);
    EXPECT(tsstore_forecast_reader_bind(fr, 0, win, H * sizeof(double) - 1), TSSTORE_E_BUFFER_TOO_SMALL);
    CHECK(tsstore_forecast_reader_read_window(fr, 0));
    ASSERT(untouched(win, sizeof win));
    CHECK(tsstore_forecast_reader_bind(fr, 0, win, sizeof win));
    for (int w = 0; w < COUNT; w++) {
        CHECK(tsstore_forecast_reader_read_window(fr, w));
        for (int h = 0; h < H; h++) ASSERT(win[h] == det[h * COUNT + w]);
        ASSERT(untouched(win + H, sizeof(double)));
    }
    CHECK(tsstore_forecast_reader_bind(fr, 0, NULL, 0));
    memset(win, SENTINEL, sizeof win);
    CHECK(tsstore_forecast_reader_read_window(fr, 1));
    ASSERT(untouched(win, sizeof win));
    tsstore_forecast_reader_free(fr);

    q = lookup_of(21, "f");
    q.series_type = TSSTORE_PROBABILISTIC;
    CHECK(tsstore_forecast_reader_new(s, TSSTORE_PROBABILISTIC, &hour, &q, 1, &fr));
    tsstore_group_info gi = TSSTORE_GROUP_INFO_INIT;
    CHECK(tsstore_forecast_reader_group(fr, 0, &gi));
    ASSERT(gi.layers == P && gi.steps == H && gi.n_keys == 1 && gi.nbytes == P * H * sizeof(double));
    double layers[P * H];
    CHECK(tsstore_forecast_reader_bind(fr, 0, layers, sizeof layers));
    CHECK(tsstore_forecast_reader_read_at(fr, T0 + 2 * HOUR));
    for (int p = 0; p < P; p++)
        for (int h = 0; h < H; h++) ASSERT(layers[p * H + h] == prob[(p * H + h) * COUNT + 2]);
    tsstore_forecast_reader_free(fr);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    tsstore_store *s = fresh_store(dir, "readers", NULL);
    test_static(s);
    test_forecast(s);
    CHECK(tsstore_close(s));
    return finish("test_readers");
}
