/* Deadlock (2 ranks): both poll MPI_Iprobe for a message of the other
 * (a short sleep between tries); nobody sends. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    while (!flag) {
        MPI_Iprobe(other, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* L_IPROBE */
        usleep(2000);
    }
    MPI_Recv(&x, 1, MPI_INT, other, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
