/* Correct (3 ranks): rank 0 waits for rank 1, which waits for rank 2, which
 * computes 2 s first: a chain that ends at a computing rank. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2) {
        vd_spin(2.0);
        MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV1 */
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV0 */
        printf("ok_chain done\n");
    }
    MPI_Finalize();
    return 0;
}
