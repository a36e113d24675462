/*
 * agent.c — `mpilens agent`: the node side of the live view across nodes.
 *
 *   mpilens agent --connect HOST:PORT [--secret-file F] [--ranks LIST] [--interval S] DIR
 *
 * Reads the live state of the ranks of this node from their rank files in
 * DIR (livefile.c, the same reader as `mpilens top`) and sends it to the
 * front end (`mpilens top --listen`, `mpilens run --listen`) over one TCP
 * connection (stream.h, docs/STREAM.md): after the mutual authentication,
 * first what does not change (rank, host, pid, routine names, call sites as
 * "file:line" resolved here, where the binaries are), then once per interval
 * one frame with only what changed since the last one; a rank that did not
 * change costs nothing but the frame it is not in.  Ranks whose state is
 * stable while they wait also get their active requests sent (for the
 * deadlock check of MPI_Wait* on requests).
 *
 * Ends when every one of its ranks finished (finalized, exited, or its
 * process is gone), after the last state went out (exit 0), or when the
 * front end closes the connection (exit 1).  The runtime starts one per node
 * at MPI_Init when the job streams (MPILENS_STREAM), with --detach.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "stream.h"
#include "symbols.h"
#include "tool.h"

#define AERR(...) (fprintf(stderr, "mpilens agent: " __VA_ARGS__), fputc('\n', stderr))

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens agent --connect HOST:PORT [--secret-file FILE] [--ranks LIST]\n"
            "                     [--interval S] DIR\n\n"
            "Sends the live state of the ranks of this node, read from their rank files in\n"
            "run directory DIR, to the front end of the job (mpilens top --listen, or\n"
            "mpilens run --listen) over one TCP connection: first the parts that do not\n"
            "change (rank, host, pid, routine names, call sites as file:line), then once\n"
            "per interval only what changed. Both sides prove that they know the job's\n"
            "secret (HMAC-SHA-256 challenge-response) and every message carries a tag with\n"
            "a sequence number, so nothing can be forged or replayed; nothing is encrypted.\n"
            "Ends when all its ranks have finished (exit 0) or the front end closes the\n"
            "connection (exit 1). mpilens run --listen starts one per node by itself.\n\n"
            "  --connect HOST:PORT  the front end\n"
            "  --secret-file FILE   the job secret (64 hex digits, mode 0600); default: the\n"
            "                       environment variable MPILENS_SECRET\n"
            "  --ranks LIST         only these ranks (e.g. 0-3,8); default: every rank file\n"
            "  --interval S         seconds between frames (default 1)\n"
            "  --detach             go to the background once connected (used by the runtime)\n"
            "  --stats              at the end, print the bytes sent by kind to stderr\n"
            "  -h, --help           this text\n\n"
            "Exit status: 0 all ranks finished, 1 connection failed or closed, 2 usage.\n");
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- rank lists: "0-3,8" ---------------------------------------------------- */

struct rlist {
    int *lo, *hi;
    unsigned n;
    long total;
};

static int rlist_parse(const char *s, struct rlist *l)
{
    memset(l, 0, sizeof *l);
    const char *p = s;
    while (*p) {
        char *e;
        long a = strtol(p, &e, 10), b;
        if (e == p || a < 0 || a > (1 << 24)) return -1;
        b = a;
        if (*e == '-') {
            p = e + 1;
            b = strtol(p, &e, 10);
            if (e == p || b < a || b > (1 << 24)) return -1;
        }
        if (*e && *e != ',') return -1;
        int *lo = realloc(l->lo, (l->n + 1) * sizeof *lo);
        if (!lo) return -1;
        l->lo = lo;
        int *hi = realloc(l->hi, (l->n + 1) * sizeof *hi);
        if (!hi) return -1;
        l->hi = hi;
        l->lo[l->n] = (int)a;
        l->hi[l->n++] = (int)b;
        l->total += b - a + 1;
        p = *e ? e + 1 : e;
        if (*e == ',' && !*p) return -1;
    }
    return l->n ? 0 : -1;
}

static int rlist_has(const struct rlist *l, int r)
{
    for (unsigned i = 0; i < l->n; i++)
        if (r >= l->lo[i] && r <= l->hi[i]) return 1;
    return 0;
}

/* ---- the ranks ---------------------------------------------------------------- */

struct arank {
    struct lf *f;
    dev_t dev;
    ino_t ino;
    int ignored;             /* not one of --ranks */
    int announced;
    unsigned id;             /* on the wire */
    int rank;
    /* as last sent */
    int32_t state, exit_status;
    unsigned nthreads;
    uint32_t fkind, fflags;
    int32_t fsigno, fcode;
    int gone, gone_sent;
    int clock_sent;
    uint32_t kind_sent;
    uint64_t a0t, a1t;       /* clock anchors sent */
    int64_t a0n, a1n;
    struct ml_live *ws;      /* wire slots: site = agent site id */
    unsigned nws;
    unsigned char *comm_sent;  /* by communicator index */
    unsigned ncomm_sent;
    /* liveness, stability */
    uint64_t sig, rsig, rsig_sent;
    int64_t changed_ns, rchanged_ns;
    int64_t proc_ns;         /* last look at /proc/PID */
    int final_sent;
};

struct agent {
    const char *dir;
    struct rlist only;
    int have_only;
    double interval;
    char host[256];
    int fd;
    struct ms_sess sess;
    struct wbuf out, body, fr;
    struct arank *r;
    unsigned nr, cap;
    unsigned next_id;
    int world;
    /* names tables sent: pointers */
    const void **tables;
    unsigned ntables;
    /* agent site ids sent (global site ids of this process) */
    unsigned char *site_sent;
    unsigned nsite_sent;
    /* communicator member lists sent, by global id */
    uint64_t *gid_sent;
    unsigned ngid_sent;
    /* directory scan */
    struct timespec dir_mtime;
    int dir_pending;
    int64_t dir_scan_ns;
    /* statistics: bytes on the wire by message type, frames */
    uint64_t bytes[16], msgs[16];
    uint64_t first_bytes;    /* everything up to and including the first frame */
    uint64_t first_frame;    /* the first frame alone */
    uint64_t frames;
    /* what the front end sends (MS_STOP) */
    uint8_t in[2 * (4 + MS_MAX_BACK + MS_TAG)];
    size_t nin;
    int64_t kill_at;         /* SIGKILL then the ranks told to stop (0: none) */
    /* the rank files known (r[] indexes + 1, open addressing by inode): a
     * node's agent sees the whole job's directory, 16,384 files at 256
     * nodes, and looked each entry up in r[] one by one at every rescan
     * (27 ms per refresh and agent) */
    uint32_t *kix;
    unsigned kcap;
};

static void msg(struct agent *a, uint8_t type)
{
    size_t before = a->out.n;
    ms_seal(&a->sess, type, a->body.p, a->body.n, &a->out);
    if (type < 16) {
        a->bytes[type] += a->out.n - before;
        a->msgs[type]++;
    }
    wb_reset(&a->body);
}

static int flush(struct agent *a)
{
    if (a->out.err) {
        AERR("out of memory");
        return -1;
    }
    int rc = a->out.n ? ms_send_all(a->fd, a->out.p, a->out.n) : 0;
    wb_reset(&a->out);
    return rc;
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

static unsigned known_slot(const struct agent *a, dev_t dev, ino_t ino)
{
    uint64_t h = ((uint64_t)ino ^ ((uint64_t)dev << 40)) * 0x9E3779B97F4A7C15ull;
    unsigned i = (unsigned)(h >> 32) & (a->kcap - 1);
    while (a->kix[i] && !(a->r[a->kix[i] - 1].dev == dev && a->r[a->kix[i] - 1].ino == ino))
        i = (i + 1) & (a->kcap - 1);
    return i;
}

static int known(const struct agent *a, dev_t dev, ino_t ino)
{
    return a->kcap && a->kix[known_slot(a, dev, ino)] != 0;
}

/* r[a->nr - 1] was just added: index it (-1: out of memory) */
static int known_add(struct agent *a)
{
    if (2 * a->nr > a->kcap) {
        unsigned cap = a->kcap ? 2 * a->kcap : 64;
        while (2 * a->nr > cap) cap *= 2;
        uint32_t *k = calloc(cap, sizeof *k);
        if (!k) return -1;
        free(a->kix);
        a->kix = k;
        a->kcap = cap;
        for (unsigned i = 0; i + 1 < a->nr; i++) a->kix[known_slot(a, a->r[i].dev, a->r[i].ino)] = i + 1;
    }
    struct arank *r = &a->r[a->nr - 1];
    a->kix[known_slot(a, r->dev, r->ino)] = a->nr;
    return 0;
}

static void scan(struct agent *a, int64_t now)
{
    struct stat ds;
    if (stat(a->dir, &ds) != 0) return;
    if (a->dir_scan_ns && !a->dir_pending && ds.st_mtim.tv_sec == a->dir_mtime.tv_sec &&
        ds.st_mtim.tv_nsec == a->dir_mtime.tv_nsec && now - a->dir_scan_ns < 5000000000ll)
        return;
    DIR *d = opendir(a->dir);
    if (!d) return;
    a->dir_mtime = ds.st_mtim;
    a->dir_scan_ns = now;
    a->dir_pending = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!rank_file_name(e->d_name)) continue;
        /* a file seen before costs no stat (the directory's entries share
         * its device; the entry's inode is the file's) */
        if (e->d_ino && known(a, ds.st_dev, e->d_ino)) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", a->dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (known(a, st.st_dev, st.st_ino)) continue;
        struct lf *f;
        if (lf_open(path, &f) != 0) {
            a->dir_pending = 1;
            continue;
        }
        if (lf_rank(f) < 0) {                 /* before MPI_Init: may still be renamed */
            lf_close(f);
            a->dir_pending = 1;
            continue;
        }
        if (a->nr == a->cap) {
            unsigned c = a->cap ? a->cap * 2 : 16;
            struct arank *p = realloc(a->r, c * sizeof *p);
            if (!p) {
                lf_close(f);
                break;
            }
            a->r = p;
            a->cap = c;
        }
        struct arank *r = &a->r[a->nr++];
        memset(r, 0, sizeof *r);
        r->f = f;
        r->dev = st.st_dev;
        r->ino = st.st_ino;
        r->rank = -1;
        r->changed_ns = r->rchanged_ns = now;
        if (known_add(a) != 0) {
            lf_close(f);
            a->nr--;
            break;
        }
    }
    closedir(d);
}

/* Is the rank's process gone?  Only for ranks of this host. */
static int proc_gone(struct agent *a, struct arank *r)
{
    const volatile struct ml_header *h = lf_hdr(r->f);
    if (strcmp(lf_host(r->f), a->host) != 0) return 0;
    pid_t pid = h->pid;
    if (pid <= 0) return 0;
    if (kill(pid, 0) != 0 && errno == ESRCH) return 1;
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
    return 0;
}

static void send_site(struct agent *a, uint32_t gid)
{
    if (!gid) return;
    if (gid >= a->nsite_sent) {
        unsigned n = gid + 256;
        unsigned char *p = realloc(a->site_sent, n);
        if (!p) return;
        memset(p + a->nsite_sent, 0, n - a->nsite_sent);
        a->site_sent = p;
        a->nsite_sent = n;
    }
    if (a->site_sent[gid]) return;
    uint64_t mh = 0, off = 0;
    if (lf_site_key(gid, &mh, &off) != 0) return;
    a->site_sent[gid] = 1;
    wb_uv(&a->body, gid);
    wb_u64(&a->body, mh);
    wb_uv(&a->body, off);
    wb_str(&a->body, lf_site_text(gid));
    msg(a, MS_SITE);
}

/* The definition of communicator `index` of rank r, once. */
static void send_comm(struct agent *a, struct arank *r, uint32_t index)
{
    if (index >= ML_COMM_NONE) return;
    if (index < r->ncomm_sent && r->comm_sent[index]) return;
    const struct lf_comm *c = lf_comm(r->f, index);
    if (!c) return;                          /* not written yet: next time */
    if (index >= r->ncomm_sent) {
        unsigned n = index + 64;
        unsigned char *p = realloc(r->comm_sent, n);
        if (!p) return;
        memset(p + r->ncomm_sent, 0, n - r->ncomm_sent);
        r->comm_sent = p;
        r->ncomm_sent = n;
    }
    r->comm_sent[index] = 1;
    wb_uv(&a->body, r->id);
    wb_uv(&a->body, index);
    wb_uv(&a->body, c->size);
    wb_uv(&a->body, c->remote_size);
    wb_uv(&a->body, c->flags);
    wb_u64(&a->body, c->gid);
    if ((c->flags & 2) || !c->members) {
        wb_uv(&a->body, 0);
    } else {
        int seen = 0;
        for (unsigned i = 0; i < a->ngid_sent && !seen; i++) seen = a->gid_sent[i] == c->gid;
        if (seen) {
            wb_uv(&a->body, 2);
        } else {
            wb_uv(&a->body, 1);
            int32_t prev = 0;
            uint64_t n = (uint64_t)c->size + c->remote_size;
            for (uint64_t i = 0; i < n; i++) {
                wb_sv(&a->body, (int64_t)c->members[i] - prev);
                prev = c->members[i];
            }
            uint64_t *p = realloc(a->gid_sent, (a->ngid_sent + 1) * sizeof *p);
            if (p) {
                a->gid_sent = p;
                a->gid_sent[a->ngid_sent++] = c->gid;
            }
        }
    }
    msg(a, MS_COMM);
}

static void announce(struct agent *a, struct arank *r)
{
    const volatile struct ml_header *h = lf_hdr(r->f);
    size_t tl = 0;
    const void *tab = lf_names_table(r->f, &tl);
    unsigned tid = 0;
    if (tab) {
        for (tid = 0; tid < a->ntables && a->tables[tid] != tab; tid++) {
        }
        if (tid == a->ntables) {
            const void **p = realloc(a->tables, (a->ntables + 1) * sizeof *p);
            if (p) {
                a->tables = p;
                a->tables[a->ntables++] = tab;
                wb_uv(&a->body, tid + 1);
                wb_raw(&a->body, tab, tl);
                msg(a, MS_NAMES);
            }
        }
        tid++;
    }
    r->id = a->next_id++;
    r->announced = 1;
    wb_uv(&a->body, r->id);
    wb_sv(&a->body, h->rank);
    wb_sv(&a->body, h->size);
    wb_sv(&a->body, h->pid);
    wb_uv(&a->body, tid);
    wb_sv(&a->body, h->thread_level);
    wb_uv(&a->body, h->job_id);
    wb_str(&a->body, lf_host(r->f));
    wb_str(&a->body, lf_impl(r->f));
    msg(a, MS_RANK);
}

static double rate_of(uint64_t t0, int64_t n0, uint64_t t1, int64_t n1)
{
    if (t1 > t0 && n1 > n0) {
        double r = (double)(n1 - n0) / (double)(t1 - t0);
        if (r > 0.001 && r < 1000) return r;
    }
    return 0;
}

/* The clock anchors of rank r when the front end's conversion of ticks to
 * ns would move by more than 10 us with the new ones (the second anchor
 * moves as the rank writes: most moves change nothing that matters). */
static void send_clock(struct agent *a, struct arank *r)
{
    const volatile struct ml_header *h = lf_hdr(r->f);
    uint32_t kind = h->clock_kind;
    uint64_t a0t = h->anchor0_ticks, a1t = h->anchor1_ticks;
    int64_t a0n = h->anchor0_ns, a1n = h->anchor1_ns;
    if (r->clock_sent) {
        if (kind != 1 && kind == r->kind_sent) return;
        if (kind == 1 && kind == r->kind_sent && a0t == r->a0t && a0n == r->a0n) {
            if (a1t == r->a1t) return;
            double old = rate_of(r->a0t, r->a0n, r->a1t, r->a1n), now = rate_of(a0t, a0n, a1t, a1n);
            if (now == 0) return;
            double span = (double)(a1t - a0t);
            if (old != 0 && span * (now > old ? now - old : old - now) < 10000.0) return;
        }
    }
    r->clock_sent = 1;
    r->kind_sent = kind;
    r->a0t = a0t;
    r->a0n = a0n;
    r->a1t = a1t;
    r->a1n = a1n;
    wb_uv(&a->body, r->id);
    wb_uv(&a->body, kind);
    wb_uv(&a->body, a0t);
    wb_sv(&a->body, a0n);
    wb_uv(&a->body, a1t);
    wb_sv(&a->body, a1n);
    msg(a, MS_CLOCK);
}

static void seal(struct agent *a, uint8_t type, struct wbuf *b)
{
    size_t before = a->out.n;
    ms_seal(&a->sess, type, b->p, b->n, &a->out);
    if (type < 16) {
        a->bytes[type] += a->out.n - before;
        a->msgs[type]++;
    }
    wb_reset(b);
}

/* Fields of slot n that differ from o, into b; returns the mask. */
static unsigned slot_diff(const struct ml_live *o, const struct ml_live *n, struct wbuf *b)
{
    unsigned m = 0;
    if (n->seq != o->seq) m |= MSF_SEQ;
    if (n->routine != o->routine) m |= MSF_ROUTINE;
    if (n->used != o->used) m |= MSF_USED;
    if (n->site != o->site) m |= MSF_SITE;
    if (n->peer != o->peer) m |= MSF_PEER;
    if (n->tag != o->tag) m |= MSF_TAG;
    if (n->comm != o->comm) m |= MSF_COMM;
    if (n->t_start != o->t_start) m |= MSF_TSTART;
    if (n->t_end != o->t_end) m |= MSF_TEND;
    if (n->aux != o->aux) m |= MSF_AUX;
    if (n->tid != o->tid) m |= MSF_TID;
    if (n->t_idle != o->t_idle) m |= MSF_TIDLE;
    if (n->work != o->work) m |= MSF_WORK;
    if (!m) return 0;
    if (m & MSF_SEQ) wb_uv(b, (uint32_t)(n->seq - o->seq));
    if (m & MSF_ROUTINE) wb_uv(b, n->routine);
    if (m & MSF_USED) wb_uv(b, n->used);
    if (m & MSF_SITE) wb_uv(b, n->site);
    if (m & MSF_PEER) wb_sv(b, n->peer);
    if (m & MSF_TAG) wb_sv(b, n->tag);
    if (m & MSF_COMM) wb_uv(b, n->comm);
    if (m & MSF_TSTART) wb_sv(b, (int64_t)(n->t_start - o->t_start));
    if (m & MSF_TEND) wb_sv(b, (int64_t)(n->t_end - o->t_end));
    if (m & MSF_AUX) wb_sv(b, (int64_t)(n->aux - o->aux));
    if (m & MSF_TID) wb_uv(b, n->tid);
    if (m & MSF_TIDLE) wb_sv(b, (int64_t)(n->t_idle - o->t_idle));
    if (m & MSF_WORK) wb_uv(b, n->work);
    return m;
}

static int is_final(const struct arank *r)
{
    return r->state == ML_STATE_FINALIZED || r->state == ML_STATE_EXITED || r->gone;
}

/* What changed in rank r since the last frame, appended to a->fr. */
static int frame_rank(struct agent *a, struct arank *r, int64_t now, unsigned *prev_id, struct wbuf *tb)
{
    const volatile struct ml_header *h = lf_hdr(r->f);
    int32_t state = h->state, xs = h->exit_status;
    unsigned nt = lf_nthreads(r->f);
    if (nt > ML_MAX_THREADS) nt = ML_MAX_THREADS;
    uint32_t fk = h->failure.kind;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    int32_t fs = h->failure.signo, fc = h->failure.code;
    uint32_t ff = h->failure.flags;
    if (nt > r->nws) {
        struct ml_live *p = realloc(r->ws, nt * sizeof *p);
        if (!p) return 0;
        memset(p + r->nws, 0, (nt - r->nws) * sizeof *p);
        r->ws = p;
        r->nws = nt;
    }
    send_clock(a, r);
    /* slots, with global site ids; their sites and communicators defined first */
    uint64_t sig = (uint64_t)state * 0x9E3779B97F4A7C15ull + nt, rsig = nt;
    wb_reset(tb);
    unsigned nchanged = 0;
    struct wbuf fields = {0};
    for (unsigned i = 0; i < nt; i++) {
        struct ml_live l;
        if (lf_live(r->f, i, &l) != 0) l = r->ws[i];
        else {
            uint32_t g = lf_site_gid(r->f, l.site);
            send_site(a, g);
            l.site = g;
            if (l.used && l.comm < ML_COMM_NONE) send_comm(a, r, l.comm);
        }
        sig = (sig ^ (l.seq + l.t_end * 3 + l.t_idle * 7)) * 0xff51afd7ed558ccdull;
        rsig = (rsig ^ (l.t_end + i)) * 0xff51afd7ed558ccdull;
        wb_reset(&fields);
        unsigned m = slot_diff(&r->ws[i], &l, &fields);
        if (m) {
            wb_uv(tb, i);
            wb_uv(tb, m);
            wb_raw(tb, fields.p, fields.n);
            r->ws[i] = l;
            nchanged++;
        }
    }
    wb_free(&fields);
    if (sig != r->sig) {
        r->sig = sig;
        r->changed_ns = now;
    }
    if (rsig != r->rsig) {
        r->rsig = rsig;
        r->rchanged_ns = now;
    }
    int64_t iv = (int64_t)(a->interval * 1e9);
    /* a rank whose slots do not move: is its process still there?  At most
     * every 2 s (or interval) per rank: /proc costs more than the rest */
    if (state == ML_STATE_RUNNING && !r->gone && now - r->changed_ns >= 2 * iv &&
        now - r->proc_ns >= (iv > 2000000000ll ? iv : 2000000000ll)) {
        r->proc_ns = now;
        r->gone = proc_gone(a, r);
    }
    unsigned mask = 0;
    if (state != r->state || xs != r->exit_status) mask |= MSR_STATE;
    if (nt != r->nthreads) mask |= MSR_NTHREADS;
    if (fk != r->fkind || fs != r->fsigno || fc != r->fcode || ff != r->fflags) mask |= MSR_FAILURE;
    if (r->gone != r->gone_sent) mask |= MSR_GONE;
    if (nchanged) mask |= MSR_THREADS;
    if (!mask) return 0;
    wb_uv(&a->fr, r->id - *prev_id - 1);
    *prev_id = r->id;
    wb_uv(&a->fr, mask);
    if (mask & MSR_STATE) {
        wb_sv(&a->fr, state);
        wb_sv(&a->fr, xs);
        r->state = state;
        r->exit_status = xs;
    }
    if (mask & MSR_NTHREADS) {
        wb_uv(&a->fr, nt);
        r->nthreads = nt;
    }
    if (mask & MSR_FAILURE) {
        wb_uv(&a->fr, fk);
        wb_sv(&a->fr, fs);
        wb_sv(&a->fr, fc);
        wb_uv(&a->fr, ff);
        r->fkind = fk;
        r->fsigno = fs;
        r->fcode = fc;
        r->fflags = ff;
    }
    if (mask & MSR_GONE) {
        wb_uv(&a->fr, (uint64_t)r->gone);
        r->gone_sent = r->gone;
    }
    if (mask & MSR_THREADS) {
        wb_uv(&a->fr, nchanged);
        wb_raw(&a->fr, tb->p, tb->n);
    }
    return 1;
}

/* Rank r waits (a thread in MPI or polling) and nothing completed for 1 s:
 * its active requests, once per such state (read from its trace). */
static void maybe_reqs(struct agent *a, struct arank *r, int64_t now)
{
    if (is_final(r) || !r->rsig || r->rsig == r->rsig_sent || now - r->rchanged_ns < 1000000000ll) return;
    int waits = 0;
    for (unsigned i = 0; i < r->nws && !waits; i++) {
        const struct ml_live *l = &r->ws[i];
        if (!l->used || !l->t_start) continue;
        uint64_t last = l->t_end > l->t_idle ? l->t_end : l->t_idle;
        waits = l->t_start > last || l->t_idle > l->t_end;
    }
    if (!waits) return;
    struct dl_reqs q;
    memset(&q, 0, sizeof q);
    dl_load_requests(lf_path(r->f), &q);
    /* still the same state? (nothing completed while the trace was read) */
    uint64_t rsig = r->nthreads;
    for (unsigned i = 0; i < r->nthreads && i < r->nws; i++) {
        struct ml_live l;
        if (lf_live(r->f, i, &l) != 0) l = r->ws[i];
        rsig = (rsig ^ (l.t_end + i)) * 0xff51afd7ed558ccdull;
    }
    if (rsig == r->rsig) {
        r->rsig_sent = rsig;
        unsigned nact = 0;
        for (unsigned i = 0; i < q.n; i++) {
            if (!q.r[i].active) continue;
            send_comm(a, r, q.r[i].comm);
            nact++;
        }
        for (unsigned i = 0; i < q.nnb; i++) send_comm(a, r, q.nb[i].comm);
        wb_uv(&a->body, r->id);
        wb_uv(&a->body, q.nnb);
        for (unsigned i = 0; i < q.nnb; i++) {
            wb_uv(&a->body, q.nb[i].comm);
            wb_uv(&a->body, q.nb[i].seq);
        }
        wb_uv(&a->body, nact);
        for (unsigned i = 0; i < q.n; i++) {
            const struct dl_req *x = &q.r[i];
            if (!x->active) continue;
            wb_uv(&a->body, x->handle);
            wb_uv(&a->body, x->thread);
            wb_uv(&a->body, (uint64_t)((x->send ? 1 : 0) | (x->persistent ? 2 : 0) | (x->coll ? 8 : 0)));
            wb_uv(&a->body, x->seq);
            wb_uv(&a->body, x->comm);
            wb_sv(&a->body, x->peer);
            wb_sv(&a->body, x->tag);
            wb_str(&a->body, x->site);
            wb_str(&a->body, x->routine);
        }
        wb_uv(&a->body, q.undescribed ? 1 : 0);
        msg(a, MS_REQS);
    }
    dl_reqs_free(&q);
}

/* Is pid still the program of rank r (not a reused pid)?  Same check as
 * the live view: /proc/PID/exe is the recorded executable. */
static int same_program(struct arank *r, pid_t pid)
{
    const volatile struct ml_header *h = lf_hdr(r->f);
    char p[64], exe[PATH_MAX], want[sizeof h->exe + 1];
    size_t i = 0;
    for (; i < sizeof h->exe && h->exe[i]; i++) want[i] = h->exe[i];
    want[i] = 0;
    snprintf(p, sizeof p, "/proc/%d/exe", (int)pid);
    ssize_t l = readlink(p, exe, sizeof exe - 1);
    if (l <= 0 || !want[0]) return 1;     /* cannot tell (another user's process): trust the pid */
    exe[l] = 0;
    return strcmp(exe, want) == 0 || strstr(exe, " (deleted)") != NULL;
}

/* Signal every rank of this node that has not finished; returns how many. */
static int signal_ranks(struct agent *a, int sig, char *list, size_t ln)
{
    int n = 0, rk[4096];
    for (unsigned i = 0; i < a->nr; i++) {
        struct arank *r = &a->r[i];
        if (!r->announced || r->ignored || !r->f) continue;
        const volatile struct ml_header *h = lf_hdr(r->f);
        pid_t pid = h->pid;
        int st = h->state;
        if (pid <= 0 || st == ML_STATE_EXITED || strcmp(lf_host(r->f), a->host) != 0) continue;
        if (proc_gone(a, r) || !same_program(r, pid)) continue;
        if (kill(pid, sig) == 0 && n < 4096) rk[n++] = r->rank;
    }
    if (list) {
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && rk[j - 1] > rk[j]; j--) {
                int t = rk[j];
                rk[j] = rk[j - 1];
                rk[j - 1] = t;
            }
        if (n) fmt_ranks(list, ln, rk, (unsigned)n);
        else snprintf(list, ln, "none left");
    }
    return n;
}

/* The front end asked to stop the job: SIGTERM now, SIGKILL 3 s later. */
static void stop_ranks(struct agent *a, int64_t now)
{
    char list[256];
    int n = signal_ranks(a, SIGTERM, list, sizeof list);
    AERR("the front end stopped the job: SIGTERM to %d rank%s of this node (%s)", n, n == 1 ? "" : "s", list);
    if (n) a->kill_at = now + 3000000000ll;
}

static void kill_left(struct agent *a)
{
    char list[256];
    int n = signal_ranks(a, SIGKILL, list, sizeof list);
    if (n) AERR("SIGKILL to %d rank%s still running (%s)", n, n == 1 ? "" : "s", list);
    a->kill_at = 0;
}

/* Messages from the front end in a->in: each must carry its tag.  0 ok,
 * else a one-line reason in why. */
static int from_front(struct agent *a, int64_t now, const char **why)
{
    while (a->nin >= 4) {
        uint32_t L = (uint32_t)a->in[0] | (uint32_t)a->in[1] << 8 | (uint32_t)a->in[2] << 16 |
                     (uint32_t)a->in[3] << 24;
        if (L == 0 || L > MS_MAX_BACK) {
            *why = "the front end sent a malformed message";
            return -1;
        }
        size_t tot = 4 + (size_t)L + MS_TAG;
        if (a->nin < tot) return 0;
        if (ms_verify(&a->sess, a->in, tot) != 0) {
            *why = "a message from the front end failed its authentication tag (forged or corrupted)";
            return -1;
        }
        if (a->in[4] == MS_STOP) stop_ranks(a, now);     /* other types: later versions */
        memmove(a->in, a->in + tot, a->nin - tot);
        a->nin -= tot;
    }
    return 0;
}

/* The handshake, agent side.  0 ok; else a message was printed. */
static int handshake(struct agent *a, const uint8_t secret[MS_SECRET_LEN], const char *where)
{
    uint8_t na[MS_NONCE], nf[MS_NONCE], hello[MS_HELLO_LEN], in[MS_HELLO_LEN], proof[MS_PROOF_LEN],
        want[MS_PROOF_LEN];
    ms_nonce(na);
    ms_hello(hello, na);
    if (ms_send_all(a->fd, hello, sizeof hello) != 0) {
        AERR("%s: connection lost during authentication", where);
        return -1;
    }
    int rc = ms_recv_exact(a->fd, in, sizeof in, 10000);
    if (rc != 0) {
        AERR("%s: %s during authentication", where, rc == -2 ? "no answer" : "connection closed");
        return -1;
    }
    unsigned v = 0;
    rc = ms_hello_check(in, &v, nf);
    if (rc == -1) {
        AERR("%s is not an mpilens front end", where);
        return -1;
    }
    if (rc == -2) {
        AERR("%s speaks stream version %u, this agent %d: use the same mpilens on both sides", where, v,
             MS_VERSION);
        return -1;
    }
    ms_proof(secret, "agent", na, nf, proof);
    if (ms_send_all(a->fd, proof, sizeof proof) != 0) {
        AERR("%s: connection lost during authentication", where);
        return -1;
    }
    rc = ms_recv_exact(a->fd, in, MS_PROOF_LEN, 10000);
    if (rc != 0) {
        AERR("%s rejected this agent: authentication failed (not the job's secret?)", where);
        return -1;
    }
    ms_proof(secret, "front", na, nf, want);
    if (ct_memcmp(in, want, MS_PROOF_LEN) != 0) {
        AERR("%s failed to prove that it knows the job secret: not the job's front end (or another "
             "secret); disconnected", where);
        return -1;
    }
    ms_session(&a->sess, secret, na, nf, 1);
    return 0;
}

static volatile sig_atomic_t stop_req;
static void on_term(int sig)
{
    (void)sig;
    stop_req = 1;
}

int cmd_agent(int argc, char **argv)
{
    static const struct option opts[] = {
        {"connect", required_argument, 0, 'c'},
        {"secret-file", required_argument, 0, 's'},
        {"ranks", required_argument, 0, 'r'},
        {"interval", required_argument, 0, 'i'},
        {"detach", no_argument, 0, 'D'},
        {"stats", no_argument, 0, 'S'},
        {"frames", required_argument, 0, 'F'},     /* not in --help: stop after N frames (bench) */
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    struct agent a;
    memset(&a, 0, sizeof a);
    a.interval = 1.0;
    a.fd = -1;
    const char *connect_to = NULL, *secret_file = NULL;
    int detach = 0, stats = 0, c;
    long max_frames = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': connect_to = optarg; break;
        case 's': secret_file = optarg; break;
        case 'r':
            if (rlist_parse(optarg, &a.only) != 0) {
                AERR("--ranks wants a list of ranks like 0-3,8, not '%s'", optarg);
                return 2;
            }
            a.have_only = 1;
            break;
        case 'i': {
            char *end;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || !(v >= 0.01) || v > 3600) {
                AERR("--interval wants a number of seconds (0.5, 2, ...), not '%s'", optarg);
                return 2;
            }
            a.interval = v;
            break;
        }
        case 'D': detach = 1; break;
        case 'S': stats = 1; break;
        case 'F': max_frames = atol(optarg); break;
        case 'h': help(stdout); return 0;
        default:
            tool_bad_option("agent", argc, argv);
            return 2;
        }
    }
    if (optind != argc - 1) {
        AERR("give one run directory, e.g. mpilens agent --connect host:7000 --secret-file s mpilens-app-1234/");
        return 2;
    }
    if (!connect_to) {
        AERR("--connect HOST:PORT is needed (the front end: mpilens top --listen PORT)");
        return 2;
    }
    a.dir = argv[optind];
    char host[256], err[512];
    int port = 0;
    if (ms_parse_addr(connect_to, 0, host, sizeof host, &port, err, sizeof err) != 0) {
        AERR("--connect: %s", err);
        return 2;
    }
    uint8_t secret[MS_SECRET_LEN];
    if (ms_secret_load(secret_file, secret, err, sizeof err) != 0) {
        AERR("%s", err);
        return 2;
    }
    struct stat st;
    if (stat(a.dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        AERR("%s is not a run directory (%s)", a.dir, stat(a.dir, &st) != 0 ? strerror(errno) : "not a directory");
        return 2;
    }
    if (gethostname(a.host, sizeof a.host - 1) != 0) snprintf(a.host, sizeof a.host, "?");
    if (detach) {
        /* the runtime waits for this process: go on in a child, at once */
        for (int fd = 3; fd < 1024; fd++) close(fd);   /* nothing of the program's */
        pid_t p = fork();
        if (p < 0) {
            AERR("cannot go to the background: %s", strerror(errno));
            return 1;
        }
        if (p > 0) _exit(0);
    }
    /* the front end may still be starting: a few tries */
    for (int t = 0; t < 25; t++) {
        a.fd = ms_connect(host, port, 3000, err, sizeof err);
        if (a.fd >= 0 || stop_req) break;
        struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
    }
    if (a.fd < 0) {
        AERR("%s", err);
        return 1;
    }
    if (handshake(&a, secret, connect_to) != 0) return 1;
    memset(secret, 0, sizeof secret);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int64_t now = mono_ns();
    wb_str(&a.body, a.host);
    wb_uv(&a.body, (uint64_t)(a.interval * 1000 + 0.5));
    wb_uv(&a.body, (uint64_t)now);
    wb_uv(&a.body, a.have_only ? (uint64_t)a.only.total : 0);
    msg(&a, MS_INFO);

    int rc = 1, done = 0;
    struct wbuf tb = {0};
    const char *why = NULL;
    while (!stop_req) {
        now = mono_ns();
        scan(&a, now);
        unsigned prev = (unsigned)-1, nranks_in = 0, nfinal = 0;
        wb_reset(&a.fr);
        wb_uv(&a.fr, (uint64_t)now);
        size_t count_at = a.fr.n;
        struct wbuf ranks = {0};
        (void)count_at;
        unsigned nupd = 0;
        /* announce new ranks (the rank number is known after MPI_Init) */
        for (unsigned i = 0; i < a.nr; i++) {
            struct arank *r = &a.r[i];
            if (r->ignored) continue;
            int rank = lf_rank(r->f);
            if (rank < 0) continue;
            if (!r->announced) {
                if (a.have_only && !rlist_has(&a.only, rank)) {
                    r->ignored = 1;           /* another node's: known by its inode only */
                    lf_close(r->f);
                    r->f = NULL;
                    continue;
                }
                r->rank = rank;
                announce(&a, r);
            }
            int32_t size = lf_hdr(r->f)->size;
            if (size > a.world && size < (1 << 24)) a.world = size;
        }
        /* the frame: ranks that changed */
        struct wbuf save = a.fr;
        a.fr = ranks;
        for (unsigned i = 0; i < a.nr; i++) {
            struct arank *r = &a.r[i];
            if (!r->announced) continue;
            nupd += (unsigned)frame_rank(&a, r, now, &prev, &tb);
            nranks_in++;
            nfinal += is_final(r);
        }
        ranks = a.fr;
        a.fr = save;
        wb_uv(&a.fr, nupd);
        wb_raw(&a.fr, ranks.p, ranks.n);
        wb_free(&ranks);
        size_t before = a.out.n;
        seal(&a, MS_FRAME, &a.fr);
        a.frames++;
        if (a.frames == 1) {
            for (int t = 0; t < 16; t++) a.first_bytes += a.bytes[t];
            a.first_frame = a.bytes[MS_FRAME];
        }
        (void)before;
        for (unsigned i = 0; i < a.nr; i++)
            if (a.r[i].announced) maybe_reqs(&a, &a.r[i], now);
        unsigned expect = a.have_only ? (unsigned)a.only.total : (unsigned)a.world;
        if (expect && nranks_in >= expect && nfinal == nranks_in) {
            wb_reset(&a.body);
            msg(&a, MS_BYE);
            done = 1;
        }
        if (flush(&a) != 0) {
            why = "the front end closed the connection";
            break;
        }
        if (done) {
            rc = 0;
            break;
        }
        if (max_frames && (long)a.frames >= max_frames) {
            rc = 0;
            break;
        }
        /* wait for the next frame, watching the connection */
        int64_t until = now + (int64_t)(a.interval * 1e9);
        for (;;) {
            int64_t left = until - mono_ns();
            if (left <= 0 || stop_req) break;
            struct pollfd pf = {a.fd, POLLIN, 0};
            int pr = poll(&pf, 1, (int)(left / 1000000) + 1);
            if (pr > 0) {
                ssize_t k = recv(a.fd, a.in + a.nin, sizeof a.in - a.nin, MSG_DONTWAIT);
                if (k > 0) {
                    a.nin += (size_t)k;
                    if (from_front(&a, mono_ns(), &why) != 0) break;
                } else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
                    why = "the front end closed the connection";
                    break;
                }
            }
            if (a.kill_at && mono_ns() >= a.kill_at) kill_left(&a);
        }
        if (why) break;
    }
    if (a.kill_at) {
        /* told to stop the job: the ranks get their 3 s before SIGKILL, also
         * when the front end is gone by now */
        while (a.kill_at && mono_ns() < a.kill_at && signal_ranks(&a, 0, NULL, 0) > 0) {
            struct timespec ts = {0, 100000000};
            nanosleep(&ts, NULL);
        }
        kill_left(&a);
    }
    if (why && !a.kill_at) {
        /* the front end went away: not an error if every rank had finished
         * (it saw the job end before our goodbye) */
        unsigned in = 0, fin = 0;
        for (unsigned i = 0; i < a.nr; i++) {
            struct arank *r = &a.r[i];
            if (!r->announced) continue;
            in++;
            int st = lf_hdr(r->f)->state;
            fin += st == ML_STATE_FINALIZED || st == ML_STATE_EXITED || r->gone || proc_gone(&a, r);
        }
        unsigned expect = a.have_only ? (unsigned)a.only.total : (unsigned)a.world;
        if (in && fin == in && (!expect || in >= expect)) {
            why = NULL;
            rc = 0;
        }
    }
    if (why && !stop_req) AERR("%s: stopping", why);
    if (stats) {
        uint64_t later = 0;
        for (int t = 0; t < 16; t++) later += a.bytes[t];
        later -= a.first_bytes;
        uint64_t announced = 0;
        for (unsigned i = 0; i < a.nr; i++) announced += a.r[i].announced;
        fprintf(stderr,
                "agent stats: ranks=%llu frames=%llu first_bytes=%llu later_bytes=%llu first_frame=%llu "
                "frame_bytes=%llu "
                "info=%llu names=%llu rank=%llu clock=%llu site=%llu comm=%llu reqs=%llu bye=%llu\n",
                (unsigned long long)announced, (unsigned long long)a.frames, (unsigned long long)a.first_bytes,
                (unsigned long long)later, (unsigned long long)a.first_frame, (unsigned long long)a.bytes[MS_FRAME],
                (unsigned long long)a.bytes[MS_INFO], (unsigned long long)a.bytes[MS_NAMES],
                (unsigned long long)a.bytes[MS_RANK], (unsigned long long)a.bytes[MS_CLOCK],
                (unsigned long long)a.bytes[MS_SITE], (unsigned long long)a.bytes[MS_COMM],
                (unsigned long long)a.bytes[MS_REQS], (unsigned long long)a.bytes[MS_BYE]);
    }
    close(a.fd);
    for (unsigned i = 0; i < a.nr; i++) {
        lf_close(a.r[i].f);
        free(a.r[i].ws);
        free(a.r[i].comm_sent);
    }
    free(a.r);
    free(a.kix);
    free(a.tables);
    free(a.site_sent);
    free(a.gid_sent);
    free(a.only.lo);
    free(a.only.hi);
    wb_free(&a.out);
    wb_free(&a.body);
    wb_free(&a.fr);
    wb_free(&tb);
    lf_global_cleanup();
    sym_cleanup();
    return rc;
}
