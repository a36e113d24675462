/* rep_clockchain.c -- messages whose clock repairs chain from rank to rank
 * (tests/cases/report_parallel.sh skews the ranks' clock offsets after the
 * run), 5 ranks: a token goes round the ring 0 -> 1 -> ... -> 4 -> 0, then
 * back 4 -> 3 -> ... -> 0 -> 4, ten times each way, with nonblocking
 * neighbour exchanges between the laps and an MPI_Allreduce after each.
 * Prints SKIP unless run on 5 ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, token = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 5) {
        if (rank == 0) printf("SKIP: rep_clockchain wants 5 ranks\n");
        MPI_Finalize();
        return 0;
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int lap = 0; lap < 10; lap++) {
        /* forward: 0 starts, every other rank passes it on */
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
        }
        /* backward */
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, left, 2, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, left, 2, MPI_COMM_WORLD);
        }
        /* neighbours, nonblocking */
        int in[2], out[2] = {rank, lap};
        MPI_Request rq[4];
        MPI_Irecv(&in[0], 1, MPI_INT, left, 3, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(&in[1], 1, MPI_INT, right, 4, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(&out[0], 1, MPI_INT, right, 3, MPI_COMM_WORLD, &rq[2]);
        MPI_Isend(&out[1], 1, MPI_INT, left, 4, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        int sum = 0;
        MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("rep_clockchain done: token %d\n", token);
    MPI_Finalize();
    return 0;
}
