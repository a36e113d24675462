/* Correct (2 ranks): rank 0 sends 256 MB to rank 1 (blocking MPI_Send);
 * rank 1 receives it with MPI_Irecv and polls MPI_Test only every 20 ms for
 * 2.5 s before MPI_Wait: a long transfer in progress. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "vdutil.h"

#define N (256 << 20)

int main(int argc, char **argv)
{
    int rank, flag = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *a = calloc(N, 1);
    if (rank == 0) {
        MPI_Send(a, N, MPI_CHAR, 1, 9, MPI_COMM_WORLD); /* L_SEND */
    } else {
        MPI_Irecv(a, N, MPI_CHAR, 0, 9, MPI_COMM_WORLD, &rq);
        double t0 = vd_now();
        while (!flag && vd_now() - t0 < 2.5) {
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* L_TEST */
            usleep(20000);
        }
        if (!flag) MPI_Wait(&rq, MPI_STATUS_IGNORE);
        printf("ok_bigmsg done (%s)\n", flag ? "completed while polling" : "completed in MPI_Wait");
    }
    free(a);
    MPI_Finalize();
    return 0;
}
