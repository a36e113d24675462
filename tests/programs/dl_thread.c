/* Deadlock (3 ranks, MPI_THREAD_MULTIPLE): a second thread of ranks 0 and 1
 * receives from the other's (tag 5) first: a cycle; their main threads wait
 * in MPI_Barrier, which rank 2 never reaches: it waits for the message rank
 * 0's thread would send after its receive. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int rank;

static void *worker(void *arg)
{
    int x = 0;
    (void)arg;
    MPI_Recv(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_TRECV */
    MPI_Send(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD);
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, 2, 6, MPI_COMM_WORLD);
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
    if (rank < 2) {
        pthread_create(&t, NULL, worker, NULL);
        MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
        pthread_join(t, NULL);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_R2 */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
