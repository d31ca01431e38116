/* Links against an installed tsstore and checks the header matches the library. */
#include <stdio.h>
#include "tsstore.h"

int main(void) {
    if (tsstore_version() != TSSTORE_VERSION_NUMBER) {
        fprintf(stderr, "header %d, library %d\n", TSSTORE_VERSION_NUMBER, tsstore_version());
        return 1;
    }
    tsstore_store *s = NULL;
    if (tsstore_open_in_memory(NULL, &s) != TSSTORE_OK) return 1;
    printf("consumer: tsstore %d linked\n", tsstore_version());
    return tsstore_close(s) == TSSTORE_OK ? 0 : 1;
}
