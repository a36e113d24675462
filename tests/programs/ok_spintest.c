/* Correct (2 ranks): rank 0 spins in MPI_Test (no pause) on a receive;
 * rank 1 polls MPI_Iprobe once (nothing there), then computes 3.5 s (3x the
 * deadlock timeout and more) before it sends. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0, flag = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq);
        while (!flag) MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* L_TEST */
        printf("ok_spintest done\n");
    } else {
        MPI_Iprobe(0, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        vd_spin(3.5);
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
