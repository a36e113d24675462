/* Deadlock: rank 0 polls MPI_Test (with MPI_Wtime in the loop) on a
 * receive that never comes; rank 1 waits in MPI_Recv for rank 0. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, flag = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&y, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &rq); /* L_IRECV */
        double t0 = MPI_Wtime();
        while (!flag) {
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* L_TEST */
            if (MPI_Wtime() - t0 > 1e6) break;
            usleep(1000);
        }
        MPI_Send(&x, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&y, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
        MPI_Send(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
