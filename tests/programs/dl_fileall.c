/* Deadlock (3 ranks): all open a file on MPI_COMM_WORLD; ranks 0 and 1
 * write collectively (MPI_File_write_at_all), rank 2 first waits in MPI_Recv
 * for a message rank 0 sends only after the write.  The file is in the run
 * directory (MPILENS_DIR). */
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
    snprintf(path, sizeof path, "%s/dl_fileall.dat", dir ? dir : "/tmp");
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    if (rank == 2) {
        MPI_Recv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* L_RECV */
    }
    MPI_File_write_at_all(fh, rank * sizeof(int), &rank, 1, MPI_INT, MPI_STATUS_IGNORE); /* L_WRITE */
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, 2, 3, MPI_COMM_WORLD);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
