/*
 * sem_bottom.c — MPI_BOTTOM with datatypes built from absolute addresses
 * (MPI_Get_address): struct and hindexed types, in blocking, nonblocking,
 * persistent (addresses read at each start), Sendrecv, collectives, Pack.
 */
#include "semutil.h"

/* Separately allocated pieces of one logical record. */
struct rec {
    int *a;      /* 1 int */
    double *b;   /* 3 doubles */
    char *c;     /* 5 chars */
};

static struct rec new_rec(void)
{
    struct rec r = {malloc(sizeof(int)), malloc(3 * sizeof(double)), malloc(5)};
    return r;
}
static void fill(struct rec r, int seed)
{
    *r.a = seed;
    for (int i = 0; i < 3; i++) r.b[i] = seed + i / 4.0;
    for (int i = 0; i < 5; i++) r.c[i] = 'a' + (seed + i) % 26;
}
static void clear(struct rec r)
{
    *r.a = -1;
    for (int i = 0; i < 3; i++) r.b[i] = -1;
    memset(r.c, '.', 5);
}
static const char *show(struct rec r)
{
    static char buf[4][128];
    static int k;
    char *s = buf[k++ & 3];
    snprintf(s, sizeof buf[0], "a=%d b=%.2f,%.2f,%.2f c=%.5s", *r.a, r.b[0], r.b[1], r.b[2], r.c);
    return s;
}
/* A struct type whose displacements are the absolute addresses of r. */
static MPI_Datatype abs_type(struct rec r)
{
    int bl[3] = {1, 3, 5};
    MPI_Aint d[3];
    MPI_Datatype t[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, ty;
    MPI_Get_address(r.a, &d[0]);
    MPI_Get_address(r.b, &d[1]);
    MPI_Get_address(r.c, &d[2]);
    C(MPI_Type_create_struct(3, bl, d, t, &ty));
    C(MPI_Type_commit(&ty));
    return ty;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    int partner = me ^ 1;
    int paired = partner < np, low = me < partner;
    MPI_Status st;
    struct rec s = new_rec(), r = new_rec();
    MPI_Datatype ts = abs_type(s), tr = abs_type(r);
    int size;
    MPI_Type_size(ts, &size);
    out("struct type size %d", size);

    if (paired) {
        /* blocking */
        fill(s, 10 + me);
        clear(r);
        poison(&st);
        if (low) {
            C(MPI_Send(MPI_BOTTOM, 1, ts, partner, 1, MPI_COMM_WORLD));
            C(MPI_Recv(MPI_BOTTOM, 1, tr, partner, 1, MPI_COMM_WORLD, &st));
        } else {
            C(MPI_Recv(MPI_BOTTOM, 1, tr, partner, 1, MPI_COMM_WORLD, &st));
            C(MPI_Send(MPI_BOTTOM, 1, ts, partner, 1, MPI_COMM_WORLD));
        }
        out("send/recv bottom: %s; %s; in bytes %s", show(r), stat_str(&st, tr), stat_str(&st, MPI_BYTE));

        /* received as plain bytes, then unpacked */
        char raw[256];
        int pos = 0;
        fill(s, 20 + me);
        clear(r);
        if (low) C(MPI_Send(MPI_BOTTOM, 1, ts, partner, 2, MPI_COMM_WORLD));
        else {
            C(MPI_Recv(raw, sizeof raw, MPI_PACKED, partner, 2, MPI_COMM_WORLD, &st));
            int n = 0;
            MPI_Get_count(&st, MPI_PACKED, &n);
            C(MPI_Unpack(raw, sizeof raw, &pos, MPI_BOTTOM, 1, tr, MPI_COMM_WORLD));
            out("packed %d bytes, unpacked %d: %s", n, pos, show(r));
        }

        /* nonblocking */
        fill(s, 30 + me);
        clear(r);
        MPI_Request q[2];
        C(MPI_Irecv(MPI_BOTTOM, 1, tr, partner, 3, MPI_COMM_WORLD, &q[0]));
        C(MPI_Isend(MPI_BOTTOM, 1, ts, partner, 3, MPI_COMM_WORLD, &q[1]));
        MPI_Status sts[2];
        poison(&sts[0]);
        C(MPI_Waitall(2, q, sts));
        out("isend/irecv bottom: %s; %s", show(r), stat_str(&sts[0], tr));

        /* Sendrecv */
        fill(s, 40 + me);
        clear(r);
        poison(&st);
        C(MPI_Sendrecv(MPI_BOTTOM, 1, ts, partner, 4, MPI_BOTTOM, 1, tr, partner, 4, MPI_COMM_WORLD, &st));
        out("sendrecv bottom: %s; %s", show(r), stat_str(&st, tr));

        /* persistent: the content is read at each start */
        MPI_Request p[2];
        C(MPI_Send_init(MPI_BOTTOM, 1, ts, partner, 5, MPI_COMM_WORLD, &p[0]));
        C(MPI_Recv_init(MPI_BOTTOM, 1, tr, partner, 5, MPI_COMM_WORLD, &p[1]));
        for (int it = 0; it < 3; it++) {
            fill(s, 50 + 10 * it + me);
            clear(r);
            C(MPI_Startall(2, p));
            poison(&sts[1]);
            C(MPI_Waitall(2, p, sts));
            out("persistent bottom %d: %s; %s", it, show(r), stat_str(&sts[1], tr));
        }
        C(MPI_Request_free(&p[0]));
        C(MPI_Request_free(&p[1]));

        /* Pack from MPI_BOTTOM, send packed, receive into bottom */
        fill(s, 60 + me);
        clear(r);
        pos = 0;
        C(MPI_Pack(MPI_BOTTOM, 1, ts, raw, sizeof raw, &pos, MPI_COMM_WORLD));
        if (low) {
            C(MPI_Send(raw, pos, MPI_PACKED, partner, 6, MPI_COMM_WORLD));
        } else {
            C(MPI_Recv(MPI_BOTTOM, 1, tr, partner, 6, MPI_COMM_WORLD, &st));
            out("packed then received in bottom: %s; %s", show(r), stat_str(&st, tr));
        }
    }

    /* hindexed of absolute addresses: 3 separate int arrays */
    int *x = malloc(2 * sizeof(int)), *y = malloc(3 * sizeof(int)), *z = malloc(1 * sizeof(int));
    int bl[3] = {2, 3, 1};
    MPI_Aint d[3];
    MPI_Get_address(x, &d[0]);
    MPI_Get_address(y, &d[1]);
    MPI_Get_address(z, &d[2]);
    MPI_Datatype hi;
    C(MPI_Type_create_hindexed(3, bl, d, MPI_INT, &hi));
    C(MPI_Type_commit(&hi));
    for (int i = 0; i < 2; i++) x[i] = me * 100 + i;
    for (int i = 0; i < 3; i++) y[i] = me * 100 + 10 + i;
    z[0] = me * 100 + 20;
    /* Bcast into MPI_BOTTOM from the last rank */
    C(MPI_Bcast(MPI_BOTTOM, 1, hi, np - 1, MPI_COMM_WORLD));
    out("bcast bottom: %d %d | %d %d %d | %d", x[0], x[1], y[0], y[1], y[2], z[0]);
    /* Gather from bottom to a contiguous buffer at rank 0 */
    for (int i = 0; i < 2; i++) x[i] = me * 100 + i;
    for (int i = 0; i < 3; i++) y[i] = me * 100 + 10 + i;
    z[0] = me * 100 + 20;
    int *all = calloc(6 * np, sizeof(int));
    C(MPI_Gather(MPI_BOTTOM, 1, hi, all, 6, MPI_INT, 0, MPI_COMM_WORLD));
    if (me == 0)
        for (int i = 0; i < np; i++)
            out("gather bottom from %d: %d %d %d %d %d %d", i, all[6 * i], all[6 * i + 1], all[6 * i + 2],
                all[6 * i + 3], all[6 * i + 4], all[6 * i + 5]);
    /* Allgather from bottom; Scatter into bottom */
    int *ag = calloc(6 * np, sizeof(int));
    C(MPI_Allgather(MPI_BOTTOM, 1, hi, ag, 6, MPI_INT, MPI_COMM_WORLD));
    out("allgather bottom: from 0: %d %d %d %d %d %d, from last: %d", ag[0], ag[1], ag[2], ag[3], ag[4], ag[5],
        ag[6 * (np - 1)]);
    for (int i = 0; i < 6 * np; i++) all[i] = 1000 + i;
    C(MPI_Scatter(all, 6, MPI_INT, MPI_BOTTOM, 1, hi, 0, MPI_COMM_WORLD));
    out("scatter into bottom: %d %d | %d %d %d | %d", x[0], x[1], y[0], y[1], y[2], z[0]);
    free(ag);
    free(all);
    MPI_Type_free(&hi);
    MPI_Type_free(&ts);
    MPI_Type_free(&tr);
    return finish();
}
