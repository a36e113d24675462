/* Deadlock (3 ranks): every rank receives from the next one first. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Recv(&x, 1, MPI_INT, next, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
    MPI_Send(&x, 1, MPI_INT, prev, 1, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
