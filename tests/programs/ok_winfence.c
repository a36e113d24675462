/* Correct (3 ranks): MPI_Win_fence epochs with puts on a window of
 * MPI_COMM_WORLD and one of a duplicate of it, with long compute phases
 * (2-2.5 s, longer than the deadlock timeout) in one rank while the others
 * wait in the fence, in MPI_Win_free and in a collective file write. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "vdutil.h"

int main(int argc, char **argv)
{
    int rank, size, buf[8] = {0}, x;
    char path[4096];
    const char *dir = getenv("MPILENS_DIR");
    MPI_Win win, win2;
    MPI_Comm sub;
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem;
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < 8; i++) mem[i] = -1;
    MPI_Win_fence(0, win);
    for (int epoch = 0; epoch < 3; epoch++) {
        x = rank * 10 + epoch;
        MPI_Put(&x, 1, MPI_INT, (rank + 1) % size, rank, 1, MPI_INT, win);
        if (rank == epoch % size) vd_spin(2.2);      /* the others wait in the fence */
        MPI_Win_fence(0, win); /* L_FENCE */
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &sub);
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, sub, &win2);
    MPI_Win_fence(0, win2);
    if (rank == 0) vd_sleep(2.0);
    MPI_Win_fence(0, win2);
    if (rank == 1) vd_spin(2.0);                     /* the others wait in MPI_Win_free */
    int got = mem[(rank + size - 1) % size];           /* the last put of the left neighbour */
    MPI_Win_free(&win2);
    MPI_Win_free(&win);
    snprintf(path, sizeof path, "%s/ok_winfence.dat", dir ? dir : "/tmp");
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    if (rank == 2) vd_spin(2.0);                     /* the others wait in the collective write */
    MPI_File_write_at_all(fh, rank * sizeof(int), &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Comm_free(&sub);
    if (rank == 0) printf("ok_winfence done %d\n", got);
    MPI_Finalize();
    return 0;
}
