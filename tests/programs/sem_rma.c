/*
 * sem_rma.c — one-sided communication: Put/Get/Accumulate under fences,
 * passive target lock/unlock with Get_accumulate, Fetch_and_op and
 * Compare_and_swap, request-based Rput/Rget, Win_allocate; window errors
 * under MPI_ERRORS_RETURN.
 */
#include "semutil.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    int base[16];
    for (int i = 0; i < 16; i++) base[i] = me * 100 + i;
    MPI_Win win;
    C(MPI_Win_create(base, sizeof base, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    C(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int right = (me + 1) % np, left = (me + np - 1) % np;

    /* fences: put my rank into slot 0 of the right neighbour, get slot 1 of the left */
    int got = -1, one = me + 1;
    C(MPI_Win_fence(0, win));
    C(MPI_Put(&me, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    C(MPI_Get(&got, 1, MPI_INT, left, 1, 1, MPI_INT, win));
    C(MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win));
    C(MPI_Win_fence(0, win));
    out("fence epoch: slot0 %d, got %d, slot2 %d", base[0], got, base[2]);

    /* passive target */
    C(MPI_Barrier(MPI_COMM_WORLD));
    int old = -1, cmp = 0, res = -1, inc = 1;
    C(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    C(MPI_Fetch_and_op(&inc, &old, MPI_INT, 0, 3, MPI_SUM, win));
    C(MPI_Win_unlock(0, win));
    C(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) out("fetch_and_op: slot3 now %d", base[3]);
    C(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    int ga[2] = {10, 20}, gr[2] = {-1, -1};
    C(MPI_Get_accumulate(ga, 2, MPI_INT, gr, 2, MPI_INT, right, 4, 2, MPI_INT, MPI_SUM, win));
    C(MPI_Win_unlock(right, win));
    out("get_accumulate on right: old %d %d", gr[0], gr[1]);
    C(MPI_Barrier(MPI_COMM_WORLD));
    out("slots 4,5 after the left neighbour's accumulate: %d %d", base[4], base[5]);
    C(MPI_Barrier(MPI_COMM_WORLD));
    cmp = right * 100 + 6;
    int newv = 1000 + me;
    C(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    C(MPI_Compare_and_swap(&newv, &cmp, &res, MPI_INT, right, 6, win));
    C(MPI_Win_unlock(right, win));
    C(MPI_Barrier(MPI_COMM_WORLD));
    out("compare_and_swap: old %d, my slot6 %d", res, base[6]);

    /* request-based */
    C(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Request rq[2];
    int rv = -1, pv = 7000 + me;
    C(MPI_Win_lock_all(0, win));
    C(MPI_Rget(&rv, 1, MPI_INT, left, 7, 1, MPI_INT, win, &rq[0]));
    C(MPI_Rput(&pv, 1, MPI_INT, right, 8, 1, MPI_INT, win, &rq[1]));
    MPI_Status sts[2];
    C(MPI_Waitall(2, rq, sts));
    C(MPI_Win_flush_all(win));
    C(MPI_Win_unlock_all(win));
    C(MPI_Barrier(MPI_COMM_WORLD));
    out("rget %d, slot8 %d", rv, base[8]);

    /* errors on the window */
    C(MPI_Win_fence(0, win));
    int rc = MPI_Put(&me, 1, MPI_INT, np + 1, 0, 1, MPI_INT, win);
    out("put to rank size+1: %s", errname(rc));
    C(MPI_Win_fence(0, win));
    C(MPI_Win_free(&win));

    /* Win_allocate */
    int *mem = NULL;
    C(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < 4; i++) mem[i] = -1;
    C(MPI_Win_fence(0, win));
    C(MPI_Put(&me, 1, MPI_INT, right, 1, 1, MPI_INT, win));
    C(MPI_Win_fence(0, win));
    out("win_allocate: slot1 %d", mem[1]);
    C(MPI_Win_free(&win));
    return finish();
}
