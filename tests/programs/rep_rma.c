/* rep_rma.c -- one-sided calls with known counts (tests/cases/report_rma.sh),
 * any number of ranks from 2.  The window is made on a communicator in
 * reverse order of MPI_COMM_WORLD, so a target's window rank is not its
 * world rank.  A fence epoch: MPI_Put of 5 + world rank % 3 doubles to the
 * right neighbour (window ranks), MPI_Get of 2 pairs of doubles (a
 * contiguous type of 16 bytes) from the left one, MPI_Accumulate of 4
 * doubles to the right one; a lock/unlock epoch on the left neighbour:
 * MPI_Rput of 6 doubles, MPI_Fetch_and_op (one double), MPI_Compare_and_swap
 * (one long), MPI_Get_accumulate of 3 doubles, MPI_Rget of 2 doubles.
 * Then one message, 4 ints from world rank 0 to world rank 1.  Rank 0
 * prints what each rank did, in call order:
 *   expect RANK ROUTINE TARGET_WORLD_RANK ORIGIN_BYTES
 * and "rep_rma: done". */
#include <mpi.h>
#include <stdio.h>

#define NR 8

static const char *names[NR] = {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Rput", "MPI_Fetch_and_op",
                                "MPI_Compare_and_swap", "MPI_Get_accumulate", "MPI_Rget"};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, me;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Comm_rank(rev, &me);
    static double base[64];
    double src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8], res[8];
    long lone = 1, lcmp = 0, lres;
    MPI_Win win;
    MPI_Win_create(base, sizeof base, sizeof(double), MPI_INFO_NULL, rev, &win);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    int right = (me + 1) % size, left = (me + size - 1) % size;
    long out[NR][2];                 /* target's world rank, origin bytes */
    int np = 5 + rank % 3;

    MPI_Win_fence(0, win);
    MPI_Put(src, np, MPI_DOUBLE, right, 0, np, MPI_DOUBLE, win);
    MPI_Get(dst, 2, pair, left, 16, 4, MPI_DOUBLE, win);
    MPI_Accumulate(src, 4, MPI_DOUBLE, right, 32, 4, MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_fence(0, win);
    out[0][1] = np * 8;
    out[1][1] = 32;
    out[2][1] = 32;

    MPI_Request rq[2];
    MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
    MPI_Rput(src, 6, MPI_DOUBLE, left, 40, 6, MPI_DOUBLE, win, &rq[0]);
    MPI_Fetch_and_op(src, res + 4, MPI_DOUBLE, left, 50, MPI_SUM, win);
    MPI_Compare_and_swap(&lone, &lcmp, &lres, MPI_LONG, left, 52, win);
    MPI_Get_accumulate(src, 3, MPI_DOUBLE, res, 3, MPI_DOUBLE, left, 56, 3, MPI_DOUBLE, MPI_SUM, win);
    MPI_Rget(dst, 2, MPI_DOUBLE, left, 60, 2, MPI_DOUBLE, win, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Win_unlock(left, win);
    out[3][1] = 48;
    out[4][1] = 8;
    out[5][1] = (long)sizeof(long);
    out[6][1] = 24;
    out[7][1] = 16;
    /* world rank of window rank t: the split sorted by size - world rank */
    for (int k = 0; k < NR; k++) out[k][0] = size - 1 - (k < 3 && k != 1 ? right : left);

    int msg[4] = {1, 2, 3, 4};
    if (rank == 0) MPI_Send(msg, 4, MPI_INT, 1, 7, MPI_COMM_WORLD);
    else if (rank == 1) MPI_Recv(msg, 4, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    long all[64][NR][2];
    if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Gather(out, 2 * NR, MPI_LONG, all, 2 * NR, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            for (int k = 0; k < NR; k++) printf("expect %d %s %ld %ld\n", r, names[k], all[r][k][0], all[r][k][1]);
        printf("rep_rma: done\n");
    }
    MPI_Type_free(&pair);
    MPI_Win_free(&win);
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return 0;
}
