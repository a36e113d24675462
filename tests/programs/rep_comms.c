/*
 * rep_comms.c — communicators with equal members for `mpilens report`
 * (tests/cases/report_comms.sh).  Needs an even number of ranks >= 2.
 *
 * Each pair of communicators below has the same members; a message goes on
 * each with the same tag but another size, and the receiver takes them in
 * the opposite order, so a matcher that confuses the two pairs them wrong
 * (size mismatch).  Communicators: two MPI_Comm_idup of the world; two
 * MPI_Comm_create_group of ranks 0-1 (called by those two only); two
 * MPI_Comm_create_from_group (MPI-4 with sessions, where the MPI has them).
 * After the group creations, MPI_Comm_split with MPI_UNDEFINED on some ranks
 * and MPI_Comm_create (non-members get MPI_COMM_NULL), an MPI_Comm_dup of
 * the world must still be one communicator on every rank: messages between
 * all pairs and an MPI_Allreduce on it.
 *
 * Rank 0 prints "EXPECT messages=<n> bytes=<b> collectives=<c>".
 */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overflow" /* MPI_STATUSES_IGNORE */

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static long long msgs, bytes, colls;

/* even rank sends 4 then 8 bytes on a then b; odd rank receives b then a */
static void cross(MPI_Comm a, MPI_Comm b, int peer, int sender)
{
    int v[2] = {1, 2};
    if (sender) {
        MPI_Request r[2];
        MPI_Isend(v, 1, MPI_INT, peer, 5, a, &r[0]);
        MPI_Isend(v, 2, MPI_INT, peer, 5, b, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        msgs += 2;
        bytes += 12;
    } else {
        int w[2];
        MPI_Status st;
        int n = 0;
        MPI_Recv(w, 2, MPI_INT, peer, 5, b, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        if (n != 2) fprintf(stderr, "rep_comms: got %d ints on b\n", n);
        MPI_Recv(w, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, a, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        if (n != 1) fprintf(stderr, "rep_comms: got %d ints on a\n", n);
    }
}

static void world_dup_check(int rank, int size)
{
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    int v = rank, s = 0;
    /* a ring on the duplicate */
    MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 9, &s, 1, MPI_INT, (rank + size - 1) % size, 9, d,
                 MPI_STATUS_IGNORE);
    msgs++;
    bytes += 4;
    MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, d);
    colls++;
    MPI_Comm_free(&d);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1, sender = !(rank & 1);

    /* 1: MPI_Comm_idup, twice */
    MPI_Comm ia, ib;
    MPI_Request r[2];
    MPI_Comm_idup(MPI_COMM_WORLD, &ia, &r[0]);
    MPI_Comm_idup(MPI_COMM_WORLD, &ib, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    cross(ia, ib, peer, sender);

    /* 2: MPI_Comm_create_group of ranks 0-1, twice, by those two only */
    MPI_Group wg, g01;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int first[2] = {0, 1};
    MPI_Group_incl(wg, 2, first, &g01);
    if (rank < 2) {
        MPI_Comm ga, gb;
        MPI_Comm_create_group(MPI_COMM_WORLD, g01, 1, &ga);
        MPI_Comm_create_group(MPI_COMM_WORLD, g01, 2, &gb);
        cross(ga, gb, peer, sender);
        MPI_Comm_free(&ga);
        MPI_Comm_free(&gb);
    }
    world_dup_check(rank, size);

    /* 3: split with MPI_UNDEFINED, create with non-members */
    MPI_Comm sp, cr;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 0, rank, &sp);
    if (sp != MPI_COMM_NULL) MPI_Comm_free(&sp);
    MPI_Comm_create(MPI_COMM_WORLD, g01, &cr);
    if (cr != MPI_COMM_NULL) MPI_Comm_free(&cr);
    world_dup_check(rank, size);

    /* 4: MPI_Comm_create_from_group (MPI-4 sessions) */
#if MPI_VERSION >= 4
    MPI_Session ses;
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses) == MPI_SUCCESS) {
        MPI_Group sg;
        MPI_Comm fa, fb;
        MPI_Group_from_session_pset(ses, "mpi://WORLD", &sg);
        MPI_Comm_create_from_group(sg, "rep_comms.a", MPI_INFO_NULL, MPI_ERRORS_RETURN, &fa);
        MPI_Comm_create_from_group(sg, "rep_comms.b", MPI_INFO_NULL, MPI_ERRORS_RETURN, &fb);
        cross(fa, fb, peer, sender);
        MPI_Comm_free(&fa);
        MPI_Comm_free(&fb);
        MPI_Group_free(&sg);
        MPI_Session_finalize(&ses);
    }
#endif

    cross(ib, ia, peer, sender);
    MPI_Comm_free(&ia);
    MPI_Comm_free(&ib);
    MPI_Group_free(&g01);
    MPI_Group_free(&wg);

    long long loc[2] = {msgs, bytes}, sum[2];
    MPI_Reduce(loc, sum, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    colls++;
    if (rank == 0) printf("EXPECT messages=%lld bytes=%lld collectives=%lld\n", sum[0], sum[1], colls);
    MPI_Finalize();
    return 0;
}
