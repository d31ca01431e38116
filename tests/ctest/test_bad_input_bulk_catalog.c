/* Bad input to the calls over many series and over the catalog: transactions and buffers,
 * batches, the transform, bulk reads, readers, queries and summaries, owner moves,
 * associations, listings and maintenance. Each refusal is a documented status with a message
 * of its own naming the argument; nothing is written; nothing crashes. (test_bad_input.c
 * covers the calls of a single series.) */
#include "check.h"

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    tsstore_lookup k;
    double v[24];
    tsstore_store *s = bad_input_store(dir, "bad_bulk_catalog", &k, v);
    tsstore_store *foreign = (tsstore_store *)(void *)v;
    tsstore_period hour = millis(HOUR), four = millis(4 * HOUR);

    /* Transactions and the buffers. */
    REFUSE(tsstore_begin(NULL), TSSTORE_E_INVALID_HANDLE, "store");
    REFUSE(tsstore_commit(s), TSSTORE_E_INVALID_PARAMETER, "transaction");
    REFUSE(tsstore_rollback(s), TSSTORE_E_INVALID_PARAMETER, "transaction");
    REFUSE(tsstore_set_write_buffer(foreign, 1), TSSTORE_E_INVALID_HANDLE, "store");
    REFUSE(tsstore_set_write_buffer(s, -5), TSSTORE_E_INVALID_PARAMETER, "bytes");
    REFUSE(tsstore_set_read_cache(foreign, 1), TSSTORE_E_INVALID_HANDLE, "store");
    REFUSE(tsstore_set_read_cache(s, -5), TSSTORE_E_INVALID_PARAMETER, "bytes");

    /* Batches: the refusal names the item, and nothing of the batch is added. */
    int64_t shapes[2][1];
    tsstore_series_desc good[2] = {hourly_desc(2, "G", "p", v, shapes[0], 24), hourly_desc(3, "G", "p", v, shapes[1], 24)};
    tsstore_series_desc b[2];
    REFUSE(tsstore_add_batch(NULL, good, 2, NULL), TSSTORE_E_INVALID_HANDLE, "store");
    memcpy(b, good, sizeof b), b[1].nbytes = 8;
    REFUSE(tsstore_add_batch(s, b, 2, NULL), TSSTORE_E_INVALID_PARAMETER, "[1]");
    NAMES_ARG("descs[1]");
    memcpy(b, good, sizeof b), b[1].name = NULL;
    REFUSE(tsstore_add_batch(s, b, 2, NULL), TSSTORE_E_INVALID_PARAMETER, "descs[1].name");
    memcpy(b, good, sizeof b), b[0].series_type = TSSTORE_NON_SEQUENTIAL_TIME_SERIES;
    REFUSE(tsstore_add_batch(s, b, 2, NULL), TSSTORE_E_INVALID_PARAMETER, "descs[0].timestamps_ms");
    memcpy(b, good, sizeof b), b[1].series_type = TSSTORE_DETERMINISTIC, b[1].horizon = millis(0);
    REFUSE(tsstore_add_batch(s, b, 2, NULL), TSSTORE_E_INVALID_PARAMETER, "descs[1].horizon");
    memcpy(b, good, sizeof b), b[0].struct_size = 4;
    REFUSE(tsstore_add_batch(s, b, 2, NULL), TSSTORE_E_INVALID_PARAMETER, "descs[0].struct_size");
    memcpy(b, good, sizeof b), b[1].struct_size = 0;
    REFUSE(tsstore_add_batch(s, b, 2, NULL), TSSTORE_E_INVALID_PARAMETER, "descs[1].struct_size");
    REFUSE(tsstore_add_batch(s, good, (size_t)-1, NULL), TSSTORE_E_INVALID_PARAMETER, "n");
    ASSERT(count_keys(s) == 1);

    /* Transform. */
    int64_t added = 0;
    tsstore_period month = months(1), bogus = {1, 7, 0};
    REFUSE(tsstore_transform_single_time_series(s, NULL, &hour, TSSTORE_OWNER_ANY, NULL, &added),
           TSSTORE_E_INVALID_PARAMETER, "horizon");
    REFUSE(tsstore_transform_single_time_series(s, &four, &month, TSSTORE_OWNER_ANY, NULL, &added),
           TSSTORE_E_INVALID_PARAMETER, "interval");
    REFUSE(tsstore_transform_single_time_series(s, &four, &four, 5, NULL, &added), TSSTORE_E_INVALID_PARAMETER,
           "owner_category");
    REFUSE(tsstore_transform_single_time_series(s, &four, &four, TSSTORE_OWNER_ANY, &bogus, &added),
           TSSTORE_E_INVALID_PARAMETER, "resolution");
    REFUSE(tsstore_transform_single_time_series(s, &bogus, &four, TSSTORE_OWNER_ANY, NULL, &added),
           TSSTORE_E_INVALID_PARAMETER, "horizon.unit");

    /* Bulk reads. */
    tsstore_lookup two[2] = {k, k};
    tsstore_series_info infos[2] = {TSSTORE_SERIES_INFO_INIT, TSSTORE_SERIES_INFO_INIT};
    double a0[24], a1[24];
    void *dst[2] = {a0, a1};
    size_t cap[2] = {sizeof a0, sizeof a1};
    two[1].name = NULL;
    REFUSE(tsstore_get_many(s, two, 2, dst, cap, infos), TSSTORE_E_INVALID_PARAMETER, "which[1].name");
    two[1].name = "absent";
    REFUSE(tsstore_get_many(s, two, 2, dst, cap, infos), TSSTORE_E_NOT_FOUND, "which[1]");
    two[1] = k, two[1].struct_size = 3;
    REFUSE(tsstore_get_many(s, two, 2, dst, cap, infos), TSSTORE_E_INVALID_PARAMETER, "which[1].struct_size");
    two[1] = k;
    REFUSE(tsstore_get_many(s, NULL, 2, dst, cap, infos), TSSTORE_E_INVALID_PARAMETER, "which");
    REFUSE(tsstore_get_many(s, two, 2, dst, cap, NULL), TSSTORE_E_INVALID_PARAMETER, "infos");
    REFUSE(tsstore_get_many(s, two, 2, dst, NULL, infos), TSSTORE_E_INVALID_PARAMETER, "capacity");
    REFUSE(tsstore_get_many(s, two, (size_t)-1, dst, cap, infos), TSSTORE_E_INVALID_PARAMETER, "n");
    infos[0].struct_size = 16;
    REFUSE(tsstore_get_many(s, two, 2, dst, cap, infos), TSSTORE_E_INVALID_PARAMETER, "infos");
    infos[0].struct_size = sizeof infos[0];
    dst[1] = NULL;
    REFUSE(tsstore_get_many(s, two, 2, dst, cap, infos), TSSTORE_E_INVALID_PARAMETER, "dst[1]");
    dst[1] = a1;
    uint8_t hash[32];
    memset(hash, 7, sizeof hash);
    REFUSE(tsstore_get_array(s, hash, a0, sizeof a0, NULL), TSSTORE_E_NOT_FOUND, "array");
    REFUSE(tsstore_get_array(s, NULL, a0, sizeof a0, NULL), TSSTORE_E_INVALID_PARAMETER, "hash32");

    /* Readers. */
    tsstore_static_reader *sr = (tsstore_static_reader *)(void *)v;
    tsstore_period two_hours = millis(2 * HOUR);
    REFUSE(tsstore_static_reader_new(s, &hour, &k, 1, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_static_reader_new(s, NULL, &k, 1, &sr), TSSTORE_E_INVALID_PARAMETER, "resolution");
    ASSERT(sr == NULL);
    REFUSE(tsstore_static_reader_new(s, &two_hours, &k, 1, &sr), TSSTORE_E_INVALID_PARAMETER, "resolution");
    NAMES_ARG("which[0]");
    two[1].name = NULL;
    REFUSE(tsstore_static_reader_new(s, &hour, two, 2, &sr), TSSTORE_E_INVALID_PARAMETER, "which[1].name");
    two[1] = k;
    REFUSE(tsstore_static_reader_new(s, &hour, NULL, 1, &sr), TSSTORE_E_INVALID_PARAMETER, "which");
    ASSERT(sr == NULL);
    CHECK(tsstore_static_reader_new(s, &hour, &k, 1, &sr));
    size_t needed = 0;
    int64_t small[1];
    tsstore_group_info gi = TSSTORE_GROUP_INFO_INIT;
    tsstore_reader_info ri = TSSTORE_READER_INFO_INIT;
    REFUSE(tsstore_static_reader_group(sr, 3, &gi), TSSTORE_E_INVALID_PARAMETER, "group");
    REFUSE(tsstore_static_reader_group(sr, 0, NULL), TSSTORE_E_INVALID_PARAMETER, "info");
    gi.struct_size = 8;
    REFUSE(tsstore_static_reader_group(sr, 0, &gi), TSSTORE_E_INVALID_PARAMETER, "info.struct_size");
    REFUSE(tsstore_static_reader_info(sr, NULL), TSSTORE_E_INVALID_PARAMETER, "info");
    ri.struct_size = 0;
    REFUSE(tsstore_static_reader_info(sr, &ri), TSSTORE_E_INVALID_PARAMETER, "info.struct_size");
    REFUSE(tsstore_static_reader_bind(sr, 0, small, 4), TSSTORE_E_BUFFER_TOO_SMALL, "dst");
    REFUSE(tsstore_static_reader_bind(sr, 9, NULL, 0), TSSTORE_E_INVALID_PARAMETER, "group");
    REFUSE(tsstore_static_reader_group_keys(sr, 0, small, 0, &needed), TSSTORE_E_BUFFER_TOO_SMALL, "small");
    ASSERT(needed == 1);
    REFUSE(tsstore_static_reader_group_keys(sr, 0, NULL, 3, &needed), TSSTORE_E_INVALID_PARAMETER, "dst");
    REFUSE(tsstore_static_reader_read_step(sr, -1), TSSTORE_E_INVALID_PARAMETER, "step");
    REFUSE(tsstore_static_reader_read_step(sr, 24), TSSTORE_E_INVALID_PARAMETER, "24");
    REFUSE(tsstore_static_reader_read_at(sr, T0 + 1), TSSTORE_E_INVALID_PARAMETER, "grid");
    REFUSE(tsstore_static_reader_info((tsstore_static_reader *)(void *)s, &ri), TSSTORE_E_INVALID_HANDLE,
           "static reader");
    tsstore_static_reader_free(sr);
    tsstore_forecast_reader *fr = NULL;
    REFUSE(tsstore_forecast_reader_new(s, 99, &hour, &k, 1, &fr), TSSTORE_E_INVALID_PARAMETER, "series_type");
    REFUSE(tsstore_forecast_reader_new(s, TSSTORE_DETERMINISTIC, &hour, &k, 1, &fr), TSSTORE_E_INVALID_PARAMETER,
           "Deterministic");
    REFUSE(tsstore_forecast_reader_new(s, TSSTORE_DETERMINISTIC, &hour, &k, 1, NULL), TSSTORE_E_INVALID_PARAMETER,
           "out");
    REFUSE(tsstore_forecast_reader_read_window((tsstore_forecast_reader *)(void *)v, 0), TSSTORE_E_INVALID_HANDLE,
           "forecast reader");
    REFUSE(tsstore_forecast_reader_read_window(NULL, 0), TSSTORE_E_INVALID_HANDLE, "forecast reader");
    ASSERT(fr == NULL);

    /* Descriptions, queries and summaries. */
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    info.struct_size = 0;
    REFUSE(tsstore_get_info(s, &k, &info), TSSTORE_E_INVALID_PARAMETER, "info.struct_size");
    REFUSE(tsstore_get(s, &k, a0, sizeof a0, &info), TSSTORE_E_INVALID_PARAMETER, "info.struct_size");
    tsstore_strings *strs = NULL;
    const char *str = NULL;
    REFUSE(tsstore_list_distinct(s, 7, &strs), TSSTORE_E_INVALID_PARAMETER, "field");
    REFUSE(tsstore_list_distinct(s, TSSTORE_FIELD_NAME, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_strings_get(NULL, 0, &str), TSSTORE_E_INVALID_HANDLE, "string list");
    CHECK(tsstore_list_distinct(s, TSSTORE_FIELD_NAME, &strs));
    REFUSE(tsstore_strings_get(strs, 1, &str), TSSTORE_E_INVALID_PARAMETER, "1");
    REFUSE(tsstore_strings_get(strs, 0, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_strings_len(strs, NULL), TSSTORE_E_INVALID_PARAMETER, "len");
    tsstore_strings_free(strs);
    tsstore_type_counts counts = TSSTORE_TYPE_COUNTS_INIT;
    REFUSE(tsstore_counts_by_type(s, NULL), TSSTORE_E_INVALID_PARAMETER, "counts");
    counts.struct_size = 8;
    REFUSE(tsstore_counts_by_type(s, &counts), TSSTORE_E_INVALID_PARAMETER, "counts.struct_size");
    REFUSE(tsstore_count_by_hash(s, NULL, &counts), TSSTORE_E_INVALID_PARAMETER, "hash32");
    REFUSE(tsstore_count_arrays(s, NULL), TSSTORE_E_INVALID_PARAMETER, "n");
    tsstore_static_grid grid = TSSTORE_STATIC_GRID_INIT;
    size_t n = 9;
    REFUSE(tsstore_static_summary(s, &grid, 0, &n), TSSTORE_E_BUFFER_TOO_SMALL, "small");
    ASSERT(n == 1);
    grid.struct_size = 4;
    REFUSE(tsstore_static_summary(s, &grid, 1, &n), TSSTORE_E_INVALID_PARAMETER, "struct_size");
    tsstore_forecast_params fp = TSSTORE_FORECAST_PARAMS_INIT;
    REFUSE(tsstore_forecast_parameters(s, NULL, 3, &n), TSSTORE_E_INVALID_PARAMETER, "dst");
    CHECK(tsstore_forecast_parameters(s, &fp, 1, &n));
    ASSERT(n == 0); /* no forecasts */
    REFUSE(tsstore_check_static_consistency(s, NULL), TSSTORE_E_INVALID_PARAMETER, "consistent");

    /* Owner moves. */
    REFUSE(tsstore_copy_series(s, &k, 2, NULL, 0, NULL), TSSTORE_E_INVALID_PARAMETER, "owner_type");
    REFUSE(tsstore_copy_series(s, &k, 2, "G", 3, NULL), TSSTORE_E_INVALID_PARAMETER, "owner_category");
    REFUSE(tsstore_copy_series(s, &k, 1, "G", 0, NULL), TSSTORE_E_DUPLICATE_TIME_SERIES, "already stored");
    REFUSE(tsstore_copy_series(s, NULL, 2, "G", 0, NULL), TSSTORE_E_INVALID_PARAMETER, "which");
    REFUSE(tsstore_rename_series(s, &k, NULL), TSSTORE_E_INVALID_PARAMETER, "new_name");
    REFUSE(tsstore_rename_series(s, &k, "\xc3\x28"), TSSTORE_E_INVALID_PARAMETER, "UTF-8");
    REFUSE(tsstore_replace_owner_id(s, 1, 9, 2, NULL), TSSTORE_E_INVALID_PARAMETER, "owner_category");
    REFUSE(tsstore_replace_owner_id(s, 1, TSSTORE_OWNER_ANY, 2, NULL), TSSTORE_E_INVALID_PARAMETER,
           "owner_category");

    /* Associations. */
    tsstore_association row = TSSTORE_ASSOCIATION_INIT, r;
    row.a_id = 1, row.a_type = "G", row.b_id = 1, row.b_type = "G";
    REFUSE(tsstore_add_associations(s, 2, &row, 1), TSSTORE_E_INVALID_PARAMETER, "table");
    REFUSE(tsstore_add_associations(s, 0, NULL, 1), TSSTORE_E_INVALID_PARAMETER, "rows");
    r = row, r.a_type = NULL;
    REFUSE(tsstore_add_associations(s, 0, &r, 1), TSSTORE_E_INVALID_PARAMETER, "rows[0].a_type");
    r = row, r.b_type = "\xff";
    REFUSE(tsstore_add_associations(s, 0, &r, 1), TSSTORE_E_INVALID_PARAMETER, "UTF-8");
    NAMES_ARG("rows[0].b_type");
    r = row, r.struct_size = 0;
    REFUSE(tsstore_add_associations(s, 0, &r, 1), TSSTORE_E_INVALID_PARAMETER, "rows[0].struct_size");
    int32_t found = 0;
    REFUSE(tsstore_has_association(s, 0, 1, 1, NULL), TSSTORE_E_INVALID_PARAMETER, "found");
    REFUSE(tsstore_has_association(s, -1, 1, 1, &found), TSSTORE_E_INVALID_PARAMETER, "table");
    tsstore_associations *rows = NULL;
    REFUSE(tsstore_list_associations(s, 0, NULL, 3, NULL, 0, NULL, NULL, &rows), TSSTORE_E_INVALID_PARAMETER,
           "a_ids");
    REFUSE(tsstore_list_associations(s, 0, NULL, 0, NULL, 0, "\xff", NULL, &rows), TSSTORE_E_INVALID_PARAMETER,
           "UTF-8");
    NAMES_ARG("a_type");
    REFUSE(tsstore_list_associations(s, 0, NULL, 0, NULL, 0, NULL, NULL, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    ASSERT(rows == NULL);
    REFUSE(tsstore_remove_associations(s, 1, NULL, 0, NULL, 4, NULL, NULL, NULL), TSSTORE_E_INVALID_PARAMETER,
           "b_ids");
    CHECK(tsstore_list_associations(s, 0, NULL, 0, NULL, 0, NULL, NULL, &rows));
    REFUSE(tsstore_associations_get(rows, 0, 1, &r), TSSTORE_E_INVALID_PARAMETER, "first"); /* empty list */
    REFUSE(tsstore_associations_len(rows, NULL), TSSTORE_E_INVALID_PARAMETER, "len");
    tsstore_associations_free(rows);
    tsstore_association_tally tally = TSSTORE_ASSOCIATION_TALLY_INIT;
    REFUSE(tsstore_association_counts(s, 0, NULL), TSSTORE_E_INVALID_PARAMETER, "counts");
    REFUSE(tsstore_association_counts(s, 3, &tally), TSSTORE_E_INVALID_PARAMETER, "table");
    REFUSE(tsstore_replace_association_id(s, 5, 1, 2, NULL), TSSTORE_E_INVALID_PARAMETER, "table");
    CHECK(tsstore_has_association(s, 0, 1, 1, &found));
    ASSERT(found == 0); /* nothing refused was added */

    /* Listings and removals by filter. */
    tsstore_filter f = TSSTORE_FILTER_INIT;
    tsstore_keys *keys = NULL;
    f.struct_size = 0;
    REFUSE(tsstore_list_keys(s, &f, &keys), TSSTORE_E_INVALID_PARAMETER, "filter.struct_size");
    REFUSE(tsstore_remove_where(s, &f, NULL), TSSTORE_E_INVALID_PARAMETER, "filter.struct_size");
    f = (tsstore_filter)TSSTORE_FILTER_INIT, f.interval.unit = 4;
    REFUSE(tsstore_remove_where(s, &f, NULL), TSSTORE_E_INVALID_PARAMETER, "filter.interval");
    REFUSE(tsstore_keys_by_hash(s, NULL, &keys), TSSTORE_E_INVALID_PARAMETER, "hash32");
    REFUSE(tsstore_keys_by_hash(s, hash, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    ASSERT(keys == NULL);
    REFUSE(tsstore_remove(s, NULL), TSSTORE_E_INVALID_PARAMETER, "which");

    /* Maintenance. */
    tsstore_compact_report rep = TSSTORE_COMPACT_REPORT_INIT;
    tsstore_integrity_report ir = TSSTORE_INTEGRITY_REPORT_INIT;
    REFUSE(tsstore_compact(foreign, &rep), TSSTORE_E_INVALID_HANDLE, "store");
    REFUSE(tsstore_verify_integrity(NULL, &ir, NULL), TSSTORE_E_INVALID_HANDLE, "store");
    REFUSE(tsstore_verify_integrity(s, NULL, NULL), TSSTORE_E_INVALID_PARAMETER, "report");
    ir.struct_size = 12;
    REFUSE(tsstore_verify_integrity(s, &ir, NULL), TSSTORE_E_INVALID_PARAMETER, "report.struct_size");
    rep.struct_size = 12;
    REFUSE(tsstore_compact(s, &rep), TSSTORE_E_INVALID_PARAMETER, "report.struct_size");
    REFUSE(tsstore_compact_rewrite(foreign, &rep), TSSTORE_E_INVALID_HANDLE, "store");
    REFUSE(tsstore_compact_rewrite(s, &rep), TSSTORE_E_INVALID_PARAMETER, "report.struct_size");
    CHECK(tsstore_begin(s));
    REFUSE(tsstore_compact(s, NULL), TSSTORE_E_INVALID_PARAMETER, "transaction");
    REFUSE(tsstore_compact_rewrite(s, NULL), TSSTORE_E_INVALID_PARAMETER, "transaction");
    CHECK(tsstore_rollback(s));

    /* Nothing refused reached the catalog. */
    ASSERT(count_keys(s) == 1);
    CHECK(tsstore_close(s));
    return finish("test_bad_input_bulk_catalog");
}
