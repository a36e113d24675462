/* Correct (2 ranks): rank 0 is in MPI_Finalize while rank 1 computes 2.5 s. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) vd_sleep(2.5);
    if (rank == 0) printf("ok_finalize done\n");
    MPI_Finalize(); /* L_FIN */
    return 0;
}
