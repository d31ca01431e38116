/* A program with a heap overflow and a leak, run under the same valgrind setup as the real
 * tests; its test passes only if valgrind reports both. The overflow sits in a static
 * function that the optimiser specialises (fill.constprop.0 at -O2), to prove that the
 * suppressions for Go code do not hide C functions with a dot in their name. */
#include <stdlib.h>
#include <string.h>
#include "tsstore.h"

char *volatile sink; /* volatile, so no optimiser can prove the errors away */

static __attribute__((noinline)) void fill(char *p, int n) {
    for (int i = 0; i <= n; i++) p[i] = (char)i; /* one past the end */
}

int main(void) {
    tsstore_store *s = NULL;
    tsstore_open_in_memory(NULL, &s);
    sink = malloc(64);
    strcpy(sink, "never freed");
    sink = NULL;
    char *small = malloc(16);
    fill(small, 16);
    sink = small;
    free(sink);
    tsstore_close(s);
    return 0;
}
