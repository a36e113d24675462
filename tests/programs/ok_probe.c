/* Correct (2 ranks): rank 0 waits in MPI_Probe while rank 1 computes 2 s. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Probe(1, 4, MPI_COMM_WORLD, &st); /* L_PROBE */
        MPI_Recv(&x, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("ok_probe done\n");
    } else {
        vd_sleep(2.0);
        MPI_Send(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
