/* Correct (2 ranks): rank 0 starts an MPI_Ibarrier and waits for it; rank 1
 * computes 2 s, starts it, computes 2 s more, then waits. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) vd_sleep(2.0);
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    if (rank == 1) vd_sleep(2.0);
    MPI_Wait(&rq, MPI_STATUS_IGNORE); /* L_WAIT */
    if (rank == 0) printf("ok_ibarrier done\n");
    MPI_Finalize();
    return 0;
}
