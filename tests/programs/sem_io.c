/*
 * sem_io.c — MPI-IO statuses and errors: write_at/read_at/read_all with
 * Get_count on the status, MPI_STATUS_IGNORE, nonblocking iread_at + Wait,
 * shared file pointer ordered writes, file size; opening a missing file (file
 * errors return by default).  Argument: a directory for the file.
 */
#include "semutil.h"

/* For I/O only the count is defined in a status. */
static const char *io_stat(const MPI_Status *s)
{
    static char b[4][64];
    static int k;
    int c = -7, e = -7;
    MPI_Get_count(s, MPI_INT, &c);
    MPI_Get_elements(s, MPI_INT, &e);
    char *p = b[k++ & 3];
    snprintf(p, sizeof b[0], "count=%s elements=%s", countname(c), countname(e));
    return p;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    char path[4096];
    snprintf(path, sizeof path, "%s/sem_io.dat", argc > 1 ? argv[1] : ".");
    MPI_File fh;
    MPI_Status st;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                           MPI_INFO_NULL, &fh);
    out("open: %s", errname(rc));
    if (rc == MPI_SUCCESS) {
        int v[4] = {me, me + 1, me + 2, me + 3}, r[8];
        poison(&st);
        C(MPI_File_write_at(fh, me * 4 * sizeof(int), v, 4, MPI_INT, &st));
        out("write_at: %s", io_stat(&st));
        C(MPI_File_sync(fh));
        C(MPI_Barrier(MPI_COMM_WORLD));
        C(MPI_File_sync(fh));
        int right = (me + 1) % np;
        memset(r, -1, sizeof r);
        poison(&st);
        C(MPI_File_read_at(fh, right * 4 * sizeof(int), r, 8, MPI_INT, &st));
        out("read_at right (8 asked): %d %d %d %d, %s", r[0], r[1], r[2], r[3], io_stat(&st));
        memset(r, -1, sizeof r);
        C(MPI_File_read_at(fh, 0, r, 2, MPI_INT, MPI_STATUS_IGNORE));
        out("read_at ignore: %d %d", r[0], r[1]);
        MPI_Request rq;
        memset(r, -1, sizeof r);
        C(MPI_File_iread_at(fh, 4 * sizeof(int) * (np - 1), r, 4, MPI_INT, &rq));
        poison(&st);
        C(MPI_Wait(&rq, &st));
        out("iread_at last block: %d %d, %s", r[0], r[3], io_stat(&st));
        MPI_Offset sz = -1;
        C(MPI_File_get_size(fh, &sz));
        out("size %lld", (long long)sz);
        C(MPI_File_set_view(fh, me * 4 * sizeof(int), MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
        memset(r, -1, sizeof r);
        poison(&st);
        C(MPI_File_read_all(fh, r, 4, MPI_INT, &st));
        out("read_all own view: %d %d %d %d, %s", r[0], r[1], r[2], r[3], io_stat(&st));
        poison(&st);
        C(MPI_File_read_at(fh, 4 * np, r, 4, MPI_INT, &st));
        out("read past the end: %s", io_stat(&st));
        C(MPI_File_close(&fh));
    }
    char missing[4200];
    snprintf(missing, sizeof missing, "%s/no-such-dir/no-such-file", argc > 1 ? argv[1] : ".");
    rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    out("open missing: %s", errname(rc));
    return finish();
}
