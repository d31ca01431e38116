/* The netcdf-c baseline for tsbench: the same bytes, dataset shapes, chunking and filters as
 * the store's packed layout, written and read with netcdf-c alone (no catalog, no hashing,
 * no Go). tsbench runs it next to each store workload and prints the store's ratio to it.
 *
 *   baseline static OUT.nc N T LEVEL SHUFFLE SWEEP_STEPS
 *
 * writes an f64 variable [T, N] chunked (1, N) (the packed layout: one timestamp of every
 * column per chunk, N within the 1 MiB chunk budget), deflate LEVEL with SHUFFLE 0/1, in row
 * bands of about 16 MiB; syncs and closes; then reopens it and reads SWEEP_STEPS rows one at a
 * time (the StaticReader's access) and one whole column (a single-series Get). Values are
 * 50 + 30 sin((h + i) / 24), as tsbench's series. Prints key=value lines:
 *   write_s, sweep_s, column_s, bytes
 */
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CHECK(call)                                                                 \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != NC_NOERR) {                                                      \
            fprintf(stderr, "baseline: %s: %s\n", #call, nc_strerror(rc_));         \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int static_case(const char *path, size_t n, size_t t, int level, int shuffle, size_t sweep) {
    int nc, dims[2], var;
    size_t chunk[2] = {1, n};
    size_t rows = (16u << 20) / (n * sizeof(double));
    if (rows < 1) rows = 1;
    if (rows > t) rows = t;
    double *band = malloc(rows * n * sizeof(double));
    if (!band) return 1;

    double t0 = now();
    CHECK(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc));
    CHECK(nc_def_dim(nc, "t", t, &dims[0]));
    CHECK(nc_def_dim(nc, "c", n, &dims[1]));
    CHECK(nc_def_var(nc, "v", NC_DOUBLE, 2, dims, &var));
    CHECK(nc_def_var_chunking(nc, var, NC_CHUNKED, chunk));
    if (level > 0) CHECK(nc_def_var_deflate(nc, var, shuffle, 1, level));
    CHECK(nc_set_var_chunk_cache(nc, var, 0, 1, 1.0f)); /* each row band is whole chunks */
    CHECK(nc_enddef(nc));
    for (size_t r0 = 0; r0 < t; r0 += rows) {
        size_t r1 = r0 + rows < t ? r0 + rows : t;
        for (size_t h = r0; h < r1; h++)
            for (size_t i = 0; i < n; i++) band[(h - r0) * n + i] = 50 + 30 * sin((double)(h + i) / 24);
        size_t start[2] = {r0, 0}, count[2] = {r1 - r0, n};
        CHECK(nc_put_vara_double(nc, var, start, count, band));
    }
    CHECK(nc_sync(nc));
    CHECK(nc_close(nc));
    double write_s = now() - t0;

    CHECK(nc_open(path, NC_NOWRITE, &nc));
    CHECK(nc_inq_varid(nc, "v", &var));
    double *row = malloc(n * sizeof(double));
    double *col = malloc(t * sizeof(double));
    if (!row || !col) return 1;
    t0 = now();
    for (size_t h = 0; h < sweep && h < t; h++) {
        size_t start[2] = {h, 0}, count[2] = {1, n};
        CHECK(nc_get_vara_double(nc, var, start, count, row));
    }
    double sweep_s = now() - t0;
    t0 = now();
    size_t start[2] = {0, n / 2}, count[2] = {t, 1};
    CHECK(nc_get_vara_double(nc, var, start, count, col));
    double column_s = now() - t0;
    CHECK(nc_close(nc));
    if (fabs(col[1] - (50 + 30 * sin((double)(1 + n / 2) / 24))) > 1e-12) {
        fprintf(stderr, "baseline: read back a wrong value\n");
        return 1;
    }
    struct stat st;
    stat(path, &st);
    printf("write_s=%.6f\nsweep_s=%.6f\ncolumn_s=%.6f\nbytes=%lld\n", write_s, sweep_s, column_s, (long long)st.st_size);
    free(band);
    free(row);
    free(col);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 8 && strcmp(argv[1], "static") == 0)
        return static_case(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10), atoi(argv[5]),
                           atoi(argv[6]), strtoul(argv[7], NULL, 10));
    fprintf(stderr, "usage: baseline static OUT.nc N T LEVEL SHUFFLE SWEEP_STEPS\n");
    return 2;
}
