/* A rank that polls in a tight loop (2 ranks): rank 0 polls with MPI_Iprobe
 * (argument "iprobe") or MPI_Test on a posted receive (argument "test") for a
 * message rank 1 sends only after sleeping 1.5 s, counting its own calls;
 * it prints "POLLS routine=MPI_Iprobe calls=N" (N includes the successful
 * call).  Under the runtime the run of unsuccessful polls is one record and
 * a REPEAT (docs/FORMAT.md), not one record per poll.  Argument "wtime":
 * rank 0 busy-waits 1.5 s on MPI_Wtime instead (a run of MPI_Wtime calls is
 * kept the same way), then receives; it prints "POLLS routine=MPI_Wtime
 * calls=N" (N includes the first MPI_Wtime). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, x = 0, flag = 0;
    long calls = 0;
    int test = argc > 1 && strcmp(argv[1], "test") == 0;
    int wtime = argc > 1 && strcmp(argv[1], "wtime") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        if (wtime) {
            double t0 = MPI_Wtime();
            long loops = 0;
            while (MPI_Wtime() - t0 < 1.5) loops++;
            calls = 1 + loops + 1;   /* t0, one per pass, the one that ended the loop */
            MPI_Recv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (test) {
            MPI_Request rq;
            MPI_Irecv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &rq);
            while (!flag) {
                MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
                calls++;
            }
        } else {
            while (!flag) {
                MPI_Iprobe(1, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                calls++;
            }
            MPI_Recv(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        printf("POLLS routine=%s calls=%ld\n", wtime ? "MPI_Wtime" : test ? "MPI_Test" : "MPI_Iprobe", calls);
        fflush(stdout);
    } else if (rank == 1) {
        vd_sleep(1.5);
        x = 42;
        MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
