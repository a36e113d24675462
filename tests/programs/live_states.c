/* Known states to look at with mpilens top (3 ranks, MPI_THREAD_MULTIPLE):
 * rank 0 computes after an MPI_Allreduce, rank 1 waits in MPI_Recv from 0,
 * rank 2 waits in MPI_Barrier while a second thread of it waits in MPI_Recv
 * from 0 tag 9.  After `seconds` (default 6) rank 0 releases everybody.
 *   live_states [seconds] */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void *helper(void *arg)
{
    int y = 0;
    (void)arg;
    MPI_Recv(&y, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_THREAD */
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, provided, x = 0;
    double s = argc > 1 ? atof(argv[1]) : 6;
    pthread_t th;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* L_ALLREDUCE */
    if (rank == 0) {
        usleep((useconds_t)(s * 1e6)); /* computing */
        MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 2, 9, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
    } else if (rank == 2) {
        pthread_create(&th, NULL, helper, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER */
    if (rank == 2) pthread_join(th, NULL);
    MPI_Finalize();
    return 0;
}
