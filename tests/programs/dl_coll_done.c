/* Deadlock (4 ranks): mismatched collectives where some ranks complete
 * theirs.  After an MPI_Allreduce (collective #1 on MPI_COMM_WORLD), rank 0
 * calls MPI_Bcast of 4 MB (collective #2) while ranks 1-3 call MPI_Reduce
 * of one int to root 0 (also #2).  The Bcast's messages are far above the
 * eager limit of both MPIs: rank 0 waits for receives that are never
 * posted.  Each non-root Reduce rank sends 4 bytes eagerly to its parent
 * and receives its children's eager 4 bytes: ranks 1-3 complete MPI_Reduce
 * and wait in MPI_Finalize for rank 0.  They arrived at #2 and left: the
 * verdict must not say they "never arrive". */
#include <mpi.h>
#include <stdlib.h>

#define NB (1 << 20)

int main(int argc, char **argv)
{
    int rank, one = 1, sum = 0, x = 0;
    int *big = calloc(NB, sizeof *big);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Bcast(big, NB, MPI_INT, 0, MPI_COMM_WORLD); /* L_BCAST */
    else
        MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); /* L_REDUCE */
    MPI_Finalize(); /* L_FIN */
    free(big);
    return 0;
}
