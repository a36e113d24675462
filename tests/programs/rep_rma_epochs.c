/* rep_rma_epochs.c -- the less common one-sided epochs and windows, with
 * known targets and counts (tests/cases/report_rma_epochs.sh), an even
 * number of ranks from 2.
 *  1. post-start-complete-wait on a window of MPI_COMM_WORLD: odd rank r
 *     accesses rank r-1 (MPI_Win_start/complete): MPI_Put of 3 ints, MPI_Get
 *     of 2 doubles; even rank r exposes to r+1 (MPI_Win_post), and ends the
 *     exposure by polling MPI_Win_test until it says done.
 *  2. a fence epoch on the same window: MPI_Put of 4 ints to MPI_PROC_NULL
 *     (legal; it moves nothing) and MPI_Accumulate of 5 ints to r ^ 1.
 *  3. MPI_Win_allocate_shared on MPI_Comm_split_type(SHARED) with the ranks
 *     in reverse order (key size - rank), under MPI_Win_lock_all: MPI_Put of
 *     one double to the next shared rank, MPI_Raccumulate of 2 doubles and
 *     MPI_Rget_accumulate of 3 doubles (fetching 3) to it, each request
 *     completed by MPI_Wait, MPI_Win_flush.
 *  4. MPI_Win_create_dynamic with memory attached: MPI_Put of 2 longs to
 *     world rank (r + 2) % size under MPI_Win_lock/unlock.
 * Rank 0 prints each rank's one-sided calls in call order:
 *   expect RANK ROUTINE TARGET_WORLD_RANK BYTES_PASSED BYTES_MOVED
 * (target -1: MPI_PROC_NULL; bytes passed: origin count x type size as the
 * call gave it; moved: 0 for MPI_PROC_NULL, else the same), then
 * "rep_rma_epochs: done". */
#include <mpi.h>
#include <stdio.h>

#define NC 9

static const char *names[NC] = {"MPI_Put", "MPI_Get", "MPI_Put", "MPI_Accumulate", "MPI_Put",
                                "MPI_Raccumulate", "MPI_Rget_accumulate", "MPI_Put", ""};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 || size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    long out[NC][3];       /* target world rank, bytes passed, bytes moved; row 8: calls made */
    int nc = 0;
    static int ibuf[64];
    int isrc[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double dsrc[8] = {1, 2, 3, 4, 5, 6, 7, 8}, ddst[8];

    /* 1. PSCW */
    MPI_Win w;
    MPI_Win_create(ibuf, sizeof ibuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int peer = rank % 2 ? rank - 1 : rank + 1;
    MPI_Group_incl(wg, 1, &peer, &g);
    if (rank % 2 == 0) {
        int done = 0;
        MPI_Win_post(g, 0, w);
        while (!done) MPI_Win_test(w, &done);
    } else {
        MPI_Win_start(g, 0, w);
        MPI_Put(isrc, 3, MPI_INT, peer, 0, 3, MPI_INT, w);
        MPI_Get(ddst, 2, MPI_DOUBLE, peer, 8, 4, MPI_INT, w);
        MPI_Win_complete(w);
        out[nc][0] = peer, out[nc][1] = out[nc][2] = 12, nc++;
        out[nc][0] = peer, out[nc][1] = out[nc][2] = 16, nc++;
    }
    MPI_Group_free(&g);

    /* 2. fence: a put to MPI_PROC_NULL, an accumulate to the partner */
    MPI_Win_fence(0, w);
    MPI_Put(isrc, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, w);
    MPI_Accumulate(isrc, 5, MPI_INT, rank ^ 1, 16, 5, MPI_INT, MPI_SUM, w);
    MPI_Win_fence(0, w);
    out[nc][0] = -1, out[nc][1] = 16, out[nc][2] = 0, nc++;
    out[nc][0] = rank ^ 1, out[nc][1] = out[nc][2] = 20, nc++;
    MPI_Win_free(&w);

    /* 3. a shared window, ranks reversed */
    MPI_Comm sh;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &sh);
    int sr, sn, nx, nxw;
    MPI_Comm_rank(sh, &sr);
    MPI_Comm_size(sh, &sn);
    nx = (sr + 1) % sn;
    MPI_Group shg;
    MPI_Comm_group(sh, &shg);
    MPI_Group_translate_ranks(shg, 1, &nx, wg, &nxw);
    MPI_Group_free(&shg);
    double *base;
    MPI_Win ws;
    MPI_Win_allocate_shared(16 * sizeof(double), sizeof(double), MPI_INFO_NULL, sh, &base, &ws);
    MPI_Request rq;
    MPI_Win_lock_all(0, ws);
    MPI_Put(dsrc, 1, MPI_DOUBLE, nx, 0, 1, MPI_DOUBLE, ws);
    MPI_Raccumulate(dsrc, 2, MPI_DOUBLE, nx, 2, 2, MPI_DOUBLE, MPI_SUM, ws, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Rget_accumulate(dsrc, 3, MPI_DOUBLE, ddst, 3, MPI_DOUBLE, nx, 4, 3, MPI_DOUBLE, MPI_SUM, ws, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_flush(nx, ws);
    MPI_Win_unlock_all(ws);
    out[nc][0] = nxw, out[nc][1] = out[nc][2] = 8, nc++;
    out[nc][0] = nxw, out[nc][1] = out[nc][2] = 16, nc++;
    out[nc][0] = nxw, out[nc][1] = out[nc][2] = 24, nc++;
    MPI_Win_free(&ws);
    MPI_Comm_free(&sh);
    MPI_Group_free(&wg);

    /* 4. a dynamic window */
    MPI_Win wd;
    static long mem[4];
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wd);
    MPI_Win_attach(wd, mem, sizeof mem);
    MPI_Aint a, addr[64];
    MPI_Get_address(mem, &a);
    MPI_Allgather(&a, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    int t = (rank + 2) % size;
    long lv[2] = {7, 8};
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, wd);
    MPI_Put(lv, 2, MPI_LONG, t, addr[t], 2, MPI_LONG, wd);
    MPI_Win_unlock(t, wd);
    out[nc][0] = t, out[nc][1] = out[nc][2] = 2 * (long)sizeof(long), nc++;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(wd, mem);
    MPI_Win_free(&wd);

    out[NC - 1][0] = nc, out[NC - 1][1] = rank % 2, out[NC - 1][2] = 0;
    long all[64][NC][3];
    MPI_Gather(out, 3 * NC, MPI_LONG, all, 3 * NC, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            for (int k = 0, i = 0; k < NC - 1; k++) {
                if (k < 2 && !all[r][NC - 1][1]) continue;   /* PSCW's calls: odd ranks only */
                printf("expect %d %s %ld %ld %ld\n", r, names[k], all[r][i][0], all[r][i][1], all[r][i][2]);
                i++;
            }
        printf("rep_rma_epochs: done\n");
    }
    MPI_Finalize();
    return 0;
}
