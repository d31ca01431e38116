/* Bad input to the calls of a single series: opening and creating, NULL and stale handles,
 * outputs, lookups, descriptors (every field, the array's shape and bytes, each series type),
 * single reads and listings. Each is a documented status with a message of its own naming the
 * argument or field, writes nothing and never crashes. */
#include "check.h"

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    tsstore_lookup k;
    double v[24];
    tsstore_store *s = bad_input_store(dir, "bad", &k, v);
    char path[1024];
    snprintf(path, sizeof path, "%s/bad.nc", dir);

    /* Opening and creating. */
    tsstore_store *other = (tsstore_store *)(void *)v;
    REFUSE(tsstore_create(NULL, NULL, &other), TSSTORE_E_INVALID_PARAMETER, "path");
    ASSERT(other == NULL);
    REFUSE(tsstore_create(path, NULL, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_create("/tmp/never-made.nc", "deflate:12:shuffle", &other), TSSTORE_E_INVALID_PARAMETER,
           "compression");
    int32_t st = tsstore_open("/nonexistent/dir/x.nc", 0, &other);
    ASSERT(st != TSSTORE_OK && other == NULL && strstr(errmsg(), "x.nc") != NULL);
    ASSERT(st == TSSTORE_E_NOT_FOUND); /* the status the header promises for a missing file */
    REFUSE(tsstore_open(NULL, 0, &other), TSSTORE_E_INVALID_PARAMETER, "path");
    REFUSE(tsstore_open(path, 0, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_open_in_memory("zstd", &other), TSSTORE_E_INVALID_PARAMETER, "compression");
    REFUSE(tsstore_create(path, NULL, &other), TSSTORE_E_INVALID_PARAMETER, "already exists");
    ASSERT(other == NULL);
    REFUSE(tsstore_persist(s, "/tmp/x.nc"), TSSTORE_E_INVALID_PARAMETER, "in-memory");
    size_t before = count_keys(s);

    /* Outputs and required inputs. */
    int32_t found = 0;
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    tsstore_keys *keys = NULL;
    REFUSE(tsstore_has(s, &k, NULL), TSSTORE_E_INVALID_PARAMETER, "found");
    REFUSE(tsstore_has(s, NULL, &found), TSSTORE_E_INVALID_PARAMETER, "which");
    REFUSE(tsstore_get_info(s, &k, NULL), TSSTORE_E_INVALID_PARAMETER, "info");
    REFUSE(tsstore_get(s, &k, NULL, 8, &info), TSSTORE_E_INVALID_PARAMETER, "dst");
    REFUSE(tsstore_list_keys(s, NULL, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_add(s, NULL, NULL), TSSTORE_E_INVALID_PARAMETER, "desc");
    REFUSE(tsstore_add_batch(s, NULL, 2, NULL), TSSTORE_E_INVALID_PARAMETER, "descs");

    /* Lookups: every field. */
    tsstore_lookup q = k;
    q.owner_category = 7;
    REFUSE(tsstore_has(s, &q, &found), TSSTORE_E_INVALID_PARAMETER, "which.owner_category");
    q = k, q.series_type = 42;
    REFUSE(tsstore_has(s, &q, &found), TSSTORE_E_INVALID_PARAMETER, "which.series_type");
    q = k, q.name = NULL;
    REFUSE(tsstore_has(s, &q, &found), TSSTORE_E_INVALID_PARAMETER, "which.name");
    q = k, q.resolution.unit = 9;
    REFUSE(tsstore_has(s, &q, &found), TSSTORE_E_INVALID_PARAMETER, "which.resolution");
    q = k, q.resolution = millis(-HOUR);
    REFUSE(tsstore_has(s, &q, &found), TSSTORE_E_INVALID_PARAMETER, "which.resolution");
    q = k, q.interval.value = 5; /* a value with unit NONE */
    REFUSE(tsstore_has(s, &q, &found), TSSTORE_E_INVALID_PARAMETER, "which.interval");
    q = k, q.features_json = "{\"a\": ";
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_INVALID_PARAMETER, "which.features_json");
    q = k, q.features_json = "[1, 2]";
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_INVALID_PARAMETER, "which.features_json");
    q = k, q.struct_size = 8;
    REFUSE(tsstore_get(s, &q, v, sizeof v, &info), TSSTORE_E_INVALID_PARAMETER, "which.struct_size");

    /* Descriptors: every field of the common part, then the array's shape and bytes. */
    int64_t shape[1] = {4}, two[2] = {2, 2}, neg[1] = {-4}, huge[2] = {1LL << 40, 1LL << 40};
    tsstore_series_desc good = TSSTORE_SERIES_DESC_INIT, d;
    good.owner_id = 2, good.owner_type = "G", good.name = "p", good.initial_ms = T0;
    good.resolution = millis(HOUR);
    good.shape = shape, good.ndim = 1, good.data = v, good.nbytes = 4 * sizeof(double);
    d = good, d.struct_size = 0;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.struct_size");
    d = good, d.owner_type = NULL;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.owner_type");
    d = good, d.owner_category = 5;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.owner_category");
    d = good, d.owner_category = TSSTORE_OWNER_ANY;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.owner_category");
    d = good, d.name = NULL;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.name");
    d = good, d.name = "\xff\xfe";
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "UTF-8");
    NAMES_ARG("desc.name");
    d = good, d.resolution.unit = TSSTORE_PERIOD_NONE, d.resolution.value = 0;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.resolution");
    d = good, d.resolution = millis(-HOUR);
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.resolution");
    d = good, d.series_type = 9;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.series_type");
    d = good, d.series_type = TSSTORE_ANY_TYPE;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.series_type");
    d = good, d.dtype = 9;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.dtype");
    d = good, d.shape = NULL;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.shape");
    d = good, d.ndim = 0;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.ndim");
    d = good, d.ndim = 2000;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.ndim");
    d = good, d.shape = neg;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.shape[0]");
    d = good, d.shape = huge, d.ndim = 2;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "shape");
    NAMES_ARG("desc.shape");
    d = good, d.shape = two, d.ndim = 2, d.nbytes = 24;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "24 bytes");
    NAMES_ARG("desc.nbytes");
    d = good, d.data = NULL;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.data");
    d = good, d.nbytes = (size_t)-1;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.nbytes");
    d = good, d.features_json = "{\"units\": ";
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.features_json");
    d = good, d.features_json = "{\"units\": 1}";
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "units");
    d = good, d.owner_id = 1;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_DUPLICATE_TIME_SERIES, "already stored");
    unsigned char flags[4] = {0, 1, 2, 1};
    d = good, d.name = "f", d.dtype = TSSTORE_DTYPE_BOOL, d.data = flags, d.nbytes = 4;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "bool");
    NAMES_ARG("desc.data");

    /* NonSequentialTimeSeries: the timestamps. */
    int64_t stamps[4] = {T0, T0 + 2, T0 + 1, T0 + 3};
    tsstore_series_desc ns = good;
    ns.series_type = TSSTORE_NON_SEQUENTIAL_TIME_SERIES;
    ns.name = "o";
    ns.timestamps_ms = stamps;
    REFUSE(tsstore_add(s, &ns, NULL), TSSTORE_E_INVALID_PARAMETER, "increasing");
    NAMES_ARG("desc.timestamps_ms");
    stamps[2] = T0 + 2;
    REFUSE(tsstore_add(s, &ns, NULL), TSSTORE_E_INVALID_PARAMETER, "increasing"); /* equal stamps */
    ns.timestamps_ms = NULL;
    REFUSE(tsstore_add(s, &ns, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.timestamps_ms");

    /* Forecasts: periods, count, shape, percentiles, and the type that cannot be added. */
    int64_t fshape[2] = {2, 2}, pshape[3] = {2, 2, 1};
    double pct[2] = {0.9, 0.1};
    tsstore_series_desc fc = good;
    fc.series_type = TSSTORE_DETERMINISTIC;
    fc.name = "d";
    fc.horizon = millis(2 * HOUR), fc.interval = millis(2 * HOUR), fc.count = 2;
    fc.shape = fshape, fc.ndim = 2;
    d = fc, d.horizon = millis(90 * 60000);
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "horizon");
    NAMES_ARG("desc.horizon");
    d = fc, d.horizon.unit = TSSTORE_PERIOD_NONE, d.horizon.value = 0;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.horizon");
    d = fc, d.interval = months(0);
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.interval");
    d = fc, d.count = 3;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "shape");
    d = fc, d.count = 0;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.count");
    d = fc, d.series_type = TSSTORE_DETERMINISTIC_SINGLE_TIME_SERIES;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.series_type");
    d = fc, d.series_type = TSSTORE_ABSTRACT_DETERMINISTIC;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.series_type");
    tsstore_series_desc pr = fc;
    pr.series_type = TSSTORE_PROBABILISTIC;
    pr.name = "q";
    pr.count = 1;
    pr.shape = pshape, pr.ndim = 3;
    pr.percentiles = pct, pr.n_percentiles = 2;
    REFUSE(tsstore_add(s, &pr, NULL), TSSTORE_E_INVALID_PARAMETER, "percentiles"); /* not increasing */
    NAMES_ARG("desc.percentiles");
    d = pr, d.percentiles = NULL;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.percentiles");
    d = pr, d.n_percentiles = 1;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "percentiles"); /* 1 for a lead axis of 2 */
    ASSERT(count_keys(s) == before); /* nothing written */

    /* Reads and lists. */
    REFUSE(tsstore_get_range(s, &k, T0 + 10, T0, v, sizeof v, &info), TSSTORE_E_INVALID_PARAMETER, "end");
    REFUSE(tsstore_get_windows(s, &k, T0, T0, v, sizeof v, &info), TSSTORE_E_INVALID_PARAMETER, "static");
    REFUSE(tsstore_get_timestamps(s, &k, INT64_MIN, INT64_MAX, NULL, 3, NULL), TSSTORE_E_INVALID_PARAMETER, "dst");
    tsstore_filter f = TSSTORE_FILTER_INIT;
    f.owner_category = 9;
    REFUSE(tsstore_list_keys(s, &f, &keys), TSSTORE_E_INVALID_PARAMETER, "filter.owner_category");
    f = (tsstore_filter)TSSTORE_FILTER_INIT, f.series_type = 17;
    REFUSE(tsstore_list_keys(s, &f, &keys), TSSTORE_E_INVALID_PARAMETER, "filter.series_type");
    f = (tsstore_filter)TSSTORE_FILTER_INIT, f.resolution.unit = 3;
    REFUSE(tsstore_list_keys(s, &f, &keys), TSSTORE_E_INVALID_PARAMETER, "filter.resolution");
    f = (tsstore_filter)TSSTORE_FILTER_INIT, f.features_json = "nope";
    REFUSE(tsstore_list_keys(s, &f, &keys), TSSTORE_E_INVALID_PARAMETER, "filter.features_json");
    f = (tsstore_filter)TSSTORE_FILTER_INIT, f.match_owner_id = 2;
    REFUSE(tsstore_list_keys(s, &f, &keys), TSSTORE_E_INVALID_PARAMETER, "filter.match_owner_id");
    ASSERT(keys == NULL);
    CHECK(tsstore_list_keys(s, NULL, &keys));
    REFUSE(tsstore_keys_get(keys, 5, 1, &info), TSSTORE_E_INVALID_PARAMETER, "first");
    REFUSE(tsstore_keys_get(keys, 0, 2, &info), TSSTORE_E_INVALID_PARAMETER, "n");
    REFUSE(tsstore_keys_get(keys, 0, 1, NULL), TSSTORE_E_INVALID_PARAMETER, "infos");
    REFUSE(tsstore_keys_len(keys, NULL), TSSTORE_E_INVALID_PARAMETER, "len");
    tsstore_keys_free(keys);
    char small[1];
    size_t needed = 0;
    set_sentinel();
    EXPECT(tsstore_store_last_error(s, NULL, 8, &needed), TSSTORE_E_INVALID_PARAMETER);
    ASSERT(strstr(errmsg(), "buf") != NULL); /* the refusal left a message of its own */

    /* Periods and timelines. */
    tsstore_period p;
    REFUSE(tsstore_period_parse(NULL, &p), TSSTORE_E_INVALID_PARAMETER, "text");
    REFUSE(tsstore_period_parse("PT1H", NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_period_parse("1 hour", &p), TSSTORE_E_INVALID_PARAMETER, "1 hour");
    REFUSE(tsstore_period_parse("-PT1H", &p), TSSTORE_E_INVALID_PARAMETER, "-PT1H");
    REFUSE(tsstore_period_parse("PT0S", &p), TSSTORE_E_INVALID_PARAMETER, "PT0S");
    p = millis(HOUR);
    REFUSE(tsstore_period_format(&p, small, sizeof small, &needed), TSSTORE_E_BUFFER_TOO_SMALL, "small");
    ASSERT(needed == 5);
    REFUSE(tsstore_period_format(NULL, small, sizeof small, &needed), TSSTORE_E_INVALID_PARAMETER, "period");
    p.unit = 5;
    REFUSE(tsstore_period_format(&p, small, sizeof small, &needed), TSSTORE_E_INVALID_PARAMETER, "period.unit");
    int64_t line[4];
    p = millis(HOUR);
    REFUSE(tsstore_timeline(T0, NULL, 0, 4, line), TSSTORE_E_INVALID_PARAMETER, "step");
    REFUSE(tsstore_timeline(T0, &p, 0, -1, line), TSSTORE_E_INVALID_PARAMETER, "n");
    REFUSE(tsstore_timeline(T0, &p, 0, 4, NULL), TSSTORE_E_INVALID_PARAMETER, "dst");
    int32_t regular = 0;
    REFUSE(tsstore_infer_resolution(stamps, 4, NULL, &p), TSSTORE_E_INVALID_PARAMETER, "regular");
    REFUSE(tsstore_infer_resolution(NULL, 4, &regular, &p), TSSTORE_E_INVALID_PARAMETER, "timestamps_ms");

    CHECK(tsstore_close(s));
    REFUSE(tsstore_flush(s), TSSTORE_E_INVALID_HANDLE, "store"); /* closed: stale */
    return finish("test_bad_input");
}
