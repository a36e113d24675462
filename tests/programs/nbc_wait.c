/* nbc_wait: nonblocking collectives completed by the Wait family (any number
 * of ranks): MPI_Igather (root 0 receives 1 double per rank) + MPI_Wait,
 * MPI_Iallreduce + MPI_Ibarrier + MPI_Waitall.  Rank 0 prints the sums. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    double x, all[256], sum = 0;
    MPI_Request q[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    x = rank + 1;
    MPI_Igather(&x, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Iallreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    if (rank == 0) {
        double g = 0;
        for (int i = 0; i < size; i++) g += all[i];
        printf("nbc_wait: gathered %g, allreduce %g\n", g, sum);
    }
    MPI_Finalize();
    return 0;
}
