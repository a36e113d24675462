/* Deadlock (2 ranks): rank 0 waits for its MPI_Ibarrier; rank 1 waits in
 * MPI_Recv for a message rank 0 sends after it. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &rq); /* L_IBARRIER */
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* L_WAIT */
        MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
        MPI_Ibarrier(MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
