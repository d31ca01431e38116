/* quickstart: a sample power system in a tsstore store, from C.
 *
 *   quickstart [output-directory] [buses]
 *
 * Loads a year of hourly demand for every bus in one batch (f64), daily quadratic cost curves
 * for the generators (f64, three coefficients per day), must-run flags (bool), irregular
 * outage records, and day-ahead wind forecasts of each kind (Deterministic, Probabilistic,
 * Scenarios); derives day-ahead views over the demand (a transform); reads one series back
 * into a buffer of its own size; then, as a simulation would, sweeps a week of demand hour by
 * hour with a StaticReader and every day-ahead window of the year with a ForecastReader, both
 * writing into buffers bound once. Everything read is checked against what was written, and a
 * short summary is printed. */
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
#define H 48                           /* day-ahead horizon: 48 hours */
#define WINDOWS ((HOURS - H) / 24 + 1) /* one window a day: 364 */

#define verify(cond, ...)                                \
    do {                                                 \
        if (!(cond)) {                                   \
            fprintf(stderr, "quickstart: " __VA_ARGS__); \
            fprintf(stderr, "\n");                       \
            status = 1;                                  \
            goto done;                                   \
        }                                                \
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
    int n = buses + WIND; /* the components the ForecastReader reads */
    char path[1024];
    fresh_store_path(path, sizeof path, dir, "quickstart");

    int status = 0;
    tsstore_store *s = NULL;
    tsstore_static_reader *sr = NULL;
    tsstore_forecast_reader *fr = NULL;
    tsstore_series_desc *loads = malloc((size_t)buses * sizeof *loads);
    double *year = malloc((size_t)buses * HOURS * sizeof *year);
    double *det = malloc((size_t)H * WINDOWS * sizeof *det);
    double *quant = malloc((size_t)3 * H * WINDOWS * sizeof *quant);
    tsstore_lookup *which = malloc((size_t)n * sizeof *which);
    double *values = malloc((size_t)n * H * sizeof *values);
    int64_t *order = malloc((size_t)n * sizeof *order);
    double *back = NULL;
    if (!loads || !year || !det || !quant || !which || !values || !order) {
        fprintf(stderr, "quickstart: out of memory\n");
        status = 1;
        goto done;
    }
    /* Periods come from ISO-8601 text, parsed by the store's own calendar. */
    tsstore_period hourly, daily, day_ahead;
    check(tsstore_period_parse("PT1H", &hourly));
    check(tsstore_period_parse("P1D", &daily));
    check(tsstore_period_parse("PT48H", &day_ahead));

    double began = now();
    check(tsstore_create(path, NULL, &s));
    /* A year of hourly demand per bus: one descriptor each, added in one all-or-nothing call. */
    int64_t year_shape[1];
    for (int b = 0; b < buses; b++) {
        for (int h = 0; h < HOURS; h++) year[(size_t)b * HOURS + h] = demand(b, h);
        loads[b] = hourly_series(1000 + b, "PowerLoad", "max_active_power", T0, &year[(size_t)b * HOURS], HOURS,
                                 year_shape);
        loads[b].features_json = "{\"scenario\": \"reference\"}";
        loads[b].units = "MW";
    }
    check(tsstore_add_batch(s, loads, (size_t)buses, NULL));

    /* Generators: daily cost curves (shape [365, 3]) and hourly must-run flags. */
    static double cost[365 * 3];
    static unsigned char must_run[HOURS];
    int64_t cost_shape[2] = {365, 3};
    for (int g = 0; g < GENS; g++) {
        for (int d = 0; d < 365; d++) {
            cost[3 * d] = 0.01 * (g % 5 + 1), cost[3 * d + 1] = 20 + d % 30, cost[3 * d + 2] = 150;
        }
        for (int h = 0; h < HOURS; h++) must_run[h] = (h % 24) < 6 && g % 3 == 0;
        tsstore_series_desc curve = series_of(5000 + g, "ThermalStandard", "variable_cost");
        curve.initial_ms = T0;
        curve.resolution = daily;
        set_array(&curve, cost, sizeof cost, cost_shape, 2);
        curve.units = "$/MWh";
        curve.ext = "{\"function_type\":\"QuadraticFunctionData\"}";
        check(tsstore_add(s, &curve, NULL));

        tsstore_series_desc flags = series_of(5000 + g, "ThermalStandard", "must_run");
        flags.initial_ms = T0;
        flags.resolution = hourly;
        flags.dtype = TSSTORE_DTYPE_BOOL; /* one byte per step, 0 or 1 */
        set_array(&flags, must_run, sizeof must_run, year_shape, 1);
        check(tsstore_add(s, &flags, NULL));
    }
    /* Outage records on lines: irregular timestamps (a NonSequentialTimeSeries). */
    for (int l = 0; l < 10; l++) {
        int64_t stamps[4] = {T0 + (l * 31 + 2) * DAY, T0 + (l * 31 + 2) * DAY + 90 * 60000LL, T0 + (l * 31 + 9) * DAY,
                             T0 + (l * 31 + 20) * DAY};
        double derate[4] = {0.5, 0.0, 1.0, 0.25};
        int64_t outage_shape[1] = {4};
        tsstore_series_desc outage = series_of(9000 + l, "Line", "outage");
        outage.series_type = TSSTORE_NON_SEQUENTIAL_TIME_SERIES;
        outage.timestamps_ms = stamps;
        set_array(&outage, derate, sizeof derate, outage_shape, 1);
        check(tsstore_add(s, &outage, NULL));
    }
    /* Day-ahead wind forecasts, one window a day: Deterministic [48, 364]; Probabilistic
     * (three percentiles) and Scenarios (three scenarios) [3, 48, 364]. */
    int64_t det_shape[2] = {H, WINDOWS}, layered_shape[3] = {3, H, WINDOWS};
    double percentiles[3] = {0.1, 0.5, 0.9};
    for (int p = 0; p < WIND; p++) {
        for (int h = 0; h < H; h++)
            for (int w = 0; w < WINDOWS; w++) det[h * WINDOWS + w] = wind(p, w, h);
        for (int q = 0; q < 3; q++)
            for (int i = 0; i < H * WINDOWS; i++) quant[q * H * WINDOWS + i] = det[i] * (0.7 + 0.3 * q);
        tsstore_series_desc f = series_of(7000 + p, "RenewableDispatch", "max_active_power");
        f.series_type = TSSTORE_DETERMINISTIC;
        f.initial_ms = T0;
        f.resolution = hourly;
        f.horizon = day_ahead;
        f.interval = daily;
        f.count = WINDOWS;
        set_array(&f, det, (size_t)H * WINDOWS * sizeof *det, det_shape, 2);
        f.units = "MW";
        check(tsstore_add(s, &f, NULL));

        f.series_type = TSSTORE_PROBABILISTIC; /* the same forecast, with a layer axis */
        f.percentiles = percentiles;
        f.n_percentiles = 3;
        set_array(&f, quant, (size_t)3 * H * WINDOWS * sizeof *quant, layered_shape, 3);
        check(tsstore_add(s, &f, NULL));

        f.series_type = TSSTORE_SCENARIOS;
        f.percentiles = NULL;
        f.n_percentiles = 0;
        check(tsstore_add(s, &f, NULL));
    }
    /* Day-ahead views over every bus's demand: catalog rows only, no array copied. */
    int64_t derived = 0;
    check(tsstore_transform_single_time_series(s, &day_ahead, &daily, TSSTORE_OWNER_COMPONENT, &hourly, &derived));
    check(tsstore_flush(s));
    double load_time = now() - began;

    /* One series read back into a buffer of its own size: describe it, then read it. */
    tsstore_lookup bus7 = TSSTORE_LOOKUP_INIT; /* a component's SingleTimeSeries */
    bus7.owner_id = 1000 + 7 % buses;
    bus7.name = "max_active_power";
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    check(tsstore_get_info(s, &bus7, &info));
    char resolution[32];
    size_t needed = 0;
    check(tsstore_period_format(&info.key.resolution, resolution, sizeof resolution, &needed));
    printf("bus %lld's %s: %lld steps of %s in %s, features %s\n", (long long)info.key.owner_id, info.key.name,
           (long long)info.length, resolution, info.units, info.key.features_json);
    back = malloc((size_t)info.nbytes);
    verify(back != NULL, "out of memory");
    check(tsstore_get(s, &bus7, back, (size_t)info.nbytes, &info));
    for (int h = 0; h < HOURS; h++)
        verify(back[h] == demand(7 % buses, h), "bus 7 hour %d reads %g", h, back[h]);

    /* A week of demand, hour by hour, for every bus: the reader writes each step straight
     * into the buffer bound to its group (one group: every key is an f64 scalar). */
    for (int b = 0; b < buses; b++) {
        tsstore_lookup q = TSSTORE_LOOKUP_INIT;
        q.owner_id = 1000 + b;
        q.name = "max_active_power";
        which[b] = q;
    }
    check(tsstore_static_reader_new(s, &hourly, which, (size_t)buses, &sr));
    check(tsstore_static_reader_group_keys(sr, 0, order, (size_t)buses, &needed)); /* which[] index per value */
    check(tsstore_static_reader_bind(sr, 0, values, (size_t)buses * sizeof *values));
    began = now();
    for (int h = 0; h < 24 * 7; h++) {
        check(tsstore_static_reader_read_step(sr, h));
        for (int j = 0; j < buses; j++)
            verify(values[j] == demand((int)order[j], h), "bus %d hour %d reads %g", (int)order[j], h, values[j]);
    }
    double static_time = now() - began;

    /* Every day-ahead window of the year: the bus views and the wind forecasts together.
     * TSSTORE_ABSTRACT_DETERMINISTIC takes a Deterministic or a derived view alike. */
    for (int k = 0; k < n; k++) {
        tsstore_lookup q = TSSTORE_LOOKUP_INIT;
        q.series_type = TSSTORE_ABSTRACT_DETERMINISTIC;
        q.owner_id = k < buses ? 1000 + k : 7000 + (k - buses);
        q.name = "max_active_power";
        q.interval = daily;
        which[k] = q;
    }
    check(tsstore_forecast_reader_new(s, TSSTORE_ABSTRACT_DETERMINISTIC, &hourly, which, (size_t)n, &fr));
    tsstore_reader_info timeline = TSSTORE_READER_INFO_INIT;
    check(tsstore_forecast_reader_info(fr, &timeline));
    verify(timeline.steps == WINDOWS && timeline.n_groups == 1, "%lld windows in %d groups",
           (long long)timeline.steps, (int)timeline.n_groups);
    check(tsstore_forecast_reader_group_keys(fr, 0, order, (size_t)n, &needed));
    check(tsstore_forecast_reader_bind(fr, 0, values, (size_t)n * H * sizeof *values)); /* [n, 48] */
    began = now();
    for (int w = 0; w < WINDOWS; w++) {
        check(tsstore_forecast_reader_read_window(fr, w));
        for (int j = 0; j < n; j++) {
            int k = (int)order[j];
            for (int h = 0; h < H; h++) {
                double want = k < buses ? demand(k, 24 * w + h) : wind(k - buses, w, h);
                verify(values[j * H + h] == want, "key %d window %d hour %d reads %g, wrote %g", k, w, h,
                       values[j * H + h], want);
            }
        }
    }
    double forecast_time = now() - began;

    tsstore_type_counts counts = TSSTORE_TYPE_COUNTS_INIT;
    check(tsstore_counts_by_type(s, &counts));
    printf("tsstore %s (data format %s): %s\n", TSSTORE_VERSION_STRING, TSSTORE_DATA_FORMAT_VERSION, path);
    printf("  %lld SingleTimeSeries, %lld NonSequential, %lld Deterministic, %lld DeterministicSingleTimeSeries,"
           " %lld Probabilistic, %lld Scenarios\n",
           (long long)counts.single_time_series, (long long)counts.non_sequential_time_series,
           (long long)counts.deterministic, (long long)counts.deterministic_single_time_series,
           (long long)counts.probabilistic, (long long)counts.scenarios);
    printf("  wrote %d buses x %d hours, %d generators, 10 lines, %d wind plants; %lld views derived: %.2f s\n",
           buses, HOURS, GENS, WIND, (long long)derived, load_time);
    printf("  StaticReader, 168 hours x %d buses: %.3f us per (bus, hour), verified\n", buses,
           1e6 * static_time / (168.0 * buses));
    printf("  ForecastReader, %d windows of %d h x %d components: %.3f us per (component, window), verified\n",
           WINDOWS, H, n, 1e6 * forecast_time / ((double)WINDOWS * n));

done:
    tsstore_forecast_reader_free(fr);
    tsstore_static_reader_free(sr);
    if (tsstore_close(s) != TSSTORE_OK) status = 1;
    free(loads);
    free(year);
    free(det);
    free(quant);
    free(which);
    free(values);
    free(order);
    free(back);
    return status;
}
