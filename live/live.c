/*
 * live.c — the live view of a run directory and its watch loop (live.h).
 *
 * Every refresh reads each rank file's header and live slots (livefile.c),
 * turns them into entities (one per rank, or one per thread of a rank that
 * is inside MPI), groups the entities that are in the same state (routine,
 * call site, inside/outside MPI) and prints the groups, largest or oldest
 * first, as a table that fits the terminal:
 *
 *   WHO      WHAT                       WHERE                        WHEN
 *   1-1023   MPI_Bcast root 0 on MPI_C  solver.c:49                  started 3.1-4.0s ago
 *   0        computing                  after MPI_Allreduce solver.c  completed 4.02s ago
 *
 * It never invents a state: a rank without a file yet is "not started", a
 * finalized one says so (header state), a running one whose process is gone
 * (same host: kill(pid, 0), /proc) "died", and one on another host that has
 * not changed for long "stale".
 *
 * Progress: the job progressed when any rank's t_end changed (a call
 * completed something; unsuccessful tests and probes write t_idle instead,
 * local calls write nothing), a rank's state changed or a new rank appeared.
 * After deadlock_timeout seconds without progress the wait-for graph of the
 * current state is checked (deadlock.c), and again every second while the
 * job stays stalled and its state changes.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "remote.h"
#include "symbols.h"
#include "tool.h"

volatile sig_atomic_t live_interrupted;   /* set by mpilens top's signal handler */
static int remote_mode;                   /* ranks come from agents' streams */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- growing text buffer -------------------------------------------------- */

struct sb {
    char *s;
    size_t n, cap;
};

static void sb_put(struct sb *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 4096;
        while (c < b->n + n + 1) c *= 2;
        char *p = realloc(b->s, c);
        if (!p) return;
        b->s = p;
        b->cap = c;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

static void sb_printf(struct sb *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
    sb_put(b, tmp, (size_t)n);
}

/* ---- formatting ------------------------------------------------------------ */

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

void fmt_ranks(char *buf, size_t n, const int *r, unsigned k)
{
    size_t o = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < k && o + 1 < n;) {
        unsigned j = i;
        while (j + 1 < k && r[j + 1] == r[j] + 1) j++;
        int w;
        if (j == i) w = snprintf(buf + o, n - o, "%s%d", o ? "," : "", r[i]);
        else w = snprintf(buf + o, n - o, "%s%d-%d", o ? "," : "", r[i], r[j]);
        if (w < 0 || (size_t)w >= n - o) {
            /* does not fit: end with an ellipsis after the last whole item
             * that leaves room for it ("14,..." never "14,1...": a cut
             * number reads as another rank) */
            size_t at = o;
            if (n > 4 && at > n - 4) {
                at = n - 4;
                while (at > 0 && buf[at - 1] != ',') at--;
            }
            if (n > 4) snprintf(buf + at, 4, "...");
            return;
        }
        o += (size_t)w;
        i = j + 1;
    }
}

/* Session numbers for communicators, by global id: "comm #2". */
static uint64_t *comm_ids;
static unsigned ncomm_ids;

static unsigned comm_number(uint64_t gid)
{
    for (unsigned i = 0; i < ncomm_ids; i++)
        if (comm_ids[i] == gid) return i + 1;
    uint64_t *p = realloc(comm_ids, (ncomm_ids + 1) * sizeof *p);
    if (!p) return 0;
    comm_ids = p;
    comm_ids[ncomm_ids++] = gid;
    return ncomm_ids;
}

const char *fmt_comm(struct lf *f, uint32_t comm, char *buf, size_t n)
{
    const struct lf_comm *c = comm < ML_COMM_NONE ? lf_comm(f, comm) : NULL;
    if (!c) snprintf(buf, n, "comm ?");
    else if (c->flags & 2) snprintf(buf, n, "MPI_COMM_WORLD");
    else if (c->flags & 1)
        snprintf(buf, n, "intercomm #%u%s%s%s (%u+%u ranks)", comm_number(c->gid), c->name[0] ? " '" : "", c->name,
                 c->name[0] ? "'" : "", c->size, c->remote_size);
    else
        snprintf(buf, n, "comm #%u%s%s%s (%u rank%s)", comm_number(c->gid), c->name[0] ? " '" : "", c->name,
                 c->name[0] ? "'" : "", c->size, c->size == 1 ? "" : "s");
    return buf;
}

/* A collective on a window or file (MPI_Win_fence, MPI_File_write_all, ...:
 * the communicator in its slot is the one it was created on): "a window of "
 * / "a file of ", else NULL. */
static const char *obj_collective(const char *name)
{
    if (!strncmp(name, "MPI_Win_", 8))
        return strncmp(name + 8, "create", 6) && strncmp(name + 8, "allocate", 8) ? "a window of " : NULL;
    if (!strncmp(name, "MPI_File_", 9)) return strncmp(name + 9, "open", 4) ? "a file of " : NULL;
    return NULL;
}

static int is_world(struct lf *f, uint32_t comm)
{
    const struct lf_comm *c = comm < ML_COMM_NONE ? lf_comm(f, comm) : NULL;
    return c && (c->flags & 2);
}

const char *fmt_peer(struct lf *f, uint32_t comm, int32_t peer, char *buf, size_t n)
{
    if (peer == lf_any_source(f)) snprintf(buf, n, "any source");
    else if (peer == lf_proc_null(f)) snprintf(buf, n, "MPI_PROC_NULL");
    else if (peer == ML_PEER_NONE) snprintf(buf, n, "?");
    else {
        int w = lf_world(f, comm, peer);
        if (w >= 0) snprintf(buf, n, "%d", w);
        else snprintf(buf, n, "rank %d of comm", peer);
    }
    return buf;
}

static const char *fmt_tag(int32_t tag, char *buf, size_t n)
{
    if (tag == -1) snprintf(buf, n, "any tag");        /* MPI_ANY_TAG in both MPIs */
    else snprintf(buf, n, "tag %d", tag);
    return buf;
}

/* The peer part of a group: the same for all, or "r-1", or "various"; and
 * whether its members differ in tag, communicator or root (then the table
 * says so instead of showing the first member's). */
struct peer_sum {
    int all_same;
    char text[64];
    int tags_differ, comms_differ, roots_differ;
};

static void what_text(const struct ent *e, const struct peer_sum *ps, char *buf, size_t n)
{
    char p[64], t[32], c[64], p2[64], t2[32];
    const char *name = e->f ? lf_routine(e->f, e->l.routine) : "?";
    const char *peer = ps && !ps->all_same ? ps->text : NULL;
    int tags_differ = ps && ps->tags_differ, comms_differ = ps && ps->comms_differ;
    const char *poll = e->state != ES_POLL ? ""
                       : e->working ? " (polling between work phases)" : " (polling, nothing completes)";
    switch (e->state) {
    case ES_COMPUTE: snprintf(buf, n, "computing"); return;
    case ES_NOCALL: snprintf(buf, n, "computing (no MPI call yet)"); return;
    case ES_NOTSTARTED:
        snprintf(buf, n, "%s", remote_mode ? "not seen yet (no agent sent it)" : "not started (no rank file yet)");
        return;
    case ES_FINALIZED: snprintf(buf, n, "finalized"); return;
    case ES_STALE:
        if (lf_is_remote(e->f)) snprintf(buf, n, "stale: the stream from host %s stopped", lf_host(e->f));
        else snprintf(buf, n, "stale: no update for long (host %s)", lf_host(e->f));
        return;
    case ES_EXITED:
    case ES_DIED: {
        const volatile struct ml_header *h = lf_hdr(e->f);
        uint32_t k = h->failure.kind;
        const char *what = e->state == ES_EXITED ? "exited without MPI_Finalize" : "died";
        if (k == ML_FAIL_SIGNAL) snprintf(buf, n, "%s: signal %d (%s)", what, h->failure.signo,
                                          strsignal(h->failure.signo));
        else if (k == ML_FAIL_ABORT) snprintf(buf, n, "%s: MPI_Abort(%d)", what, h->failure.code);
        else if (k == ML_FAIL_MPI_ERROR) snprintf(buf, n, "%s: MPI error %d", what, h->failure.code);
        else if (k == ML_FAIL_DEADLOCK) snprintf(buf, n, "%s: stopped as deadlocked", what);
        else if (k == ML_FAIL_VANISHED) snprintf(buf, n, "died: no record (SIGKILL, OOM killer?)");
        else if (e->state == ES_EXITED && k == ML_FAIL_EXIT)
            snprintf(buf, n, "%s (status %d)", what, h->failure.code);
        else if (e->state == ES_DIED) snprintf(buf, n, "died (process gone, no MPI_Finalize)");
        else snprintf(buf, n, "%s", what);
        return;
    }
    }
    struct lf *f = e->f;
    int world = is_world(f, e->l.comm);
    c[0] = 0;
    switch (e->rclass) {
    case RC_SEND:
    case RC_RECV:
    case RC_PROBE:
    case RC_IPROBE:
    case RC_ONESIDED:
        if (comms_differ) {
            snprintf(c, sizeof c, " on various communicators");
        } else if (!world && e->l.comm < ML_COMM_NONE) {
            char cc[60];
            snprintf(c, sizeof c, " on %s", fmt_comm(f, e->l.comm, cc, sizeof cc));
        }
        snprintf(buf, n, "%s %s %s %s%s%s", name,
                 e->rclass == RC_SEND ? "to" : e->rclass == RC_ONESIDED ? "target" : "from",
                 peer ? peer : fmt_peer(f, e->l.comm, e->l.peer, p, sizeof p),
                 e->rclass == RC_ONESIDED ? "" : tags_differ ? "(various tags)" : fmt_tag(e->l.tag, t, sizeof t), c,
                 poll);
        return;
    case RC_SENDRECV: {
        int32_t src = (int32_t)(uint32_t)e->l.aux, rtag = (int32_t)(uint32_t)(e->l.aux >> 32);
        if (comms_differ) {
            snprintf(c, sizeof c, " on various communicators");
        } else if (!world && e->l.comm < ML_COMM_NONE) {
            char cc[60];
            snprintf(c, sizeof c, " on %s", fmt_comm(f, e->l.comm, cc, sizeof cc));
        }
        if (peer || tags_differ)   /* the receive part differs too, likely: not from the first */
            snprintf(buf, n, "%s to %s %s, from various%s", name,
                     peer ? peer : fmt_peer(f, e->l.comm, e->l.peer, p, sizeof p),
                     tags_differ ? "(various tags)" : fmt_tag(e->l.tag, t, sizeof t), c);
        else
            snprintf(buf, n, "%s to %s %s, from %s %s%s", name, fmt_peer(f, e->l.comm, e->l.peer, p, sizeof p),
                     fmt_tag(e->l.tag, t, sizeof t), fmt_peer(f, e->l.comm, src, p2, sizeof p2),
                     fmt_tag(rtag, t2, sizeof t2), c);
        return;
    }
    case RC_COLL:
    case RC_COMM_COLL: {
        char cc[80];
        const char *obj = obj_collective(name);
        if (comms_differ) snprintf(cc, sizeof cc, "%svarious communicators", obj ? obj : "");
        else if (obj && e->l.comm >= ML_COMM_NONE) snprintf(cc, sizeof cc, "%.*s", (int)strlen(obj) - 4, obj);
        else {
            char c1[60];
            snprintf(cc, sizeof cc, "%s%s", obj ? obj : "", fmt_comm(f, e->l.comm, c1, sizeof c1));
        }
        if (rclass_rooted(name) && e->l.peer != ML_PEER_NONE)
            snprintf(buf, n, "%s root %s on %s", name,
                     ps && ps->roots_differ ? "various" : fmt_peer(f, e->l.comm, e->l.peer, p, sizeof p), cc);
        else snprintf(buf, n, "%s on %s", name, cc);
        return;
    }
    case RC_WAITALL:
    case RC_WAITANY:
    case RC_WAITSOME:
    case RC_TESTALL:
    case RC_TESTANY:
    case RC_TESTSOME:
        snprintf(buf, n, "%s of %lld request%s%s", name, (long long)(int64_t)e->l.aux,
                 (int64_t)e->l.aux == 1 ? "" : "s", poll);
        return;
    case RC_JOIN:
        if (e->l.peer >= 0) snprintf(buf, n, "%s of thread %d", name, e->l.peer);
        else snprintf(buf, n, "%s of a thread without MPI calls", name);
        return;
    }
    snprintf(buf, n, "%s%s", name, poll);
}

void fmt_what(const struct ent *e, char *buf, size_t n)
{
    what_text(e, NULL, buf, n);
}

static void fmt_age(char *buf, size_t n, double s)
{
    if (s < 0) s = 0;
    if (s < 10) snprintf(buf, n, "%.2fs", s);
    else if (s < 100) snprintf(buf, n, "%.1fs", s);
    else if (s < 1000) snprintf(buf, n, "%.0fs", s);
    else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

static void fmt_age_range(char *buf, size_t n, double a, double b)
{
    char x[32], y[32];
    if (b - a < 0.005 || b < 0) {
        fmt_age(buf, n, b);
        return;
    }
    if (b < 100) {
        snprintf(x, sizeof x, "%.1f", a);
        snprintf(y, sizeof y, "%.1f", b);
        if (!strcmp(x, y)) snprintf(buf, n, "%ss", y);
        else snprintf(buf, n, "%s-%ss", x, y);
        return;
    }
    fmt_age(x, sizeof x, a);
    fmt_age(y, sizeof y, b);
    if (!strcmp(x, y)) snprintf(buf, n, "%s", y);   /* the same at this resolution: "20m00s", not "20m00s-20m00s" */
    else snprintf(buf, n, "%s-%s", x, y);
}

/* ---- the watched ranks ------------------------------------------------------ */

struct rk {
    struct lf *f;
    dev_t dev;
    ino_t ino;
    int same_host;
    int gone;                /* process no longer exists (same host) */
    int gone_seen;
    int exe_ok;              /* 1 the pid runs the rank's program, -1 unknown */
    uint64_t prog;           /* max t_end over threads */
    int32_t state;
    unsigned nthreads;
    uint64_t sig;            /* everything that can change */
    int64_t changed_ns, seen_ns;
    int64_t proc_ns;         /* last look at /proc/PID (the slow liveness check) */
    int proc_once;           /* that look was taken at least once (first snapshot) */
    int remote;              /* from a node's state stream (remote.c): liveness and
                              * staleness come from the stream */
    struct thr *th;          /* per live slot: polls and work between them */
    unsigned nth;
};

/* What a thread did between polls, over refreshes (live.h: ent.working). */
struct thr {
    uint8_t seen, work;      /* slot's work counter when last seen */
    uint64_t idle;           /* slot's t_idle when last seen ... */
    int64_t idle_seen_ns;    /* ... and when that value was first seen */
    int64_t work_ns;         /* last time it was seen working between polls (0 never) */
};

struct watch {
    const char *dir;         /* shown in the header */
    const char *dir_real;    /* the run directory (deadlock.txt), NULL if none */
    struct live_opts o;
    FILE *out;
    int64_t interval_ns, timeout_ns, poll_ns;
    struct rk *rk;
    unsigned nrk, caprk;
    int world;
    int complete;            /* every rank 0..world-1 has a file */
    char host[256];
    struct ent *ents;
    unsigned nents, capents;
    int64_t now, start_ns, last_prog_ns, last_check_ns, last_newfile_ns;
    int64_t read_ns;         /* when the last snapshot had read the files: the ages' "now" */
    uint64_t total_sig, check_sig;
    int refreshed;
    char *note;              /* result of the last negative deadlock check */
    /* terminal */
    int inplace, rows, cols, h;
    /* directory scan: files seen (hash set of (device, inode) keys), and the
     * directory's mtime at the last scan */
    uint64_t *seen;
    unsigned seen_cap, seen_n;
    struct timespec dir_mtime;
    int dir_settled;         /* mtime older than the last scan by 1 s: trusted */
    int dir_pending;         /* a rank file could not be opened yet: scan again */
    unsigned nbad;           /* rank files that stay unreadable (cut header, not a rank file) */
    int *bad_rank;           /* the rank each one's name says, or -1 */
    int64_t dir_scan_ns;
};

static uint64_t file_key(dev_t d, ino_t i)
{
    uint64_t k = ((uint64_t)i ^ ((uint64_t)d * 0x9E3779B97F4A7C15ull)) * 0xff51afd7ed558ccdull;
    return k ? k : 1;
}

static int seen_has(const struct watch *w, uint64_t k)
{
    if (!w->seen_cap) return 0;
    for (unsigned j = (unsigned)(k >> 32) & (w->seen_cap - 1); w->seen[j]; j = (j + 1) & (w->seen_cap - 1))
        if (w->seen[j] == k) return 1;
    return 0;
}

static void seen_add(struct watch *w, uint64_t k)
{
    if (seen_has(w, k)) return;
    if ((w->seen_n + 1) * 2 > w->seen_cap) {
        unsigned cap = w->seen_cap ? w->seen_cap * 2 : 1024;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t) return;
        for (unsigned i = 0; i < w->seen_cap; i++) {
            if (!w->seen[i]) continue;
            unsigned j = (unsigned)(w->seen[i] >> 32) & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = w->seen[i];
        }
        free(w->seen);
        w->seen = t;
        w->seen_cap = cap;
    }
    unsigned j = (unsigned)(k >> 32) & (w->seen_cap - 1);
    while (w->seen[j]) j = (j + 1) & (w->seen_cap - 1);
    w->seen[j] = k;
    w->seen_n++;
}

static int rank_file_name(const char *s)
{
    const char *p = NULL;
    if (!strncmp(s, "rank-", 5)) p = s + 5;
    else if (!strncmp(s, "pid-", 4)) p = s + 4;
    if (!p || !isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
    return !strcmp(p, ".mlt");
}

/* New rank files in the directory.  Returns -1 if the directory cannot be read.
 * Cheap when nothing changed: the directory is read again only when its
 * mtime moved (or was too recent to trust, or a file could not be opened
 * yet, or 10 s passed); a file already open is known by its inode without a
 * stat (files are renamed, pid-N.mlt to rank-N.mlt, so names do not tell). */
static int scan_dir(struct watch *w)
{
    struct stat ds;
    if (stat(w->dir, &ds) != 0) return -1;
    if (w->dir_scan_ns && w->dir_settled && !w->dir_pending && ds.st_mtim.tv_sec == w->dir_mtime.tv_sec &&
        ds.st_mtim.tv_nsec == w->dir_mtime.tv_nsec && w->now - w->dir_scan_ns < 10000000000ll)
        return 0;
    DIR *d = opendir(w->dir);
    if (!d) return -1;
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    w->dir_mtime = ds.st_mtim;
    w->dir_settled = real.tv_sec - ds.st_mtim.tv_sec >= 2;
    w->dir_pending = 0;
    w->dir_scan_ns = w->now;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!rank_file_name(e->d_name)) continue;
        uint64_t dkey = file_key(ds.st_dev, e->d_ino);
        if (seen_has(w, dkey)) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", w->dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        uint64_t key = file_key(st.st_dev, st.st_ino);
        if (seen_has(w, key)) {
            seen_add(w, dkey);                      /* d_ino differs from st_ino (overlayfs) */
            continue;
        }
        struct lf *f;
        int oe = lf_open(path, &f);
        if (oe != 0) {
            /* not written yet: next time; but a file the writer left
             * alone for 2 s that still cannot be read will not become
             * readable (cut, or not a rank file): said once, then skipped */
            if (oe == -5 || (oe != -1 && real.tv_sec - st.st_mtim.tv_sec >= 2)) {
                seen_add(w, key);
                if (dkey != key) seen_add(w, dkey);
                int *br = realloc(w->bad_rank, (w->nbad + 1) * sizeof *br);
                int rk = -1;
                if (br) {
                    w->bad_rank = br;
                    br[w->nbad++] = sscanf(e->d_name, "rank-%d.mlt", &rk) == 1 ? rk : -1;
                }
                fprintf(stderr, "%s: %s %s: unreadable, skipped\n", w->o.name ? w->o.name : "mpilens", path,
                        oe == -5   ? "cannot be opened (permission denied)"
                        : oe == -4 ? "is cut before the end of its header"
                        : oe == -2 ? "is not an mpilens rank file (wrong magic)"
                                   : "has a format version or header this mpilens does not read");
                continue;
            }
            w->dir_pending = 1;
            continue;
        }
        seen_add(w, key);
        if (dkey != key) seen_add(w, dkey);
        if (w->nrk == w->caprk) {
            unsigned c = w->caprk ? w->caprk * 2 : 64;
            struct rk *p = realloc(w->rk, c * sizeof *p);
            if (!p) {
                lf_close(f);
                break;
            }
            w->rk = p;
            w->caprk = c;
        }
        struct rk *r = &w->rk[w->nrk++];
        memset(r, 0, sizeof *r);
        r->f = f;
        r->dev = st.st_dev;
        r->ino = st.st_ino;
        r->same_host = strcmp(lf_host(f), w->host) == 0;
        r->exe_ok = -1;
        r->changed_ns = r->seen_ns = w->now;
        r->proc_ns = w->now - (int64_t)(w->nrk % 8) * 500000000;   /* spread the slow checks */
        w->last_newfile_ns = w->now;
        w->last_prog_ns = w->now;
    }
    closedir(d);
    return 0;
}

/* Has the process recorded a fatal signal that nothing of the program's
 * handles?  The runtime's handler wrote the record, then re-sent the signal
 * with its default action: the process is dying or dead, whatever /proc
 * says for a moment (a zombie not yet reaped).  A record the program's own
 * handler saw (ML_FAILF_HANDLER) waits for the liveness check: that
 * handler may still run, or let the program go on. */
static int fatal_signal(const volatile struct ml_header *h)
{
    if (__atomic_load_n(&h->failure.kind, __ATOMIC_ACQUIRE) != ML_FAIL_SIGNAL) return 0;
    return !(h->failure.flags & (ML_FAILF_SOFT | ML_FAILF_HANDLER));
}

/* Is the process of a rank file still there?  The slow check (a zombie, a
 * reused pid) reads /proc on the first snapshot (so `top --once` right after
 * a crash is right), then at most every 4 s per rank while it is stuck. */
static int process_gone(struct rk *r, int stuck, int64_t now)
{
    const volatile struct ml_header *h = lf_hdr(r->f);
    pid_t pid = h->pid;
    if (pid <= 0) return 0;
    if (kill(pid, 0) != 0 && errno == ESRCH) return 1;
    if (r->proc_once && (!stuck || now - r->proc_ns < 4000000000ll)) return 0;
    r->proc_once = 1;
    r->proc_ns = now;
    /* looks alive, but has not changed for a while: a zombie, or the pid reused? */
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0) {
        buf[n] = 0;
        char *q = strrchr(buf, ')');
        if (q && q[1] == ' ' && (q[2] == 'Z' || q[2] == 'X')) return 1;
    }
    if (r->exe_ok < 0) {
        char exe[PATH_MAX], want[513];
        snprintf(p, sizeof p, "/proc/%d/exe", (int)pid);
        ssize_t l = readlink(p, exe, sizeof exe - 1);
        size_t i = 0;
        for (; i < sizeof want - 1 && h->exe[i]; i++) want[i] = h->exe[i];
        want[i] = 0;
        if (l > 0 && want[0]) {
            exe[l] = 0;
            r->exe_ok = strcmp(exe, want) == 0 || strstr(exe, " (deleted)") != NULL;
        }
    }
    return r->exe_ok == 0;
}

static struct ent *ent_add(struct watch *w)
{
    if (w->nents == w->capents) {
        unsigned c = w->capents ? w->capents * 2 : 256;
        struct ent *p = realloc(w->ents, c * sizeof *p);
        if (!p) return NULL;
        w->ents = p;
        w->capents = c;
    }
    struct ent *e = &w->ents[w->nents++];
    memset(e, 0, sizeof *e);
    return e;
}

/* Routine class by global routine-name id (the class depends on the name only). */
static signed char *gid_class;
static unsigned ngid_class;

static void ent_routine(struct ent *e)
{
    e->rgid = lf_routine_gid(e->f, e->l.routine);
    unsigned g = (unsigned)e->rgid;
    if (e->rgid >= 0 && g < ngid_class && gid_class[g] >= 0) {
        e->rclass = gid_class[g];
    } else {
        e->rclass = routine_class(lf_routine(e->f, e->l.routine));
        if (e->rgid >= 0 && g < (1u << 20)) {
            if (g >= ngid_class) {
                unsigned n = g + 256;
                signed char *p = realloc(gid_class, n);
                if (p) {
                    memset(p + ngid_class, -1, n - ngid_class);
                    gid_class = p;
                    ngid_class = n;
                }
            }
            if (g < ngid_class) gid_class[g] = (signed char)e->rclass;
        }
    }
    e->sgid = lf_site_gid(e->f, e->l.site);
}

static int64_t ns_of(struct rk *r, uint64_t t)
{
    return t ? lf_ns(r->f, t) : 0;
}

/* Read every rank file once: entities, progress, liveness. */
static void take_remote(struct watch *w)
{
    struct lf *f;
    rs_poll(w->o.remote, 0);
    while ((f = rs_take(w->o.remote))) {
        int rank = lf_rank(f), dup = -1;
        for (unsigned k = 0; k < w->nrk && dup < 0; k++)
            if (lf_rank(w->rk[k].f) == rank) dup = (int)k;
        if (dup >= 0) {
            struct rk *r = &w->rk[dup];
            if (lf_remote_state(r->f) != LF_REMOTE_STALE) {
                fprintf(w->out, "mpilens: rank %d is sent by two agents (%s and %s): the second is ignored\n", rank,
                        lf_path(r->f), lf_path(f));
                continue;
            }
            r->f = f;                               /* a new stream for a stale rank */
            r->sig = 0;
            r->changed_ns = w->now;
            w->last_prog_ns = w->now;
            continue;
        }
        if (w->nrk == w->caprk) {
            unsigned c = w->caprk ? w->caprk * 2 : 64;
            struct rk *p = realloc(w->rk, c * sizeof *p);
            if (!p) return;
            w->rk = p;
            w->caprk = c;
        }
        struct rk *r = &w->rk[w->nrk++];
        memset(r, 0, sizeof *r);
        r->f = f;
        r->remote = 1;
        r->same_host = strcmp(lf_host(f), w->host) == 0;
        r->exe_ok = -1;
        r->changed_ns = r->seen_ns = w->now;
        w->last_newfile_ns = w->now;
        w->last_prog_ns = w->now;
    }
}

static void snapshot(struct watch *w)
{
    w->nents = 0;
    w->now = w->read_ns = mono_ns();
    if (w->o.remote) take_remote(w);
    else if (!w->complete) scan_dir(w);
    int maxrank = -1;
    uint64_t total = 0;
    for (unsigned k = 0; k < w->nrk; k++) {
        struct rk *r = &w->rk[k];
        const volatile struct ml_header *h = lf_hdr(r->f);
        int32_t size = h->size;
        if (size > w->world && size < (1 << 24)) w->world = size;
        int rank = h->rank;
        if (rank > maxrank) maxrank = rank;
        int32_t state = h->state;
        unsigned nt = lf_nthreads(r->f);
        struct ml_live sl[ML_MAX_THREADS];
        int ok[ML_MAX_THREADS];
        if (nt > ML_MAX_THREADS) nt = ML_MAX_THREADS;
        uint64_t prog = 0, sig = (uint64_t)state * 0x9E3779B97F4A7C15ull + nt;
        for (unsigned i = 0; i < nt; i++) {
            ok[i] = lf_live(r->f, i, &sl[i]) == 0 && sl[i].used;
            if (!ok[i]) continue;
            if (sl[i].t_end > prog) prog = sl[i].t_end;
            sig = (sig ^ (sl[i].seq + sl[i].t_end * 3 + sl[i].t_idle * 7)) * 0xff51afd7ed558ccdull;
        }
        /* a rank whose slots moved since the last refresh is alive: no check */
        if (r->remote)
            r->gone = lf_remote_state(r->f) == LF_REMOTE_GONE;   /* its agent looked */
        else if (state == ML_STATE_RUNNING && r->same_host && !r->gone && (!r->sig || sig == r->sig))
            r->gone = process_gone(r, w->now - r->changed_ns > 2 * w->interval_ns, w->now);
        if (state == ML_STATE_RUNNING && !r->gone && fatal_signal(h)) r->gone = 1;
        sig ^= (uint64_t)r->gone << 63;
        if (prog != r->prog || state != r->state || nt != r->nthreads || r->gone != r->gone_seen) {
            r->prog = prog;
            r->state = state;
            r->nthreads = nt;
            r->gone_seen = r->gone;
            w->last_prog_ns = w->now;
        }
        if (sig != r->sig) {
            r->sig = sig;
            r->changed_ns = w->now;
        }
        total = (total ^ sig) * 0x100000001b3ull + k;

        /* entities */
        int estate = 0;
        if (state == ML_STATE_FINALIZED) estate = ES_FINALIZED;
        else if (state == ML_STATE_EXITED) estate = ES_EXITED;
        else if (r->gone) estate = ES_DIED;
        else if (r->remote ? lf_remote_state(r->f) == LF_REMOTE_STALE
                           : !r->same_host && w->now - r->changed_ns > 2 * w->timeout_ns + 30000000000ll)
            estate = ES_STALE;
        if (estate) {
            /* one entity; the thread the failure record names (the one
             * report's diagnosis says the rank was in), else the most
             * recent slot, says where it was */
            struct ent *e = ent_add(w);
            if (!e) return;
            e->rank = rank;
            e->f = r->f;
            e->state = estate;
            int best = -1;
            uint64_t bt = 0;
            uint64_t ftid = __atomic_load_n(&h->failure.kind, __ATOMIC_ACQUIRE) ? h->failure.tid : 0;
            for (unsigned i = 0; i < nt; i++) {
                if (!ok[i]) continue;
                uint64_t t = sl[i].t_start > sl[i].t_end ? sl[i].t_start : sl[i].t_end;
                if (ftid && sl[i].tid == ftid) {
                    best = (int)i, bt = t;
                    break;
                }
                if (best < 0 || t > bt) best = (int)i, bt = t;
            }
            if (best >= 0) {
                e->thread = (unsigned)best;
                e->l = sl[best];
                ent_routine(e);
                e->since_ns = r->same_host || r->remote ? ns_of(r, bt) : 0;
            }
            /* a crash (or exit()) outside MPI: where, as the report says,
             * not the last MPI call's site */
            if (estate == ES_DIED || estate == ES_EXITED) {
                uint32_t fg = lf_fail_site_gid(r->f);
                if (fg) {
                    e->sgid = fg;
                    e->fail_site = 1;
                }
            }
            continue;
        }
        if (nt > r->nth) {
            struct thr *p = realloc(r->th, nt * sizeof *p);
            if (p) {
                memset(p + r->nth, 0, (nt - r->nth) * sizeof *p);
                r->th = p;
                r->nth = nt;
            }
        }
        unsigned added = 0, ncomp = 0;
        int best = -1;
        uint64_t bt = 0;
        unsigned comp[ML_MAX_THREADS];
        for (unsigned i = 0; i < nt; i++) {
            if (!ok[i]) continue;
            struct ml_live *l = &sl[i];
            uint64_t last_end = l->t_end > l->t_idle ? l->t_end : l->t_idle;
            uint64_t t = l->t_start > last_end ? l->t_start : last_end;
            if (l->t_start == 0) {
                comp[ncomp++] = i;
                continue;
            }
            int in = l->t_start > last_end;
            int idle_last = l->t_idle > l->t_end && (in || l->t_idle >= l->t_start);
            int st = 0;
            /* Work between polls: the runtime counts in `work` the polls that
             * follow more than ML_WORK_GAP_NS outside MPI spent computing or
             * blocked outside MPI, not waiting for a CPU (runtime/rt.c, "work
             * between polls"); a thread outside MPI that long now computes.
             * Such a thread is a sink for the deadlock check until it has only
             * polled for a whole deadlock timeout: polling never sticks across
             * work.  The gaps are not judged here by their length alone: on a
             * machine with more ranks than cores a thread that only polls
             * sits on a run queue for that long too. */
            struct thr *h = i < r->nth ? &r->th[i] : NULL;
            int64_t out_ns = 0;  /* outside MPI since its last poll ended, at least */
            if (h) {
                if (!h->seen || h->idle != l->t_idle) h->idle_seen_ns = w->now;
                if (h->seen && h->work != l->work) h->work_ns = w->now;
                h->seen = 1;
                h->work = l->work;
                h->idle = l->t_idle;
            }
            int timed = r->same_host || r->remote;     /* its times are on our clock */
            if (idle_last && !in)
                out_ns = timed ? w->now - ns_of(r, l->t_idle) : h ? w->now - h->idle_seen_ns : 0;
            if (idle_last) {
                int64_t last_try = ns_of(r, in ? l->t_start : l->t_idle);
                if (in ? w->now - last_try < w->poll_ns || !timed : out_ns <= ML_WORK_GAP_NS) st = ES_POLL;
            }
            if (!st && in) st = ES_IN;
            if (!st) {
                if (best < 0 || t > bt) best = (int)i, bt = t;
                comp[ncomp++] = i;
                continue;
            }
            struct ent *e = ent_add(w);
            if (!e) return;
            e->rank = rank;
            e->thread = i;
            e->f = r->f;
            e->state = st;
            e->l = *l;
            ent_routine(e);
            if (r->same_host || r->remote)
                e->since_ns = st == ES_IN ? ns_of(r, l->t_start) : ns_of(r, l->t_end ? l->t_end : l->t_start);
            if (st == ES_POLL && h && h->work_ns && w->now - h->work_ns < (w->timeout_ns ? w->timeout_ns : w->poll_ns))
                e->working = 1;
            added++;
        }
        /* threads of a rank with threads inside MPI that are computing: not
         * shown, but they make the rank able to progress (deadlock.c) */
        for (unsigned c = 0; added && c < ncomp; c++) {
            struct ent *e = ent_add(w);
            if (!e) return;
            e->rank = rank;
            e->f = r->f;
            e->thread = comp[c];
            e->l = sl[comp[c]];
            e->state = e->l.t_start ? ES_COMPUTE : ES_NOCALL;
            e->hidden = 1;
        }
        if (!added) {
            struct ent *e = ent_add(w);
            if (!e) return;
            e->rank = rank;
            e->f = r->f;
            if (best < 0) {
                e->state = ES_NOCALL;
            } else {
                e->state = ES_COMPUTE;
                e->thread = (unsigned)best;
                e->l = sl[best];
                ent_routine(e);
                uint64_t last_end = e->l.t_end > e->l.t_idle ? e->l.t_end : e->l.t_idle;
                if (r->same_host || r->remote) e->since_ns = ns_of(r, last_end);
            }
        }
    }
    /* ranks without a file yet */
    int world = w->world > maxrank + 1 ? w->world : maxrank + 1;
    if (w->world > 0) {
        char *have = calloc((size_t)world, 1);
        if (have) {
            for (unsigned k = 0; k < w->nents; k++)
                if (w->ents[k].rank >= 0 && w->ents[k].rank < world) have[w->ents[k].rank] = 1;
            for (unsigned k = 0; k < w->nbad; k++)   /* shown in the header as unreadable */
                if (w->bad_rank[k] >= 0 && w->bad_rank[k] < world) have[w->bad_rank[k]] = 1;
            int missing = 0;
            for (int rr = 0; rr < world; rr++) {
                if (have[rr]) continue;
                missing++;
                struct ent *e = ent_add(w);
                if (!e) break;
                e->rank = rr;
                e->state = ES_NOTSTARTED;
            }
            free(have);
            int unnamed = 0;
            for (unsigned k = 0; k < w->nrk; k++) unnamed += lf_rank(w->rk[k].f) < 0;
            w->complete = !missing && !unnamed;
            if (w->o.remote) w->complete = 0;
        }
    }
    w->total_sig = total;
    w->refreshed = 1;
    /* a call that began while the files were read (after w->now) is at
     * most this old; reading many files on a busy host takes long */
    w->read_ns = mono_ns();
}

/* ---- groups and the table ----------------------------------------------- */

struct grp {
    unsigned *idx;           /* entities (indices into w->ents), by rank */
    unsigned n;
    int *ranks;
    unsigned nranks;
    double amin, amax;       /* ages in seconds; amax < 0 unknown */
    int state;               /* of its entities */
};

static struct watch *sort_w;

/* The failure code that WHAT shows (MPI_Abort's, the MPI error's, the exit
 * status); other kinds keep in it what the table does not show (the
 * pid watcher's look number of a rank gone without a record, a signal's
 * si_code): ranks that differ only there are one group. */
static int shown_code(const volatile struct ml_failure *f)
{
    uint32_t k = f->kind;
    return k == ML_FAIL_ABORT || k == ML_FAIL_MPI_ERROR || k == ML_FAIL_EXIT ? f->code : 0;
}

static int ent_key_cmp(const void *a, const void *b)
{
    const struct ent *x = &sort_w->ents[*(const unsigned *)a], *y = &sort_w->ents[*(const unsigned *)b];
    if (x->state != y->state) return x->state - y->state;
    int dead = x->state == ES_DIED || x->state == ES_EXITED;
    if (x->state != ES_NOTSTARTED && x->state != ES_NOCALL && x->state != ES_FINALIZED &&
        x->state != ES_STALE) {
        if (x->rgid != y->rgid) return x->rgid < y->rgid ? -1 : 1;
        if (x->sgid != y->sgid) return x->sgid < y->sgid ? -1 : 1;
    }
    if (dead && x->fail_site != y->fail_site) return x->fail_site - y->fail_site;
    if (dead) {
        const volatile struct ml_failure *fx = &lf_hdr(x->f)->failure, *fy = &lf_hdr(y->f)->failure;
        int sx = fx->signo, sy = fy->signo;
        if (sx != sy) return sx - sy;
        if (fx->kind != fy->kind) return fx->kind < fy->kind ? -1 : 1;
        int cx = shown_code(fx), cy = shown_code(fy);
        if (cx != cy) return cx < cy ? -1 : 1;
    }
    if ((x->thread != 0) != (y->thread != 0)) return x->thread ? 1 : -1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int same_group(const struct ent *x, const struct ent *y)
{
    unsigned a = 0, b = 1;
    (void)a;
    (void)b;
    if (x->state != y->state) return 0;
    if (x->state != ES_NOTSTARTED && x->state != ES_NOCALL && x->state != ES_FINALIZED &&
        x->state != ES_STALE && (x->rgid != y->rgid || x->sgid != y->sgid))
        return 0;
    if ((x->state == ES_DIED || x->state == ES_EXITED) &&
        (x->fail_site != y->fail_site || lf_hdr(x->f)->failure.signo != lf_hdr(y->f)->failure.signo ||
         lf_hdr(x->f)->failure.kind != lf_hdr(y->f)->failure.kind ||
         shown_code(&lf_hdr(x->f)->failure) != shown_code(&lf_hdr(y->f)->failure)))
        return 0;
    return (x->thread != 0) == (y->thread != 0);
}

static int sort_mode;

static int grp_cmp(const void *a, const void *b)
{
    const struct grp *x = a, *y = b;
    if (sort_mode == LIVE_SORT_AGE) {
        if (x->amax != y->amax) return x->amax > y->amax ? -1 : 1;
        if (x->n != y->n) return x->n > y->n ? -1 : 1;
    } else {
        if (x->n != y->n) return x->n > y->n ? -1 : 1;
        if (x->amax != y->amax) return x->amax > y->amax ? -1 : 1;
    }
    return x->ranks[0] - y->ranks[0];
}

/* Peer summary of a point-to-point group: one world rank, r+k, or various. */
static void peer_summary(struct watch *w, const struct grp *g, struct peer_sum *ps)
{
    memset(ps, 0, sizeof *ps);
    ps->all_same = 1;
    const struct ent *e0 = &w->ents[g->idx[0]];
    if (e0->state != ES_IN && e0->state != ES_POLL) return;
    {
        const struct lf_comm *c0 = e0->l.comm < ML_COMM_NONE ? lf_comm(e0->f, e0->l.comm) : NULL;
        int root0 = lf_world(e0->f, e0->l.comm, e0->l.peer);
        for (unsigned i = 1; i < g->n; i++) {
            const struct ent *e = &w->ents[g->idx[i]];
            if (e->l.tag != e0->l.tag) ps->tags_differ = 1;
            if (e->l.comm != e0->l.comm || e->f != e0->f) {
                const struct lf_comm *c = e->l.comm < ML_COMM_NONE ? lf_comm(e->f, e->l.comm) : NULL;
                if (!c != !c0 || (c && c->gid != c0->gid)) ps->comms_differ = 1;
            }
            if (e->l.peer != e0->l.peer && lf_world(e->f, e->l.comm, e->l.peer) != root0) ps->roots_differ = 1;
        }
    }
    int c = e0->rclass;
    if (c != RC_SEND && c != RC_RECV && c != RC_PROBE && c != RC_IPROBE && c != RC_SENDRECV &&
        c != RC_ONESIDED)
        return;
    int n = w->world > 0 ? w->world : 1;
    int first = 0, delta = 0, same = 1, samed = 1;
    for (unsigned i = 0; i < g->n; i++) {
        const struct ent *e = &w->ents[g->idx[i]];
        int p = e->l.peer;
        int wr = (p == lf_any_source(e->f) || p == lf_proc_null(e->f)) ? p - 1000000 : lf_world(e->f, e->l.comm, p);
        int d = wr >= 0 ? ((wr - e->rank) % n + n) % n : -1;
        if (i == 0) {
            first = wr;
            delta = d;
        } else {
            if (wr != first) same = 0;
            if (d != delta || d < 0) samed = 0;
        }
    }
    if (same) return;
    ps->all_same = 0;
    if (samed && delta >= 0) {
        if (delta <= n / 2) snprintf(ps->text, sizeof ps->text, "r+%d", delta);
        else snprintf(ps->text, sizeof ps->text, "r-%d", n - delta);
    } else {
        snprintf(ps->text, sizeof ps->text, "various");
    }
}

static void where_text(const struct ent *e, char *buf, size_t n)
{
    buf[0] = 0;
    const char *name = e->f && e->l.t_start ? lf_routine(e->f, e->l.routine) : NULL;
    switch (e->state) {
    case ES_IN:
    case ES_POLL:
        snprintf(buf, n, "%s", lf_site_text(e->sgid));
        break;
    case ES_COMPUTE:
        snprintf(buf, n, "after %s %s", name ? name : "?", lf_site_text(e->sgid));
        break;
    case ES_DIED:
    case ES_EXITED:
        if (e->fail_site) {
            snprintf(buf, n, "%s", lf_site_text(e->sgid));
        } else if (name) {
            int in = e->l.t_start > e->l.t_end && e->l.t_start > e->l.t_idle;
            snprintf(buf, n, "%s %s %s", in ? "in" : "after", name, lf_site_text(e->sgid));
        }
        break;
    }
}

static void when_text(const struct ent *e, const struct grp *g, char *buf, size_t n)
{
    char a[48];
    buf[0] = 0;
    if (g->amax < 0) return;
    fmt_age_range(a, sizeof a, g->amin, g->amax);
    switch (e->state) {
    case ES_IN: snprintf(buf, n, "started %s ago", a); break;
    case ES_POLL: snprintf(buf, n, "last progress %s ago", a); break;
    case ES_COMPUTE: snprintf(buf, n, "completed %s ago", a); break;
    case ES_FINALIZED: snprintf(buf, n, "%s ago", a); break;
    case ES_DIED:
    case ES_EXITED: snprintf(buf, n, "last call %s ago", a); break;
    }
}

#define WHO_MAX 32           /* WHO column width at most */
#define WHO_MIN 20           /* ... and at least, when the table is too wide */

/* "0-4094", "3,7 thread 1"; a rank list too long for WHO_MAX columns is cut
 * and ends with the number of ranks: "0,4,12-14... (8704 ranks)". */
static void who_text(struct watch *w, const struct grp *g, char *buf, size_t n, int max)
{
    char r[256], suffix[48] = "";
    fmt_ranks(r, sizeof r, g->ranks, g->nranks);
    const struct ent *e0 = &w->ents[g->idx[0]];
    if (e0->rank < 0) {
        snprintf(buf, n, "pid %d", (int)lf_hdr(e0->f)->pid);
        return;
    }
    if (e0->thread != 0) {
        unsigned t = e0->thread;
        int one = 1;
        for (unsigned i = 1; i < g->n; i++)
            if (w->ents[g->idx[i]].thread != t) one = 0;
        if (one) snprintf(suffix, sizeof suffix, " thread %u", t);
        else snprintf(suffix, sizeof suffix, " (%u threads)", g->n);
    }
    if (strlen(r) + strlen(suffix) > (size_t)max) {
        char cnt[32];
        snprintf(cnt, sizeof cnt, " (%u ranks)", g->nranks);
        size_t room = (size_t)max > strlen(cnt) + strlen(suffix) + 8 ? max - strlen(cnt) - strlen(suffix) : 8;
        if (room < 8) room = 8;
        if (room + 1 < sizeof r) fmt_ranks(r, room + 1, g->ranks, g->nranks);
        snprintf(buf, n, "%s%s%s", r, cnt, suffix);
        return;
    }
    snprintf(buf, n, "%s%s", r, suffix);
}

/* Groups of the current entities, sorted. */
static struct grp *make_groups(struct watch *w, unsigned *ngrp, unsigned **order_out)
{
    unsigned *order = malloc((w->nents ? w->nents : 1) * sizeof *order);
    struct grp *g = calloc(w->nents ? w->nents : 1, sizeof *g);
    int *ranks = malloc((w->nents ? w->nents : 1) * sizeof *ranks);
    if (!order || !g || !ranks) {
        free(order);
        free(g);
        free(ranks);
        *ngrp = 0;
        *order_out = NULL;
        return NULL;
    }
    unsigned nv = 0;
    for (unsigned i = 0; i < w->nents; i++)
        if (!w->ents[i].hidden) order[nv++] = i;
    sort_w = w;
    qsort(order, nv, sizeof *order, ent_key_cmp);
    unsigned n = 0, rp = 0;
    for (unsigned i = 0; i < nv;) {
        unsigned j = i + 1;
        while (j < nv && same_group(&w->ents[order[i]], &w->ents[order[j]])) j++;
        struct grp *x = &g[n++];
        x->idx = order + i;
        x->n = j - i;
        x->ranks = ranks + rp;
        x->amin = 1e300;
        x->amax = -1;
        x->state = w->ents[order[i]].state;
        for (unsigned k = i; k < j; k++) {
            const struct ent *e = &w->ents[order[k]];
            if (x->nranks == 0 || x->ranks[x->nranks - 1] != e->rank) ranks[rp + x->nranks++] = e->rank;
            if (e->since_ns) {
                /* since the files were read; never negative (a start after
                 * that is a rank clock's conversion error) */
                double a = e->since_ns < w->read_ns ? (double)(w->read_ns - e->since_ns) / 1e9 : 0;
                if (a < x->amin) x->amin = a;
                if (a > x->amax) x->amax = a;
            }
        }
        qsort(x->ranks, x->nranks, sizeof *x->ranks, int_cmp);
        rp += x->nranks;
        if (x->amax < 0) x->amin = -1;
        i = j;
    }
    sort_mode = w->o.sort;
    qsort(g, n, sizeof *g, grp_cmp);
    *ngrp = n;
    *order_out = order;
    return g;
}

static void put_cell(struct sb *b, const char *s, int width, int last)
{
    int l = (int)strlen(s);
    if (l > width) {
        if (width >= 3) {
            sb_put(b, s, (size_t)(width - 2));
            sb_put(b, "..", 2);
        } else {
            sb_put(b, s, (size_t)width);
        }
        l = width;
    } else {
        sb_put(b, s, (size_t)l);
    }
    if (!last)
        for (int i = l; i < width + 2; i++) sb_put(b, " ", 1);
}

/* The states that are never a normal step of a run: kept on screen first. */
static int odd_state(int st)
{
    return st == ES_DIED || st == ES_EXITED || st == ES_STALE;
}

/* Which `show` of the ng sorted groups get a row when not all fit, in table
 * order.  The first ones by the sort, but a third of the rows (at least one)
 * is kept for the groups the cut would hide and that matter most: died,
 * exited or stale ranks first, then, sorting by size, the oldest (the odd
 * rank out that everybody waits for is alone and has waited longest), and,
 * sorting by age, the largest. */
static void select_groups(const struct grp *g, unsigned ng, unsigned show, int sort, unsigned *sel)
{
    if (show >= ng) {
        for (unsigned i = 0; i < ng; i++) sel[i] = i;
        return;
    }
    unsigned reserve = show >= 3 ? show / 3 : show >= 2 ? 1 : 0, top = show - reserve;
    char *pick = calloc(ng, 1);
    if (!pick) {
        for (unsigned i = 0; i < show; i++) sel[i] = i;
        return;
    }
    for (unsigned i = 0; i < top; i++) pick[i] = 1;
    for (unsigned k = 0; k < reserve; k++) {
        int best = -1;
        for (unsigned i = top; i < ng; i++) {
            if (pick[i]) continue;
            if (best < 0) {
                best = (int)i;
                continue;
            }
            const struct grp *a = &g[i], *b = &g[best];
            int oa = odd_state(a->state), ob = odd_state(b->state);
            if (oa != ob) {
                if (oa) best = (int)i;
                continue;
            }
            if (sort == LIVE_SORT_AGE ? a->n > b->n : a->amax > b->amax) best = (int)i;
        }
        if (best >= 0) pick[best] = 1;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < ng && n < show; i++)
        if (pick[i]) sel[n++] = i;
    free(pick);
}

/* The table: header line, column names, rows; at most max_rows lines of at
 * most `cols` columns.  Returns the number of lines. */
static int render(struct watch *w, struct sb *b, int max_rows, int cols)
{
    unsigned ng = 0, *order = NULL;
    struct grp *g = make_groups(w, &ng, &order);
    unsigned cnt[16] = {0};
    int nranks = 0;
    {
        int last = -2;
        /* count per rank by its first entity's state (ents of a rank are contiguous) */
        for (unsigned i = 0; i < w->nents; i++) {
            const struct ent *e = &w->ents[i];
            if ((e->rank == last && e->rank >= 0) || e->hidden) continue;
            last = e->rank;
            nranks++;
            int st = e->state;
            for (unsigned j = i + 1; j < w->nents && w->ents[j].rank == e->rank; j++)
                if (w->ents[j].state == ES_IN && !w->ents[j].hidden) st = ES_IN;
            if (st >= 0 && st < 16) cnt[st]++;
        }
    }
    char hdr[512];
    /* the ranks shown and those whose file stays unreadable (named below, no row) */
    int total = nranks + (int)w->nbad;
    int o = snprintf(hdr, sizeof hdr, "mpilens top: %d rank%s", total, total == 1 ? "" : "s");
    static const char *names[16] = {
        [ES_IN] = "in MPI", [ES_POLL] = "polling", [ES_COMPUTE] = "computing",
        [ES_NOCALL] = "starting", [ES_NOTSTARTED] = "not started", [ES_FINALIZED] = "finalized",
        [ES_EXITED] = "exited", [ES_DIED] = "died", [ES_STALE] = "stale"};
    const char *sep = ": ";
    for (int s = 1; s < 16; s++) {
        if (!cnt[s] || !names[s] || o >= (int)sizeof hdr) continue;
        o += snprintf(hdr + o, sizeof hdr - (size_t)o, "%s%u %s", sep, cnt[s], names[s]);
        sep = ", ";
    }
    if (w->nbad && o < (int)sizeof hdr) {
        o += snprintf(hdr + o, sizeof hdr - (size_t)o, "%s%u unreadable", sep, w->nbad);
        sep = ", ";
    }
    if (o < (int)sizeof hdr && w->nrk) {
        double np = (double)(w->now - w->last_prog_ns) / 1e9;
        char a[32];
        fmt_age(a, sizeof a, np);
        if (np >= 1.0) o += snprintf(hdr + o, sizeof hdr - (size_t)o, " | no progress for %s", a);
    }
    if (o < (int)sizeof hdr && w->note)
        o += snprintf(hdr + o, sizeof hdr - (size_t)o, " (%s)", w->note);
    if (o < (int)sizeof hdr && w->o.remote) {
        unsigned ns = rs_streams(w->o.remote, NULL);
        o += snprintf(hdr + o, sizeof hdr - (size_t)o, " | %u node stream%s", ns, ns == 1 ? "" : "s");
    }
    if (o < (int)sizeof hdr) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(hdr + o, sizeof hdr - (size_t)o, " | %H:%M:%S", &tm);
    }
    int lines = 0;
    if (strlen(hdr) + strlen(w->dir) + 1 <= (size_t)cols && strlen(hdr) + strlen(w->dir) + 1 < sizeof hdr) {
        /* the directory, when it fits: the counts matter more */
        size_t l = strlen(w->dir);
        memmove(hdr + 12 + l, hdr + 11, strlen(hdr + 11) + 1);
        hdr[11] = ' ';
        memcpy(hdr + 12, w->dir, l);
    }
    if ((int)strlen(hdr) > cols && !strncmp(hdr, "mpilens top: ", 13))
        memmove(hdr, hdr + 13, strlen(hdr + 13) + 1);   /* the counts, to the last state */
    if ((int)strlen(hdr) > cols) hdr[cols > 0 ? cols : 0] = 0;
    sb_printf(b, "%s\n", hdr);
    lines++;
    if (w->nrk == 0 && w->nents == 0) {
        if (w->o.remote) {
            unsigned ever = 0, now = rs_streams(w->o.remote, &ever);
            sb_printf(b, "  (no rank yet: %u agent stream%s connected; listening on port %d)\n", now,
                      now == 1 ? "" : "s", rs_port(w->o.remote));
        } else {
            sb_printf(b, "  (no rank file yet in %s: the ranks have not called MPI)\n", w->dir);
        }
        free(g);
        free(order);
        return lines + 1;
    }
    /* cells */
    unsigned show = ng;
    int avail = max_rows - 2;
    if (avail < 1) avail = 1;
    if ((int)ng > avail) show = (unsigned)(avail - 1 > 0 ? avail - 1 : 0);
    unsigned *sel = malloc((show ? show : 1) * sizeof *sel);
    if (sel) select_groups(g, ng, show, w->o.sort, sel);
    char (*cell)[4][320] = calloc(show ? show : 1, sizeof *cell);
    int wd[4] = {3, 4, 5, 4};
    for (unsigned i = 0; cell && sel && i < show; i++) {
        const struct grp *gi = &g[sel[i]];
        const struct ent *e = &w->ents[gi->idx[0]];
        struct peer_sum ps;
        peer_summary(w, gi, &ps);
        who_text(w, gi, cell[i][0], sizeof cell[i][0], WHO_MAX);
        what_text(e, &ps, cell[i][1], sizeof cell[i][1]);
        where_text(e, cell[i][2], sizeof cell[i][2]);
        when_text(e, gi, cell[i][3], sizeof cell[i][3]);
        for (int c = 0; c < 4; c++)
            if ((int)strlen(cell[i][c]) > wd[c]) wd[c] = (int)strlen(cell[i][c]);
    }
    /* fit: WHO and WHEN keep their width (capped), WHAT and WHERE share the rest */
    if (wd[0] > WHO_MAX) wd[0] = WHO_MAX;
    if (wd[3] > 28) wd[3] = 28;
    int rest = cols - 1 - (wd[0] + 2) - (wd[3]) - 4;
    if (wd[1] + wd[2] > rest) {
        int half = rest / 2;
        if (wd[1] <= half) wd[2] = rest - wd[1];
        else if (wd[2] <= half) wd[1] = rest - wd[2];
        else {
            wd[1] = half;
            wd[2] = rest - half;
        }
        if (wd[1] < 8) wd[1] = 8;
        if (wd[2] < 8) wd[2] = 8;
    }
    /* a routine name is never cut: WHAT is at least as wide as the longest
     * one it starts with (capped, so WHERE keeps room) */
    int min1 = 8;
    for (unsigned i = 0; cell && i < show; i++) {
        int rl = (int)strcspn(cell[i][1], " ");
        if (cell[i][1][rl]) rl += 3;   /* more after it: room for " .." */
        if (!strncmp(cell[i][1], "MPI_", 4) && rl > min1 && rl <= 43) min1 = rl;
    }
    if (wd[1] < min1) wd[1] = min1;
    /* WHERE: "[in|after MPI_Routine ]site": the routine whole, the site
     * fitted by the common policy (symbols.h, sym_fit: namespaces go first,
     * the function's own name and its line or offset stay), with room
     * taken from WHAT down to its routine names where it lacks */
    size_t pre[256] = {0};
    int need2 = 0;
    for (unsigned i = 0; cell && i < show && i < 256; i++) {
        const char *t = cell[i][2];
        if (!strncmp(t, "in ", 3) || !strncmp(t, "after ", 6)) {
            const char *sp = strchr(strchr(t, ' ') + 1, ' ');
            if (sp) pre[i] = (size_t)(sp + 1 - t);
        }
        int need = (int)(pre[i] + sym_fit_min(t + pre[i]));
        if ((int)strlen(t) < need) need = (int)strlen(t);
        if (need > need2) need2 = need;
    }
    if (need2 > wd[2]) {
        int take = need2 - wd[2] < wd[1] - min1 ? need2 - wd[2] : wd[1] - min1;
        if (take > 0) {
            wd[1] -= take;
            wd[2] += take;
        }
    }
    for (unsigned i = 0; cell && i < show && i < 256; i++) {
        char *t = cell[i][2], tmp[320];
        if ((int)strlen(t) <= wd[2]) continue;
        size_t room = (int)pre[i] + 8 <= wd[2] ? (size_t)wd[2] - pre[i] : 8;
        snprintf(tmp, sizeof tmp, "%s", t + pre[i]);
        sym_fit(tmp, room, t + pre[i], sizeof cell[i][2] - pre[i]);
    }
    int w2 = 5;   /* "WHERE"; no wider than what is left in it */
    for (unsigned i = 0; cell && i < show; i++)
        if ((int)strlen(cell[i][2]) > w2) w2 = (int)strlen(cell[i][2]);
    if (w2 < wd[2]) wd[2] = w2;
    /* still wider than the terminal (WHAT keeps its routine names, WHERE
     * its file:line): WHO's rank lists give way, down to a short list and
     * the count ("0,2,4... (32 ranks)") */
    int over = wd[0] + 2 + wd[1] + 2 + wd[2] + 2 + wd[3] - (cols - 1);
    if (over > 0 && wd[0] > WHO_MIN && cell && sel) {
        int max = wd[0] - over > WHO_MIN ? wd[0] - over : WHO_MIN;
        wd[0] = 3;
        for (unsigned i = 0; i < show; i++) {
            who_text(w, &g[sel[i]], cell[i][0], sizeof cell[i][0], max);
            if ((int)strlen(cell[i][0]) > wd[0]) wd[0] = (int)strlen(cell[i][0]);
        }
    }
    static const char *head[4] = {"WHO", "WHAT", "WHERE", "WHEN"};
    for (int c = 0; c < 4; c++) put_cell(b, head[c], wd[c], c == 3);
    sb_put(b, "\n", 1);
    lines++;
    for (unsigned i = 0; cell && i < show; i++) {
        for (int c = 0; c < 4; c++) put_cell(b, cell[i][c], wd[c], c == 3);
        sb_put(b, "\n", 1);
        lines++;
    }
    if (show < ng) {
        unsigned more = 0;
        for (unsigned i = 0; i < ng; i++) more += g[i].nranks;
        for (unsigned i = 0; sel && i < show; i++) more -= g[sel[i]].nranks;
        sb_printf(b, "... %u more group%s (%u rank%s)%s\n", ng - show, ng - show == 1 ? "" : "s",
                  more, more == 1 ? "" : "s",
                  w->o.sort == LIVE_SORT_AGE ? "" : "; --sort age shows the oldest first");
        lines++;
    }
    free(cell);
    free(sel);
    free(g);
    free(order);
    return lines;
}

/* ---- output: in place at the bottom of a terminal, or snapshots --------- */

static void term_size(struct watch *w, int fd)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
        w->rows = ws.ws_row;
        w->cols = ws.ws_col;
    } else {
        w->rows = 24;
        w->cols = 80;
    }
}

static void write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, s, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return;
        }
        s += k;
        n -= (size_t)k;
    }
}

/* The table lives in the bottom h lines, outside the scroll region (lines
 * 1..rows-h) where the program's own output keeps scrolling: nothing the
 * program printed is cleared.  Every redraw is one write(), which a
 * terminal does not interleave with other writers. */
static void draw_inplace(struct watch *w, int fd, const char *text, int lines)
{
    int oldrows = w->rows;
    term_size(w, fd);
    struct sb b = {0};
    int h = lines;
    if (h > w->rows - 2) h = w->rows - 2;
    if (h < 1) h = 1;
    if (w->h && oldrows != w->rows) {
        /* resized: forget the old layout */
        sb_printf(&b, "\0337\033[r\0338");
        w->h = 0;
    }
    if (!w->h) {
        /* make room: scroll everything up by h lines, then reserve them */
        for (int i = 0; i < h; i++) sb_put(&b, "\n", 1);
        sb_printf(&b, "\033[%dA", h);
        sb_printf(&b, "\0337\033[1;%dr\0338", w->rows - h);
    } else if (h != w->h) {
        if (h > w->h) {
            int d = h - w->h;
            sb_printf(&b, "\0337\033[%d;1H", w->rows - w->h);
            for (int i = 0; i < d; i++) sb_put(&b, "\n", 1);
            sb_printf(&b, "\0338\033[%dA", d);
        } else {
            /* the rows given up join the scroll region: clear them first, or
             * the program's next lines are written over the old table's
             * (leftovers glued to them) and old rows scroll into the
             * terminal's history */
            for (int r = w->rows - w->h + 1; r <= w->rows - h; r++) sb_printf(&b, "\0337\033[%d;1H\033[2K\0338", r);
        }
        sb_printf(&b, "\0337\033[1;%dr\0338", w->rows - h);
    }
    w->h = h;
    sb_printf(&b, "\0337");
    const char *p = text;
    for (int i = 0; i < h; i++) {
        sb_printf(&b, "\033[%d;1H\033[2K", w->rows - h + 1 + i);
        const char *e = p ? strchr(p, '\n') : NULL;
        if (p && *p) {
            size_t l = e ? (size_t)(e - p) : strlen(p);
            if ((int)l > w->cols - 1) l = (size_t)(w->cols - 1);
            sb_put(&b, p, l);
        }
        p = e ? e + 1 : NULL;
    }
    sb_printf(&b, "\0338");
    write_all(fd, b.s, b.n);
    free(b.s);
}

/* Give the lines back: reset the scroll region, clear the table. */
static void end_inplace(struct watch *w, int fd)
{
    if (!w->h) return;
    struct sb b = {0};
    sb_printf(&b, "\0337\033[r\0338\0337\033[%d;1H\033[J\0338", w->rows - w->h + 1);
    write_all(fd, b.s, b.n);
    free(b.s);
    w->h = 0;
}

static void show(struct watch *w, int final)
{
    if (w->o.display == LIVE_SHOW_NONE && !final) return;
    FILE *out = w->out;
    int fd = fileno(out);
    int cols = w->o.width ? w->o.width : 120;
    int rows = w->o.max_rows ? w->o.max_rows : 40;
    if (w->inplace && !final) {
        term_size(w, fd);
        cols = w->o.width ? w->o.width : w->cols;
        rows = w->o.max_rows ? w->o.max_rows : w->rows - 2;
    } else if (isatty(fd)) {
        term_size(w, fd);
        cols = w->o.width ? w->o.width : w->cols;
        if (!w->o.max_rows) rows = w->rows - 2 > 40 ? w->rows - 2 : 40;
    }
    if (rows < 3) rows = 3;
    struct sb b = {0};
    int lines = render(w, &b, rows, cols);
    if (w->inplace && !final) {
        fflush(out);
        draw_inplace(w, fd, b.s, lines);
    } else {
        if (w->inplace) {
            fflush(out);
            end_inplace(w, fd);
        }
        fputs(b.s ? b.s : "", out);
        if (!final && !w->o.once) fputc('\n', out);
        fflush(out);
    }
    free(b.s);
}

/* ---- stopping the job ---------------------------------------------------- */

static void mark_deadlocked_file(struct lf *f, const struct ent *e);

/* A remote rank whose file this host can see (one machine, or a shared
 * file system): DIR/rank-NNNNN.mlt of the same process gets the record. */
static void mark_deadlocked(const char *dir, struct lf *f, const struct ent *e)
{
    if (!lf_is_remote(f)) {
        mark_deadlocked_file(f, e);
        return;
    }
    if (!dir) return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/rank-%05d.mlt", dir, lf_rank(f));
    struct lf *lf;
    if (lf_open(path, &lf) != 0) return;
    if (lf_hdr(lf)->pid == lf_hdr(f)->pid && lf_rank(lf) == lf_rank(f) && !strcmp(lf_host(lf), lf_host(f))) {
        struct ent x = *e;
        x.f = lf;
        if (x.l.site) {                     /* the slot's site is the front end's id: take the file's */
            struct ml_live l;
            if (lf_live(lf, x.thread, &l) == 0) x.l.site = l.site;
        }
        mark_deadlocked_file(lf, &x);
    }
    lf_close(lf);
}

static void mark_deadlocked_file(struct lf *f, const struct ent *e)
{
    /* failure record: fields first, kind last (mlformat.h); only if none yet */
    const volatile struct ml_header *h = lf_hdr(f);
    if (h->failure.kind != ML_FAIL_NONE) return;
    int fd = open(lf_path(f), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct ml_failure x;
    memset(&x, 0, sizeof x);
    x.errclass = -1;
    x.ticks = lf_ticks(f, mono_ns());
    x.routine = e->l.routine;
    x.site = e->l.site;
    x.tid = (uint32_t)e->l.tid;
    snprintf(x.message, sizeof x.message,
             "deadlock: blocked forever in %s (mpilens: see deadlock.txt)", lf_routine(f, e->l.routine));
    off_t base = (off_t)offsetof(struct ml_header, failure);
    if (pwrite(fd, (char *)&x + 4, sizeof x - 4, base + 4) == (ssize_t)(sizeof x - 4)) {
        uint32_t k = ML_FAIL_DEADLOCK;
        if (pwrite(fd, &k, 4, base) != 4) {
        }
    }
    close(fd);
}

static int pid_exists(pid_t p)
{
    if (p <= 0) return 0;
    if (kill(p, 0) != 0 && errno == ESRCH) return 0;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)p);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0) {
        buf[n] = 0;
        char *q = strrchr(buf, ')');
        if (q && q[1] == ' ' && (q[2] == 'Z' || q[2] == 'X')) return 0;
    }
    return 1;
}

/* SIGTERM every rank process of this host and the launcher, SIGKILL what is
 * left after 3 s.  Returns the number of processes signalled. */
static int stop_job(struct watch *w)
{
    pid_t pids[4096];
    int np = 0;
    /* ranks from streams: their node's agent stops them (the only way on
     * another host); this host only signals those whose stream is lost */
    unsigned agents = 0, remote = w->o.remote ? rs_stop(w->o.remote, &agents) : 0;
    if (agents)
        fprintf(w->out, "mpilens: asked %u node agent%s to stop %u rank%s (SIGTERM, then SIGKILL)\n", agents,
                agents == 1 ? "" : "s", remote, remote == 1 ? "" : "s");
    for (unsigned k = 0; k < w->nrk && np < 4095; k++) {
        struct rk *r = &w->rk[k];
        if (!r->same_host || r->gone) continue;
        if (r->remote && lf_remote_state(r->f) != LF_REMOTE_STALE) continue;
        pid_t p = lf_hdr(r->f)->pid;
        if (p <= 0 || p == getpid() || r->exe_ok == 0) continue;
        if (lf_hdr(r->f)->state == ML_STATE_EXITED) continue;
        pids[np++] = p;
    }
    if (w->o.launcher > 0) pids[np++] = w->o.launcher;
    for (int i = 0; i < np; i++) kill(pids[i], SIGTERM);
    for (int t = 0; t < 30; t++) {
        int left = 0;
        for (int i = 0; i < np; i++) left += pid_exists(pids[i]);
        if (!left) return np + (int)remote;
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < np; i++)
        if (pid_exists(pids[i])) kill(pids[i], SIGKILL);
    return np + (int)remote;
}

/* ---- the watch loop ------------------------------------------------------ */

static int launcher_done(pid_t p)
{
    if (p <= 0) return 0;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)p, &si, WEXITED | WNOHANG | WNOWAIT) == 0) return si.si_pid == p;
    if (errno == ECHILD) return !pid_exists(p);
    return 0;
}

static int job_ended(struct watch *w)
{
    if (w->o.launcher > 0) return launcher_done(w->o.launcher);
    /* a rank file not readable yet: starting, or cut (unreadable once it
     * has been left alone for 2 s): not ended before it is one or the other */
    if (w->dir_pending && !w->o.remote) return 0;
    if (w->nrk == 0) return w->nbad > 0 && !w->o.remote;   /* nothing readable */
    for (unsigned i = 0; i < w->nents; i++) {
        int s = w->ents[i].state;
        if (s != ES_FINALIZED && s != ES_EXITED && s != ES_DIED && s != ES_STALE) return 0;
    }
    return 1;
}

static int write_verdict(struct watch *w, const char *text)
{
    if (!w->dir_real) return -1;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/deadlock.txt", w->dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(w->out, "%s: cannot write %s: %s\n", w->o.name ? w->o.name : "mpilens", path, strerror(errno));
        return -1;
    }
    time_t t = time(NULL);
    char ts[64];
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
    char head[PATH_MAX + 128];
    int n = snprintf(head, sizeof head, "mpilens deadlock verdict for %s at %s\n", w->dir, ts);
    write_all(fd, head, (size_t)n);
    size_t tl = strlen(text);
    write_all(fd, text, tl);
    if (!tl || text[tl - 1] != '\n') write_all(fd, "\n", 1);
    close(fd);
    return 0;
}

int live_watch(const char *dir, const struct live_opts *opts)
{
    struct watch w;
    memset(&w, 0, sizeof w);
    w.dir = w.dir_real = dir;
    if (opts) w.o = *opts;
    remote_mode = w.o.remote != NULL;
    char label[64];
    if (w.o.remote && !dir) {
        snprintf(label, sizeof label, "(streams on port %d)", rs_port(w.o.remote));
        w.dir = label;
    }
    w.out = w.o.out ? w.o.out : stdout;
    double iv = w.o.interval > 0 ? w.o.interval : 1.0;
    double to = w.o.deadlock_timeout == 0 ? 10.0 : w.o.deadlock_timeout;
    w.interval_ns = (int64_t)(iv * 1e9);
    w.timeout_ns = to > 0 ? (int64_t)(to * 1e9) : 0;
    w.poll_ns = 2 * w.interval_ns > 1000000000 ? 2 * w.interval_ns : 1000000000;
    if (w.timeout_ns && w.poll_ns > w.timeout_ns) w.poll_ns = w.timeout_ns;
    if (gethostname(w.host, sizeof w.host - 1) != 0) w.host[0] = 0;
    struct stat st;
    /* with a launcher, the directory may not exist yet: the runtime creates
     * it at the first MPI call */
    while (dir && w.o.launcher > 0 && stat(dir, &st) != 0 && errno == ENOENT && !launcher_done(w.o.launcher) &&
           !live_interrupted) {
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    /* from streams, the directory only receives deadlock.txt: it may come later */
    int later = w.o.remote && dir && stat(dir, &st) != 0 && errno == ENOENT;
    if (dir && !later && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "%s: %s is not a run directory (%s)\n", w.o.name ? w.o.name : "mpilens", dir,
                stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
        return 1;
    }
    int fd = fileno(w.out);
    w.inplace = !w.o.once && (w.o.display == LIVE_SHOW_INPLACE ||
                              (w.o.display == LIVE_SHOW_AUTO && isatty(fd)));
    w.start_ns = w.now = mono_ns();
    w.last_prog_ns = w.now;
    int rc = 0, first = 1;
    int64_t reported_at = -1;  /* last_prog_ns when a verdict was printed (keep) */
    for (;;) {
        snapshot(&w);
        if (dir && !w.o.remote && w.o.launcher <= 0 && w.nrk == 0 && (w.nbad || !w.dir_pending)) {
            if (w.nbad && !w.dir_pending) {
                fprintf(stderr, "%s: %s: no readable rank file (%u unreadable)\n", w.o.name ? w.o.name : "mpilens",
                        dir, w.nbad);
                rc = 1;
                break;
            }
            if (!w.nbad && !w.o.wait) {
                fprintf(stderr, "%s: %s holds no rank files (rank-N.mlt) and no job is recording there; "
                                "--wait waits for one to start\n", w.o.name ? w.o.name : "mpilens", dir);
                rc = 1;
                break;
            }
        }
        int ended = job_ended(&w);
        if (w.o.once || (first && ended)) {
            show(&w, 1);
            break;
        }
        first = 0;
        if (ended && w.o.remote && w.o.launcher > 0 && !live_interrupted) {
            /* the launcher is done: the agents' last frames (and their
             * goodbyes) may still be on their way, for the final table */
            int64_t until = mono_ns() + 2 * w.interval_ns + 1000000000ll;
            while (rs_streams(w.o.remote, NULL) > 0 && mono_ns() < until && !live_interrupted)
                rs_poll(w.o.remote, 50);
            snapshot(&w);
        }
        if (ended || live_interrupted) {
            if (!w.o.quiet_end || w.inplace) {
                if (w.o.quiet_end) {
                    fflush(w.out);
                    end_inplace(&w, fd);
                } else {
                    show(&w, 1);
                }
            }
            break;
        }
        /* deadlock check */
        int64_t stalled = w.now - w.last_prog_ns;
        if (w.timeout_ns && w.nrk && stalled >= w.timeout_ns &&
            (w.last_check_ns < w.last_prog_ns ||
             (w.total_sig != w.check_sig && w.now - w.last_check_ns >= 1000000000) ||
             w.now - w.last_check_ns >= w.timeout_ns)) {
            struct dl_result res;
            memset(&res, 0, sizeof res);
            int world = w.world;
            for (unsigned i = 0; i < w.nents; i++)
                if (w.ents[i].rank + 1 > world) world = w.ents[i].rank + 1;
            int dl = deadlock_check(w.ents, w.nents, world, w.now, (double)stalled / 1e9, &res);
            if (dl && reported_at == w.last_prog_ns) dl = 0; /* already said (keep watching) */
            w.last_check_ns = w.now;
            w.check_sig = w.total_sig;
            free(w.note);
            w.note = NULL;
            if (dl) {
                show(&w, 1);
                fprintf(w.out, "%s", res.text);
                if (write_verdict(&w, res.text) == 0) fprintf(w.out, "mpilens: verdict written to %s/deadlock.txt\n", dir);
                if (w.o.stop) {
                    for (unsigned i = 0; i < res.nents; i++) {
                        struct ent *e = &w.ents[res.ents[i]];
                        if (e->f) mark_deadlocked(w.dir_real, e->f, e);
                    }
                    int n = stop_job(&w);
                    fprintf(w.out, "mpilens: stopped the job (%d process%s: SIGTERM, then SIGKILL)\n", n,
                            n == 1 ? "" : "es");
                }
                fflush(w.out);
                dl_result_free(&res);
                rc = LIVE_EXIT_DEADLOCK;
                if (w.o.stop || !w.o.keep) break;
                reported_at = w.last_prog_ns;
                fprintf(w.out, "mpilens: still watching (the job was not stopped)\n");
                fflush(w.out);
                goto wait;
            }
            if (res.text) w.note = strdup(res.text);
            dl_result_free(&res);
        }
        show(&w, 0);
    wait:
        if (w.o.tick && w.o.tick(w.o.tick_arg)) {
            if (w.inplace) {
                fflush(w.out);
                end_inplace(&w, fd);
            }
            break;
        }
        /* wait, watching the launcher */
        int64_t until = mono_ns() + w.interval_ns;
        while (!live_interrupted) {
            int64_t left = until - mono_ns();
            if (left <= 0) break;
            if (w.o.launcher > 0 && launcher_done(w.o.launcher)) break;
            if (w.o.remote) {
                rs_poll(w.o.remote, left > 50000000 ? 50 : (int)(left / 1000000) + 1);   /* agents' messages */
                continue;
            }
            struct timespec ts = {0, left > 50000000 ? 50000000 : left};
            nanosleep(&ts, NULL);
        }
    }
    for (unsigned k = 0; k < w.nrk; k++) {
        if (!w.rk[k].remote) lf_close(w.rk[k].f);     /* remote ranks belong to the server */
        free(w.rk[k].th);
    }
    free(w.seen);
    free(w.bad_rank);
    free(w.rk);
    free(w.ents);
    free(w.note);
    return rc;
}

/* ---- benchmark: the cost of a refresh (mpilens top DIR --bench N) ------- */

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* n refreshes of DIR as the watch loop does them (read every rank file,
 * group, format the table; written to /dev/null), after a first one that
 * opens the files and resolves the call sites; beside them n passes of a
 * plain loop that only reads the same headers and live slots, the floor of
 * any live view.  The ranks count as unchanged for long (a hang: the state
 * in which the view is looked at), so liveness checks take their slow path.
 * Prints one line of key=value (CPU seconds from getrusage, user + system). */
int live_bench(const char *dir, const struct live_opts *opts, int n)
{
    struct watch w;
    memset(&w, 0, sizeof w);
    w.dir = dir;
    if (opts) w.o = *opts;
    w.o.display = LIVE_SHOW_SNAPSHOTS;
    w.out = fopen("/dev/null", "w");
    if (!w.out) return 1;
    w.interval_ns = 1000000000;
    w.timeout_ns = 10000000000ll;
    w.poll_ns = 2000000000;
    if (gethostname(w.host, sizeof w.host - 1) != 0) w.host[0] = 0;
    if (n < 1) n = 1;
    w.start_ns = w.now = mono_ns();
    w.last_prog_ns = w.now;
    double c0 = cpu_s();
    snapshot(&w);
    show(&w, 0);
    double first = cpu_s() - c0;
    for (unsigned k = 0; k < w.nrk; k++) w.rk[k].changed_ns -= 3600 * 1000000000ll;
    c0 = cpu_s();
    for (int i = 0; i < n; i++) {
        snapshot(&w);
        show(&w, 0);
    }
    double refresh = (cpu_s() - c0) / n;
    c0 = cpu_s();
    for (int i = 0; i < n; i++) snapshot(&w);
    double snap = (cpu_s() - c0) / n;
    c0 = cpu_s();
    for (int i = 0; i < n; i++) show(&w, 0);
    double table = (cpu_s() - c0) / n;
    /* the floor: read every header and live slot, nothing else */
    uint64_t sum = 0;
    c0 = cpu_s();
    for (int i = 0; i < n; i++)
        for (unsigned k = 0; k < w.nrk; k++) {
            struct lf *f = w.rk[k].f;
            sum += (uint64_t)lf_hdr(f)->state;
            unsigned nt = lf_nthreads(f);
            for (unsigned t = 0; t < nt; t++) {
                struct ml_live l;
                if (lf_live(f, t, &l) == 0) sum += l.t_start ^ l.t_end ^ l.t_idle;
            }
        }
    double loop = (cpu_s() - c0) / n;
    /* the deadlock check of this state (a stalled job: at most once a second) */
    struct dl_result res;
    memset(&res, 0, sizeof res);
    int world = w.world;
    for (unsigned i = 0; i < w.nents; i++)
        if (w.ents[i].rank + 1 > world) world = w.ents[i].rank + 1;
    int dl = -1;
    double check = -1;
    if (getenv("MPILENS_BENCH_DEADLOCK")) {     /* off by default: it can take long */
        c0 = cpu_s();
        dl = deadlock_check(w.ents, w.nents, world, w.now, 60.0, &res);
        check = cpu_s() - c0;
        if (!strcmp(getenv("MPILENS_BENCH_DEADLOCK"), "text") && res.text) fputs(res.text, stderr);
    }
    dl_result_free(&res);
    unsigned ng = 0, *order = NULL;
    struct grp *g = make_groups(&w, &ng, &order);
    free(g);
    free(order);
    printf("files=%u entities=%u groups=%u refreshes=%d first_ms=%.3f refresh_ms=%.4f snapshot_ms=%.4f "
           "table_ms=%.4f loop_ms=%.4f deadlock_ms=%.3f deadlock=%d (%llu)\n",
           w.nrk, w.nents, ng, n, first * 1e3, refresh * 1e3, snap * 1e3, table * 1e3, loop * 1e3, check * 1e3,
           dl, (unsigned long long)(sum & 1));
    fclose(w.out);
    for (unsigned k = 0; k < w.nrk; k++) {
        lf_close(w.rk[k].f);
        free(w.rk[k].th);
    }
    free(w.seen);
    free(w.bad_rank);
    free(w.rk);
    free(w.ents);
    free(w.note);
    return 0;
}
