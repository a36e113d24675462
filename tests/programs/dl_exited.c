/* Deadlock (2 ranks): rank 0 receives from rank 1, which exits (status 0)
 * without MPI_Finalize. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
    if (rank == 1) exit(0);
    MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
    MPI_Finalize();
    return 0;
}
