/* A C program that uses libtsstore.so with no link-time dependency on it, as a plugin host or a
 * language runtime does: dlopen, dlsym for each function it calls, a version check against
 * the header it was compiled with, a round trip, then dlclose, after which the library stays
 * resident (the header says why) and a second dlopen finds it still working.
 *
 *   dlopen_consumer_c <path to libtsstore.so> <scratch directory>
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tsstore.h"

/* The functions this program calls, typed from the header's own declarations. */
typedef struct {
    __typeof__(tsstore_version) *version;
    __typeof__(tsstore_status_name) *status_name;
    __typeof__(tsstore_create) *create;
    __typeof__(tsstore_open) *open;
    __typeof__(tsstore_add) *add;
    __typeof__(tsstore_get) *get;
    __typeof__(tsstore_close) *close;
    __typeof__(tsstore_last_error_message) *last_error_message;
} api;

static int resolve(void *lib, api *a) {
    struct {
        const char *name;
        void **slot;
    } want[] = {{"tsstore_version", (void **)&a->version},
                {"tsstore_status_name", (void **)&a->status_name},
                {"tsstore_create", (void **)&a->create},
                {"tsstore_open", (void **)&a->open},
                {"tsstore_add", (void **)&a->add},
                {"tsstore_get", (void **)&a->get},
                {"tsstore_close", (void **)&a->close},
                {"tsstore_last_error_message", (void **)&a->last_error_message}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        *want[i].slot = dlsym(lib, want[i].name);
        if (*want[i].slot == NULL) {
            fprintf(stderr, "dlsym(%s): %s\n", want[i].name, dlerror());
            return 0;
        }
    }
    return 1;
}

static int fail(const api *a, const char *what, int32_t st) {
    char msg[512];
    a->last_error_message(msg, sizeof msg, NULL);
    fprintf(stderr, "%s: %s: %s\n", what, a->status_name(st), msg);
    return 0;
}

/* Adds 24 hourly values to a new store at path, reopens it read-only and reads them back. */
static int round_trip(const api *a, const char *path, double base) {
    double load[24], back[24];
    for (int h = 0; h < 24; h++) load[h] = base + h;
    int64_t shape[1] = {24};
    tsstore_series_desc d = TSSTORE_SERIES_DESC_INIT;
    d.owner_id = 7, d.owner_type = "PowerLoad", d.name = "max_active_power";
    d.initial_ms = 1893456000000LL, d.resolution = (tsstore_period){3600000, TSSTORE_PERIOD_MILLIS, 0};
    d.shape = shape, d.ndim = 1, d.data = load, d.nbytes = sizeof load;
    tsstore_store *s = NULL;
    tsstore_lookup stored = TSSTORE_LOOKUP_INIT;
    int32_t st;
    if ((st = a->create(path, NULL, &s)) != TSSTORE_OK) return fail(a, "create", st);
    if ((st = a->add(s, &d, &stored)) != TSSTORE_OK) return fail(a, "add", st);
    if (stored.series_id <= 0 || strcmp(stored.name, "max_active_power") != 0) {
        fprintf(stderr, "add reported key %s, id %lld\n", stored.name, (long long)stored.series_id);
        return 0;
    }
    if ((st = a->close(s)) != TSSTORE_OK) return fail(a, "close", st);
    if ((st = a->open(path, 1, &s)) != TSSTORE_OK) return fail(a, "open", st);
    tsstore_lookup which = TSSTORE_LOOKUP_INIT;
    which.owner_id = 7, which.name = "max_active_power";
    if ((st = a->get(s, &which, back, sizeof back, NULL)) != TSSTORE_OK) return fail(a, "get", st);
    if ((st = a->close(s)) != TSSTORE_OK) return fail(a, "close", st);
    if (memcmp(load, back, sizeof load) != 0) {
        fprintf(stderr, "read back other values (%g, not %g)\n", back[0], load[0]);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s LIBTSSTORE DIR\n", argv[0]);
        return 2;
    }
    char path[1024], catalog[1100];
    snprintf(path, sizeof path, "%.1000s/dlopen_c.nc", argv[2]);
    snprintf(catalog, sizeof catalog, "%s.sqlite", path);
    remove(path);
    remove(catalog);

    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen(%s): %s\n", argv[1], dlerror());
        return 1;
    }
    api a;
    if (!resolve(lib, &a)) return 1;
    int32_t v = a.version();
    if (v / 100 != TSSTORE_VERSION_NUMBER / 100) {
        fprintf(stderr, "the library is %d, this program was built against %d (major.minor differ)\n", v,
                TSSTORE_VERSION_NUMBER);
        return 1;
    }
    if (!round_trip(&a, path, 50)) return 1;

    /* dlclose does not unload it: a Go runtime cannot be (the library is NODELETE). */
    if (dlclose(lib) != 0) {
        fprintf(stderr, "dlclose: %s\n", dlerror());
        return 1;
    }
    void *again = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
    if (again == NULL) {
        fprintf(stderr, "the library was unloaded by dlclose, which the header says it is not\n");
        return 1;
    }
    remove(path);
    remove(catalog);
    if (!resolve(again, &a) || !round_trip(&a, path, 80)) return 1;
    printf("dlopen_consumer_c: version %d, two round trips, resident after dlclose\n", v);
    return 0;
}
