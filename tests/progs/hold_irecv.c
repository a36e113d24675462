/*
 * hold_irecv.c — a test shim (tests/cases/report_threads_reuse.sh), preloaded
 * after the runtime: its PMPI_Irecv, which the runtime's MPI_Irecv calls once
 * it has taken the call's start time, can be told to wait before it calls the
 * library's.  A program then makes an MPI_Irecv that started before another
 * thread's MPI_Wait receive the request handle that MPI_Wait freed: the
 * interleaving a lock inside MPI makes now and then on its own.
 *
 *   hold_irecv_arm()      the next PMPI_Irecv of any thread waits ...
 *   hold_irecv_held()     ... (1 once it is waiting) ...
 *   hold_irecv_release()  ... until this is called
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <sched.h>

static int armed, held, released;

void hold_irecv_arm(void)
{
    __atomic_store_n(&released, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&held, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&armed, 1, __ATOMIC_SEQ_CST);
}

int hold_irecv_held(void)
{
    return __atomic_load_n(&held, __ATOMIC_SEQ_CST);
}

void hold_irecv_release(void)
{
    __atomic_store_n(&released, 1, __ATOMIC_SEQ_CST);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    static int (*real)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    if (!real) real = (int (*)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *))dlsym(RTLD_NEXT, "PMPI_Irecv");
    int one = 1;
    if (__atomic_compare_exchange_n(&armed, &one, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&held, 1, __ATOMIC_SEQ_CST);
        while (!__atomic_load_n(&released, __ATOMIC_SEQ_CST)) sched_yield();
    }
    return real(buf, count, type, source, tag, comm, req);
}
