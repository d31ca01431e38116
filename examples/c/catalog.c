/* catalog: associations, queries, owner moves and maintenance from C.
 *
 *   catalog [output-directory]
 */
#include <stdio.h>
#define EXAMPLE "catalog"
#include "example.h"

#define T0 1893456000000LL /* 2030-01-01T00:00:00Z */

int main(int argc, char **argv) {
    char path[1024];
    fresh_store_path(path, sizeof path, argc > 1 ? argv[1] : ".", "catalog");
    int status = 0;
    tsstore_store *s = NULL;
    tsstore_associations *rows = NULL;
    tsstore_strings *problems = NULL;
    double v[24];
    int64_t shape[1];
    for (int h = 0; h < 24; h++) v[h] = 100 + h;

    check(tsstore_create(path, NULL, &s));
    tsstore_series_desc load = hourly_series(1, "ThermalStandard", "max_active_power", T0, v, 24, shape);
    load.features_json = "{\"zone\": 4}";
    load.units = "MW";
    check(tsstore_add(s, &load, NULL));

    /* Which attributes a component carries, and which components carry one. */
    tsstore_association pairs[2] = {TSSTORE_ASSOCIATION_INIT, TSSTORE_ASSOCIATION_INIT};
    pairs[0].a_id = 1, pairs[0].a_type = "ThermalStandard", pairs[0].b_id = 900, pairs[0].b_type = "GeographicInfo";
    pairs[1].a_id = 2, pairs[1].a_type = "PowerLoad", pairs[1].b_id = 900, pairs[1].b_type = "GeographicInfo";
    check(tsstore_add_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, pairs, 2));
    int64_t geo[1] = {900};
    size_t n = 0;
    check(tsstore_list_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, NULL, 0, geo, 1, NULL, NULL, &rows));
    check(tsstore_associations_len(rows, &n));
    printf("components with attribute 900: %zu\n", n);
    for (size_t i = 0; i < n; i++) {
        tsstore_association row = TSSTORE_ASSOCIATION_INIT;
        check(tsstore_associations_get(rows, i, 1, &row)); /* its strings belong to rows */
        printf("  %s %lld\n", row.a_type, (long long)row.a_id);
    }

    /* The same series attached to a bus too: the array is shared, not copied. */
    tsstore_lookup series = TSSTORE_LOOKUP_INIT;
    series.owner_id = 1;
    series.name = "max_active_power";
    check(tsstore_copy_series(s, &series, 77, "ACBus", TSSTORE_OWNER_COMPONENT, NULL));
    int64_t arrays = 0;
    tsstore_type_counts counts = TSSTORE_TYPE_COUNTS_INIT;
    check(tsstore_count_arrays(s, &arrays));
    check(tsstore_counts_by_type(s, &counts));
    printf("%lld SingleTimeSeries over %lld stored array\n", (long long)counts.single_time_series, (long long)arrays);
    tsstore_static_grid grids[4] = {TSSTORE_STATIC_GRID_INIT};
    char resolution[32];
    size_t needed = 0;
    check(tsstore_static_summary(s, grids, 4, &n));
    for (size_t i = 0; i < n && i < 4; i++) {
        check(tsstore_period_format(&grids[i].resolution, resolution, sizeof resolution, &needed));
        printf("static grid: %s from %lld, %lld steps; %lld series of %lld owners\n", resolution,
               (long long)grids[i].initial_ms, (long long)grids[i].length, (long long)grids[i].n_series,
               (long long)grids[i].n_owners);
    }

    /* Maintenance: unreachable feature sets are deleted; every array rehashes. */
    check(tsstore_remove(s, &series));
    check(tsstore_flush(s));
    tsstore_compact_report compacted = TSSTORE_COMPACT_REPORT_INIT;
    tsstore_integrity_report verified = TSSTORE_INTEGRITY_REPORT_INIT;
    check(tsstore_compact(s, &compacted));
    check(tsstore_verify_integrity(s, &verified, &problems));
    check(tsstore_strings_len(problems, &n));
    printf("compact: %lld free columns, %lld feature-set rows reclaimed; verify: %lld arrays, %zu problems\n",
           (long long)compacted.slots_reclaimed, (long long)compacted.feature_sets_reclaimed,
           (long long)verified.arrays_checked, n);

done:
    tsstore_strings_free(problems);
    tsstore_associations_free(rows);
    if (tsstore_close(s) != TSSTORE_OK) status = 1;
    return status;
}
