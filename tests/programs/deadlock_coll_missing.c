/* Deadlock: rank 2 skips the MPI_Allreduce the others are in (3 ranks). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    double a = 1, b = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 2)
        MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* L_ALLREDUCE */
    else
        MPI_Recv(&a, 1, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_SKIP */
    MPI_Finalize();
    return 0;
}
