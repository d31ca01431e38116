/* The catalog surface through the C API: descriptions, filtered listings, queries and
 * summaries, owner moves, associations, removals, maintenance and the debug log callback. */
#include "check.h"

static int log_lines = 0;
static char last_line[512];
static void on_log(const char *line, void *user) {
    (void)user;
    log_lines++;
    snprintf(last_line, sizeof last_line, "%s", line);
}

static void add(tsstore_store *s, int64_t owner, const char *type, const char *name, double base) {
    double v[48];
    int64_t shape[1];
    for (int i = 0; i < 48; i++) v[i] = base + i;
    tsstore_series_desc d = hourly_desc(owner, type, name, v, shape, 48);
    d.features_json = "{\"zone\": 3}";
    d.units = "MW";
    d.ext = "{\"x\":1}";
    CHECK(tsstore_add(s, &d, NULL));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    tsstore_store *s = fresh_store(dir, "catalog", NULL);
    CHECK(tsstore_set_log_callback(on_log, NULL));
    add(s, 1, "ThermalStandard", "max_active_power", 0);
    ASSERT(log_lines >= 1 && strstr(last_line, "tsstore_add") != NULL);
    CHECK(tsstore_set_log_callback(NULL, NULL));
    int lines = log_lines;
    add(s, 2, "PowerLoad", "max_active_power", 0); /* shares the array of owner 1's */
    add(s, 3, "PowerLoad", "load", 100);
    ASSERT(log_lines == lines); /* uninstalled */
    tsstore_lookup a = lookup_of(1, "max_active_power"), c = lookup_of(3, "load");

    /* A description: everything the catalog holds, reading no array. */
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    CHECK(tsstore_get_info(s, &a, &info));
    ASSERT(info.key.series_type == TSSTORE_SINGLE_TIME_SERIES && info.dtype == TSSTORE_DTYPE_F64);
    ASSERT(info.length == 48 && info.count == 0 && info.initial_ms == T0 && info.ndim == 1);
    ASSERT(strcmp(info.units, "MW") == 0 && strcmp(info.ext, "{\"x\":1}") == 0);
    ASSERT(strcmp(info.owner_type, "ThermalStandard") == 0 && strcmp(info.key.features_json, "{\"zone\":3}") == 0);
    uint8_t hash[32], zero[32] = {0};
    memcpy(hash, info.data_hash, 32);
    ASSERT(memcmp(hash, zero, 32) != 0 && memcmp(info.features_hash, zero, 32) != 0);
    tsstore_series_info info_c = TSSTORE_SERIES_INFO_INIT;
    CHECK(tsstore_get_info(s, &c, &info_c));
    ASSERT(memcmp(info_c.data_hash, hash, 32) != 0 && memcmp(info_c.features_hash, info.features_hash, 32) == 0);

    /* Filtered listings. */
    tsstore_filter f = TSSTORE_FILTER_INIT;
    f.owner_type = "PowerLoad";
    f.name_glob = "max_*";
    f.features_json = "{\"zone\": 3}";
    ASSERT(count_listed(s, &f) == 1); /* owner 2 */
    f.features_json = "{\"zone\": 4}";
    ASSERT(count_listed(s, &f) == 0);
    tsstore_keys *sel = NULL;
    f.resolution.unit = 7;
    EXPECT(tsstore_list_keys(s, &f, &sel), TSSTORE_E_INVALID_PARAMETER);
    ASSERT(sel == NULL);
    ASSERT(count_listed(s, NULL) == 3);
    tsstore_filter g = TSSTORE_FILTER_INIT;
    g.name = "load";
    ASSERT(count_listed(s, &g) == 1);
    g.name = NULL;
    g.resolution = millis(HOUR);
    ASSERT(count_listed(s, &g) == 3);
    g.resolution = millis(2 * HOUR);
    ASSERT(count_listed(s, &g) == 0);
    /* Owner categories: all three are components; owner 2 under either category. */
    tsstore_filter cat = TSSTORE_FILTER_INIT;
    cat.owner_category = TSSTORE_OWNER_SUPPLEMENTAL_ATTRIBUTE;
    ASSERT(count_listed(s, &cat) == 0);
    cat.owner_category = TSSTORE_OWNER_COMPONENT;
    ASSERT(count_listed(s, &cat) == 3);
    cat.owner_category = TSSTORE_OWNER_ANY;
    cat.match_owner_id = 1;
    cat.owner_id = 2;
    ASSERT(count_listed(s, &cat) == 1);
    cat.owner_category = TSSTORE_OWNER_SUPPLEMENTAL_ATTRIBUTE;
    ASSERT(count_listed(s, &cat) == 0);

    /* Queries over the store. */
    tsstore_type_counts counts = TSSTORE_TYPE_COUNTS_INIT;
    int64_t n = 0;
    CHECK(tsstore_counts_by_type(s, &counts));
    ASSERT(counts.single_time_series == 3 && counts.deterministic == 0 && counts.non_sequential_time_series == 0);
    CHECK(tsstore_count_arrays(s, &n));
    ASSERT(n == 2);
    CHECK(tsstore_count_by_hash(s, hash, &counts));
    ASSERT(counts.single_time_series == 2);
    CHECK(tsstore_keys_by_hash(s, hash, &sel));
    size_t nsel = 0;
    CHECK(tsstore_keys_len(sel, &nsel));
    ASSERT(nsel == 2);
    tsstore_keys_free(sel);
    double v[48];
    tsstore_series_info arr = TSSTORE_SERIES_INFO_INIT;
    CHECK(tsstore_get_array(s, hash, v, sizeof v, &arr));
    ASSERT(arr.dtype == TSSTORE_DTYPE_F64 && arr.ndim == 1 && arr.shape[0] == 48 && arr.nbytes == sizeof v);
    ASSERT(v[0] == 0 && v[47] == 47);
    EXPECT(tsstore_get_array(s, hash, v, sizeof v - 1, &arr), TSSTORE_E_BUFFER_TOO_SMALL);

    tsstore_strings *names = NULL;
    size_t len = 0;
    const char *str = NULL;
    CHECK(tsstore_list_distinct(s, TSSTORE_FIELD_OWNER_TYPE, &names));
    CHECK(tsstore_strings_len(names, &len));
    CHECK(tsstore_strings_get(names, 0, &str));
    ASSERT(len == 2 && strcmp(str, "PowerLoad") == 0);
    CHECK(tsstore_strings_get(names, 1, &str));
    ASSERT(strcmp(str, "ThermalStandard") == 0);
    EXPECT(tsstore_strings_get(names, 2, &str), TSSTORE_E_INVALID_PARAMETER);
    tsstore_strings_free(names);
    CHECK(tsstore_list_distinct(s, TSSTORE_FIELD_NAME, &names));
    CHECK(tsstore_strings_len(names, &len));
    ASSERT(len == 2);
    tsstore_strings_free(names);
    CHECK(tsstore_list_distinct(s, TSSTORE_FIELD_RESOLUTION, &names));
    CHECK(tsstore_strings_len(names, &len));
    CHECK(tsstore_strings_get(names, 0, &str));
    ASSERT(len == 1 && strcmp(str, "PT1H") == 0);
    tsstore_strings_free(names);

    tsstore_static_grid grids[2] = {TSSTORE_STATIC_GRID_INIT, TSSTORE_STATIC_GRID_INIT};
    size_t ngrids = 0;
    CHECK(tsstore_static_summary(s, grids, 2, &ngrids));
    ASSERT(ngrids == 1 && same_period(grids[0].resolution, millis(HOUR)) && grids[0].initial_ms == T0);
    ASSERT(grids[0].length == 48 && grids[0].n_series == 3 && grids[0].n_owners == 3);
    int32_t consistent = 0;
    CHECK(tsstore_check_static_consistency(s, &consistent));
    ASSERT(consistent == 1);

    /* Derived views, and the distinct forecast parameters. */
    int64_t added = 0;
    tsstore_period day = millis(24 * HOUR), half_day = millis(12 * HOUR);
    CHECK(tsstore_transform_single_time_series(s, &day, &half_day, TSSTORE_OWNER_ANY, NULL, &added));
    ASSERT(added == 3);
    tsstore_forecast_params fp[2] = {TSSTORE_FORECAST_PARAMS_INIT, TSSTORE_FORECAST_PARAMS_INIT};
    size_t nfp = 0;
    CHECK(tsstore_forecast_parameters(s, fp, 2, &nfp));
    ASSERT(nfp == 1 && fp[0].series_type == TSSTORE_DETERMINISTIC_SINGLE_TIME_SERIES && fp[0].initial_ms == T0);
    ASSERT(formats_as(fp[0].resolution, "PT1H") && formats_as(fp[0].horizon, "P1D"));
    ASSERT(formats_as(fp[0].interval, "PT12H") && fp[0].count == 3 && fp[0].n_series == 3);
    CHECK(tsstore_counts_by_type(s, &counts));
    ASSERT(counts.deterministic_single_time_series == 3);
    tsstore_lookup view = lookup_of(3, "load");
    view.series_type = TSSTORE_DETERMINISTIC_SINGLE_TIME_SERIES;
    double windows[24 * 3];
    CHECK(tsstore_get(s, &view, windows, sizeof windows, &info));
    ASSERT(info.shape[0] == 24 && info.shape[1] == 3 && windows[0] == 100 && windows[1] == 112);

    /* Owner moves. */
    CHECK(tsstore_copy_series(s, &c, 30, "ACBus", TSSTORE_OWNER_COMPONENT, "load_copy"));
    tsstore_lookup copy = lookup_of(30, "load_copy");
    CHECK(tsstore_get_info(s, &copy, &info));
    ASSERT(strcmp(info.owner_type, "ACBus") == 0 && memcmp(info.data_hash, info_c.data_hash, 32) == 0);
    EXPECT(tsstore_copy_series(s, &c, 30, "ACBus", TSSTORE_OWNER_COMPONENT, "load_copy"),
           TSSTORE_E_DUPLICATE_TIME_SERIES);
    CHECK(tsstore_rename_series(s, &copy, "load2"));
    int32_t found = -1;
    CHECK(tsstore_has(s, &copy, &found));
    ASSERT(found == 0);
    int64_t moved = 0;
    CHECK(tsstore_replace_owner_id(s, 30, TSSTORE_OWNER_COMPONENT, 31, &moved));
    ASSERT(moved == 1);
    tsstore_lookup renamed = lookup_of(31, "load2");
    CHECK(tsstore_has(s, &renamed, &found));
    ASSERT(found == 1);
    CHECK(tsstore_count_arrays(s, &n));
    ASSERT(n == 2); /* the copy shares the array */

    /* Associations, both tables. */
    tsstore_association rows[3] = {TSSTORE_ASSOCIATION_INIT, TSSTORE_ASSOCIATION_INIT, TSSTORE_ASSOCIATION_INIT};
    int64_t comp[3] = {1, 2, 3}, attr[3] = {10, 10, 11};
    const char *ctypes[3] = {"ThermalStandard", "PowerLoad", "PowerLoad"};
    const char *atypes[3] = {"GeographicInfo", "GeographicInfo", "Outage"};
    for (int i = 0; i < 3; i++) {
        rows[i].a_id = comp[i], rows[i].a_type = ctypes[i];
        rows[i].b_id = attr[i], rows[i].b_type = atypes[i];
    }
    CHECK(tsstore_add_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, rows, 3));
    tsstore_association swapped = rows[0];
    swapped.a_type = atypes[0], swapped.b_type = ctypes[0];
    EXPECT(tsstore_add_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, &swapped, 1),
           TSSTORE_E_DUPLICATE_ASSOCIATION);
    CHECK(tsstore_has_association(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, 2, 10, &found));
    ASSERT(found == 1);
    CHECK(tsstore_has_association(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, 10, 2, &found));
    ASSERT(found == 0); /* ordered pairs */
    tsstore_associations *list = NULL;
    int64_t ten[1] = {10};
    CHECK(tsstore_list_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, NULL, 0, ten, 1, NULL, NULL, &list));
    CHECK(tsstore_associations_len(list, &len));
    ASSERT(len == 2);
    tsstore_association row = TSSTORE_ASSOCIATION_INIT;
    CHECK(tsstore_associations_get(list, 1, 1, &row));
    ASSERT(row.a_id == 2 && row.b_id == 10 && strcmp(row.a_type, "PowerLoad") == 0);
    ASSERT(strcmp(row.b_type, "GeographicInfo") == 0);
    tsstore_associations_free(list);
    CHECK(tsstore_list_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, NULL, 0, NULL, 0, NULL, "Outage", &list));
    CHECK(tsstore_associations_len(list, &len));
    ASSERT(len == 1);
    tsstore_associations_free(list);
    int64_t removed = -1;
    CHECK(tsstore_remove_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, comp, 0, NULL, 0, NULL, NULL, &removed));
    ASSERT(removed == 0); /* an empty id list matches nothing */
    tsstore_association_tally tally = TSSTORE_ASSOCIATION_TALLY_INIT;
    CHECK(tsstore_association_counts(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, &tally));
    ASSERT(tally.rows == 3 && tally.distinct_a == 3 && tally.distinct_b == 2);
    CHECK(tsstore_replace_association_id(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, 3, 33, &removed));
    ASSERT(removed == 1);
    CHECK(tsstore_has_association(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, 33, 11, &found));
    ASSERT(found == 1);
    CHECK(tsstore_remove_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, NULL, 0, ten, 1, NULL, NULL, &removed));
    ASSERT(removed == 2);
    tsstore_association pc = TSSTORE_ASSOCIATION_INIT;
    pc.a_id = 40, pc.a_type = "ThermalStandard", pc.b_id = 99, pc.b_type = "ACBus";
    CHECK(tsstore_add_associations(s, TSSTORE_PARENT_CHILD_ASSOCIATIONS, &pc, 1));
    CHECK(tsstore_replace_association_id(s, TSSTORE_PARENT_CHILD_ASSOCIATIONS, 99, 100, &removed));
    CHECK(tsstore_has_association(s, TSSTORE_PARENT_CHILD_ASSOCIATIONS, 40, 100, &found));
    ASSERT(removed == 1 && found == 1);
    EXPECT(tsstore_has_association(s, 7, 40, 100, &found), TSSTORE_E_INVALID_PARAMETER);

    /* A SingleTimeSeries that backs a derived view is not removed while the view exists
     * (the header's rule for tsstore_remove). */
    int32_t st = tsstore_remove(s, &c);
    ASSERT(st != TSSTORE_OK); /* a source that backs a view is refused (the header says so) */
    if (st == TSSTORE_OK) add(s, 3, "PowerLoad", "load", 100); /* put it back for what follows */
    CHECK(tsstore_has(s, &view, &found));
    ASSERT(found == 1);

    /* Removal by filter: the three views go, the static series stay. */
    int64_t gone = -1, before = 0, after = 0;
    CHECK(tsstore_count_arrays(s, &before));
    tsstore_filter views = TSSTORE_FILTER_INIT;
    views.series_type = TSSTORE_DETERMINISTIC_SINGLE_TIME_SERIES;
    CHECK(tsstore_remove_where(s, &views, &gone));
    ASSERT(gone == 3);
    CHECK(tsstore_remove_where(s, &views, NULL)); /* nothing left to match */
    CHECK(tsstore_remove_where(s, &views, &gone));
    ASSERT(gone == 0);
    ASSERT(count_listed(s, NULL) == 4); /* owners 1, 2, 3 and the renamed copy */
    CHECK(tsstore_count_arrays(s, &after));
    ASSERT(after == before); /* views own no arrays */
    CHECK(tsstore_remove(s, &c)); /* no view left: removable */

    /* Maintenance. */
    tsstore_compact_report rep = TSSTORE_COMPACT_REPORT_INIT;
    CHECK(tsstore_compact(s, &rep));
    ASSERT(rep.datasets_dropped == 0 && rep.feature_sets_reclaimed == 0 && rep.dead_standalone == 0);
    CHECK(tsstore_compact(s, NULL));
    tsstore_integrity_report ir = TSSTORE_INTEGRITY_REPORT_INIT;
    tsstore_strings *problems = NULL;
    CHECK(tsstore_verify_integrity(s, &ir, &problems));
    CHECK(tsstore_strings_len(problems, &len));
    ASSERT(len == 0 && ir.arrays_checked == 2 && ir.hash_mismatches == 0 && ir.unreadable == 0);
    ASSERT(ir.dangling_rows == 0 && ir.shape_mismatches == 0);
    tsstore_strings_free(problems);
    CHECK(tsstore_verify_integrity(s, &ir, NULL));
    /* A rewrite leaves the store open on the new pair, every series still there. */
    CHECK(tsstore_compact_rewrite(s, &rep));
    ASSERT(rep.datasets_dropped == 0);
    ASSERT(count_listed(s, NULL) == 3);
    CHECK(tsstore_verify_integrity(s, &ir, NULL));
    ASSERT(ir.arrays_checked == 2 && ir.hash_mismatches == 0 && ir.dangling_rows == 0);

    CHECK(tsstore_close(s));
    return finish("test_catalog");
}
