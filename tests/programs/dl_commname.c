/*
 * dl_commname.c — a deadlock on a communicator named with MPI_Comm_set_name
 * (tests/cases/dump_commname.sh): a duplicate of the world named
 * "solver comm"; every rank but the last enters MPI_Barrier on it, the last
 * waits in MPI_Recv from rank 0 on it (no one sends).
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x;
    MPI_Comm solver;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &solver);
    MPI_Comm_set_name(solver, "solver comm");
    if (rank < size - 1) MPI_Barrier(solver);
    else MPI_Recv(&x, 1, MPI_INT, 0, 5, solver, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
