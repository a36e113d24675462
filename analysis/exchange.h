/*
 * exchange.h — what the processes of a parallel analysis send each other
 * (docs/PARALLEL.md).  The analysis library never calls MPI: it works on a
 * slice of ranks and talks to the other slices only through this interface.
 * exchange.c is the serial implementation (one process, nothing crosses);
 * exchange_mpi.c the MPI one, compiled only into mpilens-mpi-<impl>.
 *
 * Every call is collective: all processes make the same calls in the same
 * order.  A process that cannot go on calls an_xch_fail, which ends the
 * whole job with its message (never a hang).
 */
#ifndef ML_EXCHANGE_H
#define ML_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

enum an_xch_op { AN_XCH_SUM = 1, AN_XCH_MIN, AN_XCH_MAX };

struct an_xch {
    int rank, size;               /* this process, number of processes */
    uint64_t bytes;               /* payload bytes this process sent so far */
    void *impl;
    /* v[0..n) combined over all processes with op, result everywhere; 0 or -1 */
    int (*reduce_i64)(struct an_xch *x, int64_t *v, unsigned n, enum an_xch_op op);
    /* Gather len bytes of every process at process 0: *all (malloc'd, the
     * blocks in process order) and lens[size] there; NULL elsewhere. 0 or -1 */
    int (*gather)(struct an_xch *x, const void *buf, size_t len, void **all, size_t *lens);
    /* Process 0's len bytes to every process (len known everywhere). 0 or -1 */
    int (*bcast)(struct an_xch *x, void *buf, size_t len);
    /* Every process sends out[p] (outlen[p] bytes) to process p and gets
     * *in (malloc'd: the blocks from process 0, 1, ... in order) with
     * inlen[size] the length of each. 0 or -1 */
    int (*alltoall)(struct an_xch *x, void *const *out, const size_t *outlen, void **in, size_t *inlen);
    /* End the whole job: message on stderr, exit status 1 everywhere. */
    void (*fail)(struct an_xch *x, const char *msg);
    /* The sliced reads' batches (analysis/stream.c): all-to-alls made, and
     * the most crossing-send records this process held at once (its
     * outgoing batches and the one that came in). */
    uint64_t batches, batch_held;
    /* the most instances of communicators spanning slices a process held
     * at once, as arrivals of its slice or in its windows as their owner */
    uint64_t coll_held;
    /* CPU seconds this process spent inside the exchange's calls (MPI
     * spins while it waits for the others): bench/report_bench subtracts
     * it to get each process's own work */
    double xch_cpu;
    /* Point-to-point, unlike the calls above not collective: for a replay
     * whose edge values follow the run's own messages from slice to slice
     * (docs/PARALLEL.md, "The critical path across slices").
     * send: len bytes of buf to process `to` (itself included), buffered:
     * it returns at once and buf may be reused.  Blocks from one process
     * to another arrive in the order they were sent.  0 or -1 */
    int (*send)(struct an_xch *x, int to, const void *buf, size_t len);
    /* The next block sent to this process, from any process: *buf
     * (malloc'd, NULL when len is 0), *len, *from.  wait 0: 1 at once when
     * none has come; wait 1: until one comes (serially, where only this
     * process sends, -1 when none is queued: it would wait forever).
     * 0, 1 or -1 */
    int (*recv)(struct an_xch *x, int wait, void **buf, size_t *len, int *from);
    uint64_t p2p_sent, p2p_recvd;  /* blocks sent and received so far */
};

/* The serial exchange: rank 0 of 1. */
struct an_xch *an_xch_serial(void);

/* Every process's len bytes at every process: *all (malloc'd, in process
 * order), lens[size].  A gather and a broadcast.  0 or -1 */
int an_xch_allgather(struct an_xch *x, const void *buf, size_t len, void **all, size_t *lens);

/* Ranks [*lo, *hi) of a run of nranks ranks are the slice of process p of
 * nproc: contiguous blocks, the first nranks % nproc one rank larger. */
void an_xch_slice(int nranks, int nproc, int p, int *lo, int *hi);

#endif
