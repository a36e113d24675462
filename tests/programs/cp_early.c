/*
 * cp_early.c — collectives that let a member leave before the others came,
 * for tests/cases/report_critpath_early.sh.  `cp_early MODE`, 4 ranks;
 * computation is a timed spin on CLOCK_MONOTONIC (nothing recorded), D =
 * 10 ms.  Every rank prints
 *   EA rank=R spin_ns=S mpi_ns=M other_ns=O in=I wait=W out=X
 * S, M, O as in cp_analytic.c (spins, time inside MPI calls, the rest of
 * the window), I and X: CLOCK_MONOTONIC just before and after the mode's
 * collective (for inbr: before MPI_Ineighbor_alltoall, after its MPI_Wait),
 * W: just before the call that waits (inbr: MPI_Wait; else I).
 * MPI_Pcontrol(1) and MPI_Pcontrol(0) bound the window.
 *
 * nbr, nbr_a2a, inbr: a Cartesian line 0 - 1 - 2 - 3 (MPI_Cart_create, 1
 *   dimension, not periodic); Barrier on it; rank 0 spins 4·D, then every
 *   rank calls MPI_Neighbor_allgather (nbr), MPI_Neighbor_alltoall
 *   (nbr_a2a) or MPI_Ineighbor_alltoall and MPI_Wait (inbr), 8 bytes a
 *   neighbour; rank 3 spins 3·D after it.  A neighbourhood collective
 *   receives from the neighbours only: rank r waits (a collective wait)
 *   from W(r) until the last of its neighbours n came, I(n), for that
 *   one: rank 1 for rank 0 (I(0) - W(1)); ranks 2 and 3 wait for nobody
 *   late (their neighbours came at once, but for the Barrier's spread on
 *   a loaded machine) and leave before rank 0 came.  The run-time path: rank 0's spin, then the collective to rank 1
 *   (or it ends on rank 0): computation on it 4·D; rank 3's spin runs
 *   beside it (3·D < 4·D).  Taken as N x N, rank 3 depended on rank 0's
 *   entry: path 4·D + 3·D, longer than the run.
 * nbr_window: the same line; rank 3 spins 6·D before its MPI_Pcontrol(1)
 *   (its window opens then: what came before counts for nothing), rank 0
 *   spins 4·D in its window; MPI_Neighbor_allgather; rank 2 spins 3·D
 *   after it.  Rank 2 waits for rank 3 (6·D, outside MPI) while rank 0
 *   enters at 4·D: rank 2 does not depend on rank 0, not its neighbour.
 *   Its chain after the call is rank 3's (nothing, its window had just
 *   opened) or its own (nothing but waiting), then 3·D: the run-time path
 *   is rank 0's spin (4·D), to rank 1 or ending on rank 0.  Taken as N x
 *   N, rank 2 took rank 0's 4·D and added its 3·D: 7·D.
 * exscan, scan: Barrier; rank 3 spins 4·D, then every rank calls
 *   MPI_Exscan (scan: MPI_Scan) of one double; rank 0 spins 2·D after it.
 *   Rank 0's result needs nobody (exscan) or only itself (scan); whether
 *   it waits for rank 3 anyway is the MPI's algorithm: when its call ended
 *   (X(0)) before rank 3's began (I(3)), it cannot have depended on rank 3,
 *   and the path is max(4·D, 2·D) = 4·D of computation; when it did wait,
 *   4·D + 2·D.
 * icc_bcast, icc_allreduce: an inter-communicator between the even ranks
 *   (group A: 0, 2) and the odd ones (group B: 1, 3), made before the
 *   window; Barrier; rank 0 spins 4·D; icc_bcast: MPI_Bcast from rank 0
 *   (MPI_ROOT; rank 2 MPI_PROC_NULL; B names root 0): ranks 1 and 3 wait
 *   for rank 0 (a collective wait, peer 0, of I(0) - I(r)), rank 2 takes
 *   no part and waits for nobody; icc_allreduce: MPI_Allreduce: B's result
 *   needs rank 0, and A's is gathered at its leader, rank 0 (both MPIs
 *   hold rank 2 until rank 0 came): ranks 1, 2 and 3 wait for rank 0, of
 *   I(0) - I(r).  The run-time path goes through rank 0's spin: at least
 *   4·D long.
 * icc_ibcast, icc_iallreduce: the same with MPI_Ibcast / MPI_Iallreduce,
 *   each rank calling MPI_Wait at once after it (W(r): its mark just
 *   before MPI_Wait): the call that completes the request waits as the
 *   blocking one would, from its start: a collective wait at MPI_Wait,
 *   peer 0, of I(0) - W(r) (rank 2 of the MPI_Ibcast none), the path
 *   through rank 0's spin.  icc_pbcast, icc_pallreduce: MPI_Bcast_init /
 *   MPI_Allreduce_init before the window (Open MPI 4.1: MPIX_..._init),
 *   MPI_Start then MPI_Wait: the same, I(r) the mark before MPI_Start.
 *   (Before, all four were local on an inter-communicator: no wait.)
 * rsb: Barrier; rank 3 spins 4·D; MPI_Reduce_scatter_block of 2 doubles
 *   a member: each member sends 2·4·8 = 64 bytes and receives 16.  Every
 *   chain holds one such call: bytes on the path and per process exactly
 *   64; bandwidth cost (beta 1 ns/B) 64·(4-1)/4 = 48 ns; latency cost
 *   (alpha 1000 ns) Barrier ⌈log₂4⌉·α + ⌈log₂4⌉·α = 4000 ns.  (Before, the
 *   runtime recorded the call as 0 bytes sent and received.)
 */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cputil.h"

#if MPI_VERSION >= 4
#define PBCAST_INIT MPI_Bcast_init
#define PALLREDUCE_INIT MPI_Allreduce_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PBCAST_INIT MPIX_Bcast_init
#define PALLREDUCE_INIT MPIX_Allreduce_init
#endif

#define D_NS 10000000ll

static int64_t t_in, t_wait, t_out;

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "nbr";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char sb[64], rb[64];
    int nbr = strncmp(mode, "nbr", 3) == 0 || strcmp(mode, "inbr") == 0;
    MPI_Comm cart = MPI_COMM_NULL, ic = MPI_COMM_NULL, half = MPI_COMM_NULL;
    int icc = strncmp(mode, "icc_", 4) == 0;
    /* (inter-communicator: B names root 0 of A; in A rank 0 is MPI_ROOT, rank 2 MPI_PROC_NULL) */
    static double icx, icy;
    int icroot = rank % 2 ? 0 : rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    MPI_Request icrq = MPI_REQUEST_NULL;
    if (icc) {
        icx = rank;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - rank % 2, 9, &ic);
        if (strcmp(mode, "icc_pbcast") == 0) PBCAST_INIT(&icx, 1, MPI_DOUBLE, icroot, ic, MPI_INFO_NULL, &icrq);
        if (strcmp(mode, "icc_pallreduce") == 0)
            PALLREDUCE_INIT(&icx, &icy, 1, MPI_DOUBLE, MPI_SUM, ic, MPI_INFO_NULL, &icrq);
    }
    if (nbr) {
        int dims[1] = {size}, per[1] = {0};
        MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &cart);
        MPI_Barrier(cart);
        if (strcmp(mode, "nbr_window") == 0 && rank == 3) {
            int64_t t = now();
            while (now() - t < 6 * D_NS) {
            }
        }
    }
    int64_t win0 = now();
    MPI_Pcontrol(1);
    if (nbr) {
        if (strcmp(mode, "nbr_window") != 0) M(MPI_Barrier(cart));
        if (rank == 0) spin(4 * D_NS);
        t_in = t_wait = now();
        if (strcmp(mode, "nbr_a2a") == 0) {
            M(MPI_Neighbor_alltoall(sb, 8, MPI_BYTE, rb, 8, MPI_BYTE, cart));
        } else if (strcmp(mode, "inbr") == 0) {
            MPI_Request rq;
            M(MPI_Ineighbor_alltoall(sb, 8, MPI_BYTE, rb, 8, MPI_BYTE, cart, &rq));
            t_wait = now();
            M(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            M(MPI_Neighbor_allgather(sb, 8, MPI_BYTE, rb, 8, MPI_BYTE, cart));
        }
        t_out = now();
        if (rank == (strcmp(mode, "nbr_window") == 0 ? 2 : 3)) spin(3 * D_NS);
    } else if (strcmp(mode, "exscan") == 0 || strcmp(mode, "scan") == 0) {
        double x = rank + 1, y = 0;
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 3) spin(4 * D_NS);
        t_in = t_wait = now();
        if (mode[0] == 'e') M(MPI_Exscan(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        else M(MPI_Scan(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        t_out = now();
        if (rank == 0) spin(2 * D_NS);
    } else if (strcmp(mode, "rsb") == 0) {
        double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[2];
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 3) spin(4 * D_NS);
        t_in = t_wait = now();
        M(MPI_Reduce_scatter_block(x, y, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        t_out = now();
    } else if (icc) {
        M(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) spin(4 * D_NS);
        t_in = t_wait = now();
        if (strcmp(mode, "icc_bcast") == 0) {
            M(MPI_Bcast(&icx, 1, MPI_DOUBLE, icroot, ic));
        } else if (strcmp(mode, "icc_allreduce") == 0) {
            M(MPI_Allreduce(&icx, &icy, 1, MPI_DOUBLE, MPI_SUM, ic));
        } else {
            if (strcmp(mode, "icc_ibcast") == 0) M(MPI_Ibcast(&icx, 1, MPI_DOUBLE, icroot, ic, &icrq));
            else if (strcmp(mode, "icc_iallreduce") == 0) M(MPI_Iallreduce(&icx, &icy, 1, MPI_DOUBLE, MPI_SUM, ic, &icrq));
            else M(MPI_Start(&icrq));
            t_wait = now();
            M(MPI_Wait(&icrq, MPI_STATUS_IGNORE));
        }
        t_out = now();
    } else {
        if (rank == 0) fprintf(stderr, "cp_early: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Pcontrol(0);
    int64_t other = now() - win0 - mpi_total - spin_total;
    char line[256];
    snprintf(line, sizeof line, "EA rank=%d spin_ns=%lld mpi_ns=%lld other_ns=%lld in=%lld wait=%lld out=%lld", rank,
             (long long)spin_total, (long long)mpi_total, (long long)other, (long long)t_in, (long long)t_wait,
             (long long)t_out);
    printf("%s\n", line);
    fflush(stdout);
    if (cart != MPI_COMM_NULL) MPI_Comm_free(&cart);
    if (icrq != MPI_REQUEST_NULL) MPI_Request_free(&icrq);
    if (ic != MPI_COMM_NULL) MPI_Comm_free(&ic);
    if (half != MPI_COMM_NULL) MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
