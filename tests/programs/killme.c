/*
 * killme.c — for the SIGKILL test.  Rank 1 makes exactly CALLS (argument 2,
 * default 1000) MPI_Comm_rank calls, then writes "<pid>" to the file named by
 * argument 1 (atomically, by rename) and blocks in an MPI_Recv nobody matches
 * until it is killed.  The other ranks wait in an MPI_Recv as well.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: killme DONE-FILE [CALLS]\n");
        return 2;
    }
    int calls = argc > 2 ? atoi(argv[2]) : 1000;
    MPI_Init(&argc, &argv);
    int me, r, x;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 1) {
        for (int i = 0; i < calls; i++) MPI_Comm_rank(MPI_COMM_WORLD, &r);
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
        FILE *f = fopen(tmp, "w");
        if (!f) return 1;
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
        rename(tmp, argv[1]);
    }
    /* never matched: rank 0 waits for rank 1 and rank 1 for rank 0, tag 99 */
    MPI_Recv(&x, 1, MPI_INT, me == 0 ? 1 : 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
