/*
 * rep_part.c — MPI 4.0 partitioned point-to-point for `mpilens report`
 * (tests/cases/report_partitioned.sh).  Needs an even number of ranks.
 *
 * Each even rank sends its odd neighbour one partitioned message of 4
 * partitions of 25 doubles (800 bytes) three times: MPI_Psend_init, then
 * MPI_Start, MPI_Pready of each partition (last first), MPI_Wait; the odd
 * rank MPI_Precv_init, MPI_Start, polls MPI_Parrived on partition 0 and
 * MPI_Wait.  Then one plain MPI_Send of 16 bytes back.  Rank 0 prints
 * "EXPECT messages=<n> bytes=<b>"; where the MPI has no partitioned
 * communication (before MPI 4.0) it prints "SKIP".
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#if MPI_VERSION >= 4
    enum { PARTS = 4, COUNT = 25, ROUNDS = 3 };
    static double buf[PARTS * COUNT];
    int peer = rank ^ 1;
    MPI_Request r;
    if (!(rank & 1)) {
        MPI_Psend_init(buf, PARTS, COUNT, MPI_DOUBLE, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        for (int k = 0; k < ROUNDS; k++) {
            MPI_Start(&r);
            for (int p = PARTS - 1; p >= 0; p--) MPI_Pready(p, r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        MPI_Recv(buf, 2, MPI_DOUBLE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Precv_init(buf, PARTS, COUNT, MPI_DOUBLE, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        for (int k = 0; k < ROUNDS; k++) {
            int flag = 0;
            MPI_Start(&r);
            while (!flag) MPI_Parrived(r, 0, &flag);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        MPI_Send(buf, 2, MPI_DOUBLE, peer, 9, MPI_COMM_WORLD);
    }
    MPI_Request_free(&r);
    if (rank == 0)
        printf("EXPECT messages=%d bytes=%d\n", size / 2 * (ROUNDS + 1),
               size / 2 * (ROUNDS * PARTS * COUNT * 8 + 16));
#else
    if (rank == 0) printf("SKIP\n");
#endif
    MPI_Finalize();
    return 0;
}
