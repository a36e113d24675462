/*
 * critpath.h — the critical path of a recorded run and the wait states that
 * make it (critpath.c), computed after the run from the trace: six measures
 * each along its own longest path, per process and volumetric, broken down
 * by MPI routine and by code region, the path's segments, and the time ranks
 * spent waiting (late sender, late receiver, collective, completion).
 * docs/CRITPATH.md gives the happens-before model and the cost formulas.
 *
 * Names: an_cp_* (part of the analysis library; prints nothing).
 */
#ifndef ML_CRITPATH_H
#define ML_CRITPATH_H

#include "analysis.h"

enum an_cp_measure {
    AN_CP_RUNTIME = 0,    /* ns: computation + communication (waiting excluded) */
    AN_CP_COMM,           /* ns in MPI calls, waiting excluded */
    AN_CP_COMP,           /* ns between MPI calls */
    AN_CP_BYTES,          /* bytes sent (point-to-point sends, collective contributions) */
    AN_CP_BW,             /* ns: modelled bandwidth cost, beta x bytes per message */
    AN_CP_LAT,            /* ns: modelled latency cost, alpha per message */
    AN_CP_NM
};

enum an_cp_wait {
    AN_CP_W_LATE_SENDER = 0,  /* blocking receive began before its send */
    AN_CP_W_LATE_RECEIVER,    /* synchronous (or rendezvous) send began before its receive */
    AN_CP_W_COLLECTIVE,       /* collective entered before the member(s) it needs */
    AN_CP_W_COMPLETION,       /* MPI_Wait/Waitall/... before the send it completes began */
    AN_CP_NW
};

struct an_cp_opts {
    double alpha_ns;          /* latency per message (ns) */
    double beta_ns;           /* time per byte (ns) */
    int simple;               /* 1: every collective is one message of its bytes */
    uint64_t eager;           /* MPI_Send of at least this many bytes waits for its receive */
    int64_t from_ns, to_ns;   /* window, aligned ns on rank 0's clock; INT64_MIN/MAX: open */
    int window_set;           /* from/to came from the command line */
};
void an_cp_opts_default(struct an_cp_opts *o);

struct an_cp_kv {             /* one entry of a breakdown */
    uint32_t key;             /* AN_CP_REGION bit clear: routine name; set: region id */
    int64_t val;
};
#define AN_CP_REGION 0x80000000u

struct an_cp_region {         /* computation between two call sites of one rank */
    int rank;
    uint32_t site_from;       /* 0: the start of the window */
    uint32_t site_to;
};

struct an_cp_path {           /* one measure */
    int64_t path;             /* along its critical path */
    int end_rank;             /* the rank where that path ends, -1 if none */
    int64_t per_process;      /* largest per-rank total */
    int per_process_rank;
    double volumetric;        /* mean over the ranks */
    struct an_cp_kv *by;      /* breakdown along the path, largest first */
    unsigned nby;
};

struct an_cp_segment {        /* a stretch of the runtime path on one rank */
    int rank;
    int64_t from, to;         /* aligned ns */
    int64_t on_path;          /* runtime path value gained in the stretch */
    uint16_t out_name;        /* routine the path leaves by (UINT16_MAX: the end) */
    uint32_t out_site;        /* its call site on `rank` */
    int to_rank;              /* rank it goes on at, -1 at the end */
    uint16_t in_name;         /* routine on to_rank that took it (receive, collective) */
    uint32_t in_site;         /* its call site on to_rank */
};

struct an_cp_wsite {          /* waiting at one call site of a rank, caused by one peer */
    int kind;                 /* enum an_cp_wait */
    int rank;
    uint32_t site;
    uint16_t name;
    int peer;                 /* the rank waited for (-1 unknown) */
    int64_t time;
    uint64_t count;
};

struct an_cp_rank {
    int rank;
    int64_t start, end;       /* its window, aligned ns */
    int64_t comp, comm;       /* useful time: between calls, in calls */
    int64_t wait[AN_CP_NW];
    int64_t total[AN_CP_NM];  /* per-process totals (waiting excluded) */
    int64_t on_path;          /* time of the runtime path spent on this rank */
    int finished;             /* reached MPI_Finalize inside the records */
    uint64_t undecided;       /* calls whose partner never showed: counted as local */
};

struct an_cp_result {
    int64_t from, to;         /* the window used (aligned ns) */
    const char *source;       /* "run", "options", "MPI_Pcontrol" */
    const char *from_what;    /* what opens the window: "MPI_Pcontrol", "--from", "MPI_Init"
                               * (the first rank to leave it), "first call" (no MPI_Init) */
    const char *to_what;      /* what closes it: "MPI_Pcontrol", "--to", "MPI_Finalize",
                               * "end of records" (a rank never reached MPI_Finalize) */
    int pcontrol_never_opened;
    struct an_cp_path m[AN_CP_NM];
    int64_t rt_comm, rt_comp; /* the runtime path split into communication and computation */
    struct an_cp_segment *seg; /* the runtime path, first to last */
    unsigned nseg;
    struct an_cp_rank *ranks; /* per rank read (an_run order) */
    unsigned nranks;
    int64_t wait_total[AN_CP_NW];
    struct an_cp_wsite *wsites; /* largest first */
    unsigned nwsites;
    struct an_cp_region *regions;
    unsigned nregions;
    uint64_t undecided;       /* receives/collectives whose partner is not in the trace */
    unsigned unfinished;      /* ranks that never reached MPI_Finalize */
    uint64_t events;
    size_t peak_nodes;        /* path history nodes alive at once (memory check) */
};

/*
 * The pass.  critpath.c is a forward replay over the matched event stream
 * (an_sink: events, messages), written so that it can be split over
 * processes that each own a slice of the ranks:
 *
 *   per-rank state   struct cp_rank: the six path values at the rank's
 *                    current point, its path history (a reference per
 *                    measure, to where its current stretch began), its
 *                    ledger (what it gained, by routine and region), its
 *                    window, wait and useful totals; and a FIFO of the
 *                    rank's events not yet replayed (calls without edges
 *                    in a smaller ring of their own).
 *   replay step      an event runs in two phases.  A: computation since the
 *                    previous call is added, the bytes/cost of the sends it
 *                    starts, and the rank publishes an *edge value* (its
 *                    values at the call's start: struct cp_snap) for each
 *                    message it sends, for a blocking receive it posts and for
 *                    a collective it enters.  B: the call ends at the maximum
 *                    of the local values and the edge values it depends on
 *                    (the sender's for a receive, the receiver's for a
 *                    synchronous send, at the Wait/Test completing it for
 *                    a synchronous isend, the members' for a collective,
 *                    for a nonblocking one at the Wait/Test completing
 *                    it), plus
 *                    the call's useful time; the waiting before the last
 *                    dependency arrived is a wait state.  B blocks until the
 *                    edge values it needs are published.
 *   cross-rank edges keyed by (rank, local start ns of the call) for
 *                    messages (what an_msg carries), by (communicator,
 *                    instance) for collectives.  A process owning some ranks
 *                    sends the edge values (six int64 and the aligned time,
 *                    plus a path token) of its ranks' sends and collective
 *                    entries to the owner of the partner; nothing else crosses.
 *
 * Memory: per rank its state, ledger (one entry per routine and region it
 * used) and queue (bounded by what the stream's slack lets a rank run
 * ahead), the edges in flight with the ledger versions they hold, and the
 * path history nodes still reachable from a rank's current point
 * (reference counted; a stretch of one rank is one node, made when another
 * rank's path takes it, so the history that survives is the path).
 */
struct an_cp;
struct an_cp *an_cp_new(struct an_run *run, const struct an_cp_opts *o);
struct an_sink an_cp_sink(struct an_cp *cp);
/* After the pass: everything still waiting is replayed as local (and
 * counted undecided), the paths are read back.  0, or -1 (memory). */
int an_cp_finish(struct an_cp *cp);
const struct an_cp_result *an_cp_result(const struct an_cp *cp);
void an_cp_free(struct an_cp *cp);

/* Both sinks fed from one pass, a first.  With the critical path as b (the
 * report), its calls are made in place (one indirect call less per event). */
struct an_tee {
    struct an_sink a, b;
};
struct an_sink an_tee_sink(struct an_tee *t);

#endif
