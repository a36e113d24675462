/* Deadlock (3 ranks): MPI_Comm_split puts ranks 0 and 1 in a communicator
 * (in reverse order); rank 0 enters an MPI_Allreduce on it, rank 1 never
 * does: it waits for rank 2, which waits for rank 0. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0;
    MPI_Comm sub;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : 1, -rank, &sub);
    if (rank == 0) {
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, sub); /* L_ALLREDUCE */
        MPI_Send(&x, 1, MPI_INT, 2, 5, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 2, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_SKIP */
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, sub);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_R2 */
        MPI_Send(&x, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    }
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
