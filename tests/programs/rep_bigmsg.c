/* rep_bigmsg.c -- messages above 2 GiB (tests/cases/report_bigmsg.sh), 2
 * ranks: rank 0 sends rank 1 one element of a contiguous datatype of 2.5 GiB
 * twice (MPI_Send, tags 1 and 2); rank 1 receives the first by MPI_Irecv +
 * MPI_Wait, the second by MPI_Recv, both into one buffer.  Only rank 1's
 * buffer is written (rank 0's is never touched: its pages stay unallocated).
 * Rank 1 prints what MPI_Get_count (MPI_BYTE, as MPI_Count through
 * MPI_Get_elements_x) says of each message:
 *   got TAG BYTES
 * Prints SKIP unless run on 2 ranks, or when the buffer cannot be allocated. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t half = (size_t)1 << 29, total = 5 * half;   /* 2.5 GiB */
    char *buf = malloc(total);
    int ok = buf != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (size != 2 || !all) {
        if (rank == 0) printf("SKIP: rep_bigmsg wants 2 ranks and 2.5 GiB\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Datatype chunk, big;
    MPI_Type_contiguous((int)half, MPI_BYTE, &chunk);
    MPI_Type_contiguous(5, chunk, &big);
    MPI_Type_commit(&big);
    if (rank == 0) {
        MPI_Send(buf, 1, big, 1, 1, MPI_COMM_WORLD);
        MPI_Send(buf, 1, big, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Request q;
        MPI_Status st;
        MPI_Count n = 0;
        MPI_Irecv(buf, 1, big, 0, 1, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, &st);
        MPI_Get_elements_x(&st, MPI_BYTE, &n);
        printf("got 1 %lld\n", (long long)n);
        MPI_Recv(buf, 1, big, 0, 2, MPI_COMM_WORLD, &st);
        MPI_Get_elements_x(&st, MPI_BYTE, &n);
        printf("got 2 %lld\n", (long long)n);
        fflush(stdout);
    }
    MPI_Type_free(&big);
    MPI_Type_free(&chunk);
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("rep_bigmsg: done\n");
    MPI_Finalize();
    return 0;
}
