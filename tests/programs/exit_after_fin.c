/* exit_after_fin: every rank calls MPI_Finalize, then rank 0 exits with
 * status 3 (as an uncaught Python exception under mpi4py does: mpi4py
 * finalizes MPI at exit, the interpreter exits with 1). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0) exit(3);
    return 0;
}
