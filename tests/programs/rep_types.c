/* rep_types: rank 0 sends rank 1 one message per kind of datatype —
 * vector, indexed, struct, resized (a double with a 32-byte extent),
 * hindexed_block, a dup of MPI_FLOAT, a vector named "halo column" with
 * MPI_Type_set_name, MPI_BYTE, MPI_PACKED (what MPI_Pack wrote), a count-0
 * message and a count-0 MPI_Isend of a derived type received by an
 * MPI_Irecv of 5.  Prints EXPECT messages=N bytes=B (sum of count x
 * MPI_Type_size as sent). */
#include <mpi.h>
#include <stdio.h>

enum { NT = 7 };

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static double buf[4096];
    static char pk[8192];
    MPI_Datatype t[NT], types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_vector(4, 3, 10, MPI_DOUBLE, &t[0]);
    int bl[3] = {1, 2, 3}, dp[3] = {0, 5, 20};
    MPI_Type_indexed(3, bl, dp, MPI_DOUBLE, &t[1]);
    int sbl[2] = {3, 2};
    MPI_Aint sdp[2] = {0, 16}, hd[3] = {0, 64, 256};
    MPI_Type_create_struct(2, sbl, sdp, types, &t[2]);
    MPI_Type_create_resized(MPI_DOUBLE, 0, 32, &t[3]);
    MPI_Type_create_hindexed_block(3, 2, hd, MPI_DOUBLE, &t[4]);
    MPI_Type_dup(MPI_FLOAT, &t[5]);
    MPI_Type_vector(8, 1, 16, MPI_DOUBLE, &t[6]);
    MPI_Type_set_name(t[6], "halo column");
    int count[NT] = {2, 3, 4, 5, 2, 7, 3};
    for (int k = 0; k < NT; k++) MPI_Type_commit(&t[k]);
    if (rank == 0) {
        long bytes = 0;
        int msgs = 0, pos = 0, sz;
        for (int k = 0; k < NT; k++) {
            MPI_Type_size(t[k], &sz);
            MPI_Send(buf, count[k], t[k], 1, k, MPI_COMM_WORLD);
            bytes += (long)sz * count[k];
            msgs++;
        }
        MPI_Send(buf, 0, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD);
        msgs++;
        MPI_Send(pk, 100, MPI_BYTE, 1, 11, MPI_COMM_WORLD);
        bytes += 100, msgs++;
        MPI_Pack(buf, 7, MPI_DOUBLE, pk, sizeof pk, &pos, MPI_COMM_WORLD);
        MPI_Pack(buf, 3, MPI_INT, pk, sizeof pk, &pos, MPI_COMM_WORLD);
        MPI_Send(pk, pos, MPI_PACKED, 1, 12, MPI_COMM_WORLD);
        bytes += pos, msgs++;
        MPI_Request r;
        MPI_Isend(buf, 0, t[0], 1, 14, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        msgs++;
        printf("EXPECT messages=%d bytes=%ld\n", msgs, bytes);
    } else if (rank == 1) {
        static double rb[8192];
        for (int k = 0; k < NT; k++) MPI_Recv(rb, count[k], t[k], 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(rb, 0, MPI_DOUBLE, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(rb, 100, MPI_BYTE, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(pk, sizeof pk, MPI_PACKED, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request r;
        MPI_Irecv(rb, 5, t[0], 0, 14, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    for (int k = 0; k < NT; k++) MPI_Type_free(&t[k]);
    MPI_Finalize();
    return 0;
}
