/* Every function that takes a handle, called with NULL, with a foreign pointer and with a
 * freed handle: TSSTORE_E_INVALID_HANDLE (free functions: ignored), never a crash. Buffers
 * that are NULL or too small are refused with their own statuses. */
#include "check.h"

#define T0 1704067200000LL

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024];
    store_path(path, sizeof path, dir, "handles");
    tsstore_store *s = NULL;
    CHECK(tsstore_create(path, NULL, &s));
    double v[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    tsstore_key *k = NULL;
    CHECK(tsstore_add_single(s, 1, "G", 0, "p", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &k));
    tsstore_series *freed_series = NULL;
    CHECK(tsstore_get(s, k, &freed_series));
    tsstore_series_free(freed_series);

    void *handles[3] = {NULL, (void *)v, (void *)freed_series};
    char buf[64];
    size_t n = 0;
    int64_t i64 = 0, arr7[7];
    int32_t i32 = 0;
    double d[4];
    uint8_t hash[32] = {0};
    for (int h = 0; h < 3; h++) {
        void *x = handles[h];
        EXPECT(tsstore_key_owner(x, &i64, &i32), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_key_series_type(x, &i32), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_key_name(x, buf, sizeof buf, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_key_resolution(x, buf, sizeof buf, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_key_interval(x, buf, sizeof buf, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_key_features(x, buf, sizeof buf, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_series_info(x, &i32, &i32, &n, &i64, &i64), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_series_shape(x, &i64, 1, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_series_timestamps(x, &i64, 1, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_series_resolution(x, buf, sizeof buf, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_series_horizon(x, buf, sizeof buf, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_series_interval(x, buf, sizeof buf, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_series_percentiles(x, d, 4, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_remove(x, k), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_remove(s, x), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_metadata_text(x, 0, buf, sizeof buf, &n), TSSTORE_E_INVALID_HANDLE);
        tsstore_key *mk = NULL;
        EXPECT(tsstore_metadata_key(x, &mk), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_strings_len(x, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_associations_len(x, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_association_counts(x, 0, &i64, &i64, &i64), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_remove_associations(x, 0, NULL, 0, NULL, 0, NULL, NULL, &i64), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_replace_association_id(x, 0, 1, 2, &i64), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_count_by_hash(x, hash, arr7), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_forecast_parameters(x, buf, sizeof buf, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_static_reader_read(x, T0), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_static_reader_group_keys(x, 0, &i64, 1, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_forecast_reader_grid(x, &i64, &i64), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_forecast_reader_groups(x, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_forecast_reader_group_info(x, 0, &i32, &n, &i64, &i64, NULL, 0, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_forecast_reader_group_keys(x, 0, &i64, 1, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_forecast_reader_group_values(x, 0, d, sizeof d, &n), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_filter_name_glob(x, "a*"), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_filter_owner_type(x, "G"), TSSTORE_E_INVALID_HANDLE);
        EXPECT(tsstore_filter_resolution(x, "PT1H"), TSSTORE_E_INVALID_HANDLE);
        tsstore_forecast_reader_free(x);
        tsstore_strings_free(x);
        tsstore_metadata_free(x);
        tsstore_associations_free(x);
        tsstore_filter_free(x);
    }
    /* Buffers: NULL with a capacity, and too small. */
    tsstore_series *r = NULL;
    CHECK(tsstore_get(s, k, &r));
    EXPECT(tsstore_series_info(r, NULL, NULL, NULL, NULL, NULL), TSSTORE_OK);
    EXPECT(tsstore_series_timestamps(r, NULL, 3, &n), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_series_resolution(r, buf, 2, &n), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(n == 5);
    EXPECT(tsstore_series_percentiles(r, d, 4, &n), TSSTORE_OK);
    ASSERT(n == 0); /* a static series has none */
    EXPECT(tsstore_key_features(k, buf, 1, &n), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(n == 3); /* "{}" */
    tsstore_series_free(r);
    EXPECT(tsstore_last_error(buf, 1, &n), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(n > 1);
    ASSERT(tsstore_status_name(TSSTORE_OK) != NULL && tsstore_version() > 0);
    EXPECT(tsstore_set_log_callback(NULL, NULL), TSSTORE_OK);
    tsstore_key_free(k);
    CHECK(tsstore_close(s));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_handles: ok\n");
    return 0;
}
