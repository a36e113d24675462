/* Correct (any number of ranks): a relay.  Rank 0 computes 1 s and sends
 * to rank 1; each rank r > 0 receives from r - 1, computes 5 ms and sends to
 * r + 1; the last rank only receives and computes.  Every rank is in its
 * MPI_Recv long before the message comes (1 s: 34 ranks on 2 cores leave
 * MPI_Init hundreds of ms apart, so no barrier aligns them), so the critical
 * path runs through every rank in order (report_critpath_wide). */
#include <mpi.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank > 0) MPI_Recv(&x, 1, MPI_INT, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    vd_sleep(rank ? 0.005 : 1.0);
    if (rank + 1 < size) MPI_Send(&x, 1, MPI_INT, rank + 1, 1, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
