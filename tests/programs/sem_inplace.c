/*
 * sem_inplace.c — MPI_IN_PLACE in every collective that accepts it, blocking
 * and nonblocking, on MPI_COMM_WORLD and on a split communicator; each rank
 * reports its buffer afterwards.
 */
#include "semutil.h"

static void show(const char *what, const int *v, int n)
{
    char line[1024];
    int k = snprintf(line, sizeof line, "%s:", what);
    for (int i = 0; i < n && k < (int)sizeof line - 16; i++) k += snprintf(line + k, sizeof line - k, " %d", v[i]);
    out("%s", line);
}

static void suite(MPI_Comm comm, const char *cname)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int root = n - 1;
    int v[64], cnt[16], dis[16];
    char what[128];
#define W(s) (snprintf(what, sizeof what, "%s %s", cname, s), what)

    v[0] = r + 1; v[1] = 10 * r;
    C(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, comm));
    show(W("allreduce sum"), v, 2);
    double d = r * 1.5;
    C(MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, comm));
    out("%s allreduce max: %.2f", cname, d);

    v[0] = r * r; v[1] = -r;
    if (r == root) C(MPI_Reduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, root, comm));
    else C(MPI_Reduce(v, NULL, 2, MPI_INT, MPI_SUM, root, comm));
    if (r == root) show(W("reduce at root"), v, 2);

    for (int i = 0; i < 64; i++) v[i] = -1;
    v[r] = 100 + r;
    if (r == root) C(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, v, 1, MPI_INT, root, comm));
    else C(MPI_Gather(&v[r], 1, MPI_INT, NULL, 0, MPI_INT, root, comm));
    if (r == root) show(W("gather"), v, n);

    for (int i = 0; i < 64; i++) v[i] = -1;
    for (int i = 0, o = 0; i < n; i++) { cnt[i] = i + 1; dis[i] = o; o += i + 1; }
    for (int k = 0; k < cnt[r]; k++) v[dis[r] + k] = 200 + r;
    if (r == root) C(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, v, cnt, dis, MPI_INT, root, comm));
    else C(MPI_Gatherv(&v[dis[r]], cnt[r], MPI_INT, NULL, NULL, NULL, MPI_INT, root, comm));
    if (r == root) show(W("gatherv"), v, dis[n - 1] + cnt[n - 1]);

    for (int i = 0; i < 64; i++) v[i] = (r == root) ? 300 + i : -1;
    if (r == root) C(MPI_Scatter(v, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root, comm));
    else C(MPI_Scatter(NULL, 1, MPI_INT, v, 1, MPI_INT, root, comm));
    show(W("scatter"), v, r == root ? n : 1);

    for (int i = 0; i < 64; i++) v[i] = (r == root) ? 400 + i : -1;
    if (r == root) C(MPI_Scatterv(v, cnt, dis, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root, comm));
    else C(MPI_Scatterv(NULL, NULL, NULL, MPI_INT, v, cnt[r], MPI_INT, root, comm));
    show(W("scatterv"), v, r == root ? dis[n - 1] + cnt[n - 1] : cnt[r]);

    for (int i = 0; i < 64; i++) v[i] = -1;
    v[r] = 500 + r;
    C(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, MPI_INT, comm));
    show(W("allgather"), v, n);

    for (int i = 0; i < 64; i++) v[i] = -1;
    for (int k = 0; k < cnt[r]; k++) v[dis[r] + k] = 600 + r;
    C(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, cnt, dis, MPI_INT, comm));
    show(W("allgatherv"), v, dis[n - 1] + cnt[n - 1]);

    for (int i = 0; i < n; i++) v[i] = 1000 * r + i;
    C(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, MPI_INT, comm));
    show(W("alltoall"), v, n);

    for (int i = 0; i < n; i++) cnt[i] = 1, dis[i] = 2 * i;
    for (int i = 0; i < 2 * n; i++) v[i] = (i % 2) ? -7 : 2000 * r + i;
    C(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, v, cnt, dis, MPI_INT, comm));
    show(W("alltoallv"), v, 2 * n);

    for (int i = 0; i < n; i++) v[i] = r + i;
    C(MPI_Reduce_scatter_block(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, comm));
    show(W("reduce_scatter_block"), v, 1);

    int rc[16];
    for (int i = 0; i < n; i++) rc[i] = 1 + (i % 2);
    int tot = 0;
    for (int i = 0; i < n; i++) tot += rc[i];
    for (int i = 0; i < tot; i++) v[i] = r * 3 + i;
    C(MPI_Reduce_scatter(MPI_IN_PLACE, v, rc, MPI_INT, MPI_SUM, comm));
    show(W("reduce_scatter"), v, rc[r]);

    v[0] = r + 1;
    C(MPI_Scan(MPI_IN_PLACE, v, 1, MPI_INT, MPI_PROD, comm));
    show(W("scan prod"), v, 1);
    v[0] = r + 1;
    C(MPI_Exscan(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, comm));
    if (r > 0) show(W("exscan sum"), v, 1);

    MPI_Request rq;
    v[0] = r; v[1] = 1;
    C(MPI_Iallreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, comm, &rq));
    C(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    show(W("iallreduce"), v, 2);
    for (int i = 0; i < 64; i++) v[i] = -1;
    v[r] = 700 + r;
    if (r == root) C(MPI_Igather(MPI_IN_PLACE, 1, MPI_INT, v, 1, MPI_INT, root, comm, &rq));
    else C(MPI_Igather(&v[r], 1, MPI_INT, NULL, 0, MPI_INT, root, comm, &rq));
    C(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (r == root) show(W("igather"), v, n);
    for (int i = 0; i < 64; i++) v[i] = -1;
    v[r] = 800 + r;
    C(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, MPI_INT, comm, &rq));
    C(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    show(W("iallgather"), v, n);
    v[0] = r + 2;
    if (r == 0) C(MPI_Ireduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_MAX, 0, comm, &rq));
    else C(MPI_Ireduce(v, NULL, 1, MPI_INT, MPI_MAX, 0, comm, &rq));
    C(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (r == 0) show(W("ireduce max"), v, 1);
    v[0] = r + 1;
    C(MPI_Iscan(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, comm, &rq));
    C(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    show(W("iscan"), v, 1);
#undef W
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    suite(MPI_COMM_WORLD, "world");
    MPI_Comm half;
    C(MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &half));
    suite(half, "half");
    C(MPI_Comm_free(&half));
    return finish();
}
