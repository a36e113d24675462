/* Deadlock (2 ranks): nonblocking collectives started in different orders,
 * each waited for by MPI_Wait.  Rank 0 starts MPI_Ibarrier then MPI_Ibcast,
 * rank 1 MPI_Ibcast then MPI_Ibarrier: MPI matches collectives by their
 * order on the communicator, so collective #1 is a barrier on one rank and a
 * broadcast on the other: rank 0 never returns from its MPI_Wait, rank 1
 * neither (MPICH) or from the second one (Open MPI). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &rq); /* L_IBARRIER */
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* L_WAIT0 */
        MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq); /* L_IBCAST */
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* L_WAIT1 */
        MPI_Ibarrier(MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* L_WAIT1B (Open MPI: its MPI_Ibcast took rank 0's barrier) */
    }
    MPI_Finalize();
    return 0;
}
