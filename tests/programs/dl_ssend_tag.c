/* Deadlock (2 ranks): rank 0's MPI_Ssend with tag 1, rank 1 receives tag 2. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Ssend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD); /* L_SSEND */
    else if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
    MPI_Finalize();
    return 0;
}
