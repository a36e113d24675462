/* Deadlock: rank 0 is in MPI_Barrier while rank 1 is in MPI_Bcast (the
 * same collective position on MPI_COMM_WORLD: mismatched collectives). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
    else
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD); /* L_BCAST */
    MPI_Finalize();
    return 0;
}
