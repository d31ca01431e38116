/* A program with a heap overflow and a leak, run under the same valgrind setup as the real
 * tests and expected to FAIL: it proves the suppressions for Go code leave C errors visible. */
#include <stdlib.h>
#include <string.h>
#include "tsstore.h"

/* Volatile, so no optimiser can prove the errors away. */
char *volatile sink;

int main(void) {
    tsstore_store *s = NULL;
    tsstore_open_in_memory(NULL, &s);
    sink = malloc(64);
    strcpy(sink, "never freed");
    sink = NULL;
    volatile int i = 5;
    sink = malloc(4);
    sink[i] = 1; /* writes past the block */
    free(sink);
    tsstore_close(s);
    return 0;
}
