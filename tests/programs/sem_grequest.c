/*
 * sem_grequest.c — generalized requests: the status the query function
 * fills in (source, tag, count, cancelled) comes back from Wait, Test,
 * Waitall and Waitany; a query function returning an error gives
 * MPI_ERR_IN_STATUS from Waitall with status.MPI_ERROR set; free and cancel
 * callbacks run once.
 */
#include "semutil.h"

static int queries, frees, cancels;

static int query_fn(void *extra, MPI_Status *st)
{
    int k = (int)(long)extra;
    queries++;
    MPI_Status_set_elements(st, MPI_INT, k + 1);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = k;
    st->MPI_TAG = 100 + k;
    if (k == 3) {
        st->MPI_ERROR = MPI_ERR_OTHER;
        return MPI_ERR_OTHER;
    }
    st->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}
static int free_fn(void *extra) { frees++; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { cancels++; return MPI_SUCCESS; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    su_start();
    MPI_Request rq[4];
    MPI_Status st, sts[4];
    int flag = -1, idx = -1;

    C(MPI_Grequest_start(query_fn, free_fn, cancel_fn, (void *)0L, &rq[0]));
    C(MPI_Test(&rq[0], &flag, &st));
    out("test before complete: flag %d", flag);
    C(MPI_Grequest_complete(rq[0]));
    poison(&st);
    C(MPI_Wait(&rq[0], &st));
    out("wait: %s null %d", stat_str(&st, MPI_INT), rq[0] == MPI_REQUEST_NULL);

    C(MPI_Grequest_start(query_fn, free_fn, cancel_fn, (void *)1L, &rq[0]));
    C(MPI_Grequest_complete(rq[0]));
    flag = 0;
    poison(&st);
    while (!flag) C(MPI_Test(&rq[0], &flag, &st));
    out("test: %s", stat_str(&st, MPI_INT));

    C(MPI_Grequest_start(query_fn, free_fn, cancel_fn, (void *)2L, &rq[0]));
    C(MPI_Grequest_start(query_fn, free_fn, cancel_fn, (void *)1L, &rq[1]));
    C(MPI_Grequest_complete(rq[1]));
    poison(&st);
    C(MPI_Waitany(2, rq, &idx, &st));
    out("waitany: index %d %s", idx, stat_str(&st, MPI_INT));
    C(MPI_Grequest_complete(rq[0]));
    C(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));

    for (int k = 0; k < 4; k++) C(MPI_Grequest_start(query_fn, free_fn, cancel_fn, (void *)(long)k, &rq[k]));
    for (int k = 0; k < 4; k++) C(MPI_Grequest_complete(rq[k]));
    for (int k = 0; k < 4; k++) poison(&sts[k]);
    int rc = MPI_Waitall(4, rq, sts);
    out("waitall with a failing query: %s", errname(rc));
    for (int k = 0; k < 4; k++)
        out("  status %d: %s error %s", k, stat_str(&sts[k], MPI_INT),
            rc == MPI_ERR_IN_STATUS ? errname(sts[k].MPI_ERROR) : "-");

    C(MPI_Grequest_start(query_fn, free_fn, cancel_fn, (void *)0L, &rq[0]));
    C(MPI_Cancel(&rq[0]));
    C(MPI_Grequest_complete(rq[0]));
    C(MPI_Wait(&rq[0], &st));
    out("callbacks: queries %d frees %d cancels %d", queries, frees, cancels);
    return finish();
}
