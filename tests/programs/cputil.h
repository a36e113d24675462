/* cputil.h — the timing helpers of the critical-path test programs
 * (cp_analytic.c, cp_early.c): now() in ns, spin(ns) busy for that long
 * (summed in spin_total), and M(call) around every MPI call (summed in
 * mpi_total), so a rank prints what it spent where. */
#ifndef CPUTIL_H
#define CPUTIL_H
#include <stdint.h>
#include <time.h>

static int64_t spin_total, mpi_total, mark;

static int64_t now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void spin(int64_t ns)
{
    int64_t t0 = now(), t;
    while ((t = now()) - t0 < ns) {
    }
    spin_total += t - t0;
}

/* around every MPI call: M(call) */
#define M(call)                     \
    do {                            \
        mark = now();               \
        call;                       \
        mpi_total += now() - mark;  \
    } while (0)
#endif
