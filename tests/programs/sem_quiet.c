/*
 * sem_quiet.c — the runtime never sends on the program's communicators.
 * Right after MPI_Init, in the middle (after point-to-point traffic and a
 * barrier) and right before the final gather and MPI_Finalize (after a
 * barrier), every rank polls MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) on
 * MPI_COMM_WORLD and on a duplicate of it for 20 ms and prints whether it
 * saw a message: the program itself leaves nothing pending at those points,
 * so anything seen was sent by someone else.
 */
#include "semutil.h"

#include <unistd.h>

static void probe(const char *when, const char *name, MPI_Comm comm)
{
    int flag = 0;
    MPI_Status st;
    for (int i = 0; i < 20 && !flag; i++) {
        int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
        if (rc != MPI_SUCCESS) {
            out("%s %s: MPI_Iprobe %s", when, name, errname(rc));
            return;
        }
        if (!flag) usleep(1000);
    }
    if (flag)
        out("%s %s: flag=1 (source %d tag %d)", when, name, st.MPI_SOURCE, st.MPI_TAG);
    else
        out("%s %s: flag=0", when, name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* before anything else: su_start's Comm_rank/size are local */
    int flag0 = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag0, MPI_STATUS_IGNORE);
    su_start();
    out("init world (first call): flag=%d", flag0);
    probe("init", "world", MPI_COMM_WORLD);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    probe("init", "dup", dup);

    /* some traffic of the program's own, all of it received */
    int next = (me + 1) % np, prev = (me + np - 1) % np, v = me, w = -1;
    for (int i = 0; i < 10; i++) {
        MPI_Sendrecv(&v, 1, MPI_INT, next, 5, &w, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&v, 1, MPI_INT, prev, 6, &w, 1, MPI_INT, next, 6, dup, MPI_STATUS_IGNORE);
    }
    int sum = 0;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, dup);
    out("sum %d", sum);
    MPI_Barrier(MPI_COMM_WORLD);
    probe("middle", "world", MPI_COMM_WORLD);
    probe("middle", "dup", dup);

    MPI_Barrier(dup);
    MPI_Barrier(MPI_COMM_WORLD);
    probe("end", "world", MPI_COMM_WORLD);
    probe("end", "dup", dup);
    MPI_Comm_free(&dup);
    return finish();
}
