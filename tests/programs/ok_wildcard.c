/* Correct (3 ranks): rank 0 receives from MPI_ANY_SOURCE (any tag) while
 * ranks 1 and 2 compute 2 s and 3 s before sending. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (int k = 1; k < size; k++)
            MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_ANY */
        printf("ok_wildcard done\n");
    } else {
        vd_sleep(1.0 + rank);
        MPI_Send(&x, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
