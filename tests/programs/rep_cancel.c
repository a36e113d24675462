/*
 * rep_cancel.c — cancelled requests for `mpilens report` (tests/cases/report_cancel.sh).
 *
 * Ranks pair up (0-1, 2-3, ...; an odd last rank only takes part in the
 * collectives).  In each pair, the odd rank cancels receives nobody sends
 * to: a specific Irecv completed by MPI_Wait, a wildcard Irecv (any source,
 * any tag) completed by an MPI_Test loop, a wildcard Irecv among others in
 * MPI_Waitall, an active persistent receive (then started again and
 * matched); a cancel that comes too late (the message is already received:
 * not cancelled, matched).  The even rank cancels an Isend (Open MPI cannot
 * cancel sends, MPICH sometimes can): it tells its partner whether the
 * cancel worked, and the partner receives the message when it did not.
 * Messages with the same tag flow after every cancel, so a cancelled
 * receive left in the matcher would take them.
 *
 * Rank 0 prints "EXPECT messages=<n> bytes=<b> cancelled_receives=<r>
 * cancelled_sends=<s> cancels=<c>" (all ranks summed, from
 * MPI_Test_cancelled), then "rep_cancel: ok".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long long msgs, bytes, crecv, csend, ncancel;

static void count_msg(int n) { msgs++; bytes += n; }

static void check(MPI_Status *st, long long *cnt, int want, const char *what)
{
    int c = 0;
    MPI_Test_cancelled(st, &c);
    if (want >= 0 && c != want) {
        fprintf(stderr, "rep_cancel: %s: cancelled=%d, expected %d\n", what, c, want);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (c) (*cnt)++;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = rank ^ 1;
    int paired = partner < size;
    MPI_Status st;
    MPI_Request rq, rqs[3];
    int v = 0, w = 0, x[3];

    if (paired && (rank & 1)) {
        /* 1: specific receive, cancelled, then the same channel used */
        MPI_Irecv(&v, 1, MPI_INT, partner, 10, MPI_COMM_WORLD, &rq);
        MPI_Cancel(&rq);
        ncancel++;
        MPI_Wait(&rq, &st);
        check(&st, &crecv, 1, "specific Irecv");
        /* 2: wildcard receive, cancelled, completed by MPI_Test */
        MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
        MPI_Cancel(&rq);
        ncancel++;
        int flag = 0;
        while (!flag) MPI_Test(&rq, &flag, &st);
        check(&st, &crecv, 1, "wildcard Irecv");
        /* 3: Waitall over a cancelled wildcard and two real receives */
        MPI_Irecv(&x[0], 1, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &rqs[0]);
        MPI_Cancel(&rqs[0]);
        ncancel++;
        MPI_Irecv(&x[1], 1, MPI_INT, partner, 10, MPI_COMM_WORLD, &rqs[1]);
        MPI_Irecv(&x[2], 1, MPI_INT, partner, 11, MPI_COMM_WORLD, &rqs[2]);
        MPI_Send(&v, 1, MPI_INT, partner, 1, MPI_COMM_WORLD);   /* go */
        count_msg(4);
        MPI_Status sts[3];
        MPI_Waitall(3, rqs, sts);
        check(&sts[0], &crecv, 1, "wildcard in Waitall");
        check(&sts[1], &crecv, 0, "Waitall receive 1");
        check(&sts[2], &crecv, 0, "Waitall receive 2");
        /* 4: persistent receive: started and cancelled, started again and matched */
        MPI_Recv_init(&v, 1, MPI_INT, partner, 12, MPI_COMM_WORLD, &rq);
        MPI_Start(&rq);
        MPI_Cancel(&rq);
        ncancel++;
        MPI_Wait(&rq, &st);
        check(&st, &crecv, 1, "persistent receive");
        MPI_Start(&rq);
        MPI_Send(&v, 1, MPI_INT, partner, 1, MPI_COMM_WORLD);   /* go */
        count_msg(4);
        MPI_Wait(&rq, &st);
        check(&st, &crecv, 0, "persistent receive, second start");
        MPI_Request_free(&rq);
        /* 5: too late: the message is received before MPI_Cancel */
        MPI_Irecv(&v, 1, MPI_INT, partner, 13, MPI_COMM_WORLD, &rq);
        MPI_Barrier(MPI_COMM_WORLD);          /* the partner's Ssend is done */
        MPI_Cancel(&rq);
        ncancel++;
        MPI_Wait(&rq, &st);
        check(&st, &crecv, 0, "late cancel");
        /* 6: the partner's cancelled send */
        int c = 0;
        MPI_Recv(&c, 1, MPI_INT, partner, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!c) MPI_Recv(x, 3, MPI_INT, partner, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(x, 3, MPI_INT, partner, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (paired) {
        MPI_Recv(&v, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        v = 7;
        MPI_Send(&v, 1, MPI_INT, partner, 10, MPI_COMM_WORLD);
        MPI_Send(&v, 1, MPI_INT, partner, 11, MPI_COMM_WORLD);
        count_msg(4);
        count_msg(4);
        MPI_Recv(&v, 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, partner, 12, MPI_COMM_WORLD);
        count_msg(4);
        MPI_Ssend(&v, 1, MPI_INT, partner, 13, MPI_COMM_WORLD);
        count_msg(4);
        MPI_Barrier(MPI_COMM_WORLD);
        /* a send nobody receives yet, cancelled */
        x[0] = x[1] = x[2] = 1;
        MPI_Isend(x, 3, MPI_INT, partner, 14, MPI_COMM_WORLD, &rq);
        MPI_Cancel(&rq);
        ncancel++;
        MPI_Wait(&rq, &st);
        int c = 0;
        MPI_Test_cancelled(&st, &c);
        if (c) csend++;
        else count_msg(12);
        MPI_Send(&c, 1, MPI_INT, partner, 15, MPI_COMM_WORLD);
        count_msg(4);
        MPI_Send(x, 3, MPI_INT, partner, 14, MPI_COMM_WORLD);  /* same channel */
        count_msg(12);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    long long loc[5] = {msgs, bytes, crecv, csend, ncancel}, sum[5];
    MPI_Reduce(loc, sum, 5, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("EXPECT messages=%lld bytes=%lld cancelled_receives=%lld cancelled_sends=%lld cancels=%lld\n",
               sum[0], sum[1], sum[2], sum[3], sum[4]);
        printf("rep_cancel: ok\n");
    }
    MPI_Finalize();
    return 0;
}
