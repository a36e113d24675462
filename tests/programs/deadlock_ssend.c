/* Deadlock: both ranks send synchronously first (Ssend/Ssend cycle). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    if (rank < 2) {
        MPI_Ssend(&x, 1, MPI_INT, peer, 3, MPI_COMM_WORLD); /* L_SSEND */
        MPI_Recv(&y, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
