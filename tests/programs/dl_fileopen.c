/* Deadlock (3 ranks): ranks 0 and 1 open a file collectively on
 * MPI_COMM_WORLD; rank 2 first waits in MPI_Recv for a message rank 0 sends
 * only after the open.  The file is in the run directory (MPILENS_DIR). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    char path[4096];
    const char *dir = getenv("MPILENS_DIR");
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s/dl_fileopen.dat", dir ? dir : "/tmp");
    if (rank == 2) {
        MPI_Recv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
    }
    int amode = MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE;
    MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh); /* L_OPEN */
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, 2, 3, MPI_COMM_WORLD);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
