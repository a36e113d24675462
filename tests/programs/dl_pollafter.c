/* Deadlock (2 ranks): rank 0 computes 0.4 s between 6 polls of MPI_Test,
 * then spins in MPI_Test (no pause) on a receive rank 1 never sends: rank 1
 * waits in MPI_Recv for rank 0.  Computing between polls must not keep
 * rank 0 "computing" once it only polls. */
#include <mpi.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, flag = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&y, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &rq); /* L_IRECV */
        for (int i = 0; i < 6 && !flag; i++) {
            vd_spin(0.4);
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        }
        while (!flag) MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* L_TEST */
        MPI_Send(&x, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&y, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
        MPI_Send(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
