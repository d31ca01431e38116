/* transactions: batches and transactions from C.
 *
 *   transactions [output-directory]
 *
 * A batch adds many series all or nothing; a transaction groups writes so that a rollback
 * undoes all of them, and nested transactions undo only their own part. */
#include <stdio.h>
#define EXAMPLE "transactions"
#include "example.h"

#define T0 1893456000000LL


static int64_t count(tsstore_store *s) {
    tsstore_keys *keys = NULL;
    size_t n = 0;
    if (tsstore_list_keys(s, 0, 0, -1, -1, NULL, NULL, NULL, &keys) == TSSTORE_OK) tsstore_keys_len(keys, &n);
    tsstore_keys_free(keys);
    return (int64_t)n;
}

int main(int argc, char **argv) {
    char path[1024];
    fresh_store_path(path, sizeof path, argc > 1 ? argv[1] : ".", "transactions");
    int status = 0;
    tsstore_store *s = NULL;
    tsstore_batch *b = NULL;
    double v[24];
    int64_t shape[1] = {24};
    for (int h = 0; h < 24; h++) v[h] = h;

    check(tsstore_create(path, NULL, &s));
    check(tsstore_batch_new(s, &b));
    for (int i = 0; i < 100; i++)
        check(tsstore_batch_add_single(b, i, "PowerLoad", TSSTORE_OWNER_COMPONENT, "max_active_power", T0, "PT1H",
                                       TSSTORE_DTYPE_F64, shape, 1, v, sizeof v, NULL, "MW", NULL));
    check(tsstore_batch_commit(b, NULL));
    printf("a batch of 100: %lld series\n", (long long)count(s));

    /* Item 1 repeats owner 0's key: the whole batch is refused, nothing is added. */
    check(tsstore_batch_add_single(b, 500, "PowerLoad", 0, "max_active_power", T0, "PT1H", 0, shape, 1, v, sizeof v,
                                   NULL, NULL, NULL));
    check(tsstore_batch_add_single(b, 0, "PowerLoad", 0, "max_active_power", T0, "PT1H", 0, shape, 1, v, sizeof v,
                                   NULL, NULL, NULL));
    int32_t st = tsstore_batch_commit(b, NULL);
    printf("a batch with a duplicate: %s, still %lld series\n", tsstore_status_name(st), (long long)count(s));

    check(tsstore_begin(s));
    check(tsstore_add_single(s, 600, "PowerLoad", 0, "max_active_power", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL,
                             NULL, NULL, NULL));
    check(tsstore_begin(s)); /* nested: a savepoint */
    check(tsstore_add_single(s, 601, "PowerLoad", 0, "max_active_power", T0, "PT1H", 0, shape, 1, v, sizeof v, NULL,
                             NULL, NULL, NULL));
    printf("inside both transactions: %lld series\n", (long long)count(s));
    check(tsstore_rollback(s)); /* undoes 601 only */
    check(tsstore_commit(s));   /* 600 is durable */
    printf("after the inner rollback and the outer commit: %lld series\n", (long long)count(s));

done:
    tsstore_batch_free(b);
    if (tsstore_close(s) != TSSTORE_OK) status = 1;
    return status;
}
