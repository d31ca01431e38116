/* catalog: associations, queries, owner moves and maintenance from C.
 *
 *   catalog [output-directory]
 */
#include <stdio.h>
#define EXAMPLE "catalog"
#include "example.h"

#define T0 1893456000000LL


int main(int argc, char **argv) {
    char path[1024], text[4096];
    fresh_store_path(path, sizeof path, argc > 1 ? argv[1] : ".", "catalog");
    int status = 0;
    tsstore_store *s = NULL;
    tsstore_key *k = NULL;
    tsstore_associations *rows = NULL;
    double v[24];
    int64_t shape[1] = {24};
    for (int h = 0; h < 24; h++) v[h] = 100 + h;

    check(tsstore_create(path, NULL, &s));
    check(tsstore_add_single(s, 1, "ThermalStandard", TSSTORE_OWNER_COMPONENT, "max_active_power", T0, "PT1H",
                             TSSTORE_DTYPE_F64, shape, 1, v, sizeof v, "{\"zone\": 4}", "MW", NULL, &k));

    /* Which attributes a component carries, and which components carry one. */
    int64_t comps[2] = {1, 2}, attrs[2] = {900, 900};
    const char *ctypes[2] = {"ThermalStandard", "PowerLoad"}, *atypes[2] = {"GeographicInfo", "GeographicInfo"};
    check(tsstore_add_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, 2, comps, ctypes, attrs, atypes));
    int64_t geo[1] = {900};
    size_t n = 0, needed = 0;
    check(tsstore_list_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, NULL, 0, geo, 1, NULL, NULL, &rows));
    check(tsstore_associations_len(rows, &n));
    printf("components with attribute 900: %zu\n", n);

    /* The same series attached to a bus too: the array is shared, not copied. */
    check(tsstore_copy_series(s, k, 77, "ACBus", TSSTORE_OWNER_COMPONENT, NULL, NULL));
    int64_t arrays = 0, counts[7];
    check(tsstore_count_arrays(s, &arrays));
    check(tsstore_counts_by_type(s, counts));
    printf("%lld SingleTimeSeries over %lld stored array\n", (long long)counts[TSSTORE_SINGLE_TIME_SERIES],
           (long long)arrays);
    check(tsstore_static_summary(s, text, sizeof text, &needed));
    printf("static summary (resolution, start ms, length, series, owners):\n  %s", text);

    /* Maintenance: unreachable feature sets are deleted; every array rehashes. */
    check(tsstore_remove(s, k));
    check(tsstore_flush(s));
    int64_t slots = 0, dropped = 0, fsets = 0, dead = 0, checked = 0, problems = 0;
    check(tsstore_compact(s, &slots, &dropped, &fsets, &dead));
    check(tsstore_verify_integrity(s, &checked, &problems, text, sizeof text, &needed));
    printf("compact: %lld free columns, %lld feature-set rows reclaimed; verify: %lld arrays, %lld problems\n",
           (long long)slots, (long long)fsets, (long long)checked, (long long)problems);

done:
    tsstore_associations_free(rows);
    tsstore_key_free(k);
    if (tsstore_close(s) != TSSTORE_OK) status = 1;
    return status;
}
