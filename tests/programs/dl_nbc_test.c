/* Deadlock (2 ranks): nonblocking collectives started in different orders,
 * each completed by an MPI_Test loop.  Rank 0 starts MPI_Ibcast then
 * MPI_Iallreduce, rank 1 MPI_Iallreduce then MPI_Ibcast: collective #1 on
 * MPI_COMM_WORLD differs, and neither loop ever sees its request done. */
#include <mpi.h>

static void test_loop(MPI_Request *rq)
{
    int done = 0;
    while (!done) MPI_Test(rq, &done, MPI_STATUS_IGNORE); /* L_TEST */
}

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Ibcast(&x, 1, MPI_INT, 1, MPI_COMM_WORLD, &rq); /* L_IBCAST */
        test_loop(&rq);
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
        test_loop(&rq);
    } else {
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq); /* L_IALLREDUCE */
        test_loop(&rq);
        MPI_Ibcast(&x, 1, MPI_INT, 1, MPI_COMM_WORLD, &rq);
        test_loop(&rq);
    }
    MPI_Finalize();
    return 0;
}
