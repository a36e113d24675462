/* Deadlock: both ranks receive first (recv/recv cycle). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank < 2) {
        MPI_Recv(&x, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
        MPI_Send(&x, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
