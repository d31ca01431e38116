/* Bad input for the functions beyond the first slice: batches, transactions, transform, bulk
 * reads, readers, metadata, queries, moves, associations, maintenance. Each refusal is a
 * documented status with a message; nothing is written; nothing crashes. */
#include "check.h"

#define T0 1704067200000LL

/* Each refusal must leave its own message: a known one is set first (a key with the
 * period "sentinel") and must be gone afterwards. */
static void set_sentinel(void) {
    tsstore_key *k = NULL;
    tsstore_key_new(0, 0, 0, "x", "sentinel", NULL, NULL, &k);
}

#define REFUSE(call, want)                                                                 \
    do {                                                                                   \
        set_sentinel();                                                                    \
        EXPECT(call, want);                                                                \
        if ((want) != TSSTORE_OK && strstr(last_message(), "sentinel") != NULL) {          \
            fprintf(stderr, "%s:%d: %s left no message of its own\n", __FILE__, __LINE__, \
                    #call);                                                                \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024];
    store_path(path, sizeof path, dir, "bad2");
    tsstore_store *s = NULL;
    CHECK(tsstore_create(path, NULL, &s));
    double v[24];
    for (int i = 0; i < 24; i++) v[i] = i;
    int64_t shape[1] = {24};
    tsstore_key *k = NULL;
    CHECK(tsstore_add_single(s, 1, "G", 0, "p", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &k));
    tsstore_store *foreign = (tsstore_store *)(void *)v;
    tsstore_key *fkey = (tsstore_key *)(void *)v;

    tsstore_keys *keys = NULL;
    /* Transactions and the write buffer. */
    REFUSE(tsstore_begin(NULL), TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_commit(s), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_rollback(s), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_set_write_buffer(foreign, 1), TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_set_write_buffer(s, -5), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_set_read_cache(foreign, 1), TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_set_read_cache(s, -5), TSSTORE_E_INVALID_PARAMETER);

    /* Batches. */
    tsstore_batch *b = NULL;
    REFUSE(tsstore_batch_new(NULL, &b), TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_batch_new(s, NULL), TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_batch_new(s, &b));
    REFUSE(tsstore_batch_add_single(NULL, 1, "G", 0, "p", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL),
           TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_batch_add_single(b, 1, "G", 0, "p", T0, "PT1H", 0, shape, 1, v, 8, NULL, NULL, NULL),
           TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_batch_add_nonsequential(b, 1, "G", 0, "o", NULL, 24, 0, shape, 1, v, sizeof v, NULL, NULL, NULL),
           TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_batch_add_forecast(b, 1, "G", 0, "d", TSSTORE_DETERMINISTIC, T0, "PT1H", "PT0S", "PT1H", 1, NULL,
                                      0, 0, shape, 1, v, sizeof v, NULL, NULL, NULL),
           TSSTORE_E_INVALID_PARAMETER);
    size_t n = 9;
    CHECK(tsstore_batch_len(b, &n));
    ASSERT(n == 0); /* nothing refused was queued */
    REFUSE(tsstore_batch_len(b, NULL), TSSTORE_E_INVALID_PARAMETER);
    tsstore_batch_free(b);
    REFUSE(tsstore_batch_commit(b, NULL), TSSTORE_E_INVALID_HANDLE);
    tsstore_batch_free((tsstore_batch *)(void *)v);

    /* Transform. */
    int64_t added = 0;
    REFUSE(tsstore_transform_single_time_series(s, NULL, "PT1H", -1, NULL, &added), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_transform_single_time_series(s, "PT4H", "P1M", -1, NULL, &added), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_transform_single_time_series(s, "PT4H", "PT4H", 5, NULL, &added), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_transform_single_time_series(s, "PT4H", "PT4H", -1, "bogus", &added), TSSTORE_E_INVALID_PARAMETER);

    /* Bulk read and readers. */
    tsstore_series *out[2] = {NULL, NULL};
    const tsstore_key *two[2] = {k, fkey};
    REFUSE(tsstore_get_many(s, two, 2, out), TSSTORE_E_INVALID_PARAMETER);
    ASSERT(out[0] == NULL && out[1] == NULL);
    REFUSE(tsstore_get_many(s, NULL, 2, out), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_get_many(s, two, 2, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_get_many(s, two, (size_t)-1, out), TSSTORE_E_INVALID_PARAMETER);
    tsstore_static_reader *sr = NULL;
    const tsstore_key *one[1] = {k};
    REFUSE(tsstore_static_reader_new(s, "PT1H", one, 1, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_static_reader_new(s, NULL, one, 1, &sr), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_static_reader_new(s, "PT2H", one, 1, &sr), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_static_reader_new(s, "PT1H", two, 2, &sr), TSSTORE_E_INVALID_PARAMETER);
    ASSERT(sr == NULL);
    CHECK(tsstore_static_reader_new(s, "PT1H", one, 1, &sr));
    size_t needed = 0;
    int64_t small[1];
    REFUSE(tsstore_static_reader_group_info(sr, 3, NULL, NULL, NULL, 0, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_static_reader_group_values(sr, 0, small, 4, &needed), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(needed == 8);
    REFUSE(tsstore_static_reader_read_step(sr, -1), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_static_reader_groups(sr, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_static_reader_grid((tsstore_static_reader *)(void *)k, NULL, NULL), TSSTORE_E_INVALID_HANDLE);
    tsstore_static_reader_free(sr);
    tsstore_forecast_reader *fr = NULL;
    REFUSE(tsstore_forecast_reader_new(s, 99, "PT1H", one, 1, &fr), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_forecast_reader_new(s, TSSTORE_DETERMINISTIC, "PT1H", one, 1, &fr), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_forecast_reader_read((tsstore_forecast_reader *)(void *)v, 0), TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_forecast_reader_read_window(NULL, 0), TSSTORE_E_INVALID_HANDLE);
    ASSERT(fr == NULL);

    /* Metadata and queries. */
    tsstore_metadata *m = NULL;
    REFUSE(tsstore_get_metadata(s, fkey, &m), TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_get_metadata(s, k, NULL), TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_get_metadata(s, k, &m));
    uint8_t hash[32];
    REFUSE(tsstore_metadata_hash(m, 2, hash), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_metadata_hash(m, 0, NULL), TSSTORE_E_INVALID_PARAMETER);
    EXPECT(tsstore_metadata_element_shape(m, small, 0, NULL), TSSTORE_OK); /* a scalar: rank 0 fits */
    tsstore_metadata_free(m);
    REFUSE(tsstore_metadata_info(m, NULL, NULL, NULL, NULL, NULL), TSSTORE_E_INVALID_HANDLE);
    tsstore_strings *strs = NULL;
    REFUSE(tsstore_list_distinct(s, 7, &strs), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_strings_get(NULL, 0, NULL, 0, NULL), TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_counts_by_type(s, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_count_arrays(s, NULL), TSSTORE_E_INVALID_PARAMETER);
    memset(hash, 7, sizeof hash);
    tsstore_series *arr = NULL;
    REFUSE(tsstore_get_array(s, hash, &arr), TSSTORE_E_NOT_FOUND);
    REFUSE(tsstore_get_array(s, NULL, &arr), TSSTORE_E_INVALID_PARAMETER);
    char buf[8];
    REFUSE(tsstore_static_summary(s, buf, sizeof buf, &needed), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(needed > sizeof buf);

    /* Owner moves. */
    REFUSE(tsstore_copy_series(s, k, 2, NULL, 0, NULL, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_copy_series(s, k, 2, "G", 3, NULL, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_copy_series(s, k, 1, "G", 0, NULL, NULL), TSSTORE_E_DUPLICATE_TIME_SERIES);
    REFUSE(tsstore_rename_series(s, k, NULL, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_rename_series(s, k, "\xc3\x28", NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_replace_owner_id(s, 9, 1, 2, NULL), TSSTORE_E_INVALID_PARAMETER);

    /* Associations. */
    int64_t ids[1] = {1};
    const char *types[1] = {"G"}, *nulls[1] = {NULL};
    REFUSE(tsstore_add_associations(s, 2, 1, ids, types, ids, types), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_add_associations(s, 0, 1, NULL, types, ids, types), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_add_associations(s, 0, 1, ids, nulls, ids, types), TSSTORE_E_INVALID_PARAMETER);
    const char *bad_utf8[1] = {"\xff"};
    REFUSE(tsstore_add_associations(s, 0, 1, ids, types, ids, bad_utf8), TSSTORE_E_INVALID_PARAMETER);
    int32_t found = 0;
    REFUSE(tsstore_has_association(s, 0, 1, 1, NULL), TSSTORE_E_INVALID_PARAMETER);
    tsstore_associations *rows = NULL;
    REFUSE(tsstore_list_associations(s, 0, NULL, 3, NULL, 0, NULL, NULL, &rows), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_list_associations(s, 0, NULL, 0, NULL, 0, "\xff", NULL, &rows), TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_list_associations(s, 0, NULL, 0, NULL, 0, NULL, NULL, &rows));
    REFUSE(tsstore_associations_ids(rows, 0, NULL, NULL), TSSTORE_E_INVALID_PARAMETER); /* empty list */
    REFUSE(tsstore_associations_type(rows, 0, 5, buf, sizeof buf, &needed), TSSTORE_E_INVALID_PARAMETER);
    tsstore_associations_free(rows);
    CHECK(tsstore_has_association(s, 0, 1, 1, &found));
    ASSERT(found == 0); /* nothing refused was added */

    /* Filters. */
    tsstore_filter *f = NULL;
    REFUSE(tsstore_filter_new(NULL), TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_filter_new(&f));
    REFUSE(tsstore_filter_owner(f, 1, 4), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_filter_owner(f, 1, -2), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_filter_owner_category(f, 2), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_filter_owner_category(f, -1), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_filter_series_type(f, 12), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_filter_name(f, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_filter_interval(f, "PT"), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_filter_features(f, "{"), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_list_keys_where(s, (const tsstore_filter *)(void *)k, &keys), TSSTORE_E_INVALID_HANDLE);
    CHECK(tsstore_list_keys_where(s, f, &keys)); /* the refusals left the filter matching all */
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == 1);
    tsstore_keys_free(keys);
    tsstore_filter_free(f);
    REFUSE(tsstore_filter_name(f, "p"), TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_keys_by_hash(s, NULL, &keys), TSSTORE_E_INVALID_PARAMETER);

    /* Maintenance. */
    REFUSE(tsstore_check_static_consistency(s, NULL), TSSTORE_E_INVALID_PARAMETER);
    REFUSE(tsstore_compact(foreign, NULL, NULL, NULL, NULL), TSSTORE_E_INVALID_HANDLE);
    REFUSE(tsstore_verify_integrity(NULL, NULL, NULL, NULL, 0, NULL), TSSTORE_E_INVALID_HANDLE);
    CHECK(tsstore_begin(s));
    REFUSE(tsstore_compact(s, NULL, NULL, NULL, NULL), TSSTORE_E_INVALID_PARAMETER); /* inside a transaction */
    CHECK(tsstore_rollback(s));

    /* Nothing refused reached the catalog. */
    CHECK(tsstore_list_keys(s, 0, 0, -1, -1, NULL, NULL, NULL, &keys));
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == 1);
    tsstore_keys_free(keys);
    tsstore_key_free(k);
    CHECK(tsstore_close(s));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_bad_input2: ok\n");
    return 0;
}
