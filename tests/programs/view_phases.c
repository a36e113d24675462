/* view_phases.c — four phases of point-to-point traffic for the tests of
 * `mpilens view`: in phase p each rank sends (p + 1) * 1000 * (rank + 1)
 * bytes to rank (rank + 1 + p) % size with MPI_Isend and receives the one
 * sent to it with MPI_Recv; a barrier and 30 ms of computation end each
 * phase, so the phases are apart in time.  One rank: no messages (it still
 * calls the barriers).  Prints the messages and bytes it sent in all. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void compute(double s)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < s);
}

int main(int argc, char **argv)
{
    int rank, size;
    long msgs = 0, bytes = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *buf = calloc(4 * 1000 * (size + 1), 1), *in = calloc(4 * 1000 * (size + 1), 1);
    for (int p = 0; p < 4; p++) {
        int to = (rank + 1 + p) % size, from = ((rank - 1 - p) % size + size) % size;
        int n = (p + 1) * 1000 * (rank + 1), m = (p + 1) * 1000 * (from + 1);
        if (size > 1 && to != rank) {
            MPI_Request rq;
            MPI_Isend(buf, n, MPI_CHAR, to, p, MPI_COMM_WORLD, &rq); /* the send line */
            MPI_Recv(in, m, MPI_CHAR, from, p, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            msgs++;
            bytes += n;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        compute(0.03);
    }
    long tot[2] = {msgs, bytes}, all[2];
    MPI_Reduce(tot, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("messages=%ld bytes=%ld\n", all[0], all[1]);
    free(buf);
    free(in);
    MPI_Finalize();
    return 0;
}
