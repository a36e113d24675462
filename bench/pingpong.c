/*
 * pingpong.c — 8-byte MPI_Send/MPI_Recv ping-pong between ranks 0 and 1
 * (bench/run).
 *
 *   mpirun -n 2 pingpong N [BLOCKS]      rank 0 prints
 *
 *   ns_per_call <best block> <whole loop>
 *
 * Each rank makes one Send and one Recv per round trip, so the time per
 * call is the round-trip time / 2.  A recorder's work after a Recv and
 * before the next Send is on the critical path on both ranks, so the
 * round trip grows by about two calls' worth of added cost: the
 * difference of two such figures is the added cost per call.
 *
 * The N round trips are timed in BLOCKS (default 20) blocks; the best
 * block is what the two ranks do when both have a core (the bench machine
 * is shared, and a rank that is descheduled stalls the other).  A block of
 * 5,000 round trips is 10,000 records per rank, more than a 256 KiB chunk
 * of the runtime's, so each block pays for a chunk change.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void rounds(long n, int rank, double *buf)
{
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            buf[0] += 1.0;
        } else if (rank == 1) {
            MPI_Recv(buf, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    long blocks = argc > 2 ? atol(argv[2]) : 20;
    int rank, size;
    double buf[1] = {0.0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || n <= 0 || blocks <= 0 || blocks > n) {
        if (rank == 0) fprintf(stderr, "usage: mpirun -n 2 pingpong N [BLOCKS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long warm = n / 10 < 1000 ? n / 10 : 1000;
    rounds(warm, rank, buf);
    MPI_Barrier(MPI_COMM_WORLD);
    double best = 1e300, t0 = MPI_Wtime(), prev = t0;
    for (long b = 0; b < blocks; b++) {
        long m = n / blocks + (b < n % blocks);
        rounds(m, rank, buf);
        double t = MPI_Wtime();
        if ((t - prev) / m < best) best = (t - prev) / m;
        prev = t;
    }
    if (rank == 0) {
        if (buf[0] != (double)(warm + n))
            fprintf(stderr, "pingpong: lost messages (%g round trips seen)\n", buf[0]);
        printf("ns_per_call %.3f %.3f\n", best * 1e9 / 2.0, (prev - t0) * 1e9 / (2.0 * n));
    }
    MPI_Finalize();
    return 0;
}
