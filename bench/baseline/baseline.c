/* The netcdf-c baseline for tsbench: the same bytes, dataset shapes, chunking and filters as
 * the store's layouts, written and read with netcdf-c alone (no catalog, no hashing, no Go).
 * tsbench runs it next to each store workload and prints the store's ratio to it.
 *
 *   baseline static OUT.nc N T E LEVEL SHUFFLE SWEEP BAND [WIDTH]
 *     The packed layout: N columns of T steps of E f64 each, in datasets [T, w, E] (E = 1:
 *     [T, w]) chunked (1, w, E), where w is N (or WIDTH, the batch size when the store was
 *     loaded in several batches) capped so a chunk stays within 1 MiB, and the rest spills
 *     into further datasets of the same rule (the store's batch layout). Writes
 *     row bands of about 16 MiB, syncs, closes; reopens and reads SWEEP rows of every dataset
 *     in bands of BAND rows (BAND = 1: the StaticReader's access; 24: daily windows of a
 *     DeterministicSingleTimeSeries over hourly rows), then one whole column (a single Get).
 *     Prints write_s, sweep_s, column_s, bytes, datasets.
 *
 *   baseline forecast OUT.nc N H COUNT LEVEL SHUFFLE
 *     Dense forecasts: N variables [H, COUNT] f64 chunked (H, min(COUNT, 1 MiB / 8H)), all
 *     defined in one define phase; then reopens and reads window w of every variable for
 *     every w (the ForecastReader's access). Prints write_s, open_s, sweep_s, bytes.
 *
 *   baseline forecast-add OUT.nc N H COUNT LEVEL SHUFFLE REPEATS
 *     The cost of one more forecast in a file holding N: reopens the file written as above and
 *     REPEATS times defines one more variable with its two dimensions (one define phase),
 *     writes it, nc_syncs and fsyncs the file (what one durable add costs netcdf-c; the store
 *     also fsyncs at every commit). Prints add_median_s (to nc_sync), add_fsync_median_s,
 *     open_s.
 *
 *   baseline open FILE.nc
 *     netcdf-c's read-only open of a store's file (nc_open with NC_NOWRITE and netcdf-c's
 *     default chunk cache), which reads every variable's metadata. Prints open_s and
 *     rss_mib, the process's peak resident size after it.
 *
 * Values are those tsbench writes: static column i at step h, element e:
 * 50 + 30 sin((h + i) / 24) + e; forecast s at [h, w]: sin((h·COUNT + w + s) / 7) + s mod 100.
 */
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                 \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != NC_NOERR) {                                                      \
            fprintf(stderr, "baseline: %s: %s\n", #call, nc_strerror(rc_));         \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

#define MAX_CHUNK_BYTES (1u << 20)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "baseline: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static long long file_bytes(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static double static_value(size_t h, size_t i, size_t e) { return 50 + 30 * sin((double)(h + i) / 24) + (double)e; }

/* One packed dataset: its variable and the columns it holds. */
struct packed {
    int var;
    size_t col0, w;
};

static int static_case(const char *path, size_t n, size_t t, size_t e, int level, int shuffle, size_t sweep,
                       size_t band, size_t width) {
    size_t limit = MAX_CHUNK_BYTES / (e * sizeof(double));
    if (limit < 1) limit = 1;
    if (width > 0 && width < limit) limit = width;
    size_t nds = (n + limit - 1) / limit;
    struct packed *ds = xmalloc(nds * sizeof *ds);
    int nc;
    double t0 = now();
    CHECK(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc));
    int tdim;
    CHECK(nc_def_dim(nc, "t", t, &tdim));
    for (size_t k = 0; k < nds; k++) {
        char name[64];
        int dims[3];
        ds[k].col0 = k * limit;
        ds[k].w = n - ds[k].col0 < limit ? n - ds[k].col0 : limit;
        dims[0] = tdim;
        snprintf(name, sizeof name, "c%zu", k);
        CHECK(nc_def_dim(nc, name, ds[k].w, &dims[1]));
        int ndims = 2;
        if (e > 1) {
            snprintf(name, sizeof name, "e%zu", k);
            CHECK(nc_def_dim(nc, name, e, &dims[2]));
            ndims = 3;
        }
        size_t chunk[3] = {1, ds[k].w, e};
        snprintf(name, sizeof name, "v%zu", k);
        CHECK(nc_def_var(nc, name, NC_DOUBLE, ndims, dims, &ds[k].var));
        CHECK(nc_def_var_chunking(nc, ds[k].var, NC_CHUNKED, chunk));
        if (level > 0) CHECK(nc_def_var_deflate(nc, ds[k].var, shuffle, 1, level));
        CHECK(nc_set_var_chunk_cache(nc, ds[k].var, 0, 1, 1.0f)); /* bands are whole chunks */
    }
    CHECK(nc_enddef(nc));
    for (size_t k = 0; k < nds; k++) {
        size_t row = ds[k].w * e;
        size_t rows = (16u << 20) / (row * sizeof(double));
        if (rows < 1) rows = 1;
        if (rows > t) rows = t;
        double *buf = xmalloc(rows * row * sizeof(double));
        for (size_t r0 = 0; r0 < t; r0 += rows) {
            size_t r1 = r0 + rows < t ? r0 + rows : t;
            for (size_t h = r0; h < r1; h++)
                for (size_t c = 0; c < ds[k].w; c++)
                    for (size_t x = 0; x < e; x++)
                        buf[((h - r0) * ds[k].w + c) * e + x] = static_value(h, ds[k].col0 + c, x);
            size_t start[3] = {r0, 0, 0}, count[3] = {r1 - r0, ds[k].w, e};
            CHECK(nc_put_vara_double(nc, ds[k].var, start, count, buf));
        }
        free(buf);
    }
    CHECK(nc_sync(nc));
    CHECK(nc_close(nc));
    double write_s = now() - t0;

    CHECK(nc_open(path, NC_NOWRITE, &nc));
    for (size_t k = 0; k < nds; k++) {
        char name[64];
        snprintf(name, sizeof name, "v%zu", k);
        CHECK(nc_inq_varid(nc, name, &ds[k].var));
    }
    if (band < 1) band = 1;
    double *rows = xmalloc(band * limit * e * sizeof(double));
    t0 = now();
    for (size_t h = 0; h < sweep && h < t; h += band) {
        size_t nb = h + band <= t ? band : t - h;
        for (size_t k = 0; k < nds; k++) {
            size_t start[3] = {h, 0, 0}, count[3] = {nb, ds[k].w, e};
            CHECK(nc_get_vara_double(nc, ds[k].var, start, count, rows));
        }
    }
    double sweep_s = now() - t0;
    size_t col = n / 2, k = col / limit;
    double *column = xmalloc(t * e * sizeof(double));
    t0 = now();
    size_t start[3] = {0, col - ds[k].col0, 0}, count[3] = {t, 1, e};
    CHECK(nc_get_vara_double(nc, ds[k].var, start, count, column));
    double column_s = now() - t0;
    CHECK(nc_close(nc));
    if (t > 1 && fabs(column[e] - static_value(1, col, 0)) > 1e-12) {
        fprintf(stderr, "baseline: read back a wrong value\n");
        return 1;
    }
    printf("write_s=%.6f\nsweep_s=%.6f\ncolumn_s=%.6f\nbytes=%lld\ndatasets=%zu\n", write_s, sweep_s, column_s,
           file_bytes(path), nds);
    free(rows);
    free(column);
    free(ds);
    return 0;
}

static void forecast_values(double *v, size_t h, size_t count, size_t seed) {
    for (size_t i = 0; i < h * count; i++) v[i] = sin((double)(i + seed) / 7) + (double)(seed % 100);
}

/* Defines forecast variable s with its two dimensions, as the store defines an arr_ variable. */
static int def_forecast(int nc, size_t s, size_t h, size_t count, int level, int shuffle) {
    char name[64];
    int dims[2], var;
    snprintf(name, sizeof name, "arr_%zu_h", s);
    CHECK(nc_def_dim(nc, name, h, &dims[0]));
    snprintf(name, sizeof name, "arr_%zu_c", s);
    CHECK(nc_def_dim(nc, name, count, &dims[1]));
    snprintf(name, sizeof name, "arr_%zu", s);
    CHECK(nc_def_var(nc, name, NC_DOUBLE, 2, dims, &var));
    size_t block = MAX_CHUNK_BYTES / (h * sizeof(double));
    if (block < 1) block = 1;
    size_t chunk[2] = {h, block < count ? block : count};
    CHECK(nc_def_var_chunking(nc, var, NC_CHUNKED, chunk));
    if (level > 0) CHECK(nc_def_var_deflate(nc, var, shuffle, 1, level));
    return var;
}

/* create_forecasts creates path holding n forecasts of [h, count] (def_forecast), writes each
 * one's forecast_values through the buffer v and returns the file, still open; vars gets the
 * variables' ids. */
static int create_forecasts(const char *path, int *vars, double *v, size_t n, size_t h, size_t count, int level,
                            int shuffle) {
    int nc;
    CHECK(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc));
    for (size_t s = 0; s < n; s++) vars[s] = def_forecast(nc, s, h, count, level, shuffle);
    CHECK(nc_enddef(nc));
    for (size_t s = 0; s < n; s++) {
        forecast_values(v, h, count, s);
        CHECK(nc_put_var_double(nc, vars[s], v));
    }
    return nc;
}

static int forecast_case(const char *path, size_t n, size_t h, size_t count, int level, int shuffle) {
    int *vars = xmalloc(n * sizeof *vars);
    double *v = xmalloc(h * count * sizeof(double));
    double t0 = now();
    int nc = create_forecasts(path, vars, v, n, h, count, level, shuffle);
    CHECK(nc_sync(nc));
    CHECK(nc_close(nc));
    double write_s = now() - t0;

    t0 = now();
    CHECK(nc_open(path, NC_NOWRITE, &nc));
    for (size_t s = 0; s < n; s++) {
        char name[64];
        snprintf(name, sizeof name, "arr_%zu", s);
        CHECK(nc_inq_varid(nc, name, &vars[s]));
    }
    double open_s = now() - t0;
    t0 = now();
    for (size_t w = 0; w < count; w++)
        for (size_t s = 0; s < n; s++) {
            size_t start[2] = {0, w}, cnt[2] = {h, 1};
            CHECK(nc_get_vara_double(nc, vars[s], start, cnt, v));
        }
    double sweep_s = now() - t0;
    CHECK(nc_close(nc));
    double want = sin((double)((h - 1) * count + (count - 1) + (n - 1)) / 7) + (double)((n - 1) % 100);
    if (fabs(v[h - 1] - want) > 1e-12) {
        fprintf(stderr, "baseline: read back a wrong window value\n");
        return 1;
    }
    printf("write_s=%.6f\nopen_s=%.6f\nsweep_s=%.6f\nbytes=%lld\n", write_s, open_s, sweep_s, file_bytes(path));
    free(vars);
    free(v);
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int forecast_add_case(const char *path, size_t n, size_t h, size_t count, int level, int shuffle,
                             size_t repeats) {
    int nc;
    double *v = xmalloc(h * count * sizeof(double));
    int *vars = xmalloc(n * sizeof *vars);
    CHECK(nc_close(create_forecasts(path, vars, v, n, h, count, level, shuffle)));
    double t0 = now();
    CHECK(nc_open(path, NC_WRITE, &nc));
    double open_s = now() - t0;
    double *took = xmalloc(repeats * sizeof(double)), *durable = xmalloc(repeats * sizeof(double));
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror("baseline: open for fsync");
        return 1;
    }
    for (size_t r = 0; r < repeats; r++) {
        size_t s = n + r;
        forecast_values(v, h, count, s);
        t0 = now();
        CHECK(nc_redef(nc));
        int var = def_forecast(nc, s, h, count, level, shuffle);
        CHECK(nc_enddef(nc));
        CHECK(nc_put_var_double(nc, var, v));
        CHECK(nc_sync(nc));
        took[r] = now() - t0;
        if (fsync(fd) != 0) {
            perror("baseline: fsync");
            return 1;
        }
        durable[r] = now() - t0;
    }
    close(fd);
    CHECK(nc_close(nc));
    qsort(took, repeats, sizeof(double), cmp_double);
    qsort(durable, repeats, sizeof(double), cmp_double);
    printf("add_median_s=%.6f\nadd_fsync_median_s=%.6f\nopen_s=%.6f\n", took[repeats / 2], durable[repeats / 2], open_s);
    free(took);
    free(durable);
    free(vars);
    free(v);
    return 0;
}

static size_t arg(const char *s) { return strtoul(s, NULL, 10); }

/* The peak resident size of this process in MiB (VmHWM), -1 where /proc does not say. */
static double peak_rss_mib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    double kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lf", &kib) == 1) break;
    fclose(f);
    return kib < 0 ? -1 : kib / 1024;
}

static int open_case(const char *path) {
    double t = now();
    int nc;
    CHECK(nc_open(path, NC_NOWRITE, &nc));
    double open_s = now() - t;
    printf("open_s=%.6f\nrss_mib=%.1f\n", open_s, peak_rss_mib());
    CHECK(nc_close(nc));
    return 0;
}

int main(int argc, char **argv) {
    if ((argc == 10 || argc == 11) && strcmp(argv[1], "static") == 0)
        return static_case(argv[2], arg(argv[3]), arg(argv[4]), arg(argv[5]), atoi(argv[6]), atoi(argv[7]),
                           arg(argv[8]), arg(argv[9]), argc == 11 ? arg(argv[10]) : 0);
    if (argc == 8 && strcmp(argv[1], "forecast") == 0)
        return forecast_case(argv[2], arg(argv[3]), arg(argv[4]), arg(argv[5]), atoi(argv[6]), atoi(argv[7]));
    if (argc == 9 && strcmp(argv[1], "forecast-add") == 0 && arg(argv[8]) > 0)
        return forecast_add_case(argv[2], arg(argv[3]), arg(argv[4]), arg(argv[5]), atoi(argv[6]), atoi(argv[7]),
                                 arg(argv[8]));
    if (argc == 3 && strcmp(argv[1], "open") == 0)
        return open_case(argv[2]);
    fprintf(stderr, "usage: baseline static OUT.nc N T E LEVEL SHUFFLE SWEEP BAND [WIDTH]\n"
                    "       baseline forecast OUT.nc N H COUNT LEVEL SHUFFLE\n"
                    "       baseline forecast-add OUT.nc N H COUNT LEVEL SHUFFLE REPEATS\n"
                    "       baseline open FILE.nc\n");
    return 2;
}
