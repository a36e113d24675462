/* Correct (2 ranks): a master probes (MPI_Iprobe, any source) for a result
 * and computes 0.25 s between probes; the worker computes 8 chunks of
 * 0.4 s, probing for a stop message from the master between chunks, then
 * sends its result; the master then tells it to stop. */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0, flag = 0;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        while (!flag) {
            MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &st); /* L_IPROBE0 */
            if (!flag) vd_spin(0.25);
        }
        MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
        printf("ok_iprobe_work done\n");
    } else {
        for (int i = 0; i < 8 && !flag; i++) {
            vd_spin(0.4);
            MPI_Iprobe(0, 9, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* L_IPROBE1 */
        }
        MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
