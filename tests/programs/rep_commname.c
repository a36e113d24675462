/*
 * rep_commname.c — communicators named with MPI_Comm_set_name
 * (tests/cases/dump_commname.sh), any number of ranks >= 2:
 *   half   MPI_Comm_split by rank parity, named "even" (even world ranks)
 *          and "odd ranks" (odd ones: a name with a space); an MPI_Allreduce
 *          on it before and after the name is set (the name counts for the
 *          whole communicator)
 *   solver MPI_Comm_dup of the world, named "solver comm", an MPI_Barrier
 *   plain  MPI_Comm_dup of the world, not named, an MPI_Barrier
 * Prints "rep_commname: done".
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, x = 1, y = 0;
    MPI_Comm half, solver, plain;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
    MPI_Comm_set_name(half, rank % 2 ? "odd ranks" : "even");
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);
    MPI_Comm_dup(MPI_COMM_WORLD, &solver);
    MPI_Comm_set_name(solver, "solver comm");
    MPI_Barrier(solver);
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    MPI_Barrier(plain);
    MPI_Comm_free(&plain);
    MPI_Comm_free(&solver);
    MPI_Comm_free(&half);
    if (rank == 0) printf("rep_commname: done\n");
    MPI_Finalize();
    return 0;
}
