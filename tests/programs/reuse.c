/*
 * reuse.c — handles that come back: communicators and datatypes freed and
 * created again (MPI libraries hand out the same handle values), so a tool
 * that caches by handle must not describe a call with a dead object's
 * membership or size.  4 ranks or more.
 *   for i in 0..7: comm = split of world, reversed when i is even, in order
 *     when odd; rank 0 sends 1 int to comm rank 1 with tag 100+i (world rank
 *     size-2 when reversed, 1 in order); the receiver takes it with
 *     ANY_SOURCE; comm freed.
 *   for j in 0..5: rank 0 sends 1 element of contiguous(n_j ints) to rank 1
 *     with tag 200+j, n = 1 5 2 7 3 6; the type is freed after each send.
 * Prints whether handles were reused (so the test knows it tested something).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 4) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm prev = MPI_COMM_NULL;
    int comm_reused = 0;
    for (int i = 0; i < 8; i++) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, 0, i % 2 == 0 ? np - me : me, &c);
        if (i > 0 && c == prev) comm_reused++;
        prev = c;
        int cr, v = i, src0;
        MPI_Comm_rank(c, &cr);
        src0 = i % 2 == 0 ? np - 1 : 0; /* comm rank of world rank 0 */
        if (me == 0) MPI_Send(&v, 1, MPI_INT, 1, 100 + i, c);
        if (cr == 1) {
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 100 + i, c, &st);
            if (st.MPI_SOURCE != src0 || v != i) printf("comm %d: wrong message\n", i);
        }
        MPI_Comm_free(&c);
    }
    int n[6] = {1, 5, 2, 7, 3, 6}, buf[8] = {0}, type_reused = 0;
    MPI_Datatype prevt = MPI_DATATYPE_NULL;
    for (int j = 0; j < 6; j++) {
        MPI_Datatype t;
        MPI_Type_contiguous(n[j], MPI_INT, &t);
        MPI_Type_commit(&t);
        if (j > 0 && t == prevt) type_reused++;
        prevt = t;
        if (me == 0) MPI_Send(buf, 1, t, 1, 200 + j, MPI_COMM_WORLD);
        if (me == 1) MPI_Recv(buf, 8, MPI_INT, 0, 200 + j, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Type_free(&t);
    }
    if (me == 0) printf("reuse: comm handles reused %d times, type handles %d times\n", comm_reused, type_reused);
    MPI_Finalize();
    return 0;
}
