/* The race detector's canary: two threads call into a Go archive built with -race
 * (race_canary/canary.go) at the same time. "racy" makes both write one Go variable with no
 * synchronisation, which a working race detector must report; "calm" makes the same writes
 * under a mutex, which must pass quietly. race_run.sh runs "calm" first to learn whether
 * the race runtime can start on this machine at all. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>

extern int canary_touch(int racy);

static int racy;

static void *toucher(void *arg) {
    (void)arg;
    canary_touch(racy);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "racy") != 0 && strcmp(argv[1], "calm") != 0)) {
        fprintf(stderr, "usage: %s racy|calm\n", argv[0]);
        return 2;
    }
    racy = strcmp(argv[1], "racy") == 0;
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, toucher, NULL) != 0) return 2;
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    printf("race_canary %s: no race reported\n", argv[1]);
    return 0;
}
