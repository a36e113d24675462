/*
 * live.h — the live view of a run directory: what every rank is doing now,
 * grouped; and the deadlock verdict.  `mpilens top DIR` is a thin verb around
 * live_watch(); `mpilens run` calls live_watch() while the job runs.
 *
 * Everything is read from the rank files' live slots (format/mlformat.h,
 * struct ml_live) through read-only mappings: no MPI traffic, no signal, no
 * ptrace.  Liveness of a process is checked with kill(pid, 0) and /proc when
 * its rank file says it runs on this host.
 */
#ifndef ML_LIVE_H
#define ML_LIVE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "mlformat.h"

enum live_sort { LIVE_SORT_SIZE = 0, LIVE_SORT_AGE = 1 };

enum live_display {
    LIVE_SHOW_AUTO = 0,      /* a terminal: redrawn in place at the bottom; else snapshots */
    LIVE_SHOW_SNAPSHOTS = 1, /* a plain table every interval */
    LIVE_SHOW_NONE = 2,      /* no table: only the deadlock verdict (and the last state) */
    LIVE_SHOW_INPLACE = 3,   /* force the in-place terminal display */
};

/* A zeroed struct is the default everywhere. */
struct live_opts {
    double interval;         /* seconds between refreshes (0: 1 s) */
    double deadlock_timeout; /* seconds without progress before the wait-for graph is
                              * checked (0: 10 s; < 0: never) */
    int once;                /* print the current state once and return 0 */
    int stop;                /* on a deadlock: SIGTERM, then SIGKILL, every rank of this
                              * host and the launcher */
    int sort;                /* enum live_sort */
    int display;             /* enum live_display */
    int max_rows;            /* table lines at most, header included (0: the terminal's
                              * height when in place, 40 otherwise) */
    int width;               /* columns (0: the terminal's, 120 when not a terminal) */
    FILE *out;               /* where the table and the verdict go (NULL: stdout) */
    pid_t launcher;          /* the job's launcher, 0 if none: the watch ends when it
                              * exits (a child of the caller is never reaped here) */
    int quiet_end;           /* do not print the last state when the job ends */
    int keep;                /* on a deadlock without stop: print the verdict, keep
                              * watching (again only after progress resumed) */
    /* Called once per refresh (may be NULL): a non-zero return ends the watch
     * (live_watch then returns 0).  `mpilens run` checks failures with it. */
    int (*tick)(void *arg);
    void *tick_arg;
    /* Ranks from node agents' state streams instead of the rank files of
     * the directory (remote.c; NULL: the files).  The directory then only
     * receives deadlock.txt (and may be NULL). */
    struct rsrv *remote;
    const char *name;        /* prefix of error messages ("mpilens top"; NULL: "mpilens") */
    int wait;                /* no rank file and no launcher: wait for a job to start
                              * writing there (otherwise say so and return 1) */
};

/* Exit status of live_watch / mpilens top when it found a deadlock. */
#define LIVE_EXIT_DEADLOCK 3

/* Watch run directory `dir` until the job ends (every rank finalized,
 * exited or died, or the launcher exited), `o->once` is done, or a deadlock
 * is found.  The directory may be empty at first (ranks not started yet).
 * Returns 0 (job ended / once), LIVE_EXIT_DEADLOCK (deadlock found; the
 * verdict is printed and written to DIR/deadlock.txt; with o->stop the job
 * was stopped), 1 (dir cannot be read). */
int live_watch(const char *dir, const struct live_opts *o);

/* ---- shared by live.c, livefile.c, deadlock.c (not an API) ------------- */

/* One rank file mapped for live reading (livefile.c). */
struct lf;

struct lf_comm {             /* a communicator definition of one rank file */
    int valid;
    uint32_t size, remote_size, flags;   /* flags: 1 inter, 2 MPI_COMM_WORLD */
    uint64_t gid;
    int32_t *members;        /* size + remote_size world ranks; NULL for the world */
    char name[65];           /* set with MPI_Comm_set_name (local rank files), else "" */
};

int lf_open(const char *path, struct lf **out);
/* A rank read from a node's state stream (remote.c fills it): the same
 * accessors work on it; lf_path is a label, never a file. */
struct lf *lf_open_remote(const char *label);
int lf_is_remote(const struct lf *f);
/* The routine-name table of a file as stored (u32 count, NUL-separated
 * names); the same pointer for every file with the same table. */
const void *lf_names_table(const struct lf *f, size_t *len);
void lf_close(struct lf *f);
const char *lf_path(const struct lf *f);
/* Header fields read live from the mapping. */
const volatile struct ml_header *lf_hdr(const struct lf *f);
int lf_rank(const struct lf *f);
const char *lf_host(const struct lf *f);
const char *lf_impl(const struct lf *f);
unsigned lf_nthreads(const struct lf *f);
int lf_live(const struct lf *f, unsigned i, struct ml_live *out);
/* Monotonic ns of the writer's host for a tick value (live anchors). */
int64_t lf_ns(struct lf *f, uint64_t ticks);
/* Inverse: tick value for a monotonic ns. */
uint64_t lf_ticks(struct lf *f, int64_t ns);
/* Routine name ("MPI_Recv"), never NULL. */
const char *lf_routine(const struct lf *f, uint16_t routine);
/* Global id of the routine's name (same name = same id for every file), -1 if unknown. */
int lf_routine_gid(const struct lf *f, uint16_t routine);
/* Global id of a call site: same code location = same id across ranks; 0 unknown. */
uint32_t lf_site_gid(struct lf *f, uint32_t site);
/* "file.c:42" of a global site id (cached). */
const char *lf_site_text(uint32_t gid);
/* Global site id of where the rank's failure record says it failed outside
 * MPI (a signal of its own, or exit()): the backtrace frame the report's
 * diagnosis names (its "where"); 0 when the record names no such place. */
uint32_t lf_fail_site_gid(struct lf *f);
/* Communicator definition `index` (scans new records when unknown). */
const struct lf_comm *lf_comm(struct lf *f, uint32_t index);
/* World rank of comm rank `r` in definition `index` (remote group of an
 * inter-communicator); -1 if unknown. */
int lf_world(struct lf *f, uint32_t index, int r);
/* MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ANY_TAG of the file's MPI. */
int lf_any_source(const struct lf *f);
int lf_proc_null(const struct lf *f);
void lf_global_cleanup(void);
/* The code location of a global site id (what an agent sends): 0 ok. */
int lf_site_key(uint32_t gid, uint64_t *mod_hash, uint64_t *off);
/* The global site id of a code location known by its text only (a remote
 * rank's call site, resolved on its node). */
uint32_t lf_site_remote(uint64_t mod_hash, uint64_t off, const char *text);

/* ---- filling a remote rank (remote.c) ------------------------------------ */
struct ml_header *lf_remote_hdr(struct lf *f);          /* writable copy behind lf_hdr */
struct ml_live *lf_remote_slot(struct lf *f, unsigned i); /* NULL beyond ML_MAX_THREADS */
void lf_remote_info(struct lf *f, const char *host, const char *impl);
void lf_remote_names(struct lf *f, const uint8_t *table, size_t len);
void lf_remote_comm(struct lf *f, uint32_t index, uint32_t size, uint32_t rsize, uint32_t flags, uint64_t gid,
                    const int32_t *members, unsigned nmembers);
/* front-end monotonic ns minus the agent's, for lf_ns */
void lf_remote_clock(struct lf *f, int64_t offset_ns);
enum { LF_REMOTE_LIVE = 0, LF_REMOTE_GONE = 1, LF_REMOTE_STALE = 2 };
void lf_remote_set_state(struct lf *f, int state);
int lf_remote_state(const struct lf *f);
/* Active requests of a remote rank, valid for its current state (NULL: not
 * known).  set takes q (malloc'd) over; NULL forgets. */
struct dl_reqs;
struct dl_reqs *lf_remote_reqs(struct lf *f);
void lf_remote_set_reqs(struct lf *f, struct dl_reqs *q);

/* Routine classes for display and the wait-for graph (by name). */
enum rclass {
    RC_OTHER = 0, RC_LOCAL, RC_SEND, RC_RECV, RC_PROBE, RC_SENDRECV, RC_COLL,
    RC_COMM_COLL,            /* collectives creating communicators, windows, files, and
                              * collectives on windows and files (the runtime publishes the
                              * communicator behind them) */
    RC_WAIT, RC_WAITALL, RC_WAITANY, RC_WAITSOME,
    RC_TEST, RC_TESTALL, RC_TESTANY, RC_TESTSOME, RC_IPROBE, RC_REQ_STATUS,
    RC_ISTART,               /* nonblocking starts (Isend, Irecv, Ibcast, ...) */
    RC_FINALIZE, RC_INIT, RC_ONESIDED,
    RC_JOIN,                 /* pthread_join outside MPI (mlformat.h ML_JOIN_NAME): peer is
                              * the live-slot index of the joined thread */
};
int routine_class(const char *name);
int rclass_rooted(const char *name);   /* Bcast, Reduce, Gather(v), Scatter(v) */

/* ---- the state of the job at one instant (live.c) ---------------------- */

enum ent_state {
    ES_IN = 1,       /* inside an MPI call */
    ES_POLL,         /* polling: unsuccessful tests/probes, nothing completed */
    ES_COMPUTE,      /* outside MPI */
    ES_NOCALL,       /* started, no MPI call published yet */
    ES_NOTSTARTED,   /* no rank file yet */
    ES_FINALIZED,
    ES_EXITED,       /* exited without MPI_Finalize */
    ES_DIED,         /* process gone while running (signal, SIGKILL, ...) */
    ES_STALE,        /* on another host and unchanged for long: state unknown */
};

/* One thread of one rank as shown and as analysed. */
struct ent {
    int rank;
    unsigned thread;
    int state;               /* enum ent_state */
    struct lf *f;            /* NULL for ES_NOTSTARTED */
    struct ml_live l;        /* the slot (valid when f && state is IN/POLL/COMPUTE) */
    int64_t since_ns;        /* local monotonic ns: start (IN), end (COMPUTE), last
                              * completion (POLL); 0 unknown */
    int rclass;
    int rgid;                /* routine name id */
    uint32_t sgid;           /* site id */
    int hidden;              /* a computing thread of a rank with threads in MPI:
                              * not shown, but it can make progress */
    int fail_site;           /* ES_DIED/ES_EXITED: sgid is where it failed (its failure
                              * record's frame, lf_fail_site_gid), not a call site */
    int working;             /* ES_POLL, but it worked (more than ML_WORK_GAP_NS outside
                              * MPI between polls) within the last deadlock timeout:
                              * computing between polls, a sink like ES_COMPUTE */
};

/* deadlock.c: the wait-for graph of a snapshot.  ents: every rank's
 * entities (at least one per rank 0..nranks-1), now_ns: local monotonic now.
 * Returns 1 and a malloc'd verdict text when some ranks can never progress,
 * 0 when none is deadlocked (and *why is NULL or a note). */
struct dl_result {
    char *text;              /* the verdict (lines) */
    int *ranks;              /* deadlocked ranks */
    unsigned nranks;
    unsigned *ents;          /* indices of the deadlocked entities */
    unsigned nents;
};
int deadlock_check(struct ent *ents, unsigned nents, int nranks, int64_t now_ns,
                   double stalled_s, struct dl_result *res);
void dl_result_free(struct dl_result *r);

/* The requests of a rank that are active at the end of its trace, and the
 * highest nonblocking collective started per communicator (deadlock.c reads
 * them from the rank file; an agent sends them in the stream). */
struct dl_req {
    uint64_t handle;
    unsigned thread;
    int send, persistent, active;
    int coll;                /* nonblocking collective: instance seq on comm */
    uint64_t seq;
    uint32_t comm;
    int32_t peer, tag;
    char site[96];
    char routine[40];
};
struct dl_nbc {              /* highest nonblocking collective started on a communicator */
    uint32_t comm;
    uint64_t seq;
};
struct dl_bcoll {            /* the blocking collectives a rank completed on a communicator */
    uint32_t comm;
    uint64_t n;              /* collectives on it so far (the runtime's numbering) */
    int exact;               /* n is the runtime's number: no call since the last sure count
                              * could have numbered one unseen (a communicator or window
                              * constructor, a window or file collective, a Fortran call) */
    unsigned epoch;          /* such calls seen when n was last known */
    int has;                 /* a blocking one completed: routine, site, root */
    int32_t root;            /* comm rank, or ML_PEER_NONE */
    char routine[40];
    char site[96];
};
struct dl_reqs {
    struct dl_req *r;
    unsigned n, cap;
    struct dl_nbc *nb;
    unsigned nnb;
    struct dl_req *cdone;    /* nonblocking collectives completed: the latest per
                              * communicator (local files only: what a rank that went
                              * on started as #seq, for a mismatch) */
    unsigned ncdone;
    struct dl_bcoll *bc;     /* blocking collectives completed: the latest per
                              * communicator, with its number when the trace tells it
                              * (local files only) */
    unsigned nbc;
    int undescribed;         /* calls that made requests the trace does not describe
                              * (I/O, RMA, generalized, partitioned, ...); a remote
                              * rank's agent that did not say: 1 */
};
void dl_load_requests(const char *path, struct dl_reqs *q);
void dl_reqs_copy(const struct dl_reqs *from, struct dl_reqs *to);
void dl_reqs_free(struct dl_reqs *q);

/* Formatting shared by the table and the verdict. */
void fmt_ranks(char *buf, size_t n, const int *ranks, unsigned k);  /* "0-3,7" (sorted input) */
const char *fmt_comm(struct lf *f, uint32_t comm, char *buf, size_t n);
const char *fmt_peer(struct lf *f, uint32_t comm, int32_t peer, char *buf, size_t n);
/* "MPI_Recv from 1 tag 7" for an entity (no site). */
void fmt_what(const struct ent *e, char *buf, size_t n);

#endif
