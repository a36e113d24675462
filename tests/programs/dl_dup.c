/* Deadlock (2 ranks): a receive cycle on a duplicate of MPI_COMM_WORLD. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_rank(dup, &rank);
    MPI_Recv(&x, 1, MPI_INT, 1 - rank, 2, dup, MPI_STATUS_IGNORE); /* L_RECV */
    MPI_Send(&x, 1, MPI_INT, 1 - rank, 2, dup);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
