/*
 * rep_icc.c — an inter-communicator for `mpilens report` and `export`
 * (tests/cases/report_intercomm.sh).  Needs an even number of ranks >= 4.
 *
 * The world splits into a low half (world ranks 0..h-1, in order) and a
 * high half (in reverse order: world rank size-1 is its rank 0), joined by
 * MPI_Intercomm_create.  Across it: low rank i sends 100*(i+1) bytes to
 * remote rank i, and high rank i sends 10*(i+1) bytes back to remote rank
 * h-1-i, with MPI_Send and MPI_Recv, then again with MPI_Isend, MPI_Irecv
 * and MPI_Waitall; then collectives with the low half's rank 1 as the root (MPI_ROOT,
 * its group MPI_PROC_NULL) or the high half's rank 0 as the root: MPI_Bcast,
 * MPI_Reduce, MPI_Gather, MPI_Scatter, and MPI_Allreduce, MPI_Allgather,
 * MPI_Alltoall, MPI_Barrier.  Every rank works out the bytes its buffers
 * sent and received by MPI's rules for inter-communicators (and by the
 * MPI_Gather on the world that brings them to rank 0); rank 0 prints
 *   EXPECT pairs=src:dst:messages:bytes,...
 *   EXPECT coll=rank:sent:received,...
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int h = size / 2, low = rank < h;
    MPI_Comm half, icc;
    MPI_Comm_split(MPI_COMM_WORLD, low, low ? rank : size - rank, &half);
    int me;
    MPI_Comm_rank(half, &me);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size - 1 : 0, 7, &icc);

    static char buf[1 << 16];
    int peer = low ? me : h - 1 - me;
    int out = low ? 100 * (me + 1) : 10 * (me + 1);
    MPI_Status st;
    if (low) {
        MPI_Send(buf, out, MPI_CHAR, peer, 1, icc);
        MPI_Recv(buf, sizeof buf, MPI_CHAR, MPI_ANY_SOURCE, 2, icc, &st);
    } else {
        MPI_Recv(buf, sizeof buf, MPI_CHAR, MPI_ANY_SOURCE, 1, icc, &st);
        MPI_Send(buf, out, MPI_CHAR, peer, 2, icc);
    }
    /* the same again with MPI_Isend, MPI_Irecv and MPI_Waitall */
    static char rbuf[1 << 16];
    MPI_Request rq[2];
    MPI_Irecv(rbuf, sizeof rbuf, MPI_CHAR, MPI_ANY_SOURCE, 3, icc, &rq[0]);
    MPI_Isend(buf, out, MPI_CHAR, peer, 3, icc, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);

    long long sent = 0, recvd = 0;
    int d[64] = {0}, e[64];
    /* low rank 1 is the root: MPI_ROOT there, MPI_PROC_NULL on the other low ranks, 1 on the high ranks */
    int lroot = low ? (me == 1 ? MPI_ROOT : MPI_PROC_NULL) : 1;
    int isroot = low && me == 1, idle = low && me != 1;
    MPI_Bcast(d, 3, MPI_INT, lroot, icc);                  /* 12 bytes */
    if (isroot) sent += 12;
    else if (!idle) recvd += 12;
    MPI_Reduce(d, e, 5, MPI_INT, MPI_SUM, lroot, icc);     /* 20 bytes from each high rank */
    if (isroot) recvd += 20;
    else if (!idle) sent += 20;
    /* the high half's rank 0 is the root */
    int hroot = low ? 0 : (me == 0 ? MPI_ROOT : MPI_PROC_NULL);
    isroot = !low && me == 0, idle = !low && me != 0;
    MPI_Gather(d, 2, MPI_INT, e, 2, MPI_INT, hroot, icc);  /* 8 bytes from each low rank */
    if (isroot) recvd += 8 * h;
    else if (!idle) sent += 8;
    MPI_Scatter(d, 4, MPI_INT, e, 4, MPI_INT, hroot, icc); /* 16 bytes to each low rank */
    if (isroot) sent += 16 * h;
    else if (!idle) recvd += 16;
    MPI_Allreduce(d, e, 6, MPI_INT, MPI_SUM, icc);         /* 24 bytes each way */
    sent += 24, recvd += 24;
    MPI_Allgather(d, 1, MPI_INT, e, 1, MPI_INT, icc);      /* 4 out, 4 from each remote rank */
    sent += 4, recvd += 4 * h;
    MPI_Alltoall(d, 2, MPI_INT, e, 2, MPI_INT, icc);       /* 8 to and from each remote rank */
    sent += 8 * h, recvd += 8 * h;
    MPI_Barrier(icc);

    /* rank 0 gathers (48 bytes from each rank) and prints */
    sent += 48;
    if (rank == 0) recvd += 48LL * size;
    /* my message's receiver in the world: high rank i is world rank size-1-i, low rank i world rank i */
    long long mine[6] = {rank, low ? size - 1 - peer : peer, out, sent, recvd, 0};
    long long all[6 * 64];
    MPI_Gather(mine, 6, MPI_LONG_LONG, all, 6, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("EXPECT pairs=");
        for (int r = 0; r < size; r++) printf("%s%lld:%lld:2:%lld", r ? "," : "", all[6 * r], all[6 * r + 1], 2 * all[6 * r + 2]);
        printf("\nEXPECT coll=");
        for (int r = 0; r < size; r++) printf("%s%lld:%lld:%lld", r ? "," : "", all[6 * r], all[6 * r + 3], all[6 * r + 4]);
        printf("\n");
    }
    MPI_Comm_free(&icc);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
