/*
 * p2p_patterns.c — every point-to-point pattern the matcher must pair, with
 * the number of messages and bytes counted as they are sent, so a test can
 * check `mpilens report` against the program's own count.
 *
 *   mpirun -n 4 ./p2p_patterns       (any size >= 2)
 *
 * Prints "EXPECT messages=<n> bytes=<b> collectives=<c> cancelled_receives=<r>"
 * on rank 0: the messages sent (MPI_PROC_NULL excluded) and their payload
 * bytes summed over all ranks, the collective instances on all
 * communicators, and the receives cancelled (MPI_Test_cancelled).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long sent_msgs, sent_bytes, colls, cancelled_recvs;
static int rank, size;

#define COUNT_SEND(n, type_size) (sent_msgs++, sent_bytes += (long long)(n) * (type_size))

static void blocking_modes(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double buf[64] = {0}, in[64];
    /* standard, synchronous: a ring, even ranks send first */
    for (int mode = 0; mode < 2; mode++) {
        for (int i = 0; i < 3; i++) {
            int n = 1 + i * 5 + mode;
            if (rank % 2 == 0) {
                if (mode == 0) MPI_Send(buf, n, MPI_DOUBLE, next, 10 + i, MPI_COMM_WORLD);
                else MPI_Ssend(buf, n, MPI_DOUBLE, next, 10 + i, MPI_COMM_WORLD);
                COUNT_SEND(n, 8);
                MPI_Recv(in, 64, MPI_DOUBLE, prev, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(in, 64, MPI_DOUBLE, prev, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (mode == 0) MPI_Send(buf, n, MPI_DOUBLE, next, 10 + i, MPI_COMM_WORLD);
                else MPI_Ssend(buf, n, MPI_DOUBLE, next, 10 + i, MPI_COMM_WORLD);
                COUNT_SEND(n, 8);
            }
        }
    }
    /* buffered */
    int bsize = 4096 + MPI_BSEND_OVERHEAD;
    void *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Bsend(buf, 7, MPI_DOUBLE, next, 20, MPI_COMM_WORLD);
    COUNT_SEND(7, 8);
    MPI_Recv(in, 64, MPI_DOUBLE, prev, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    /* ready: the receive is posted before the barrier */
    MPI_Request rq;
    MPI_Irecv(in, 64, MPI_DOUBLE, prev, 21, MPI_COMM_WORLD, &rq);
    MPI_Barrier(MPI_COMM_WORLD);
    colls++;
    MPI_Rsend(buf, 3, MPI_DOUBLE, next, 21, MPI_COMM_WORLD);
    COUNT_SEND(3, 8);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

static void nonblocking(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int a[100], b[100], c[100], d[100];
    memset(a, 0, sizeof a);
    MPI_Request r[8];
    /* all nonblocking send modes, Waitall */
    MPI_Irecv(b, 100, MPI_INT, prev, 30, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(c, 100, MPI_INT, prev, 31, MPI_COMM_WORLD, &r[1]);
    MPI_Irecv(d, 100, MPI_INT, prev, 32, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(a, 10, MPI_INT, next, 30, MPI_COMM_WORLD, &r[3]);
    MPI_Issend(a, 20, MPI_INT, next, 31, MPI_COMM_WORLD, &r[4]);
    MPI_Isend(a, 30, MPI_INT, next, 32, MPI_COMM_WORLD, &r[5]);
    COUNT_SEND(10, 4);
    COUNT_SEND(20, 4);
    COUNT_SEND(30, 4);
    MPI_Waitall(6, r, MPI_STATUSES_IGNORE);
    /* Waitany / Waitsome / Test loops */
    MPI_Irecv(b, 100, MPI_INT, prev, 33, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(c, 100, MPI_INT, prev, 34, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(a, 5, MPI_INT, next, 34, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(a, 6, MPI_INT, next, 33, MPI_COMM_WORLD, &r[3]);
    COUNT_SEND(5, 4);
    COUNT_SEND(6, 4);
    int idx, done = 0;
    while (done < 2) {
        MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
        done++;
    }
    int outc, outs[2];
    done = 0;
    while (done < 2) {
        MPI_Waitsome(2, r + 2, &outc, outs, MPI_STATUSES_IGNORE);
        if (outc != MPI_UNDEFINED) done += outc;
    }
    MPI_Irecv(b, 100, MPI_INT, prev, 35, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a, 9, MPI_INT, next, 35, MPI_COMM_WORLD, &r[1]);
    COUNT_SEND(9, 4);
    int flag = 0;
    while (!flag) MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
    MPI_Irecv(b, 100, MPI_INT, prev, 36, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a, 11, MPI_INT, next, 36, MPI_COMM_WORLD, &r[1]);
    COUNT_SEND(11, 4);
    flag = 0;
    while (!flag) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    /* a fire-and-forget send: the request freed, never completed by a Wait */
    MPI_Isend(a, 4, MPI_INT, next, 37, MPI_COMM_WORLD, &r[0]);
    COUNT_SEND(4, 4);
    MPI_Request_free(&r[0]);
    MPI_Recv(b, 100, MPI_INT, prev, 37, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void wildcards(void)
{
    int v[16] = {0}, in[16];
    MPI_Status st;
    /* every other rank sends 3 messages to rank 0 (tags 40-42), rank 1 two
     * more with tag 43 (1 int, then 2 ints) */
    if (rank != 0) {
        for (int k = 0; k < 3; k++) {
            MPI_Send(v, 1 + k + rank, MPI_INT, 0, 40 + k, MPI_COMM_WORLD);
            COUNT_SEND(1 + k + rank, 4);
        }
        if (rank == 1) {
            MPI_Send(v, 1, MPI_INT, 0, 43, MPI_COMM_WORLD);
            MPI_Send(v, 2, MPI_INT, 0, 43, MPI_COMM_WORLD);
            COUNT_SEND(1, 4);
            COUNT_SEND(2, 4);
        }
    } else {
        int total = 3 * (size - 1);
        MPI_Request rq[2];
        /* a wildcard receive posted first takes the first tag-43 message (1
         * int); the specific receive posted after it, the second (2 ints),
         * although it completes first: a matcher that pairs in completion
         * order gets the sizes wrong */
        MPI_Irecv(in, 16, MPI_INT, MPI_ANY_SOURCE, 43, MPI_COMM_WORLD, &rq[0]);
        MPI_Recv(in, 16, MPI_INT, 1, 43, MPI_COMM_WORLD, &st);
        MPI_Wait(&rq[0], &st);
        /* a wildcard pending while unrelated receives complete */
        MPI_Irecv(in, 16, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[1]);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        total--;
        while (total-- > 0) MPI_Recv(in, 16, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    }
}

static void persistent(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    double s[50] = {0}, r1[50], r2[50];
    MPI_Request rq[4];
    MPI_Send_init(s, 50, MPI_DOUBLE, next, 50, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(r1, 50, MPI_DOUBLE, prev, 50, MPI_COMM_WORLD, &rq[1]);
    MPI_Ssend_init(s, 25, MPI_DOUBLE, prev, 51, MPI_COMM_WORLD, &rq[2]);
    MPI_Recv_init(r2, 50, MPI_DOUBLE, MPI_ANY_SOURCE, 51, MPI_COMM_WORLD, &rq[3]);
    for (int it = 0; it < 5; it++) {
        MPI_Startall(4, rq);
        COUNT_SEND(50, 8);
        COUNT_SEND(25, 8);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    }
    for (int it = 0; it < 3; it++) {
        MPI_Start(&rq[1]);
        MPI_Start(&rq[0]);
        COUNT_SEND(50, 8);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < 4; i++) MPI_Request_free(&rq[i]);
}

static void sendrecv_probe_null(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long x[8] = {0}, y[8];
    MPI_Status st;
    MPI_Sendrecv(x, 8, MPI_LONG, next, 60, y, 8, MPI_LONG, prev, 60, MPI_COMM_WORLD, &st);
    COUNT_SEND(8, 8);
    /* wildcards: from prev only tag 61 can come now; tag 68 only from next */
    MPI_Sendrecv(x, 2, MPI_LONG, next, 61, y, 8, MPI_LONG, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    COUNT_SEND(2, 8);
    MPI_Sendrecv(x, 1, MPI_LONG, prev, 68, y, 8, MPI_LONG, MPI_ANY_SOURCE, 68, MPI_COMM_WORLD, &st);
    COUNT_SEND(1, 8);
    MPI_Sendrecv_replace(x, 3, MPI_LONG, prev, 62, next, 62, MPI_COMM_WORLD, &st);
    COUNT_SEND(3, 8);
    /* probes do not consume */
    MPI_Send(x, 5, MPI_LONG, next, 63, MPI_COMM_WORLD);
    COUNT_SEND(5, 8);
    MPI_Probe(prev, 63, MPI_COMM_WORLD, &st);
    int flag = 0;
    while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, 63, MPI_COMM_WORLD, &flag, &st);
    int n;
    MPI_Get_count(&st, MPI_LONG, &n);
    MPI_Recv(y, n, MPI_LONG, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* matched probe: Mprobe takes the message, Mrecv receives it */
    MPI_Send(x, 6, MPI_LONG, next, 64, MPI_COMM_WORLD);
    COUNT_SEND(6, 8);
    MPI_Message msg;
    MPI_Mprobe(MPI_ANY_SOURCE, 64, MPI_COMM_WORLD, &msg, &st);
    MPI_Mrecv(y, 8, MPI_LONG, &msg, MPI_STATUS_IGNORE);
    /* MPI_PROC_NULL: no message */
    MPI_Send(x, 1, MPI_LONG, MPI_PROC_NULL, 65, MPI_COMM_WORLD);
    MPI_Recv(y, 1, MPI_LONG, MPI_PROC_NULL, 65, MPI_COMM_WORLD, &st);
    MPI_Request rq;
    MPI_Irecv(y, 1, MPI_LONG, MPI_PROC_NULL, 66, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    MPI_Sendrecv(x, 1, MPI_LONG, MPI_PROC_NULL, 67, y, 1, MPI_LONG, MPI_PROC_NULL, 67, MPI_COMM_WORLD, &st);
    MPI_Isend(x, 1, MPI_LONG, MPI_PROC_NULL, 69, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    /* a receive nobody sends to, cancelled: no message */
    MPI_Irecv(y, 1, MPI_LONG, prev, 70, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    if (!cancelled) {
        fprintf(stderr, "p2p_patterns: the receive of tag 70 was not cancelled\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    cancelled_recvs++;
}

static void subcomms(void)
{
    /* halves of the world; the same tags as on the world, which must not mix */
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    int v[4] = {0}, in[4];
    if (hs > 1) {
        MPI_Sendrecv(v, 4, MPI_INT, (hr + 1) % hs, 10, in, 4, MPI_INT, (hr + hs - 1) % hs, 10, half,
                     MPI_STATUS_IGNORE);
        COUNT_SEND(4, 4);
    }
    MPI_Sendrecv(v, 2, MPI_INT, (rank + 1) % size, 10, in, 4, MPI_INT, (rank + size - 1) % size, 10, dup,
                 MPI_STATUS_IGNORE);
    COUNT_SEND(2, 4);
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, half);
    MPI_Bcast(v, 4, MPI_INT, 0, dup);
    colls += 1 + (size > 1 ? 2 : 1);   /* dup: 1; half: one per half */
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
}

static void collectives(void)
{
    int v[8] = {0}, *all = calloc(8 * size, sizeof *all);
    MPI_Bcast(v, 8, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(v, all, 8, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, v, 8, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Gather(v, 8, MPI_INT, all, 8, MPI_INT, 0, MPI_COMM_WORLD);
    int *tmp = calloc(8 * size, sizeof *tmp);
    MPI_Alltoall(all, 8, MPI_INT, tmp, 8, MPI_INT, MPI_COMM_WORLD);
    free(tmp);
    MPI_Barrier(MPI_COMM_WORLD);
    colls += 6;
    free(all);
}

/* the send modes not covered above: Irsend, Ibsend, Bsend_init, Rsend_init */
static void more_send_modes(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int a[64] = {0}, in1[64], in2[64];
    MPI_Request rq[2];
    /* ready mode, nonblocking: the receive is posted before the barrier */
    MPI_Irecv(in1, 64, MPI_INT, prev, 80, MPI_COMM_WORLD, &rq[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    colls++;
    MPI_Irsend(a, 3, MPI_INT, next, 80, MPI_COMM_WORLD, &rq[1]);
    COUNT_SEND(3, 4);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    /* buffered, nonblocking */
    int bsize = 4096 + 4 * MPI_BSEND_OVERHEAD;
    void *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Ibsend(a, 5, MPI_INT, next, 81, MPI_COMM_WORLD, &rq[0]);
    COUNT_SEND(5, 4);
    MPI_Recv(in1, 64, MPI_INT, prev, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    /* persistent buffered and ready sends, started twice, then freed */
    MPI_Request ps[2];
    MPI_Bsend_init(a, 7, MPI_INT, next, 82, MPI_COMM_WORLD, &ps[0]);
    MPI_Rsend_init(a, 9, MPI_INT, next, 83, MPI_COMM_WORLD, &ps[1]);
    for (int it = 0; it < 2; it++) {
        MPI_Irecv(in1, 64, MPI_INT, prev, 82, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(in2, 64, MPI_INT, prev, 83, MPI_COMM_WORLD, &rq[1]);
        MPI_Barrier(MPI_COMM_WORLD);   /* every tag-83 receive is posted: ready mode is legal */
        colls++;
        MPI_Startall(2, ps);
        COUNT_SEND(7, 4);
        COUNT_SEND(9, 4);
        MPI_Waitall(2, ps, MPI_STATUSES_IGNORE);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&ps[0]);
    MPI_Request_free(&ps[1]);
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
}

/* nonblocking collectives: instances in call order, like blocking ones */
static void nb_collectives(void)
{
    int v[4] = {rank, 1, 2, 3}, w[4] = {0}, b[4] = {0};
    MPI_Request rq[3];
    MPI_Ibcast(b, 4, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Iallreduce(v, w, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Ibarrier(MPI_COMM_WORLD, &rq[2]);
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    colls += 3;
    /* on the halves of the world, completed by a Test loop */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Iallreduce(v, w, 4, MPI_INT, MPI_MAX, half, &rq[0]);
    int flag = 0;
    while (!flag) MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
    colls += size > 1 ? 2 : 1;   /* one instance per half */
    MPI_Comm_free(&half);
}

/* an inter-communicator between the even and the odd world ranks: messages
 * across it (specific and wildcard), a barrier on it, and the
 * intra-communicator MPI_Intercomm_merge makes of it */
static void intercomms(void)
{
    MPI_Comm local, inter, merged;
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    /* leaders: world ranks 0 (even group) and 1 (odd group) */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 90, &inter);
    int lr, rsize;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_remote_size(inter, &rsize);
    int v[8] = {0}, in[8];
    MPI_Status st;
    /* local rank k of one group with local rank k of the other */
    if (lr < rsize) {
        if (color == 0) {
            MPI_Send(v, 2 + lr % 4, MPI_INT, lr, 91, inter);
            COUNT_SEND(2 + lr % 4, 4);
            MPI_Recv(in, 8, MPI_INT, lr, 92, inter, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 8, MPI_INT, lr, 91, inter, MPI_STATUS_IGNORE);
            MPI_Send(v, 3, MPI_INT, lr, 92, inter);
            COUNT_SEND(3, 4);
        }
    }
    /* every odd rank to the even group's rank 0, taken there with wildcards */
    if (color == 1) {
        MPI_Request rq;
        MPI_Isend(v, 1, MPI_INT, 0, 93, inter, &rq);
        COUNT_SEND(1, 4);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (lr == 0) {
        for (int k = 0; k < rsize; k++) {
            MPI_Request rq;
            MPI_Irecv(in, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &rq);
            MPI_Wait(&rq, &st);
        }
    }
    MPI_Barrier(inter);
    colls++;
    MPI_Intercomm_merge(inter, color, &merged);   /* the odd group high */
    int mr, ms;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    MPI_Sendrecv(v, 1, MPI_INT, (mr + 1) % ms, 94, in, 8, MPI_INT, (mr + ms - 1) % ms, 94, merged, &st);
    COUNT_SEND(1, 4);
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, merged);
    colls++;
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

/* Cartesian communicators: a periodic ring, and a line whose ends shift to
 * MPI_PROC_NULL */
static void cartesian(void)
{
    MPI_Comm ring, line;
    int dims[1] = {size}, periodic[1] = {1}, open_ends[1] = {0}, src, dst;
    double x[4] = {0}, y[4];
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periodic, 0, &ring);
    MPI_Cart_shift(ring, 0, 1, &src, &dst);
    MPI_Sendrecv(x, 3, MPI_DOUBLE, dst, 95, y, 4, MPI_DOUBLE, src, 95, ring, MPI_STATUS_IGNORE);
    COUNT_SEND(3, 8);
    MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE, MPI_SUM, ring);
    colls++;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, open_ends, 0, &line);
    MPI_Cart_shift(line, 0, 1, &src, &dst);
    MPI_Sendrecv(x, 2, MPI_DOUBLE, dst, 96, y, 4, MPI_DOUBLE, src, 96, line, MPI_STATUS_IGNORE);
    if (dst != MPI_PROC_NULL) COUNT_SEND(2, 8);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&line);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "p2p_patterns: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* phases apart, so no wildcard receive takes a later phase's message */
    void (*phase[])(void) = {blocking_modes, nonblocking, wildcards, persistent, sendrecv_probe_null,
                             subcomms, collectives, more_send_modes, nb_collectives, intercomms, cartesian};
    for (size_t i = 0; i < sizeof phase / sizeof *phase; i++) {
        phase[i]();
        MPI_Barrier(MPI_COMM_WORLD);
        colls++;
    }
    long long mine[3] = {sent_msgs, sent_bytes, cancelled_recvs}, sum[3];
    MPI_Reduce(mine, sum, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    colls++;
    if (rank == 0)
        printf("EXPECT messages=%lld bytes=%lld collectives=%lld cancelled_receives=%lld\n", sum[0], sum[1], colls,
               sum[2]);
    MPI_Finalize();
    return 0;
}
