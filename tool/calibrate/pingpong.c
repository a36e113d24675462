/*
 * pingpong.c — the measurement behind `mpilens calibrate`: ranks 0 and 1
 * send a message of n bytes back and forth, for a few sizes from 0 to 4 MiB,
 * and rank 0 prints one line per size, "n one_way_ns", the best of several
 * batches (the least disturbed by the rest of the machine).  Other ranks of
 * the job wait at the final barrier.  Built once per MPI by the Makefile
 * (build/lib/mpilens/mpilens-pingpong-<mpi>); never recorded (mpilens
 * calibrate starts it without the runtime).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int sizes[] = {0, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "pingpong: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc(4194304);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(buf, 1, 4194304);
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        /* repetitions: about 20 ms of traffic per batch at 1 GB/s, at least 4 */
        int reps = n ? 20000000 / (n + 2000) : 10000;
        if (reps < 4) reps = 4;
        if (reps > 10000) reps = 10000;
        double best = 1e30;
        for (int batch = 0; batch < 7; batch++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < reps; i++) {
                if (rank == 0) {
                    MPI_Send(buf, n, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
                    MPI_Recv(buf, n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    MPI_Recv(buf, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
                }
            }
            double t = (MPI_Wtime() - t0) / (2.0 * reps);
            if (batch > 0 && t < best) best = t;   /* batch 0 warms up */
        }
        if (rank == 0) printf("%d %.1f\n", n, best * 1e9);
    }
    if (rank == 0) fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return 0;
}
