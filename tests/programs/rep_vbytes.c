/* rep_vbytes.c -- bytes of the collectives with count arrays or neighbours
 * (tests/cases/report_vbytes.sh), 4 ranks.  Rank r calls, on MPI_COMM_WORLD:
 * MPI_Gatherv (root 0) and MPI_Igatherv (root 2) of r+1 ints, MPI_Scatterv
 * (root 1) of r+1 ints to rank r, MPI_Allgatherv of r+1 ints, MPI_Alltoallv
 * of r+1 ints to every rank, MPI_Alltoallv in place of 2 ints per rank,
 * MPI_Alltoallw of r+1 doubles to every rank, MPI_Reduce_scatter of i+1
 * doubles to rank i; on a periodic ring (MPI_Cart_create, 2 neighbours):
 * MPI_Neighbor_allgather of 3 ints, MPI_Neighbor_alltoallv of r+1 ints to
 * each neighbour; the same two on a non-periodic line, whose end ranks have
 * an MPI_PROC_NULL neighbour that moves nothing (its block in the buffers
 * and count arrays is still there).  Each rank works out from its own arguments what its
 * buffers send and receive per routine, and rank 0 prints them:
 *   expect RANK ROUTINE SENT RECEIVED
 * (bytes, the receive side of the root-only arrays at the root alone).
 * Prints SKIP unless run on 4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 4
#define NR 12

static const char *names[NR] = {"MPI_Gatherv", "MPI_Igatherv", "MPI_Scatterv", "MPI_Allgatherv",
                                "MPI_Alltoallv", "MPI_Alltoallv(in_place)", "MPI_Alltoallw",
                                "MPI_Reduce_scatter", "MPI_Neighbor_allgather", "MPI_Neighbor_alltoallv",
                                "MPI_Neighbor_allgather", "MPI_Neighbor_alltoallv"};

static long sum(const int *c, int n, int size)
{
    long s = 0;
    for (int i = 0; i < n; i++) s += (long)c[i] * size;
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != N) {
        if (rank == 0) printf("SKIP: rep_vbytes wants %d ranks\n", N);
        MPI_Finalize();
        return 0;
    }
    static int ib[256], ir[256];
    static double db[256], dr[256];
    long ex[NR][2];
    memset(ex, 0, sizeof ex);
    int me = rank + 1;
    int cnt[N], dsp[N], mine[N], mdsp[N], two[N], d2[N];
    MPI_Datatype dt[N], it[N];
    for (int i = 0; i < N; i++) {
        cnt[i] = i + 1, dsp[i] = 16 * i, mine[i] = me, mdsp[i] = 16 * i, two[i] = 2, d2[i] = 2 * i;
        dt[i] = MPI_DOUBLE, it[i] = MPI_INT;
    }
    int ds[N], dd[N];   /* Alltoallw: displacements in bytes */
    for (int i = 0; i < N; i++) ds[i] = dd[i] = 16 * 8 * i;
    (void)it;

    MPI_Gatherv(ib, me, MPI_INT, ir, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
    ex[0][0] = me * 4, ex[0][1] = rank == 0 ? sum(cnt, N, 4) : 0;
    MPI_Request q;
    MPI_Igatherv(ib, me, MPI_INT, ir, cnt, dsp, MPI_INT, 2, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    ex[1][0] = me * 4, ex[1][1] = rank == 2 ? sum(cnt, N, 4) : 0;
    MPI_Scatterv(ib, cnt, dsp, MPI_INT, ir, me, MPI_INT, 1, MPI_COMM_WORLD);
    ex[2][0] = rank == 1 ? sum(cnt, N, 4) : 0, ex[2][1] = me * 4;
    MPI_Allgatherv(ib, me, MPI_INT, ir, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    ex[3][0] = me * 4, ex[3][1] = sum(cnt, N, 4);
    MPI_Alltoallv(ib, mine, mdsp, MPI_INT, ir, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    ex[4][0] = sum(mine, N, 4), ex[4][1] = sum(cnt, N, 4);
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ir, two, d2, MPI_INT, MPI_COMM_WORLD);
    ex[5][0] = sum(two, N, 4), ex[5][1] = sum(two, N, 4);
    MPI_Alltoallw(db, mine, ds, dt, dr, cnt, dd, dt, MPI_COMM_WORLD);
    ex[6][0] = sum(mine, N, 8), ex[6][1] = sum(cnt, N, 8);
    MPI_Reduce_scatter(db, dr, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ex[7][0] = sum(cnt, N, 8), ex[7][1] = me * 8;

    MPI_Comm ring;
    int dims[1] = {N}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int left, right;
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    MPI_Neighbor_allgather(ib, 3, MPI_INT, ir, 3, MPI_INT, ring);
    ex[8][0] = 2 * 3 * 4, ex[8][1] = 2 * 3 * 4;
    int ns[2] = {me, me}, nsd[2] = {0, 16}, nr[2] = {left + 1, right + 1}, nrd[2] = {0, 16};
    MPI_Neighbor_alltoallv(ib, ns, nsd, MPI_INT, ir, nr, nrd, MPI_INT, ring);
    ex[9][0] = sum(ns, 2, 4), ex[9][1] = sum(nr, 2, 4);
    MPI_Comm_free(&ring);

    MPI_Comm line;
    periods[0] = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    MPI_Cart_shift(line, 0, 1, &left, &right);
    int live = (left != MPI_PROC_NULL) + (right != MPI_PROC_NULL);
    MPI_Neighbor_allgather(ib, 3, MPI_INT, ir, 3, MPI_INT, line);
    ex[10][0] = live * 3 * 4, ex[10][1] = live * 3 * 4;
    nr[0] = left != MPI_PROC_NULL ? left + 1 : 7, nr[1] = right != MPI_PROC_NULL ? right + 1 : 9;
    MPI_Neighbor_alltoallv(ib, ns, nsd, MPI_INT, ir, nr, nrd, MPI_INT, line);
    ex[11][0] = live * me * 4, ex[11][1] = 4 * ((left != MPI_PROC_NULL ? nr[0] : 0) + (right != MPI_PROC_NULL ? nr[1] : 0));
    MPI_Comm_free(&line);

    long all[N][NR][2];
    MPI_Gather(ex, 2 * NR, MPI_LONG, all, 2 * NR, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < N; r++)
            for (int k = 0; k < NR; k++) printf("expect %d %s %ld %ld\n", r, names[k], all[r][k][0], all[r][k][1]);
        printf("rep_vbytes: done\n");
    }
    MPI_Finalize();
    return 0;
}
