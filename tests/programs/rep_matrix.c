/* rep_matrix.c -- the communication matrix and the per-rank call-site
 * statistics of mpilens report (tests/cases/report_matrix.sh), 4 ranks:
 *   rank r sends r+1 messages of (r+1)*100 bytes to rank (r+1)%4, all
 *   from one call site, and receives its left neighbour's;
 *   rank 0 also sends one message of 7 bytes to rank 2;
 *   every rank: MPI_Bcast of 10 ints from root 1, MPI_Allreduce of 3 doubles.
 * Prints SKIP unless run on 4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    char buf[512];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) printf("SKIP: rep_matrix wants 4 ranks\n");
        MPI_Finalize();
        return 0;
    }
    memset(buf, rank, sizeof buf);
    int right = (rank + 1) % 4, left = (rank + 3) % 4;
    for (int i = 0; i < rank + 1; i++)
        MPI_Send(buf, (rank + 1) * 100, MPI_BYTE, right, 1, MPI_COMM_WORLD);
    for (int i = 0; i < left + 1; i++)
        MPI_Recv(buf, sizeof buf, MPI_BYTE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) MPI_Send(buf, 7, MPI_BYTE, 2, 2, MPI_COMM_WORLD);
    if (rank == 2) MPI_Recv(buf, 7, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int v[10] = {0};
    MPI_Bcast(v, 10, MPI_INT, 1, MPI_COMM_WORLD);
    double d[3] = {1, 2, 3}, e[3];
    MPI_Allreduce(d, e, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("rep_matrix: done\n");
    MPI_Finalize();
    return 0;
}
