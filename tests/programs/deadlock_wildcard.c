/* Deadlock: rank 0 receives from MPI_ANY_SOURCE; nobody ever sends (3 ranks:
 * the others wait in MPI_Barrier for rank 0). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_ANY */
    MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
    MPI_Finalize();
    return 0;
}
