/*
 * rep_io.c — MPI-IO data access whose bytes depend on the rank, for the
 * report's I/O section and routine bytes (tests/cases/report_io.sh).
 * Rank r, n = r + 1, file A: writes write_at 10n int, write_at_all 2
 * double, iwrite_at 3 int, write_ordered n char, write_shared 1 short;
 * reads read_at 5 int, read_at_all_begin 4 double (+ _end), iread_at n
 * int, read 2 int.  File B: write_all 7 byte, write_at_all 2 x (3 int
 * contiguous).  Rank 0 prints the expected figures.  Argument: a directory.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *dir = argc > 1 ? argv[1] : ".";
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s/rep_io_a.dat", dir);
    snprintf(pb, sizeof pb, "%s/rep_io_b.dat", dir);
    int n = me + 1;
    static char buf[1 << 16];
    memset(buf, 'x', sizeof buf);
    MPI_File fa, fb;
    MPI_Request rq;
    MPI_Offset base = (MPI_Offset)me * 4096;
    MPI_File_open(MPI_COMM_WORLD, pa, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fa);
    MPI_File_write_at(fa, base, buf, 10 * n, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_write_at_all(fa, base + 1024, buf, 2, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_iwrite_at(fa, base + 2048, buf, 3, MPI_INT, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_File_write_ordered(fa, buf, n, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_write_shared(fa, buf, 1, MPI_SHORT, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_read_at(fa, base, buf, 5, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_read_at_all_begin(fa, base, buf, 4, MPI_DOUBLE);
    MPI_File_read_at_all_end(fa, buf, MPI_STATUS_IGNORE);
    MPI_File_iread_at(fa, base, buf, n, MPI_INT, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_File_read(fa, buf, 2, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fa);

    MPI_Datatype t3;
    MPI_Type_contiguous(3, MPI_INT, &t3);
    MPI_Type_commit(&t3);
    MPI_File_open(MPI_COMM_WORLD, pb, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fb);
    MPI_File_set_view(fb, base, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_write_all(fb, buf, 7, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_write_at_all(fb, 64, buf, 2, t3, MPI_STATUS_IGNORE);
    MPI_File_close(&fb);
    MPI_Type_free(&t3);
    if (me == 0) printf("EXPECT np=%d\n", np);
    MPI_Finalize();
    return 0;
}
