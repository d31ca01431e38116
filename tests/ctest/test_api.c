/* Behaviour through the C API: every dtype and shape, every series type, ranges, windows and
 * timestamps, keys and listings, on a real store, through a close and a read-only reopen, and an
 * in-memory store persisted; checked value by value. */
#include <math.h>
#include "check.h"

static void test_versions(void) {
    ASSERT(tsstore_version() == TSSTORE_VERSION_NUMBER);
    ASSERT(TSSTORE_VERSION_NUMBER ==
           TSSTORE_VERSION_MAJOR * 10000 + TSSTORE_VERSION_MINOR * 100 + TSSTORE_VERSION_PATCH);
    /* Every status the header defines is named as its macro is spelled. */
#define NAMED_AS_SPELLED(s) ASSERT(strcmp(tsstore_status_name(s), #s) == 0)
    NAMED_AS_SPELLED(TSSTORE_OK);
    NAMED_AS_SPELLED(TSSTORE_E_INVALID_PARAMETER);
    NAMED_AS_SPELLED(TSSTORE_E_NOT_FOUND);
    NAMED_AS_SPELLED(TSSTORE_E_DUPLICATE_TIME_SERIES);
    NAMED_AS_SPELLED(TSSTORE_E_DUPLICATE_ASSOCIATION);
    NAMED_AS_SPELLED(TSSTORE_E_INTEGRITY);
    NAMED_AS_SPELLED(TSSTORE_E_READ_ONLY);
    NAMED_AS_SPELLED(TSSTORE_E_IO);
    NAMED_AS_SPELLED(TSSTORE_E_INCOMPATIBLE_FORMAT);
    NAMED_AS_SPELLED(TSSTORE_E_INTERNAL);
    NAMED_AS_SPELLED(TSSTORE_E_BUFFER_TOO_SMALL);
    NAMED_AS_SPELLED(TSSTORE_E_INVALID_HANDLE);
#undef NAMED_AS_SPELLED
    ASSERT(strcmp(tsstore_status_name(999), "unknown status") == 0);
    ASSERT(strcmp(tsstore_status_name(-1), "unknown status") == 0);
}

static void add_values(tsstore_store *s, int64_t owner, const char *name, double offset, int n, const char *features) {
    double v[256];
    for (int i = 0; i < n; i++) v[i] = i + offset;
    CHECK(add_hourly(s, owner, "ThermalStandard", name, v, n, features, "MW"));
}

/* The series q names is the hourly series add_values wrote: its description, then its values. */
static void check_hourly(tsstore_store *s, const tsstore_lookup *q, double offset, int n) {
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    CHECK(tsstore_get_info(s, q, &info));
    ASSERT(info.key.series_type == TSSTORE_SINGLE_TIME_SERIES && info.dtype == TSSTORE_DTYPE_F64);
    ASSERT(info.ndim == 1 && info.shape[0] == n && info.nbytes == (uint64_t)n * sizeof(double));
    ASSERT(info.initial_ms == T0 && info.length == n && info.count == 0 && info.n_layers == 0);
    ASSERT(same_period(info.key.resolution, millis(HOUR)) && info.key.interval.unit == TSSTORE_PERIOD_NONE);
    ASSERT(info.horizon.unit == TSSTORE_PERIOD_NONE);
    ASSERT(strcmp(info.units, "MW") == 0 && strcmp(info.owner_type, "ThermalStandard") == 0);
    ASSERT(formats_as(info.key.resolution, "PT1H"));
    double v[256];
    CHECK(tsstore_get(s, q, v, (size_t)n * sizeof(double), &info));
    for (int i = 0; i < n; i++) ASSERT(v[i] == i + offset);
}

/* Values of every kind a dtype holds: bytes of all values, 0 and 1 for bool, a NaN and an
 * infinity among the floats. */
static void fill(unsigned char *data, int32_t dtype, size_t nbytes, size_t elements) {
    for (size_t i = 0; i < nbytes; i++) data[i] = (unsigned char)(i * 37 + (size_t)dtype);
    if (dtype == TSSTORE_DTYPE_BOOL)
        for (size_t i = 0; i < nbytes; i++) data[i] = (unsigned char)(i % 3 == 0);
    if (dtype == TSSTORE_DTYPE_F64)
        for (size_t i = 0; i < elements; i++) ((double *)(void *)data)[i] = i == 4 ? NAN : -1.5 * (double)i;
    if (dtype == TSSTORE_DTYPE_F32)
        for (size_t i = 0; i < elements; i++) ((float *)(void *)data)[i] = i == 4 ? INFINITY : 0.25f * (float)i;
}

/* Every dtype, as a scalar series [6] and with an element shape [6, 2, 3]: the bytes read
 * back are the bytes written, and the description says the dtype and shape. */
static int test_dtypes(tsstore_store *s) {
    static const int32_t dtypes[6] = {TSSTORE_DTYPE_F64, TSSTORE_DTYPE_F32, TSSTORE_DTYPE_I64,
                                      TSSTORE_DTYPE_I32, TSSTORE_DTYPE_U64, TSSTORE_DTYPE_BOOL};
    static const size_t widths[6] = {8, 4, 8, 4, 8, 1};
    int added = 0;
    for (int d = 0; d < 6; d++) {
        for (int shaped = 0; shaped < 2; shaped++) {
            int64_t shape[3] = {6, 2, 3};
            size_t ndim = shaped ? 3 : 1, elements = shaped ? 36 : 6, nbytes = elements * widths[d];
            _Alignas(8) unsigned char data[36 * 8];
            _Alignas(8) unsigned char back[36 * 8 + 8];
            fill(data, dtypes[d], nbytes, elements);
            char name[32];
            snprintf(name, sizeof name, "dtype_%d_%s", (int)dtypes[d], shaped ? "shaped" : "scalar");
            tsstore_series_desc desc = TSSTORE_SERIES_DESC_INIT;
            desc.owner_id = 60;
            desc.owner_type = "Storage";
            desc.name = name;
            desc.initial_ms = T0;
            desc.resolution = millis(15 * 60000);
            desc.dtype = dtypes[d];
            desc.shape = shape;
            desc.ndim = ndim;
            desc.data = data;
            desc.nbytes = nbytes;
            CHECK(tsstore_add(s, &desc, NULL));
            added++;
            memset(data, 0xEE, sizeof data); /* the add copied the array */

            tsstore_lookup q = lookup_of(60, name);
            tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
            memset(back, 0xAB, sizeof back);
            CHECK(tsstore_get(s, &q, back, sizeof back, &info));
            ASSERT(info.dtype == dtypes[d] && info.ndim == (int32_t)ndim && info.nbytes == nbytes);
            ASSERT(info.shape[0] == 6 && (!shaped || (info.shape[1] == 2 && info.shape[2] == 3)));
            fill(data, dtypes[d], nbytes, elements);
            ASSERT(memcmp(back, data, nbytes) == 0);
            ASSERT(back[nbytes] == 0xAB); /* nothing past the array */
        }
    }
    return added;
}

/* Static series: features, element shapes, an irregular series, ranges, keys and lists. */
static void test_static(tsstore_store *s) {
    add_values(s, 1, "max_active_power", 0.5, 48, "{\"scenario\": \"high\", \"model_year\": 2030}");
    tsstore_lookup k = lookup_of(1, "max_active_power");
    check_hourly(s, &k, 0.5, 48);

    /* A [3]-per-step i64 cost curve: shape [24, 3], daily, with ext. */
    int64_t cost[72], got[72], shape[2] = {24, 3};
    for (int i = 0; i < 72; i++) cost[i] = (int64_t)i * 1000000007LL - (1LL << 40);
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.owner_id = 20;
    d.owner_type = "ThermalStandard";
    d.name = "variable_cost";
    d.initial_ms = T0;
    d.resolution = millis(24 * HOUR);
    d.dtype = TSSTORE_DTYPE_I64;
    d.shape = shape;
    d.ndim = 2;
    d.data = cost;
    d.nbytes = sizeof cost;
    d.ext = "{\"function_type\":\"QuadraticFunctionData\"}";
    CHECK(tsstore_add(s, &d, NULL));
    tsstore_lookup ck = lookup_of(20, "variable_cost");
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    CHECK(tsstore_get(s, &ck, got, sizeof got, &info));
    ASSERT(memcmp(got, cost, sizeof cost) == 0);
    ASSERT(info.ndim == 2 && info.shape[0] == 24 && info.shape[1] == 3 && info.length == 24);
    ASSERT(strcmp(info.ext, "{\"function_type\":\"QuadraticFunctionData\"}") == 0 && strcmp(info.units, "") == 0);
    ASSERT(formats_as(info.key.resolution, "P1D"));

    /* Range: floor(start), ceil(end), inclusive; info describes the part read. */
    double v[8];
    CHECK(tsstore_get_range(s, &k, T0 + 2 * HOUR + 1, T0 + 4 * HOUR + 1, v, sizeof v, &info));
    ASSERT(info.initial_ms == T0 + 2 * HOUR && info.nbytes == 4 * sizeof(double) && info.shape[0] == 4);
    ASSERT(info.length == 48); /* the stored series' length */
    ASSERT(v[0] == 2.5 && v[3] == 5.5);
    int64_t stamps_back[8];
    size_t n = 0;
    CHECK(tsstore_get_timestamps(s, &k, T0 + 2 * HOUR + 1, T0 + 4 * HOUR + 1, stamps_back, 8, &n));
    ASSERT(n == 4 && stamps_back[0] == T0 + 2 * HOUR && stamps_back[3] == T0 + 5 * HOUR);
    /* Clamped to the series. */
    CHECK(tsstore_get_range(s, &k, T0 - 100 * HOUR, T0 + HOUR, v, sizeof v, &info));
    ASSERT(info.initial_ms == T0 && info.shape[0] == 2 && v[1] == 1.5);

    /* An irregular series: its timestamps come back, and its values with a NaN. */
    int64_t stamps[3] = {T0, T0 + 7 * HOUR + 1234, T0 + 30 * HOUR}, oshape[1] = {3};
    double outage[3] = {1, 0.5, NAN};
    tsstore_series_desc o = TSSTORE_SERIES_DESC_INIT;
    o.series_type = TSSTORE_NON_SEQUENTIAL_TIME_SERIES;
    o.owner_id = 30;
    o.owner_type = "Line";
    o.name = "outage";
    o.timestamps_ms = stamps;
    o.shape = oshape;
    o.ndim = 1;
    o.data = outage;
    o.nbytes = sizeof outage;
    CHECK(tsstore_add(s, &o, NULL));
    tsstore_lookup ok = lookup_of(30, "outage");
    ok.series_type = TSSTORE_NON_SEQUENTIAL_TIME_SERIES;
    int64_t gs[3];
    CHECK(tsstore_get_timestamps(s, &ok, INT64_MIN, INT64_MAX, gs, 3, &n));
    ASSERT(n == 3 && gs[0] == T0 && gs[1] == T0 + 7 * HOUR + 1234 && gs[2] == T0 + 30 * HOUR);
    CHECK(tsstore_get(s, &ok, v, sizeof v, &info));
    ASSERT(v[0] == 1 && v[1] == 0.5 && isnan(v[2]));
    ASSERT(info.key.series_type == TSSTORE_NON_SEQUENTIAL_TIME_SERIES && info.initial_ms == T0 && info.length == 3);
    ASSERT(info.key.resolution.unit == TSSTORE_PERIOD_NONE);
    /* [start, end): the stamp at end is not read. */
    CHECK(tsstore_get_range(s, &ok, T0 + 1, T0 + 30 * HOUR, v, sizeof v, &info));
    ASSERT(info.shape[0] == 1 && v[0] == 0.5 && info.initial_ms == T0 + 7 * HOUR + 1234);

    /* The key in a description: its parts, and it names the series again as a lookup. */
    CHECK(tsstore_get_info(s, &k, &info));
    ASSERT(info.key.owner_id == 1 && info.key.owner_category == TSSTORE_OWNER_COMPONENT);
    ASSERT(info.key.series_type == TSSTORE_SINGLE_TIME_SERIES && strcmp(info.key.name, "max_active_power") == 0);
    ASSERT(strstr(info.key.features_json, "\"model_year\":2030") != NULL);
    ASSERT(strstr(info.key.features_json, "\"scenario\":\"high\"") != NULL);
    ASSERT(info.key.interval.unit == TSSTORE_PERIOD_NONE);
    tsstore_lookup again = info.key;
    int32_t found = 0;
    CHECK(tsstore_has(s, &again, &found));
    ASSERT(found == 1);

    /* Listing with a filter. */
    tsstore_filter f = TSSTORE_FILTER_INIT;
    f.series_type = TSSTORE_SINGLE_TIME_SERIES;
    f.features_json = "{\"scenario\": \"high\"}";
    tsstore_keys *keys = NULL;
    CHECK(tsstore_list_keys(s, &f, &keys));
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == 1);
    tsstore_series_info first = TSSTORE_SERIES_INFO_INIT;
    CHECK(tsstore_keys_get(keys, 0, 1, &first));
    ASSERT(strcmp(first.key.name, "max_active_power") == 0 && first.key.owner_id == 1);
    ASSERT(first.length == 48 && first.dtype == TSSTORE_DTYPE_F64 && first.initial_ms == T0);
    tsstore_keys_free(keys);

    /* Add, remove, and the lookup is gone; a failed read leaves info as it was. */
    add_values(s, 9, "tmp", 0, 4, NULL);
    tsstore_lookup tmp = lookup_of(9, "tmp");
    CHECK(tsstore_remove(s, &tmp));
    CHECK(tsstore_has(s, &tmp, &found));
    ASSERT(found == 0);
    EXPECT(tsstore_remove(s, &tmp), TSSTORE_E_NOT_FOUND);
    tsstore_series_info before = info;
    EXPECT(tsstore_get(s, &tmp, v, sizeof v, &info), TSSTORE_E_NOT_FOUND);
    ASSERT(memcmp(&before, &info, sizeof info) == 0);
    EXPECT(tsstore_get_info(s, &tmp, &info), TSSTORE_E_NOT_FOUND);
    ASSERT(strstr(errmsg(), "tmp") != NULL);
}

/* The three dense forecasts: whole reads, window reads, their periods, percentiles and
 * window starts; the abstract deterministic lookup. */
static void test_forecasts(tsstore_store *s) {
    enum { H = 4, COUNT = 5, P = 3 };
    double det[H * COUNT], prob[P * H * COUNT];
    for (int i = 0; i < H * COUNT; i++) det[i] = i;
    for (int i = 0; i < P * H * COUNT; i++) prob[i] = 1000 + i;
    int64_t dshape[2] = {H, COUNT}, pshape[3] = {P, H, COUNT};
    double pct[P] = {0.1, 0.5, 0.9};
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.series_type = TSSTORE_DETERMINISTIC;
    d.owner_id = 40;
    d.owner_type = "RenewableDispatch";
    d.name = "max_active_power";
    d.initial_ms = T0;
    d.resolution = millis(HOUR);
    d.horizon = millis(4 * HOUR);
    d.interval = millis(2 * HOUR);
    d.count = COUNT;
    d.shape = dshape;
    d.ndim = 2;
    d.data = det;
    d.nbytes = sizeof det;
    CHECK(tsstore_add(s, &d, NULL));
    tsstore_series_desc p = d;
    p.series_type = TSSTORE_PROBABILISTIC;
    p.owner_id = 41;
    p.percentiles = pct;
    p.n_percentiles = P;
    p.shape = pshape;
    p.ndim = 3;
    p.data = prob;
    p.nbytes = sizeof prob;
    CHECK(tsstore_add(s, &p, NULL));
    tsstore_series_desc sc = p;
    sc.series_type = TSSTORE_SCENARIOS;
    sc.owner_id = 42;
    sc.percentiles = NULL;
    sc.n_percentiles = 0;
    CHECK(tsstore_add(s, &sc, NULL));

    tsstore_lookup dk = lookup_of(40, "max_active_power"), pk = lookup_of(41, "max_active_power"),
                   sk = lookup_of(42, "max_active_power");
    dk.series_type = TSSTORE_DETERMINISTIC;
    pk.series_type = TSSTORE_PROBABILISTIC;
    sk.series_type = TSSTORE_SCENARIOS;
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    double v[P * H * COUNT];

    /* Windows 1-2 of the Deterministic: [H, 2], window j = det[h * COUNT + 1 + j]. */
    CHECK(tsstore_get_windows(s, &dk, T0 + 2 * HOUR, T0 + 4 * HOUR, v, sizeof v, &info));
    ASSERT(info.key.series_type == TSSTORE_DETERMINISTIC && info.ndim == 2 && info.shape[0] == H && info.shape[1] == 2);
    ASSERT(info.initial_ms == T0 + 2 * HOUR && info.count == 2 && info.nbytes == H * 2 * sizeof(double));
    for (int h = 0; h < H; h++)
        for (int j = 0; j < 2; j++) ASSERT(v[h * 2 + j] == det[h * COUNT + 1 + j]);
    ASSERT(same_period(info.horizon, millis(4 * HOUR)) && same_period(info.key.interval, millis(2 * HOUR)));
    ASSERT(formats_as(info.horizon, "PT4H") && formats_as(info.key.interval, "PT2H"));
    ASSERT(info.length == H && info.n_layers == 0);
    EXPECT(tsstore_get_windows(s, &dk, T0 + HOUR, T0 + HOUR, v, sizeof v, &info), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_get_range(s, &dk, T0, T0 + HOUR, v, sizeof v, &info), TSSTORE_E_INVALID_PARAMETER);
    /* The whole Deterministic, and its window starts. */
    CHECK(tsstore_get(s, &dk, v, sizeof v, &info));
    ASSERT(info.count == COUNT && info.initial_ms == T0 && memcmp(v, det, sizeof det) == 0);
    int64_t starts[COUNT];
    size_t n = 0;
    CHECK(tsstore_get_timestamps(s, &dk, INT64_MIN, INT64_MAX, starts, COUNT, &n));
    ASSERT(n == COUNT);
    for (int w = 0; w < COUNT && w < (int)n; w++) ASSERT(starts[w] == T0 + w * 2 * HOUR);

    /* Probabilistic: [P, H, COUNT], its percentiles. */
    CHECK(tsstore_get(s, &pk, v, sizeof v, &info));
    ASSERT(info.ndim == 3 && info.shape[0] == P && info.shape[1] == H && info.shape[2] == COUNT);
    ASSERT(info.n_layers == P && info.count == COUNT && memcmp(v, prob, sizeof prob) == 0);
    double gp[P];
    CHECK(tsstore_get_percentiles(s, &pk, gp, P, &n));
    ASSERT(n == P && gp[0] == 0.1 && gp[1] == 0.5 && gp[2] == 0.9);
    CHECK(tsstore_get_percentiles(s, &dk, gp, P, &n));
    ASSERT(n == 0); /* a Deterministic has none */
    /* Windows 3-4 of the Probabilistic: [P, H, 2]. */
    CHECK(tsstore_get_windows(s, &pk, T0 + 6 * HOUR, T0 + 8 * HOUR, v, sizeof v, &info));
    ASSERT(info.shape[0] == P && info.shape[1] == H && info.shape[2] == 2 && info.count == 2);
    for (int q = 0; q < P; q++)
        for (int h = 0; h < H; h++)
            for (int j = 0; j < 2; j++) ASSERT(v[(q * H + h) * 2 + j] == prob[(q * H + h) * COUNT + 3 + j]);

    /* Scenarios: [S, H, COUNT]. */
    CHECK(tsstore_get(s, &sk, v, sizeof v, &info));
    ASSERT(info.key.series_type == TSSTORE_SCENARIOS && info.n_layers == P && memcmp(v, prob, sizeof prob) == 0);

    /* The abstract deterministic lookup finds the Deterministic. */
    tsstore_lookup ak = lookup_of(40, "max_active_power");
    ak.series_type = TSSTORE_ABSTRACT_DETERMINISTIC;
    ak.resolution = millis(HOUR);
    ak.interval = millis(2 * HOUR);
    int32_t found = 0;
    CHECK(tsstore_has(s, &ak, &found));
    ASSERT(found == 1);
    CHECK(tsstore_get_info(s, &ak, &info));
    ASSERT(info.key.series_type == TSSTORE_DETERMINISTIC);
    ak.interval = millis(3 * HOUR);
    CHECK(tsstore_has(s, &ak, &found));
    ASSERT(found == 0);
}

/* Sizes: a read into no buffer says what it needs; a period's text into a short buffer. */
static void test_sizes(tsstore_store *s) {
    double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(add_hourly(s, 77, "G", "buffers", v, 8, NULL, NULL));
    tsstore_lookup k = lookup_of(77, "buffers");
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    EXPECT(tsstore_get(s, &k, NULL, 0, &info), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(info.nbytes == 64 && info.shape[0] == 8);
    ASSERT(strlen(errmsg()) > 10);
    double back[8];
    CHECK(tsstore_get(s, &k, back, (size_t)info.nbytes, NULL)); /* info may be NULL */
    ASSERT(back[7] == 8);
    char text[4];
    size_t needed = 0;
    tsstore_period day = millis(24 * HOUR);
    EXPECT(tsstore_period_format(&day, text, sizeof text - 1, &needed), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(needed == 4);
    CHECK(tsstore_period_format(&day, text, sizeof text, &needed));
    ASSERT(strcmp(text, "P1D") == 0);
    CHECK(tsstore_period_format(&day, NULL, 0, &needed)); /* a size query */
    ASSERT(needed == 4);
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
    test_sizes(s);
    size_t stored = 7 + (size_t)test_dtypes(s);
    CHECK(tsstore_flush(s));
    CHECK(tsstore_close(s));
    CHECK(tsstore_close(s)); /* closing a closed store is harmless */

    /* Read-only reopen: everything reads, nothing writes. */
    CHECK(tsstore_open(path, 1, &s));
    ASSERT(count_keys(s) == stored);
    tsstore_lookup k = lookup_of(1, "max_active_power");
    k.resolution = millis(HOUR);
    k.features_json = "{\"model_year\": 2030, \"scenario\": \"high\"}"; /* any key order */
    check_hourly(s, &k, 0.5, 48);
    double v[1] = {1};
    EXPECT(add_hourly(s, 5, "G", "x", v, 1, NULL, NULL), TSSTORE_E_READ_ONLY);
    char msg[256];
    size_t needed = 0;
    CHECK(tsstore_store_last_error(s, msg, sizeof msg, &needed));
    ASSERT(strstr(msg, "read-only") != NULL && needed == strlen(msg) + 1);
    CHECK(tsstore_store_recovered(s, msg, sizeof msg, &needed)); /* nothing to roll back */
    ASSERT(msg[0] == '\0' && needed == 1);
    EXPECT(tsstore_remove(s, &k), TSSTORE_E_READ_ONLY);
    CHECK(tsstore_close(s));

    /* An in-memory store persisted to disk reads back. */
    char mem_path[1024];
    store_path(mem_path, sizeof mem_path, dir, "persisted");
    CHECK(tsstore_open_in_memory(NULL, &s));
    add_values(s, 3, "p", 7, 24, NULL);
    CHECK(tsstore_persist(s, mem_path));
    CHECK(tsstore_close(s));
    CHECK(tsstore_open(mem_path, 1, &s));
    tsstore_lookup p = lookup_of(3, "p");
    check_hourly(s, &p, 7, 24);
    CHECK(tsstore_close(s));
    return finish("test_api");
}
