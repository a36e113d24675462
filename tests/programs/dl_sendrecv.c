/* Deadlock (2 ranks): MPI_Sendrecv with mismatched tags: both send tag 1
 * and receive tag 2. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Sendrecv(&x, 1, MPI_INT, other, 1, &y, 1, MPI_INT, other, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_SENDRECV */
    MPI_Finalize();
    return 0;
}
