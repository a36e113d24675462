/* Correct (2 ranks): rank 0 blocks in MPI_Ssend to rank 1, which polls
 * MPI_Iprobe for another tag once and then computes 3 s before it receives. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Ssend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD); /* L_SSEND */
        printf("ok_ssend done\n");
    } else {
        MPI_Iprobe(0, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        vd_spin(3.0);
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
