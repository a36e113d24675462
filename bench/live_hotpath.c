/*
 * live_hotpath.c — ns per call of a few MPI calls in a tight loop, to measure
 * what the live-state publication costs on the hot path (bench/live_hotpath.sh
 * runs it with and without the runtime, several interleaved times).
 *
 *   live_hotpath [calls]     prints: <name> <ns per call>   for each loop
 *
 * Loops: MPI_Comm_rank (a local call), MPI_Iprobe that finds nothing (an
 * unsuccessful poll), MPI_Test on a request that never completes, MPI_Barrier
 * on MPI_COMM_SELF (a collective), MPI_Sendrecv to self (point-to-point).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 5000000;
    int r, flag, buf = 0, rbuf;
    MPI_Init(&argc, &argv);
    MPI_Request req;
    MPI_Irecv(&rbuf, 1, MPI_INT, 0, 77, MPI_COMM_SELF, &req);
    for (int rep = 0; rep < 2; rep++) {     /* the first round warms up */
        double t0 = now();
        for (long i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
        double t1 = now();
        for (long i = 0; i < n; i++) MPI_Iprobe(0, 5, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
        double t2 = now();
        for (long i = 0; i < n; i++) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        double t3 = now();
        for (long i = 0; i < n / 10; i++) MPI_Barrier(MPI_COMM_SELF);
        double t4 = now();
        for (long i = 0; i < n / 10; i++)
            MPI_Sendrecv(&buf, 1, MPI_INT, 0, 1, &rbuf, 1, MPI_INT, 0, 1, MPI_COMM_SELF,
                         MPI_STATUS_IGNORE);
        double t5 = now();
        if (rep == 1)
            printf("Comm_rank %.2f\nIprobe_fail %.2f\nTest_fail %.2f\nBarrier_self %.2f\nSendrecv_self %.2f\n",
                   (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9, (t3 - t2) / n * 1e9,
                   (t4 - t3) / (n / 10) * 1e9, (t5 - t4) / (n / 10) * 1e9);
    }
    MPI_Cancel(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
