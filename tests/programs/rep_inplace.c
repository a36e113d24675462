/* rep_inplace.c -- the gather and scatter collectives with MPI_IN_PLACE, the
 * count and type MPI then ignores holding values a program may leave there
 * (999 MPI_DOUBLE), 4 ranks (tests/cases/report_inplace.sh), on
 * MPI_COMM_WORLD, cnt = {1,2,3,4} ints, in this order:
 *   1 MPI_Allgather   in place, 2 ints a block
 *   2 MPI_Allgatherv  in place, cnt
 *   3 MPI_Alltoall    in place, 2 ints a block
 *   4 MPI_Gather      root 1 in place, 3 ints a block
 *   5 MPI_Gatherv     root 3 in place, cnt (non-roots send r+1 ints)
 *   6 MPI_Scatter     root 2 receives in place, 3 ints a block
 *   7 MPI_Scatterv    root 0 receives in place, cnt (non-roots receive r+1 ints)
 * Prints "rep_inplace: done", or SKIP unless on 4 ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) printf("SKIP: rep_inplace wants 4 ranks\n");
        MPI_Finalize();
        return 0;
    }
    static int rb[256], sb[256];
    int cnt[4] = {1, 2, 3, 4}, dsp[4] = {0, 1, 3, 6};
    MPI_Allgather(MPI_IN_PLACE, 999, MPI_DOUBLE, rb, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgatherv(MPI_IN_PLACE, 999, MPI_DOUBLE, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(MPI_IN_PLACE, 999, MPI_DOUBLE, rb, 2, MPI_INT, MPI_COMM_WORLD);
    if (rank == 1) MPI_Gather(MPI_IN_PLACE, 999, MPI_DOUBLE, rb, 3, MPI_INT, 1, MPI_COMM_WORLD);
    else MPI_Gather(sb, 3, MPI_INT, NULL, 3, MPI_INT, 1, MPI_COMM_WORLD);
    if (rank == 3) MPI_Gatherv(MPI_IN_PLACE, 999, MPI_DOUBLE, rb, cnt, dsp, MPI_INT, 3, MPI_COMM_WORLD);
    else MPI_Gatherv(sb, rank + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 3, MPI_COMM_WORLD);
    if (rank == 2) MPI_Scatter(sb, 3, MPI_INT, MPI_IN_PLACE, 999, MPI_DOUBLE, 2, MPI_COMM_WORLD);
    else MPI_Scatter(NULL, 3, MPI_INT, rb, 3, MPI_INT, 2, MPI_COMM_WORLD);
    if (rank == 0) MPI_Scatterv(sb, cnt, dsp, MPI_INT, MPI_IN_PLACE, 999, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else MPI_Scatterv(NULL, NULL, NULL, MPI_INT, rb, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("rep_inplace: done\n");
    MPI_Finalize();
    return 0;
}
