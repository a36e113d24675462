/*
 * manycalls.c — many recorded calls, for the rank files of the truncation
 * tests: CALLS (argument 1, default 40000) iterations of MPI_Comm_rank, and
 * every 100th a Sendrecv with the ring neighbours and an Allreduce, so the
 * file spans several chunks and holds records of several kinds.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 40000;
    MPI_Init(&argc, &argv);
    int me, np, r, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 0; i < calls; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        if (i % 100 == 0) {
            int s = i, t = -1, u = 0;
            MPI_Sendrecv(&s, 1, MPI_INT, (me + 1) % np, 5, &t, 1, MPI_INT, (me + np - 1) % np, 5,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Allreduce(&t, &u, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            sum += u;
        }
    }
    if (me == 0) printf("manycalls: %d calls, sum %d\n", calls, sum);
    MPI_Finalize();
    return 0;
}
