/* Deadlock (4 ranks): MPI_Intercomm_create between the even and the odd
 * ranks (MPI_Comm_split, local leaders world 0 and 1), every rank inside,
 * but the odd side names world rank 2 as the remote leader: rank 2 is no
 * leader.  Rank 0 waits for rank 1, rank 1 for rank 2, rank 2 (and 3) for
 * its local leader. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Comm local, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
    int remote = rank % 2 ? 2 : 1; /* the odd side should name 0 */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote, 7, &inter); /* L_ICC */
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
