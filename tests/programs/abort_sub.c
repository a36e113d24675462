/* MPI_Abort on a sub-communicator (4 ranks): MPI_Comm_split makes {0,1}
 * and {2,3}; rank 3 calls MPI_Abort(its half, 7) after 1 s while ranks 0-2
 * wait in an MPI_Barrier on MPI_COMM_WORLD that can never complete. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm half;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    if (rank == 3) {
        sleep(1);
        MPI_Abort(half, 7); /* L_ABORT */
    }
    MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
    MPI_Finalize();
    return 0;
}
