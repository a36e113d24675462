/* Correct (2 ranks): nonblocking collectives waited for out of order.  Both
 * ranks start MPI_Ibarrier then MPI_Ibcast (the same order); rank 0 waits
 * for the broadcast first while rank 1 computes 2 s before it starts
 * either, then calls MPI_Barrier while rank 1 computes 2 s more. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 3;
    MPI_Request rq[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) vd_sleep(2.0);
    MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]);
    MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[1]);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE); /* L_WAIT */
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    if (rank == 1) vd_sleep(2.0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("ok_nbc_order done\n");
    MPI_Finalize();
    return 0;
}
