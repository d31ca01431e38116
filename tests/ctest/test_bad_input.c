/* Bad input through the C API: NULL pointers, stale / foreign / wrong-kind handles, unknown
 * codes, malformed periods and JSON, invalid UTF-8, shapes that disagree with byte lengths,
 * sizes that overflow, buffers too small. Each must be a documented status with a message,
 * write nothing and never crash. */
#include "check.h"

#define T0 1704067200000LL

/* Every refusal leaves a message naming what was wrong. */
#define REFUSE(call, want, word)                                                               \
    do {                                                                                       \
        EXPECT(call, want);                                                                    \
        if (strstr(last_message(), word) == NULL) {                                            \
            fprintf(stderr, "%s:%d: message \"%s\" lacks %s\n", __FILE__, __LINE__, last_message(), \
                    word);                                                                     \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[1024];
    store_path(path, sizeof path, dir, "bad");
    tsstore_store *s = NULL;

    /* Opening and creating. */
    REFUSE(tsstore_create(NULL, NULL, &s), TSSTORE_E_INVALID_PARAMETER, "path");
    ASSERT(s == NULL);
    REFUSE(tsstore_create(path, NULL, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_create(path, "deflate:12:shuffle", &s), TSSTORE_E_INVALID_PARAMETER, "compression");
    REFUSE(tsstore_open("/nonexistent/dir/x.nc", 0, &s), TSSTORE_E_IO, "x.nc");
    ASSERT(s == NULL);
    REFUSE(tsstore_open_in_memory("zstd", &s), TSSTORE_E_INVALID_PARAMETER, "compression");
    CHECK(tsstore_create(path, NULL, &s));
    tsstore_store *again = NULL;
    REFUSE(tsstore_create(path, NULL, &again), TSSTORE_E_INVALID_PARAMETER, "already exists");
    ASSERT(again == NULL);

    double v[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    tsstore_key *k = NULL;
    CHECK(tsstore_add_single(s, 1, "G", 0, "p", T0, "PT1H", TSSTORE_DTYPE_F64, shape, 1, v, sizeof v, NULL, NULL, NULL, &k));
    size_t before = count_keys(s);

    /* Handles: NULL, foreign, freed, of another kind. */
    tsstore_store *foreign = (tsstore_store *)(void *)v;
    int32_t found = 0;
    REFUSE(tsstore_has(NULL, k, &found), TSSTORE_E_INVALID_HANDLE, "store");
    REFUSE(tsstore_has(foreign, k, &found), TSSTORE_E_INVALID_HANDLE, "store");
    REFUSE(tsstore_has(s, (tsstore_key *)(void *)s, &found), TSSTORE_E_INVALID_HANDLE, "key");
    REFUSE(tsstore_flush((tsstore_store *)(void *)k), TSSTORE_E_INVALID_HANDLE, "store");
    tsstore_key *gone = NULL;
    CHECK(tsstore_key_new(1, 0, 0, "p", "PT1H", NULL, NULL, &gone));
    tsstore_key_free(gone);
    tsstore_key_free(gone); /* twice: harmless */
    REFUSE(tsstore_has(s, gone, &found), TSSTORE_E_INVALID_HANDLE, "key");
    tsstore_series *r = NULL;
    REFUSE(tsstore_get(s, gone, &r), TSSTORE_E_INVALID_HANDLE, "key");
    ASSERT(r == NULL);
    REFUSE(tsstore_series_data(NULL, v, sizeof v, NULL), TSSTORE_E_INVALID_HANDLE, "series");
    REFUSE(tsstore_keys_len(NULL, NULL), TSSTORE_E_INVALID_HANDLE, "key list");
    tsstore_series_free(NULL);
    tsstore_keys_free(NULL);
    tsstore_key_free(NULL);
    tsstore_key_free((tsstore_key *)(void *)v); /* a foreign pointer: ignored */
    REFUSE(tsstore_store_last_error(NULL, NULL, 0, NULL), TSSTORE_E_INVALID_HANDLE, "store");
    REFUSE(tsstore_store_recovered(NULL, NULL, 0, NULL), TSSTORE_E_INVALID_HANDLE, "store");

    /* Output pointers. */
    REFUSE(tsstore_has(s, k, NULL), TSSTORE_E_INVALID_PARAMETER, "found");
    REFUSE(tsstore_get(s, k, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_key_new(1, 0, 0, "p", NULL, NULL, NULL, NULL), TSSTORE_E_INVALID_PARAMETER, "out");
    REFUSE(tsstore_list_keys(s, 0, 0, -1, -1, NULL, NULL, NULL, NULL), TSSTORE_E_INVALID_PARAMETER, "out");

    /* Keys. */
    tsstore_key *bad = NULL;
    REFUSE(tsstore_key_new(1, 7, 0, "p", "PT1H", NULL, NULL, &bad), TSSTORE_E_INVALID_PARAMETER, "owner_category");
    REFUSE(tsstore_key_new(1, 0, 42, "p", "PT1H", NULL, NULL, &bad), TSSTORE_E_INVALID_PARAMETER, "series_type");
    REFUSE(tsstore_key_new(1, 0, 0, NULL, "PT1H", NULL, NULL, &bad), TSSTORE_E_INVALID_PARAMETER, "name");
    REFUSE(tsstore_key_new(1, 0, 0, "p", "1 hour", NULL, NULL, &bad), TSSTORE_E_INVALID_PARAMETER, "resolution");
    REFUSE(tsstore_key_new(1, 0, 0, "p", "PT1H", "P1MT1H", NULL, &bad), TSSTORE_E_INVALID_PARAMETER, "interval");
    REFUSE(tsstore_key_new(1, 0, 0, "p", "PT1H", NULL, "{\"a\": ", &bad), TSSTORE_E_INVALID_PARAMETER, "features");
    REFUSE(tsstore_key_new(1, 0, 0, "p", "PT1H", NULL, "[1, 2]", &bad), TSSTORE_E_INVALID_PARAMETER, "features");
    ASSERT(bad == NULL);

    /* Adds: every field of the common arguments, and the array's shape and bytes. */
    tsstore_key *out = NULL;
    int64_t two[2] = {2, 2}, neg[1] = {-4}, huge[2] = {1LL << 40, 1LL << 40};
    REFUSE(tsstore_add_single(s, 2, NULL, 0, "p", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "owner_type");
    REFUSE(tsstore_add_single(s, 2, "G", 5, "p", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "owner_category");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "\xff\xfe", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "UTF-8");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, NULL, 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "resolution");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "-PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "resolution");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 9, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "dtype");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 0, NULL, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "shape");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 0, shape, 0, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "ndim");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 0, shape, 2000, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "ndim");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 0, neg, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "shape[0]");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 0, huge, 2, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "shape");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 0, two, 2, v, 24, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "bytes");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 0, shape, 1, NULL, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "data");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 0, shape, 1, v, (size_t)-1, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "nbytes");
    REFUSE(tsstore_add_single(s, 2, "G", 0, "p", T0, "PT1H", 0, shape, 1, v, sizeof v, "{\"units\": 1}", NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "units");
    REFUSE(tsstore_add_single(s, 1, "G", 0, "p", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_DUPLICATE_TIME_SERIES, "already stored");
    unsigned char flags[4] = {0, 1, 2, 1};
    REFUSE(tsstore_add_single(s, 2, "G", 0, "f", T0, "PT1H", TSSTORE_DTYPE_BOOL, shape, 1, flags, 4, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "bool");
    int64_t stamps[4] = {T0, T0 + 2, T0 + 1, T0 + 3};
    REFUSE(tsstore_add_nonsequential(s, 2, "G", 0, "o", stamps, 4, 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "increasing");
    REFUSE(tsstore_add_nonsequential(s, 2, "G", 0, "o", NULL, 4, 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "timestamps");
    REFUSE(tsstore_add_nonsequential(s, 2, "G", 0, "o", stamps, 3, 0, shape, 1, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "timestamps");
    int64_t fshape[2] = {2, 2};
    double pct[2] = {0.9, 0.1};
    int64_t pshape[3] = {2, 2, 1};
    REFUSE(tsstore_add_forecast(s, 2, "G", 0, "d", TSSTORE_DETERMINISTIC, T0, "PT1H", "PT90M", "PT2H", 2, NULL, 0, 0,
                                fshape, 2, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "horizon");
    REFUSE(tsstore_add_forecast(s, 2, "G", 0, "d", TSSTORE_DETERMINISTIC, T0, "PT1H", "PT2H", "PT2H", 3, NULL, 0, 0,
                                fshape, 2, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "shape");
    REFUSE(tsstore_add_forecast(s, 2, "G", 0, "d", TSSTORE_DETERMINISTIC, T0, "PT1H", "PT2H", "PT2H", 0, NULL, 0, 0,
                                fshape, 2, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "count");
    REFUSE(tsstore_add_forecast(s, 2, "G", 0, "d", TSSTORE_SINGLE_TIME_SERIES, T0, "PT1H", "PT2H", "PT2H", 2, NULL, 0, 0,
                                fshape, 2, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "series_type");
    REFUSE(tsstore_add_forecast(s, 2, "G", 0, "q", TSSTORE_PROBABILISTIC, T0, "PT1H", "PT2H", "PT2H", 1, pct, 2, 0,
                                pshape, 3, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "percentiles");
    REFUSE(tsstore_add_forecast(s, 2, "G", 0, "q", TSSTORE_PROBABILISTIC, T0, "PT1H", "PT2H", "PT2H", 1, NULL, 2, 0,
                                pshape, 3, v, sizeof v, NULL, NULL, NULL, &out),
           TSSTORE_E_INVALID_PARAMETER, "percentiles");
    ASSERT(out == NULL);
    ASSERT(count_keys(s) == before); /* nothing written */

    /* Reads and lists. */
    REFUSE(tsstore_get_range(s, k, T0 + 10, T0, &r), TSSTORE_E_INVALID_PARAMETER, "end");
    REFUSE(tsstore_get_windows(s, k, T0, T0, &r), TSSTORE_E_INVALID_PARAMETER, "static");
    tsstore_keys *keys = NULL;
    REFUSE(tsstore_list_keys(s, 0, 0, 9, -1, NULL, NULL, NULL, &keys), TSSTORE_E_INVALID_PARAMETER, "owner_category");
    REFUSE(tsstore_list_keys(s, 0, 0, -1, -1, NULL, "PT", NULL, &keys), TSSTORE_E_INVALID_PARAMETER, "resolution");
    REFUSE(tsstore_list_keys(s, 0, 0, -1, -1, NULL, NULL, "nope", &keys), TSSTORE_E_INVALID_PARAMETER, "features");
    CHECK(tsstore_list_keys(s, 0, 0, -1, -1, NULL, NULL, NULL, &keys));
    REFUSE(tsstore_keys_get(keys, 5, &out), TSSTORE_E_INVALID_PARAMETER, "outside");
    tsstore_keys_free(keys);
    char small[1];
    size_t needed = 0;
    REFUSE(tsstore_key_name(k, small, sizeof small, &needed), TSSTORE_E_BUFFER_TOO_SMALL, "too small");
    ASSERT(needed == 2);
    REFUSE(tsstore_key_name(k, NULL, 8, &needed), TSSTORE_E_INVALID_PARAMETER, "buf");
    REFUSE(tsstore_persist(s, "/tmp/x.nc"), TSSTORE_E_INVALID_PARAMETER, "in-memory");

    tsstore_key_free(k);
    CHECK(tsstore_close(s));
    REFUSE(tsstore_flush(s), TSSTORE_E_INVALID_HANDLE, "store"); /* closed: stale */
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_bad_input: ok\n");
    return 0;
}
