/* vdutil.h — helpers of the verdict collection (tests/programs/dl_*.c,
 * ok_*.c; tests/cases/live_verdicts.sh): phases of work outside MPI. */
#ifndef VDUTIL_H
#define VDUTIL_H
#include <time.h>

static double vd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
/* Sleep (outside MPI: computing as far as MPI is concerned). */
static void vd_sleep(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {}
}
/* Busy computation for s seconds (no system call but clock_gettime). */
static double vd_spin(double s)
{
    double t0 = vd_now(), x = 0;
    while (vd_now() - t0 < s)
        for (int i = 0; i < 10000; i++) x += 1e-9 * i;
    return x;
}
#endif
