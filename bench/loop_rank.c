/*
 * loop_rank.c — N calls of MPI_Comm_rank in a tight loop (bench/run).
 *
 *   loop_rank N [BLOCKS]
 *
 * Run as a singleton (no launcher).  The N calls are made in BLOCKS
 * (default 20) equal blocks, each timed on its own; prints
 *
 *   ns_per_call <best block> <whole loop>
 *
 * The best block is what the machine can do when nobody else runs on our
 * core (the bench machine is shared); the whole loop is also printed.  A
 * block of 100,000 calls spans several of the runtime's chunk changes
 * (16,368 call records per 256 KiB chunk), so their cost is in it.
 *
 * The loop is its own non-inlined function (callgrind's bench/run counts
 * whole runs, but profiles can find it); each call's result feeds a sum so
 * the compiler keeps every call.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long bench_loop(long n)
{
    long sum = 0;
    for (long i = 0; i < n; i++) {
        int r = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        sum += r;
    }
    return sum;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    long blocks = argc > 2 ? atol(argv[2]) : 20;
    if (n <= 0 || blocks <= 0 || blocks > n) {
        fprintf(stderr, "usage: loop_rank N [BLOCKS]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    long s = bench_loop(n < 1000 ? n : 1000);   /* warm up: first-call paths, caches */
    double best = 1e300, t0 = now_ns(), prev = t0;
    for (long b = 0; b < blocks; b++) {
        long m = n / blocks + (b < n % blocks);
        s += bench_loop(m);
        double t = now_ns();
        if ((t - prev) / m < best) best = (t - prev) / m;
        prev = t;
    }
    if (s != 0) fprintf(stderr, "loop_rank: unexpected rank sum %ld\n", s);
    printf("ns_per_call %.3f %.3f\n", best, (prev - t0) / n);
    MPI_Finalize();
    return 0;
}
