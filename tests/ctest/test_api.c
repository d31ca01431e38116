/* Behaviour through the C API: every function of the header on a real store, through a close
 * and a read-only reopen, checked value by value. */
#include <math.h>
#include "check.h"

#define T0 1704067200000LL /* 2024-01-01T00:00:00Z */
#define HOUR 3600000LL

static void test_versions(void) {
    ASSERT(tsstore_version() == TSSTORE_VERSION_NUMBER);
    ASSERT(strcmp(tsstore_status_name(TSSTORE_E_NOT_FOUND), "TSSTORE_E_NOT_FOUND") == 0);
    ASSERT(strcmp(tsstore_status_name(TSSTORE_E_INVALID_HANDLE), "TSSTORE_E_INVALID_HANDLE") == 0);
    ASSERT(strcmp(tsstore_status_name(999), "unknown status") == 0);
    ASSERT(strcmp(tsstore_status_name(-1), "unknown status") == 0);
}

static tsstore_key *add_hourly(tsstore_store *s, int64_t owner, const char *name, double offset, int n,
                               const char *features) {
    double v[256];
    int64_t shape[1] = {n};
    for (int i = 0; i < n; i++) v[i] = i + offset;
    tsstore_key *k = NULL;
    CHECK(tsstore_add_single(s, owner, "ThermalStandard", TSSTORE_OWNER_COMPONENT, name, T0, "PT1H",
                             TSSTORE_DTYPE_F64, shape, 1, v, (size_t)n * sizeof(double), features, "MW", NULL, &k));
    return k;
}

static void check_hourly(tsstore_store *s, tsstore_key *k, double offset, int n) {
    tsstore_series *r = NULL;
    CHECK(tsstore_get(s, k, &r));
    int32_t type = -1, dtype = -1;
    size_t ndim = 0, needed = 0;
    int64_t initial = 0, count = -1, shape[4];
    CHECK(tsstore_series_info(r, &type, &dtype, &ndim, &initial, &count));
    ASSERT(type == TSSTORE_SINGLE_TIME_SERIES && dtype == TSSTORE_DTYPE_F64 && ndim == 1 && initial == T0 && count == 0);
    CHECK(tsstore_series_shape(r, shape, 4, &ndim));
    ASSERT(ndim == 1 && shape[0] == n);
    double v[256];
    CHECK(tsstore_series_data(r, v, sizeof v, &needed));
    ASSERT(needed == (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) ASSERT(v[i] == i + offset);
    char res[16];
    CHECK(tsstore_series_resolution(r, res, sizeof res, &needed));
    ASSERT(strcmp(res, "PT1H") == 0 && needed == 5);
    tsstore_series_free(r);
}

/* Static series of two dtypes and shapes, an irregular series, ranges, keys and lists. */
static void test_static(tsstore_store *s) {
    tsstore_key *k = add_hourly(s, 1, "max_active_power", 0.5, 48, "{\"scenario\": \"high\", \"model_year\": 2030}");
    check_hourly(s, k, 0.5, 48);

    /* A [3]-per-step i64 cost curve: shape [24, 3]. */
    int64_t cost[72], shape[2] = {24, 3};
    for (int i = 0; i < 72; i++) cost[i] = (int64_t)i * 1000000007LL - (1LL << 40);
    tsstore_key *ck = NULL;
    CHECK(tsstore_add_single(s, 20, "ThermalStandard", TSSTORE_OWNER_COMPONENT, "variable_cost", T0, "P1D",
                             TSSTORE_DTYPE_I64, shape, 2, cost, sizeof cost, NULL, NULL,
                             "{\"function_type\":\"QuadraticFunctionData\"}", &ck));
    tsstore_series *r = NULL;
    int64_t got[72];
    size_t needed = 0, ndim = 0;
    CHECK(tsstore_get(s, ck, &r));
    CHECK(tsstore_series_data(r, got, sizeof got, &needed));
    ASSERT(memcmp(got, cost, sizeof cost) == 0);
    CHECK(tsstore_series_shape(r, shape, 2, &ndim));
    ASSERT(ndim == 2 && shape[0] == 24 && shape[1] == 3);
    tsstore_series_free(r);

    /* Range: floor(start), ceil(end), inclusive. */
    CHECK(tsstore_get_range(s, k, T0 + 2 * HOUR + 1, T0 + 4 * HOUR + 1, &r));
    int64_t initial = 0;
    double v[8];
    CHECK(tsstore_series_info(r, NULL, NULL, NULL, &initial, NULL));
    CHECK(tsstore_series_data(r, v, sizeof v, &needed));
    ASSERT(initial == T0 + 2 * HOUR && needed == 4 * sizeof(double) && v[0] == 2.5 && v[3] == 5.5);
    tsstore_series_free(r);

    /* Irregular series: its timestamps come back. */
    int64_t stamps[3] = {T0, T0 + 7 * HOUR + 1234, T0 + 30 * HOUR};
    double outage[3] = {1, 0.5, NAN};
    int64_t oshape[1] = {3};
    tsstore_key *ok = NULL;
    CHECK(tsstore_add_nonsequential(s, 30, "Line", TSSTORE_OWNER_COMPONENT, "outage", stamps, 3, TSSTORE_DTYPE_F64,
                                    oshape, 1, outage, sizeof outage, NULL, NULL, NULL, &ok));
    CHECK(tsstore_get(s, ok, &r));
    int64_t gs[3];
    CHECK(tsstore_series_timestamps(r, gs, 3, &needed));
    ASSERT(needed == 3 && gs[1] == T0 + 7 * HOUR + 1234);
    CHECK(tsstore_series_data(r, v, sizeof v, &needed));
    ASSERT(v[1] == 0.5 && isnan(v[2]));
    tsstore_series_free(r);

    /* Key parts and the has / list / remove round trip. */
    char buf[128];
    int64_t owner = 0;
    int32_t cat = -1, type = -1, found = 0;
    CHECK(tsstore_key_owner(k, &owner, &cat));
    CHECK(tsstore_key_series_type(k, &type));
    ASSERT(owner == 1 && cat == TSSTORE_OWNER_COMPONENT && type == TSSTORE_SINGLE_TIME_SERIES);
    CHECK(tsstore_key_features(k, buf, sizeof buf, &needed));
    ASSERT(strstr(buf, "\"model_year\":2030") != NULL && strstr(buf, "\"scenario\":\"high\"") != NULL);
    CHECK(tsstore_key_interval(k, buf, sizeof buf, &needed));
    ASSERT(buf[0] == 0 && needed == 1);
    CHECK(tsstore_has(s, k, &found));
    ASSERT(found == 1);

    tsstore_keys *keys = NULL;
    size_t n = 0;
    CHECK(tsstore_list_keys(s, 0, 0, -1, TSSTORE_SINGLE_TIME_SERIES, NULL, NULL, "{\"scenario\": \"high\"}", &keys));
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == 1);
    tsstore_key *first = NULL;
    CHECK(tsstore_keys_get(keys, 0, &first));
    CHECK(tsstore_key_name(first, buf, sizeof buf, &needed));
    ASSERT(strcmp(buf, "max_active_power") == 0);
    tsstore_key_free(first);
    tsstore_keys_free(keys);

    tsstore_key *tmp = add_hourly(s, 9, "tmp", 0, 4, NULL);
    CHECK(tsstore_remove(s, tmp));
    CHECK(tsstore_has(s, tmp, &found));
    ASSERT(found == 0);
    EXPECT(tsstore_remove(s, tmp), TSSTORE_E_NOT_FOUND);
    EXPECT(tsstore_get(s, tmp, &r), TSSTORE_E_NOT_FOUND);
    ASSERT(r == NULL);
    tsstore_key_free(tmp);
    tsstore_key_free(k);
    tsstore_key_free(ck);
    tsstore_key_free(ok);
}

/* The three dense forecasts: whole reads, window reads, their periods and percentiles. */
static void test_forecasts(tsstore_store *s) {
    enum { H = 4, COUNT = 5, P = 3 };
    double det[H * COUNT], prob[P * H * COUNT];
    for (int i = 0; i < H * COUNT; i++) det[i] = i;
    for (int i = 0; i < P * H * COUNT; i++) prob[i] = 1000 + i;
    int64_t dshape[2] = {H, COUNT}, pshape[3] = {P, H, COUNT};
    double pct[P] = {0.1, 0.5, 0.9};
    tsstore_key *dk = NULL, *pk = NULL, *sk = NULL;
    CHECK(tsstore_add_forecast(s, 40, "RenewableDispatch", TSSTORE_OWNER_COMPONENT, "max_active_power",
                               TSSTORE_DETERMINISTIC, T0, "PT1H", "PT4H", "PT2H", COUNT, NULL, 0, TSSTORE_DTYPE_F64,
                               dshape, 2, det, sizeof det, NULL, NULL, NULL, &dk));
    CHECK(tsstore_add_forecast(s, 41, "RenewableDispatch", TSSTORE_OWNER_COMPONENT, "max_active_power",
                               TSSTORE_PROBABILISTIC, T0, "PT1H", "PT4H", "PT2H", COUNT, pct, P, TSSTORE_DTYPE_F64,
                               pshape, 3, prob, sizeof prob, NULL, NULL, NULL, &pk));
    CHECK(tsstore_add_forecast(s, 42, "RenewableDispatch", TSSTORE_OWNER_COMPONENT, "max_active_power",
                               TSSTORE_SCENARIOS, T0, "PT1H", "PT4H", "PT2H", COUNT, NULL, 0, TSSTORE_DTYPE_F64,
                               pshape, 3, prob, sizeof prob, NULL, NULL, NULL, &sk));

    tsstore_series *r = NULL;
    int32_t type = -1;
    int64_t initial = 0, count = 0, shape[3];
    size_t ndim = 0, needed = 0;
    double v[P * H * COUNT];
    char buf[16];

    /* Windows 1–2 of the Deterministic: [H, 2], window j = det[h*COUNT + 1 + j]. */
    CHECK(tsstore_get_windows(s, dk, T0 + 2 * HOUR, T0 + 4 * HOUR, &r));
    CHECK(tsstore_series_info(r, &type, NULL, &ndim, &initial, &count));
    ASSERT(type == TSSTORE_DETERMINISTIC && ndim == 2 && initial == T0 + 2 * HOUR && count == 2);
    CHECK(tsstore_series_data(r, v, sizeof v, &needed));
    ASSERT(needed == H * 2 * sizeof(double));
    for (int h = 0; h < H; h++)
        for (int j = 0; j < 2; j++) ASSERT(v[h * 2 + j] == det[h * COUNT + 1 + j]);
    CHECK(tsstore_series_horizon(r, buf, sizeof buf, &needed));
    ASSERT(strcmp(buf, "PT4H") == 0);
    CHECK(tsstore_series_interval(r, buf, sizeof buf, &needed));
    ASSERT(strcmp(buf, "PT2H") == 0);
    tsstore_series_free(r);
    EXPECT(tsstore_get_windows(s, dk, T0 + HOUR, T0 + HOUR, &r), TSSTORE_E_INVALID_PARAMETER); /* off the grid */
    EXPECT(tsstore_get_range(s, dk, T0, T0 + HOUR, &r), TSSTORE_E_INVALID_PARAMETER);          /* not static */

    CHECK(tsstore_get(s, pk, &r));
    CHECK(tsstore_series_shape(r, shape, 3, &ndim));
    ASSERT(ndim == 3 && shape[0] == P && shape[1] == H && shape[2] == COUNT);
    double gp[P];
    CHECK(tsstore_series_percentiles(r, gp, P, &needed));
    ASSERT(needed == P && gp[0] == 0.1 && gp[2] == 0.9);
    CHECK(tsstore_series_data(r, v, sizeof v, &needed));
    ASSERT(memcmp(v, prob, sizeof prob) == 0);
    tsstore_series_free(r);

    /* The abstract deterministic request finds the Deterministic. */
    tsstore_key *ak = NULL;
    int32_t found = 0;
    CHECK(tsstore_key_new(40, TSSTORE_OWNER_COMPONENT, TSSTORE_ABSTRACT_DETERMINISTIC, "max_active_power", "PT1H",
                          "PT2H", NULL, &ak));
    CHECK(tsstore_has(s, ak, &found));
    ASSERT(found == 1);
    tsstore_key_free(ak);
    tsstore_key_free(dk);
    tsstore_key_free(pk);
    tsstore_key_free(sk);
}

/* Buffers: a size query first, then too small, then exact. */
static void test_buffers(tsstore_store *s) {
    tsstore_key *k = add_hourly(s, 77, "buffers", 1, 8, NULL);
    tsstore_series *r = NULL;
    size_t needed = 0, ndim = 0;
    CHECK(tsstore_get(s, k, &r));
    CHECK(tsstore_series_data(r, NULL, 0, &needed));
    ASSERT(needed == 64);
    double small[4];
    EXPECT(tsstore_series_data(r, small, sizeof small, &needed), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(needed == 64);
    int64_t shape[1];
    EXPECT(tsstore_series_shape(r, NULL, 0, &ndim), TSSTORE_OK); /* a rank query */
    ASSERT(ndim == 1);
    EXPECT(tsstore_series_shape(r, shape, 0, &ndim), TSSTORE_E_BUFFER_TOO_SMALL);
    char name[4];
    EXPECT(tsstore_key_name(k, name, sizeof name, &needed), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(needed == strlen("buffers") + 1);
    /* The message of a failure stays readable, and a size query reports its length. */
    size_t mlen = 0;
    CHECK(tsstore_last_error(NULL, 0, &mlen));
    ASSERT(mlen > 10);
    tsstore_series_free(r);
    tsstore_key_free(k);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024];
    store_path(path, sizeof path, dir, "api");
    test_versions();

    tsstore_store *s = NULL;
    CHECK(tsstore_create(path, "deflate:5:noshuffle", &s));
    test_static(s);
    test_forecasts(s);
    test_buffers(s);
    CHECK(tsstore_flush(s));
    CHECK(tsstore_close(s));
    CHECK(tsstore_close(s)); /* closing a closed store is harmless */

    /* Read-only reopen: everything reads, nothing writes. */
    CHECK(tsstore_open(path, 1, &s));
    tsstore_keys *keys = NULL;
    size_t n = 0;
    CHECK(tsstore_list_keys(s, 0, 0, -1, -1, NULL, NULL, NULL, &keys));
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == 7);
    tsstore_keys_free(keys);
    tsstore_key *k = NULL;
    CHECK(tsstore_key_new(1, TSSTORE_OWNER_COMPONENT, TSSTORE_SINGLE_TIME_SERIES, "max_active_power", "PT1H", NULL,
                          "{\"model_year\": 2030, \"scenario\": \"high\"}", &k));
    check_hourly(s, k, 0.5, 48);
    double v[1] = {1};
    int64_t shape[1] = {1};
    EXPECT(tsstore_add_single(s, 5, "G", 0, "x", T0, "PT1H", TSSTORE_DTYPE_F64, shape, 1, v, sizeof v, NULL, NULL, NULL,
                              NULL),
           TSSTORE_E_READ_ONLY);
    char msg[256];
    size_t needed = 0;
    CHECK(tsstore_store_last_error(s, msg, sizeof msg, &needed));
    ASSERT(strstr(msg, "read-only") != NULL);
    CHECK(tsstore_store_recovered(s, msg, sizeof msg, &needed)); /* nothing to roll back */
    ASSERT(msg[0] == '\0' && needed == 1);
    EXPECT(tsstore_remove(s, k), TSSTORE_E_READ_ONLY);
    tsstore_key_free(k);
    CHECK(tsstore_close(s));

    /* An in-memory store persisted to disk reads back. */
    char mem_path[1024];
    store_path(mem_path, sizeof mem_path, dir, "persisted");
    CHECK(tsstore_open_in_memory(NULL, &s));
    k = add_hourly(s, 3, "p", 7, 24, NULL);
    CHECK(tsstore_persist(s, mem_path));
    CHECK(tsstore_close(s));
    CHECK(tsstore_open(mem_path, 1, &s));
    check_hourly(s, k, 7, 24);
    tsstore_key_free(k);
    CHECK(tsstore_close(s));

    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_api: ok\n");
    return 0;
}
