/*
 * sem_churn.c — many short-lived threads making MPI calls (more threads over
 * the life of the process than a tool might have slots for): THREADS threads
 * (argument 1, default 300), started 6 at a time, each doing one
 * MPI_Sendrecv with the same thread of the partner rank (tag = thread number)
 * and one MPI_Comm_rank.  Reports what every thread received.
 */
#include <pthread.h>
#include "semutil.h"

static int partner;
static int *got, *bad;

static void *worker(void *arg)
{
    int t = (int)(long)arg, v = me * 100000 + t, r = -1, rr = -1;
    MPI_Status st;
    if (MPI_Sendrecv(&v, 1, MPI_INT, partner, t, &r, 1, MPI_INT, partner, t, MPI_COMM_WORLD, &st) != MPI_SUCCESS ||
        st.MPI_SOURCE != partner || st.MPI_TAG != t)
        bad[t]++;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rr) != MPI_SUCCESS || rr != me) bad[t]++;
    got[t] = r;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    su_start();
    int n = argc > 1 ? atoi(argv[1]) : 300;
    partner = me ^ 1;
    out("provided %s, %d threads", levelname(provided), n);
    got = calloc(n, sizeof *got);
    bad = calloc(n, sizeof *bad);
    if (provided == MPI_THREAD_MULTIPLE && partner < np) {
        for (int base = 0; base < n; base += 6) {
            pthread_t th[6];
            int k = n - base < 6 ? n - base : 6;
            for (int i = 0; i < k; i++) pthread_create(&th[i], NULL, worker, (void *)(long)(base + i));
            for (int i = 0; i < k; i++) pthread_join(th[i], NULL);
        }
        long sum = 0;
        int nbad = 0, wrong = 0;
        for (int t = 0; t < n; t++) {
            sum += got[t];
            nbad += bad[t];
            if (got[t] != partner * 100000 + t) wrong++;
        }
        out("sum %ld, wrong values %d, bad statuses or errors %d", sum, wrong, nbad);
    }
    C(MPI_Barrier(MPI_COMM_WORLD));
    return finish();
}
