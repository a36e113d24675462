/* Correct program whose phases are longer than a short deadlock timeout:
 * a rank computing while the other waits for it (receive, collective,
 * polling), and a long sleep.  Must never be called a deadlock.
 *   live_compute [seconds per phase]   (default 4) */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile double sink;

static void compute(double s)
{
    double t0 = now(), x = 0;
    while (now() - t0 < s)
        for (int i = 0; i < 100000; i++) x += i * 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    double s = argc > 1 ? atof(argv[1]) : 4;
    int rank, size, x = 0, flag = 0;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* 1: rank 0 computes, the others wait in MPI_Recv */
    if (rank == 0) {
        compute(s); /* L_COMPUTE1 */
        for (int r = 1; r < size; r++) MPI_Send(&x, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV1 */
    }
    /* 2: the last rank sleeps, the others wait in MPI_Barrier */
    if (rank == size - 1) sleep((unsigned)s);
    MPI_Barrier(MPI_COMM_WORLD); /* L_BARRIER2 */
    /* 3: rank 0 polls with MPI_Test while rank 1 computes, then sends */
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &rq);
        while (!flag) {
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); /* L_TEST3 */
            usleep(2000);
        }
    } else if (rank == 1) {
        compute(s);
        MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
