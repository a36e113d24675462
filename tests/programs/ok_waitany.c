/* Correct (3 ranks): rank 0 collects with MPI_Waitany (then MPI_Waitsome)
 * from ranks 1 and 2, which compute (sleep / spin) 2 s before each send. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x[2] = {0, 0}, idx, n, ids[2];
    MPI_Request rq[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int s = 0; s < 2; s++) MPI_Irecv(&x[s], 1, MPI_INT, s + 1, 1, MPI_COMM_WORLD, &rq[s]);
        for (int k = 0; k < 2; k++) MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE); /* L_WAITANY */
        for (int s = 0; s < 2; s++) MPI_Irecv(&x[s], 1, MPI_INT, s + 1, 2, MPI_COMM_WORLD, &rq[s]);
        for (int k = 0; k < 2; k += n) MPI_Waitsome(2, rq, &n, ids, MPI_STATUSES_IGNORE); /* L_WAITSOME */
        printf("ok_waitany done\n");
    } else {
        if (rank == 1) vd_sleep(2.0); else vd_spin(1.5);
        MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        vd_sleep(rank == 1 ? 1.5 : 2.0);
        MPI_Send(&rank, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
