/* Deadlock (3 ranks): every rank posts receives from both others and polls
 * MPI_Testsome (a 1 ms sleep between polls); nobody sends. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x[2], n = 0, ids[2], got = 0;
    MPI_Request rq[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int k = 0; k < 2; k++) MPI_Irecv(&x[k], 1, MPI_INT, (rank + 1 + k) % 3, 6, MPI_COMM_WORLD, &rq[k]);
    while (got < 2) {
        MPI_Testsome(2, rq, &n, ids, MPI_STATUSES_IGNORE); /* L_TESTSOME */
        if (n > 0 && n != MPI_UNDEFINED) got += n;
        usleep(1000);
    }
    MPI_Finalize();
    return 0;
}
