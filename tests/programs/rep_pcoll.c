/* rep_pcoll: persistent collectives (MPI 4.0's MPI_Allreduce_init,
 * MPI_Bcast_init, MPI_Barrier_init; Open MPI 4.1 has them as MPIX_*_init
 * in mpi-ext.h), for tests/cases/report_persistcoll.sh.
 *
 * First one blocking MPI_Allreduce, MPI_Bcast and MPI_Barrier with the
 * same arguments (the reference for one operation's bytes), then the three
 * inits and NSTART rounds: the allreduce started with MPI_Start, the
 * broadcast and the barrier together with MPI_Startall; even rounds
 * complete them with MPI_Wait / MPI_Waitall, odd rounds with MPI_Test
 * loops.  In round LATE_ROUND the last rank computes SPIN_MS
 * before its MPI_Start: the others wait for it in the allreduce's
 * completion (a collective wait state).  Prints "rep_pcoll: done" when the
 * results are right, "SKIP: ..." where the MPI has no persistent
 * collectives. */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>

#if MPI_VERSION >= 4
#define ALLREDUCE_INIT MPI_Allreduce_init
#define BCAST_INIT MPI_Bcast_init
#define BARRIER_INIT MPI_Barrier_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define BCAST_INIT MPIX_Bcast_init
#define BARRIER_INIT MPIX_Barrier_init
#endif

#define NSTART 5
#define LATE_ROUND 2
#define SPIN_MS 300
#define NA 16   /* doubles reduced */
#define NB 32   /* ints broadcast */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifndef ALLREDUCE_INIT
    if (rank == 0) printf("SKIP: this MPI has no persistent collectives\n");
    MPI_Finalize();
    return 0;
#else
    double in[NA], out[NA];
    int b[NB];
    int bad = 0;
    for (int k = 0; k < NA; k++) in[k] = rank + k;
    for (int k = 0; k < NB; k++) b[k] = rank == 0 ? 7 * k : -1;
    /* the reference: one of each, blocking */
    MPI_Allreduce(in, out, NA, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(b, NB, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Request ra, rbb[2];
    ALLREDUCE_INIT(in, out, NA, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ra);
    BCAST_INIT(b, NB, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rbb[0]);
    BARRIER_INIT(MPI_COMM_WORLD, MPI_INFO_NULL, &rbb[1]);
    for (int i = 0; i < NSTART; i++) {
        for (int k = 0; k < NA; k++) in[k] = rank + k + i;
        for (int k = 0; k < NB; k++) b[k] = rank == 0 ? 7 * k + i : -1;
        if (i == LATE_ROUND && rank == size - 1) {
            double t = MPI_Wtime();
            while (MPI_Wtime() - t < SPIN_MS / 1000.0) {
            }
        }
        MPI_Start(&ra);
        if (i % 2 == 0) {
            MPI_Wait(&ra, MPI_STATUS_IGNORE);
        } else {
            int flag = 0;
            while (!flag) MPI_Test(&ra, &flag, MPI_STATUS_IGNORE);
        }
        MPI_Startall(2, rbb);
        if (i % 2 == 0) {
            MPI_Waitall(2, rbb, MPI_STATUSES_IGNORE);
        } else {
            /* (not MPI_Testall: MPICH 4.0's fails on persistent collectives'
             * requests when given statuses, which the runtime passes) */
            for (int k = 0; k < 2; k++) {
                int flag = 0;
                while (!flag) MPI_Test(&rbb[k], &flag, MPI_STATUS_IGNORE);
            }
        }
        for (int k = 0; k < NA; k++) {
            double want = (double)size * (k + i) + (double)size * (size - 1) / 2;
            if (out[k] != want) bad++;
        }
        for (int k = 0; k < NB; k++)
            if (b[k] != 7 * k + i) bad++;
    }
    MPI_Request_free(&ra);
    MPI_Request_free(&rbb[0]);
    MPI_Request_free(&rbb[1]);
    int allbad = 0;
    MPI_Reduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (allbad) printf("rep_pcoll: %d wrong values\n", allbad);
        else printf("rep_pcoll: done\n");
    }
    MPI_Finalize();
    return 0;
#endif
}
