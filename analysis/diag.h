/*
 * diag.h — the failure diagnosis of a run directory as data (diag.c): for
 * every rank, how it ended (failed, killed from outside after another
 * failed, vanished without a record, finalized, still running), its failure
 * record (signal and its code, exit status, MPI error, abort code, deadlock)
 * with the call and the program's frame it names, what each of its threads
 * was doing (live slots), and when; for the job, which rank failed first
 * and the live monitor's deadlock verdict.  tool/diag.c writes it as text
 * and JSON; nothing here prints.
 *
 * Reads only the rank files' headers and live slots, never the events, so
 * it costs the same on any size of trace.  Times are ns since the run's
 * origin (the earliest MPI_Init anchor on the common time line), INT64_MAX
 * when unknown.
 */
#ifndef ML_DIAG_H
#define ML_DIAG_H

#include <stdint.h>

#include "analysis.h"
#include "reader.h"

/* Call sites and return addresses as text ("file.c:42",
 * "function+0x1a (lib.so)"): the caller's symboliser (format/symbols.h in
 * the tool); NULL namers give "?" and the bare address. */
typedef const char *(*an_addr_namer)(const struct mlr_file *f, uint64_t addr, char *buf, size_t n);

/* What a thread was doing, from its live slot. */
enum an_diag_doing {
    AN_DIAG_IN_MPI,           /* inside `routine` since start */
    AN_DIAG_COMPUTING,        /* not in MPI; `routine` ended at end */
    AN_DIAG_FIRST_CALL,       /* inside its first MPI call (no time recorded) */
};

struct an_diag_thread {       /* one used live slot */
    unsigned slot;            /* thread index in the file */
    uint64_t tid;
    enum an_diag_doing doing;
    const char *routine;      /* the call in progress or the last one */
    char *site;               /* its call site */
    int has_start, has_end;   /* the slot holds a start / an end time */
    int64_t start, end;       /* ns since the origin (when has_start / has_end) */
};

/* A rank's failure record (struct ml_failure) and what it names; of a
 * record of kind ML_FAIL_NONE or ML_FAIL_VANISHED only fl is set. */
struct an_diag_record {
    struct ml_failure fl;     /* copy: kind ML_FAIL_NONE when there is none */
    const char *routine;      /* the MPI call in progress it names (none when fl.routine is 0xffff) */
    char *site;               /* that call's site */
    char *where;              /* the innermost frame of the program's own code with
                               * file:line, else in its code at all, else the innermost
                               * with file:line anywhere; NULL when none */
    char **frames;            /* the backtrace without the runtime's frames */
    unsigned nframes;
    char signal_name[24];     /* "SIGSEGV", "signal 77" (kind ML_FAIL_SIGNAL) */
    char code_name[24];       /* "SEGV_MAPERR", "code 9" */
    const char *code_text;    /* "address not mapped to object", or "" */
    int external_kill;        /* a terminating signal sent by another process */
};

enum an_diag_end {            /* how a rank ended, as the diagnosis counts it */
    AN_DIAG_FAILED = 1,       /* a failure of the job (record, or exit without MPI_Finalize) */
    AN_DIAG_VANISHED,         /* process gone without any record (not the first failure) */
    AN_DIAG_FINALIZED,        /* MPI_Finalize called (and not failed) */
    AN_DIAG_RUNNING,          /* its process is still there */
    AN_DIAG_UNKNOWN,          /* no MPI_Finalize; cannot tell from this host */
};

struct an_diag_rank {
    int rank;
    int pid;
    const char *host;
    int state;                /* header state: ML_STATE_* */
    int exit_status;          /* header exit status (after MPI_Finalize) */
    enum an_diag_end end;
    int collateral;           /* failed: killed from outside after another rank failed */
    int by_abort;             /* ... (collateral) ended by the MPI after the first one's MPI_Abort:
                               * exit(its code) inside an MPI call (MPICH) */
    int vfirst;               /* failed: vanished without a record, taken as the first failure */
    int stamped;              /* mpilens run saw its process gone (record ML_FAIL_VANISHED) */
    int64_t t_gone;           /* when it saw it gone (stamped), else INT64_MAX */
    int64_t t_fail;           /* failed: when, INT64_MAX if unknown */
    int t_after;              /* t_fail is only its last activity (gone after it) */
    int alive;                /* its process: 1 still there, 0 gone, -1 cannot tell (other host) */
    struct an_diag_record rec;
    unsigned nslots;          /* live slots in its file (threads that called MPI) */
    struct an_diag_thread *threads;   /* the used ones */
    unsigned nthreads;
};

struct an_diag {
    int single;               /* dir is one rank file */
    char **skipped;           /* "FILE: why; skipped": files that could not be read */
    int *skipped_rank;        /* the rank each one's name says (rank-N.mlt), or -1 */
    unsigned nskipped;
    struct an_diag_rank *ranks;   /* in file order */
    unsigned n;
    int size;                 /* world size from the headers */
    char mpi_impl[33];        /* of the first file */
    unsigned nfailed;         /* ranks that failed, those killed after the first included */
    unsigned nvanished;
    unsigned ncollateral;     /* of nfailed: killed from outside after the first failure */
    unsigned nby_abort;       /* of ncollateral: ended by the MPI after the first one's MPI_Abort */
    unsigned nexternal;       /* of nfailed: stopped by a signal from another process */
    int first;                /* index in ranks of the first failure, -1 */
    int outside;              /* that first one was signalled from outside: nothing failed by itself */
    int all_deadlocked;       /* every failed rank was stopped by the deadlock detector: first is -1 */
    int *order;               /* failed ranks (indexes in ranks): the first, then by time */
    unsigned norder;
    struct an_diag_span {     /* world ranks first..last have no rank file */
        int first, last;
    } *nofile;                /* in rank order (a directory whose world size is known) */
    unsigned nnofile;
    unsigned nfinalized, nrunning;    /* header states */
    unsigned nbad_exit;       /* finalized, then a non-zero exit status */
    int bad_rank, bad_status; /* the first of those */
    char *verdict;            /* DIR/deadlock.txt of the live monitor (an_deadlock_verdict), or NULL */
    char verdict_when[64];
    struct mlr_file **files;  /* n, open while d lives: host and routine names point into them;
                               * NULL in a sliced diagnosis (an_diag_load_slice) */
    void *blob;               /* a sliced diagnosis: what the processes sent, where its strings point */
};

/* Reads dir (a run directory or one rank file) and diagnoses it; call
 * sites and frames are named through site and addr.  0, or -1 when dir has
 * no readable rank file (nothing to free then). */
int an_diag_load(const char *dir, an_site_namer site, an_addr_namer addr, struct an_diag *d);
void an_diag_free(struct an_diag *d);
/* The same for a run opened in slices (an_run_open_slice, collective;
 * docs/PARALLEL.md): each process diagnoses the ranks of its own block of
 * rank files (their failure records, live slots and call sites, named
 * there), and process 0 judges the job from what they send (which rank
 * failed first, which were killed after it) and gets the serial
 * diagnosis: 0 there, or -1 when no rank file is readable; the other
 * processes get 1 and nothing to free. */
int an_diag_load_slice(const struct an_run *run, an_site_namer site, an_addr_namer addr, struct an_diag *d);

/* For `mpilens run` while and after the launcher runs (no symbols, no live
 * slots): ranks with a final failure record, and the pids of the ranks that
 * have not finalized or exited whose process is still alive on this host
 * (pid checked against the recorded executable).  0, or -1 when dir cannot
 * be read; *pids is malloc'd (free it), NULL when none. */
int an_diag_status(const char *dir, int *failed, int **pids, unsigned *npids);

/* The deadlock verdict `mpilens top` wrote to DIR/deadlock.txt, without its
 * first line (whose time stamp goes to when, "" if none), sanitised and
 * malloc'd; NULL when there is none. */
char *an_deadlock_verdict(const char *dir, char *when, size_t when_len);

#endif
