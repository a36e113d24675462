/* The communicators a program makes, as the program sees them: their
 * Fortran handles (MPI_Comm_c2f: Open MPI gives the lowest free index, as
 * for its context ids; not on MPICH) and MPI_Comm_compare against the world, for
 * MPI_Comm_dup, split, create, MPI_Cart_create and MPI_Dist_graph_create
 * with reorder where rank 0 gives the whole graph (the MPICH test suite's
 * topo/distgraph1), some freed between.  Same with and without the runtime:
 * a communicator the runtime keeps would shift them all. */
#include "semutil.h"

static void show_comm(const char *what, MPI_Comm c)
{
    int cmp = -1;
    if (c == MPI_COMM_NULL) {
        out("%s: MPI_COMM_NULL", what);
        return;
    }
    MPI_Comm_compare(MPI_COMM_WORLD, c, &cmp);
#ifdef OPEN_MPI
    out("%s: handle %d, compare %d", what, (int)MPI_Comm_c2f(c), cmp);
#else
    /* MPICH's handles come from a pool that reuses the last freed object
     * first, whatever the runtime does; its context ids are not visible */
    out("%s: compare %d", what, cmp);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    MPI_Comm dup, split, cre, cart, g1, g2;
    MPI_Group wg;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    show_comm("dup", dup);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &split);
    show_comm("split", split);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_create(MPI_COMM_WORLD, wg, &cre);
    show_comm("create", cre);
    MPI_Group_free(&wg);
    MPI_Comm_free(&split);
    int dims[1] = {np}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    show_comm("cart", cart);
    int *src = malloc(np * sizeof *src), *deg = malloc(np * sizeof *deg), *dst = malloc(np * sizeof *dst);
    for (int i = 0; i < np; i++) {
        src[i] = i;
        deg[i] = 1;
        dst[i] = (i + 1) % np;
    }
    /* rank 0 gives the whole ring, the others nothing */
    MPI_Dist_graph_create(MPI_COMM_WORLD, me == 0 ? np : 0, src, deg, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &g1);
    show_comm("dist graph (whole at rank 0)", g1);
    int in = -1, outd = -1, w = -1;
    MPI_Dist_graph_neighbors_count(g1, &in, &outd, &w);
    out("dist graph neighbours: %d in, %d out", in, outd);
    MPI_Comm_free(&dup);
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src[me], &deg[me], &dst[me], MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &g2);
    show_comm("dist graph (own edges)", g2);
    MPI_Comm_free(&g1);
    MPI_Comm_free(&g2);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&cre);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    show_comm("dup after frees", dup);
    MPI_Comm_free(&dup);
    free(src);
    free(deg);
    free(dst);
    return finish();
}
