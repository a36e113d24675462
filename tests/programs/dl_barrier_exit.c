/* Deadlock (3 ranks): rank 2 exits (status 0) without MPI_Finalize; ranks 0
 * and 1 wait for it in MPI_Barrier. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) exit(0); /* L_EXIT */
    MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
    MPI_Finalize();
    return 0;
}
