/* Deadlock (2 ranks): both post two receives from the other (tags 1, 2);
 * rank 0 waits in MPI_Waitany, rank 1 in MPI_Waitsome; nobody sends. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x[2], idx, n, ids[2];
    MPI_Request rq[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int other = 1 - rank;
    MPI_Irecv(&x[0], 1, MPI_INT, other, 1, MPI_COMM_WORLD, &rq[0]); /* L_IRECV1 */
    MPI_Irecv(&x[1], 1, MPI_INT, other, 2, MPI_COMM_WORLD, &rq[1]); /* L_IRECV2 */
    if (rank == 0)
        MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE); /* L_WAITANY */
    else
        MPI_Waitsome(2, rq, &n, ids, MPI_STATUSES_IGNORE); /* L_WAITSOME */
    MPI_Finalize();
    return 0;
}
