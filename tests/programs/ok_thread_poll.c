/* Correct (2 ranks, MPI_THREAD_MULTIPLE): rank 0's main thread waits in
 * MPI_Recv from any source (tag 3); its second thread polls MPI_Test on a
 * receive from rank 1 with 0.3 s of compute between polls and, once it
 * has it, sends the tag-3 message to its own rank.  Rank 1 computes 2.5 s
 * before it sends. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include "vdutil.h"

static void *helper(void *arg)
{
    int x = 0, flag = 0;
    MPI_Request rq;
    (void)arg;
    MPI_Irecv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq);
    while (!flag) {
        vd_spin(0.3);
        MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* L_TEST */
    }
    MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
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
        pthread_create(&t, NULL, helper, NULL);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
        pthread_join(t, NULL);
        printf("ok_thread_poll done\n");
    } else {
        vd_spin(2.5);
        MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
