/* Deadlock: rank 0 is the odd one out: it waits for a message from rank 1
 * while ranks 1 and 2 wait for it in MPI_Barrier (3 ranks). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
    MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
    if (rank == 1) MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
