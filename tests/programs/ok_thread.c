/* Correct (2 ranks, MPI_THREAD_MULTIPLE): rank 0's main thread waits in
 * MPI_Recv for rank 1, which waits for rank 0's second thread; that thread
 * computes 2 s (before its first MPI call) and then sends. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include "vdutil.h"

static void *worker(void *arg)
{
    int x = 1;
    (void)arg;
    vd_sleep(2.0);
    MPI_Send(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    return NULL;
}

int main(int argc, char **argv)
{
    int prov, rank, x = 0;
    pthread_t t;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
    if (prov < MPI_THREAD_MULTIPLE) {
        printf("no MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pthread_create(&t, NULL, worker, NULL);
        MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
        pthread_join(t, NULL);
        printf("ok_thread done\n");
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV1 */
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
