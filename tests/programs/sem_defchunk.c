/*
 * sem_defchunk.c — communicators and datatypes defined over and over, so
 * that some of their definitions fall where the recording thread's chunk of
 * the rank file is full (the runtime must change chunks there; it once
 * waited forever on its own lock).  ITERS (argument 1, default 20000)
 * times: MPI_Comm_dup of the world, MPI_Comm_size on it, a contiguous
 * datatype of (i % 7) + 1 ints used once in an MPI_Sendrecv with the partner
 * rank on the duplicate, then both freed.  Prints, per rank, the number of
 * iterations and how many values arrived wrong.
 */
#include "semutil.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    int partner = (me ^ 1) < np ? me ^ 1 : me;
    int bad = 0, snd[8], in[8];
    for (int i = 0; i < iters; i++) {
        MPI_Comm d;
        MPI_Datatype t;
        int n = i % 7 + 1, s = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Comm_size(d, &s);
        MPI_Type_contiguous(n, MPI_INT, &t);
        MPI_Type_commit(&t);
        for (int k = 0; k < n; k++) snd[k] = me * 1000 + i % 1000 + k;
        MPI_Sendrecv(snd, 1, t, partner, i % 32768, in, 1, t, partner, i % 32768, d, MPI_STATUS_IGNORE);
        for (int k = 0; k < n; k++) bad += in[k] != partner * 1000 + i % 1000 + k;
        bad += s != np;
        MPI_Type_free(&t);
        MPI_Comm_free(&d);
    }
    out("iterations %d, wrong values %d", iters, bad);
    return finish();
}
