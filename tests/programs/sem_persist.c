/*
 * sem_persist.c — persistent requests: Send_init/Recv_init/Ssend_init/
 * Rsend_init/Bsend_init started with Start and Startall over several
 * iterations, completed with Wait, Test, Waitall, Waitany, Waitsome; inactive
 * persistent requests (empty status, flag true); Request_get_status;
 * Request_free of inactive and of active-completed requests.
 */
#include "semutil.h"

static int partner;
static void go(void) { C(MPI_Send(NULL, 0, MPI_INT, partner, 1, MPI_COMM_WORLD)); }
static void wait_go(void) { C(MPI_Recv(NULL, 0, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    partner = me ^ 1;
    if (partner < np) {
        int low = me < partner;
        int sb[4], rb[4], flag;
        MPI_Request p[4];
        MPI_Status st, sts[4];

        /* Send_init + Recv_init, Startall + Waitall, 5 iterations */
        C(MPI_Send_init(sb, 4, MPI_INT, partner, 10, MPI_COMM_WORLD, &p[0]));
        C(MPI_Recv_init(rb, 4, MPI_INT, partner, 10, MPI_COMM_WORLD, &p[1]));
        for (int it = 0; it < 5; it++) {
            for (int i = 0; i < 4; i++) sb[i] = me * 1000 + it * 10 + i, rb[i] = -1;
            C(MPI_Startall(2, p));
            poison(&sts[1]);
            C(MPI_Waitall(2, p, sts));
            out("iter %d: got %d %d %d %d %s; requests kept %d %d", it, rb[0], rb[1], rb[2], rb[3],
                stat_str(&sts[1], MPI_INT), p[0] != MPI_REQUEST_NULL, p[1] != MPI_REQUEST_NULL);
        }
        /* inactive: Wait and Test return at once with an empty status */
        poison(&st);
        C(MPI_Wait(&p[1], &st));
        out("wait on inactive: empty %d kept %d", is_empty(&st), p[1] != MPI_REQUEST_NULL);
        poison(&st);
        flag = -1;
        C(MPI_Test(&p[1], &flag, &st));
        out("test on inactive: flag %d empty %d", flag, is_empty(&st));
        flag = -1;
        poison(&st);
        C(MPI_Request_get_status(p[1], &flag, &st));
        out("get_status on inactive: flag %d empty %d", flag, is_empty(&st));
        poison(&sts[0]);
        poison(&sts[1]);
        C(MPI_Waitall(2, p, sts));
        out("waitall on inactive: empty %d %d", is_empty(&sts[0]), is_empty(&sts[1]));
        int idx = -9;
        C(MPI_Waitany(2, p, &idx, &st));
        out("waitany on inactive: index %s empty %d", countname(idx), is_empty(&st));

        /* Start one at a time, Test until done */
        for (int it = 0; it < 3; it++) {
            for (int i = 0; i < 4; i++) sb[i] = -me - it, rb[i] = -1;
            C(MPI_Start(&p[1]));
            C(MPI_Start(&p[0]));
            flag = 0;
            poison(&st);
            while (!flag) C(MPI_Test(&p[1], &flag, &st));
            out("test iter %d: flag %d got %d %s", it, flag, rb[0], stat_str(&st, MPI_INT));
            C(MPI_Wait(&p[0], MPI_STATUS_IGNORE));
        }
        C(MPI_Request_free(&p[0]));
        C(MPI_Request_free(&p[1]));
        out("freed: null %d %d", p[0] == MPI_REQUEST_NULL, p[1] == MPI_REQUEST_NULL);

        /* Ssend_init and Rsend_init; the partner's receives are persistent too */
        if (low) {
            C(MPI_Ssend_init(sb, 2, MPI_INT, partner, 20, MPI_COMM_WORLD, &p[0]));
            C(MPI_Rsend_init(sb + 2, 2, MPI_INT, partner, 21, MPI_COMM_WORLD, &p[1]));
            for (int it = 0; it < 3; it++) {
                for (int i = 0; i < 4; i++) sb[i] = 2000 + it * 10 + i;
                wait_go(); /* the partner's receive for the Rsend is posted */
                C(MPI_Startall(2, p));
                C(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
            }
        } else {
            C(MPI_Recv_init(rb, 2, MPI_INT, partner, 20, MPI_COMM_WORLD, &p[0]));
            C(MPI_Recv_init(rb + 2, 2, MPI_INT, partner, 21, MPI_COMM_WORLD, &p[1]));
            for (int it = 0; it < 3; it++) {
                for (int i = 0; i < 4; i++) rb[i] = -1;
                C(MPI_Startall(2, p));
                go();
                int seen = 0, outc, ind[2];
                while (seen < 2) {
                    C(MPI_Waitsome(2, p, &outc, ind, sts));
                    if (outc == MPI_UNDEFINED) break;
                    seen += outc;
                }
                out("ssend/rsend iter %d: got %d %d %d %d", it, rb[0], rb[1], rb[2], rb[3]);
                outc = -9;
                C(MPI_Waitsome(2, p, &outc, ind, sts));
                out("  waitsome on inactive persistent: outcount %s", countname(outc));
            }
        }
        C(MPI_Request_free(&p[0]));
        C(MPI_Request_free(&p[1]));

        /* Bsend_init with an attached buffer */
        int bsize = 0;
        MPI_Pack_size(4, MPI_INT, MPI_COMM_WORLD, &bsize);
        bsize += MPI_BSEND_OVERHEAD;
        char *bbuf = malloc(bsize);
        C(MPI_Buffer_attach(bbuf, bsize));
        C(MPI_Bsend_init(sb, 4, MPI_INT, partner, 30, MPI_COMM_WORLD, &p[0]));
        for (int it = 0; it < 4; it++) {
            for (int i = 0; i < 4; i++) sb[i] = 3000 + me * 100 + it * 10 + i;
            C(MPI_Start(&p[0]));
            C(MPI_Wait(&p[0], MPI_STATUS_IGNORE));
            poison(&st);
            C(MPI_Recv(rb, 4, MPI_INT, partner, 30, MPI_COMM_WORLD, &st));
            out("bsend_init iter %d: got %d %d %s", it, rb[0], rb[3], stat_str(&st, MPI_INT));
        }
        C(MPI_Request_free(&p[0]));
        void *b;
        int bs;
        C(MPI_Buffer_detach(&b, &bs));
        out("detach: same %d size ok %d", b == (void *)bbuf, bs == bsize);
        free(bbuf);

        /* persistent with ANY_SOURCE / ANY_TAG, completed by Waitany over a mix */
        C(MPI_Recv_init(rb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &p[0]));
        C(MPI_Send_init(sb, 1, MPI_INT, partner, 40, MPI_COMM_WORLD, &p[1]));
        p[2] = MPI_REQUEST_NULL;
        for (int it = 0; it < 3; it++) {
            sb[0] = 4000 + me * 10 + it;
            C(MPI_Startall(2, p));
            int done = 0, got_recv = 0;
            while (done < 2) {
                idx = -9;
                C(MPI_Waitany(3, p, &idx, &st));
                if (idx == MPI_UNDEFINED) break;
                if (idx == 0) {
                    got_recv = 1;
                    out("any/any persistent iter %d: got %d %s", it, rb[0], stat_str(&st, MPI_INT));
                }
                done++;
            }
            if (!got_recv) out("any/any persistent iter %d: receive not seen", it);
            /* keep the next iteration's message from being received here */
            C(MPI_Barrier(MPI_COMM_WORLD));
        }
        C(MPI_Request_free(&p[0]));
        C(MPI_Request_free(&p[1]));
    } else {
        /* a rank without partner still joins the barriers */
        for (int it = 0; it < 3; it++) C(MPI_Barrier(MPI_COMM_WORLD));
    }
    C(MPI_Barrier(MPI_COMM_WORLD));
    return finish();
}
