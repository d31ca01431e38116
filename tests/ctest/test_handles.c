/* Every function that takes a handle, called with each bad handle of its kind: NULL, a pointer
 * this library never issued, a freed handle of that kind, and a live handle of another kind.
 * Each is TSSTORE_E_INVALID_HANDLE naming the kind (free functions: ignored), never a crash;
 * a handle out is set to NULL; and a freed handle is never issued again. */
#include "check.h"

enum { NULL_HANDLE, FOREIGN, FREED, WRONG_KIND, BAD_HANDLES };
static const char *const bad_names[BAD_HANDLES] = {"NULL", "foreign", "freed", "wrong kind"};
static const char *bad_name; /* which one is being tried, for the messages */

/* A call with a bad handle: INVALID_HANDLE, with a message that names what was expected. */
#define BAD(call, what)                                                                                       \
    do {                                                                                                      \
        int32_t st_ = (call);                                                                                 \
        if (st_ != TSSTORE_E_INVALID_HANDLE || strstr(errmsg(), what) == NULL) {                              \
            fprintf(stderr, "%s:%d: %s with a %s handle -> %s (%s)\n", __FILE__, __LINE__, #call, bad_name,  \
                    tsstore_status_name(st_), errmsg());                                                      \
            failures++;                                                                                       \
        }                                                                                                     \
    } while (0)

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    tsstore_store *s = fresh_store(dir, "handles", NULL), *closed = fresh_store(dir, "handles_closed", NULL);
    CHECK(tsstore_close(closed));
    double v[4] = {1, 2, 3, 4};
    CHECK(add_hourly(s, 1, "G", "p", v, 4, NULL, NULL));
    tsstore_lookup k = lookup_of(1, "p");
    tsstore_period hour = millis(HOUR);

    /* One live handle of every kind, and one freed. */
    tsstore_keys *keys = NULL, *freed_keys = NULL;
    tsstore_strings *strs = NULL, *freed_strs = NULL;
    tsstore_associations *assoc = NULL, *freed_assoc = NULL;
    tsstore_static_reader *sr = NULL, *freed_sr = NULL;
    tsstore_forecast_reader *freed_fr = NULL;
    CHECK(tsstore_list_keys(s, NULL, &keys));
    CHECK(tsstore_list_keys(s, NULL, &freed_keys));
    tsstore_keys_free(freed_keys);
    CHECK(tsstore_list_distinct(s, TSSTORE_FIELD_NAME, &strs));
    CHECK(tsstore_list_distinct(s, TSSTORE_FIELD_NAME, &freed_strs));
    tsstore_strings_free(freed_strs);
    CHECK(tsstore_list_associations(s, 0, NULL, 0, NULL, 0, NULL, NULL, &assoc));
    CHECK(tsstore_list_associations(s, 0, NULL, 0, NULL, 0, NULL, NULL, &freed_assoc));
    tsstore_associations_free(freed_assoc);
    CHECK(tsstore_static_reader_new(s, &hour, &k, 1, &sr));
    CHECK(tsstore_static_reader_new(s, &hour, &k, 1, &freed_sr));
    tsstore_static_reader_free(freed_sr);
    /* A forecast reader needs a forecast. */
    int64_t dshape[2] = {2, 2};
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.series_type = TSSTORE_DETERMINISTIC;
    d.owner_id = 1, d.owner_type = "G", d.name = "f", d.initial_ms = T0;
    d.resolution = hour, d.horizon = millis(2 * HOUR), d.interval = hour, d.count = 2;
    d.shape = dshape, d.ndim = 2, d.data = v, d.nbytes = sizeof v;
    CHECK(tsstore_add(s, &d, NULL));
    tsstore_lookup fk = lookup_of(1, "f");
    fk.series_type = TSSTORE_DETERMINISTIC;
    CHECK(tsstore_forecast_reader_new(s, TSSTORE_DETERMINISTIC, &hour, &fk, 1, &freed_fr));
    tsstore_forecast_reader_free(freed_fr);

    /* The bad handles of each kind; the wrong kind is the live store, or for store functions
     * the live key list. */
    unsigned char foreign[256];
    memset(foreign, 0, sizeof foreign);
    void *bad_store[BAD_HANDLES] = {NULL, foreign, closed, keys};
    void *bad_keys[BAD_HANDLES] = {NULL, foreign, freed_keys, s};
    void *bad_strs[BAD_HANDLES] = {NULL, foreign, freed_strs, keys};
    void *bad_assoc[BAD_HANDLES] = {NULL, foreign, freed_assoc, strs};
    void *bad_sr[BAD_HANDLES] = {NULL, foreign, freed_sr, assoc};
    void *bad_fr[BAD_HANDLES] = {NULL, foreign, freed_fr, sr};

    char buf[64];
    size_t n = 0, one = 0;
    int64_t i64 = 0;
    int32_t i32 = 0;
    double dv[8];
    void *dst[1] = {dv};
    size_t cap[1] = {sizeof dv};
    uint8_t hash[32] = {0};
    double pct[1];
    const char *str = NULL;
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    tsstore_filter filter = TSSTORE_FILTER_INIT;
    tsstore_type_counts counts = TSSTORE_TYPE_COUNTS_INIT;
    tsstore_forecast_params fp = TSSTORE_FORECAST_PARAMS_INIT;
    tsstore_static_grid grid = TSSTORE_STATIC_GRID_INIT;
    tsstore_association row = TSSTORE_ASSOCIATION_INIT;
    row.a_type = "G", row.b_type = "H";
    tsstore_association_tally tally = TSSTORE_ASSOCIATION_TALLY_INIT;
    tsstore_compact_report compact = TSSTORE_COMPACT_REPORT_INIT;
    tsstore_integrity_report integrity = TSSTORE_INTEGRITY_REPORT_INIT;
    tsstore_reader_info ri = TSSTORE_READER_INFO_INIT;
    tsstore_group_info gi = TSSTORE_GROUP_INFO_INIT;
    tsstore_series_desc desc = d;
    desc.owner_id = 2;

    for (int h = 0; h < BAD_HANDLES; h++) {
        bad_name = bad_names[h];
        tsstore_store *x = bad_store[h];
        BAD(tsstore_flush(x), "store");
        BAD(tsstore_persist(x, "/nonexistent/x.nc"), "store");
        BAD(tsstore_store_last_error(x, buf, sizeof buf, &n), "store");
        BAD(tsstore_store_recovered(x, buf, sizeof buf, &n), "store");
        BAD(tsstore_add(x, &desc, NULL), "store");
        BAD(tsstore_add_batch(x, &desc, 1, NULL), "store");
        BAD(tsstore_transform_single_time_series(x, &hour, &hour, TSSTORE_OWNER_ANY, NULL, &i64), "store");
        BAD(tsstore_has(x, &k, &i32), "store");
        BAD(tsstore_get_info(x, &k, &info), "store");
        BAD(tsstore_get(x, &k, dv, sizeof dv, &info), "store");
        BAD(tsstore_get_range(x, &k, T0, T0, dv, sizeof dv, &info), "store");
        BAD(tsstore_get_windows(x, &fk, T0, T0, dv, sizeof dv, &info), "store");
        BAD(tsstore_get_timestamps(x, &k, INT64_MIN, INT64_MAX, &i64, 1, &n), "store");
        BAD(tsstore_get_percentiles(x, &k, pct, 1, &n), "store");
        BAD(tsstore_get_many(x, &k, 1, dst, cap, &info), "store");
        BAD(tsstore_get_array(x, hash, dv, sizeof dv, &info), "store");
        BAD(tsstore_remove(x, &k), "store");
        BAD(tsstore_remove_where(x, &filter, &i64), "store");
        tsstore_keys *kout = (tsstore_keys *)(void *)foreign;
        BAD(tsstore_list_keys(x, NULL, &kout), "store");
        ASSERT(kout == NULL);
        kout = (tsstore_keys *)(void *)foreign;
        BAD(tsstore_keys_by_hash(x, hash, &kout), "store");
        ASSERT(kout == NULL);
        BAD(tsstore_begin(x), "store");
        BAD(tsstore_commit(x), "store");
        BAD(tsstore_rollback(x), "store");
        BAD(tsstore_set_write_buffer(x, 1 << 20), "store");
        BAD(tsstore_set_read_cache(x, 1 << 20), "store");
        tsstore_static_reader *srout = (tsstore_static_reader *)(void *)foreign;
        BAD(tsstore_static_reader_new(x, &hour, &k, 1, &srout), "store");
        ASSERT(srout == NULL);
        tsstore_forecast_reader *frout = (tsstore_forecast_reader *)(void *)foreign;
        BAD(tsstore_forecast_reader_new(x, TSSTORE_DETERMINISTIC, &hour, &fk, 1, &frout), "store");
        ASSERT(frout == NULL);
        tsstore_strings *sout = (tsstore_strings *)(void *)foreign;
        BAD(tsstore_list_distinct(x, TSSTORE_FIELD_NAME, &sout), "store");
        ASSERT(sout == NULL);
        BAD(tsstore_counts_by_type(x, &counts), "store");
        BAD(tsstore_count_arrays(x, &i64), "store");
        BAD(tsstore_count_by_hash(x, hash, &counts), "store");
        BAD(tsstore_forecast_parameters(x, &fp, 1, &n), "store");
        BAD(tsstore_static_summary(x, &grid, 1, &n), "store");
        BAD(tsstore_check_static_consistency(x, &i32), "store");
        BAD(tsstore_copy_series(x, &k, 5, "G", TSSTORE_OWNER_COMPONENT, NULL), "store");
        BAD(tsstore_rename_series(x, &k, "q"), "store");
        BAD(tsstore_replace_owner_id(x, 1, TSSTORE_OWNER_COMPONENT, 2, &i64), "store");
        BAD(tsstore_add_associations(x, 0, &row, 1), "store");
        BAD(tsstore_has_association(x, 0, 1, 2, &i32), "store");
        tsstore_associations *aout = (tsstore_associations *)(void *)foreign;
        BAD(tsstore_list_associations(x, 0, NULL, 0, NULL, 0, NULL, NULL, &aout), "store");
        ASSERT(aout == NULL);
        BAD(tsstore_remove_associations(x, 0, NULL, 0, NULL, 0, NULL, NULL, &i64), "store");
        BAD(tsstore_replace_association_id(x, 0, 1, 2, &i64), "store");
        BAD(tsstore_association_counts(x, 0, &tally), "store");
        BAD(tsstore_compact(x, &compact), "store");
        BAD(tsstore_compact_rewrite(x, &compact), "store");
        sout = (tsstore_strings *)(void *)foreign;
        BAD(tsstore_verify_integrity(x, &integrity, &sout), "store");
        ASSERT(sout == NULL);
        EXPECT(tsstore_close(x), TSSTORE_OK); /* a free function: ignored */

        tsstore_keys *kx = bad_keys[h];
        BAD(tsstore_keys_len(kx, &n), "key list");
        BAD(tsstore_keys_get(kx, 0, 1, &info), "key list");
        tsstore_keys_free(kx);

        tsstore_strings *sx = bad_strs[h];
        BAD(tsstore_strings_len(sx, &n), "string list");
        BAD(tsstore_strings_get(sx, 0, &str), "string list");
        tsstore_strings_free(sx);

        tsstore_associations *ax = bad_assoc[h];
        BAD(tsstore_associations_len(ax, &n), "association list");
        BAD(tsstore_associations_get(ax, 0, 1, &row), "association list");
        tsstore_associations_free(ax);

        tsstore_static_reader *rx = bad_sr[h];
        BAD(tsstore_static_reader_info(rx, &ri), "static reader");
        BAD(tsstore_static_reader_group(rx, 0, &gi), "static reader");
        BAD(tsstore_static_reader_group_keys(rx, 0, &i64, 1, &n), "static reader");
        BAD(tsstore_static_reader_bind(rx, 0, dv, sizeof dv), "static reader");
        BAD(tsstore_static_reader_read_step(rx, 0), "static reader");
        BAD(tsstore_static_reader_read_at(rx, T0), "static reader");
        tsstore_static_reader_free(rx);

        tsstore_forecast_reader *fx = bad_fr[h];
        BAD(tsstore_forecast_reader_info(fx, &ri), "forecast reader");
        BAD(tsstore_forecast_reader_group(fx, 0, &gi), "forecast reader");
        BAD(tsstore_forecast_reader_group_keys(fx, 0, &i64, 1, &n), "forecast reader");
        BAD(tsstore_forecast_reader_bind(fx, 0, dv, sizeof dv), "forecast reader");
        BAD(tsstore_forecast_reader_read_window(fx, 0), "forecast reader");
        BAD(tsstore_forecast_reader_read_at(fx, T0), "forecast reader");
        tsstore_forecast_reader_free(fx);
    }
    ASSERT(memcmp(foreign, (unsigned char[256]){0}, sizeof foreign) == 0); /* never written */

    /* The frees with a wrong-kind handle freed nothing: every live handle still works. */
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == 1);
    CHECK(tsstore_strings_len(strs, &n));
    CHECK(tsstore_associations_len(assoc, &n));
    CHECK(tsstore_static_reader_read_step(sr, 0));
    CHECK(tsstore_has(s, &k, &i32));
    ASSERT(i32 == 1);

    /* A freed handle stays invalid however many handles are issued after it. */
    for (int i = 0; i < 100; i++) {
        tsstore_keys *fresh = NULL;
        CHECK(tsstore_list_keys(s, NULL, &fresh));
        ASSERT(fresh != freed_keys && fresh != keys);
        tsstore_keys_free(fresh);
        tsstore_keys_free(fresh); /* twice: harmless */
    }
    EXPECT(tsstore_keys_len(freed_keys, &one), TSSTORE_E_INVALID_HANDLE);

    /* Functions without a handle never fail on one. */
    ASSERT(tsstore_status_name(TSSTORE_OK) != NULL && tsstore_version() > 0);
    EXPECT(tsstore_set_log_callback(NULL, NULL), TSSTORE_OK);

    tsstore_static_reader_free(sr);
    tsstore_associations_free(assoc);
    tsstore_strings_free(strs);
    tsstore_keys_free(keys);
    CHECK(tsstore_close(s));
    return finish("test_handles");
}
