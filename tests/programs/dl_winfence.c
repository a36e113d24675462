/* Deadlock (2 ranks): both put into the other's window; rank 0 closes the
 * epoch with MPI_Win_fence (collective over the window's communicator),
 * rank 1 first waits in MPI_Recv for a message rank 0 sends only after the
 * fence. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, buf[4] = {0}, x = 1;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&x, 1, MPI_INT, 1 - rank, rank, 1, MPI_INT, win);
    if (rank == 0) {
        MPI_Win_fence(0, win); /* L_FENCE */
        MPI_Send(&x, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
        MPI_Win_fence(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
