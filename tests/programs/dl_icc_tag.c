/* Deadlock (4 ranks): MPI_Intercomm_create between the even and the odd
 * ranks with the right leaders (world 0 and 1), every rank inside, but the
 * two sides give different tags (7 and 8): the leaders' exchange never
 * matches. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm local, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7 + rank % 2, &inter); /* L_ICC */
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
