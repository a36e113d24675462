/* Correct (3 ranks): a nonblocking MPI_Iallreduce waited with MPI_Wait;
 * rank 2 computes 2.5 s before it starts it, rank 1 polls MPI_Test on it
 * with 0.3 s of compute between polls. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, flag = 0;
    double a = 1, b = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2) vd_spin(2.5);
    MPI_Iallreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
    if (rank == 1) {
        while (!flag) {
            vd_spin(0.3);
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* L_WAIT */
    }
    if (rank == 0) printf("ok_iallreduce done %g\n", b);
    MPI_Finalize();
    return 0;
}
