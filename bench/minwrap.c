/*
 * minwrap.c — the floor any MPI call recorder pays (bench/run).
 *
 * A hand-written PMPI wrapper library for MPI_Comm_rank, MPI_Send and
 * MPI_Recv only.  Each wrapper reads the TSC before and after the real
 * routine and stores one 32-byte record into a thread-local ring buffer
 * (which stays in cache and is never written anywhere).  No call sites,
 * no live state, no file, no nesting guard: anything a real recorder does
 * beyond this is its own cost.
 *
 * Built once per MPI (mpicc.openmpi / mpicc.mpich) and LD_PRELOADed.
 * MINWRAP_VERBOSE=1 prints the number of calls recorded at exit, so the
 * benchmark can check that the wrappers were really called.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

struct mw_rec {               /* 32 bytes */
    uint64_t t0;
    uint32_t dur;
    uint16_t routine;
    uint16_t pad;
    int32_t peer;
    int32_t tag;
    uint32_t count;
    uint32_t comm;
};

#define MW_RING 2048          /* records: 64 KiB per thread */

static __thread struct mw_rec mw_ring[MW_RING] __attribute__((tls_model("initial-exec")));
static __thread uint64_t mw_n __attribute__((tls_model("initial-exec")));
static uint64_t mw_total;     /* main thread's count, for MINWRAP_VERBOSE */

static inline __attribute__((always_inline)) void
mw_store(uint64_t t0, uint64_t t1, uint16_t routine, int peer, int tag, int count, MPI_Comm comm)
{
    struct mw_rec *r = &mw_ring[mw_n++ & (MW_RING - 1)];
    r->t0 = t0;
    r->dur = (uint32_t)(t1 - t0);
    r->routine = routine;
    r->pad = 0;
    r->peer = peer;
    r->tag = tag;
    r->count = (uint32_t)count;
    r->comm = (uint32_t)(uintptr_t)comm;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    uint64_t t0 = __rdtsc();
    int ret = PMPI_Comm_rank(comm, rank);
    uint64_t t1 = __rdtsc();
    mw_store(t0, t1, 1, -1, -1, 0, comm);
    return ret;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    uint64_t t0 = __rdtsc();
    int ret = PMPI_Send(buf, count, type, dest, tag, comm);
    uint64_t t1 = __rdtsc();
    mw_store(t0, t1, 2, dest, tag, count, comm);
    return ret;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    uint64_t t0 = __rdtsc();
    int ret = PMPI_Recv(buf, count, type, source, tag, comm, status);
    uint64_t t1 = __rdtsc();
    mw_store(t0, t1, 3, source, tag, count, comm);
    return ret;
}

int MPI_Finalize(void)
{
    mw_total = mw_n;
    return PMPI_Finalize();
}

__attribute__((destructor)) static void mw_report(void)
{
    const char *v = getenv("MINWRAP_VERBOSE");
    if (v && *v == '1') fprintf(stderr, "minwrap: %llu calls recorded\n", (unsigned long long)mw_total);
}
