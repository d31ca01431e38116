/* The C side of tsbench's "calls" workload: what one library call costs from C, the floor a
 * binding adds its own overhead to. tsbench compiles it against the built libtsstore.
 *
 *   calls make STORE.nc N LENGTH      writes N hourly f64 series of LENGTH steps in one batch
 *   calls time STORE.nc N LENGTH REPEATS
 *     opens the store read-only and prints the median of REPEATS calls, in µs:
 *       get_us   a buffer of the size the key's last read had, tsstore_get into it (what the
 *                Python binding's get does: one call once a key was read, by the key with the
 *                id that read found as its hint; a key never read, or grown, is described
 *                first by tsstore_get_info)
 *       step_us  tsstore_static_reader_read_step over all N, into the buffer bound to its group
 *       has_us   tsstore_has
 * Owners are 0..N-1, name "max_active_power", values 50 + 30 sin((h + i) / 24), as the Python
 * side (calls.py) expects. The lookups give every field of the key (features "": none), so
 * each costs one index probe.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tsstore.h>

static void die(int32_t st, const char *what) {
    char msg[1024];
    tsstore_last_error_message(msg, sizeof msg, NULL);
    fprintf(stderr, "calls: %s: %s: %s\n", what, tsstore_status_name(st), msg);
    exit(1);
}
#define CALL(x)                              \
    do {                                     \
        int32_t st_ = (x);                   \
        if (st_ != TSSTORE_OK) die(st_, #x); \
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
static const tsstore_period HOURLY = {3600000, TSSTORE_PERIOD_MILLIS, 0};

static int make(const char *path, size_t n, size_t length) {
    tsstore_store *s = NULL;
    double *v = malloc(n * length * sizeof *v);
    tsstore_series_desc *descs = malloc(n * sizeof *descs);
    if (!v || !descs) die(TSSTORE_E_INTERNAL, "out of memory");
    CALL(tsstore_create(path, NULL, &s));
    int64_t shape[1] = {(int64_t)length};
    for (size_t i = 0; i < n; i++) {
        for (size_t h = 0; h < length; h++) v[i * length + h] = 50 + 30 * sin((double)(h + i) / 24);
        tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
        d.owner_id = (int64_t)i;
        d.owner_type = "PowerLoad";
        d.name = "max_active_power";
        d.initial_ms = T0_MS;
        d.resolution = HOURLY;
        d.shape = shape;
        d.ndim = 1;
        d.data = &v[i * length];
        d.nbytes = length * sizeof *v;
        descs[i] = d;
    }
    CALL(tsstore_add_batch(s, descs, n, NULL));
    CALL(tsstore_close(s));
    free(descs);
    free(v);
    return 0;
}

/* What the Python binding's get does: allocate a buffer of the size the key's last read had
 * (*known, 0 at first) and read into it; a key never read, or grown since, is described
 * first. The id the read found is kept in q as its hint, as the binding's Key keeps it. */
static double *get(tsstore_store *s, tsstore_lookup *q, int64_t *known) {
    tsstore_series_info info = TSSTORE_SERIES_INFO_INIT;
    if (*known == 0) {
        CALL(tsstore_get_info(s, q, &info));
        *known = info.nbytes;
    }
    double *buf = malloc(*known > 0 ? (size_t)*known : 1);
    if (!buf) die(TSSTORE_E_INTERNAL, "out of memory");
    int32_t st = tsstore_get(s, q, buf, (size_t)*known, &info);
    if (st == TSSTORE_E_BUFFER_TOO_SMALL) {
        free(buf);
        *known = 0;
        return get(s, q, known);
    }
    CALL(st);
    *known = info.nbytes;
    q->series_id = info.key.series_id;
    return buf;
}

static int time_calls(const char *path, size_t n, size_t length, size_t repeats) {
    tsstore_store *s = NULL;
    CALL(tsstore_open(path, 1, &s));
    tsstore_lookup *keys = malloc(n * sizeof *keys);
    int64_t *known = calloc(n, sizeof *known);
    double *took = malloc(repeats * sizeof *took);
    double *step = malloc(n * sizeof *step);
    if (!keys || !known || !took || !step) die(TSSTORE_E_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        tsstore_lookup q = TSSTORE_LOOKUP_INIT; /* a component's SingleTimeSeries */
        q.owner_id = (int64_t)i;
        q.name = "max_active_power";
        q.resolution = HOURLY;
        q.features_json = ""; /* no features: the key is complete */
        keys[i] = q;
    }
    for (size_t i = 0; i < n; i++) /* warm-up: every key read once, as calls.py does */
        free(get(s, &keys[i], &known[i]));
    for (size_t r = 0; r < repeats; r++) {
        size_t i = (r * 7919) % n;
        double t = now_us();
        double *buf = get(s, &keys[i], &known[i]);
        took[r] = now_us() - t;
        if (fabs(buf[1] - (50 + 30 * sin((double)(1 + i) / 24))) > 1e-12) {
            fprintf(stderr, "calls: series %zu read back a wrong value\n", i);
            return 1;
        }
        free(buf);
    }
    double get_us = median(took, repeats);

    tsstore_static_reader *rd = NULL;
    CALL(tsstore_static_reader_new(s, &HOURLY, keys, n, &rd));
    CALL(tsstore_static_reader_bind(rd, 0, step, n * sizeof *step));
    for (size_t r = 0; r < repeats; r++) {
        double t = now_us();
        CALL(tsstore_static_reader_read_step(rd, (int64_t)(r % length)));
        took[r] = now_us() - t;
    }
    double step_us = median(took, repeats);
    tsstore_static_reader_free(rd);

    for (size_t r = 0; r < repeats; r++) {
        int32_t found = 0;
        double t = now_us();
        CALL(tsstore_has(s, &keys[(r * 7919) % n], &found));
        took[r] = now_us() - t;
        if (!found) {
            fprintf(stderr, "calls: has missed a stored key\n");
            return 1;
        }
    }
    double has_us = median(took, repeats);
    printf("get_us=%.3f\nstep_us=%.3f\nhas_us=%.3f\n", get_us, step_us, has_us);
    CALL(tsstore_close(s));
    free(keys);
    free(known);
    free(took);
    free(step);
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
