/* quickstart: a small power system in a tsstore store, from C.
 *
 *   quickstart [output-directory]
 *
 * Writes hourly load for a few buses (f64), daily quadratic cost curves (i64 [3] per step),
 * must-run flags (bool), an irregular outage record, and one forecast of each kind, then
 * reopens the store read-only, reads everything back, checks it and prints a summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tsstore.h"

#define T0 1893456000000LL /* 2030-01-01T00:00:00Z */
#define HOUR 3600000LL
#define BUSES 5
#define HOURS (24 * 7)

/* check prints the call, its status and the library's message, and jumps to cleanup. */
#define check(call)                                                                           \
    do {                                                                                      \
        int32_t st_ = (call);                                                                 \
        if (st_ != TSSTORE_OK) {                                                              \
            char msg_[1024];                                                                  \
            size_t n_ = 0;                                                                    \
            tsstore_last_error(msg_, sizeof msg_, &n_);                                       \
            fprintf(stderr, "quickstart: %s: %s: %s\n", #call, tsstore_status_name(st_), msg_); \
            status = 1;                                                                       \
            goto done;                                                                        \
        }                                                                                     \
    } while (0)

static double load(int bus, int h) { return 100.0 + 10.0 * bus + 25.0 * ((h % 24) >= 8 && (h % 24) < 20); }

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024], cat[1100];
    snprintf(path, sizeof path, "%s/quickstart.nc", dir);
    snprintf(cat, sizeof cat, "%s.sqlite", path);
    remove(path);
    remove(cat);

    int status = 0;
    tsstore_store *s = NULL;
    tsstore_keys *keys = NULL;
    tsstore_key *key = NULL;
    tsstore_series *r = NULL;
    double values[HOURS], back[HOURS];

    check(tsstore_create(path, NULL, &s));
    for (int b = 0; b < BUSES; b++) {
        int64_t shape[1] = {HOURS};
        for (int h = 0; h < HOURS; h++) values[h] = load(b, h);
        check(tsstore_add_single(s, 100 + b, "PowerLoad", TSSTORE_OWNER_COMPONENT, "max_active_power", T0, "PT1H",
                                 TSSTORE_DTYPE_F64, shape, 1, values, sizeof values, "{\"scenario\": \"base\"}", "MW",
                                 NULL, NULL));
    }
    int64_t cost[7 * 3], cshape[2] = {7, 3};
    for (int d = 0; d < 7; d++) {
        cost[3 * d] = 2, cost[3 * d + 1] = 20 + d, cost[3 * d + 2] = 150;
    }
    check(tsstore_add_single(s, 200, "ThermalStandard", TSSTORE_OWNER_COMPONENT, "variable_cost", T0, "P1D",
                             TSSTORE_DTYPE_I64, cshape, 2, cost, sizeof cost, NULL, NULL,
                             "{\"function_type\":\"QuadraticFunctionData\"}", NULL));
    unsigned char must_run[HOURS];
    int64_t fshape[1] = {HOURS};
    for (int h = 0; h < HOURS; h++) must_run[h] = (h % 24) < 6;
    check(tsstore_add_single(s, 200, "ThermalStandard", TSSTORE_OWNER_COMPONENT, "must_run", T0, "PT1H",
                             TSSTORE_DTYPE_BOOL, fshape, 1, must_run, sizeof must_run, NULL, NULL, NULL, NULL));
    int64_t stamps[3] = {T0 + 30 * HOUR, T0 + 31 * HOUR + 15 * 60000, T0 + 90 * HOUR};
    double derate[3] = {0.5, 1.0, 0.25};
    int64_t oshape[1] = {3};
    check(tsstore_add_nonsequential(s, 300, "Line", TSSTORE_OWNER_COMPONENT, "outage", stamps, 3, TSSTORE_DTYPE_F64,
                                    oshape, 1, derate, sizeof derate, NULL, NULL, NULL, NULL));

    /* Day-ahead forecasts for a wind plant: 6 daily windows of 24 hours. */
    enum { H = 24, W = 6, P = 3 };
    static double det[H * W], prob[P * H * W];
    for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++) det[h * W + w] = 40 + h + w;
    for (int p = 0; p < P; p++)
        for (int i = 0; i < H * W; i++) prob[p * H * W + i] = det[i] * (0.8 + 0.2 * p);
    int64_t dshape[2] = {H, W}, pshape[3] = {P, H, W};
    double pct[P] = {0.1, 0.5, 0.9};
    check(tsstore_add_forecast(s, 400, "RenewableDispatch", TSSTORE_OWNER_COMPONENT, "max_active_power",
                               TSSTORE_DETERMINISTIC, T0, "PT1H", "P1D", "P1D", W, NULL, 0, TSSTORE_DTYPE_F64, dshape,
                               2, det, sizeof det, NULL, "MW", NULL, NULL));
    check(tsstore_add_forecast(s, 400, "RenewableDispatch", TSSTORE_OWNER_COMPONENT, "max_active_power",
                               TSSTORE_PROBABILISTIC, T0, "PT1H", "P1D", "P1D", W, pct, P, TSSTORE_DTYPE_F64, pshape,
                               3, prob, sizeof prob, NULL, "MW", NULL, NULL));
    check(tsstore_add_forecast(s, 400, "RenewableDispatch", TSSTORE_OWNER_COMPONENT, "max_active_power",
                               TSSTORE_SCENARIOS, T0, "PT1H", "P1D", "P1D", W, NULL, 0, TSSTORE_DTYPE_F64, pshape, 3,
                               prob, sizeof prob, NULL, "MW", NULL, NULL));
    check(tsstore_close(s));
    s = NULL;

    /* Read everything back from a read-only open. */
    check(tsstore_open(path, 1, &s));
    size_t n = 0, needed = 0;
    check(tsstore_list_keys(s, 0, 0, -1, -1, NULL, NULL, NULL, &keys));
    check(tsstore_keys_len(keys, &n));
    for (int b = 0; b < BUSES; b++) {
        check(tsstore_key_new(100 + b, TSSTORE_OWNER_COMPONENT, TSSTORE_SINGLE_TIME_SERIES, "max_active_power", "PT1H",
                              NULL, "{\"scenario\": \"base\"}", &key));
        check(tsstore_get(s, key, &r));
        check(tsstore_series_data(r, back, sizeof back, &needed));
        for (int h = 0; h < HOURS; h++) {
            if (back[h] != load(b, h)) {
                fprintf(stderr, "quickstart: bus %d hour %d reads %g, wrote %g\n", b, h, back[h], load(b, h));
                status = 1;
                goto done;
            }
        }
        tsstore_series_free(r);
        r = NULL;
        tsstore_key_free(key);
        key = NULL;
    }
    /* Window 3 of the deterministic forecast: 24 values, det[h * W + 3]. */
    check(tsstore_key_new(400, TSSTORE_OWNER_COMPONENT, TSSTORE_DETERMINISTIC, "max_active_power", "PT1H", "P1D", NULL,
                          &key));
    check(tsstore_get_windows(s, key, T0 + 3 * 24 * HOUR, T0 + 3 * 24 * HOUR, &r));
    check(tsstore_series_data(r, back, sizeof back, &needed));
    for (int h = 0; h < H; h++) {
        if (back[h] != det[h * W + 3]) {
            fprintf(stderr, "quickstart: forecast window 3 hour %d reads %g\n", h, back[h]);
            status = 1;
            goto done;
        }
    }
    printf("tsstore %s (data format %s): %s\n", TSSTORE_VERSION_STRING, TSSTORE_DATA_FORMAT_VERSION, path);
    printf("  %zu series: %d hourly loads, a [3]-per-day cost curve, must-run flags, an outage record,\n", n, BUSES);
    printf("  and a Deterministic, a Probabilistic and a Scenarios forecast (%d daily windows of %d h)\n", W, H);
    printf("  read back and verified; forecast window 3 starts at %.0f MW\n", back[0]);

done:
    tsstore_series_free(r);
    tsstore_key_free(key);
    tsstore_keys_free(keys);
    if (tsstore_close(s) != TSSTORE_OK) status = 1;
    return status;
}
