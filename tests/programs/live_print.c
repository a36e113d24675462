/* Prints numbered lines while it runs, for tests/cases/run_tty.sh (the
 * in-place table of mpilens run on a terminal):
 *
 *   live_print N STATUS
 *
 * rank 0 prints "live_print line K" for K = 1..N, 0.1 s apart, each line
 * followed by an MPI_Barrier of all ranks (so the table has something to
 * show); then all finalize and rank 0 returns STATUS from main.  One rank
 * prints: MPICH's launcher, on a terminal, interleaves the output of two
 * ranks within lines. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 20, status = argc > 2 ? atoi(argv[2]) : 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int k = 1; k <= n; k++) {
        if (rank == 0) printf("live_print line %d\n", k);
        vd_sleep(0.1);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return rank == 0 ? status : 0;
}
