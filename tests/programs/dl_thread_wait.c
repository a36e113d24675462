/* Deadlock (2 ranks, MPI_THREAD_MULTIPLE): on each rank the main thread
 * posts a receive from the other rank and a second thread waits for it with
 * MPI_Waitany (rank 0) or MPI_Waitall (rank 1); nobody sends. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int rank;
static MPI_Request rq[2];

static void *waiter(void *arg)
{
    int idx;
    (void)arg;
    if (rank == 0) MPI_Waitany(1, rq, &idx, MPI_STATUS_IGNORE); /* L_WAITANY */
    else MPI_Waitall(1, rq, MPI_STATUSES_IGNORE); /* L_WAITALL */
    return NULL;
}

int main(int argc, char **argv)
{
    int prov, x = 0;
    pthread_t t;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
    if (prov < MPI_THREAD_MULTIPLE) {
        printf("no MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&x, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD, &rq[0]); /* L_IRECV */
    pthread_create(&t, NULL, waiter, NULL);
    pthread_join(t, NULL);
    MPI_Finalize();
    return 0;
}
