/* Makes the live table of mpilens run shrink from three groups to one while
 * the program prints, for tests/cases/run_tty.sh:
 *
 *   live_shrink N        (4 ranks)
 *
 * Phase 1: rank 0 prints "live_shrink line K" for K = 1..N, 0.1 s apart,
 * while rank 1 waits in MPI_Recv from rank 0 and ranks 2-3 wait in
 * MPI_Barrier (three groups: computing, MPI_Recv, MPI_Barrier).  Phase 2:
 * every rank computes (one group) while rank 0 prints lines N+1..2N.  Only
 * rank 0 prints (MPICH's launcher on a terminal interleaves two ranks'
 * lines). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 15, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (rank == 0) {
        for (int k = 1; k <= n; k++) {
            printf("live_shrink line %d\n", k);
            vd_sleep(0.1);
        }
        MPI_Send(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = n + 1; k <= 2 * n; k++) {
        if (rank == 0) printf("live_shrink line %d\n", k);
        vd_sleep(0.1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
