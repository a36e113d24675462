/*
 * rep_probe.c — matched probes and MPI_Isendrecv for `mpilens report`
 * (tests/cases/report_probe.sh).
 *
 *   MPI_Improbe + MPI_Mrecv, MPI_Improbe + MPI_Imrecv + MPI_Wait, wildcard
 *   source and tag, MPI_STATUS_IGNORE, an MPI_Improbe that finds nothing,
 *   MPI_Improbe on MPI_PROC_NULL, MPI_Mprobe + MPI_Mrecv; the same (and
 *   MPI_Mprobe + MPI_Imrecv, Waitall) on a communicator of reversed ranks;
 *   MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0, where the library has
 *   them) with wildcard receive halves completed by Wait, Waitall and Test,
 *   and a specific MPI_Irecv posted after a wildcard MPI_Isendrecv, which the
 *   matcher must hold back until the wildcard is resolved.
 *
 * Rank 0 prints "EXPECT messages=<n> bytes=<b> isendrecv=<0|1> status=<0|1>
 * wild=<w> wild_bytes=<wb>": the messages sent (MPI_PROC_NULL excluded) and
 * their bytes over all ranks; whether the MPI_Isendrecv part ran; whether
 * the library completes an MPI_Isendrecv with the receive's status (MPICH
 * 4.0 does not: then the program does not check those statuses, and a
 * wildcard receive half cannot be resolved); the messages taken by wildcard
 * MPI_Isendrecv receive halves and their bytes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long long msgs, bytes, wild, wild_bytes;
static int status_ok = 1;
static int rank, size, left, right;

static void sent(int n, int type_size)
{
    msgs++;
    bytes += (long long)n * type_size;
}

static void expect(const MPI_Status *st, int src, int tag, int n, MPI_Datatype t, const char *what)
{
    int c = -1;
    MPI_Get_count(st, t, &c);
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag || c != n) {
        printf("rep_probe: %s: status %d/%d/%d, want %d/%d/%d\n", what, st->MPI_SOURCE, st->MPI_TAG, c, src,
               tag, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void matched_probes(void)
{
    double out[64] = {0}, in[64];
    MPI_Request rq, rr;
    MPI_Message msg;
    MPI_Status st;
    int flag = 0;

    /* an Improbe that finds nothing is no receive */
    for (int i = 0; i < 3; i++) {
        MPI_Improbe(left, 799, MPI_COMM_WORLD, &flag, &msg, &st);
        if (flag) MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* wildcard Improbe + Mrecv */
    MPI_Isend(out, 5, MPI_DOUBLE, right, 700, MPI_COMM_WORLD, &rq);
    sent(5, 8);
    do MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st); while (!flag);
    expect(&st, left, 700, 5, MPI_DOUBLE, "Improbe");
    MPI_Mrecv(in, 5, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    /* Improbe with MPI_STATUS_IGNORE + Imrecv + Wait */
    MPI_Isend(out, 6, MPI_DOUBLE, right, 701, MPI_COMM_WORLD, &rq);
    sent(6, 8);
    do MPI_Improbe(MPI_ANY_SOURCE, 701, MPI_COMM_WORLD, &flag, &msg, MPI_STATUS_IGNORE); while (!flag);
    MPI_Imrecv(in, 64, MPI_DOUBLE, &msg, &rr);
    MPI_Wait(&rr, &st);
    expect(&st, left, 701, 6, MPI_DOUBLE, "Imrecv");
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    /* MPI_PROC_NULL: found at once, no message */
    MPI_Improbe(MPI_PROC_NULL, 702, MPI_COMM_WORLD, &flag, &msg, &st);
    if (!flag || msg != MPI_MESSAGE_NO_PROC) MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Mrecv(in, 64, MPI_DOUBLE, &msg, &st);
    /* Mprobe + Mrecv */
    MPI_Isend(out, 7, MPI_DOUBLE, right, 703, MPI_COMM_WORLD, &rq);
    sent(7, 8);
    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
    expect(&st, left, 703, 7, MPI_DOUBLE, "Mprobe");
    MPI_Mrecv(in, 7, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    /* a wildcard gather taken with Improbe (source and tag from the status),
     * on a duplicate of the world: the ring's wildcards never see it */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            do MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &flag, &msg, &st); while (!flag);
            if (st.MPI_TAG != 710 + st.MPI_SOURCE) MPI_Abort(MPI_COMM_WORLD, 5);
            MPI_Mrecv(in, 64, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Send(out, rank, MPI_DOUBLE, 0, 710 + rank, dup);
        sent(rank, 8);
    }
    MPI_Comm_free(&dup);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Matched probes on a communicator whose ranks are the world's reversed
 * (comm rank = size-1-world rank): each rank receives from its world left
 * neighbour, comm rank size-1-left.  Tags 720..725, sizes 3, 4, 5, 2
 * doubles and 1, 2 ints (24, 32, 40, 16, 4, 8 bytes):
 *   720 Improbe (wildcard source) + Imrecv + Wait
 *   721 Mprobe (wildcards) + Imrecv + Test until done
 *   722 Improbe (MPI_STATUS_IGNORE) + Mrecv (MPI_STATUS_IGNORE)
 *   723 Mprobe + Mrecv with a status
 *   724, 725 Improbe each + two Imrecv + one Waitall
 * report_probe.sh checks dump's MPI_Imrecv/MPI_Mrecv lines and the
 * completions of these requests against this: source = world left. */
static void reversed_probes(void)
{
    double out[8] = {0}, in[8];
    int iout[2] = {0}, iin[4];
    MPI_Comm rev;
    MPI_Request rq[6], rr[2];
    MPI_Message msg, m2[2];
    MPI_Status st, sts[2];
    int flag = 0;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
    int rright = size - 1 - right, rleft = size - 1 - left;
    static const int n[4] = {3, 4, 5, 2};
    for (int i = 0; i < 4; i++) {
        MPI_Isend(out, n[i], MPI_DOUBLE, rright, 720 + i, rev, &rq[i]);
        sent(n[i], 8);
    }
    MPI_Isend(iout, 1, MPI_INT, rright, 724, rev, &rq[4]);
    MPI_Isend(iout, 2, MPI_INT, rright, 725, rev, &rq[5]);
    sent(1, 4);
    sent(2, 4);
    do MPI_Improbe(MPI_ANY_SOURCE, 720, rev, &flag, &msg, &st); while (!flag);
    MPI_Imrecv(in, 8, MPI_DOUBLE, &msg, &rr[0]);
    MPI_Wait(&rr[0], &st);
    expect(&st, rleft, 720, 3, MPI_DOUBLE, "reversed Imrecv");
    MPI_Mprobe(MPI_ANY_SOURCE, 721, rev, &msg, MPI_STATUS_IGNORE);
    MPI_Imrecv(in, 8, MPI_DOUBLE, &msg, &rr[0]);
    do MPI_Test(&rr[0], &flag, &st); while (!flag);
    expect(&st, rleft, 721, 4, MPI_DOUBLE, "reversed Mprobe+Imrecv");
    do MPI_Improbe(rleft, 722, rev, &flag, &msg, MPI_STATUS_IGNORE); while (!flag);
    MPI_Mrecv(in, 8, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
    MPI_Mprobe(rleft, MPI_ANY_TAG, rev, &msg, &st);
    MPI_Mrecv(in, 8, MPI_DOUBLE, &msg, &st);
    expect(&st, rleft, 723, 2, MPI_DOUBLE, "reversed Mrecv");
    for (int i = 0; i < 2; i++) {
        do MPI_Improbe(rleft, 724 + i, rev, &flag, &m2[i], MPI_STATUS_IGNORE); while (!flag);
    }
    MPI_Imrecv(&iin[0], 1, MPI_INT, &m2[0], &rr[0]);
    MPI_Imrecv(&iin[2], 2, MPI_INT, &m2[1], &rr[1]);
    MPI_Waitall(2, rr, sts);
    expect(&sts[1], rleft, 725, 2, MPI_INT, "reversed Waitall");
    MPI_Waitall(6, rq, MPI_STATUSES_IGNORE);
    MPI_Comm_free(&rev);
}

#if MPI_VERSION >= 4
/* Does MPI_Isendrecv complete with the receive's status?  A message to
 * itself on a duplicate of MPI_COMM_SELF, taken by a wildcard. */
static int isendrecv_status(void)
{
    MPI_Comm self;
    MPI_Request r;
    MPI_Status st;
    int out = 7, in = 0, n = -1;
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    st.MPI_SOURCE = st.MPI_TAG = -7;
    MPI_Isendrecv(&out, 1, MPI_INT, 0, 4242, &in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, self, &r);
    sent(1, 4);
    wild++, wild_bytes += 4;
    MPI_Wait(&r, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    MPI_Comm_free(&self);
    return st.MPI_SOURCE == 0 && st.MPI_TAG == 4242 && n == 1;
}
#endif

static int isendrecv(void)
{
#if MPI_VERSION >= 4
    int out[64] = {0}, in[64], rep[64];
    MPI_Request rq[3];
    MPI_Status st, sts[3];
    int flag = 0;
    status_ok = isendrecv_status();
    /* wildcard receive half, completed by Wait */
    MPI_Isendrecv(out, 3, MPI_INT, right, 800, in, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                  &rq[0]);
    sent(3, 4);
    wild++, wild_bytes += 12;
    MPI_Wait(&rq[0], &st);
    if (status_ok) expect(&st, left, 800, 3, MPI_INT, "Isendrecv");
    /* a wildcard Isendrecv, then a specific Irecv of the same channel's next
     * message; the Irecv completes first (Waitall lists it first) */
    MPI_Isendrecv(out, 4, MPI_INT, right, 801, in, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                  &rq[1]);
    sent(4, 4);
    wild++, wild_bytes += 16;
    MPI_Irecv(rep, 64, MPI_INT, left, 802, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(out, 5, MPI_INT, right, 802, MPI_COMM_WORLD, &rq[2]);
    sent(5, 4);
    MPI_Waitall(3, rq, sts);
    if (status_ok) expect(&sts[1], left, 801, 4, MPI_INT, "Isendrecv+Waitall");
    expect(&sts[0], left, 802, 5, MPI_INT, "Irecv after Isendrecv");
    /* specific, statuses ignored */
    MPI_Isendrecv(out, 6, MPI_INT, right, 803, in, 64, MPI_INT, left, 803, MPI_COMM_WORLD, &rq[0]);
    sent(6, 4);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    /* replace, wildcard, completed by Test, status ignored */
    for (int i = 0; i < 7; i++) rep[i] = rank;
    MPI_Isendrecv_replace(rep, 7, MPI_INT, right, 804, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
    sent(7, 4);
    wild++, wild_bytes += 28;
    do MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE); while (!flag);
    if (rep[0] != left) MPI_Abort(MPI_COMM_WORLD, 6);
    /* (no MPI_PROC_NULL here: MPICH 4.0.2's MPI_Isendrecv crashes on it) */
    return 1;
#else
    return 0;
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    matched_probes();
    reversed_probes();
    int isr = isendrecv();
    long long v[4] = {msgs, bytes, wild, wild_bytes}, t[4];
    MPI_Reduce(v, t, 4, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("EXPECT messages=%lld bytes=%lld isendrecv=%d status=%d wild=%lld wild_bytes=%lld\n", t[0], t[1],
               isr, status_ok, t[2], t[3]);
    MPI_Finalize();
    return 0;
}
