/* rep_spawn: the job (2 ranks) starts argv[1] more processes of itself with
 * MPI_Comm_spawn; parent rank 0 sends each child an int over the
 * inter-communicator, every child sends it back + 1 to parent rank 1, and
 * all meet in a barrier on it.  The parents also exchange one message on
 * MPI_COMM_WORLD.  Prints what each side got (one line per process). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parent == MPI_COMM_NULL) {
        int nchild = argc > 1 ? atoi(argv[1]) : 2, errs[64], x = 7, sum = 0;
        MPI_Comm inter;
        if (nchild < 1 || nchild > 64) nchild = 2;
        if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, nchild, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        for (int c = 0; c < nchild; c++) {
            if (rank == 0) MPI_Send(&x, 1, MPI_INT, c, 2, inter);
            if (rank == 1) {
                int y;
                MPI_Recv(&y, 1, MPI_INT, c, 3, inter, MPI_STATUS_IGNORE);
                sum += y;
            }
        }
        MPI_Barrier(inter);
        MPI_Comm_disconnect(&inter);
        if (rank == 1) printf("parent 1 got %d from %d children\n", sum, nchild);
        else printf("parent %d done\n", rank);
    } else {
        int x;
        MPI_Recv(&x, 1, MPI_INT, 0, 2, parent, MPI_STATUS_IGNORE);
        x++;
        MPI_Send(&x, 1, MPI_INT, 1, 3, parent);
        MPI_Barrier(parent);
        MPI_Comm_disconnect(&parent);
        printf("child %d of %d got %d\n", rank, size, x - 1);
    }
    MPI_Finalize();
    return 0;
}
