/*
 * exp_split.c — messages and collectives on a reordered sub-communicator,
 * for the exports (tests/cases/report_export_comm.sh).  4 ranks.
 *
 * MPI_Comm_split(MPI_COMM_WORLD, color = world rank % 2, key = 4 - world
 * rank): two communicators whose ranks run against the world's: {world 2,
 * world 0} (world 2 is rank 0 in it) and {world 3, world 1}.  In each:
 *   rank 0 -> rank 1  MPI_Send/MPI_Recv, 3 MPI_INT, tag 7
 *   rank 1 -> rank 0  MPI_Isend/MPI_Wait, MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG)/MPI_Wait,
 *                     5 MPI_INT, tag 9
 *   MPI_Bcast  2 MPI_INT, root rank 1 (world 0, world 1)
 *   MPI_Reduce 4 MPI_INT, root rank 0 (world 2, world 3)
 * First an MPI_Barrier on MPI_COMM_SELF (the run's communicator 0, before
 * MPI_COMM_WORLD); then on MPI_COMM_WORLD an MPI_Sendrecv ring (1 MPI_DOUBLE to world rank
 * + 1, from world rank - 1, tag 3).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int wr, ws, sr;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &ws);
    if (ws != 4) {
        if (wr == 0) fprintf(stderr, "exp_split: run on 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_SELF);   /* a communicator numbered before MPI_COMM_WORLD */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, wr % 2, 4 - wr, &sub);
    MPI_Comm_rank(sub, &sr);
    int buf[8] = {0}, out[4];
    MPI_Request rq;
    if (sr == 0) MPI_Send(buf, 3, MPI_INT, 1, 7, sub);
    else MPI_Recv(buf, 3, MPI_INT, 0, 7, sub, MPI_STATUS_IGNORE);
    if (sr == 1) MPI_Isend(buf, 5, MPI_INT, 0, 9, sub, &rq);
    else MPI_Irecv(buf, 5, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, sub, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Bcast(buf, 2, MPI_INT, 1, sub);
    MPI_Reduce(buf, out, 4, MPI_INT, MPI_SUM, 0, sub);
    double d = wr, e;
    MPI_Sendrecv(&d, 1, MPI_DOUBLE, (wr + 1) % 4, 3, &e, 1, MPI_DOUBLE, (wr + 3) % 4, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
