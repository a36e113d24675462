/* Correct (3 ranks): rank 2 sleeps (usleep, then nanosleep) 1.5 s each
 * before the MPI_Allreduce the others wait in. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    double a = 1, b = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2) {
        usleep(1500000);
        struct timespec ts = {1, 500000000};
        nanosleep(&ts, NULL);
    }
    MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* L_ALLREDUCE */
    if (rank == 0) printf("ok_sleep done %g\n", b);
    MPI_Finalize();
    return 0;
}
