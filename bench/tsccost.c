/*
 * tsccost.c — what one read of the time-stamp counter costs on this machine
 * (bench/run).  Every recorder reads a clock twice per call, so this is a
 * floor under any per-call cost.  Prints "rdtsc_ns <best of 20 blocks>".
 * (On virtual machines rdtsc can cost tens of ns.)
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(void)
{
    const int n = 200000;
    double best = 1e300;
    volatile uint64_t sink = 0;
    for (int b = 0; b < 20; b++) {
        uint64_t s = 0;
        double t0 = now_ns();
        for (int i = 0; i < n; i++) s += __rdtsc();
        double t = (now_ns() - t0) / n;
        sink += s;
        if (t < best) best = t;
    }
    printf("rdtsc_ns %.2f\n", best);
    return 0;
}
