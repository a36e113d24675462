/*
 * reader.h — reading rank files (format/mlformat.h) and run directories.
 *
 * Every rank file is untrusted input: it may be cut at any byte (the rank
 * died, the disk filled), still being written (a live job), corrupted or
 * hostile.  The reader maps it read-only, bounds-checks every offset and
 * length, reads each chunk up to its last complete record, and reports what
 * it skipped as warnings; it never crashes on bad input.
 *
 * Events come out per rank in start-time order (threads merged), with their
 * follow-up records (result code, long duration, more completed requests,
 * repeats of an unsuccessful poll) attached.
 *
 * Memory: the reader gives a chunk's pages back once it has read it
 * (madvise), so what it keeps resident is a few chunks per file, not the
 * file.
 */
#ifndef ML_READER_H
#define ML_READER_H

#include <stddef.h>
#include <stdint.h>

#include "mlformat.h"

enum {
    MLR_OK = 0,
    MLR_EIO = -1,        /* cannot open or map */
    MLR_EMAGIC = -2,     /* not an mpilens rank file */
    MLR_EVERSION = -3,   /* unknown format version */
    MLR_ETRUNC = -4,     /* too short to hold a header */
    MLR_EENDIAN = -5,    /* other byte order */
    MLR_EDIR = -6,       /* run directory missing or unreadable */
    MLR_ENOFILES = -7,   /* run directory holds no rank files */
    MLR_EACCES = -8,     /* may not be read (permission) */
};

struct mlr_comm {        /* a communicator definition */
    int valid;
    uint32_t size, remote_size, flags;
    uint64_t handle, global_id;
    const int32_t *members;  /* size + remote_size world ranks, NULL if world */
    int32_t nsrc;            /* a virtual topology (flags & 4): this process's in-neighbours, */
    const int32_t *srcs;     /* ranks of the communicator; nsrc -1 and NULL: no topology */
    int has_prev;            /* the call recorded right before the definition, on its thread: */
    uint16_t prev_routine;   /* the creating call when it is a constructor such as MPI_Comm_split */
    uint32_t prev_site;      /* (its wrapper records the call, then defines what it returned) */
    char name[65];           /* set with MPI_Comm_set_name (ML_REC_COMM_NAME), else "" */
};

struct mlr_type {
    int valid;
    int32_t size;
    char name[49];
};

struct mlr_file;

/* One event: a completed MPI call of one thread. */
struct mlr_event {
    uint32_t thread;         /* thread index within the rank (0 = first to call MPI) */
    uint64_t tid;            /* kernel thread id */
    int64_t start_ns, end_ns;/* local CLOCK_MONOTONIC, ns */
    uint16_t routine;        /* routine id without the Fortran bit */
    int fortran;             /* 1 if called through a Fortran entry point */
    uint32_t site;           /* call-site id (mlr_site_addr) */
    uint8_t type;            /* ML_REC_CALL ... ML_REC_COMPLETE */
    struct ml_p2p p2p[2];    /* P2P, P2P_REQ: [0]; SENDRECV: [0] send, [1] receive */
    struct ml_coll coll;     /* COLL */
    struct ml_io io;         /* IO (MPI_File_open, read/write family) */
    const char *io_name;     /* IO of MPI_File_open: the file name (in the mapping), or NULL */
    uint64_t request;        /* P2P_REQ (MPI_Improbe: the message); COLL of a nonblocking
                              * collective; SENDRECV of MPI_Isendrecv(_replace) */
    uint64_t coll_seq;       /* COLL of a nonblocking collective: its number on the communicator */
    uint64_t sr_flags;       /* SENDRECV of MPI_Isendrecv: ML_SR_* */
    int has_result;
    int32_t result;          /* MPI error code when has_result */
    uint32_t ndone;          /* COMPLETE: completed requests */
    const struct ml_done *done;
    uint32_t repeat;         /* REPEAT follow-up: this call (which completed nothing) was
                              * followed by `repeat` more equal to it; 0 if none */
    int64_t repeat_end_ns;   /* when the last of them ended (end_ns when repeat is 0) */
    int64_t repeat_busy_ns;  /* the repeats' time inside their calls, summed; -1 when the
                              * record does not say (a 16-byte REPEAT) */
    int unfinished;          /* the call was still in progress when the file was read
                              * (the rank stopped or died in it): from the thread's live
                              * slot, type ML_REC_CALL; end_ns is the last time known of
                              * the rank (mlr_last_ns); p2p[0] and coll hold what it waits
                              * for (comm, peer or root, tag; bytes 0), request the slot's
                              * aux (mlformat.h struct ml_live); only with mlr_iter_unfinished */
};

int mlr_open(const char *path, struct mlr_file **out);
void mlr_close(struct mlr_file *f);
const char *mlr_strerror(int err);
const char *mlr_path(const struct mlr_file *f);

/* Warnings collected while reading (file cut, bad chunk, ...), NUL-separated
 * lines; mlr_warnings returns NULL if none. */
const char *mlr_warnings(const struct mlr_file *f);

const struct ml_header *mlr_header(const struct mlr_file *f);
/* Host, MPI version etc. as NUL-terminated strings (copied, safe to print). */
const char *mlr_host(const struct mlr_file *f);
const char *mlr_mpi_version(const struct mlr_file *f);
const char *mlr_exe(const struct mlr_file *f);
int mlr_rank(const struct mlr_file *f);

const char *mlr_routine_name(const struct mlr_file *f, uint16_t routine);
int mlr_routine_id(const struct mlr_file *f, const char *name); /* -1 if unknown */
uint64_t mlr_site_addr(const struct mlr_file *f, uint32_t site);
/* The call chain of a site (recorded with mpilens run -k N, N > 1): up to
 * max return addresses into addrs, innermost first (addrs[0] is
 * mlr_site_addr); returns how many, 0 for an unknown site, 1 where the file
 * has no chains.  Look up each address - 1 (the call). */
unsigned mlr_site_chain(const struct mlr_file *f, uint32_t site, uint64_t *addrs, unsigned max);
/* Frames per site the file was recorded with: 1, or 2 .. ML_MAX_DEPTH. */
unsigned mlr_chain_depth(const struct mlr_file *f);
unsigned mlr_nmodules(const struct mlr_file *f);
const struct ml_module *mlr_module(const struct mlr_file *f, unsigned i);
const struct mlr_comm *mlr_comm(const struct mlr_file *f, uint16_t index);
/* One past the highest communicator definition index found (valid or not). */
unsigned mlr_ncomms(const struct mlr_file *f);
const struct mlr_type *mlr_type(const struct mlr_file *f, uint16_t index);
/* World rank of `rank` in communicator `comm` (remote group for
 * inter-communicators when remote != 0); -1 if unknown. */
int mlr_world_rank(const struct mlr_file *f, uint16_t comm, int rank, int remote);
int64_t mlr_ticks_to_ns(const struct mlr_file *f, uint64_t ticks);

/* Events of the file in start-time order.  mlr_next returns 1 and fills ev,
 * or 0 at the end.  ev->done stays valid until the next call. */
struct mlr_iter;
struct mlr_iter *mlr_iter_new(struct mlr_file *f);
int mlr_next(struct mlr_iter *it, struct mlr_event *ev);
/* Also give, after each thread's last record, the call its live slot says
 * it is in (ev->unfinished); call before the first mlr_next. */
void mlr_iter_unfinished(struct mlr_iter *it);
/* The last time (local ns) the file tells of: the failure record's time,
 * the clock anchor refreshed as the run went, the live slots' stamps. */
int64_t mlr_last_ns(const struct mlr_file *f);
void mlr_iter_free(struct mlr_iter *it);
/* A second iterator that reads on from where `it` is (the two are then
 * independent); `last`, if not NULL, is the event `it` gave last: its done
 * is pointed into the copy.  *bytes (if not NULL) grows by the copy's size. */
struct mlr_iter *mlr_iter_clone(const struct mlr_iter *it, struct mlr_event *last, size_t *bytes);
uint64_t mlr_event_count(struct mlr_file *f);  /* counts by iterating */

/* Live state of thread slot i (0 <= i < nthreads), consistent copy; returns
 * 0 on success, -1 if the slot is absent or could not be read consistently. */
int mlr_live(const struct mlr_file *f, unsigned i, struct ml_live *out);
unsigned mlr_nthreads(const struct mlr_file *f);

/* Run directory: the rank files in it, sorted by rank. */
struct mlr_dir {
    char *path;
    unsigned n;
    char **files;            /* full paths */
};
int mlr_dir_scan(const char *dir, struct mlr_dir *out);
void mlr_dir_free(struct mlr_dir *d);

#endif
