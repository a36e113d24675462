/* view_odd.c — the odd corners of point-to-point traffic for the tests of
 * `mpilens view` against `mpilens report`: five rounds of a ring
 * (MPI_Sendrecv of 100, 200, ... bytes to rank + 1), a send and a receive
 * on MPI_PROC_NULL (no message), messages from every other rank to rank 0
 * received with MPI_ANY_SOURCE (8 x rank bytes, tag 7), an
 * MPI_Isend/MPI_Irecv pair around the ring (2000 bytes, tag 9) completed by
 * MPI_Waitall, and an MPI_Allreduce.  On one rank the ring goes to the rank
 * itself (10 messages to itself).  Prints the messages and bytes it sent. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int r, n;
    long msgs = 0, bytes = 0;
    static char buf[4096], in[4096];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int it = 0; it < 5; it++) {
        int to = (r + 1) % n, from = (r + n - 1) % n;
        MPI_Sendrecv(buf, 100 * (it + 1), MPI_CHAR, to, it, in, sizeof in, MPI_CHAR, from, it, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Send(buf, 10, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        MPI_Recv(in, 10, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (r == 0) {
            for (int k = 1; k < n; k++)
                MPI_Recv(in, sizeof in, MPI_CHAR, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            usleep(1000 * r);
            MPI_Send(buf, 8 * r, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
            msgs++;
            bytes += 8 * r;
        }
        MPI_Request q[2];
        MPI_Status st[2];
        MPI_Irecv(in, sizeof in, MPI_CHAR, from, 9, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(buf, 2000, MPI_CHAR, to, 9, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, st);
        MPI_Allreduce(MPI_IN_PLACE, buf, 16, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD);
        msgs += 2;
        bytes += 100 * (it + 1) + 2000;
        usleep(2000);
    }
    long tot[2] = {msgs, bytes}, all[2];
    MPI_Reduce(tot, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0) printf("messages=%ld bytes=%ld\n", all[0], all[1]);
    MPI_Finalize();
    return 0;
}
