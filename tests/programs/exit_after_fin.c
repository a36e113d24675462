/* exit_after_fin: every rank calls MPI_Finalize, then rank 0 exits with
 * status 3 (as an uncaught Python exception under mpi4py does: mpi4py
 * finalizes MPI at exit, the interpreter exits with 1).  With the argument
 * "abort", the other ranks then wait 1 s and call abort(), unless the
 * launcher stops them first (Open MPI's mpirun does, for rank 0's status). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0) exit(3);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) {
        sleep(1);
        abort();
    }
    return 0;
}
