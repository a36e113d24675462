/* Correct (2 ranks): rank 0 polls MPI_Test, then MPI_Iprobe, for messages
 * rank 1 sends after computing 2 s each time. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0, flag = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq);
        while (!flag) {
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* L_TEST */
            usleep(1000);
        }
        flag = 0;
        while (!flag) {
            MPI_Iprobe(1, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* L_IPROBE */
            usleep(1000);
        }
        MPI_Recv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("ok_testpoll done\n");
    } else {
        vd_sleep(2.0);
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        vd_spin(2.0);
        MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
