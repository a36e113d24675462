/* Correct (4 ranks): master/worker with MPI_ANY_SOURCE.  The master polls
 * MPI_Test on a receive from any source, computing 0.2 s between polls;
 * each of the 3 workers gets 2 tasks of 1.5-2.5 s (spin or sleep). */
#include <mpi.h>
#include <stdio.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, size, task, res, flag;
    MPI_Request rq;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        int sent = 0, done = 0, ntask = 2 * (size - 1);
        for (int w = 1; w < size; w++, sent++) MPI_Send(&sent, 1, MPI_INT, w, 1, MPI_COMM_WORLD);
        while (done < ntask) {
            MPI_Irecv(&res, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &rq);
            for (flag = 0; !flag;) {
                MPI_Test(&rq, &flag, &st); /* L_TEST */
                if (!flag) vd_spin(0.2);
            }
            done++;
            task = sent < ntask ? sent++ : -1;
            MPI_Send(&task, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD);
        }
        printf("ok_master done\n");
    } else {
        for (;;) {
            MPI_Recv(&task, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
            if (task < 0) break;
            if (task % 2) vd_sleep(1.5 + 0.5 * rank / size); else vd_spin(2.5 - 0.5 * rank / size);
            MPI_Send(&task, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
