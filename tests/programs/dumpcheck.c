/*
 * dumpcheck.c — known calls for the dump-format test (4 ranks or more).  The
 * lines marked "at:NAME" are the call sites the test looks for.
 *   rank 0: Send 16 ints to 1, tag 42                           at:send42
 *   rank 1: Recv ANY_SOURCE/ANY_TAG (gets rank 0's)             at:recvany
 *   comm "rev" = MPI_COMM_WORLD reversed (rank k is world rank size-1-k)
 *   rank 1: Send 1 double to rev rank 0 = world rank size-1, tag 43   at:sendrev
 *   rank size-1: Recv from rev rank size-2 = world rank 1, tag 43     at:recvrev
 *   rank 2: Send to rank size (invalid) under MPI_ERRORS_RETURN       at:badsend
 *   rank 0: Isend 2 chars to 2, tag 44, then Wait                     at:isend
 *   rank 2: Irecv + Wait                                               at:irecv
 *   rank 0: Sendrecv with rank size-1: sends 4 ints tag 45, receives
 *           1 double tag 46 (rank size-1 the other way)              at:sendrecv
 *   all:    Bcast 3 ints from root 2                                   at:bcast
 *   rank 0: 6 Isends of 1 int, tags 50-55, to ranks 1, 2, 3, 1, 2, 3, then
 *           one Waitall (small sends complete as they are made: both MPIs
 *           give all six the same handle); ranks 1-3 Recv theirs        at:waitall
 *   rank 0: Isend tag 56 to 1 then MPI_Request_free; Isend tag 57 to 1
 *           then Wait (the same handle again)                          at:wait57
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 4) {
        if (me == 0) fprintf(stderr, "dumpcheck: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int buf[16] = {0};
    double d = 1.5;
    char c[2] = {'a', 'b'};
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, np - me, &rev); /* at:split */
    MPI_Request rq;

    if (me == 0) MPI_Send(buf, 16, MPI_INT, 1, 42, MPI_COMM_WORLD); /* at:send42 */
    if (me == 1) MPI_Recv(buf, 16, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* at:recvany */
    if (me == 1) MPI_Send(&d, 1, MPI_DOUBLE, 0, 43, rev); /* at:sendrev */
    if (me == np - 1) MPI_Recv(&d, 1, MPI_DOUBLE, np - 2, 43, rev, MPI_STATUS_IGNORE); /* at:recvrev */
    int rc = MPI_SUCCESS;
    if (me == 2) rc = MPI_Send(buf, 1, MPI_INT, np, 0, MPI_COMM_WORLD); /* at:badsend */
    if (me == 0) {
        MPI_Isend(c, 2, MPI_CHAR, 2, 44, MPI_COMM_WORLD, &rq); /* at:isend */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    if (me == 2) {
        MPI_Irecv(c, 2, MPI_CHAR, 0, 44, MPI_COMM_WORLD, &rq); /* at:irecv */
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    if (me == 0) MPI_Sendrecv(buf, 4, MPI_INT, np - 1, 45, &d, 1, MPI_DOUBLE, np - 1, 46, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* at:sendrecv */
    if (me == np - 1) MPI_Sendrecv(&d, 1, MPI_DOUBLE, 0, 46, buf, 4, MPI_INT, 0, 45, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Bcast(buf, 3, MPI_INT, 2, MPI_COMM_WORLD); /* at:bcast */
    int six[6] = {0};
    if (me == 0) {
        MPI_Request q6[6];
        for (int i = 0; i < 6; i++) MPI_Isend(&six[i], 1, MPI_INT, 1 + i % 3, 50 + i, MPI_COMM_WORLD, &q6[i]);
        MPI_Waitall(6, q6, MPI_STATUSES_IGNORE); /* at:waitall */
        MPI_Isend(&six[0], 1, MPI_INT, 1, 56, MPI_COMM_WORLD, &rq);
        MPI_Request_free(&rq);
        MPI_Isend(&six[1], 1, MPI_INT, 1, 57, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* at:wait57 */
    } else if (me <= 3) {
        MPI_Recv(&six[0], 1, MPI_INT, 0, 50 + me - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&six[1], 1, MPI_INT, 0, 53 + me - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (me == 1) {
            MPI_Recv(&six[2], 1, MPI_INT, 0, 56, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&six[3], 1, MPI_INT, 0, 57, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Comm_free(&rev);
    if (me == 2) printf("dumpcheck: bad send %s\n", rc == MPI_SUCCESS ? "succeeded" : "failed");
    MPI_Finalize();
    return 0;
}
