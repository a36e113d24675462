/*
 * thread_reuse.c — a request handle that one thread's MPI_Wait frees and
 * another thread's MPI_Irecv, started before that MPI_Wait, receives
 * (MPI_THREAD_MULTIPLE; run with tests/progs/hold_irecv.c preloaded after
 * the runtime, which holds the second MPI_Irecv inside the call until the
 * MPI_Wait returned).  Every rank receives from itself: ROUNDS rounds of
 * two receives each.
 *
 *   prints "EXPECT receives=<n> reused=<k>" on rank 0: k rounds (summed over
 *   the ranks) where the handle was reused, which is the case tested
 *
 * Then ROUNDS more in the other order: the held MPI_Irecv starts before the
 * other thread's MPI_Irecv takes the handle, which its MPI_Wait frees
 * before the held call receives it: in the stream (start order) the held
 * call comes first although its request is the second.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 20
static int rank;
static void (*arm)(void), (*release)(void);
static int (*held)(void);
static MPI_Request got;   /* the handle the held MPI_Irecv returned */
static volatile int go, done;

static void *other(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2 * ROUNDS; i++) {
        while (__atomic_load_n(&go, __ATOMIC_SEQ_CST) <= i) sched_yield();
        int in = 0;
        MPI_Request second;
        MPI_Irecv(&in, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &second);   /* held by the shim */
        got = second;
        int out = i;
        MPI_Send(&out, 1, MPI_INT, rank, 2, MPI_COMM_WORLD);
        MPI_Wait(&second, MPI_STATUS_IGNORE);
        __atomic_store_n(&done, i + 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0) printf("SKIP no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 0;
    }
    arm = (void (*)(void))dlsym(RTLD_DEFAULT, "hold_irecv_arm");
    release = (void (*)(void))dlsym(RTLD_DEFAULT, "hold_irecv_release");
    held = (int (*)(void))dlsym(RTLD_DEFAULT, "hold_irecv_held");
    if (!arm || !release || !held) {
        fprintf(stderr, "thread_reuse: hold_irecv.so is not preloaded\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pthread_t t;
    pthread_create(&t, NULL, other, NULL);
    int reused = 0;
    for (int i = 0; i < ROUNDS; i++) {
        int in = 0, out = i;
        MPI_Request first;
        MPI_Irecv(&in, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &first);
        MPI_Send(&out, 1, MPI_INT, rank, 1, MPI_COMM_WORLD);
        MPI_Request was = first;
        arm();
        __atomic_store_n(&go, i + 1, __ATOMIC_SEQ_CST);      /* its MPI_Irecv starts ... */
        while (!held()) sched_yield();                          /* ... and is held */
        MPI_Wait(&first, MPI_STATUS_IGNORE);                    /* starts later, frees `was` */
        release();                                              /* the MPI_Irecv goes on */
        while (__atomic_load_n(&done, __ATOMIC_SEQ_CST) <= i) sched_yield();
        if (memcmp(&was, &got, sizeof was) == 0) reused++;
    }
    /* the other order: the held MPI_Irecv starts first, then this thread's
     * MPI_Irecv takes a handle, and its MPI_Wait frees it before the held
     * call (started earlier, so first in the stream) receives it */
    for (int i = ROUNDS; i < 2 * ROUNDS; i++) {
        int in = 0, out = i;
        arm();
        __atomic_store_n(&go, i + 1, __ATOMIC_SEQ_CST);      /* its MPI_Irecv starts and is held */
        while (!held()) sched_yield();
        MPI_Request first;
        MPI_Irecv(&in, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &first);
        MPI_Send(&out, 1, MPI_INT, rank, 1, MPI_COMM_WORLD);
        MPI_Request was = first;
        MPI_Wait(&first, MPI_STATUS_IGNORE);                    /* frees `was` */
        release();                                              /* the held MPI_Irecv goes on */
        while (__atomic_load_n(&done, __ATOMIC_SEQ_CST) <= i) sched_yield();
        if (memcmp(&was, &got, sizeof was) == 0) reused++;
    }
    pthread_join(t, NULL);
    int all = 0;
    MPI_Reduce(&reused, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) printf("EXPECT receives=%d reused=%d\n", 2 * 2 * ROUNDS * size, all);
    MPI_Finalize();
    return 0;
}
