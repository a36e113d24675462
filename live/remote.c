/*
 * remote.c — the front end of the node state streams (remote.h,
 * docs/STREAM.md).
 *
 * One listening socket (loopback unless told otherwise), any number of agent
 * connections, all non-blocking and served from the live view's loop
 * (rs_poll).  A connection first goes through the handshake: the agent's
 * hello (its nonce), ours (our nonce), the agent's proof of the secret
 * (checked: a wrong one closes the connection with a one-line message, and
 * nothing it sent is used), our proof.  Then every message must carry the
 * right tag for its sequence number; the first that does not, or that is
 * malformed or too large, closes the connection and leaves its ranks stale.
 *
 * What the messages say goes into remote ranks (livefile.c): a header copy
 * (rank, size, pid, host, state, failure), the live slots (deltas applied),
 * communicator definitions, call sites (text resolved by the agent), and the
 * active requests of waiting ranks.  A stream that goes silent for three
 * intervals, or closes without saying it is done, makes its ranks that have
 * not finished "stale": their last state is never taken for a current one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "remote.h"

enum { HS_HELLO = 1, HS_PROOF, ST_STREAM, ST_CLOSED };

#define MAX_CONNS 4096
#define MAX_RANKS_PER_CONN (1u << 20)
#define MAX_SITE_ID (1u << 22)
#define MAX_TABLES 64

struct members {
    uint64_t gid;
    int32_t *m;
    unsigned n;
};

struct rconn {
    int fd;
    int state;
    char peer[80];
    uint8_t na[MS_NONCE], nf[MS_NONCE];
    struct ms_sess sess;
    uint8_t *buf;
    size_t n, cap;
    int64_t t_open, t_last;
    int64_t interval_ns;
    int64_t clock_off;
    int off_set;
    int64_t off_t;           /* when clock_off was last lowered or raised */
    char host[65];
    uint8_t **tab;           /* routine-name tables, by id - 1 */
    size_t *tablen;
    unsigned ntab;
    struct lf **rank;        /* by wire id */
    unsigned nrank;
    uint32_t *site;          /* agent site id -> global site id */
    unsigned nsite;
    struct members *mem;
    unsigned nmem;
    int bye, stale, counted;
    int test;                /* rs_test_conn: no socket */
};

struct rsrv {
    int lfd, port;
    uint8_t secret[MS_SECRET_LEN];
    struct rconn **c;
    unsigned nc;
    struct lf **all;         /* every remote rank made (freed by rs_free) */
    unsigned nall, capall, taken;
    FILE *msgs;
    char prefix[32];
    unsigned ever;
};

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void say(struct rsrv *s, const char *fmt, const char *a, const char *b)
{
    if (!s->msgs) return;
    fprintf(s->msgs, "%s: ", s->prefix);
    fprintf(s->msgs, fmt, a, b);
    fputc('\n', s->msgs);
    fflush(s->msgs);
}

struct rsrv *rs_listen(const char *addr, const uint8_t secret[MS_SECRET_LEN], FILE *msgs, const char *prefix,
                       char *err, size_t errn)
{
    char host[256];
    int port = 0, bound = 0;
    if (ms_parse_addr(addr, 1, host, sizeof host, &port, err, errn) != 0) return NULL;
    int fd = ms_listen(host, port, &bound, err, errn);
    if (fd < 0) return NULL;
    struct rsrv *s = calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        snprintf(err, errn, "out of memory");
        return NULL;
    }
    s->lfd = fd;
    s->port = bound;
    memcpy(s->secret, secret, MS_SECRET_LEN);
    s->msgs = msgs;
    snprintf(s->prefix, sizeof s->prefix, "%s", prefix ? prefix : "mpilens");
    return s;
}

struct rsrv *rs_test_new(void)
{
    struct rsrv *s = calloc(1, sizeof *s);
    if (s) s->lfd = -1;
    return s;
}

int rs_port(const struct rsrv *s) { return s->port; }

unsigned rs_streams(const struct rsrv *s, unsigned *ever)
{
    unsigned n = 0;
    for (unsigned i = 0; i < s->nc; i++) n += s->c[i]->state == ST_STREAM;
    if (ever) *ever = s->ever;
    return n;
}

struct lf *rs_take(struct rsrv *s)
{
    return s->taken < s->nall ? s->all[s->taken++] : NULL;
}

static void conn_free(struct rconn *c)
{
    if (c->fd >= 0) close(c->fd);
    free(c->buf);
    for (unsigned i = 0; i < c->ntab; i++) free(c->tab[i]);
    free(c->tab);
    free(c->tablen);
    free(c->rank);
    free(c->site);
    for (unsigned i = 0; i < c->nmem; i++) free(c->mem[i].m);
    free(c->mem);
    free(c);
}

void rs_free(struct rsrv *s)
{
    if (!s) return;
    for (unsigned i = 0; i < s->nc; i++) conn_free(s->c[i]);
    free(s->c);
    for (unsigned i = 0; i < s->nall; i++) lf_close(s->all[i]);
    free(s->all);
    if (s->lfd >= 0) close(s->lfd);
    memset(s->secret, 0, sizeof s->secret);
    free(s);
}

/* The ranks of a connection that have not finished become stale (or live
 * again when the stream resumes). */
static void mark_stale(struct rconn *c, int stale)
{
    c->stale = stale;
    for (unsigned i = 0; i < c->nrank; i++) {
        struct lf *f = c->rank[i];
        if (!f) continue;
        if (lf_remote_state(f) == LF_REMOTE_GONE) continue;
        lf_remote_set_state(f, stale ? LF_REMOTE_STALE : LF_REMOTE_LIVE);
    }
}

static void ranks_text(const struct rconn *c, char *buf, size_t n)
{
    int r[64];
    unsigned k = 0;
    for (unsigned i = 0; i < c->nrank && k < 64; i++) r[k++] = lf_hdr(c->rank[i])->rank;
    /* sort (few) */
    for (unsigned i = 1; i < k; i++)
        for (unsigned j = i; j > 0 && r[j - 1] > r[j]; j--) {
            int t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    if (!k) snprintf(buf, n, "no ranks yet");
    else {
        char t[200];
        fmt_ranks(t, sizeof t, r, k);
        snprintf(buf, n, "rank%s %s%s", k == 1 ? "" : "s", t, c->nrank > k ? ",..." : "");
    }
}

static void conn_close(struct rsrv *s, struct rconn *c, const char *why)
{
    if (c->state == ST_CLOSED) return;
    int was_stream = c->state == ST_STREAM;
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    c->state = ST_CLOSED;
    if (was_stream && !c->bye) {
        int unfinished = 0;
        for (unsigned i = 0; i < c->nrank; i++) {
            int st = lf_hdr(c->rank[i])->state;
            if (st != ML_STATE_FINALIZED && st != ML_STATE_EXITED && lf_remote_state(c->rank[i]) != LF_REMOTE_GONE)
                unfinished = 1;
        }
        mark_stale(c, 1);
        if (why || unfinished) {
            char who[160], rt[240];
            snprintf(who, sizeof who, "the agent on %s (%s)", c->host[0] ? c->host : "?", c->peer);
            ranks_text(c, rt, sizeof rt);
            char line[512];
            snprintf(line, sizeof line, "%s%s%s: its %s %s", why ? why : "lost the stream of ", why ? " " : "", who,
                     rt, unfinished ? "are stale from now on" : "had finished");
            say(s, "%s%s", line, "");
        }
    } else if (why) {
        say(s, "%s %s", why, c->peer);
    }
}

/* ---- applying messages --------------------------------------------------- */

static struct lf *rank_of(struct rconn *c, struct rbuf *b)
{
    uint64_t id = rb_uv(b);
    if (b->err || id >= c->nrank) return NULL;
    return c->rank[id];
}

static int m_info(struct rconn *c, struct rbuf *b)
{
    rb_str(b, c->host, sizeof c->host);
    uint64_t iv = rb_uv(b);
    rb_uv(b);                /* agent's clock: the frames carry it */
    rb_uv(b);                /* ranks expected */
    if (iv < 10) iv = 10;
    if (iv > 3600000) iv = 3600000;
    c->interval_ns = (int64_t)iv * 1000000;
    return b->err ? -1 : 0;
}

static int m_names(struct rconn *c, struct rbuf *b)
{
    uint64_t id = rb_uv(b);
    if (b->err || id != c->ntab + 1 || c->ntab >= MAX_TABLES) return -1;
    size_t len = b->n - b->o;
    uint8_t *t = malloc(len ? len : 1);
    uint8_t **p = realloc(c->tab, (c->ntab + 1) * sizeof *p);
    if (p) c->tab = p;
    size_t *q = realloc(c->tablen, (c->ntab + 1) * sizeof *q);
    if (q) c->tablen = q;
    if (!t || !p || !q) {
        free(t);
        return -1;
    }
    memcpy(t, b->p + b->o, len);
    b->o = b->n;
    c->tab[c->ntab] = t;
    c->tablen[c->ntab++] = len;
    return 0;
}

static int m_rank(struct rsrv *s, struct rconn *c, struct rbuf *b)
{
    uint64_t id = rb_uv(b);
    int64_t rank = rb_sv(b), size = rb_sv(b), pid = rb_sv(b);
    uint64_t tab = rb_uv(b);
    int64_t tl = rb_sv(b);
    uint64_t job = rb_uv(b);
    char host[80], impl[40];
    rb_str(b, host, sizeof host);
    rb_str(b, impl, sizeof impl);
    if (b->err || id != c->nrank || id >= MAX_RANKS_PER_CONN || rank < 0 || rank >= (1 << 24) ||
        size < -1 || size >= (1 << 24) || tab > c->ntab || pid < -1 || pid > INT32_MAX)
        return -1;
    char label[160];
    snprintf(label, sizeof label, "%s:rank-%05d (stream)", host, (int)rank);
    struct lf *f = lf_open_remote(label);
    if (!f) return -1;
    struct ml_header *h = lf_remote_hdr(f);
    h->rank = (int32_t)rank;
    h->size = (int32_t)size;
    h->pid = (int32_t)pid;
    h->thread_level = (int32_t)tl;
    h->job_id = job;
    lf_remote_info(f, host, impl);
    if (tab) lf_remote_names(f, c->tab[tab - 1], c->tablen[tab - 1]);
    lf_remote_clock(f, c->clock_off);
    lf_remote_set_state(f, c->stale ? LF_REMOTE_STALE : LF_REMOTE_LIVE);
    struct lf **p = realloc(c->rank, (c->nrank + 1) * sizeof *p);
    if (!p) {
        lf_close(f);
        return -1;
    }
    c->rank = p;
    if (s->nall == s->capall) {
        unsigned cap = s->capall ? s->capall * 2 : 64;
        struct lf **q = realloc(s->all, cap * sizeof *q);
        if (!q) {
            lf_close(f);
            return -1;
        }
        s->all = q;
        s->capall = cap;
    }
    c->rank[c->nrank++] = f;
    s->all[s->nall++] = f;
    return 0;
}

static int m_clock(struct rconn *c, struct rbuf *b)
{
    struct lf *f = rank_of(c, b);
    uint64_t kind = rb_uv(b), t0 = rb_uv(b);
    int64_t n0 = rb_sv(b);
    uint64_t t1 = rb_uv(b);
    int64_t n1 = rb_sv(b);
    if (!f || b->err || (kind != 1 && kind != 2)) return -1;
    struct ml_header *h = lf_remote_hdr(f);
    h->clock_kind = (uint32_t)kind;
    h->anchor0_ticks = t0;
    h->anchor0_ns = n0;
    h->anchor1_ticks = t1;
    h->anchor1_ns = n1;
    return 0;
}

static int m_site(struct rconn *c, struct rbuf *b)
{
    uint64_t id = rb_uv(b), mh = rb_u64(b), off = rb_uv(b);
    char text[512];
    rb_str(b, text, sizeof text);
    if (b->err || id == 0 || id >= MAX_SITE_ID) return -1;
    if (id >= c->nsite) {
        unsigned n = (unsigned)id + 256;
        uint32_t *p = realloc(c->site, n * sizeof *p);
        if (!p) return -1;
        memset(p + c->nsite, 0, (n - c->nsite) * sizeof *p);
        c->site = p;
        c->nsite = n;
    }
    c->site[id] = lf_site_remote(mh, off, text);
    return 0;
}

static int m_comm(struct rconn *c, struct rbuf *b)
{
    struct lf *f = rank_of(c, b);
    uint64_t index = rb_uv(b), size = rb_uv(b), rsize = rb_uv(b), flags = rb_uv(b), gid = rb_u64(b);
    uint64_t mode = rb_uv(b);
    if (!f || b->err || index >= ML_COMM_NONE || size > (1 << 24) || rsize > (1 << 24) || flags > 3) return -1;
    if (mode == 0) {
        if (!(flags & 2)) return 0;          /* members unknown: left undefined */
        lf_remote_comm(f, (uint32_t)index, (uint32_t)size, (uint32_t)rsize, (uint32_t)flags, gid, NULL, 0);
        return 0;
    }
    if (flags & 2) return -1;
    uint64_t n = size + rsize;
    if (mode == 2) {
        for (unsigned i = 0; i < c->nmem; i++)
            if (c->mem[i].gid == gid) {
                if (c->mem[i].n != n) return -1;
                lf_remote_comm(f, (uint32_t)index, (uint32_t)size, (uint32_t)rsize, (uint32_t)flags, gid,
                               c->mem[i].m, c->mem[i].n);
                return 0;
            }
        return -1;
    }
    if (mode != 1 || n > b->n - b->o) return -1;   /* at least one byte per member */
    int32_t *m = malloc((n ? n : 1) * sizeof *m);
    if (!m) return -1;
    int64_t prev = 0;
    for (uint64_t i = 0; i < n; i++) {
        int64_t v = prev + rb_sv(b);
        if (v < -1 || v >= (1 << 24)) b->err = 1;
        m[i] = (int32_t)v;
        prev = v;
    }
    if (b->err) {
        free(m);
        return -1;
    }
    lf_remote_comm(f, (uint32_t)index, (uint32_t)size, (uint32_t)rsize, (uint32_t)flags, gid, m, (unsigned)n);
    struct members *p = realloc(c->mem, (c->nmem + 1) * sizeof *p);
    if (!p) {
        free(m);
        return 0;
    }
    c->mem = p;
    c->mem[c->nmem].gid = gid;
    c->mem[c->nmem].m = m;
    c->mem[c->nmem++].n = (unsigned)n;
    return 0;
}

static int m_frame(struct rconn *c, struct rbuf *b, int64_t now)
{
    uint64_t agent_now = rb_uv(b), nupd = rb_uv(b);
    if (b->err) return -1;
    /* this host's monotonic clock minus the agent's: the smallest difference
     * seen (the least delayed frame), allowed to creep up 100 us/s for drift */
    int64_t sample = now - (int64_t)agent_now;
    if (!c->off_set || sample < c->clock_off ||
        (now - c->off_t > 1000000000 && sample > c->clock_off + (now - c->off_t) / 10000)) {
        int64_t off = c->off_set && sample > c->clock_off ? c->clock_off + (now - c->off_t) / 10000 : sample;
        c->clock_off = off;
        c->off_set = 1;
        c->off_t = now;
        for (unsigned i = 0; i < c->nrank; i++) lf_remote_clock(c->rank[i], off);
    }
    int64_t prev = -1;
    for (uint64_t k = 0; k < nupd; k++) {
        uint64_t d = rb_uv(b);
        if (b->err || d >= c->nrank || (uint64_t)(prev + 1) + d >= c->nrank) return -1;
        int64_t id = prev + 1 + (int64_t)d;
        prev = id;
        struct lf *f = c->rank[id];
        struct ml_header *h = lf_remote_hdr(f);
        uint64_t mask = rb_uv(b);
        if (mask & ~(uint64_t)31) return -1;
        if (mask & MSR_STATE) {
            h->state = (int32_t)rb_sv(b);
            h->exit_status = (int32_t)rb_sv(b);
        }
        if (mask & MSR_NTHREADS) {
            uint64_t nt = rb_uv(b);
            if (nt > ML_MAX_THREADS) return -1;
            h->nthreads = (uint32_t)nt;
            if (nt && !lf_remote_slot(f, (unsigned)nt - 1)) return -1;
            lf_remote_set_reqs(f, NULL);
        }
        if (mask & MSR_FAILURE) {
            h->failure.kind = (uint32_t)rb_uv(b);
            h->failure.signo = (int32_t)rb_sv(b);
            h->failure.code = (int32_t)rb_sv(b);
            h->failure.flags = (uint16_t)rb_uv(b);
        }
        if (mask & MSR_GONE) {
            uint64_t g = rb_uv(b);
            if (g > 1) return -1;
            lf_remote_set_state(f, g ? LF_REMOTE_GONE : c->stale ? LF_REMOTE_STALE : LF_REMOTE_LIVE);
        }
        if (mask & MSR_THREADS) {
            uint64_t nt = rb_uv(b);
            if (b->err || nt > ML_MAX_THREADS) return -1;
            for (uint64_t j = 0; j < nt; j++) {
                uint64_t i = rb_uv(b), m = rb_uv(b);
                if (b->err || i >= ML_MAX_THREADS || (m & ~(uint64_t)0x1fff)) return -1;
                struct ml_live *l = lf_remote_slot(f, (unsigned)i);
                if (!l) return -1;
                if (m & MSF_SEQ) l->seq += (uint32_t)rb_uv(b);
                if (m & MSF_ROUTINE) l->routine = (uint16_t)rb_uv(b);
                if (m & MSF_USED) l->used = (uint8_t)rb_uv(b);
                if (m & MSF_SITE) {
                    uint64_t sid = rb_uv(b);
                    l->site = sid && sid < c->nsite ? c->site[sid] : 0;
                }
                if (m & MSF_PEER) l->peer = (int32_t)rb_sv(b);
                if (m & MSF_TAG) l->tag = (int32_t)rb_sv(b);
                if (m & MSF_COMM) l->comm = (uint32_t)rb_uv(b);
                if (m & MSF_TSTART) l->t_start += (uint64_t)rb_sv(b);
                if (m & MSF_TEND) l->t_end += (uint64_t)rb_sv(b);
                if (m & MSF_AUX) l->aux += (uint64_t)rb_sv(b);
                if (m & MSF_TID) l->tid = rb_uv(b);
                if (m & MSF_TIDLE) l->t_idle += (uint64_t)rb_sv(b);
                if (m & MSF_WORK) l->work = (uint8_t)rb_uv(b);
                /* something completed: the requests sent for the old state are not the rank's now */
                if (m & MSF_TEND) lf_remote_set_reqs(f, NULL);
            }
        }
        if (b->err) return -1;
    }
    return 0;
}

static int m_reqs(struct rconn *c, struct rbuf *b)
{
    struct lf *f = rank_of(c, b);
    if (!f) return -1;
    struct dl_reqs *q = calloc(1, sizeof *q);
    if (!q) return -1;
    uint64_t nnb = rb_uv(b);
    if (b->err || nnb > (1u << 16) || nnb > b->n - b->o) goto bad;
    if (nnb) {
        q->nb = calloc(nnb, sizeof *q->nb);
        if (!q->nb) goto bad;
        for (uint64_t i = 0; i < nnb; i++) {
            q->nb[i].comm = (uint32_t)rb_uv(b);
            q->nb[i].seq = rb_uv(b);
        }
        q->nnb = (unsigned)nnb;
    }
    uint64_t n = rb_uv(b);
    if (b->err || n > (1u << 16) || n > b->n - b->o) goto bad;
    if (n) {
        q->r = calloc(n, sizeof *q->r);
        if (!q->r) goto bad;
        q->cap = (unsigned)n;
        for (uint64_t i = 0; i < n; i++) {
            struct dl_req *r = &q->r[i];
            r->handle = rb_uv(b);
            uint64_t th = rb_uv(b), fl = rb_uv(b);
            r->thread = th < ML_MAX_THREADS ? (unsigned)th : ML_MAX_THREADS;
            r->send = fl & 1;
            r->persistent = (fl >> 1) & 1;
            r->coll = (fl >> 3) & 1;
            r->active = 1;
            r->seq = rb_uv(b);
            r->comm = (uint32_t)rb_uv(b);
            r->peer = (int32_t)rb_sv(b);
            r->tag = (int32_t)rb_sv(b);
            rb_str(b, r->site, sizeof r->site);
            rb_str(b, r->routine, sizeof r->routine);
        }
        q->n = (unsigned)n;
    }
    /* requests the trace does not describe (an agent that does not say: assume some) */
    q->undescribed = b->o < b->n ? (int)rb_uv(b) : 1;
    if (b->err) goto bad;
    lf_remote_set_reqs(f, q);
    return 0;
bad:
    dl_reqs_free(q);
    free(q);
    return -1;
}

static int apply(struct rsrv *s, struct rconn *c, uint8_t type, const uint8_t *body, size_t n, int64_t now)
{
    struct rbuf b = {body, n, 0, 0};
    int rc;
    switch (type) {
    case MS_INFO: rc = m_info(c, &b); break;
    case MS_NAMES: rc = m_names(c, &b); break;
    case MS_RANK: rc = m_rank(s, c, &b); break;
    case MS_CLOCK: rc = m_clock(c, &b); break;
    case MS_SITE: rc = m_site(c, &b); break;
    case MS_COMM: rc = m_comm(c, &b); break;
    case MS_FRAME: rc = m_frame(c, &b, now); break;
    case MS_REQS: rc = m_reqs(c, &b); break;
    case MS_BYE: c->bye = 1; rc = 0; break;
    default: rc = 0; break;              /* unknown types are skipped (later versions) */
    }
    if (rc == 0 && b.err) rc = -1;
    return rc;
}

struct rconn *rs_test_conn(struct rsrv *s)
{
    struct rconn *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    struct rconn **p = realloc(s->c, (s->nc + 1) * sizeof *p);
    if (!p) {
        free(c);
        return NULL;
    }
    s->c = p;
    s->c[s->nc++] = c;
    c->fd = -1;
    c->test = 1;
    c->state = ST_STREAM;
    c->interval_ns = 1000000000;
    snprintf(c->peer, sizeof c->peer, "test");
    return c;
}

int rs_test_msg(struct rsrv *s, struct rconn *c, uint8_t type, const uint8_t *body, size_t n)
{
    if (c->state != ST_STREAM) return -1;
    int rc = apply(s, c, type, body, n, mono_ns());
    if (rc) c->state = ST_CLOSED;
    return rc;
}

unsigned rs_stop(struct rsrv *s, unsigned *agents)
{
    unsigned n = 0, na = 0;
    struct wbuf out = {0};
    for (unsigned i = 0; i < s->nc; i++) {
        struct rconn *c = s->c[i];
        if (c->state != ST_STREAM || c->test || c->fd < 0) continue;
        wb_reset(&out);
        ms_seal(&c->sess, MS_STOP, NULL, 0, &out);
        if (out.err || ms_send_all(c->fd, out.p, out.n) != 0) continue;
        na++;
        for (unsigned k = 0; k < c->nrank; k++) {
            int st = lf_hdr(c->rank[k])->state;
            if (st != ML_STATE_FINALIZED && st != ML_STATE_EXITED && lf_remote_state(c->rank[k]) != LF_REMOTE_GONE)
                n++;
        }
    }
    wb_free(&out);
    if (agents) *agents = na;
    return n;
}

/* ---- the sockets ------------------------------------------------------------ */

static void accept_all(struct rsrv *s, int64_t now)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(s->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        char peer[80] = "?";
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *)&ss;
            char ip[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
            snprintf(peer, sizeof peer, "%s:%d", ip, ntohs(a->sin_port));
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
            char ip[INET6_ADDRSTRLEN];
            inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
            snprintf(peer, sizeof peer, "[%s]:%d", ip, ntohs(a->sin6_port));
        }
        unsigned pending = 0, open = 0;
        for (unsigned i = 0; i < s->nc; i++) {
            pending += s->c[i]->state == HS_HELLO || s->c[i]->state == HS_PROOF;
            open += s->c[i]->state != ST_CLOSED;
        }
        struct rconn *c = NULL;
        struct rconn **p = NULL;
        if (pending >= 64 || open >= MAX_CONNS || !(c = calloc(1, sizeof *c)) ||
            !(p = realloc(s->c, (s->nc + 1) * sizeof *p))) {
            free(c);
            close(fd);
            say(s, "refused a connection from %s: too many connections%s", peer, "");
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        s->c = p;
        s->c[s->nc++] = c;
        c->fd = fd;
        c->state = HS_HELLO;
        c->t_open = c->t_last = now;
        c->interval_ns = 1000000000;
        snprintf(c->peer, sizeof c->peer, "%s", peer);
    }
}

static int need(struct rconn *c, size_t n)
{
    if (c->cap >= n) return 0;
    size_t cap = c->cap ? c->cap : 4096;
    while (cap < n) cap *= 2;
    uint8_t *p = realloc(c->buf, cap);
    if (!p) return -1;
    c->buf = p;
    c->cap = cap;
    return 0;
}

static void consume(struct rconn *c, size_t k)
{
    memmove(c->buf, c->buf + k, c->n - k);
    c->n -= k;
}

/* What can be done with the bytes received so far. */
static void process(struct rsrv *s, struct rconn *c, int64_t now)
{
    for (;;) {
        if (c->state == HS_HELLO) {
            if (c->n < MS_HELLO_LEN) return;
            unsigned v = 0;
            int rc = ms_hello_check(c->buf, &v, c->na);
            uint8_t hello[MS_HELLO_LEN];
            ms_nonce(c->nf);
            ms_hello(hello, c->nf);
            if (rc == -1) {
                conn_close(s, c, "refused a connection that is not an mpilens agent from");
                return;
            }
            ms_send_all(c->fd, hello, sizeof hello);  /* also on a version mismatch: the agent says it */
            if (rc == -2) {
                char why[120];
                snprintf(why, sizeof why, "refused an agent speaking stream version %u (this is version %d) from",
                         v, MS_VERSION);
                conn_close(s, c, why);
                return;
            }
            consume(c, MS_HELLO_LEN);
            c->state = HS_PROOF;
        } else if (c->state == HS_PROOF) {
            if (c->n < MS_PROOF_LEN) return;
            uint8_t want[MS_PROOF_LEN];
            ms_proof(s->secret, "agent", c->na, c->nf, want);
            if (ct_memcmp(want, c->buf, MS_PROOF_LEN) != 0) {
                conn_close(s, c, "rejected a connection: authentication failed (wrong secret), from");
                return;
            }
            consume(c, MS_PROOF_LEN);
            ms_proof(s->secret, "front", c->na, c->nf, want);
            if (ms_send_all(c->fd, want, sizeof want) != 0) {
                conn_close(s, c, "lost a connection during authentication:");
                return;
            }
            ms_session(&c->sess, s->secret, c->na, c->nf, 0);
            c->state = ST_STREAM;
            c->t_last = now;
            s->ever++;
        } else if (c->state == ST_STREAM) {
            if (c->n < 4) return;
            uint32_t L = (uint32_t)c->buf[0] | (uint32_t)c->buf[1] << 8 | (uint32_t)c->buf[2] << 16 |
                         (uint32_t)c->buf[3] << 24;
            if (L == 0 || L > MS_MAX_MSG) {
                conn_close(s, c, "dropped the stream (an oversized or empty message) of");
                return;
            }
            size_t tot = 4 + (size_t)L + MS_TAG;
            if (c->n < tot) {
                if (need(c, tot)) conn_close(s, c, "dropped the stream (out of memory) of");
                return;
            }
            if (ms_verify(&c->sess, c->buf, tot) != 0) {
                conn_close(s, c, "rejected a message that failed its authentication tag (forged, replayed or "
                                 "corrupted), closed the stream of");
                return;
            }
            if (apply(s, c, c->buf[4], c->buf + 5, L - 1, now) != 0) {
                char why[80];
                snprintf(why, sizeof why, "dropped the stream (a malformed message of type %u) of", c->buf[4]);
                conn_close(s, c, why);
                return;
            }
            consume(c, tot);
            c->t_last = now;
            if (c->stale) mark_stale(c, 0);
        } else {
            return;
        }
    }
}

static void read_conn(struct rsrv *s, struct rconn *c, int64_t now)
{
    for (;;) {
        if (need(c, c->n + 65536)) {
            conn_close(s, c, "dropped the stream (out of memory) of");
            return;
        }
        ssize_t k = recv(c->fd, c->buf + c->n, c->cap - c->n, 0);
        if (k > 0) {
            c->n += (size_t)k;
            process(s, c, now);
            if (c->state == ST_CLOSED) return;
            continue;
        }
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
        /* closed */
        if (c->state == ST_STREAM) conn_close(s, c, NULL);
        else if (c->state == HS_PROOF)
            conn_close(s, c, "a connection closed during authentication (the agent refused our proof?):");
        else conn_close(s, c, NULL);
        return;
    }
}

void rs_poll(struct rsrv *s, int timeout_ms)
{
    struct pollfd *pf = malloc((s->nc + 1) * sizeof *pf);
    unsigned *ix = malloc((s->nc + 1) * sizeof *ix);
    if (!pf || !ix) {
        free(pf);
        free(ix);
        return;
    }
    unsigned n = 0;
    if (s->lfd >= 0) {
        pf[n].fd = s->lfd;
        pf[n].events = POLLIN;
        pf[n].revents = 0;
        ix[n++] = (unsigned)-1;
    }
    for (unsigned i = 0; i < s->nc; i++) {
        if (s->c[i]->fd < 0 || s->c[i]->state == ST_CLOSED) continue;
        pf[n].fd = s->c[i]->fd;
        pf[n].events = POLLIN;
        pf[n].revents = 0;
        ix[n++] = i;
    }
    int r = n ? poll(pf, n, timeout_ms) : 0;
    if (!n && timeout_ms > 0) {
        struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
    }
    int64_t now = mono_ns();
    for (unsigned k = 0; r > 0 && k < n; k++) {
        if (!pf[k].revents) continue;
        if (ix[k] == (unsigned)-1) accept_all(s, now);
        else read_conn(s, s->c[ix[k]], now);
    }
    free(pf);
    free(ix);
    /* handshakes that take too long; streams gone silent */
    for (unsigned i = 0; i < s->nc; i++) {
        struct rconn *c = s->c[i];
        if ((c->state == HS_HELLO || c->state == HS_PROOF) && now - c->t_open > 10000000000ll)
            conn_close(s, c, "dropped a connection that did not authenticate within 10 s:");
        if (c->state == ST_STREAM && !c->test && !c->stale && !c->bye &&
            now - c->t_last > 3 * c->interval_ns + 2000000000ll) {
            char who[200], rt[240];
            mark_stale(c, 1);
            snprintf(who, sizeof who, "the stream of the agent on %s (%s) went silent:", c->host[0] ? c->host : "?",
                     c->peer);
            ranks_text(c, rt, sizeof rt);
            say(s, "%s its %s are stale until it resumes", who, rt);
        }
    }
    /* forget closed connections without ranks */
    unsigned k = 0;
    for (unsigned i = 0; i < s->nc; i++) {
        if (s->c[i]->state == ST_CLOSED && !s->c[i]->nrank) conn_free(s->c[i]);
        else s->c[k++] = s->c[i];
    }
    s->nc = k;
}
