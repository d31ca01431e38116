/* quickstart: a sample power system in a tsstore store, from C.
 *
 *   quickstart [output-directory] [buses]
 *
 * Loads a year of hourly demand for every bus in one batch (f64), daily quadratic cost curves
 * for the generators (f64, three coefficients per day), must-run flags (bool), irregular
 * outage records, and day-ahead wind forecasts of each kind (Deterministic, Probabilistic,
 * Scenarios); derives day-ahead views over the demand (a transform); then, as a simulation
 * would, sweeps a week of demand hour by hour with a StaticReader and every day-ahead window
 * of the year with a ForecastReader. Everything read is checked against what was written,
 * and a short summary is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define EXAMPLE "quickstart"
#include "example.h"

#define T0 1893456000000LL /* 2030-01-01T00:00:00Z */
#define HOUR 3600000LL
#define DAY (24 * HOUR)
#define HOURS 8760
#define GENS 50
#define WIND 20
#define H 48                     /* day-ahead horizon: 48 hours */
#define WINDOWS ((HOURS - H) / 24 + 1) /* one window a day: 364 */


#define verify(cond, ...)                                      \
    do {                                                       \
        if (!(cond)) {                                         \
            fprintf(stderr, "quickstart: " __VA_ARGS__);       \
            fprintf(stderr, "\n");                             \
            status = 1;                                        \
            goto done;                                         \
        }                                                      \
    } while (0)

static double demand(int bus, int h) {
    int hod = h % 24, day = h / 24;
    return 50.0 + bus % 17 + 20.0 * (hod >= 7 && hod < 21) + 5.0 * ((day % 7) < 5) + 0.01 * (day % 90);
}

static double wind(int plant, int window, int step) { return 10.0 + plant + 0.5 * step + (window % 30); }

/* Wall-clock seconds (C11 timespec_get). */
static double now(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    int buses = argc > 2 ? atoi(argv[2]) : 500;
    if (buses < 1 || buses > 100000) buses = 500;
    char path[1024];
    fresh_store_path(path, sizeof path, dir, "quickstart");

    int status = 0;
    tsstore_store *s = NULL;
    tsstore_batch *batch = NULL;
    tsstore_key **keys = calloc((size_t)buses + WIND, sizeof *keys);
    tsstore_static_reader *sr = NULL;
    tsstore_forecast_reader *fr = NULL;
    double *year = malloc(HOURS * sizeof *year);
    double *det = malloc((size_t)H * WINDOWS * sizeof *det);
    double *quant = malloc((size_t)3 * H * WINDOWS * sizeof *quant);
    double *values = malloc(((size_t)buses + WIND) * H * sizeof *values);
    int64_t *order = malloc(((size_t)buses + WIND) * sizeof *order);
    if (!keys || !year || !det || !quant || !values || !order) {
        fprintf(stderr, "quickstart: out of memory\n");
        status = 1;
        goto done;
    }

    double began = now();
    check(tsstore_create(path, NULL, &s));
    /* A year of hourly demand per bus, in one all-or-nothing batch. */
    check(tsstore_batch_new(s, &batch));
    int64_t yshape[1] = {HOURS};
    for (int b = 0; b < buses; b++) {
        for (int h = 0; h < HOURS; h++) year[h] = demand(b, h);
        check(tsstore_batch_add_single(batch, 1000 + b, "PowerLoad", TSSTORE_OWNER_COMPONENT, "max_active_power", T0,
                                       "PT1H", TSSTORE_DTYPE_F64, yshape, 1, year, HOURS * sizeof *year,
                                       "{\"scenario\": \"reference\"}", "MW", NULL));
    }
    check(tsstore_batch_commit(batch, NULL));

    /* Generators: daily cost curves ([365, 3]), must-run flags; outage records on lines. */
    static double cost[365 * 3];
    static unsigned char must_run[HOURS];
    int64_t cshape[2] = {365, 3};
    for (int g = 0; g < GENS; g++) {
        for (int d = 0; d < 365; d++) {
            cost[3 * d] = 0.01 * (g % 5 + 1), cost[3 * d + 1] = 20 + d % 30, cost[3 * d + 2] = 150;
        }
        for (int h = 0; h < HOURS; h++) must_run[h] = (h % 24) < 6 && g % 3 == 0;
        check(tsstore_add_single(s, 5000 + g, "ThermalStandard", TSSTORE_OWNER_COMPONENT, "variable_cost", T0, "P1D",
                                 TSSTORE_DTYPE_F64, cshape, 2, cost, sizeof cost, NULL, "$/MWh",
                                 "{\"function_type\":\"QuadraticFunctionData\"}", NULL));
        check(tsstore_add_single(s, 5000 + g, "ThermalStandard", TSSTORE_OWNER_COMPONENT, "must_run", T0, "PT1H",
                                 TSSTORE_DTYPE_BOOL, yshape, 1, must_run, sizeof must_run, NULL, NULL, NULL, NULL));
    }
    for (int l = 0; l < 10; l++) {
        int64_t stamps[4] = {T0 + (l * 31 + 2) * DAY, T0 + (l * 31 + 2) * DAY + 90 * 60000LL, T0 + (l * 31 + 9) * DAY,
                             T0 + (l * 31 + 20) * DAY};
        double derate[4] = {0.5, 0.0, 1.0, 0.25};
        int64_t oshape[1] = {4};
        check(tsstore_add_nonsequential(s, 9000 + l, "Line", TSSTORE_OWNER_COMPONENT, "outage", stamps, 4,
                                        TSSTORE_DTYPE_F64, oshape, 1, derate, sizeof derate, NULL, NULL, NULL, NULL));
    }
    /* Day-ahead wind forecasts: [48, 364]; quantiles and scenarios: [3, 48, 364]. */
    int64_t dshape[2] = {H, WINDOWS}, qshape[3] = {3, H, WINDOWS};
    double pct[3] = {0.1, 0.5, 0.9};
    for (int p = 0; p < WIND; p++) {
        for (int h = 0; h < H; h++)
            for (int w = 0; w < WINDOWS; w++) det[h * WINDOWS + w] = wind(p, w, h);
        for (int q = 0; q < 3; q++)
            for (int i = 0; i < H * WINDOWS; i++) quant[q * H * WINDOWS + i] = det[i] * (0.7 + 0.3 * q);
        int64_t owner = 7000 + p;
        check(tsstore_add_forecast(s, owner, "RenewableDispatch", TSSTORE_OWNER_COMPONENT, "max_active_power",
                                   TSSTORE_DETERMINISTIC, T0, "PT1H", "PT48H", "P1D", WINDOWS, NULL, 0,
                                   TSSTORE_DTYPE_F64, dshape, 2, det, (size_t)H * WINDOWS * sizeof *det, NULL, "MW",
                                   NULL, NULL));
        check(tsstore_add_forecast(s, owner, "RenewableDispatch", TSSTORE_OWNER_COMPONENT, "max_active_power",
                                   TSSTORE_PROBABILISTIC, T0, "PT1H", "PT48H", "P1D", WINDOWS, pct, 3,
                                   TSSTORE_DTYPE_F64, qshape, 3, quant, (size_t)3 * H * WINDOWS * sizeof *quant, NULL,
                                   "MW", NULL, NULL));
        check(tsstore_add_forecast(s, owner, "RenewableDispatch", TSSTORE_OWNER_COMPONENT, "max_active_power",
                                   TSSTORE_SCENARIOS, T0, "PT1H", "PT48H", "P1D", WINDOWS, NULL, 0, TSSTORE_DTYPE_F64,
                                   qshape, 3, quant, (size_t)3 * H * WINDOWS * sizeof *quant, NULL, "MW", NULL, NULL));
    }
    /* Day-ahead views over every bus's demand: catalog rows only. */
    int64_t derived = 0;
    check(tsstore_transform_single_time_series(s, "PT48H", "P1D", TSSTORE_OWNER_COMPONENT, "PT1H", &derived));
    check(tsstore_flush(s));
    double load_time = (now() - began);

    /* A week of demand, hour by hour, for every bus. */
    for (int b = 0; b < buses; b++)
        check(tsstore_key_new(1000 + b, TSSTORE_OWNER_COMPONENT, TSSTORE_SINGLE_TIME_SERIES, "max_active_power",
                              "PT1H", NULL, "{\"scenario\": \"reference\"}", &keys[b]));
    check(tsstore_static_reader_new(s, "PT1H", (const tsstore_key *const *)keys, (size_t)buses, &sr));
    size_t needed = 0;
    check(tsstore_static_reader_group_keys(sr, 0, order, (size_t)buses, &needed));
    began = now();
    for (int h = 0; h < 24 * 7; h++) {
        check(tsstore_static_reader_read(sr, T0 + h * HOUR));
        check(tsstore_static_reader_group_values(sr, 0, values, (size_t)buses * sizeof *values, &needed));
        for (int j = 0; j < buses; j++)
            verify(values[j] == demand((int)order[j], h), "bus %d hour %d reads %g", (int)order[j], h, values[j]);
    }
    double static_time = (now() - began);

    /* Every day-ahead window of the year: the bus views and the wind forecasts together. */
    for (int b = 0; b < buses; b++) {
        tsstore_key_free(keys[b]);
        keys[b] = NULL;
        check(tsstore_key_new(1000 + b, TSSTORE_OWNER_COMPONENT, TSSTORE_ABSTRACT_DETERMINISTIC, "max_active_power",
                              "PT1H", "P1D", "{\"scenario\": \"reference\"}", &keys[b]));
    }
    for (int p = 0; p < WIND; p++)
        check(tsstore_key_new(7000 + p, TSSTORE_OWNER_COMPONENT, TSSTORE_ABSTRACT_DETERMINISTIC, "max_active_power",
                              "PT1H", "P1D", NULL, &keys[buses + p]));
    int n = buses + WIND;
    check(tsstore_forecast_reader_new(s, TSSTORE_ABSTRACT_DETERMINISTIC, "PT1H", (const tsstore_key *const *)keys,
                                      (size_t)n, &fr));
    check(tsstore_forecast_reader_group_keys(fr, 0, order, (size_t)n, &needed));
    began = now();
    for (int w = 0; w < WINDOWS; w++) {
        check(tsstore_forecast_reader_read(fr, T0 + w * DAY));
        check(tsstore_forecast_reader_group_values(fr, 0, values, (size_t)n * H * sizeof *values, &needed));
        for (int j = 0; j < n; j++) {
            int k = (int)order[j];
            for (int h = 0; h < H; h++) {
                double want = k < buses ? demand(k, 24 * w + h) : wind(k - buses, w, h);
                verify(values[j * H + h] == want, "key %d window %d hour %d reads %g, wrote %g", k, w, h,
                       values[j * H + h], want);
            }
        }
    }
    double forecast_time = (now() - began);

    int64_t counts[7];
    check(tsstore_counts_by_type(s, counts));
    printf("tsstore %s (data format %s): %s\n", TSSTORE_VERSION_STRING, TSSTORE_DATA_FORMAT_VERSION, path);
    printf("  %lld SingleTimeSeries, %lld NonSequential, %lld Deterministic, %lld DeterministicSingleTimeSeries,"
           " %lld Probabilistic, %lld Scenarios\n",
           (long long)counts[0], (long long)counts[1], (long long)counts[2], (long long)counts[3],
           (long long)counts[4], (long long)counts[5]);
    printf("  wrote %d buses x %d hours, %d generators, 10 lines, %d wind plants; %lld views derived: %.2f s\n",
           buses, HOURS, GENS, WIND, (long long)derived, load_time);
    printf("  StaticReader, 168 hours x %d buses: %.3f us per (bus, hour), verified\n", buses,
           1e6 * static_time / (168.0 * buses));
    printf("  ForecastReader, %d windows of %d h x %d components: %.3f us per (component, window), verified\n",
           WINDOWS, H, n, 1e6 * forecast_time / ((double)WINDOWS * n));

done:
    tsstore_forecast_reader_free(fr);
    tsstore_static_reader_free(sr);
    tsstore_batch_free(batch);
    if (keys)
        for (int i = 0; i < buses + WIND; i++) tsstore_key_free(keys[i]);
    free(keys);
    free(year);
    free(det);
    free(quant);
    free(values);
    free(order);
    if (tsstore_close(s) != TSSTORE_OK) status = 1;
    return status;
}
