/*
 * sem_thread.c — MPI_Init_thread(MPI_THREAD_MULTIPLE): the provided level,
 * Query_thread and Is_thread_main in the main thread and in others; then 4
 * threads per rank, each ping-ponging with the same thread of the partner rank
 * on its own tag (blocking, nonblocking, probe, ANY_SOURCE) and running
 * collectives on its own communicator.  Threads record, the main thread reports.
 * Argument: iterations (default 200).
 */
#include <pthread.h>
#include "semutil.h"

#define NT 4
static int iters = 200, partner;
static MPI_Comm tcomm[NT];

struct result {
    int is_main;
    long sum;          /* of the values received */
    int bad_value;     /* values that were not what the partner sent */
    int bad_status;    /* statuses with a wrong source, tag or count */
    int errors;        /* calls not returning MPI_SUCCESS */
    int coll_sum;      /* last Allreduce result */
};
static struct result res[NT];

#define T(call) do { if ((call) != MPI_SUCCESS) r->errors++; } while (0)

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    struct result *r = &res[t];
    T(MPI_Is_thread_main(&r->is_main));
    int tag = 100 + t, low = me < partner;
    MPI_Status st;
    for (int i = 0; i < iters; i++) {
        int v = me * 1000000 + t * 10000 + i, got = -1;
        int expect = partner * 1000000 + t * 10000 + i;
        switch (i % 4) {
        case 0: /* blocking ping-pong, receive by ANY_SOURCE */
            if (low) {
                T(MPI_Send(&v, 1, MPI_INT, partner, tag, MPI_COMM_WORLD));
                T(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
            } else {
                T(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
                T(MPI_Send(&v, 1, MPI_INT, partner, tag, MPI_COMM_WORLD));
            }
            break;
        case 1: { /* nonblocking exchange */
            MPI_Request q[2];
            MPI_Status sts[2];
            T(MPI_Irecv(&got, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, &q[0]));
            T(MPI_Isend(&v, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, &q[1]));
            T(MPI_Waitall(2, q, sts));
            st = sts[0];
            break;
        }
        case 2: /* Sendrecv */
            T(MPI_Sendrecv(&v, 1, MPI_INT, partner, tag, &got, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, &st));
            break;
        case 3: { /* Probe then Recv; Test loop on the send */
            MPI_Request q;
            T(MPI_Isend(&v, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, &q));
            T(MPI_Probe(partner, tag, MPI_COMM_WORLD, &st));
            T(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
            int flag = 0;
            while (!flag) T(MPI_Test(&q, &flag, MPI_STATUS_IGNORE));
            break;
        }
        }
        int cnt = -1;
        MPI_Get_count(&st, MPI_INT, &cnt);
        if (got != expect) r->bad_value++;
        if (st.MPI_SOURCE != partner || st.MPI_TAG != tag || cnt != 1) r->bad_status++;
        r->sum += got;
        if (i % 20 == 0) {
            int one = t + 1, s = 0;
            T(MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, tcomm[t]));
            r->coll_sum = s;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, q = -1, main_flag = -1;
    int rc = MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    su_start();
    if (argc > 1) iters = atoi(argv[1]);
    out("init_thread: %s provided %s", errname(rc), levelname(provided));
    C(MPI_Query_thread(&q));
    C(MPI_Is_thread_main(&main_flag));
    out("query_thread %s, main thread is main %d", levelname(q), main_flag);
    partner = me ^ 1;
    for (int t = 0; t < NT; t++) C(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
    if (provided == MPI_THREAD_MULTIPLE && partner < np) {
        pthread_t th[NT];
        for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, worker, (void *)(long)t);
        for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
        for (int t = 0; t < NT; t++)
            out("thread %d: is main %d, sum %ld, bad values %d, bad statuses %d, errors %d, allreduce %d", t,
                res[t].is_main, res[t].sum, res[t].bad_value, res[t].bad_status, res[t].errors,
                res[t].coll_sum);
    } else if (partner < np) {
        out("no MPI_THREAD_MULTIPLE: threads not run");
    }
    for (int t = 0; t < NT; t++) C(MPI_Comm_free(&tcomm[t]));
    C(MPI_Barrier(MPI_COMM_WORLD));
    return finish();
}
