/* The catalog surface through the C API: metadata, queries, owner moves, associations,
 * maintenance and the debug log callback. */
#include "check.h"

#define T0 1704067200000LL

static int log_lines = 0;
static char last_line[512];
static void on_log(const char *line, void *user) {
    (void)user;
    log_lines++;
    snprintf(last_line, sizeof last_line, "%s", line);
}

static tsstore_key *add(tsstore_store *s, int64_t owner, const char *type, const char *name, double base) {
    double v[48];
    int64_t shape[1] = {48};
    for (int i = 0; i < 48; i++) v[i] = base + i;
    tsstore_key *k = NULL;
    CHECK(tsstore_add_single(s, owner, type, TSSTORE_OWNER_COMPONENT, name, T0, "PT1H", TSSTORE_DTYPE_F64, shape, 1, v,
                             sizeof v, "{\"zone\": 3}", "MW", "{\"x\":1}", &k));
    return k;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024];
    store_path(path, sizeof path, dir, "catalog");
    tsstore_store *s = NULL;
    CHECK(tsstore_create(path, NULL, &s));
    CHECK(tsstore_set_log_callback(on_log, NULL));
    tsstore_key *a = add(s, 1, "ThermalStandard", "max_active_power", 0);
    ASSERT(log_lines >= 1 && strstr(last_line, "tsstore_add_single") != NULL);
    CHECK(tsstore_set_log_callback(NULL, NULL));
    tsstore_key *b = add(s, 2, "PowerLoad", "max_active_power", 0); /* shares a's array */
    tsstore_key *c = add(s, 3, "PowerLoad", "load", 100);

    /* Metadata. */
    tsstore_metadata *m = NULL;
    CHECK(tsstore_get_metadata(s, a, &m));
    int32_t type = -1, dtype = -1;
    int64_t length = 0, count = -1, initial = 0;
    char buf[1024];
    size_t needed = 0, ndim = 9;
    CHECK(tsstore_metadata_info(m, &type, &dtype, &length, &count, &initial));
    ASSERT(type == TSSTORE_SINGLE_TIME_SERIES && dtype == TSSTORE_DTYPE_F64 && length == 48 && count == 0 && initial == T0);
    CHECK(tsstore_metadata_element_shape(m, NULL, 0, &ndim));
    ASSERT(ndim == 0);
    CHECK(tsstore_metadata_text(m, 1, buf, sizeof buf, &needed));
    ASSERT(strcmp(buf, "MW") == 0);
    CHECK(tsstore_metadata_text(m, 2, buf, sizeof buf, &needed));
    ASSERT(strcmp(buf, "{\"x\":1}") == 0);
    CHECK(tsstore_metadata_text(m, 0, buf, sizeof buf, &needed));
    ASSERT(strcmp(buf, "ThermalStandard") == 0);
    EXPECT(tsstore_metadata_text(m, 9, buf, sizeof buf, &needed), TSSTORE_E_INVALID_PARAMETER);
    uint8_t hash[32];
    CHECK(tsstore_metadata_hash(m, 0, hash));
    tsstore_metadata_free(m);

    /* Filtered listings and the keys sharing one array. */
    tsstore_filter *f = NULL;
    tsstore_keys *sel = NULL;
    size_t nsel = 0;
    CHECK(tsstore_filter_new(&f));
    CHECK(tsstore_filter_owner_type(f, "PowerLoad"));
    CHECK(tsstore_filter_name_glob(f, "max_*"));
    CHECK(tsstore_filter_features(f, "{\"zone\": 3}"));
    EXPECT(tsstore_filter_resolution(f, "soon"), TSSTORE_E_INVALID_PARAMETER);
    CHECK(tsstore_list_keys_where(s, f, &sel));
    CHECK(tsstore_keys_len(sel, &nsel));
    ASSERT(nsel == 1); /* owner 2 */
    tsstore_keys_free(sel);
    tsstore_filter_free(f);
    CHECK(tsstore_list_keys_where(s, NULL, &sel));
    CHECK(tsstore_keys_len(sel, &nsel));
    ASSERT(nsel == 3);
    tsstore_keys_free(sel);
    /* Owner categories: all three are components; owner 2 under either category. */
    CHECK(tsstore_filter_new(&f));
    CHECK(tsstore_filter_owner_category(f, TSSTORE_OWNER_SUPPLEMENTAL_ATTRIBUTE));
    CHECK(tsstore_list_keys_where(s, f, &sel));
    CHECK(tsstore_keys_len(sel, &nsel));
    ASSERT(nsel == 0);
    tsstore_keys_free(sel);
    CHECK(tsstore_filter_owner_category(f, TSSTORE_OWNER_COMPONENT));
    CHECK(tsstore_list_keys_where(s, f, &sel));
    CHECK(tsstore_keys_len(sel, &nsel));
    ASSERT(nsel == 3);
    tsstore_keys_free(sel);
    tsstore_filter_free(f);
    CHECK(tsstore_filter_new(&f));
    CHECK(tsstore_filter_owner(f, 2, -1));
    CHECK(tsstore_list_keys_where(s, f, &sel));
    CHECK(tsstore_keys_len(sel, &nsel));
    ASSERT(nsel >= 1);
    tsstore_keys_free(sel);
    CHECK(tsstore_filter_owner(f, 2, TSSTORE_OWNER_SUPPLEMENTAL_ATTRIBUTE));
    CHECK(tsstore_list_keys_where(s, f, &sel));
    CHECK(tsstore_keys_len(sel, &nsel));
    ASSERT(nsel == 0);
    tsstore_keys_free(sel);
    tsstore_filter_free(f);

    /* Queries over the store. */
    int64_t counts[7], n = 0;
    CHECK(tsstore_counts_by_type(s, counts));
    ASSERT(counts[TSSTORE_SINGLE_TIME_SERIES] == 3 && counts[TSSTORE_DETERMINISTIC] == 0);
    CHECK(tsstore_count_arrays(s, &n));
    ASSERT(n == 2);
    CHECK(tsstore_count_by_hash(s, hash, counts));
    ASSERT(counts[TSSTORE_SINGLE_TIME_SERIES] == 2);
    CHECK(tsstore_keys_by_hash(s, hash, &sel));
    CHECK(tsstore_keys_len(sel, &nsel));
    ASSERT(nsel == 2);
    tsstore_keys_free(sel);
    tsstore_series *arr = NULL;
    CHECK(tsstore_get_array(s, hash, &arr));
    double v[48];
    CHECK(tsstore_series_info(arr, &type, NULL, NULL, NULL, NULL));
    CHECK(tsstore_series_data(arr, v, sizeof v, &needed));
    ASSERT(type == -1 && v[47] == 47);
    tsstore_series_free(arr);
    tsstore_strings *names = NULL;
    size_t len = 0;
    CHECK(tsstore_list_distinct(s, 1, &names));
    CHECK(tsstore_strings_len(names, &len));
    CHECK(tsstore_strings_get(names, 0, buf, sizeof buf, &needed));
    ASSERT(len == 2 && strcmp(buf, "PowerLoad") == 0);
    tsstore_strings_free(names);
    CHECK(tsstore_static_summary(s, buf, sizeof buf, &needed));
    ASSERT(strstr(buf, "PT1H 1704067200000 48 3 3\n") != NULL);
    int32_t consistent = 0;
    CHECK(tsstore_check_static_consistency(s, &consistent));
    ASSERT(consistent == 1);
    int64_t added = 0;
    CHECK(tsstore_transform_single_time_series(s, "PT24H", "PT12H", -1, NULL, &added));
    CHECK(tsstore_forecast_parameters(s, buf, sizeof buf, &needed));
    ASSERT(strcmp(buf, "3 1704067200000 PT1H P1D PT12H 3 3\n") == 0);

    /* Owner moves. */
    tsstore_key *moved = NULL;
    CHECK(tsstore_copy_series(s, c, 30, "ACBus", TSSTORE_OWNER_COMPONENT, "load_copy", &moved));
    CHECK(tsstore_key_name(moved, buf, sizeof buf, &needed));
    ASSERT(strcmp(buf, "load_copy") == 0);
    EXPECT(tsstore_copy_series(s, c, 30, "ACBus", TSSTORE_OWNER_COMPONENT, "load_copy", NULL),
           TSSTORE_E_DUPLICATE_TIME_SERIES);
    tsstore_key *renamed = NULL;
    CHECK(tsstore_rename_series(s, moved, "load2", &renamed));
    int64_t count_moved = 0;
    CHECK(tsstore_replace_owner_id(s, TSSTORE_OWNER_COMPONENT, 30, 31, &count_moved));
    ASSERT(count_moved == 1);
    tsstore_key_free(moved);
    tsstore_key_free(renamed);

    /* Associations, both tables. */
    int64_t comp[3] = {1, 2, 3}, attr[3] = {10, 10, 11};
    const char *ctypes[3] = {"ThermalStandard", "PowerLoad", "PowerLoad"};
    const char *atypes[3] = {"GeographicInfo", "GeographicInfo", "Outage"};
    CHECK(tsstore_add_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, 3, comp, ctypes, attr, atypes));
    EXPECT(tsstore_add_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, 1, comp, atypes, attr, ctypes),
           TSSTORE_E_DUPLICATE_ASSOCIATION);
    int32_t found = 0;
    CHECK(tsstore_has_association(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, 2, 10, &found));
    ASSERT(found == 1);
    tsstore_associations *rows = NULL;
    int64_t ten[1] = {10};
    CHECK(tsstore_list_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, NULL, 0, ten, 1, NULL, NULL, &rows));
    CHECK(tsstore_associations_len(rows, &len));
    ASSERT(len == 2);
    int64_t ai = 0, bi = 0;
    CHECK(tsstore_associations_ids(rows, 1, &ai, &bi));
    CHECK(tsstore_associations_type(rows, 1, 0, buf, sizeof buf, &needed));
    ASSERT(ai == 2 && bi == 10 && strcmp(buf, "PowerLoad") == 0);
    tsstore_associations_free(rows);
    int64_t removed = -1, rowsn = 0, da = 0, db = 0;
    CHECK(tsstore_remove_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, comp, 0, NULL, 0, NULL, NULL, &removed));
    ASSERT(removed == 0); /* an empty id list matches nothing */
    CHECK(tsstore_association_counts(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, &rowsn, &da, &db));
    ASSERT(rowsn == 3 && da == 3 && db == 2);
    int64_t parent[1] = {40}, child[1] = {99};
    const char *pt[1] = {"ThermalStandard"}, *ct[1] = {"ACBus"};
    CHECK(tsstore_add_associations(s, TSSTORE_PARENT_CHILD_ASSOCIATIONS, 1, parent, pt, child, ct));
    CHECK(tsstore_replace_association_id(s, TSSTORE_PARENT_CHILD_ASSOCIATIONS, 99, 100, &removed));
    CHECK(tsstore_has_association(s, TSSTORE_PARENT_CHILD_ASSOCIATIONS, 40, 100, &found));
    ASSERT(removed == 1 && found == 1);
    EXPECT(tsstore_has_association(s, 7, 40, 100, &found), TSSTORE_E_INVALID_PARAMETER);

    /* Maintenance. */
    CHECK(tsstore_remove(s, c));
    int64_t slots = 0, dropped = -1, fsets = -1, dead = -1, checked = 0, problems = -1;
    CHECK(tsstore_compact(s, &slots, &dropped, &fsets, &dead));
    ASSERT(dropped == 0 && fsets == 0 && dead == 0);
    CHECK(tsstore_verify_integrity(s, &checked, &problems, buf, sizeof buf, &needed));
    ASSERT(problems == 0 && checked == 2 && buf[0] == 0);

    /* Removal by filter: the three transformed views go, the static series stay. */
    int64_t gone = -1, before = 0, after = 0;
    CHECK(tsstore_count_arrays(s, &before));
    CHECK(tsstore_filter_new(&f));
    CHECK(tsstore_filter_series_type(f, TSSTORE_DETERMINISTIC_SINGLE_TIME_SERIES));
    CHECK(tsstore_remove_where(s, f, &gone));
    ASSERT(gone == 3);
    CHECK(tsstore_remove_where(s, f, NULL)); /* nothing left to match */
    EXPECT(tsstore_remove_where(s, (const tsstore_filter *)(void *)s, &gone), TSSTORE_E_INVALID_HANDLE);
    ASSERT(gone == 0);
    tsstore_filter_free(f);
    CHECK(tsstore_list_keys_where(s, NULL, &sel));
    CHECK(tsstore_keys_len(sel, &nsel));
    ASSERT(nsel == 3); /* owners 1 and 2, and the renamed copy */
    tsstore_keys_free(sel);
    CHECK(tsstore_count_arrays(s, &after));
    ASSERT(after == before); /* views own no arrays */

    tsstore_key_free(a);
    tsstore_key_free(b);
    tsstore_key_free(c);
    CHECK(tsstore_close(s));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_catalog: ok\n");
    return 0;
}
