/* Deadlock (2 ranks) after half a MPI_Sendrecv: rank 0's send (tag 4, 4
 * ints) is received by rank 1's first MPI_Recv, but its receive half waits
 * for tag 5, which rank 1 never sends: rank 1 waits for tag 7. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x[4] = {1, 2, 3, 4}, y[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Sendrecv(x, 4, MPI_INT, 1, 4, y, 4, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_SENDRECV */
    } else if (rank == 1) {
        MPI_Recv(y, 4, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV4 */
        MPI_Recv(y, 4, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV7 */
    }
    MPI_Finalize();
    return 0;
}
