/* rep_reqnull.c -- MPI_REQUEST_NULL among the requests of the Wait/Test
 * family (tests/cases/report_reqnull.sh), 2 ranks.  Rank 0 sends rank 1
 * 3 messages of 4 ints (tags 1-3, 16 bytes each); rank 1 takes them with
 * an MPI_Irecv completed by an MPI_Waitall over {MPI_REQUEST_NULL, the
 * Irecv, MPI_REQUEST_NULL}, then one by an MPI_Testall loop over the same
 * kind of list, then one by MPI_Waitany over {MPI_REQUEST_NULL, the Irecv}.
 * Both ranks then call MPI_Wait and MPI_Test on MPI_REQUEST_NULL, and an
 * MPI_Waitall over two MPI_REQUEST_NULL.  Prints "rep_reqnull: done". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, b[4] = {0}, flag = 0, idx;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Request r[3], n = MPI_REQUEST_NULL;
    if (rank == 0) {
        for (int t = 1; t <= 3; t++) MPI_Send(b, 4, MPI_INT, 1, t, MPI_COMM_WORLD);
    } else if (rank == 1) {
        r[0] = r[2] = MPI_REQUEST_NULL;
        MPI_Irecv(b, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
        MPI_Irecv(b, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[1]);
        while (!flag) MPI_Testall(3, r, &flag, MPI_STATUSES_IGNORE);
        MPI_Irecv(b, 4, MPI_INT, 0, 3, MPI_COMM_WORLD, &r[1]);
        MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
    }
    MPI_Status st;
    MPI_Wait(&n, &st);
    MPI_Test(&n, &flag, &st);
    r[0] = r[1] = MPI_REQUEST_NULL;
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    if (rank == 0) printf("rep_reqnull: done\n");
    MPI_Finalize();
    return 0;
}
