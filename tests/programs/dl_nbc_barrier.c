/* Deadlock (2 ranks): a nonblocking collective against a blocking one.
 * Rank 0 starts MPI_Iallreduce and waits for it with MPI_Waitall, then
 * calls MPI_Barrier; rank 1 calls MPI_Barrier first.  Collective #1 on
 * MPI_COMM_WORLD is an allreduce on one rank and a barrier on the other. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    MPI_Request rq[1];
    MPI_Status st[1];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]); /* L_IALLREDUCE */
        MPI_Waitall(1, rq, st); /* L_WAITALL */
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
        MPI_Waitall(1, rq, st);
    }
    MPI_Finalize();
    return 0;
}
