/*
 * sem_wild.c — MPI_ANY_SOURCE / MPI_ANY_TAG receives, probes and persistent
 * receives.  Rank 0 collects; it lets one sender go at a time (a token), and
 * sections are separated by barriers, so which message a wildcard receive
 * matches is deterministic.
 */
#include "semutil.h"

static void token_to(int r, int tag) { C(MPI_Send(NULL, 0, MPI_BYTE, r, tag, MPI_COMM_WORLD)); }
static void wait_token(int tag) { C(MPI_Recv(NULL, 0, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    MPI_Status st;
    int v, buf[8];

    /* 1: Recv(ANY_SOURCE, ANY_TAG), senders in descending order */
    if (me == 0) {
        for (int i = np - 1; i >= 1; i--) {
            token_to(i, 1);
            poison(&st);
            v = -1;
            C(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            out("any/any recv: %d %s", v, stat_str(&st, MPI_INT));
        }
    } else {
        wait_token(1);
        v = me * 10;
        C(MPI_Send(&v, 1, MPI_INT, 0, 100 + me, MPI_COMM_WORLD));
    }

    C(MPI_Barrier(MPI_COMM_WORLD)); /* no sender runs ahead into the next section */

    /* 2: Irecv(ANY_SOURCE, tag) + Wait */
    if (me == 0) {
        for (int i = 1; i < np; i++) {
            MPI_Request rq;
            C(MPI_Irecv(buf, 8, MPI_INT, MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, &rq));
            token_to(i, 2);
            poison(&st);
            C(MPI_Wait(&rq, &st));
            out("any-source irecv: %d %d %s", buf[0], buf[1], stat_str(&st, MPI_INT));
        }
    } else {
        wait_token(2);
        int w[2] = {me, -me};
        C(MPI_Send(w, 2, MPI_INT, 0, 200, MPI_COMM_WORLD));
    }

    C(MPI_Barrier(MPI_COMM_WORLD)); /* no sender runs ahead into the next section */

    /* 3: Probe(ANY, ANY), then receive what the probe named */
    if (me == 0) {
        for (int i = 1; i < np; i++) {
            token_to(i, 3);
            poison(&st);
            C(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            out("any/any probe: %s", stat_str(&st, MPI_INT));
            int n = 0;
            MPI_Get_count(&st, MPI_INT, &n);
            int *p = calloc(n + 1, sizeof *p);
            MPI_Status st2;
            poison(&st2);
            C(MPI_Recv(p, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2));
            out("  received %d ints, last %d, %s", n, n ? p[n - 1] : -1, stat_str(&st2, MPI_INT));
            free(p);
        }
    } else {
        wait_token(3);
        int w[8];
        for (int k = 0; k < 8; k++) w[k] = me * 100 + k;
        C(MPI_Send(w, me + 2, MPI_INT, 0, 300 + me, MPI_COMM_WORLD));
    }

    C(MPI_Barrier(MPI_COMM_WORLD)); /* no sender runs ahead into the next section */

    /* 4: Iprobe(ANY, ANY) until found; Mprobe/Improbe with wildcards */
    if (me == 0) {
        for (int i = 1; i < np; i++) {
            token_to(i, 4);
            int flag = 0;
            poison(&st);
            while (!flag) C(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            out("any/any iprobe: flag %d %s", flag, stat_str(&st, MPI_INT));
            C(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            out("  then recv %d %s", v, stat_str(&st, MPI_INT));
            MPI_Message m;
            poison(&st);
            C(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
            out("  mprobe %s", stat_str(&st, MPI_INT));
            poison(&st);
            C(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
            out("  mrecv %d %s", v, stat_str(&st, MPI_INT));
            flag = 0;
            while (!flag) C(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
            out("  improbe flag %d %s", flag, stat_str(&st, MPI_INT));
            MPI_Request rq;
            C(MPI_Imrecv(&v, 1, MPI_INT, &m, &rq));
            poison(&st);
            C(MPI_Wait(&rq, &st));
            out("  imrecv %d %s", v, stat_str(&st, MPI_INT));
        }
    } else {
        wait_token(4);
        for (int k = 0; k < 3; k++) {
            v = me * 1000 + k;
            C(MPI_Send(&v, 1, MPI_INT, 0, 400 + k, MPI_COMM_WORLD));
        }
    }

    C(MPI_Barrier(MPI_COMM_WORLD)); /* no sender runs ahead into the next section */

    /* 5: ANY_TAG from a given source: non-overtaking order 7, 3, 5;
     *    ANY_SOURCE with a given tag */
    if (me == 0) {
        C(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 1; i < np; i++)
            for (int k = 0; k < 3; k++) {
                poison(&st);
                C(MPI_Recv(&v, 1, MPI_INT, i, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                out("any-tag from %d: %d %s", i, v, stat_str(&st, MPI_INT));
            }
        for (int i = np - 1; i >= 1; i--) {
            poison(&st);
            C(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 500 + i, MPI_COMM_WORLD, &st));
            out("any-source tag %d: %d %s", 500 + i, v, stat_str(&st, MPI_INT));
        }
    } else {
        int tags[3] = {7, 3, 5};
        for (int k = 0; k < 3; k++) {
            v = me * 10 + tags[k];
            C(MPI_Send(&v, 1, MPI_INT, 0, tags[k], MPI_COMM_WORLD));
        }
        v = -me;
        C(MPI_Send(&v, 1, MPI_INT, 0, 500 + me, MPI_COMM_WORLD));
        C(MPI_Barrier(MPI_COMM_WORLD));
    }

    C(MPI_Barrier(MPI_COMM_WORLD)); /* no sender runs ahead into the next section */

    /* 6: everyone sends at once; ANY_SOURCE receives, printed sorted by source */
    if (me == 0) {
        int got[64], tags[64], cnt[64];
        for (int i = 0; i < np; i++) got[i] = tags[i] = cnt[i] = -1;
        for (int i = 1; i < np; i++) {
            poison(&st);
            C(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < np && st.MPI_SOURCE < 64) {
                got[st.MPI_SOURCE] = v;
                tags[st.MPI_SOURCE] = st.MPI_TAG;
                MPI_Get_count(&st, MPI_INT, &cnt[st.MPI_SOURCE]);
            } else {
                out("concurrent: bad source %d", st.MPI_SOURCE);
            }
        }
        for (int i = 1; i < np; i++) out("concurrent from %d: %d tag %d count %d", i, got[i], tags[i], cnt[i]);
    } else {
        v = me * 3;
        C(MPI_Send(&v, 1, MPI_INT, 0, 600 + me, MPI_COMM_WORLD));
    }

    C(MPI_Barrier(MPI_COMM_WORLD)); /* no sender runs ahead into the next section */

    /* 7: persistent receive with wildcards, restarted for each sender */
    if (me == 0) {
        MPI_Request pr;
        C(MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pr));
        for (int it = 0; it < 2; it++)
            for (int i = 1; i < np; i++) {
                C(MPI_Start(&pr));
                token_to(i, 7);
                poison(&st);
                C(MPI_Wait(&pr, &st));
                out("persistent any/any: %d %s still a request %d", v, stat_str(&st, MPI_INT),
                    pr != MPI_REQUEST_NULL);
            }
        C(MPI_Request_free(&pr));
    } else {
        for (int it = 0; it < 2; it++) {
            wait_token(7);
            v = me + 70 * (it + 1);
            C(MPI_Send(&v, 1, MPI_INT, 0, 700 + it, MPI_COMM_WORLD));
        }
    }

    C(MPI_Barrier(MPI_COMM_WORLD)); /* no sender runs ahead into the next section */

    /* 8: Sendrecv whose receive part is ANY_SOURCE/ANY_TAG (ring) */
    int right = (me + 1) % np, left = (me + np - 1) % np, r = -1;
    poison(&st);
    C(MPI_Sendrecv(&me, 1, MPI_INT, right, 800 + me, &r, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                   MPI_COMM_WORLD, &st));
    out("sendrecv any/any: %d %s (left is %d)", r, stat_str(&st, MPI_INT), left);

    C(MPI_Barrier(MPI_COMM_WORLD)); /* no sender runs ahead into the next section */

    /* 9: ANY_SOURCE on a split communicator: sources are ranks in it */
    MPI_Comm half;
    C(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half));
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    if (hr == 0) {
        for (int i = 1; i < hs; i++) {
            poison(&st);
            C(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, half, &st));
            out("split comm any/any: %d %s", v, stat_str(&st, MPI_INT));
        }
    } else if (hr == 1) {
        v = me;
        C(MPI_Send(&v, 1, MPI_INT, 0, 900, half));
    }
    C(MPI_Comm_free(&half));

    C(MPI_Barrier(MPI_COMM_WORLD));
    return finish();
}
