/*
 * rt.h — what the generated wrappers call: the hot path of every MPI call.
 *
 * A wrapper does, in this order:
 *   ml_enter()    nesting guard, start time, live slot "in call"      (inline)
 *   ml_live_wait  publish what the call waits for (peer, tag, comm)  (inline;
 *                 not for local calls such as MPI_Comm_rank)
 *   PMPI_X(...)   the real routine, arguments untouched
 *   ml_leave()    end time, nesting guard                            (inline)
 *   ml_rec_*()    one fixed-size record appended to the thread's chunk
 *                 of the rank file, then published                   (inline)
 *
 * The hot path takes no lock, makes no system call and allocates nothing:
 * thread state is initial-exec TLS, time is the TSC, the call site is the
 * return address looked up in a small per-thread cache.  Everything rare
 * (first call of a thread, chunk full, new call site, new communicator or
 * datatype, 32-bit time overflow) is a call into rt.c's slow paths.
 *
 * Fortran: a Fortran entry point's wrapper closes the nesting gate and
 * offers its call site to an inner C wrapper (MPICH's Fortran bindings call
 * the C MPI_ symbols).  If the inner C wrapper runs, it records the call with
 * full detail and the Fortran call site; if not (Open MPI's bindings call
 * PMPI_ directly), the Fortran wrapper records the call itself.  Either way
 * a Fortran call is recorded exactly once.
 */
#ifndef ML_RT_H
#define ML_RT_H

#include <pthread.h>
#include <mpi.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "../format/mlformat.h"

/* Everything declared here is internal to the runtime: hidden symbols are
 * reached without the PLT or GOT.  Only the generated MPI_* wrappers are
 * exported. */
#pragma GCC visibility push(hidden)

#define ML_INLINE static inline __attribute__((always_inline))
#define ML_LIKELY(x) __builtin_expect(!!(x), 1)
#define ML_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ML_SITE_CACHE 256        /* direct-mapped: return address -> site id */
#define ML_REQ_STACK 64
#define ML_PY_CACHE 16           /* direct-mapped: Python frame -> site address (python.c) */

/* An MPI handle of any implementation as a 64-bit number. */
#define ML_HANDLE(h) ((uint64_t)(uintptr_t)(h))

struct ml_thread {
    char *cur, *end;           /* free space in the current chunk */
    struct ml_chunk *chunk;    /* current chunk, NULL before the first call */
    struct ml_live *live;      /* this thread's live slot */
    uint64_t last;             /* start ticks of the previous record */
    int ok;                    /* nesting gate, the one hot-path test: 1 outside MPI (record),
                                * 0 inside a wrapper or not started yet (chunk NULL), -1 inside a
                                * Fortran wrapper, -2 inside the C wrapper recording its call.
                                * A recording call sets 0 (-2) and adds 1 when it ends, so no
                                * saved value lives across the PMPI call. */
    int fort_pending;          /* a Fortran wrapper offers its site */
    int fort_taken;            /* an inner C wrapper recorded the call */
    uint32_t fort_site;
    uint32_t index;            /* live-slot / thread index */
    uint32_t chunk_seq;
    uint64_t calls;            /* copy of live->calls */
    uint64_t comm_handle;      /* one-entry cache of ml_comm_index */
    uint32_t comm_gen;
    uint16_t comm_index;
    uint16_t type_index;       /* one-entry cache of ml_type_index */
    uint64_t type_handle;
    uint32_t type_gen;
    int64_t type_size;         /* MPI_Type_size_x: a type can hold more than INT_MAX bytes */
    struct { uintptr_t addr; uint32_t id; } sites[ML_SITE_CACHE];
    struct { uintptr_t code, instr, addr; } py[ML_PY_CACHE];
    /* what the thread's scheduler counters said at a recent poll's end
     * (ml_poll_sample): tells work between polls from time off the CPU */
    uint64_t sched_tick;
    int64_t sched_cpu_ns;
    long sched_nvcsw;
    /* the run of identical calls that completed nothing (ml_rec_end_idle):
     * a record starting at idle_next that equals idle_rec but for its times
     * is one more of them, counted in the REPEAT record idle_rep */
    char *idle_next;           /* NULL: no run (anything appended since ends it) */
    struct ml_rec *idle_rec;   /* the run's first call, recorded in full */
    struct ml_rec *idle_rep;   /* its REPEAT record, NULL until the second call */
    uint64_t idle_t0;          /* start ticks of the first call */
};

struct ml_call {
    struct ml_thread *th;
    uint64_t t0, t1;
    uint32_t site;
    uint16_t routine;
};

extern __thread struct ml_thread ml_th __attribute__((tls_model("initial-exec")));
extern int ml_use_tsc;
extern uint64_t ml_work_gap;   /* ML_WORK_GAP_NS in ticks */
extern uint64_t ml_sample_gap; /* ML_SAMPLE_GAP_NS in ticks */
extern uint32_t ml_comm_gen;   /* bumped whenever a communicator is freed (starts at 1) */
extern uint32_t ml_type_gen;   /* bumped whenever a datatype is freed (starts at 1) */
extern int ml_disabled;
extern int ml_lost;
void ml_lost_post(int rid);
void ml_lost_pre(int rid);
extern uint32_t ml_coll_seq[ML_COMM_NONE]; /* collectives so far, per communicator definition */

/* slow paths (rt.c) */
void ml_thread_start(struct ml_thread *th);
char *ml_chunk_next(struct ml_thread *th, unsigned bytes);
uint32_t ml_site_slow(struct ml_thread *th, uintptr_t addr);
uint64_t ml_ticks_slow(void);
void ml_time_record(struct ml_thread *th, uint64_t t0, unsigned words);
void ml_longdur_record(struct ml_call *c);
void ml_result_record(struct ml_call *c, int err);
uint16_t ml_comm_lookup(MPI_Comm comm);
uint16_t ml_type_index(MPI_Datatype type, int64_t *size);
void ml_comm_created(MPI_Comm comm, uint16_t parent);
uint32_t ml_icc_remote(MPI_Comm local, int leader, MPI_Comm peer, int remote);
void ml_comm_forget(uint64_t handle);
void ml_type_forget(uint64_t handle);
void ml_after_init(int provided);
void ml_before_finalize(void);
void ml_after_finalize(void);
void ml_before_abort(struct ml_call *c, MPI_Comm comm, int code);
void ml_before_abort_f(struct ml_call *c, void *comm, void *code);
void ml_rec_done(struct ml_call *c, int ret, int n, const uint64_t *reqs,
                 const MPI_Status *st, const int *idx, int idx_kind, int total);
void ml_rec_sendrecv(struct ml_call *c, uint16_t comm, MPI_Datatype st, int dest, int stag,
                     int64_t scount, int source, MPI_Datatype rt, int64_t rcount, int rtag,
                     MPI_Status *status, int ret);
void ml_rec_coll(struct ml_call *c, uint16_t comm, int root, MPI_Datatype st, int64_t scount,
                 MPI_Datatype rt, int64_t rcount, uint64_t req, int ret);
/* The same for a nonblocking collective: + its request and its instance
 * number on the communicator (mlformat.h ML_REC_COLL). */
void ml_rec_coll_req(struct ml_call *c, uint16_t comm, int root, MPI_Datatype st, int64_t scount,
                     MPI_Datatype rt, int64_t rcount, uint64_t req, uint64_t seq, int ret);
/* What a collective's count arrays add up to (the v- and w-variants, the
 * neighbourhood collectives), for ml_rec_coll's counts.  ml_coll_blocks:
 * how many blocks a count array describes: the neighbours (nbr 1; recv: the
 * sources, else the destinations), the local group (nbr 2, MPI_Reduce_scatter),
 * else the group the blocks go to or come from (the remote group of an
 * inter-communicator).  ml_coll_sum: the array's sum over those blocks (0 for
 * NULL); c64: MPI_Count entries.  ml_coll_wbytes: sum of count x size of
 * its type (MPI_Alltoallw).  ml_coll_mine: the entry of this process (MPI_Reduce_scatter).
 * ml_coll_isroot: whether this process is the root (MPI_ROOT on an
 * inter-communicator), where the root's arrays alone are significant. */
int ml_coll_blocks(MPI_Comm comm, int nbr, int recv);
/* The neighbours a fixed-count neighbourhood collective moves data with:
 * ml_coll_blocks(comm, 1, recv) less a Cartesian topology's MPI_PROC_NULL
 * neighbours (beyond a non-periodic border), which the sums skip too. */
int ml_coll_peers(MPI_Comm comm, int recv);
int64_t ml_coll_sum(MPI_Comm comm, const void *counts, int c64, int nbr, int recv);
int64_t ml_coll_wbytes(MPI_Comm comm, const void *counts, int c64, const MPI_Datatype *types, int nbr,
                       int recv);
int64_t ml_coll_mine(MPI_Comm comm, const void *counts, int c64);
int ml_coll_isroot(MPI_Comm comm, int root);
/* The same for a Fortran collective with count arrays recorded by the
 * Fortran wrapper (Open MPI's binding calls PMPI_ itself): before the call,
 * its send buffer, count and type arrays (NULL where it has none), its
 * receive type; kind 1: MPI_Reduce_scatter (its type is the send type). */
void ml_fortran_vcoll(struct ml_call *c, void *sbuf, void *scounts, void *stypes, void *rcounts,
                      void *rtypes, void *rtype, int kind);
/* MPI-IO (mlformat.h ML_REC_IO): a read or write of count x datatype on
 * file handle fh, or (ML_IO_OPEN) the handle MPI_File_open made and the
 * file's name (its last ML_IO_NAME_MAX - 1 bytes). */
void ml_rec_io(struct ml_call *c, uint64_t fh, MPI_Datatype dt, int64_t count, unsigned flags,
               const char *name, int ret);
/* Live slot of a thread the program starts (failsafe.c pthread_create). */
void ml_thread_claim(int slot);
int ml_thread_reserve(void);
void ml_thread_reserved(int slot, pthread_t t);
extern __thread int ml_own_thread;  /* set while the runtime starts a thread of its own */
void ml_thread_unclaim(void);
/* pthread_join of the program (failsafe.c): shown in the live slot. */
int ml_join_begin(pthread_t t, void *ret_addr);
void ml_join_end(void);
/* Fortran entry: what the call waits for, from its arguments, before it runs. */
void ml_fortran_live(struct ml_call *c, void *comm, void *peer, void *tag);
/* MPI_Sendrecv(_replace) from Fortran: the send in peer/tag, the receive's
 * source and tag in aux (as the C wrapper publishes them). */
void ml_fortran_live_sr(struct ml_call *c, void *comm, void *dest, void *stag, void *source, void *rtag);
uint64_t *ml_req_save(int n, const MPI_Request *reqs, uint64_t *buf);
MPI_Status *ml_status_buf(int n, MPI_Status *buf);
/* The same, but MPI_STATUSES_IGNORE where one of the nreq requests is a
 * persistent collective's (requests.c: MPICH 4.0's MPI_Testall). */
MPI_Status *ml_status_buf_req(int n, MPI_Status *buf, const uint64_t *reqs, int nreq);
void ml_pcoll_note(uint64_t request);
void ml_pcoll_forget(uint64_t request);
void *ml_real(const char *sym);
void ml_fortran_record(struct ml_call *c, void *comm, void *peer, void *tag, void *count,
                       void *dtype);
void ml_fortran_recv(struct ml_call *c, void *rcount, void *rtype);
/* MPI_Comm_set_name succeeded (C; Fortran: the handle): records the name. */
void ml_comm_named(MPI_Comm comm);
void ml_comm_named_f(void *comm);
/* The gather and scatter family from Fortran: the buffers, to tell
 * MPI_IN_PLACE (kind 1: the send side, counts the receive counts of a
 * v-variant; kind 2: the receive side of a scatter, counts its send counts). */
void ml_fortran_inplace(struct ml_call *c, void *sbuf, void *rbuf, void *counts, int kind);

/* failure capture (failsafe.c) */
void ml_fs_process_init(struct ml_header *h, struct ml_live *lives, int fd);
void ml_fs_thread_start(void);
void ml_fs_after_init(void);
void ml_fs_before_finalize(void);
void ml_fs_at_exit(void);
void ml_fs_mpi_error(struct ml_call *c, int err);
void ml_fs_abort(struct ml_call *c, int code);
void ml_fs_abort_nested(int code, void *ret_addr, uint16_t routine);
MPI_Errhandler ml_fs_eh_in(MPI_Errhandler e, int kind);
void *ml_fs_eh_fn(void *fn, int kind);
void ml_fs_eh_created(int ret, MPI_Errhandler *e);
void ml_fs_eh_out(MPI_Errhandler *e);
void *ml_fs_eh_in_f(void *eh, int kind);
void ml_fs_eh_out_f(void *eh);
void ml_fs_win_created(MPI_Win w);
void ml_fs_win_created_f(void *w);
/* 1 if a is in the runtime's own code (its mapping, or the archive's section) */
int ml_fs_own(uintptr_t a);

ML_INLINE uint64_t ml_now(void)
{
    if (ML_LIKELY(ml_use_tsc)) return __rdtsc();
    return ml_ticks_slow();
}

/* Python programs (python.c): mpi4py's code, whose calls take the line of
 * the Python frame that made them (ml_py_len 0: not a Python program).  Its
 * return addresses never enter the site cache, so they always come to
 * ml_site_slow, which asks for the frame: other programs pay nothing. */
extern uintptr_t ml_py_lo, ml_py_len;
uintptr_t ml_py_addr(struct ml_thread *th);
void ml_py_setup(int chains);
unsigned ml_py_modules(struct ml_module *out, unsigned room);
void ml_py_modules_changed(unsigned n);

/* With call chains (rt.c, chain_site) the cache stays empty: every call
 * takes the slow path, and this one is the same with or without them. */
ML_INLINE uint32_t ml_site(struct ml_thread *th, void *ret_addr)
{
    uintptr_t a = (uintptr_t)ret_addr;
    unsigned h = (unsigned)((a >> 2) ^ (a >> 9)) & (ML_SITE_CACHE - 1);
    if (ML_LIKELY(th->sites[h].addr == a)) return th->sites[h].id;
    return ml_site_slow(th, a);
}

/* Returns 0 when the call must not be recorded (nested inside another
 * wrapper): the wrapper then just calls PMPI. */
int ml_enter_slow(struct ml_call *c, uint16_t routine, void *ret_addr);

/* The slow paths get a copy of the wrapper's struct ml_call, never its
 * address: a struct whose address escapes lives in memory across the PMPI
 * call (GCC's escape analysis is flow-insensitive), and every field would be
 * stored and loaded again, the constant routine id included. */
ML_INLINE int ml_enter(struct ml_call *c, uint16_t routine, void *ret_addr)
{
    struct ml_thread *th = &ml_th;
    if (ML_UNLIKELY(th->ok != 1)) {
        struct ml_call tmp;
        if (!ml_enter_slow(&tmp, routine, ret_addr)) return 0;
        *c = tmp;
        return 1;
    }
    th->ok = 0;
    c->th = th;
    c->routine = routine;
    c->site = ml_site(th, ret_addr);
    c->t0 = ml_now();
    return 1;
}

ML_INLINE uint16_t ml_comm_index(MPI_Comm comm)
{
    struct ml_thread *th = &ml_th;
    if (ML_LIKELY(th->comm_handle == ML_HANDLE(comm) && th->comm_gen == ml_comm_gen))
        return th->comm_index;
    return ml_comm_lookup(comm);
}

/* Datatype index and size, through the thread's one-entry cache. */
ML_INLINE uint16_t ml_type_cached(MPI_Datatype type, int64_t *size)
{
    struct ml_thread *th = &ml_th;
    if (ML_LIKELY(th->type_handle == ML_HANDLE(type) && th->type_gen == ml_type_gen)) {
        *size = th->type_size;
        return th->type_index;
    }
    return ml_type_index(type, size);
}

/* What a blocking call waits for, for the live view's deadlock analysis.
 * Only this thread writes its slot, so the sequence lock is plain stores
 * ordered by compiler barriers: x86 keeps stores in program order, and a
 * reader copies the slot and checks seq (acquire loads) before and after.
 * The odd/even count is the slot's own seq (no second copy to keep). */
ML_INLINE void ml_live_publish(struct ml_call *c, int peer, int tag, uint16_t comm, uint64_t aux,
                                int with_aux)
{
    struct ml_live *l = c->th->live;
    uint32_t s = l->seq;
    l->seq = s + 1;                           /* odd: being written */
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->routine = c->routine;
    l->site = c->site;
    l->peer = peer;
    l->tag = tag;
    l->comm = comm;
    if (with_aux) l->aux = aux;
    l->t_start = c->t0;
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->seq = s + 2;
}

ML_INLINE void ml_live_wait(struct ml_call *c, int peer, int tag, uint16_t comm)
{
    ml_live_publish(c, peer, tag, comm, 0, 0);
}

/* Same, with the routine-specific word (mlformat.h, struct ml_live: aux). */
ML_INLINE void ml_live_wait_aux(struct ml_call *c, int peer, int tag, uint16_t comm, uint64_t aux)
{
    ml_live_publish(c, peer, tag, comm, aux, 1);
}

/* Number of this collective on communicator definition ci (1, 2, ...). */
ML_INLINE uint64_t ml_coll_next(uint16_t ci)
{
    return ci == ML_COMM_NONE ? 0 : ++ml_coll_seq[ci];
}

ML_INLINE void ml_leave(struct ml_call *c)
{
    c->t1 = ml_now();
    c->th->ok++;
}

/* Reserve a record of `words` 8-byte words and fill its common header. */
ML_INLINE struct ml_rec *ml_rec_begin(struct ml_call *c, uint8_t type, unsigned words)
{
    struct ml_thread *th = c->th;
    if (ML_UNLIKELY(c->t0 - th->last > UINT32_MAX || th->cur + words * 8 + 48 > th->end))
        ml_time_record(th, c->t0, words);
    struct ml_rec *r = (struct ml_rec *)th->cur;
    uint64_t d = c->t1 - c->t0;
    uint64_t w0 = type | (uint64_t)words << 8 | (uint64_t)c->routine << 16 | (uint64_t)c->site << 32;
    uint64_t w1 = (c->t0 - th->last) | (d >= UINT32_MAX ? (uint64_t)UINT32_MAX : d) << 32;
    memcpy(r, &w0, 8);
    memcpy((char *)r + 8, &w1, 8);
    th->last = c->t0;
    th->cur += words * 8;
    return r;
}

/* Publish the record (and its follow-ups) to readers. */
ML_INLINE void ml_rec_commit(struct ml_call *c, struct ml_rec *r, int ret)
{
    struct ml_thread *th = c->th;
    (void)r;
    if (ML_UNLIKELY(c->t1 - c->t0 >= UINT32_MAX)) {
        struct ml_call tmp = *c;
        ml_longdur_record(&tmp);
    }
    if (ML_UNLIKELY(ret != MPI_SUCCESS)) {
        struct ml_call tmp = *c;
        ml_result_record(&tmp, ret);
    }
    __atomic_store_n(&th->chunk->committed, (uint32_t)(th->cur - (char *)(th->chunk + 1)),
                     __ATOMIC_RELEASE);
}

/* Publish the record; one atomic store ends the call for the live view. */
ML_INLINE void ml_rec_end(struct ml_call *c, struct ml_rec *r, int ret)
{
    ml_rec_commit(c, r, ret);
    __atomic_store_n(&c->th->live->t_end, c->t1, __ATOMIC_RELEASE);
}

void ml_poll_gap(struct ml_thread *th, uint64_t prev, uint64_t t0, uint64_t now);
void ml_poll_sample(struct ml_thread *th, uint64_t now);

ML_INLINE int ml_idle_same(const struct ml_rec *a, const struct ml_rec *b)
{
    const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
    if (x[0] != y[0]) return 0;            /* type, length, routine, site */
    for (unsigned i = 2; i < a->words; i++)  /* payload (words 1: times) */
        if (x[i] != y[i]) return 0;
    return 1;
}

/* Same for a call that completed nothing (an unsuccessful test or probe):
 * its end goes to t_idle, so t_end changes only with progress.
 * A run of such calls, each the same as the one before but for its times and
 * nothing recorded between them, is kept as the first call and one REPEAT
 * record (mlformat.h) updated in place: the record just written at r is
 * taken back, and the REPEAT's count and end change in one 8-byte store. */
ML_INLINE void ml_rec_run(struct ml_call *c, struct ml_rec *r, int ret)
{
    struct ml_thread *th = c->th;
    if ((char *)r == th->idle_next && ML_LIKELY(ret == MPI_SUCCESS) &&
        c->t1 - th->idle_t0 < UINT32_MAX && ml_idle_same(th->idle_rec, r)) {
        struct ml_rec *p = th->idle_rep;
        uint64_t end = c->t1 - th->idle_t0;
        th->last = th->idle_t0;            /* the next dt counts from the first call */
        if (p) {
            th->cur = (char *)r;
            if (p->words >= 3) {      /* the repeats' time inside the calls, before the count */
                uint64_t *busy = (uint64_t *)p + 2;
                __atomic_store_n(busy, *busy + (c->t1 - c->t0), __ATOMIC_RELAXED);
            }
            __atomic_store_n((uint64_t *)p + 1, (p->dt + 1) | end << 32, __ATOMIC_RELEASE);
        } else {
            /* 24 bytes with the repeats' time inside the calls where the call's
             * record leaves room (a P2P or completion record), else 16 */
            unsigned words = r->words >= 3 ? 3 : 2;
            uint64_t w0 = ML_REC_REPEAT | (uint64_t)words << 8 | (uint64_t)c->routine << 16 |
                          (uint64_t)c->site << 32;
            uint64_t w1 = 1 | end << 32, w2 = c->t1 - c->t0;
            memcpy(r, &w0, 8);
            memcpy((char *)r + 8, &w1, 8);
            if (words == 3) memcpy((char *)r + 16, &w2, 8);
            th->idle_rep = r;
            th->cur = (char *)r + 8 * words;
            th->idle_next = th->cur;
            __atomic_store_n(&th->chunk->committed,
                             (uint32_t)(th->cur - (char *)(th->chunk + 1)), __ATOMIC_RELEASE);
        }
    } else {
        ml_rec_commit(c, r, ret);
        /* a follow-up (RESULT, LONGDUR) starts no run */
        th->idle_next = (char *)r + r->words * 8 == th->cur ? th->cur : NULL;
        th->idle_rec = r;
        th->idle_rep = NULL;
        th->idle_t0 = c->t0;
    }
}

ML_INLINE void ml_rec_end_idle(struct ml_call *c, struct ml_rec *r, int ret)
{
    struct ml_live *l = c->th->live;
    ml_rec_run(c, r, ret);
    /* a poll after more than ML_WORK_GAP_NS outside MPI: work between polls,
     * unless the thread spent that time waiting for a CPU (ml_poll_gap) */
    uint64_t prev = l->t_end > l->t_idle ? l->t_end : l->t_idle;
    if (ML_UNLIKELY(c->t0 - prev > ml_work_gap && prev < c->t0))
        ml_poll_gap(c->th, prev, c->t0, c->t1);
    else if (ML_UNLIKELY(c->t1 - c->th->sched_tick > ml_sample_gap))
        ml_poll_sample(c->th, c->t1);
    __atomic_store_n(&l->t_idle, c->t1, __ATOMIC_RELEASE);
}

ML_INLINE void ml_rec_call(struct ml_call *c, int ret)
{
    struct ml_rec *r = ml_rec_begin(c, ML_REC_CALL, 2);
    ml_rec_end(c, r, ret);
}

/* MPI_Wtime and MPI_Wtick: local, and called in tight loops (a busy wait
 * `while (MPI_Wtime() < t)` is a common way to simulate work): a run of them
 * is kept as the first call and a REPEAT record, as for polls (one record
 * per call wrote about 500 MB/s here). */
ML_INLINE void ml_rec_call_timer(struct ml_call *c, int ret)
{
    struct ml_rec *r = ml_rec_begin(c, ML_REC_CALL, 2);
    ml_rec_run(c, r, ret);
}

/* A local call (MPI_Comm_rank, MPI_Wtime, ...): recorded, live slot untouched. */
ML_INLINE void ml_rec_call_local(struct ml_call *c, int ret)
{
    struct ml_rec *r = ml_rec_begin(c, ML_REC_CALL, 2);
    ml_rec_commit(c, r, ret);
}

/* A call that reports through a flag whether it completed something. */
ML_INLINE void ml_rec_call_flag(struct ml_call *c, int ret, int flag)
{
    struct ml_rec *r = ml_rec_begin(c, ML_REC_CALL, 2);
    if (flag) ml_rec_end(c, r, ret);
    else ml_rec_end_idle(c, r, ret);
}

ML_INLINE uint32_t ml_bytes(int64_t count, int64_t size)
{
    if (count <= 0 || size <= 0) return 0;
    return size > (int64_t)UINT32_MAX / count ? UINT32_MAX : (uint32_t)(count * size);
}

ML_INLINE void ml_rec_p2p_raw(struct ml_call *c, uint16_t comm, uint16_t t, int peer,
                                  int tag, uint32_t bytes, uint64_t req, int ret, int has_req,
                                  int idle)
{
    struct ml_rec *r = ml_rec_begin(c, has_req ? ML_REC_P2P_REQ : ML_REC_P2P, has_req ? 5 : 4);
    struct ml_p2p *p = (struct ml_p2p *)(r + 1);
    p->comm = comm;
    p->dtype = t;
    p->peer = peer;
    p->tag = tag;
    p->bytes = bytes;
    if (has_req) *(uint64_t *)(p + 1) = req;
    if (idle) ml_rec_end_idle(c, r, ret);
    else ml_rec_end(c, r, ret);
}

ML_INLINE void ml_rec_p2p(struct ml_call *c, uint16_t comm, MPI_Datatype dt, int peer,
                              int tag, int64_t count, uint64_t req, int ret, int has_req)
{
    int64_t size = 0;
    uint16_t t = dt == MPI_DATATYPE_NULL ? ML_TYPE_NONE : ml_type_cached(dt, &size);
    ml_rec_p2p_raw(c, comm, t, peer, tag, ml_bytes(count, size), req, ret, has_req, 0);
}

/* PMPI_Get_count(st, MPI_BYTE, &n) without the call: the byte count the
 * implementation keeps in its status, read as its own MPI_Get_count reads it
 * (Open MPI 4: size_t _ucount; MPICH: count_lo and count_hi_and_cancelled
 * >> 1, combined with count_lo sign-extended), as a byte count for the
 * record (saturating at UINT32_MAX, as ml_bytes), or -1 when unknown. */
ML_INLINE int64_t ml_status_bytes(const MPI_Status *st)
{
#if defined(OPEN_MPI)
    size_t n = st->_ucount;
    return n > (size_t)UINT32_MAX ? (int64_t)UINT32_MAX : (int64_t)n;
#elif defined(MPICH_VERSION)
    int64_t n = (int64_t)(unsigned)st->count_lo | ((int64_t)st->count_hi_and_cancelled >> 1) << (8 * sizeof(int));
    return n < 0 ? -1 : n > (int64_t)UINT32_MAX ? (int64_t)UINT32_MAX : n;
#else
    int n = 0;
    return PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED ? n : -1;
#endif
}

/* MPI_Test_cancelled without the call (the same field it reads). */
ML_INLINE int ml_status_cancelled(const MPI_Status *st)
{
#if defined(OPEN_MPI)
    return st->_cancelled != 0;
#elif defined(MPICH_VERSION)
    return (st->count_hi_and_cancelled & 1) != 0;
#else
    int f = 0;
    return PMPI_Test_cancelled(st, &f) == MPI_SUCCESS && f;
#endif
}

/* Receives and probes: the actual source, tag and size come from the status
 * (valid: the call completed a message, e.g. Iprobe's flag). */
ML_INLINE void ml_rec_p2p_status(struct ml_call *c, uint16_t comm, MPI_Datatype dt, int peer,
                                     int tag, int64_t count, MPI_Status *st, uint64_t req, int ret,
                                     int has_req, int valid)
{
    int64_t size = 0;
    uint16_t t = dt == MPI_DATATYPE_NULL ? ML_TYPE_NONE : ml_type_cached(dt, &size);
    uint32_t bytes = ml_bytes(count, size);
    if (ret == MPI_SUCCESS && valid && !has_req && peer != MPI_PROC_NULL) {
        peer = st->MPI_SOURCE;
        tag = st->MPI_TAG;
        int64_t n = ml_status_bytes(st);
        if (n >= 0) bytes = (uint32_t)n;
    } else if (ret == MPI_SUCCESS && valid && !has_req) {
        bytes = 0;   /* from MPI_PROC_NULL: nothing received (its status: count 0) */
    }
    ml_rec_p2p_raw(c, comm, t, peer, tag, bytes, req, ret, has_req, !has_req && !valid);
}

/* ---- Fortran entry points ---------------------------------------------- */

#define ML_FARGS void *a0, void *a1, void *a2, void *a3, void *a4, void *a5, void *a6, \
    void *a7, void *a8, void *a9, void *a10, void *a11, void *a12, void *a13, void *a14, \
    void *a15, void *a16, void *a17, void *a18, void *a19
#define ML_FPASS a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, \
    a17, a18, a19

ML_INLINE int ml_fenter(struct ml_call *c, uint16_t routine, void *ret_addr)
{
    struct ml_thread *th = &ml_th;
    if (ML_UNLIKELY(th->ok != 1)) {
        if (th->chunk != NULL || ml_disabled) return 0;   /* nested, or not recording */
        ml_thread_start(th);
        if (th->ok != 1) return 0;
    }
    th->ok = -1;
    c->th = th;
    c->routine = routine | ML_ROUTINE_FORTRAN;
    c->site = ml_site(th, ret_addr);
    th->fort_site = c->site;
    th->fort_pending = 1;
    th->fort_taken = 0;
    c->t0 = ml_now();
    ml_live_wait(c, ML_PEER_NONE, ML_PEER_NONE, ML_COMM_NONE);
    return 1;
}

/* Wrapper of one Fortran symbol: forwards every argument register and stack
 * slot untouched (Fortran passes everything by reference, plus hidden
 * string lengths), so one shape fits every routine.  MID runs inside the
 * recorded call, after the library's (the runtime's work at MPI_Init). */
#define ML_FORTRAN(RT, SYM, RID, COMM, PEER, TAG, COUNT, DTYPE, PRE, POST)          \
    ML_FORTRAN_MID(RT, SYM, RID, COMM, PEER, TAG, COUNT, DTYPE, PRE, {}, POST)
#define ML_FORTRAN_MID(RT, SYM, RID, COMM, PEER, TAG, COUNT, DTYPE, PRE, MID, POST) \
    RT SYM(ML_FARGS)                                                                 \
    {                                                                                \
        static RT (*real)(ML_FARGS);                                                 \
        if (ML_UNLIKELY(!real)) real = (RT(*)(ML_FARGS))ml_real(#SYM);               \
        struct ml_call c;                                                            \
        if (!ml_fenter(&c, RID, __builtin_return_address(0))) {                      \
            if (ML_LIKELY(!ml_lost)) return real(ML_FPASS);                          \
            ml_lost_pre(RID);                                                        \
            RT r_ = real(ML_FPASS);                                                  \
            ml_lost_post(RID);                                                       \
            return r_;                                                               \
        }                                                                            \
        PRE;                                                                         \
        ml_fortran_live(&c, COMM, PEER, TAG);                                        \
        RT ret = real(ML_FPASS);                                                     \
        MID;                                                                         \
        c.t1 = ml_now();                                                             \
        c.th->ok = 1;                                                                \
        c.th->fort_pending = 0;                                                      \
        if (!c.th->fort_taken) ml_fortran_record(&c, COMM, PEER, TAG, COUNT, DTYPE); \
        c.th->fort_taken = 0;                                                        \
        POST;                                                                        \
        return ret;                                                                  \
    }

#pragma GCC visibility pop

#endif
