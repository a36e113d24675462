/* Deadlock: a ring.  Every rank sends to the next one with MPI_Ssend
 * (which completes only once the receive is posted) before receiving from
 * the previous one: no receive is ever posted, every rank r waits for rank
 * r+1 (mod size), one cycle through all of them. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Ssend(&x, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD); /* L_SSEND */
    MPI_Recv(&x, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
