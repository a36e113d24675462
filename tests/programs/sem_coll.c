/*
 * sem_coll.c — collectives and communicators: results of the collectives
 * (blocking and nonblocking, user-defined non-commutative operation, MINLOC),
 * Comm_split/dup/create/compare, groups, Cartesian and distributed-graph
 * topologies, an inter-communicator (p2p, collective, merge), attribute
 * caching with copy and delete callbacks.
 */
#include "semutil.h"

static void showv(const char *what, const int *v, int n)
{
    char line[1024];
    int k = snprintf(line, sizeof line, "%s:", what);
    for (int i = 0; i < n && k < (int)sizeof line - 16; i++) k += snprintf(line + k, sizeof line - k, " %d", v[i]);
    out("%s", line);
}

/* 2x2 integer matrix product: associative, not commutative. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static int copies, deletes;
static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out_, int *flag)
{
    copies++;
    *(void **)out_ = (void *)((long)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    int v[64], w[64], cnt[16], dis[16], rcnt[16], rdis[16];
    MPI_Request rq[4];

    for (int root = 0; root < np; root++) {
        v[0] = me == root ? 1000 + root : -1;
        C(MPI_Bcast(v, 1, MPI_INT, root, MPI_COMM_WORLD));
        out("bcast from %d: %d", root, v[0]);
    }
    v[0] = me + 1; v[1] = me * me;
    C(MPI_Reduce(v, w, 2, MPI_INT, MPI_SUM, 1 % np, MPI_COMM_WORLD));
    if (me == 1 % np) showv("reduce sum", w, 2);
    struct { int val, rank; } mi = {(me * 7) % 3, me}, mo;
    C(MPI_Allreduce(&mi, &mo, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
    out("minloc: %d at %d", mo.val, mo.rank);
    C(MPI_Allreduce(&mi, &mo, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
    out("maxloc: %d at %d", mo.val, mo.rank);

    MPI_Op op;
    C(MPI_Op_create(matmul, 0, &op));
    int r4[4];
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    int m2[4] = {me + 1, 1, 1, 0};
    C(MPI_Allreduce(m2, r4, 1, mat, op, MPI_COMM_WORLD));
    showv("user non-commutative allreduce", r4, 4);
    C(MPI_Reduce(m2, r4, 1, mat, op, 0, MPI_COMM_WORLD));
    if (me == 0) showv("user non-commutative reduce", r4, 4);
    C(MPI_Scan(m2, r4, 1, mat, op, MPI_COMM_WORLD));
    showv("user scan", r4, 4);
    int commute = -1;
    C(MPI_Op_commutative(op, &commute));
    out("op commutative %d", commute);

    for (int i = 0; i < np; i++) v[i] = me * 100 + i;
    C(MPI_Alltoall(v, 1, MPI_INT, w, 1, MPI_INT, MPI_COMM_WORLD));
    showv("alltoall", w, np);
    int so = 0, ro = 0;
    for (int i = 0; i < np; i++) {
        cnt[i] = i + 1; dis[i] = so; so += cnt[i];
        rcnt[i] = me + 1; rdis[i] = ro; ro += rcnt[i];
    }
    for (int i = 0; i < so; i++) v[i] = me * 100 + i;
    C(MPI_Alltoallv(v, cnt, dis, MPI_INT, w, rcnt, rdis, MPI_INT, MPI_COMM_WORLD));
    showv("alltoallv", w, ro);
    for (int i = 0; i < np; i++) rcnt[i] = i + 1, rdis[i] = i == 0 ? 0 : rdis[i - 1] + rcnt[i - 1];
    for (int i = 0; i <= me; i++) v[i] = me;
    C(MPI_Allgatherv(v, me + 1, MPI_INT, w, rcnt, rdis, MPI_INT, MPI_COMM_WORLD));
    showv("allgatherv", w, rdis[np - 1] + rcnt[np - 1]);
    v[0] = me + 1;
    C(MPI_Exscan(v, w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (me > 0) showv("exscan", w, 1);
    for (int i = 0; i < np; i++) v[i] = me + i;
    for (int i = 0; i < np; i++) cnt[i] = 1;
    C(MPI_Reduce_scatter(v, w, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    showv("reduce_scatter", w, 1);
    C(MPI_Barrier(MPI_COMM_WORLD));

    /* nonblocking collectives completed together */
    int ib = me == 0 ? 77 : -1, ia = me, iao = -1, ial[16];
    C(MPI_Ibcast(&ib, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]));
    C(MPI_Iallreduce(&ia, &iao, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq[1]));
    C(MPI_Iallgather(&ia, 1, MPI_INT, ial, 1, MPI_INT, MPI_COMM_WORLD, &rq[2]));
    C(MPI_Ibarrier(MPI_COMM_WORLD, &rq[3]));
    MPI_Status sts[4];
    C(MPI_Waitall(4, rq, sts));
    out("nonblocking: bcast %d allreduce %d allgather first %d last %d", ib, iao, ial[0], ial[np - 1]);

    /* communicators and groups */
    MPI_Comm split, dup, sub;
    C(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &split));
    int sr, ss;
    MPI_Comm_rank(split, &sr);
    MPI_Comm_size(split, &ss);
    v[0] = me;
    C(MPI_Allreduce(v, w, 1, MPI_INT, MPI_SUM, split));
    out("split: rank %d of %d, sum of world ranks %d", sr, ss, w[0]);
    C(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int res = -1;
    C(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    out("compare world dup: %s", res == MPI_IDENT ? "IDENT" : res == MPI_CONGRUENT ? "CONGRUENT"
                                 : res == MPI_SIMILAR ? "SIMILAR" : "UNEQUAL");
    MPI_Group wg, g;
    C(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int incl[16], n2 = 0;
    for (int i = np - 1; i >= 0; i -= 2) incl[n2++] = i;
    C(MPI_Group_incl(wg, n2, incl, &g));
    C(MPI_Comm_create(MPI_COMM_WORLD, g, &sub));
    if (sub != MPI_COMM_NULL) {
        int r;
        MPI_Comm_rank(sub, &r);
        out("comm_create: rank %d in the sub communicator", r);
        C(MPI_Comm_free(&sub));
    } else {
        out("comm_create: not a member");
    }
    int tr[16], from[16];
    for (int i = 0; i < np; i++) from[i] = i;
    C(MPI_Group_translate_ranks(wg, np, from, g, tr));
    char line[256];
    int k = 0;
    for (int i = 0; i < np; i++) k += snprintf(line + k, sizeof line - k, " %s", rankname(tr[i]));
    out("translate world -> group:%s", line);
    C(MPI_Group_free(&g));
    C(MPI_Group_free(&wg));

    /* attributes with copy and delete callbacks */
    int key;
    C(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
    C(MPI_Comm_set_attr(dup, key, (void *)40L));
    MPI_Comm dup2;
    C(MPI_Comm_dup(dup, &dup2));
    void *val;
    int found = 0;
    C(MPI_Comm_get_attr(dup2, key, &val, &found));
    out("attribute on the dup of the dup: found %d value %ld; copies %d", found, (long)val, copies);
    C(MPI_Comm_free(&dup2));
    C(MPI_Comm_delete_attr(dup, key));
    out("deletes %d", deletes);
    C(MPI_Comm_free_keyval(&key));
    C(MPI_Comm_free(&dup));

    /* Cartesian */
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    C(MPI_Dims_create(np, 2, dims));
    MPI_Comm cart;
    C(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    int coords[2], cr, src, dst;
    MPI_Comm_rank(cart, &cr);
    C(MPI_Cart_coords(cart, cr, 2, coords));
    C(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    int sv = cr, rv = -1;
    C(MPI_Sendrecv(&sv, 1, MPI_INT, dst, 5, &rv, 1, MPI_INT, src, 5, cart, MPI_STATUS_IGNORE));
    out("cart %dx%d: coords %d,%d shift %s->%s got %d", dims[0], dims[1], coords[0], coords[1],
        rankname(src), rankname(dst), rv);
    C(MPI_Comm_free(&cart));

    /* distributed graph: everyone talks to the next two ranks */
    int dsts[2] = {(me + 1) % np, (me + 2) % np}, srcs[2] = {(me + np - 1) % np, (me + np - 2) % np};
    MPI_Comm graph;
    C(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts, MPI_UNWEIGHTED,
                                     MPI_INFO_NULL, 0, &graph));
    int ga[2] = {me * 10, me * 10 + 1}, gb[2] = {-1, -1};
    C(MPI_Neighbor_alltoall(ga, 1, MPI_INT, gb, 1, MPI_INT, graph));
    out("dist graph neighbor_alltoall: %d %d", gb[0], gb[1]);
    C(MPI_Comm_free(&graph));

    /* inter-communicator between the two halves of split */
    if (np >= 2) {
        MPI_Comm inter, merged;
        /* the leader of each half of split is its highest world rank (key -me) */
        int hi_even = (np - 1) % 2 == 0 ? np - 1 : np - 2, hi_odd = (np - 1) % 2 == 1 ? np - 1 : np - 2;
        int remote_leader = me % 2 == 0 ? hi_odd : hi_even;
        C(MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, remote_leader, 99, &inter));
        int rs = -1, flag = -1;
        C(MPI_Comm_remote_size(inter, &rs));
        C(MPI_Comm_test_inter(inter, &flag));
        int x = me, y = -1;
        C(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter));
        out("intercomm: inter %d remote size %d, allreduce gives the remote sum %d", flag, rs, y);
        int ir;
        MPI_Comm_rank(inter, &ir);
        if (ir == 0) {
            int z = -1;
            MPI_Status st;
            C(MPI_Sendrecv(&x, 1, MPI_INT, 0, 7, &z, 1, MPI_INT, 0, 7, inter, &st));
            out("intercomm sendrecv with remote 0: got %d %s", z, stat_str(&st, MPI_INT));
        }
        C(MPI_Intercomm_merge(inter, me % 2, &merged));
        int mr;
        MPI_Comm_rank(merged, &mr);
        out("merged rank %d", mr);
        C(MPI_Comm_free(&merged));
        C(MPI_Comm_free(&inter));
    }
    C(MPI_Comm_free(&split));
    C(MPI_Op_free(&op));
    MPI_Type_free(&mat);
    return finish();
}
