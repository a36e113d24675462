/* Correct (3 ranks): a barrier on a sub-communicator {0, 1} (MPI_Comm_split)
 * while rank 1 computes 2 s first; rank 2 waits for rank 1 meanwhile. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Comm sub;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : 1, rank, &sub);
    if (rank < 2) {
        if (rank == 1) vd_spin(2.0);
        MPI_Barrier(sub); /* L_BARRIER */
        if (rank == 1) MPI_Send(&x, 1, MPI_INT, 2, 3, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
    }
    MPI_Comm_free(&sub);
    if (rank == 0) printf("ok_subbarrier done\n");
    MPI_Finalize();
    return 0;
}
