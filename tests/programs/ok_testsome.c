/* Correct (3 ranks): rank 0 polls MPI_Testsome on receives from ranks 1
 * and 2, computing 0.2 s between polls; ranks 1 and 2 poll MPI_Testany on a
 * receive from rank 0 between 0.5 s sleeps/spins for 3 s before they send;
 * rank 0 answers when it has both. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x[2] = {0, 0}, got = 0, n, ids[2], idx, flag = 0;
    MPI_Request rq[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int s = 0; s < 2; s++) MPI_Irecv(&x[s], 1, MPI_INT, s + 1, 3, MPI_COMM_WORLD, &rq[s]);
        while (got < 2) {
            MPI_Testsome(2, rq, &n, ids, MPI_STATUSES_IGNORE); /* L_TESTSOME */
            if (n > 0 && n != MPI_UNDEFINED) got += n;
            else vd_spin(0.2);
        }
        for (int s = 1; s < 3; s++) MPI_Send(&s, 1, MPI_INT, s, 4, MPI_COMM_WORLD);
        printf("ok_testsome done\n");
    } else {
        MPI_Irecv(&x[0], 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &rq[0]);
        for (int i = 0; i < 6 && !flag; i++) {
            MPI_Testany(1, rq, &idx, &flag, MPI_STATUS_IGNORE); /* L_TESTANY */
            if (rank == 1) vd_sleep(0.5); else vd_spin(0.5);
        }
        MPI_Send(&rank, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
