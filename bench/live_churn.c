/*
 * live_churn.c — makes the ranks of a synthetic run directory (gen_ranks
 * --live) look busy, for bench/nodes_stream.sh: every PERIOD_MS, every
 * running rank's first live slot completes its call and starts the next one
 * (the sequence lock taken as the runtime takes it: seq odd, start fields,
 * seq even; then t_end), as an iterative program does.
 *
 *   live_churn DIR SECONDS [PERIOD_MS]      (default period 50 ms)
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../format/mlformat.h"

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: live_churn DIR SECONDS [PERIOD_MS]\n");
        return 2;
    }
    double secs = atof(argv[2]);
    int period = argc > 3 ? atoi(argv[3]) : 50;
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 1;
    }
    struct ml_header **h = NULL;
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "rank-", 5) != 0) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", argv[1], e->d_name);
        int fd = open(p, O_RDWR);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) continue;
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (m == MAP_FAILED) continue;
        h = realloc(h, (n + 1) * sizeof *h);
        h[n++] = m;
    }
    closedir(d);
    int64_t end = mono_ns() + (int64_t)(secs * 1e9);
    unsigned long steps = 0;
    while (mono_ns() < end) {
        int64_t now = mono_ns();
        for (unsigned i = 0; i < n; i++) {
            if (h[i]->state != ML_STATE_RUNNING || !h[i]->nthreads) continue;
            struct ml_live *l = (struct ml_live *)((char *)h[i] + h[i]->live_off);
            __atomic_store_n(&l->t_end, (uint64_t)now - 1000, __ATOMIC_RELEASE);   /* the call completed */
            __atomic_store_n(&l->seq, l->seq + 1, __ATOMIC_RELEASE);               /* the next one starts */
            l->t_start = (uint64_t)now;
            __atomic_store_n(&l->seq, l->seq + 1, __ATOMIC_RELEASE);
        }
        steps++;
        struct timespec ts = {period / 1000, (long)(period % 1000) * 1000000};
        nanosleep(&ts, NULL);
    }
    printf("live_churn: %u ranks, %lu steps\n", n, steps);
    return 0;
}
