/* Reads into the caller's memory and the structs that cross the boundary:
 *   - a buffer one byte short is BUFFER_TOO_SMALL, with nothing written into or past it and
 *     the description still filled (its nbytes says what is needed);
 *   - tsstore_get_many sizes with dst NULL, then reads; one item too small is named ("dst[3]")
 *     and no array is read;
 *   - a struct_size smaller than the header's is INVALID_PARAMETER naming the struct;
 *   - a struct_size larger than the header's (a program built against a newer header) is the
 *     stride of an array, and the library writes no byte past its own struct in any element;
 *   - strings out: a description's until the thread's next call, a list's until it is freed. */
#include "check.h"

#define SENTINEL 0x5A
#define NEWER 16 /* what a newer header might have added to each struct */

static int untouched(const unsigned char *p, size_t n, unsigned char byte) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != byte) return 0;
    return 1;
}

/* Every series the tests read: owner i's hourly "s" of 24 + i steps, v = 100 i + h. */
#define SERIES 6
static void add_series(tsstore_store *s) {
    for (int i = 0; i < SERIES; i++) {
        double v[24 + SERIES];
        for (int h = 0; h < 24 + i; h++) v[h] = 100.0 * i + h;
        char units[16];
        snprintf(units, sizeof units, "unit-%d", i);
        CHECK(add_hourly(s, i, "PowerLoad", "s", v, 24 + i, NULL, units));
    }
    double det[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pct[2] = {0.25, 0.75};
    int64_t shape[3] = {2, 2, 2};
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.series_type = TSSTORE_PROBABILISTIC;
    d.owner_id = 50, d.owner_type = "RenewableDispatch", d.name = "q", d.initial_ms = T0;
    d.resolution = millis(HOUR), d.horizon = millis(2 * HOUR), d.interval = millis(HOUR), d.count = 2;
    d.percentiles = pct, d.n_percentiles = 2;
    d.shape = shape, d.ndim = 3, d.data = det, d.nbytes = sizeof det;
    CHECK(tsstore_add(s, &d, NULL));
}

/* One byte short, for every read into a caller buffer. */
static void test_too_small(tsstore_store *s) {
    tsstore_lookup q = lookup_of(3, "s");
    unsigned char buf[27 * 8 + 64];
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    memset(buf, SENTINEL, sizeof buf);
    EXPECT(tsstore_get(s, &q, buf, 27 * 8 - 1, &info), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(untouched(buf, sizeof buf, SENTINEL));
    ASSERT(info.nbytes == 27 * 8 && info.shape[0] == 27 && info.ndim == 1 && info.key.owner_id == 3);
    ASSERT(strstr(errmsg(), "216") != NULL); /* the size needed */
    EXPECT(tsstore_get(s, &q, buf, 0, &info), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(untouched(buf, sizeof buf, SENTINEL) && info.nbytes == 27 * 8);
    CHECK(tsstore_get(s, &q, buf, 27 * 8, &info)); /* exact */
    ASSERT(untouched(buf + 27 * 8, sizeof buf - 27 * 8, SENTINEL));
    double first;
    memcpy(&first, buf + 8, sizeof first);
    ASSERT(first == 301);

    /* A range: its own size. */
    memset(buf, SENTINEL, sizeof buf);
    EXPECT(tsstore_get_range(s, &q, T0 + HOUR, T0 + 4 * HOUR, buf, 4 * 8 - 1, &info), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(untouched(buf, sizeof buf, SENTINEL) && info.nbytes == 4 * 8 && info.initial_ms == T0 + HOUR);
    /* Windows. */
    tsstore_lookup p = lookup_of(50, "q");
    p.series_type = TSSTORE_PROBABILISTIC;
    EXPECT(tsstore_get_windows(s, &p, T0 + HOUR, T0 + HOUR, buf, 2 * 2 * 8 - 1, &info), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(untouched(buf, sizeof buf, SENTINEL) && info.nbytes == 2 * 2 * 8 && info.count == 1);
    /* Elements: timestamps and percentiles. */
    int64_t stamps[8];
    double pct[2];
    size_t n = 0;
    memset(stamps, SENTINEL, sizeof stamps);
    EXPECT(tsstore_get_timestamps(s, &q, INT64_MIN, INT64_MAX, stamps, 8, &n), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(n == 27 && untouched((unsigned char *)stamps, sizeof stamps, SENTINEL));
    memset(pct, SENTINEL, sizeof pct);
    EXPECT(tsstore_get_percentiles(s, &p, pct, 1, &n), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(n == 2 && untouched((unsigned char *)pct, sizeof pct, SENTINEL));
    CHECK(tsstore_get_percentiles(s, &p, pct, 2, &n));
    ASSERT(pct[0] == 0.25 && pct[1] == 0.75);
    /* Arrays of structs: one grid per length here. */
    tsstore_static_grid grid[SERIES];
    memset(grid, SENTINEL, sizeof grid);
    grid[0].struct_size = sizeof grid[0];
    CHECK(tsstore_static_summary(s, NULL, 0, &n)); /* a size query */
    ASSERT(n == SERIES);
    EXPECT(tsstore_static_summary(s, grid, SERIES - 1, &n), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(n == SERIES && untouched((unsigned char *)grid + 4, sizeof grid - 4, SENTINEL));
    CHECK(tsstore_static_summary(s, grid, SERIES, &n));
    ASSERT(grid[SERIES - 1].length == 24 + SERIES - 1 && grid[0].n_series == 1);
}

/* A bulk read: the sizes first, then the arrays; one item too small. */
static void test_get_many(tsstore_store *s) {
    tsstore_lookup which[SERIES];
    for (int i = 0; i < SERIES; i++) which[i] = lookup_of(i, "s");
    tsstore_series_info infos[SERIES];
    memset(infos, 0, sizeof infos);
    infos[0].struct_size = sizeof infos[0];
    CHECK(tsstore_get_many(s, which, SERIES, NULL, NULL, infos));
    static unsigned char bufs[SERIES][(24 + SERIES) * 8 + 16];
    void *dst[SERIES];
    size_t cap[SERIES];
    for (int i = 0; i < SERIES; i++) {
        ASSERT(infos[i].nbytes == (uint64_t)(24 + i) * 8 && infos[i].key.owner_id == i);
        dst[i] = bufs[i];
        cap[i] = (size_t)infos[i].nbytes;
    }
    memset(bufs, SENTINEL, sizeof bufs);
    CHECK(tsstore_get_many(s, which, SERIES, dst, cap, infos));
    for (int i = 0; i < SERIES; i++) {
        double last;
        memcpy(&last, bufs[i] + (23 + i) * 8, sizeof last);
        ASSERT(last == 100.0 * i + 23 + i);
        ASSERT(untouched(bufs[i] + cap[i], sizeof bufs[i] - cap[i], SENTINEL));
    }
    /* dst[3] one byte short: nothing read into any buffer, every info filled. */
    memset(bufs, SENTINEL, sizeof bufs);
    memset(infos, 0, sizeof infos);
    infos[0].struct_size = sizeof infos[0];
    cap[3] -= 1;
    EXPECT(tsstore_get_many(s, which, SERIES, dst, cap, infos), TSSTORE_E_BUFFER_TOO_SMALL);
    ASSERT(strstr(errmsg(), "dst[3]") != NULL);
    ASSERT(untouched(&bufs[0][0], sizeof bufs, SENTINEL));
    for (int i = 0; i < SERIES; i++) ASSERT(infos[i].nbytes == (uint64_t)(24 + i) * 8);
    cap[3] += 1;
    /* Sizes again, from descriptions alone: infos[0].struct_size 0 is refused. */
    infos[0].struct_size = 0;
    REFUSE(tsstore_get_many(s, which, SERIES, NULL, NULL, infos), TSSTORE_E_INVALID_PARAMETER, "infos");
}

/* struct_size below the header's: refused, naming the struct. */
static void test_small_structs(tsstore_store *s) {
    tsstore_lookup q = lookup_of(0, "s");
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    double v[24];
    q.struct_size = sizeof q - 8;
    REFUSE(tsstore_get(s, &q, v, sizeof v, &info), TSSTORE_E_INVALID_PARAMETER, "which.struct_size");
    q.struct_size = sizeof q;
    info.struct_size = sizeof info - 1;
    REFUSE(tsstore_get(s, &q, v, sizeof v, &info), TSSTORE_E_INVALID_PARAMETER, "info.struct_size");
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_INVALID_PARAMETER, "info.struct_size");
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.struct_size = 8;
    REFUSE(tsstore_add(s, &d, NULL), TSSTORE_E_INVALID_PARAMETER, "desc.struct_size");
    tsstore_filter f = TSSTORE_FILTER_INIT;
    f.struct_size = 0;
    tsstore_keys *keys = NULL;
    REFUSE(tsstore_list_keys(s, &f, &keys), TSSTORE_E_INVALID_PARAMETER, "filter.struct_size");
    tsstore_type_counts counts = TSSTORE_TYPE_COUNTS_INIT;
    counts.struct_size = 4;
    REFUSE(tsstore_counts_by_type(s, &counts), TSSTORE_E_INVALID_PARAMETER, "counts.struct_size");
    tsstore_forecast_params fp = TSSTORE_FORECAST_PARAMS_INIT;
    size_t n = 0;
    fp.struct_size = 4;
    REFUSE(tsstore_forecast_parameters(s, &fp, 1, &n), TSSTORE_E_INVALID_PARAMETER, "dst[0].struct_size");
    tsstore_association_tally tally = TSSTORE_ASSOCIATION_TALLY_INIT;
    tally.struct_size = 4;
    REFUSE(tsstore_association_counts(s, 0, &tally), TSSTORE_E_INVALID_PARAMETER, "counts.struct_size");
}

/* A newer caller: arrays whose stride is struct_size = sizeof + NEWER, filled with a sentinel. */
static void test_larger_structs(tsstore_store *s) {
    const size_t stride = sizeof(tsstore_series_info) + NEWER;
    static unsigned char mem[SERIES][sizeof(tsstore_series_info) + NEWER];
    ASSERT(stride % 8 == 0);
    tsstore_series_info *first = (tsstore_series_info *)(void *)mem[0];

    /* A key list's entries. */
    tsstore_filter f = TSSTORE_FILTER_INIT;
    f.name = "s";
    tsstore_keys *keys = NULL;
    CHECK(tsstore_list_keys(s, &f, &keys));
    memset(mem, SENTINEL, sizeof mem);
    first->struct_size = (uint32_t)stride;
    CHECK(tsstore_keys_get(keys, 0, SERIES, first));
    for (int i = 0; i < SERIES; i++) {
        tsstore_series_info *e = (tsstore_series_info *)(void *)mem[i];
        ASSERT(e->key.owner_id == i && strcmp(e->key.name, "s") == 0 && e->length == 24 + i);
        ASSERT(untouched(mem[i] + sizeof(tsstore_series_info), NEWER, SENTINEL));
    }
    tsstore_keys_free(keys);

    /* A bulk read's descriptions, from lookups of the same stride (their tail not zero). */
    static unsigned char lk[SERIES][sizeof(tsstore_lookup) + NEWER];
    memset(lk, 0x77, sizeof lk);
    for (int i = 0; i < SERIES; i++) {
        tsstore_lookup q = lookup_of(i, "s");
        q.struct_size = sizeof q + NEWER;
        memcpy(lk[i], &q, sizeof q);
    }
    const tsstore_lookup *which = (const tsstore_lookup *)(void *)lk[0];
    memset(mem, SENTINEL, sizeof mem);
    first->struct_size = (uint32_t)stride;
    CHECK(tsstore_get_many(s, which, SERIES, NULL, NULL, first));
    static double bufs[SERIES][24 + SERIES];
    void *dst[SERIES];
    size_t cap[SERIES];
    for (int i = 0; i < SERIES; i++) {
        tsstore_series_info *e = (tsstore_series_info *)(void *)mem[i];
        ASSERT(e->key.owner_id == i && e->nbytes == (uint64_t)(24 + i) * 8 && strcmp(e->units, "unit-") > 0);
        ASSERT(untouched(mem[i] + sizeof(tsstore_series_info), NEWER, SENTINEL));
        dst[i] = bufs[i];
        cap[i] = sizeof bufs[i];
    }
    memset(mem, SENTINEL, sizeof mem);
    first->struct_size = (uint32_t)stride;
    CHECK(tsstore_get_many(s, which, SERIES, dst, cap, first));
    for (int i = 0; i < SERIES; i++) {
        tsstore_series_info *e = (tsstore_series_info *)(void *)mem[i];
        char units[16];
        snprintf(units, sizeof units, "unit-%d", i);
        ASSERT(e->key.owner_id == i && strcmp(e->units, units) == 0 && bufs[i][1] == 100.0 * i + 1);
        ASSERT(untouched(mem[i] + sizeof(tsstore_series_info), NEWER, SENTINEL));
    }

    /* One struct out, larger: its tail untouched. */
    memset(mem, SENTINEL, sizeof mem);
    first->struct_size = (uint32_t)stride;
    CHECK(tsstore_get_info(s, which, first));
    ASSERT(first->key.owner_id == 0 && untouched(mem[0] + sizeof(tsstore_series_info), NEWER, SENTINEL));

    /* A batch of descriptors of a larger stride. */
    static unsigned char dm[2][sizeof(tsstore_series_desc) + NEWER];
    double v[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
    int64_t shapes[2][1];
    memset(dm, 0x77, sizeof dm);
    for (int i = 0; i < 2; i++) {
        tsstore_series_desc d = hourly_desc(90 + i, "G", "newer", v[i], shapes[i], 4);
        d.struct_size = sizeof d + NEWER;
        memcpy(dm[i], &d, sizeof d);
    }
    CHECK(tsstore_add_batch(s, (const tsstore_series_desc *)(void *)dm[0], 2, NULL));
    tsstore_lookup q = lookup_of(91, "newer");
    double back[4];
    CHECK(tsstore_get(s, &q, back, sizeof back, NULL));
    ASSERT(back[0] == 5 && back[3] == 8);

    /* Arrays of the other structs out. */
    static unsigned char pm[2][sizeof(tsstore_forecast_params) + NEWER];
    memset(pm, SENTINEL, sizeof pm);
    ((tsstore_forecast_params *)(void *)pm[0])->struct_size = sizeof(tsstore_forecast_params) + NEWER;
    size_t n = 0;
    CHECK(tsstore_forecast_parameters(s, (tsstore_forecast_params *)(void *)pm[0], 2, &n));
    ASSERT(n == 1 && ((tsstore_forecast_params *)(void *)pm[0])->series_type == TSSTORE_PROBABILISTIC);
    ASSERT(untouched(pm[0] + sizeof(tsstore_forecast_params), NEWER + sizeof pm[1], SENTINEL));
    static unsigned char am[3][sizeof(tsstore_association) + NEWER];
    tsstore_association rows[3] = {TSSTORE_ASSOCIATION_INIT, TSSTORE_ASSOCIATION_INIT, TSSTORE_ASSOCIATION_INIT};
    for (int i = 0; i < 3; i++) rows[i].a_id = i, rows[i].a_type = "PowerLoad", rows[i].b_id = 9, rows[i].b_type = "Geo";
    CHECK(tsstore_add_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, rows, 3));
    tsstore_associations *list = NULL;
    CHECK(tsstore_list_associations(s, TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, NULL, 0, NULL, 0, NULL, NULL, &list));
    memset(am, SENTINEL, sizeof am);
    ((tsstore_association *)(void *)am[0])->struct_size = sizeof(tsstore_association) + NEWER;
    CHECK(tsstore_associations_get(list, 0, 3, (tsstore_association *)(void *)am[0]));
    for (int i = 0; i < 3; i++) {
        tsstore_association *e = (tsstore_association *)(void *)am[i];
        ASSERT(e->a_id == i && e->b_id == 9 && strcmp(e->a_type, "PowerLoad") == 0);
        ASSERT(untouched(am[i] + sizeof(tsstore_association), NEWER, SENTINEL));
    }
    tsstore_associations_free(list);
    /* One struct out of each kind, larger. */
    unsigned char one[512];
    memset(one, SENTINEL, sizeof one);
    ((tsstore_type_counts *)(void *)one)->struct_size = sizeof(tsstore_type_counts) + NEWER;
    CHECK(tsstore_counts_by_type(s, (tsstore_type_counts *)(void *)one));
    ASSERT(((tsstore_type_counts *)(void *)one)->single_time_series == SERIES + 2);
    ASSERT(untouched(one + sizeof(tsstore_type_counts), NEWER, SENTINEL));
    memset(one, SENTINEL, sizeof one);
    ((tsstore_integrity_report *)(void *)one)->struct_size = sizeof(tsstore_integrity_report) + NEWER;
    CHECK(tsstore_verify_integrity(s, (tsstore_integrity_report *)(void *)one, NULL));
    ASSERT(untouched(one + sizeof(tsstore_integrity_report), NEWER, SENTINEL));
}

/* Strings out: a description's until this thread's next call; a list's until it is freed,
 * whatever is called in between. */
static void test_strings(tsstore_store *s) {
    tsstore_lookup q = lookup_of(2, "s");
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    CHECK(tsstore_get_info(s, &q, &info));
    ASSERT(strcmp(info.key.name, "s") == 0 && strcmp(info.owner_type, "PowerLoad") == 0);
    ASSERT(strcmp(info.units, "unit-2") == 0 && strcmp(info.ext, "") == 0 && strcmp(info.key.features_json, "{}") == 0);

    tsstore_keys *keys = NULL;
    CHECK(tsstore_list_keys(s, NULL, &keys));
    tsstore_series_info held[SERIES];
    held[0].struct_size = sizeof held[0];
    CHECK(tsstore_keys_get(keys, 0, SERIES, held));
    tsstore_strings *names = NULL;
    const char *name = NULL;
    CHECK(tsstore_list_distinct(s, TSSTORE_FIELD_OWNER_TYPE, &names));
    CHECK(tsstore_strings_get(names, 0, &name));
    /* Other calls: descriptions, reads, another list, writes. */
    for (int i = 0; i < 20; i++) {
        tsstore_lookup other = lookup_of(i % SERIES, "s");
        double v[32];
        CHECK(tsstore_get(s, &other, v, sizeof v, &info));
        tsstore_keys *more = NULL;
        CHECK(tsstore_list_keys(s, NULL, &more));
        CHECK(tsstore_keys_get(more, 0, 1, &info));
        tsstore_keys_free(more);
    }
    double w[2] = {1, 2};
    CHECK(add_hourly(s, 77, "Other", "later", w, 2, "{\"zone\": \"north\"}", "kW"));
    for (int i = 0; i < SERIES; i++) {
        char units[16];
        snprintf(units, sizeof units, "unit-%d", i);
        ASSERT(strcmp(held[i].key.name, "s") == 0 && strcmp(held[i].units, units) == 0);
        ASSERT(strcmp(held[i].owner_type, "PowerLoad") == 0 && strcmp(held[i].key.features_json, "{}") == 0);
    }
    ASSERT(strcmp(name, "G") == 0);
    tsstore_strings_free(names);
    tsstore_keys_free(keys);
}

/* An add reads the caller's array during the call and keeps a copy: the buffers are the
 * caller's again when it returns (overwritten here at once, before any flush), and are never
 * written to (a NaN's payload stays as given, though the hash canonicalises it). */
static void test_arrays_are_the_callers(tsstore_store *s) {
    double one[24], batch[2][24], expect[24];
    for (int h = 0; h < 24; h++) one[h] = 1000 + h, batch[0][h] = 2000 + h, batch[1][h] = 3000 + h;
    uint64_t payload = 0x7ff8000000000123ULL; /* a NaN with a payload */
    memcpy(&one[5], &payload, sizeof payload);
    double before[24];
    memcpy(before, one, sizeof one);
    CHECK(add_hourly(s, 500, "G", "mine", one, 24, NULL, NULL));
    ASSERT(memcmp(before, one, sizeof one) == 0); /* read, never written */
    int64_t shapes[2][1];
    tsstore_series_desc d[2] = {hourly_desc(501, "G", "mine", batch[0], shapes[0], 24),
                                hourly_desc(502, "G", "mine", batch[1], shapes[1], 24)};
    CHECK(tsstore_add_batch(s, d, 2, NULL));
    for (int h = 0; h < 24; h++) one[h] = batch[0][h] = batch[1][h] = -1; /* reused at once */
    double back[24];
    for (int i = 0; i < 3; i++) {
        tsstore_lookup q = lookup_of(500 + i, "mine");
        CHECK(tsstore_get(s, &q, back, sizeof back, NULL));
        for (int h = 0; h < 24; h++) expect[h] = 1000 * (i + 1) + h;
        if (i == 0) memcpy(&expect[5], &payload, sizeof payload);
        ASSERT(memcmp(back, expect, sizeof back) == 0);
    }
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    tsstore_store *arrays = fresh_store(dir, "caller_arrays", NULL);
    test_arrays_are_the_callers(arrays);
    CHECK(tsstore_close(arrays));
    tsstore_store *s = fresh_store(dir, "caller_memory", NULL);
    add_series(s);
    test_too_small(s);
    test_get_many(s);
    test_small_structs(s);
    test_larger_structs(s);
    test_strings(s);
    CHECK(tsstore_close(s));
    return finish("test_caller_memory");
}
