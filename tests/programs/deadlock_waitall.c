/* Deadlock: rank 0 waits in MPI_Waitall on a receive (tag 99) rank 1 never
 * sends; rank 1 has gone on to MPI_Barrier. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0;
    MPI_Request rq[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&y, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &rq[0]); /* L_IRECV */
        MPI_Isend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE); /* L_WAITALL */
    } else if (rank == 1) {
        MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
    MPI_Finalize();
    return 0;
}
