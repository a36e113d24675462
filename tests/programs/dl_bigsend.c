/* Deadlock (2 ranks): both send 64 MB to the other first (rendezvous: a
 * send that large completes only when it is received). */
#include <mpi.h>
#include <stdlib.h>

#define N (64 << 20)

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *a = calloc(N, 1), *b = calloc(N, 1);
    int other = 1 - rank;
    MPI_Send(a, N, MPI_CHAR, other, 8, MPI_COMM_WORLD); /* L_SEND */
    MPI_Recv(b, N, MPI_CHAR, other, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
