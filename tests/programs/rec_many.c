/* rec_many.c — N calls of MPI_Comm_rank per rank (many chunks of records),
 * for the disk-full cases: prints how many MPI calls each rank made.
 *
 *   rec_many N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int rank = 0, r;
    for (long i = 0; i < n; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    /* MPI_Init, n + 1 MPI_Comm_rank, MPI_Barrier, MPI_Finalize */
    printf("rank %d: %ld calls\n", rank, n + 4);
    MPI_Finalize();
    return 0;
}
