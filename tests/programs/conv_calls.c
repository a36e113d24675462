/* conv_calls: routines whose return value is not an MPI error code (the
 * handle conversions MPI_*_c2f / MPI_*_f2c, MPI_Wtime, MPI_Wtick,
 * MPI_Aint_add/diff), as mpi4py calls them at start-up.  Prints CONV ok. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    MPI_Fint fc = MPI_Comm_c2f(MPI_COMM_WORLD);
    MPI_Fint ft = MPI_Type_c2f(MPI_DOUBLE);
    MPI_Fint fo = MPI_Op_c2f(MPI_MAX);
    MPI_Fint fg = MPI_Group_c2f(g);
    MPI_Fint fi = MPI_Info_c2f(MPI_INFO_NULL);
    MPI_Fint fr = MPI_Request_c2f(MPI_REQUEST_NULL);
    MPI_Fint fe = MPI_Errhandler_c2f(MPI_ERRORS_RETURN);
    int ok = MPI_Comm_f2c(fc) == MPI_COMM_WORLD && MPI_Type_f2c(ft) == MPI_DOUBLE &&
             MPI_Op_f2c(fo) == MPI_MAX && MPI_Group_f2c(fg) == g && MPI_Info_f2c(fi) == MPI_INFO_NULL &&
             MPI_Request_f2c(fr) == MPI_REQUEST_NULL && MPI_Errhandler_f2c(fe) == MPI_ERRORS_RETURN;
    double t = MPI_Wtime() + MPI_Wtick();
    MPI_Aint a = MPI_Aint_add((MPI_Aint)1000, 24), d = MPI_Aint_diff(a, (MPI_Aint)1000);
    ok = ok && t > 0 && d == 24;
    MPI_Group_free(&g);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("CONV %s\n", ok ? "ok" : "wrong");
    MPI_Finalize();
    return 0;
}
