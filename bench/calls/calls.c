/* The C side of tsbench's "calls" workload: what one library call costs from C, the floor a
 * binding adds its own overhead to. tsbench compiles it against the built libtsstore.
 *
 *   calls make STORE.nc N LENGTH      writes N hourly f64 series of LENGTH steps in one batch
 *   calls time STORE.nc N LENGTH REPEATS
 *     opens the store read-only and prints the median of REPEATS calls, in µs:
 *       get_us   tsstore_get + tsstore_series_data into a caller buffer + tsstore_series_free
 *       step_us  tsstore_static_reader_read_step over all N + group_values into a buffer
 *       has_us   tsstore_has
 * Owners are 0..N-1, name "max_active_power", values 50 + 30 sin((h + i) / 24), as the Python
 * side (calls.py) expects.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tsstore.h>

static void die(int32_t st, const char *what) {
    char msg[512];
    size_t needed = 0;
    tsstore_last_error(msg, sizeof msg, &needed);
    fprintf(stderr, "calls: %s: status %d: %s\n", what, st, msg);
    exit(1);
}
#define CALL(x)                               \
    do {                                      \
        int32_t st_ = (x);                    \
        if (st_ != TSSTORE_OK) die(st_, #x);  \
    } while (0)

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp);
    return v[n / 2];
}

static const int64_t T0_MS = 1893456000000; /* 2030-01-01T00:00:00Z */

static int make(const char *path, size_t n, size_t length) {
    tsstore_store *s = NULL;
    tsstore_batch *b = NULL;
    double *v = malloc(length * sizeof *v);
    CALL(tsstore_create(path, NULL, &s));
    CALL(tsstore_batch_new(s, &b));
    int64_t shape[1] = {(int64_t)length};
    for (size_t i = 0; i < n; i++) {
        for (size_t h = 0; h < length; h++) v[h] = 50 + 30 * sin((double)(h + i) / 24);
        CALL(tsstore_batch_add_single(b, (int64_t)i, "PowerLoad", TSSTORE_OWNER_COMPONENT, "max_active_power", T0_MS,
                                      "PT1H", TSSTORE_DTYPE_F64, shape, 1, v, length * sizeof *v, NULL, NULL, NULL));
    }
    CALL(tsstore_batch_commit(b, NULL));
    tsstore_batch_free(b);
    CALL(tsstore_close(s));
    free(v);
    return 0;
}

static int time_calls(const char *path, size_t n, size_t length, size_t repeats) {
    tsstore_store *s = NULL;
    CALL(tsstore_open(path, 1, &s));
    tsstore_key **keys = malloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++)
        CALL(tsstore_key_new((int64_t)i, TSSTORE_OWNER_COMPONENT, TSSTORE_SINGLE_TIME_SERIES, "max_active_power", "PT1H",
                             NULL, NULL, &keys[i]));
    double *took = malloc(repeats * sizeof *took);
    double *buf = malloc((length > n ? length : n) * sizeof(double));
    size_t needed = 0;
    for (size_t r = 0; r < repeats / 10; r++) { /* warm-up: the catalog's pages, the chunk cache */
        tsstore_series *ts = NULL;
        CALL(tsstore_get(s, keys[(r * 7919) % n], &ts));
        tsstore_series_free(ts);
    }
    for (size_t r = 0; r < repeats; r++) {
        size_t i = (r * 7919) % n;
        double t = now_us();
        tsstore_series *ts = NULL;
        CALL(tsstore_get(s, keys[i], &ts));
        CALL(tsstore_series_data(ts, buf, length * sizeof(double), &needed));
        tsstore_series_free(ts);
        took[r] = now_us() - t;
        if (fabs(buf[1] - (50 + 30 * sin((double)(1 + i) / 24))) > 1e-12) {
            fprintf(stderr, "calls: series %zu read back a wrong value\n", i);
            return 1;
        }
    }
    double get_us = median(took, repeats);

    tsstore_static_reader *rd = NULL;
    CALL(tsstore_static_reader_new(s, "PT1H", (const tsstore_key *const *)keys, n, &rd));
    for (size_t r = 0; r < repeats; r++) {
        double t = now_us();
        CALL(tsstore_static_reader_read_step(rd, (int64_t)(r % length)));
        CALL(tsstore_static_reader_group_values(rd, 0, buf, n * sizeof(double), &needed));
        took[r] = now_us() - t;
    }
    double step_us = median(took, repeats);
    tsstore_static_reader_free(rd);

    for (size_t r = 0; r < repeats; r++) {
        int32_t found = 0;
        double t = now_us();
        CALL(tsstore_has(s, keys[(r * 7919) % n], &found));
        took[r] = now_us() - t;
        if (!found) {
            fprintf(stderr, "calls: has missed a stored key\n");
            return 1;
        }
    }
    double has_us = median(took, repeats);
    printf("get_us=%.3f\nstep_us=%.3f\nhas_us=%.3f\n", get_us, step_us, has_us);
    for (size_t i = 0; i < n; i++) tsstore_key_free(keys[i]);
    CALL(tsstore_close(s));
    free(keys);
    free(took);
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "make") == 0)
        return make(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10));
    if (argc == 6 && strcmp(argv[1], "time") == 0 && strtoul(argv[5], NULL, 10) > 0)
        return time_calls(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10), strtoul(argv[5], NULL, 10));
    fprintf(stderr, "usage: calls make STORE.nc N LENGTH | calls time STORE.nc N LENGTH REPEATS\n");
    return 2;
}
