/* Correct (4 ranks): MPI_Intercomm_create between the even and the odd
 * ranks (local leaders world 0 and 1), where the odd leader computes 2.5 s
 * before it calls: ranks 0, 2 and 3 wait inside meanwhile, all of the even
 * side has arrived and its leader waits for rank 1. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm local, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
    if (rank == 1) vd_spin(2.5);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter); /* L_ICC */
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    if (rank == 0) printf("ok_icc_slow done\n");
    MPI_Finalize();
    return 0;
}
