/* Correct (2 ranks): both post MPI_Irecv from the other and poll MPI_Test
 * between compute phases of 0.3 s (rank 0 spins, rank 1 sleeps); rank 1
 * sends only after 10 phases (3 s), rank 0 answers once it has it. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0, y = 0, flag = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&y, 1, MPI_INT, 1 - rank, 1, MPI_COMM_WORLD, &rq);
    if (rank == 0) {
        while (!flag) {
            vd_spin(0.3);
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* L_TEST0 */
        }
        MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        printf("ok_overlap done\n");
    } else {
        for (int i = 0; i < 10 && !flag; i++) {
            vd_sleep(0.3);
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* L_TEST1 */
        }
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
