/*
 * sem_p2p.c — point-to-point semantics: values, statuses, counts, Test and
 * Iprobe flags once complete, Waitany/Waitsome/Testany/Testsome indices,
 * Sendrecv, Sendrecv_replace, Ssend, Rsend, Probe, Mprobe, cancel,
 * Request_get_status, Request_free, derived types.
 * Ranks work in pairs (r, r^1); with an odd size the last rank only rings.
 */
#include "semutil.h"

static int partner;

/* Tell the partner to go on (zero-byte message, tag 1). */
static void go(void) { C(MPI_Send(NULL, 0, MPI_INT, partner, 1, MPI_COMM_WORLD)); }
static void wait_go(void) { C(MPI_Recv(NULL, 0, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); }

static void basic(int low)
{
    int v[4], r[10];
    MPI_Status st;
    for (int i = 0; i < 4; i++) v[i] = me * 100 + i;
    for (int i = 0; i < 10; i++) r[i] = -1;
    poison(&st);
    if (low) {
        C(MPI_Send(v, 4, MPI_INT, partner, 11, MPI_COMM_WORLD));
        C(MPI_Recv(r, 10, MPI_INT, partner, 12, MPI_COMM_WORLD, &st));
    } else {
        C(MPI_Recv(r, 10, MPI_INT, partner, 11, MPI_COMM_WORLD, &st));
        C(MPI_Send(v, 4, MPI_INT, partner, 12, MPI_COMM_WORLD));
    }
    out("send/recv: got %d %d %d %d %d, %s, as bytes %s", r[0], r[1], r[2], r[3], r[4],
        stat_str(&st, MPI_INT), stat_str(&st, MPI_BYTE));
    /* count in a type the byte count is no multiple of */
    int c3 = -5;
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    MPI_Get_count(&st, three, &c3);
    int e3 = -5;
    MPI_Get_elements(&st, three, &e3);
    out("count in 3-int units: %s, elements %s", countname(c3), countname(e3));
    MPI_Type_free(&three);

    /* zero-byte message */
    poison(&st);
    if (low) C(MPI_Send(v, 0, MPI_INT, partner, 13, MPI_COMM_WORLD));
    else C(MPI_Recv(r, 10, MPI_INT, partner, 13, MPI_COMM_WORLD, &st));
    if (!low) out("zero-byte: %s", stat_str(&st, MPI_INT));

    /* Ssend both ways */
    double d = me + 0.5, dr = -1;
    poison(&st);
    if (low) {
        C(MPI_Ssend(&d, 1, MPI_DOUBLE, partner, 14, MPI_COMM_WORLD));
        C(MPI_Recv(&dr, 1, MPI_DOUBLE, partner, 14, MPI_COMM_WORLD, &st));
    } else {
        C(MPI_Recv(&dr, 1, MPI_DOUBLE, partner, 14, MPI_COMM_WORLD, &st));
        C(MPI_Ssend(&d, 1, MPI_DOUBLE, partner, 14, MPI_COMM_WORLD));
    }
    out("ssend: got %.1f, %s", dr, stat_str(&st, MPI_DOUBLE));

    /* Rsend: the receive is posted before the go */
    MPI_Request rq;
    int x = -1;
    if (low) {
        wait_go();
        x = 4242 + me;
        C(MPI_Rsend(&x, 1, MPI_INT, partner, 15, MPI_COMM_WORLD));
    } else {
        C(MPI_Irecv(&x, 1, MPI_INT, partner, 15, MPI_COMM_WORLD, &rq));
        go();
        poison(&st);
        C(MPI_Wait(&rq, &st));
        out("rsend: got %d, %s, request null after wait %d", x, stat_str(&st, MPI_INT),
            rq == MPI_REQUEST_NULL);
    }
}

static void sendrecv(void)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int s[2] = {me, me * me}, r[2] = {-1, -1};
    MPI_Status st;
    poison(&st);
    C(MPI_Sendrecv(s, 2, MPI_INT, right, 21, r, 2, MPI_INT, left, 21, MPI_COMM_WORLD, &st));
    out("sendrecv ring: got %d %d, %s", r[0], r[1], stat_str(&st, MPI_INT));
    double buf[3] = {me * 1.5, me * 2.5, me * 3.5};
    poison(&st);
    C(MPI_Sendrecv_replace(buf, 3, MPI_DOUBLE, left, 22, right, 22, MPI_COMM_WORLD, &st));
    out("sendrecv_replace: now %.1f %.1f %.1f, %s", buf[0], buf[1], buf[2], stat_str(&st, MPI_DOUBLE));
    /* different send and receive types */
    short sh[4] = {(short)me, 1, 2, 3};
    char rb[8];
    memset(rb, 0, sizeof rb);
    poison(&st);
    C(MPI_Sendrecv(sh, 4, MPI_SHORT, left, 23, rb, 8, MPI_BYTE, right, 23, MPI_COMM_WORLD, &st));
    short got[4];
    memcpy(got, rb, sizeof got);
    out("sendrecv short->byte: %d %d %d %d, %s", got[0], got[1], got[2], got[3], stat_str(&st, MPI_BYTE));
}

static void nonblocking(int low)
{
    MPI_Request rq[2];
    MPI_Status st[2];
    int s = me * 7, r = -1, flag = 0;
    C(MPI_Irecv(&r, 1, MPI_INT, partner, 31, MPI_COMM_WORLD, &rq[0]));
    C(MPI_Isend(&s, 1, MPI_INT, partner, 31, MPI_COMM_WORLD, &rq[1]));
    poison(&st[0]);
    while (!flag) C(MPI_Test(&rq[0], &flag, &st[0]));
    out("test: flag %d, got %d, %s, request null %d", flag, r, stat_str(&st[0], MPI_INT),
        rq[0] == MPI_REQUEST_NULL);
    poison(&st[0]);
    C(MPI_Wait(&rq[0], &st[0]));
    out("wait on null request: empty status %d", is_empty(&st[0]));
    poison(&st[0]);
    flag = -1;
    C(MPI_Test(&rq[0], &flag, &st[0]));
    out("test on null request: flag %d empty status %d", flag, is_empty(&st[0]));
    /* Request_get_status leaves the request alone */
    flag = 0;
    while (!flag) C(MPI_Request_get_status(rq[1], &flag, &st[1]));
    out("request_get_status: flag %d, request still there %d", flag, rq[1] != MPI_REQUEST_NULL);
    C(MPI_Wait(&rq[1], &st[1]));
    out("send request null after wait %d", rq[1] == MPI_REQUEST_NULL);

    /* Waitall, Testall */
    int a[3] = {-1, -1, -1}, b[3] = {me, me + 10, me + 20};
    MPI_Request q[4];
    MPI_Status sts[4];
    C(MPI_Irecv(&a[0], 1, MPI_INT, partner, 32, MPI_COMM_WORLD, &q[0]));
    C(MPI_Irecv(&a[1], 2, MPI_INT, partner, 33, MPI_COMM_WORLD, &q[1]));
    C(MPI_Isend(&b[0], 1, MPI_INT, partner, 32, MPI_COMM_WORLD, &q[2]));
    C(MPI_Isend(&b[1], 2, MPI_INT, partner, 33, MPI_COMM_WORLD, &q[3]));
    for (int i = 0; i < 4; i++) poison(&sts[i]);
    C(MPI_Waitall(4, q, sts));
    out("waitall: got %d %d %d; %s | %s", a[0], a[1], a[2], stat_str(&sts[0], MPI_INT),
        stat_str(&sts[1], MPI_INT));
    C(MPI_Irecv(&a[0], 3, MPI_INT, partner, 34, MPI_COMM_WORLD, &q[0]));
    C(MPI_Isend(&b[0], 3, MPI_INT, partner, 34, MPI_COMM_WORLD, &q[1]));
    flag = 0;
    while (!flag) C(MPI_Testall(2, q, &flag, sts));
    out("testall: flag %d got %d %d %d; %s; nulls %d %d", flag, a[0], a[1], a[2],
        stat_str(&sts[0], MPI_INT), q[0] == MPI_REQUEST_NULL, q[1] == MPI_REQUEST_NULL);
    (void)low;
}

/* Waitany/Testany/Waitsome/Testsome where the partner decides which
 * receive can complete, so every index is deterministic. */
static void indices(int low)
{
    MPI_Request rq[4];
    MPI_Status st, sts[4];
    int buf[4] = {-1, -1, -1, -1}, idx = -9, flag = -9, v;
    if (low) { /* receiver */
        rq[0] = MPI_REQUEST_NULL;
        C(MPI_Irecv(&buf[1], 1, MPI_INT, partner, 51, MPI_COMM_WORLD, &rq[1]));
        rq[2] = MPI_REQUEST_NULL;
        C(MPI_Irecv(&buf[3], 1, MPI_INT, partner, 53, MPI_COMM_WORLD, &rq[3]));
        go();
        poison(&st);
        C(MPI_Waitany(4, rq, &idx, &st));
        out("waitany: index %s got %d, %s", countname(idx), buf[idx < 0 || idx > 3 ? 0 : idx],
            stat_str(&st, MPI_INT));
        poison(&st);
        C(MPI_Testany(4, rq, &idx, &flag, &st));
        out("testany before the send: flag %d index %s", flag, countname(idx));
        go();
        idx = -9;
        poison(&st);
        C(MPI_Waitany(4, rq, &idx, &st));
        out("waitany: index %s got %d, %s", countname(idx), buf[idx < 0 || idx > 3 ? 0 : idx],
            stat_str(&st, MPI_INT));
        poison(&st);
        idx = -9;
        C(MPI_Waitany(4, rq, &idx, &st));
        out("waitany all null: index %s empty status %d", countname(idx), is_empty(&st));
        poison(&st);
        idx = -9;
        flag = -9;
        C(MPI_Testany(4, rq, &idx, &flag, &st));
        out("testany all null: flag %d index %s empty status %d", flag, countname(idx), is_empty(&st));

        /* Waitsome / Testsome */
        for (int i = 0; i < 4; i++) C(MPI_Irecv(&buf[i], 1, MPI_INT, partner, 60 + i, MPI_COMM_WORLD, &rq[i]));
        go();
        /* completions may come one or two per call: print them by index */
        int seen[4] = {0, 0, 0, 0}, got = 0, outc, ind[4];
        char what[4][200];
        while (got < 2) {
            outc = -9;
            C(MPI_Waitsome(4, rq, &outc, ind, sts));
            for (int k = 0; k < outc && k < 4; k++) {
                seen[ind[k]] = 1;
                got++;
                snprintf(what[ind[k]], sizeof what[0], "got %d, %s", buf[ind[k]], stat_str(&sts[k], MPI_INT));
            }
            if (outc <= 0) { out("waitsome: outcount %s", countname(outc)); break; }
        }
        for (int i = 0; i < 4; i++)
            if (seen[i]) out("waitsome: index %d %s", i, what[i]);
        outc = -9;
        C(MPI_Testsome(4, rq, &outc, ind, sts));
        out("testsome before the sends: outcount %s; seen %d%d%d%d", countname(outc), seen[0], seen[1],
            seen[2], seen[3]);
        go();
        while (got < 4) {
            outc = -9;
            C(MPI_Testsome(4, rq, &outc, ind, sts));
            for (int k = 0; k < outc && k < 4; k++) {
                seen[ind[k]] = 2;
                got++;
                snprintf(what[ind[k]], sizeof what[0], "got %d, %s", buf[ind[k]], stat_str(&sts[k], MPI_INT));
            }
            if (outc == MPI_UNDEFINED) { out("testsome: undefined early"); break; }
        }
        for (int i = 0; i < 4; i++)
            if (seen[i] == 2) out("testsome: index %d %s", i, what[i]);
        outc = -9;
        C(MPI_Waitsome(4, rq, &outc, ind, sts));
        out("waitsome all null: outcount %s", countname(outc));
        outc = -9;
        C(MPI_Testsome(4, rq, &outc, ind, sts));
        out("testsome all null: outcount %s", countname(outc));
    } else { /* sender */
        wait_go();
        v = 530 + me;
        C(MPI_Send(&v, 1, MPI_INT, partner, 53, MPI_COMM_WORLD));
        wait_go();
        v = 510 + me;
        C(MPI_Send(&v, 1, MPI_INT, partner, 51, MPI_COMM_WORLD));
        wait_go();
        int w[4] = {600, 610, 620, 630};
        C(MPI_Send(&w[0], 1, MPI_INT, partner, 60, MPI_COMM_WORLD));
        C(MPI_Send(&w[2], 1, MPI_INT, partner, 62, MPI_COMM_WORLD));
        wait_go();
        C(MPI_Send(&w[3], 1, MPI_INT, partner, 63, MPI_COMM_WORLD));
        C(MPI_Send(&w[1], 1, MPI_INT, partner, 61, MPI_COMM_WORLD));
        out("sender done");
    }
}

static void probes(int low)
{
    MPI_Status st;
    int flag = -1;
    if (low) {
        int v[7] = {1, 2, 3, 4, 5, 6, 7};
        C(MPI_Send(v, 7, MPI_INT, partner, 41, MPI_COMM_WORLD));
        C(MPI_Send(v, 5, MPI_INT, partner, 42, MPI_COMM_WORLD));
        C(MPI_Send(v, 3, MPI_INT, partner, 43, MPI_COMM_WORLD));
        C(MPI_Send(v, 2, MPI_INT, partner, 44, MPI_COMM_WORLD));
        wait_go();
    } else {
        int r[8] = {0};
        poison(&st);
        C(MPI_Probe(partner, 41, MPI_COMM_WORLD, &st));
        out("probe: %s", stat_str(&st, MPI_INT));
        C(MPI_Recv(r, 8, MPI_INT, partner, 41, MPI_COMM_WORLD, &st));
        out("recv after probe: %d..%d %s", r[0], r[6], stat_str(&st, MPI_INT));
        poison(&st);
        flag = 0;
        while (!flag) C(MPI_Iprobe(partner, 42, MPI_COMM_WORLD, &flag, &st));
        out("iprobe: flag %d %s", flag, stat_str(&st, MPI_INT));
        C(MPI_Recv(r, 8, MPI_INT, partner, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        flag = -1;
        C(MPI_Iprobe(partner, 999, MPI_COMM_WORLD, &flag, &st));
        out("iprobe for a tag never sent: flag %d", flag);
        MPI_Message msg;
        poison(&st);
        C(MPI_Mprobe(partner, 43, MPI_COMM_WORLD, &msg, &st));
        out("mprobe: %s", stat_str(&st, MPI_INT));
        poison(&st);
        C(MPI_Mrecv(r, 8, MPI_INT, &msg, &st));
        out("mrecv: %d %d %d %s message null %d", r[0], r[1], r[2], stat_str(&st, MPI_INT),
            msg == MPI_MESSAGE_NULL);
        flag = 0;
        while (!flag) C(MPI_Improbe(partner, 44, MPI_COMM_WORLD, &flag, &msg, &st));
        out("improbe: flag %d %s", flag, stat_str(&st, MPI_INT));
        MPI_Request rq;
        C(MPI_Imrecv(r, 8, MPI_INT, &msg, &rq));
        poison(&st);
        C(MPI_Wait(&rq, &st));
        out("imrecv: %d %d %s", r[0], r[1], stat_str(&st, MPI_INT));
        go();
    }
}

static void cancel_and_free(int low)
{
    MPI_Request rq;
    MPI_Status st;
    int x = -1;
    C(MPI_Irecv(&x, 1, MPI_INT, partner, 777, MPI_COMM_WORLD, &rq));
    int flag = -1;
    C(MPI_Test(&rq, &flag, &st));
    out("test on a receive nobody sends: flag %d", flag);
    C(MPI_Cancel(&rq));
    poison(&st);
    C(MPI_Wait(&rq, &st));
    int canc = -1;
    MPI_Test_cancelled(&st, &canc);
    out("cancelled receive: cancelled %d x %d null %d", canc, x, rq == MPI_REQUEST_NULL);
    /* Request_free on an active send; the receive still gets it */
    int v = 99 + me, r = -1;
    if (low) {
        C(MPI_Isend(&v, 1, MPI_INT, partner, 78, MPI_COMM_WORLD, &rq));
        C(MPI_Request_free(&rq));
        out("request_free: null %d", rq == MPI_REQUEST_NULL);
        wait_go();
    } else {
        C(MPI_Recv(&r, 1, MPI_INT, partner, 78, MPI_COMM_WORLD, &st));
        out("received after request_free: %d %s", r, stat_str(&st, MPI_INT));
        go();
    }
}

static void derived(int low)
{
    /* every other int of 8, received contiguous; struct of int+double */
    MPI_Datatype vec, st2;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    struct pair { int i; double d; } ps[2] = {{me, me + 0.25}, {me + 1, me + 1.25}}, pr[2];
    int bl[2] = {1, 1};
    MPI_Aint dis[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, tmp;
    MPI_Type_create_struct(2, bl, dis, ty, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(struct pair), &st2);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&st2);
    int src[8], dst[8];
    for (int i = 0; i < 8; i++) { src[i] = me * 10 + i; dst[i] = -1; }
    MPI_Status st;
    memset(pr, 0, sizeof pr);
    if (low) {
        C(MPI_Send(src, 1, vec, partner, 81, MPI_COMM_WORLD));
        C(MPI_Send(ps, 2, st2, partner, 82, MPI_COMM_WORLD));
    } else {
        poison(&st);
        C(MPI_Recv(dst, 8, MPI_INT, partner, 81, MPI_COMM_WORLD, &st));
        out("vector as ints: %d %d %d %d %d, %s, in vectors: %s", dst[0], dst[1], dst[2], dst[3], dst[4],
            stat_str(&st, MPI_INT), stat_str(&st, vec));
        poison(&st);
        C(MPI_Recv(pr, 2, st2, partner, 82, MPI_COMM_WORLD, &st));
        out("struct: %d %.2f %d %.2f, %s", pr[0].i, pr[0].d, pr[1].i, pr[1].d, stat_str(&st, st2));
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&st2);
}

/* Messages above the eager limits (rendezvous), checked by sum. */
static void large(int low)
{
    const int n = 1 << 20; /* 4 MiB of ints */
    int *s = malloc(n * sizeof(int)), *r = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) s[i] = i ^ (me * 7919), r[i] = -1;
    MPI_Status st;
    poison(&st);
    if (low) {
        C(MPI_Send(s, n, MPI_INT, partner, 90, MPI_COMM_WORLD));
        C(MPI_Recv(r, n, MPI_INT, partner, 91, MPI_COMM_WORLD, &st));
    } else {
        C(MPI_Recv(r, n, MPI_INT, partner, 90, MPI_COMM_WORLD, &st));
        C(MPI_Send(s, n, MPI_INT, partner, 91, MPI_COMM_WORLD));
    }
    long sum = 0;
    for (int i = 0; i < n; i++) sum += r[i];
    out("large send/recv: sum %ld, %s", sum, stat_str(&st, MPI_INT));
    MPI_Request q[2];
    MPI_Status sts[2];
    C(MPI_Irecv(r, n, MPI_INT, partner, 92, MPI_COMM_WORLD, &q[0]));
    C(MPI_Isend(s, n / 2, MPI_INT, partner, 92, MPI_COMM_WORLD, &q[1]));
    poison(&sts[0]);
    C(MPI_Waitall(2, q, sts));
    sum = 0;
    for (int i = 0; i < n / 2; i++) sum += r[i];
    out("large isend/irecv: sum %ld, %s", sum, stat_str(&sts[0], MPI_INT));
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    partner = me ^ 1;
    int paired = partner < np;
    int low = me < partner;
    if (paired) basic(low);
    sendrecv();
    if (paired) {
        nonblocking(low);
        indices(low);
        probes(low);
        cancel_and_free(low);
        derived(low);
        large(low);
    }
    C(MPI_Barrier(MPI_COMM_WORLD));
    return finish();
}
