/* Deadlock after two ranks vanish (4 ranks, run with a launcher told to keep
 * the job running): ranks 1 and 3 SIGKILL themselves (no record of their
 * own: mpilens run's process watcher notes them gone), rank 3 300 ms after
 * rank 1, so that the watcher sees them gone at different times; ranks 0
 * and 2 wait in MPI_Recv from rank 1 forever. */
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
    if (rank == 1) raise(SIGKILL);
    if (rank == 3) {
        usleep(300000);
        raise(SIGKILL);
    }
    MPI_Recv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
    MPI_Finalize();
    return 0;
}
