/*
 * threads.c — two threads per rank exchanging messages with the other rank
 * (MPI_THREAD_MULTIPLE), each on its own tag: the report pairs all of
 * them and the exports show each thread as its own track.
 *
 *   mpirun -n 2 ./threads        prints "EXPECT messages=<n> bytes=<b>" on rank 0
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 50
static int rank;

static void *work(void *arg)
{
    int tag = (int)(long)arg, peer = 1 - rank;
    double buf[16] = {0}, in[16];
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Request rq;
        MPI_Irecv(in, 16, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &rq);
        MPI_Send(buf, 1 + tag, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0) printf("SKIP no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 0;
    }
    pthread_t t[2];
    for (long k = 0; k < 2; k++) pthread_create(&t[k], NULL, work, (void *)(k + 1));
    for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    /* 2 ranks x 2 threads x ROUNDS messages of (1 + tag) doubles */
    if (rank == 0) printf("EXPECT messages=%d bytes=%d\n", 2 * 2 * ROUNDS, 2 * ROUNDS * 8 * (2 + 3));
    MPI_Finalize();
    return 0;
}
