/* Lookups: a series named by owner and name, narrowed by features, type, resolution, interval
 * and owner category. A lookup matching one series reads it; several are INVALID_PARAMETER
 * with a message listing them; none is NOT_FOUND. A key from a description or a listing names
 * its series exactly. */
#include "check.h"

static double v[24];

static void add_with(tsstore_store *s, int64_t owner, const char *name, const char *features, double base) {
    double w[24];
    for (int i = 0; i < 24; i++) w[i] = base + i;
    CHECK(add_hourly(s, owner, "PowerLoad", name, w, 24, features, NULL));
}

/* The first value of the one series q names (NAN-free: the tests' bases are whole numbers). */
static double first_value(tsstore_store *s, const tsstore_lookup *q) {
    double w[24];
    CHECK(tsstore_get(s, q, w, sizeof w, NULL));
    return w[0];
}

static void add_forecast(tsstore_store *s, int64_t owner, const char *name, tsstore_period interval, double base) {
    double w[4] = {base, base + 1, base + 2, base + 3};
    int64_t shape[2] = {2, 2};
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.series_type = TSSTORE_DETERMINISTIC;
    d.owner_id = owner, d.owner_type = "PowerLoad", d.name = name, d.initial_ms = T0;
    d.resolution = millis(HOUR), d.horizon = millis(2 * HOUR), d.interval = interval, d.count = 2;
    d.shape = shape, d.ndim = 2, d.data = w, d.nbytes = sizeof w;
    CHECK(tsstore_add(s, &d, NULL));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    tsstore_store *s = fresh_store(dir, "lookup", NULL);
    for (int i = 0; i < 24; i++) v[i] = i;

    /* Features: four series of one owner and name. */
    add_with(s, 1, "load", NULL, 0);
    add_with(s, 1, "load", "{\"scenario\": \"high\"}", 100);
    add_with(s, 1, "load", "{\"scenario\": \"high\", \"year\": 2030}", 200);
    add_with(s, 1, "load", "{\"scenario\": \"low\"}", 300);
    tsstore_lookup q = lookup_of(1, "load");
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    /* Any features: all four match, and the message lists each. */
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_INVALID_PARAMETER, "several");
    const char *m = errmsg();
    ASSERT(strstr(m, "\"scenario\":\"low\"") != NULL && strstr(m, "\"year\":2030") != NULL);
    ASSERT(strstr(m, "load") != NULL);
    double w[24];
    REFUSE(tsstore_get(s, &q, w, sizeof w, NULL), TSSTORE_E_INVALID_PARAMETER, "several");
    int32_t found = 0;
    CHECK(tsstore_has(s, &q, &found)); /* has asks whether any matches */
    ASSERT(found == 1);
    REFUSE(tsstore_remove(s, &q), TSSTORE_E_INVALID_PARAMETER, "several");
    ASSERT(count_keys(s) == 4);
    /* The exact set wins over the sets that include it. */
    q.features_json = "{\"scenario\": \"high\"}";
    ASSERT(first_value(s, &q) == 100);
    CHECK(tsstore_get_info(s, &q, &info));
    ASSERT(strcmp(info.key.features_json, "{\"scenario\":\"high\"}") == 0);
    /* Otherwise the one set that includes them. */
    q.features_json = "{\"year\": 2030}";
    ASSERT(first_value(s, &q) == 200);
    q.features_json = "{\"scenario\": \"low\"}";
    ASSERT(first_value(s, &q) == 300);
    /* No features: the empty set is exact for the featureless series. */
    q.features_json = "";
    ASSERT(first_value(s, &q) == 0);
    q.features_json = "{}";
    ASSERT(first_value(s, &q) == 0);
    /* None: NOT_FOUND, naming the lookup. */
    q.features_json = "{\"scenario\": \"mid\"}";
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_NOT_FOUND, "mid");
    CHECK(tsstore_has(s, &q, &found));
    ASSERT(found == 0);
    /* TSSTORE_LOOKUP_EXACT_FEATURES: the set as given, never one that includes it. */
    q.flags = TSSTORE_LOOKUP_EXACT_FEATURES;
    q.features_json = "{\"year\": 2030}";
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_NOT_FOUND, "year");
    CHECK(tsstore_has(s, &q, &found));
    ASSERT(found == 0);
    q.features_json = "{\"year\": 2030, \"scenario\": \"high\"}";
    ASSERT(first_value(s, &q) == 200);
    q.features_json = NULL; /* exactly none */
    ASSERT(first_value(s, &q) == 0);
    q.flags = 2;
    REFUSE(tsstore_has(s, &q, &found), TSSTORE_E_INVALID_PARAMETER, "which.flags");
    q.flags = 0;
    q = lookup_of(2, "load");
    REFUSE(tsstore_get(s, &q, w, sizeof w, NULL), TSSTORE_E_NOT_FOUND, "load");
    q = lookup_of(1, "nope");
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_NOT_FOUND, "nope");

    /* A key from a listing names its series exactly, every one of the four. */
    tsstore_filter f = TSSTORE_FILTER_INIT;
    f.name = "load";
    tsstore_keys *keys = NULL;
    size_t n = 0;
    CHECK(tsstore_list_keys(s, &f, &keys));
    CHECK(tsstore_keys_len(keys, &n));
    ASSERT(n == 4);
    for (size_t i = 0; i < n; i++) {
        CHECK(tsstore_keys_get(keys, i, 1, &info));
        ASSERT(info.key.flags == TSSTORE_LOOKUP_EXACT_FEATURES);
        ASSERT(first_value(s, &info.key) == 100.0 * (double)i); /* insertion order */
    }
    tsstore_keys_free(keys);

    /* Several in a bulk read: the message names the item. */
    tsstore_lookup two[2] = {lookup_of(1, "load"), lookup_of(1, "load")};
    two[0].features_json = "";
    tsstore_series_info infos[2] = {TSSTORE_SERIES_INFO_INIT, TSSTORE_SERIES_INFO_INIT};
    REFUSE(tsstore_get_many(s, two, 2, NULL, NULL, infos), TSSTORE_E_INVALID_PARAMETER, "which[1]");

    /* The message lists a bounded number of matches. */
    char names[12][32];
    for (int i = 0; i < 12; i++) {
        snprintf(names[i], sizeof names[i], "{\"member\": %d}", i);
        add_with(s, 7, "ensemble", names[i], 1000 + i);
    }
    q = lookup_of(7, "ensemble");
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_INVALID_PARAMETER, "more");
    ASSERT(strstr(errmsg(), "\"member\":0") != NULL);

    /* Type: a SingleTimeSeries and a Deterministic of one name. */
    add_with(s, 3, "mix", NULL, 10);
    add_forecast(s, 3, "mix", millis(HOUR), 20);
    q = lookup_of(3, "mix"); /* the default type: SingleTimeSeries */
    ASSERT(first_value(s, &q) == 10);
    q.series_type = TSSTORE_ANY_TYPE;
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_INVALID_PARAMETER, "several");
    ASSERT(strstr(errmsg(), "Deterministic") != NULL && strstr(errmsg(), "SingleTimeSeries") != NULL);
    q.series_type = TSSTORE_ABSTRACT_DETERMINISTIC;
    ASSERT(first_value(s, &q) == 20);
    q.series_type = TSSTORE_PROBABILISTIC;
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_NOT_FOUND, "Probabilistic");

    /* Interval: two Deterministic forecasts of one name. */
    add_forecast(s, 3, "mix", millis(2 * HOUR), 30);
    q = lookup_of(3, "mix");
    q.series_type = TSSTORE_DETERMINISTIC;
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_INVALID_PARAMETER, "several");
    q.interval = millis(2 * HOUR);
    ASSERT(first_value(s, &q) == 30);
    CHECK(tsstore_get_info(s, &q, &info));
    ASSERT(same_period(info.key.interval, millis(2 * HOUR)));
    q.interval = millis(3 * HOUR);
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_NOT_FOUND, "PT3H");

    /* Resolution: one name at two resolutions. */
    add_with(s, 4, "r", NULL, 40);
    int64_t shape[1] = {24};
    tsstore_series_desc quarter = hourly_desc(4, "PowerLoad", "r", v, shape, 24);
    quarter.resolution = millis(15 * 60000);
    CHECK(tsstore_add(s, &quarter, NULL));
    q = lookup_of(4, "r");
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_INVALID_PARAMETER, "several");
    q.resolution = millis(15 * 60000);
    CHECK(tsstore_get_info(s, &q, &info));
    ASSERT(same_period(info.key.resolution, millis(15 * 60000)) && first_value(s, &q) == 0);
    q.resolution = millis(HOUR);
    ASSERT(first_value(s, &q) == 40);
    q.resolution = months(1);
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_NOT_FOUND, "P1M");

    /* Owner category: one owner id as a component and as a supplemental attribute. */
    add_with(s, 5, "c", NULL, 50);
    tsstore_series_desc attr = hourly_desc(5, "GeographicInfo", "c", v, shape, 24);
    attr.owner_category = TSSTORE_OWNER_SUPPLEMENTAL_ATTRIBUTE;
    CHECK(tsstore_add(s, &attr, NULL));
    q = lookup_of(5, "c"); /* the default category: component */
    ASSERT(first_value(s, &q) == 50);
    q.owner_category = TSSTORE_OWNER_SUPPLEMENTAL_ATTRIBUTE;
    CHECK(tsstore_get_info(s, &q, &info));
    ASSERT(strcmp(info.owner_type, "GeographicInfo") == 0 && first_value(s, &q) == 0);
    q.owner_category = TSSTORE_OWNER_ANY;
    REFUSE(tsstore_get_info(s, &q, &info), TSSTORE_E_INVALID_PARAMETER, "several");

    /* A lookup that names one series removes exactly it. */
    q = lookup_of(1, "load");
    q.features_json = "{\"scenario\": \"low\"}";
    CHECK(tsstore_remove(s, &q));
    EXPECT(tsstore_remove(s, &q), TSSTORE_E_NOT_FOUND);
    q.features_json = NULL;
    CHECK(tsstore_has(s, &q, &found));
    ASSERT(found == 1); /* the other three */

    CHECK(tsstore_close(s));
    return finish("test_lookup");
}
