/*
 * analysis.h — the analysis library behind `mpilens report` and `mpilens
 * export`.  It reads a run directory once per pass, as one stream of events
 * of all ranks in aligned-time order, and never holds more than the ranks'
 * current events and the messages still in flight: memory grows with ranks
 * and open requests, not with the length of the run.
 *
 *   input.c    open a run directory; check every file (cut, corrupt, other
 *              version, other job, missing ranks); routine roles; the
 *              communicators of all ranks under one global numbering; or
 *              one process's slice of it (parallel analysis)
 *   align.c    each rank's clock onto rank 0's: linear between the offsets
 *              measured at MPI_Init and MPI_Finalize, then repaired so no
 *              receive ends before its send began
 *   stream.c   k-way merge of the ranks' event streams by aligned start time
 *   match.c    sends paired with receives by MPI's matching rules;
 *              collectives grouped into instances per communicator
 *   profile.c  time, calls and bytes per routine, call site and rank
 *   diag.c     the failure diagnosis from the headers and live slots (diag.h)
 *
 * Names: an_* is this library's public face; everything else is static.
 */
#ifndef ML_ANALYSIS_H
#define ML_ANALYSIS_H

#include <stdint.h>
#include <stdio.h>

#include "reader.h"

/* ---- routine roles (what a routine does for matching) ------------------ */

enum an_role {
    AN_OTHER = 0,
    AN_SEND,        /* MPI_Send, Bsend, Ssend, Rsend (and _c): blocking send */
    AN_ISEND,       /* MPI_Isend, Ibsend, Issend, Irsend: P2P_REQ */
    AN_RECV,        /* MPI_Recv: actual source, tag, size from the status */
    AN_IRECV,       /* MPI_Irecv: P2P_REQ with the requested source/tag */
    AN_SEND_INIT,   /* MPI_Send_init, Bsend_init, ...: persistent request */
    AN_RECV_INIT,   /* MPI_Recv_init */
    AN_SENDRECV,    /* MPI_Sendrecv, Sendrecv_replace */
    AN_ISENDRECV,   /* MPI_Isendrecv(_replace) (MPI-4): SENDRECV + request (older files: none) */
    AN_PROBE,       /* MPI_Probe, Iprobe: do not consume a message */
    AN_MPROBE,      /* MPI_Mprobe: consumes the message (Mrecv receives it) */
    AN_IMPROBE,     /* MPI_Improbe: P2P_REQ (message handle) when it found one, which it
                       consumes like MPI_Mprobe; P2P when it found none (and in older files) */
    AN_START,       /* MPI_Start, Startall: COMPLETE layout, started requests */
    AN_CANCEL,      /* MPI_Cancel: COMPLETE layout naming its request (completes nothing) */
    AN_INIT,        /* MPI_Init, Init_thread */
    AN_FINALIZE,    /* MPI_Finalize */
    AN_FREE,        /* MPI_Request_free: COMPLETE layout naming its request */
    AN_COLL_INIT,   /* MPI_Allreduce_init, Bcast_init, ... (MPI 4.0; Open MPI 4.1: MPIX_*_init):
                       a persistent collective; COLL with its request (older files: none),
                       each MPI_Start of it one operation (match.c, AN_OP_COLL_START) */
    AN_RMA,         /* MPI_Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap
                       and the R-forms: P2P, peer = target rank (in the window's communicator),
                       tag ML_PEER_NONE, bytes = origin bytes; never a message to match */
};

enum an_role an_role_of(const char *routine);
/* The record type the call a rank was in when its records stop (read from
 * its live slot, type ML_REC_CALL) would have had, by its routine's role or
 * (a collective) its name: ML_REC_P2P, ML_REC_SENDRECV, ML_REC_COLL or
 * ML_REC_CALL; its communicator, peer and tag are in p2p[0]. */
struct an_rank;
struct mlr_event;
uint8_t an_unfinished_type(const struct an_rank *r, const struct mlr_event *ev, const char *routine);
/* A persistent collective's init (MPI_Allreduce_init, _c, Open MPI's
 * MPIX_Allreduce_init): 1, and the routine each start of it performs
 * ("MPI_Allreduce") in out (when not NULL); else 0. */
int an_pcoll_base(const char *routine, char *out, size_t size);

/* ---- time arithmetic ------------------------------------------------------
 * Times come from files that may be corrupt or hostile: arithmetic on them
 * wraps instead of overflowing (never undefined behaviour), sums saturate,
 * and doubles are clamped before they become integers. */

/* A growing byte buffer (what a process of a sliced analysis sends):
 * an_buf_put appends; where memory runs out, oom is set and the rest
 * dropped.  Free p. */
struct an_buf {
    char *p;
    size_t n, cap;
    int oom;
};
void an_buf_put(struct an_buf *b, const void *v, size_t n);

static inline int64_t an_wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t an_wsub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t an_sadd(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) r = b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}
static inline int64_t an_smul(int64_t a, uint64_t n)   /* a >= 0 */
{
    int64_t r;
    if (n > INT64_MAX || __builtin_mul_overflow(a, (int64_t)n, &r)) r = INT64_MAX;
    return r;
}
/* The time a run of repeated polls (REPEAT) spent inside its repeats: as
 * recorded, else each as long as the first call; within the span from the
 * first call's end to the last one's (what is left of it is the loop's time
 * between the calls).  docs/REPORT.md, "Repeated polls". */
static inline int64_t an_repeat_ns(const struct mlr_event *ev)
{
    int64_t span = an_wsub(ev->repeat_end_ns, ev->end_ns), dur = an_wsub(ev->end_ns, ev->start_ns);
    if (span < 0) span = 0;
    int64_t rep = ev->repeat_busy_ns >= 0 ? ev->repeat_busy_ns : an_smul(dur < 0 ? 0 : dur, ev->repeat);
    return rep < span ? rep : span;
}
static inline int64_t an_d2i(double d)
{
    if (d != d) return 0;
    if (d >= 9.2e18) return INT64_MAX;
    if (d <= -9.2e18) return INT64_MIN;
    return (int64_t)d;
}

/* ---- clocks (align.c) --------------------------------------------------- */

struct an_step {          /* from local time t on, events are `extra` ns later */
    int64_t t, extra;     /* extra is cumulative */
};

struct an_clock {
    int samples;          /* clock samples used: 0, 1 (MPI_Init only) or 2 */
    int64_t t0, off0;     /* local ns of the MPI_Init sample, its offset to rank 0 */
    int64_t t1, off1;     /* the same at MPI_Finalize (= t0, off0 with one sample) */
    double slope;         /* offset change per local ns between the samples */
    struct an_step *steps;/* repairs, sorted by t */
    unsigned nsteps, cap;
};

/* Build from the header's samples; returns a static explanation when a
 * sample was unusable (ignored), else NULL. */
const char *an_clock_init(struct an_clock *c, const struct ml_header *h);
void an_clock_free(struct an_clock *c);

/* Rank 0's clock at local time t (interpolated offset, no repairs). */
static inline int64_t an_clock_base(const struct an_clock *c, int64_t t)
{
    if (c->samples < 2 || t <= c->t0) return an_wadd(t, c->off0);
    if (t >= c->t1) return an_wadd(t, c->off1);
    return an_wadd(an_wadd(t, c->off0), an_d2i(c->slope * (double)an_wsub(t, c->t0)));
}
/* Repair in effect for an event that started at local time t. */
int64_t an_clock_extra(const struct an_clock *c, int64_t t);
/* The event at local time t moves `inc` ns later, and so do the events
 * after it, except those already moved as far or further (inc > 0). */
int an_clock_repair(struct an_clock *c, int64_t t, int64_t inc);
/* The largest repair of this rank. */
int64_t an_clock_max_extra(const struct an_clock *c);

/* ---- run directory (input.c) -------------------------------------------- */

struct an_comm {          /* one communicator, the same object on all its ranks */
    uint32_t id;          /* index in an_run.comms */
    uint64_t key;         /* global_id and members hashed */
    int world;            /* MPI_COMM_WORLD */
    int inter;
    uint32_t size;        /* local group + remote group */
    uint32_t lsize;       /* inter-communicators: the first group's size (positions 0 .. lsize-1 in
                           * members; the other group after it), else size */
    const int32_t *members; /* world ranks (one file's copy), NULL for the world */
    int first_rank;       /* a rank that defined it */
    const char *name;     /* set with MPI_Comm_set_name (one file's copy), else NULL */
    const int32_t **src;  /* a virtual topology: per position, the in-neighbours that member's */
    int32_t *nsrc;        /* file names (positions; nsrc -1: not known), else both NULL */
};

struct an_rank {
    struct mlr_file *f;
    int rank;                 /* MPI_COMM_WORLD rank */
    int32_t any_source, proc_null, mpi_root; /* this MPI's special ranks */
    unsigned nroutines;
    uint8_t *role;            /* per routine id: enum an_role */
    uint16_t *name;           /* per routine id: index in an_run.names */
    unsigned ncomms;
    uint32_t *comm;           /* per comm definition index: an_comm id, or UINT32_MAX */
    struct an_clock clock;
};

struct an_run {
    char *dir;
    int size;                 /* MPI_COMM_WORLD size */
    unsigned n;               /* ranks read */
    struct an_rank *ranks;    /* sorted by rank */
    int *slot;                /* world rank -> index in ranks, or -1 */
    unsigned nfiles;          /* rank files found */
    char **names;             /* routine names of all files */
    unsigned nnames;
    uint8_t *name_role;       /* per name: enum an_role */
    uint32_t *name_index;     /* internal: hash table over names */
    unsigned name_hcap;
    struct an_comm *comms;
    unsigned ncomms;
    char mpi_impl[33];
    char mpi_version[257];
    char exe[513];
    char *problems;           /* NUL-separated lines: file and what is wrong */
    size_t problems_len;
    unsigned nproblems;
    struct an_slice *slice;   /* opened as a slice (an_run_open_slice), else NULL */
};

/* A run opened by one process of a parallel analysis (docs/PARALLEL.md):
 * an_run.ranks holds only the ranks of its own files; names, communicators,
 * size and problems are the whole run's, numbered as an_run_open numbers
 * them. */
struct an_slice {
    struct an_xch *x;
    int *owner;               /* world rank -> process that reads its file, -1 no file */
    const char **host;        /* world rank -> host of its file, NULL no file */
    void *blob;               /* what the processes told each other (host, members point into it) */
    char **files;             /* this process's block of rank files (paths), all it opened or tried */
    unsigned nfiles;
    int single;               /* the run is one rank file, not a directory */
};

/* Opens every readable rank file of dir (or the single rank file dir).
 * Returns 0, or a negative MLR_* error when nothing at all is readable; in
 * both cases run->problems says what was wrong with which file. */
int an_run_open(const char *dir, struct an_run *run);
/* The same as process x->rank of x->size (collective): the rank files are
 * split into contiguous blocks by their order in dir (an_xch_slice) and
 * this process opens only its block; what the run's numbering needs of the
 * others (job, rank, routine names, communicators, host, problems) is
 * exchanged.  Every process returns the same value. */
struct an_xch;
int an_run_open_slice(const char *dir, struct an_xch *x, struct an_run *run);
/* run->mpi_version and run->exe from the header of the run's lowest rank
 * and its executable's path (an_run_open does it; a sliced run's process
 * 0 with the header its owner sent). */
void an_run_header_text(struct an_run *run, const struct ml_header *h0, const char *exe);
void an_run_close(struct an_run *run);
/* Iterate problems: for (p = an_run_problem(run, NULL); p; p = an_run_problem(run, p)) */
const char *an_run_problem(const struct an_run *run, const char *prev);
/* World rank of `peer` (rank in communicator definition `comm` of rank r);
 * -1 if unknown, or for the special ranks. */
int an_peer_world(const struct an_run *run, const struct an_rank *r, uint16_t comm, int32_t peer);
/* Short name of a communicator: "MPI_COMM_WORLD", "comm 3 (2 ranks: 0,1)". */
void an_comm_name(const struct an_run *run, uint32_t id, char *buf, size_t n);
/* Bytes collective call c of rank r (routine name `routine`) moves through
 * this member's buffers, by its role: the send buffer it gives and the
 * receive buffer it fills (docs/REPORT.md, "Collective sizes"): a root of
 * MPI_Bcast sends the buffer and receives nothing, the others receive it;
 * every MPI_Allreduce member sends and receives the buffer; MPI_Gather's
 * root receives recvcount x size of the communicator; a barrier moves
 * nothing.  On an inter-communicator the roles are MPI's there: the root
 * (MPI_ROOT) gives or takes the data of the remote group, the rest of its
 * group (MPI_PROC_NULL) moves nothing, the remote group's members are the
 * non-roots, and the "all" routines send to and receive from the remote
 * group.  Counts the runtime summed (the v-variants' arrays, neighbourhood
 * collectives) stay as recorded. */
void an_coll_bytes(const struct an_run *run, const struct an_rank *r, const char *routine, const struct ml_coll *c,
                   uint64_t *sent, uint64_t *recv);
/* Earliest and latest aligned time of the run (from the headers' anchors). */
void an_run_span(const struct an_run *run, int64_t *first, int64_t *last);

/* ---- events in aligned order (stream.c) -------------------------------- */

struct an_event {
    struct mlr_event ev;      /* ev.done is valid until the next an_stream_next */
    struct an_rank *r;
    int64_t t0, t1;           /* aligned start and end, ns on rank 0's clock */
};

/* The stream gives every rank's events in order, and all events in aligned
 * start order give or take this much (ns); the first event is the
 * earliest of the run. */
#define AN_STREAM_SLACK 200000

struct an_stream;
struct an_stream *an_stream_new(struct an_run *run);
/* Next event of the run in aligned start order (see AN_STREAM_SLACK),
 * NULL at the end. */
const struct an_event *an_stream_next(struct an_stream *s);
uint64_t an_stream_count(const struct an_stream *s);
/* A second stream that goes on from where s is (the two are then
 * independent: a resume point, an_marks); *bytes (if not NULL) grows by
 * its size.  NULL when memory runs out. */
struct an_stream *an_stream_clone(const struct an_stream *s, size_t *bytes);
void an_stream_free(struct an_stream *s);

/* ---- matching (match.c) -------------------------------------------------- */

/* One side of a message: the call that posted or completed it. */
struct an_end {
    int32_t rank;
    uint32_t thread;
    uint16_t name;            /* routine (an_run.names) */
    uint8_t unsized;          /* a send of a call unfinished when its rank stopped: size not known */
    uint32_t site;            /* call site id in the rank's file */
    int64_t t0, t1;           /* local start and end of that call */
};

struct an_msg {               /* a matched message */
    uint32_t comm;            /* an_comm id */
    int32_t src, dst;         /* world ranks */
    int32_t tag;
    uint32_t bytes;           /* as sent */
    uint32_t recv_bytes;      /* as received (status), or the receive's size */
    struct an_end send;       /* the call that started the send */
    struct an_end recv;       /* the call that completed the receive */
    int recv_done;            /* 0: completion never seen (times are the posting call's) */
};

enum an_op_kind {
    AN_OP_SEND = 1,           /* blocking send posted and done */
    AN_OP_ISEND,              /* nonblocking or persistent send started */
    AN_OP_SEND_DONE,          /* ... and completed */
    AN_OP_RECV,               /* blocking receive done */
    AN_OP_IRECV,              /* nonblocking or persistent receive posted */
    AN_OP_RECV_DONE,          /* ... and completed */
    AN_OP_CANCELLED,          /* a request opened by ISEND or IRECV completed as cancelled */
    AN_OP_COLL_START,         /* MPI_Start(all) started a persistent collective: one operation,
                                 one arrival at an instance of its communicator (coll, name) */
};

/* What one event did to point-to-point traffic (for exporters).
 * Requests: an ISEND or IRECV with req != 0 opens activation `req` of its
 * rank, and at most one later op with the same req closes it: SEND_DONE
 * after ISEND, RECV_DONE after IRECV (peer -1 and peer_comm < 0 when the
 * sender is not known: a request freed, or its handle reused, before a
 * completion said), or CANCELLED after either.  Nothing closes what was
 * not opened: no op for requests on MPI_PROC_NULL, for inactive
 * persistent requests (a Wait on one, MPI_Request_free of one), or for
 * requests the matcher never saw start.  An ISEND with req == 0 (no request
 * recorded, or none kept) is never closed. */
struct an_op {
    uint8_t kind;
    uint32_t comm;            /* an_comm id, UINT32_MAX if unknown */
    int32_t peer;             /* world rank, -1 unknown */
    int32_t peer_comm;        /* rank in comm */
    int32_t tag;
    uint32_t bytes;
    uint64_t req;             /* unique per rank for one activation; COLL_START: the request handle */
    /* COLL_START: the init's payload (this rank's counts, root, its comm
     * definition index) and the routine it repeats (MPI_Allreduce for
     * MPI_Allreduce_init; the init's own name where that is unknown).
     * SEND, ISEND: name is the routine that made the send (the call's own;
     * for MPI_Start(all) the init's: MPI_Ssend_init, MPI_Send_init ...) */
    struct ml_coll coll;
    uint16_t name;
};

struct an_coll {              /* a collective instance, all members arrived */
    uint32_t comm;
    uint64_t index;           /* 0, 1, ... per communicator */
    uint16_t name;
    uint32_t members;
    int64_t first, last;      /* aligned start of the first and last arrival */
    int64_t end;              /* latest aligned end */
    uint64_t bytes;           /* sent + received over all members */
};

struct an_sink {              /* what a pass feeds; NULL callbacks are skipped */
    void *ctx;
    void (*event)(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops);
    void (*message)(void *ctx, const struct an_msg *m);
    void (*coll)(void *ctx, const struct an_coll *c);
};

/* A problem found by matching, grouped by kind and place. */
enum an_finding_kind {
    AN_F_UNMATCHED_SEND = 1,  /* a send no receive took */
    AN_F_UNMATCHED_RECV,      /* a completed receive no recorded send fits */
    AN_F_PENDING_RECV,        /* a receive posted and never completed or matched */
    AN_F_UNRESOLVED_RECV,     /* a wildcard receive whose actual source/tag was not recorded */
    AN_F_SIZE_MISMATCH,       /* receive got fewer bytes than sent (truncated?) */
    AN_F_COLL_INCOMPLETE,     /* a collective some members never called */
    AN_F_COLL_MISMATCH,       /* members called different collectives as instance k */
    AN_F_UNKNOWN_COMM,        /* a record names a communicator not defined */
    AN_F_OUTSIDE_COMM,        /* a record names a communicator reaching processes outside the job
                                 (MPI_Comm_spawn, _connect, _accept, _join); name2: its creator */
};

struct an_finding {
    enum an_finding_kind kind;
    uint32_t comm;
    int32_t rank, peer, tag;  /* rank: where it was seen; peer: other side */
    uint16_t name;            /* routine */
    uint32_t site;            /* call site in rank's file */
    uint64_t count, bytes;
    uint64_t index;           /* collectives: instance */
    uint16_t name2;           /* collectives: the other routine */
    uint8_t unsized;          /* unmatched sends, all of calls unfinished when their rank stopped: size
                                 not known (not part of the key) */
};

struct an_match_stats {
    uint64_t events;
    uint64_t messages, bytes;         /* matched */
    uint64_t sends, recvs;            /* messages started, receives completed (incl. unmatched) */
    uint64_t unmatched_sends, unmatched_send_bytes;
    uint64_t unmatched_unsized;        /* of those sends: of calls unfinished when their rank stopped
                                        * (size not recorded, not in unmatched_send_bytes) */
    uint64_t unmatched_recvs, pending_recvs, unresolved_recvs;
    uint64_t proc_null;               /* operations on MPI_PROC_NULL (no message) */
    uint64_t probes;                  /* probes seen (never consume) */
    uint64_t coll_calls, coll_instances, coll_incomplete, coll_mismatch;
    uint64_t untracked_done;          /* completed requests not started by a recorded call */
    uint64_t cancels;                 /* MPI_Cancel calls */
    uint64_t cancelled_recvs;         /* receives completed as cancelled (no message) */
    uint64_t cancelled_sends;         /* sends completed as cancelled (no message) */
    uint64_t unfinished;              /* calls in progress when their rank stopped or died */
    uint64_t held_max;                /* most receives held behind wildcards at once */
    uint64_t inflight_max;            /* most matcher records (waiting sends, unpaired receives) held at
                                       * once: the serial matcher's own memory, which follows the merged
                                       * stream's order; not reported (docs/PARALLEL.md) */
    uint64_t repaired;                /* messages whose receive had to move later */
    int64_t repair_max;               /* largest single repair (ns) */
    uint64_t repair_late;             /* repairs that moved a send already checked: another pass needed */
    uint64_t repair_skipped;          /* violations too large to be a clock error: not repaired */
    uint64_t repairable;              /* violations small enough to be repaired (repair on or not) */
    uint64_t moved;                   /* a pass without repair: messages that moved their receive (match.c moved) */
};

struct an_match;
struct an_match *an_match_new(struct an_run *run, const struct an_sink *sink);
/* Feed every event of the stream, in order. */
void an_match_event(struct an_match *m, const struct an_event *e);
/* End of stream: everything still in flight becomes a finding. */
void an_match_finish(struct an_match *m);
const struct an_match_stats *an_match_stats(const struct an_match *m);
/* Findings after an_match_finish, most significant first. */
const struct an_finding *an_match_findings(const struct an_match *m, unsigned *n);
/* Enable clock repair: a message whose receive ends before its send began
 * moves the receiving rank's later events (an_clock_repair). */
void an_match_set_repair(struct an_match *m, int on);
/* A matcher in the same state as m (channels, receives held behind
 * wildcards, open requests, collective instances not all members reached)
 * feeding sink instead: given the events that follow, it pairs and groups
 * them as m would.  Its findings start empty and it keeps no causality
 * ring (a copy replays with repair off).  *bytes (if not NULL) grows by its
 * size; NULL when memory runs out. */
struct an_match *an_match_clone(const struct an_match *m, const struct an_sink *sink, size_t *bytes);
/* About how many bytes an_match_clone of m would take now. */
size_t an_match_bytes(const struct an_match *m);
/* A send to a rank of another slice (docs/PARALLEL.md), as its sender's
 * owner ships it to the receiver's owner. */
struct an_send_rec {
    uint32_t comm;
    int32_t src, dst, tag;
    uint32_t bytes;
    int64_t at;               /* aligned start, by the sender's clock */
    struct an_end send;
    uint64_t id;              /* request activation of a nonblocking send, else 0 */
    int cancel;               /* to the outbox: send `id` of src was cancelled, take it back */
};
/* Sends to ranks without a slot in this run (another slice's) go to out
 * instead of a channel, and so do their successful cancels (cancel set):
 * a cancelled send never reaches a receive (the serial matcher pairs it
 * only when the receive came first in the stream, an order the slices do
 * not share). */
void an_match_set_outbox(struct an_match *m, void (*out)(void *ctx, const struct an_send_rec *s), void *ctx);
/* Findings in the report's order: kind, most frequent first, rank, then
 * the rest of the key (a total order: the same for any order of finding).
 * an_finding_same: the same key (kind, comm, rank, peer, tag, routine,
 * site, instance, other routine), whose counts add up. */
int an_finding_cmp(const void *a, const void *b);
int an_finding_same(const struct an_finding *a, const struct an_finding *b);
/* Who a collective instance is named after, whatever order its arrivals
 * come in: the earliest member (aligned start, then world rank) and the
 * earliest of those that called another routine than it (rankb -1: none,
 * the instance is not mismatched).  The instance bears the first one's
 * routine; a mismatch is reported on the second (rank, routine, site),
 * "where another rank called" the first one's routine.  an_coll_arrive
 * adds a member (first: the instance's first arrival); adding another
 * set's first and then its second member merges the two sets. */
struct an_coll_first {
    int64_t t0, t0b;
    int32_t rank, rankb;
    uint32_t site, siteb;
    uint16_t name, nameb;
};
void an_coll_arrive(struct an_coll_first *x, int first, int64_t t0, int32_t rank, uint16_t name, uint32_t site);
/* The finding of a mismatched instance (x->rankb >= 0). */
void an_coll_mismatch(const struct an_coll_first *x, uint32_t comm, uint64_t index, struct an_finding *f);
/* A sliced run: a communicator with members in other slices is never
 * completed by one matcher; each instance it reached holds this slice's
 * arrivals, to be combined with the other slices' (an_slice_report). */
struct an_coll_part {         /* 88 bytes */
    uint32_t comm;
    uint32_t arrived;         /* members of this slice that called it */
    struct an_coll_first fa;  /* routine and mismatch, over these arrivals */
    uint64_t index;
    int64_t first, last, end; /* as an_coll, over these arrivals */
    uint64_t bytes;
};
/* Instances 0..*n-1 of communicator comm as this slice saw them (an
 * instance with arrived 0: none of its members here reached it), and
 * *count: per member position, the collectives called (NULL: none here).
 * NULL, *n = 0 for a communicator all of whose members are in this slice. */
const struct an_coll_part *an_match_coll_parts(const struct an_match *m, uint32_t comm, uint64_t *n,
                                               const uint64_t **count);
/* During a sliced read: the instances of communicators spanning slices
 * that every member of this slice has called since the last call, each
 * given to put (arrivals here: its share is final) and dropped, so that
 * an_match_coll_parts gives only the later ones; an_match_coll_held: the
 * instances still held (88 bytes each). */
void an_match_coll_ship(struct an_match *m, void (*put)(void *ctx, const struct an_coll_part *p), void *ctx);
uint64_t an_match_coll_held(const struct an_match *m);
/* A send of another slice, posted in its channel after the earlier ones
 * of its sender (feed them in the sender's order).  Its receive is checked
 * for causality against s->at (counted in repaired/repairable) and, with
 * repair on, its receiver's clock repaired as for a send of this slice. */
void an_match_remote_send(struct an_match *m, const struct an_send_rec *s);
void an_match_free(struct an_match *m);

/* ---- passes ------------------------------------------------------------- */

struct an_progress {          /* progress line on a terminal (stderr) */
    int on;
    const char *what;
    int64_t first, last;      /* aligned span for the fraction */
    double started, shown;
};
void an_progress_init(struct an_progress *p, const struct an_run *run, const char *what);
void an_progress_tick(struct an_progress *p, uint64_t events, int64_t now);
void an_progress_done(struct an_progress *p);

struct an_result {
    struct an_match_stats stats;  /* of the last pass */
    struct an_finding *findings;  /* of the last pass */
    unsigned nfindings;
    unsigned passes;              /* repair passes run */
    int64_t repair_max;           /* largest total repair of any rank (ns) */
    int repair_rank;
    uint64_t repair_steps;        /* messages that moved their receive (the final pass's `moved`; 0: no clock moved) */
    int repair_converged;         /* 1: the last pass needed no repair */
};

/* Read the run until the clocks need no more repair (at most 8 passes).
 * `first` is fed by the first pass (its times may still move: when
 * res->repair_max > 0 some did), `final` by one more pass with the final
 * clocks (skipped when NULL), which also gives res->repair_steps (the
 * messages that moved their receive) and res->repair_converged.  0 or -1. */
int an_analyse(struct an_run *run, const struct an_sink *first, const struct an_sink *final,
               int progress, struct an_result *res);
/* That final pass after an_analyse without one (res from it). */
int an_analyse_final(struct an_run *run, const struct an_sink *sink, int progress, struct an_result *res);
/* Resume points of the final pass (an_analyse_marked): after every
 * `every` events, a copy of the stream (each rank's place in its file, its
 * current event) and of the matcher's state in flight, with the latest end
 * of the events before it.  At most `max` of them and about `budget` bytes
 * in all: when either is reached every other one is dropped and `every`
 * doubles (a mark too big for an eighth of the budget is not taken). */
struct an_marks;
struct an_marks *an_marks_new(uint64_t every, unsigned max, size_t budget);
/* How many marks are kept; *bytes (if not NULL): their size. */
unsigned an_marks_count(const struct an_marks *k, size_t *bytes);
void an_marks_free(struct an_marks *k);
/* an_analyse that also fills marks (if not NULL) during its final pass. */
int an_analyse_marked(struct an_run *run, const struct an_sink *first, const struct an_sink *final,
                      int progress, struct an_result *res, struct an_marks *marks);
/* One more pass with the clocks as an_analyse left them (no repair), fed to
 * sink, that stops once the events start after `until` (aligned ns) or
 * *stop becomes non-zero: what a time window of a run needs.  It starts at
 * the last of marks (NULL: none) whose events all end before `from`
 * (aligned ns), else at the run's start: the sink gets from there on the
 * same calls, messages and collectives, in the same order, as from a pass
 * from the start, and nothing before ends at or after `from`.  *read (if
 * not NULL): the events this pass fed.  0 or -1. */
int an_replay(struct an_run *run, const struct an_marks *marks, const struct an_sink *sink, int64_t from,
              int64_t until, const int *stop, uint64_t *read);
void an_result_free(struct an_result *res);

/* What a sliced read tells about the sends crossing slices.  They travel
 * in bounded batches during each read (docs/PARALLEL.md, "Bounded
 * batches"), so nothing is kept between reads: out, nout and in stay NULL;
 * nin: the sends of other slices the last read posted. */
struct an_slice_sends {
    struct an_send_rec **out;
    size_t *nout;
    struct an_send_rec *in;
    size_t nin;
    const struct an_slice_coll *coll;   /* if set (on every process): reads ship instances (below) */
};
/* A spanning communicator's instances in the rounds of a sliced read
 * (slice_report.c): each round, after the crossing sends, the instances
 * every member of a slice has called go to the process owner(ctx, comm)
 * names (one all-to-all), which gets them in in(ctx, parts, n).  A round
 * also ends when a process's held instances grew by a batch. */
struct an_slice_coll {
    void *ctx;
    int (*owner)(void *ctx, uint32_t comm);
    void (*in)(void *ctx, const struct an_coll_part *p, size_t n);
};
void an_slice_sends_free(struct an_slice_sends *xs, int nprocs);
/* A sliced run (an_run_open_slice), collective: every process reads its
 * slice once, fed to sink (out->wrote), the sends to other slices going to
 * their receivers' owners in bounded batches during the read, so every
 * receive is checked against its send, with repair on.  The serial analysis
 * repairs the clocks only when some receive ends before its send began by
 * a repairable amount: out->repairable counts those, and while it is 0
 * what sink got is what the serial analysis gives; otherwise the clocks
 * are repaired further by an_slice_repair (keep, if not NULL: nin).
 * too_large: receives that end more than the repair allows before
 * their send began.  first/last: the run's earliest call start and latest
 * call end, aligned, as the read saw them.  0 or -1. */
struct an_slice_clocks {
    uint64_t repairable, too_large;
    int wrote;
    int64_t first, last;
    uint64_t sends_out;           /* sends shipped to another slice, all processes */
};
int an_slice_check(struct an_run *run, const struct an_sink *sink, int progress, struct an_slice_clocks *out,
                   struct an_slice_sends *keep);
/* Clock repair across slices (collective), after a first pass: rounds
 * of a forward replay (an_slice_round), until a round repairs nothing (converged: the
 * clocks are the serial analysis's) or 8 rounds were read or some receive
 * ends too far before its send (too_large: the serial analysis does not
 * repair it, and its result then follows its order).  exchanged: bytes
 * this process sent to others.  0. */
struct an_slice_repair {
    unsigned rounds;
    int converged;
    uint64_t too_large;
    uint64_t exchanged;
};
int an_slice_repair(struct an_run *run, struct an_slice_sends *xs, int progress, struct an_slice_repair *out);
/* One round (collective): one read of the slice with repair on, fed to
 * sink, the crossing sends exchanged in batches with their senders'
 * aligned starts as the senders' clocks then are (the matcher, finished:
 * its stats say what was repaired; an_match_free it; xs->nin: the sends
 * of other slices it posted). */
struct an_match *an_slice_round(struct an_run *run, const struct an_sink *sink, struct an_slice_sends *xs,
                                int progress, const char *what);
/* One read of the slice with the clocks as they are (no repair), fed to
 * sink; first/last: the run's earliest call start and latest call end,
 * aligned, over all slices (collective).  0. */
int an_slice_pass(struct an_run *run, const struct an_sink *sink, int progress, int64_t *first, int64_t *last);
/* The run's earliest call start (aligned, by the headers' clocks), from
 * the first call of each slice (collective). */
int64_t an_slice_first(struct an_run *run);
/* A sliced run's matching (collective): one read of the slice fed to sink,
 * the sends to other slices shipped to their receivers' owners in bounded
 * batches during it and posted there in their channels (analysis/stream.c says why
 * every receive of this slice then meets the send the serial matcher pairs
 * it with).  Returns the matcher, finished (its stats, findings and
 * an_match_coll_parts; an_match_free it); *remote: the sends of other
 * slices it posted (counted in its stats' sends too), *cancels: successful
 * cancels of sends shipped to another slice (the serial matcher may have
 * paired such a send: not reproducible here).  keep (if not NULL): its
 * nin, the sends of other slices posted. */
struct an_match *an_slice_match(struct an_run *run, const struct an_sink *sink, int progress, uint64_t *remote,
                                uint64_t *cancels, struct an_slice_sends *keep);

/* ---- profile (profile.c) ------------------------------------------------ */

struct an_stat {              /* calls of one routine (at one call site) */
    uint64_t calls;
    int64_t total, max;       /* ns */
    uint64_t bytes;
    uint64_t unfinished;      /* of the calls: in progress when the rank stopped or died
                               * (counted with their time so far) */
    uint64_t estimated;       /* of the calls: repeats of a collapsed poll, whose time
                               * is an estimate (docs/REPORT.md, "Repeated polls") */
    int64_t min;              /* ns, the shortest call (valid when calls > 0) */
};

struct an_rank_prof {
    int rank;
    int64_t app;              /* end of MPI_Init to start of MPI_Finalize (or first to last call) */
    int64_t mpi;              /* time in MPI calls in that window, all threads */
    int64_t init, finalize;   /* time in MPI_Init and MPI_Finalize */
    uint64_t calls;
    uint64_t unfinished;      /* calls in progress when the rank stopped or died */
    uint64_t estimated;       /* calls whose time is an estimate (repeated polls) */
    unsigned threads;
    int finalized;
    uint64_t coll_calls;      /* collective calls, and the bytes they moved through */
    uint64_t coll_sent, coll_recv; /* this rank's buffers by its role (an_coll_bytes) */
};

struct an_routine_prof {
    uint16_t name;
    struct an_stat all;
    int64_t rank_min, rank_max;   /* per-rank total time: smallest, largest */
    int rank_argmax;
    unsigned nranks;              /* ranks that called it */
};

struct an_site_rank {             /* one call site on one rank */
    int rank;
    struct an_stat st;
    double app_pct, mpi_pct;      /* st.total in % of this rank's application / MPI time
                                     (-1 for MPI_Init and MPI_Finalize: outside it) */
};

struct an_site_prof {
    char *where;                  /* file:line (or function+offset) */
    uint16_t name;
    struct an_stat all;
    unsigned nranks;
    struct an_site_rank *per_rank;   /* nranks entries, by rank */
    int64_t rank_min, rank_max;   /* per-rank time of the ranks that called it */
    double rank_mean, rank_cv;    /* their mean, and standard deviation / mean */
    double app_pct, mpi_pct;      /* all.total in % of all ranks' application / MPI time (-1: as above) */
};

struct an_pair {                  /* point-to-point traffic from one rank to another */
    int32_t src, dst;             /* world ranks */
    uint64_t messages, bytes;     /* matched messages, bytes as sent */
};

/* MPI-IO per file and rank: a file is the name given to MPI_File_open
 * and the call site of that open (docs/REPORT.md, "I/O"); name and site
 * "(unknown)" when the open was not seen. */
struct an_io_prof {
    char *name;                   /* as given to MPI_File_open (its tail when long) */
    char *where;                  /* call site of MPI_File_open */
    int rank;
    uint64_t opens;
    uint64_t reads, writes;       /* calls */
    uint64_t rbytes, wbytes;      /* count x type size asked for */
};

#define AN_SIZE_BUCKETS 34        /* 0, [1,2), [2,4), ... [2^31,2^32), >=2^32 */
struct an_profile;

struct an_profile *an_profile_new(struct an_run *run);
/* Sink feeding the profile (events, messages, collective instances). */
struct an_sink an_profile_sink(struct an_profile *p);
/* After the pass: call sites named by `where` (file:line), merged by name
 * across ranks, everything sorted by time.  Returns 0. */
typedef const char *(*an_site_namer)(const struct mlr_file *f, uint32_t site, char *buf, size_t n);
int an_profile_finish(struct an_profile *p, an_site_namer where);
void an_profile_free(struct an_profile *p);

/* A sliced run (docs/PARALLEL.md): what this process's profile holds of
 * its ranks (call sites and MPI-IO files named here, by `where`) and its
 * sums, as bytes for process 0 (malloc'd); 0 or -1.  an_profile_unpack
 * adds one process's bytes to a profile of the whole run (an_profile_new
 * of a run whose ranks are all the run's: an_slice_report), which
 * an_profile_finish then finishes as if it had read every rank itself. */
int an_profile_pack(const struct an_profile *p, an_site_namer where, void **out, size_t *len);
int an_profile_unpack(struct an_profile *p, const void *buf, size_t len);
const struct an_rank_prof *an_profile_ranks(const struct an_profile *p, unsigned *n);
const struct an_routine_prof *an_profile_routines(const struct an_profile *p, unsigned *n); /* by time */
const struct an_site_prof *an_profile_sites(const struct an_profile *p, unsigned *n);       /* by time */
/* The communication matrix: matched point-to-point messages per sender and
 * receiver (collectives apart: an_rank_prof.coll_*), by sender then receiver. */
const struct an_pair *an_profile_matrix(const struct an_profile *p, unsigned *n);
/* Matched point-to-point messages by size: count and bytes per bucket;
 * bucket 0 holds empty messages, bucket b >= 1 sizes in [2^(b-1), 2^b). */
void an_profile_sizes(const struct an_profile *p, uint64_t count[AN_SIZE_BUCKETS],
                      uint64_t bytes[AN_SIZE_BUCKETS]);
/* Collective instances per routine: count, and time between first and
 * last arrival summed (ns). */
struct an_coll_prof {
    uint16_t name;
    uint64_t instances;
    int64_t skew_total, skew_max;
    uint64_t bytes;
};
const struct an_coll_prof *an_profile_colls(const struct an_profile *p, unsigned *n);
/* by file name, open site, then rank */
const struct an_io_prof *an_profile_io(const struct an_profile *p, unsigned *n);
uint64_t an_profile_events(const struct an_profile *p);
/* calls: events + the repeats of repeated polls (docs/REPORT.md) */
uint64_t an_profile_calls(const struct an_profile *p);
/* Rank 0's-clock span of the run: first call start to last call end. */
void an_profile_span(const struct an_profile *p, int64_t *first, int64_t *last);

/* ---- the report of a sliced run (slice_report.c) ------------------------
 * Collective over the processes of run (an_run_open_slice): each matches
 * and profiles its slice; process 0 gets the serial analysis's result
 * (an_analyse with a profile sink, then an_profile_finish) in out.  When
 * the sliced result could differ from the serial one, every process gets
 * out->why (a sentence) and nothing else: analyse the run serially.  Call
 * sites are named by their rank's owner: `where` for the profile
 * (an_profile_finish's), `site` for the findings.  0. */
struct an_slice_report {
    const char *why;
    struct an_run run;            /* process 0: the whole run's ranks (rank, clock samples; the file where
                                     this process read it), the rest as the sliced run's */
    struct an_profile *prof;      /* process 0: finished */
    struct an_result res;         /* process 0: counters and findings of the whole run */
    char **find_site;             /* process 0: per finding, its call site */
    struct ml_header h0;          /* the lowest rank's header (its command line) */
    int have_h0;
};
int an_slice_report(struct an_run *run, an_site_namer where, an_site_namer site, int progress,
                    struct an_slice_report *out);
/* The same, feeding beside the profile what hook->read gives before each
 * read of the slice (the first, and one per clock repair round: the last
 * one read the final clocks; collective, the same calls everywhere). */
struct an_slice_hook {
    void *ctx;
    struct an_sink (*read)(void *ctx, struct an_run *run);
};
int an_slice_report_with(struct an_run *run, an_site_namer where, an_site_namer site, int progress,
                         const struct an_slice_hook *hook, struct an_slice_report *out);
void an_slice_report_free(struct an_slice_report *out);

/* ---- the page of `mpilens view` (viewdata.c) ----------------------------
 * Every call, matched message and collective instance of one pass as
 * columns of LEB128 integers ("s": zigzag), times in ns since the run's
 * earliest call.  Calls and messages are grouped by world rank (ranks 0 to
 * run.size - 1 in order; a COUNT column says how many each rank has), a
 * message names the calls it belongs to instead of repeating their times
 * and arguments (docs/DESIGN.md, "mpilens view"). */

enum an_view_kind { AN_VIEW_OTHER, AN_VIEW_P2P, AN_VIEW_COLL, AN_VIEW_WAIT, AN_VIEW_RMA, AN_VIEW_IO };

enum an_view_col {
    /* calls: per world rank the number of its calls (run.size values); then
     * per call, rank after rank, each rank's in stream order: start (s: time
     * since the end of the rank's previous call, or since time 0), duration,
     * routine (an_run.names), kind, call site (0 none, else
     * an_view_site(i - 1)), communicator (0 none, else an_comm id + 1), peer
     * (0 none, 1 MPI_ANY_SOURCE, 2 MPI_PROC_NULL, 3 unknown, else world rank
     * + 4), tag (s: 0 none, else tag + 1), bytes, datatype (0 none, else
     * an_view_type(i - 1)), repeats (polls folded into this call) */
    AN_VC_COUNT, AN_VC_T0, AN_VC_DUR, AN_VC_NAME, AN_VC_KIND, AN_VC_SITE, AN_VC_COMM,
    AN_VC_PEER, AN_VC_TAG, AN_VC_BYTES, AN_VC_TYPE, AN_VC_REPEAT,
    /* matched messages: per world rank the number it sent (run.size
     * values); then per message, sender after sender: flags (AN_VMF_*);
     * unless AN_VMF_TS, the send call (s: its index among the sender's calls
     * minus the previous message's of this sender, from 0): the send start
     * is its start, and receiver (its peer), bytes, tag and communicator are
     * its own unless a flag says otherwise; unless AN_VMF_TR, the call that
     * completed the receive (s: its index among the receiver's calls minus
     * the previous one of this sender and receiver, from 0): the receive
     * completion is its end.  The columns below only for the flags set:
     * receiver, send start (s: ns since time 0), receive completion (s: ns
     * after the send start), bytes, tag (s), communicator (0 none, else
     * an_comm id + 1) */
    AN_VM_COUNT, AN_VM_FLAGS, AN_VM_SCALL, AN_VM_RCALL,
    AN_VM_DST, AN_VM_TS, AN_VM_TR, AN_VM_BYTES, AN_VM_TAG, AN_VM_COMM,
    /* collective instances: communicator + 1, routine, first arrival
     * (s: difference to the previous one), latest end minus first arrival
     * (s), members, bytes */
    AN_VK_COMM, AN_VK_NAME, AN_VK_FIRST, AN_VK_LEN, AN_VK_MEMBERS, AN_VK_BYTES,
    AN_VIEW_NCOLS
};

enum {
    AN_VMF_TS = 1,            /* no send call: send start, receiver, bytes, tag, comm given */
    AN_VMF_TR = 2,            /* no receive call: receive completion given */
    AN_VMF_DST = 4,           /* receiver given */
    AN_VMF_BYTES = 8,         /* bytes given */
    AN_VMF_TAG = 16,          /* tag given */
    AN_VMF_COMM = 32,         /* communicator given */
};

/* The view's calls and messages decoded into arrays (tool/view_serve.c):
 * calls grouped by rank as in the columns, messages by sender. */
struct an_view_arrays {
    uint64_t nc, nm;
    int32_t *c_rank;
    int64_t *c_t0, *c_dur;
    uint32_t *c_name, *c_kind;
    int32_t *m_src, *m_dst, *m_tag;
    int64_t *m_ts, *m_lat;
    uint64_t *m_bytes;
};

struct an_view_counts {
    uint64_t calls, calls_repeated, messages, bytes, colls;
    int64_t origin;           /* aligned ns of time 0 */
    int64_t last;             /* latest call end, ns since origin */
    unsigned sites, types;
    uint64_t msg_no_send, msg_no_recv;   /* messages without a send / receive call named */
    uint64_t shown_calls, shown_messages, shown_colls;   /* in the columns (a window: fewer) */
};

/* The run at a glance, bounded by ranks x bins, not by events (for
 * `mpilens view --serve`, whose page starts from it): per rank and time bin
 * the kind of call covering most of the bin (kind + 1, 0 none) and that
 * time; messages merged per (sender, receiver, bin of the send start, bin
 * of the receive completion), the bins as wide as needed to keep at most
 * max_entries entries. */
struct an_view_overview {
    unsigned ranks, bins;
    double bin_ns;            /* bin width; bin b: [b * bin_ns, (b + 1) * bin_ns) since time 0 */
    uint8_t *kind;            /* ranks x bins */
    float *best;              /* ranks x bins: ns of that kind in the bin */
    size_t n;                 /* message entries */
    double msg_bin_ns;
    int32_t *src, *dst;
    uint64_t *count, *bytes, *max_bytes;
    int64_t *ts, *lat;        /* the entry's first message: send start (since time 0), time to completion */
    int64_t max_lat;          /* the longest message of the run (send start to receive completion) */
    int64_t max_coll;         /* the longest collective instance */
};

struct an_view;
struct an_view *an_view_new(struct an_run *run);
struct an_sink an_view_sink(struct an_view *v);
/* After the pass: names the call sites (where) and datatypes.  0 or -1 (memory). */
int an_view_finish(struct an_view *v, an_site_namer where);
const uint8_t *an_view_column(const struct an_view *v, int col, size_t *len);
const struct an_view_counts *an_view_counts(const struct an_view *v);
const char *an_view_site(const struct an_view *v, unsigned i);
const char *an_view_type(const struct an_view *v, unsigned i);
/* Decode the columns into arrays (after an_view_finish): 0, or -1 (memory,
 * or columns that do not decode); an_view_arrays_free frees them. */
int an_view_decode(const struct an_view *v, struct an_view_arrays *a);
/* Before the pass: keep in the columns only the calls, messages and
 * collectives that overlap [from, to] (ns since origin, the time 0 of the
 * whole run's view; INT64_MIN: the run's earliest call, as without a window); past cap calls and messages kept, keep nothing more and
 * set *an_view_over (the pass may stop: an_replay's stop). */
void an_view_window(struct an_view *v, int64_t origin, int64_t from, int64_t to, uint64_t cap);
const int *an_view_over(const struct an_view *v);
/* Before the pass: also build the overview (bins per rank, at most
 * max_entries message entries).  0 or -1 (memory). */
int an_view_want_overview(struct an_view *v, unsigned bins, size_t max_entries);
/* After an_view_finish: the overview, NULL when not asked or out of memory. */
const struct an_view_overview *an_view_overview(const struct an_view *v);
void an_view_arrays_free(struct an_view_arrays *a);
void an_view_free(struct an_view *v);
/* Before the pass: time 0 is origin (a sliced run: the whole run's first call). */
void an_view_set_origin(struct an_view *v, int64_t origin);
/* The columns as a stream, never joined in memory (the page's writer):
 * col(ctx, c, len) opens column c (of len bytes, c in order), put(ctx, p,
 * n) gives its bytes in pieces.  Each returns 0, or -1 to stop. */
struct an_view_out {
    void *ctx;
    int (*col)(void *ctx, int c, uint64_t len);
    int (*put)(void *ctx, const uint8_t *p, size_t n);
};
/* After the pass, instead of an_view_finish: the same names, the columns
 * left per rank for an_view_write (an_view_column has none).  0 or -1. */
int an_view_finish_parts(struct an_view *v, an_site_namer where);
/* After an_view_finish_parts: the columns to o.  0 or -1 (o stopped, or memory). */
int an_view_write(struct an_view *v, const struct an_view_out *o);

/* A sliced run's view (slice_view.c, docs/PARALLEL.md).  Collective: every
 * process feeds its slice to a view (beside the sliced report's profile,
 * an_slice_report_with); each message goes to its sender's owner, which
 * names its calls; every process keeps its ranks' columns in *mine, and
 * process 0 gets in *out the run's names and sums (no calls, messages
 * or collective instances: an_slice_view_write streams them) and the
 * report's result in sr.  sr->why set: nothing else (analyse the run
 * serially).  *first: the earliest anchor of every rank (an_run_span's
 * first).  0. */
int an_slice_view(struct an_run *run, an_site_namer where, an_site_namer site, int progress,
                  struct an_slice_report *sr, struct an_view **mine, struct an_view **out, int64_t *first);
/* Then, collective: the page's columns to o at process 0 (NULL there:
 * taken and dropped), the calls' and messages' in rounds of at most
 * MPILENS_SLICE_BATCH x 80 bytes (5 MiB), process after process, so that
 * process 0 holds one round of them at a time; the collective instances
 * merged from every process's sorted ones in rounds, process 0 holding
 * at most MPILENS_SLICE_BATCH (64 Ki) of the others' at once; *st: the
 * rounds and what process 0 held.  Frees mine.  0, or -1 at process 0
 * where o stopped. */
struct an_view_slice_stats {
    uint64_t rounds, held;      /* the columns' rounds; the most bytes of them at process 0 at once */
    uint64_t coll_rounds;       /* the collective instances' rounds (all six columns) */
    uint64_t coll_held;         /* the most instances of other processes at process 0 at once */
};
int an_slice_view_write(struct an_view *mine, struct an_view *out, struct an_xch *x, const struct an_view_out *o,
                        struct an_view_slice_stats *st);
/* Its parts (viewdata.c): after the pass, the messages whose senders lie
 * in other slices sent to their owners (bytes sent added to *sent); this
 * process's names and sums packed; process 0: the packs merged
 * (origin: time 0), with each process's map of its names to the merged
 * ones (maps[p], maplens[p]); every process: its site and datatype
 * columns through its map; its columns to process 0's o in rounds of at
 * most piece bytes, its collective instances in rounds, process 0 holding
 * at most kbatch of the others' at once (*st). */
int an_view_slice_messages(struct an_view *v, struct an_xch *x, uint64_t *sent);
int an_view_slice_pack(struct an_view *v, an_site_namer where, void **out, size_t *len);
struct an_view *an_view_slice_merge(struct an_run *full, int64_t origin, const void *all, const size_t *lens, int P,
                                    void **maps, size_t *maplens);
int an_view_slice_remap(struct an_view *v, const void *map, size_t len);
int an_view_slice_write(struct an_view *mine, struct an_view *merged, struct an_xch *x, const struct an_view_out *o,
                        size_t piece, uint64_t kbatch, struct an_view_slice_stats *st);
/* World rank w's process id from a merged view, -1 unknown. */
int an_view_pid(const struct an_view *v, int w);

#endif
