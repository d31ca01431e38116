/* transactions: batches and transactions from C.
 *
 *   transactions [output-directory]
 *
 * A batch adds many series in one call, all or nothing; a transaction groups writes so that a
 * rollback undoes all of them, and nested transactions undo only their own part. */
#include <stdio.h>
#define EXAMPLE "transactions"
#include "example.h"

#define T0 1893456000000LL /* 2030-01-01T00:00:00Z */

/* How many series the store holds (-1 if the listing fails). */
static int64_t count(tsstore_store *s) {
    tsstore_keys *keys = NULL;
    size_t n = 0;
    int32_t st = tsstore_list_keys(s, NULL, &keys); /* NULL: no filter */
    if (st == TSSTORE_OK) st = tsstore_keys_len(keys, &n);
    tsstore_keys_free(keys);
    return st == TSSTORE_OK ? (int64_t)n : -1;
}

int main(int argc, char **argv) {
    char path[1024];
    fresh_store_path(path, sizeof path, argc > 1 ? argv[1] : ".", "transactions");
    int status = 0;
    tsstore_store *s = NULL;
    double v[24];
    for (int h = 0; h < 24; h++) v[h] = h;
    static tsstore_series_desc batch[100];
    int64_t shape[1];

    check(tsstore_create(path, NULL, &s));
    for (int i = 0; i < 100; i++) {
        batch[i] = hourly_series(i, "PowerLoad", "max_active_power", T0, v, 24, shape);
        batch[i].units = "MW";
    }
    check(tsstore_add_batch(s, batch, 100, NULL));
    printf("a batch of 100: %lld series\n", (long long)count(s));

    /* Item 1 repeats owner 0's key: the whole batch is refused, nothing is added. */
    tsstore_series_desc again[2] = {hourly_series(500, "PowerLoad", "max_active_power", T0, v, 24, shape),
                                    hourly_series(0, "PowerLoad", "max_active_power", T0, v, 24, shape)};
    int32_t st = tsstore_add_batch(s, again, 2, NULL);
    printf("a batch with a duplicate: %s (%s), still %lld series\n", tsstore_status_name(st), last_message(),
           (long long)count(s));

    check(tsstore_begin(s));
    tsstore_series_desc one = hourly_series(600, "PowerLoad", "max_active_power", T0, v, 24, shape);
    check(tsstore_add(s, &one, NULL));
    check(tsstore_begin(s)); /* nested: a savepoint */
    one.owner_id = 601;
    check(tsstore_add(s, &one, NULL));
    printf("inside both transactions: %lld series\n", (long long)count(s));
    check(tsstore_rollback(s)); /* undoes 601 only */
    check(tsstore_commit(s));   /* 600 is durable */
    printf("after the inner rollback and the outer commit: %lld series\n", (long long)count(s));

done:
    if (tsstore_close(s) != TSSTORE_OK) status = 1;
    return status;
}
