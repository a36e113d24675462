/*
 * stack_callers.c — one MPI call site reached from two callers, for call
 * chains (mpilens run -k N; tests/cases/report_stack.sh).  helper() calls
 * MPI_Barrier and MPI_Allreduce on one line each; f() calls it (3 rounds),
 * g() calls it (5 rounds), f() again, g() again.  So per rank, one frame deep:
 * one MPI_Barrier site, 16 calls; two frames deep: helper < f 6 calls,
 * helper < g 10.  The test finds the lines by the @ markers.
 */
#include <mpi.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void helper(int n)
{
    for (int i = 0; i < n; i++) {
        int x = i, y = 0;
        MPI_Barrier(MPI_COMM_WORLD); /* @helper_barrier */
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* @helper_allreduce */
        sink += y;
    }
}

__attribute__((noinline)) static void f(void)
{
    helper(3); /* @f */
    sink++;
}

__attribute__((noinline)) static void g(void)
{
    helper(5); /* @g */
    sink++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    f();
    g();
    f();
    g();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("stack_callers: done\n");
    MPI_Finalize();
    return 0;
}
