/* Deadlock (2 ranks): both wait in MPI_Probe for a message of the other. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Probe(other, 6, MPI_COMM_WORLD, &st); /* L_PROBE */
    MPI_Recv(&x, 1, MPI_INT, other, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, other, 6, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
