/*
 * profile.c — where the MPI time goes (analysis.h, "profile"): calls, time
 * and bytes per routine, per call site and per rank, the imbalance across
 * ranks, the sizes of the messages and the collective instances.
 *
 * Definitions (docs/REPORT.md says the same to users):
 *  - time of a call: its own duration on its rank's clock;
 *  - bytes of a call: what it sends when it starts a send (Send, Isend,
 *    Start of a send request, the send half of Sendrecv), what it receives
 *    when it completes a receive (Recv, the Wait/Test that completes an
 *    Irecv, the receive half of Sendrecv), both directions for collectives,
 *    count x type size for the MPI_File read/write family, the origin's
 *    count x type size for one-sided calls (MPI_Put, MPI_Get, ...);
 *  - application time of a rank: from the end of MPI_Init to the start of
 *    MPI_Finalize (or its first to its last call when one is missing);
 *    MPI time: the calls in that window other than MPI_Init/MPI_Finalize,
 *    summed over the rank's threads.
 *
 *  - per call site and rank: calls, shortest / mean / longest call, time,
 *    and that time in % of the rank's application time (App%) and MPI
 *    time (MPI%); across the ranks that called it: the smallest, mean and
 *    largest per-rank time and their coefficient of variation (standard
 *    deviation / mean);
 *  - communication matrix: matched point-to-point messages and bytes (as
 *    sent) per sender and receiver; collectives apart, per rank: calls and
 *    the bytes its buffers sent and received by its role (an_coll_bytes).
 *
 * Memory: per rank, one counter set per routine and per call site used;
 * one counter pair per sender-receiver pair that exchanged messages.
 */
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

struct site_ent {
    uint64_t key;                /* site << 16 | name, +1 so 0 means empty */
    struct an_stat st;
};

struct io_ent {                  /* one MPI_File_open (or a handle seen without it) */
    uint64_t file;
    uint32_t site;               /* of the open; 0 unknown */
    char *name;                  /* given to the open, or NULL */
    char *where;                 /* the open's site named by the rank's owner (an_profile_unpack), or NULL */
    struct an_io_prof st;
};

struct named_site {              /* a call site of a rank read by another process (an_profile_unpack) */
    char *where;
    uint16_t name;
    struct an_stat st;
};

struct rprof {
    uint16_t *slot;              /* per routine name: index + 1 in st, 0 unused */
    struct an_stat *st;
    unsigned nst, capst;
    struct site_ent *sites;
    unsigned nsites, capsites;
    int64_t first, last;         /* local start of first call, end of last */
    int64_t init_end, fin_start; /* local; INT64_MIN/MAX when absent */
    int64_t mpi_all, mpi_before, mpi_after; /* mpi time: all, before init end, after fin start */
    int64_t init, fin;
    uint64_t calls, unfinished, estimated;
    unsigned threads;
    int seen;
    uint64_t coll_calls, coll_sent, coll_recv;
    struct io_ent *io;
    unsigned nio, capio;
    struct named_site *ns;       /* instead of sites: named by their owner, in its table's order */
    unsigned nns;
};

struct pair_ent {                /* communication matrix cell; key 0 = empty */
    uint64_t key;                /* (src << 32 | dst) + 1 */
    uint64_t messages, bytes;
};

struct an_profile {
    struct an_run *run;
    struct rprof *rp;
    struct an_rank_prof *ranks;
    struct an_routine_prof *routines;
    unsigned nroutines;
    struct an_site_prof *sites;
    unsigned nsites;
    struct an_io_prof *io;       /* at finish: by open site, then rank */
    unsigned nio;
    struct an_coll_prof *colls;  /* per routine name, compacted at finish */
    struct pair_ent *pairs;      /* hash table while reading */
    unsigned npairs, cappairs;
    struct an_pair *matrix;      /* compacted at finish */
    unsigned ncolls;
    uint64_t sz_count[AN_SIZE_BUCKETS], sz_bytes[AN_SIZE_BUCKETS];
    uint64_t events;
    uint64_t calls;            /* events + their repeats (REPEAT) */
    int64_t first, last;
    uint16_t init_name, fin_name;
};

struct an_profile *an_profile_new(struct an_run *run)
{
    struct an_profile *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->run = run;
    p->rp = calloc(run->n ? run->n : 1, sizeof *p->rp);
    p->colls = calloc(run->nnames ? run->nnames : 1, sizeof *p->colls);
    if (!p->rp || !p->colls) {
        an_profile_free(p);
        return NULL;
    }
    for (unsigned i = 0; i < run->n; i++) {
        struct rprof *r = &p->rp[i];
        r->slot = calloc(run->nnames ? run->nnames : 1, sizeof *r->slot);
        r->first = INT64_MAX;
        r->last = INT64_MIN;
        r->init_end = INT64_MIN;
        r->fin_start = INT64_MAX;
    }
    p->first = INT64_MAX;
    p->last = INT64_MIN;
    return p;
}

/* lo, hi: the shortest and longest of the n calls, as far as known */
static inline void stat_add(struct an_stat *s, uint64_t n, int64_t total, int64_t lo, int64_t hi, uint64_t bytes)
{
    if (!s->calls || lo < s->min) s->min = lo;
    s->calls += n;
    s->total = an_sadd(s->total, total);
    if (hi > s->max) s->max = hi;
    s->bytes += bytes;
}

static struct an_stat *routine_stat(struct rprof *r, uint16_t name)
{
    if (!r->slot) return NULL;
    if (r->slot[name]) return &r->st[r->slot[name] - 1];
    if (r->nst == r->capst) {
        unsigned cap = r->capst ? r->capst * 2 : 32;
        struct an_stat *s = realloc(r->st, cap * sizeof *s);
        if (!s) return NULL;
        r->st = s;
        r->capst = cap;
    }
    memset(&r->st[r->nst], 0, sizeof *r->st);
    r->slot[name] = (uint16_t)++r->nst;
    return &r->st[r->nst - 1];
}

static struct an_stat *site_stat(struct rprof *r, uint32_t site, uint16_t name)
{
    uint64_t key = ((uint64_t)site << 16 | name) + 1;
    if ((r->nsites + 1) * 2 > r->capsites) {
        unsigned cap = r->capsites ? r->capsites * 2 : 64;
        struct site_ent *t = calloc(cap, sizeof *t);
        if (!t) return NULL;
        for (unsigned i = 0; i < r->capsites; i++) {
            if (!r->sites[i].key) continue;
            unsigned k = (unsigned)((r->sites[i].key * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
            while (t[k].key) k = (k + 1) & (cap - 1);
            t[k] = r->sites[i];
        }
        free(r->sites);
        r->sites = t;
        r->capsites = cap;
    }
    unsigned k = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 40) & (r->capsites - 1);
    while (r->sites[k].key && r->sites[k].key != key) k = (k + 1) & (r->capsites - 1);
    if (!r->sites[k].key) {
        r->sites[k].key = key;
        r->nsites++;
    }
    return &r->sites[k].st;
}

/* The entry of handle `file` (the latest open of it), or a new one. */
static struct an_io_prof *io_stat(struct rprof *r, uint64_t file, uint32_t site, int open, const char *name)
{
    if (!open)
        for (unsigned i = r->nio; i-- > 0;)
            if (r->io[i].file == file) return &r->io[i].st;
    if (r->nio == r->capio) {
        unsigned cap = r->capio ? r->capio * 2 : 8;
        struct io_ent *t = realloc(r->io, cap * sizeof *t);
        if (!t) return NULL;
        r->io = t;
        r->capio = cap;
    }
    struct io_ent *e = &r->io[r->nio++];
    memset(e, 0, sizeof *e);
    e->file = file;
    e->site = open ? site : 0;
    e->name = open && name ? strdup(name) : NULL;
    return &e->st;
}

static void on_event(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    struct an_profile *p = ctx;
    const struct an_rank *rk = e->r;
    struct rprof *r = &p->rp[rk - p->run->ranks];
    const struct mlr_event *ev = &e->ev;
    uint16_t name = ev->routine < rk->nroutines ? rk->name[ev->routine] : 0;
    int role = ev->routine < rk->nroutines ? rk->role[ev->routine] : AN_OTHER;
    int64_t dur = an_wsub(ev->end_ns, ev->start_ns);
    if (dur < 0) dur = 0;
    /* a run of equal unsuccessful polls (REPEAT): 1 + repeat calls, their
     * time inside the calls as recorded; a 16-byte REPEAT does not say it:
     * each repeat is taken to last as long as the first, but together no
     * longer than the span from the first call's end to the last one's
     * (docs/REPORT.md, "Repeated polls") */
    uint64_t n = 1 + (uint64_t)ev->repeat;
    uint32_t estimated = 0;
    int64_t total = dur, lo = dur, hi = dur;
    if (ev->repeat) {
        int64_t rep = an_repeat_ns(ev);
        if (ev->repeat_busy_ns < 0) estimated = ev->repeat;
        total = an_sadd(dur, rep);
        /* the repeats' mean: their longest lasted that long at least,
         * their shortest at most (the first call alone as the longest and
         * shortest made a mean above the max: 31 us in one repeated
         * MPI_Test after a 2 us first call, 'mean 3.7 us, max 2.1 us') */
        int64_t mean = rep / (int64_t)ev->repeat;
        if (mean > hi) hi = mean;
        if (mean < lo) lo = mean;
    }
    uint64_t bytes = 0;
    if (ev->type == ML_REC_COLL && !(role == AN_COLL_INIT && ev->request)) {
        /* (a persistent collective's init moves nothing: each start of it
         * counts, below, as the collective it performs) */
        bytes = (uint64_t)ev->coll.bytes + ev->coll.rbytes;
        uint64_t cs, cr;
        an_coll_bytes(p->run, rk, name < p->run->nnames ? p->run->names[name] : "", &ev->coll, &cs, &cr);
        r->coll_calls++;
        r->coll_sent += cs;
        r->coll_recv += cr;
    }
    if (ev->type == ML_REC_IO && !ev->unfinished) {
        int open = !!(ev->io.flags & ML_IO_OPEN);
        if (!open || ev->io.file) {
            struct an_io_prof *io = io_stat(r, ev->io.file, ev->site, open, ev->io_name);
            if (io) {
                io->opens += open;
                if (ev->io.flags & ML_IO_READ) {
                    io->reads += n;
                    io->rbytes += n * ev->io.bytes;
                } else if (ev->io.flags & ML_IO_WRITE) {
                    io->writes += n;
                    io->wbytes += n * ev->io.bytes;
                }
            }
        }
        if (!open) bytes = ev->io.bytes;
    }
    if (role == AN_RMA && ev->type == ML_REC_P2P && !ev->unfinished && ev->p2p[0].peer != rk->proc_null)
        bytes = ev->p2p[0].bytes;   /* one-sided: the origin bytes, put or got (never matched);
                                     * none to MPI_PROC_NULL, as for point-to-point */
    for (unsigned i = 0; i < nops; i++) {
        uint8_t k = ops[i].kind;
        if (k == AN_OP_SEND || k == AN_OP_ISEND || k == AN_OP_RECV || k == AN_OP_RECV_DONE) bytes += ops[i].bytes;
        if (k == AN_OP_COLL_START) {
            uint64_t cs, cr;
            bytes += (uint64_t)ops[i].coll.bytes + ops[i].coll.rbytes;
            an_coll_bytes(p->run, rk, ops[i].name < p->run->nnames ? p->run->names[ops[i].name] : "", &ops[i].coll,
                          &cs, &cr);
            r->coll_calls++;
            r->coll_sent += cs;
            r->coll_recv += cr;
        }
    }
    p->events++;
    p->calls += n;
    r->seen = 1;
    r->calls += n;
    if (ev->thread + 1 > r->threads) r->threads = ev->thread + 1;
    if (ev->start_ns < r->first) r->first = ev->start_ns;
    if (ev->end_ns > r->last) r->last = ev->end_ns;
    if (ev->repeat_end_ns > r->last) r->last = ev->repeat_end_ns;
    if (e->t0 < p->first) p->first = e->t0;
    if (e->t1 > p->last) p->last = e->t1;
    if (role == AN_INIT) {
        r->init = an_sadd(r->init, dur);
        if (ev->end_ns > r->init_end) r->init_end = ev->end_ns;
    } else if (role == AN_FINALIZE) {
        r->fin = an_sadd(r->fin, dur);
        if (ev->start_ns < r->fin_start) r->fin_start = ev->start_ns;
    } else {
        r->mpi_all = an_sadd(r->mpi_all, total);
        /* calls outside the application window (MPI_Initialized before
         * MPI_Init, ...) are taken out at the end, when the window is known */
        if (r->init_end == INT64_MIN) r->mpi_before = an_sadd(r->mpi_before, total);
        if (ev->start_ns >= r->fin_start) r->mpi_after = an_sadd(r->mpi_after, total);
    }
    if (ev->unfinished) r->unfinished++;
    r->estimated += estimated;
    struct an_stat *s = routine_stat(r, name);
    if (s) {
        stat_add(s, n, total, lo, hi, bytes);
        s->unfinished += ev->unfinished;
        s->estimated += estimated;
    }
    s = site_stat(r, ev->site, name);
    if (s) {
        stat_add(s, n, total, lo, hi, bytes);
        s->unfinished += ev->unfinished;
        s->estimated += estimated;
    }
}

static unsigned size_bucket(uint64_t b)
{
    if (b == 0) return 0;
    unsigned k = 64 - (unsigned)__builtin_clzll(b);   /* b in [2^(k-1), 2^k) */
    return k < AN_SIZE_BUCKETS ? k : AN_SIZE_BUCKETS - 1;
}

static void pair_add(struct an_profile *p, int32_t src, int32_t dst, uint64_t bytes)
{
    if ((p->npairs + 1) * 2 > p->cappairs) {
        unsigned cap = p->cappairs ? p->cappairs * 2 : 256;
        struct pair_ent *t = calloc(cap, sizeof *t);
        if (!t) return;
        for (unsigned i = 0; i < p->cappairs; i++) {
            if (!p->pairs[i].key) continue;
            unsigned k = (unsigned)((p->pairs[i].key * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
            while (t[k].key) k = (k + 1) & (cap - 1);
            t[k] = p->pairs[i];
        }
        free(p->pairs);
        p->pairs = t;
        p->cappairs = cap;
    }
    uint64_t key = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) + 1;
    unsigned k = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 40) & (p->cappairs - 1);
    while (p->pairs[k].key && p->pairs[k].key != key) k = (k + 1) & (p->cappairs - 1);
    if (!p->pairs[k].key) {
        p->pairs[k].key = key;
        p->npairs++;
    }
    p->pairs[k].messages++;
    p->pairs[k].bytes += bytes;
}

static void on_message(void *ctx, const struct an_msg *m)
{
    struct an_profile *p = ctx;
    unsigned b = size_bucket(m->bytes);
    p->sz_count[b]++;
    p->sz_bytes[b] += m->bytes;
    if (m->src >= 0 && m->dst >= 0) pair_add(p, m->src, m->dst, m->bytes);
}

static void on_coll(void *ctx, const struct an_coll *c)
{
    struct an_profile *p = ctx;
    if (c->name >= p->run->nnames) return;
    struct an_coll_prof *cp = &p->colls[c->name];
    cp->name = c->name;
    cp->instances++;
    int64_t skew = an_wsub(c->last, c->first);
    if (skew < 0) skew = 0;
    cp->skew_total = an_sadd(cp->skew_total, skew);
    if (skew > cp->skew_max) cp->skew_max = skew;
    cp->bytes += c->bytes;
}

struct an_sink an_profile_sink(struct an_profile *p)
{
    struct an_sink s = {p, on_event, on_message, on_coll};
    return s;
}

static int routine_cmp(const void *a, const void *b)
{
    const struct an_routine_prof *x = a, *y = b;
    if (x->all.total != y->all.total) return x->all.total > y->all.total ? -1 : 1;
    return x->all.calls > y->all.calls ? -1 : x->all.calls < y->all.calls;
}

static int site_cmp(const void *a, const void *b)
{
    const struct an_site_prof *x = a, *y = b;
    if (x->all.total != y->all.total) return x->all.total > y->all.total ? -1 : 1;
    if (x->all.calls != y->all.calls) return x->all.calls > y->all.calls ? -1 : 1;
    return strcmp(x->where, y->where);
}

static int io_cmp(const void *a, const void *b)
{
    const struct an_io_prof *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (!c) c = strcmp(x->where, y->where);
    if (c) return c;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int coll_cmp(const void *a, const void *b)
{
    const struct an_coll_prof *x = a, *y = b;
    return x->instances > y->instances ? -1 : x->instances < y->instances;
}

/* Square root of v > 0 (Newton; the analysis library needs no libm). */
static double root(double v)
{
    double x = v > 1 ? v : 1;
    for (int i = 0; i < 200; i++) {
        double y = 0.5 * (x + v / x);
        if (y >= x) break;
        x = y;
    }
    return x;
}

static int pair_cmp(const void *a, const void *b)
{
    const struct an_pair *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static void stat_merge(struct an_stat *d, const struct an_stat *s)
{
    if (s->calls && (!d->calls || s->min < d->min)) d->min = s->min;
    d->calls += s->calls;
    d->total = an_sadd(d->total, s->total);
    if (s->max > d->max) d->max = s->max;
    d->bytes += s->bytes;
    d->unfinished += s->unfinished;
    d->estimated += s->estimated;
}

/* A call site as the report names it: file:line, "(unknown)" or site#N. */
static const char *site_where(const struct mlr_file *f, uint32_t site, an_site_namer where, char *buf, size_t n)
{
    const char *w = site == 0 ? "(unknown)" : where && f ? where(f, site, buf, n) : NULL;
    if (!w) {
        snprintf(buf, n, "site#%u", site);
        w = buf;
    }
    return w;
}

int an_profile_finish(struct an_profile *p, an_site_namer where)
{
    struct an_run *run = p->run;
    p->ranks = calloc(run->n ? run->n : 1, sizeof *p->ranks);
    p->routines = calloc(run->nnames ? run->nnames : 1, sizeof *p->routines);
    if (!p->ranks || !p->routines) return -1;
    for (unsigned n = 0; n < run->nnames; n++) {
        p->routines[n].name = (uint16_t)n;
        p->routines[n].rank_min = INT64_MAX;
        p->routines[n].rank_argmax = -1;
    }
    for (unsigned i = 0; i < run->n; i++) {
        struct rprof *r = &p->rp[i];
        struct an_rank_prof *o = &p->ranks[i];
        o->rank = run->ranks[i].rank;
        o->calls = r->calls;
        o->unfinished = r->unfinished;
        o->estimated = r->estimated;
        o->threads = r->threads;
        o->init = r->init;
        o->finalize = r->fin;
        o->finalized = r->fin_start != INT64_MAX;
        o->coll_calls = r->coll_calls;
        o->coll_sent = r->coll_sent;
        o->coll_recv = r->coll_recv;
        if (!r->seen) continue;
        int64_t a = r->init_end != INT64_MIN ? r->init_end : r->first;
        int64_t b = r->fin_start != INT64_MAX ? r->fin_start : r->last;
        o->app = b > a ? an_wsub(b, a) : 0;
        if (o->app < 0) o->app = INT64_MAX;
        /* all three are sums of durations, in [0, INT64_MAX] */
        int64_t outside = an_sadd(r->init_end != INT64_MIN ? r->mpi_before : 0, r->mpi_after);
        o->mpi = r->mpi_all > outside ? r->mpi_all - outside : 0;
        for (unsigned n = 0; r->slot && n < run->nnames; n++) {
            if (!r->slot[n]) continue;
            const struct an_stat *s = &r->st[r->slot[n] - 1];
            struct an_routine_prof *rp = &p->routines[n];
            stat_merge(&rp->all, s);
            rp->nranks++;
            if (s->total < rp->rank_min) rp->rank_min = s->total;
            if (s->total > rp->rank_max || rp->rank_argmax < 0) {
                rp->rank_max = s->total;
                rp->rank_argmax = o->rank;
            }
        }
    }
    /* ranks that never called a routine spent 0 in it */
    unsigned k = 0;
    for (unsigned n = 0; n < run->nnames; n++) {
        struct an_routine_prof *rp = &p->routines[n];
        if (!rp->all.calls) continue;
        if (rp->nranks < run->n) rp->rank_min = 0;
        p->routines[k++] = *rp;
    }
    p->nroutines = k;
    if (p->nroutines) qsort(p->routines, p->nroutines, sizeof *p->routines, routine_cmp);

    /* call sites: name each rank's sites, merge equal names */
    unsigned cap = 0;
    char buf[1024];
    for (unsigned i = 0; i < run->n; i++) {
        struct rprof *r = &p->rp[i];
        unsigned nent = r->ns ? r->nns : r->capsites;
        for (unsigned s = 0; s < nent; s++) {
            const struct site_ent *se = r->ns ? NULL : &r->sites[s];
            const struct an_stat *sst;
            const char *w;
            uint16_t name;
            if (r->ns) {
                w = r->ns[s].where;
                name = r->ns[s].name;
                sst = &r->ns[s].st;
            } else {
                if (!se->key) continue;
                name = (uint16_t)((se->key - 1) & 0xffff);
                w = site_where(run->ranks[i].f, (uint32_t)((se->key - 1) >> 16), where, buf, sizeof buf);
                sst = &se->st;
            }
            unsigned j;
            for (j = 0; j < p->nsites; j++)
                if (p->sites[j].name == name && strcmp(p->sites[j].where, w) == 0) break;
            if (j == p->nsites) {
                if (p->nsites == cap) {
                    cap = cap ? cap * 2 : 64;
                    struct an_site_prof *t = realloc(p->sites, cap * sizeof *t);
                    if (!t) return -1;
                    p->sites = t;
                }
                memset(&p->sites[j], 0, sizeof p->sites[j]);
                p->sites[j].where = strdup(w);
                p->sites[j].name = name;
                if (!p->sites[j].where) return -1;
                p->nsites++;
            }
            struct an_site_prof *sp = &p->sites[j];
            stat_merge(&sp->all, sst);
            /* this rank's share: one entry per rank (its sites of one name merged) */
            if (!sp->nranks || sp->per_rank[sp->nranks - 1].rank != run->ranks[i].rank) {
                struct an_site_rank *t = realloc(sp->per_rank, (sp->nranks + 1) * sizeof *t);
                if (!t) return -1;
                sp->per_rank = t;
                memset(&t[sp->nranks], 0, sizeof *t);
                t[sp->nranks].rank = run->ranks[i].rank;
                sp->nranks++;
            }
            stat_merge(&sp->per_rank[sp->nranks - 1].st, sst);
        }
    }
    /* across ranks: per-rank time, its spread, the shares of App and MPI time */
    int64_t app_all = 0, mpi_all = 0;
    for (unsigned i = 0; i < run->n; i++) {
        app_all = an_sadd(app_all, p->ranks[i].app);
        mpi_all = an_sadd(mpi_all, p->ranks[i].mpi);
    }
    for (unsigned j = 0; j < p->nsites; j++) {
        struct an_site_prof *sp = &p->sites[j];
        double sum = 0, sq = 0;
        sp->rank_min = INT64_MAX;
        sp->rank_max = 0;
        for (unsigned q = 0; q < sp->nranks; q++) {
            struct an_site_rank *x = &sp->per_rank[q];
            int slot = x->rank >= 0 && x->rank < run->size ? run->slot[x->rank] : -1;
            const struct an_rank_prof *o = slot >= 0 ? &p->ranks[slot] : NULL;
            x->app_pct = o && o->app > 0 ? 100.0 * (double)x->st.total / (double)o->app : 0;
            x->mpi_pct = o && o->mpi > 0 ? 100.0 * (double)x->st.total / (double)o->mpi : 0;
            if (x->st.total < sp->rank_min) sp->rank_min = x->st.total;
            if (x->st.total > sp->rank_max) sp->rank_max = x->st.total;
            sum += (double)x->st.total;
            sq += (double)x->st.total * (double)x->st.total;
        }
        if (!sp->nranks) sp->rank_min = 0;
        sp->rank_mean = sp->nranks ? sum / sp->nranks : 0;
        double var = sp->nranks ? sq / sp->nranks - sp->rank_mean * sp->rank_mean : 0;
        sp->rank_cv = sp->rank_mean > 0 && var > 0 ? root(var) / sp->rank_mean : 0;
        sp->app_pct = app_all > 0 ? 100.0 * (double)sp->all.total / (double)app_all : 0;
        sp->mpi_pct = mpi_all > 0 ? 100.0 * (double)sp->all.total / (double)mpi_all : 0;
        int role = sp->name < run->nnames && run->name_role ? run->name_role[sp->name] : AN_OTHER;
        if (role == AN_INIT || role == AN_FINALIZE) {   /* outside the application time: not defined */
            sp->app_pct = sp->mpi_pct = -1;
            for (unsigned q = 0; q < sp->nranks; q++) sp->per_rank[q].app_pct = sp->per_rank[q].mpi_pct = -1;
        }
    }
    if (p->nsites) qsort(p->sites, p->nsites, sizeof *p->sites, site_cmp);

    /* the communication matrix, by sender then receiver */
    p->matrix = calloc(p->npairs ? p->npairs : 1, sizeof *p->matrix);
    if (!p->matrix) return -1;
    k = 0;
    for (unsigned i = 0; i < p->cappairs; i++) {
        const struct pair_ent *e = &p->pairs[i];
        if (!e->key) continue;
        p->matrix[k].src = (int32_t)(uint32_t)((e->key - 1) >> 32);
        p->matrix[k].dst = (int32_t)(uint32_t)(e->key - 1);
        p->matrix[k].messages = e->messages;
        p->matrix[k].bytes = e->bytes;
        k++;
    }
    if (k) qsort(p->matrix, k, sizeof *p->matrix, pair_cmp);
    /* MPI-IO: per rank and open site, merged over the opens there */
    for (unsigned i = 0; i < run->n; i++) {
        struct rprof *r = &p->rp[i];
        for (unsigned e = 0; e < r->nio; e++) {
            const struct io_ent *ie = &r->io[e];
            const char *w = ie->where ? ie->where : site_where(run->ranks[i].f, ie->site, where, buf, sizeof buf);
            const char *nm = ie->name ? ie->name : "(unknown)";
            unsigned j;
            for (j = 0; j < p->nio; j++)
                if (p->io[j].rank == run->ranks[i].rank && strcmp(p->io[j].where, w) == 0 &&
                    strcmp(p->io[j].name, nm) == 0)
                    break;
            if (j == p->nio) {
                struct an_io_prof *t = realloc(p->io, (p->nio + 1) * sizeof *t);
                if (!t) return -1;
                p->io = t;
                memset(&p->io[j], 0, sizeof p->io[j]);
                p->io[j].where = strdup(w);
                p->io[j].name = strdup(nm);
                p->io[j].rank = run->ranks[i].rank;
                if (!p->io[j].where || !p->io[j].name) return -1;
                p->nio++;
            }
            struct an_io_prof *d = &p->io[j];
            d->opens += ie->st.opens;
            d->reads += ie->st.reads;
            d->writes += ie->st.writes;
            d->rbytes += ie->st.rbytes;
            d->wbytes += ie->st.wbytes;
        }
    }
    if (p->nio) qsort(p->io, p->nio, sizeof *p->io, io_cmp);

    k = 0;
    for (unsigned n = 0; n < run->nnames; n++)
        if (p->colls[n].instances) p->colls[k++] = p->colls[n];
    p->ncolls = k;
    if (p->ncolls) qsort(p->colls, p->ncolls, sizeof *p->colls, coll_cmp);
    return 0;
}

void an_profile_free(struct an_profile *p)
{
    if (!p) return;
    for (unsigned i = 0; p->rp && i < p->run->n; i++) {
        free(p->rp[i].slot);
        free(p->rp[i].st);
        free(p->rp[i].sites);
        for (unsigned e = 0; e < p->rp[i].nio; e++) {
            free(p->rp[i].io[e].name);
            free(p->rp[i].io[e].where);
        }
        free(p->rp[i].io);
        for (unsigned e = 0; e < p->rp[i].nns; e++) free(p->rp[i].ns[e].where);
        free(p->rp[i].ns);
    }
    for (unsigned i = 0; i < p->nsites; i++) {
        free(p->sites[i].where);
        free(p->sites[i].per_rank);
    }
    free(p->pairs);
    free(p->matrix);
    for (unsigned i = 0; i < p->nio; i++) {
        free(p->io[i].where);
        free(p->io[i].name);
    }
    free(p->io);
    free(p->rp);
    free(p->ranks);
    free(p->routines);
    free(p->sites);
    free(p->colls);
    free(p);
}

const struct an_rank_prof *an_profile_ranks(const struct an_profile *p, unsigned *n)
{
    *n = p->ranks ? p->run->n : 0;
    return p->ranks;
}

const struct an_routine_prof *an_profile_routines(const struct an_profile *p, unsigned *n)
{
    *n = p->nroutines;
    return p->routines;
}

const struct an_site_prof *an_profile_sites(const struct an_profile *p, unsigned *n)
{
    *n = p->nsites;
    return p->sites;
}

const struct an_pair *an_profile_matrix(const struct an_profile *p, unsigned *n)
{
    *n = p->matrix ? p->npairs : 0;
    return p->matrix;
}

void an_profile_sizes(const struct an_profile *p, uint64_t count[AN_SIZE_BUCKETS], uint64_t bytes[AN_SIZE_BUCKETS])
{
    memcpy(count, p->sz_count, sizeof p->sz_count);
    memcpy(bytes, p->sz_bytes, sizeof p->sz_bytes);
}

const struct an_coll_prof *an_profile_colls(const struct an_profile *p, unsigned *n)
{
    *n = p->ncolls;
    return p->colls;
}

const struct an_io_prof *an_profile_io(const struct an_profile *p, unsigned *n)
{
    *n = p->nio;
    return p->io;
}

uint64_t an_profile_calls(const struct an_profile *p)
{
    return p->calls;
}

uint64_t an_profile_events(const struct an_profile *p)
{
    return p->events;
}

void an_profile_span(const struct an_profile *p, int64_t *first, int64_t *last)
{
    *first = p->first;
    *last = p->last;
}

/* ---- a sliced run: each process's share, merged at process 0 ------------- */

static void pk_put(struct an_buf *b, const void *v, size_t n) { an_buf_put(b, v, n); }

static void pk_u32(struct an_buf *b, uint32_t v) { pk_put(b, &v, sizeof v); }

static void pk_str(struct an_buf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    pk_u32(b, n);
    pk_put(b, s, n);
}

struct rk {                      /* reading one */
    const char *p, *end;
    int bad;
};

static const void *rk_get(struct rk *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return NULL;
    }
    const void *v = r->p;
    r->p += n;
    return v;
}

static uint32_t rk_u32(struct rk *r)
{
    const void *v = rk_get(r, 4);
    uint32_t x = 0;
    if (v) memcpy(&x, v, 4);
    return x;
}

static void rk_into(struct rk *r, void *to, size_t n)
{
    const void *v = rk_get(r, n);
    if (v) memcpy(to, v, n);
    else memset(to, 0, n);
}

static char *rk_str(struct rk *r)
{
    uint32_t n = rk_u32(r);
    const char *v = rk_get(r, n);
    char *s = v ? malloc((size_t)n + 1) : NULL;
    if (s) {
        memcpy(s, v, n);
        s[n] = 0;
    } else {
        r->bad = 1;
    }
    return s;
}

/* The per-rank fields of struct rprof that travel, in this order. */
struct rk_fixed {
    int64_t first, last, init_end, fin_start, mpi_all, mpi_before, mpi_after, init, fin;
    uint64_t calls, unfinished, estimated, coll_calls, coll_sent, coll_recv;
    uint32_t threads;
    int32_t seen;
};

int an_profile_pack(const struct an_profile *p, an_site_namer where, void **out, size_t *len)
{
    const struct an_run *run = p->run;
    struct an_buf b = {0};
    char buf[1024];
    pk_u32(&b, run->n);
    for (unsigned i = 0; i < run->n; i++) {
        const struct rprof *r = &p->rp[i];
        int32_t rank = run->ranks[i].rank;
        pk_put(&b, &rank, sizeof rank);
        struct rk_fixed f = {r->first, r->last, r->init_end, r->fin_start, r->mpi_all, r->mpi_before, r->mpi_after,
                             r->init, r->fin, r->calls, r->unfinished, r->estimated, r->coll_calls, r->coll_sent,
                             r->coll_recv, r->threads, r->seen};
        pk_put(&b, &f, sizeof f);
        pk_u32(&b, r->nst);
        for (unsigned n = 0; r->slot && n < run->nnames; n++) {
            if (!r->slot[n]) continue;
            uint16_t name = (uint16_t)n;
            pk_put(&b, &name, sizeof name);
            pk_put(&b, &r->st[r->slot[n] - 1], sizeof *r->st);
        }
        pk_u32(&b, r->nsites);
        for (unsigned s = 0; s < r->capsites; s++) {   /* in the table's order: the serial merge's */
            const struct site_ent *se = &r->sites[s];
            if (!se->key) continue;
            uint16_t name = (uint16_t)((se->key - 1) & 0xffff);
            pk_put(&b, &name, sizeof name);
            pk_put(&b, &se->st, sizeof se->st);
            pk_str(&b, site_where(run->ranks[i].f, (uint32_t)((se->key - 1) >> 16), where, buf, sizeof buf));
        }
        pk_u32(&b, r->nio);
        for (unsigned e = 0; e < r->nio; e++) {
            const struct io_ent *ie = &r->io[e];
            pk_str(&b, site_where(run->ranks[i].f, ie->site, where, buf, sizeof buf));
            uint32_t has = ie->name != NULL;
            pk_u32(&b, has);
            if (has) pk_str(&b, ie->name);
            pk_put(&b, &ie->st, sizeof ie->st);
        }
    }
    uint32_t nc = 0;
    for (unsigned n = 0; n < run->nnames; n++) nc += p->colls[n].instances != 0;
    pk_u32(&b, nc);
    for (unsigned n = 0; n < run->nnames; n++)
        if (p->colls[n].instances) pk_put(&b, &p->colls[n], sizeof *p->colls);
    pk_u32(&b, p->npairs);
    for (unsigned i = 0; i < p->cappairs; i++)
        if (p->pairs[i].key) pk_put(&b, &p->pairs[i], sizeof *p->pairs);
    pk_put(&b, p->sz_count, sizeof p->sz_count);
    pk_put(&b, p->sz_bytes, sizeof p->sz_bytes);
    int64_t g[4] = {(int64_t)p->events, (int64_t)p->calls, p->first, p->last};
    pk_put(&b, g, sizeof g);
    if (b.oom) {
        free(b.p);
        return -1;
    }
    *out = b.p;
    *len = b.n;
    return 0;
}

/* Add the sender-receiver cell (src, dst): messages and bytes. */
static void pair_addn(struct an_profile *p, uint64_t key, uint64_t messages, uint64_t bytes)
{
    int32_t src = (int32_t)(uint32_t)((key - 1) >> 32), dst = (int32_t)(uint32_t)(key - 1);
    pair_add(p, src, dst, 0);
    unsigned k = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 40) & (p->cappairs - 1);
    while (p->pairs[k].key && p->pairs[k].key != key) k = (k + 1) & (p->cappairs - 1);
    if (p->pairs[k].key != key) return;
    p->pairs[k].messages += messages - 1;   /* pair_add counted one */
    p->pairs[k].bytes += bytes;
}

int an_profile_unpack(struct an_profile *p, const void *buf, size_t len)
{
    struct an_run *run = p->run;
    struct rk r = {buf, (const char *)buf + len, 0};
    uint32_t nr = rk_u32(&r);
    for (uint32_t q = 0; q < nr && !r.bad; q++) {
        int32_t rank;
        rk_into(&r, &rank, sizeof rank);
        if (r.bad || rank < 0 || rank >= run->size || run->slot[rank] < 0) return -1;
        struct rprof *d = &p->rp[run->slot[rank]];
        struct rk_fixed f;
        rk_into(&r, &f, sizeof f);
        d->first = f.first;
        d->last = f.last;
        d->init_end = f.init_end;
        d->fin_start = f.fin_start;
        d->mpi_all = f.mpi_all;
        d->mpi_before = f.mpi_before;
        d->mpi_after = f.mpi_after;
        d->init = f.init;
        d->fin = f.fin;
        d->calls = f.calls;
        d->unfinished = f.unfinished;
        d->estimated = f.estimated;
        d->coll_calls = f.coll_calls;
        d->coll_sent = f.coll_sent;
        d->coll_recv = f.coll_recv;
        d->threads = f.threads;
        d->seen = f.seen;
        uint32_t nst = rk_u32(&r);
        for (uint32_t k = 0; k < nst && !r.bad; k++) {
            uint16_t name;
            rk_into(&r, &name, sizeof name);
            if (name >= run->nnames) return -1;
            struct an_stat *s = routine_stat(d, name);
            if (!s) return -1;
            rk_into(&r, s, sizeof *s);
        }
        uint32_t ns = rk_u32(&r);
        if (r.bad) return -1;
        d->ns = calloc(ns ? ns : 1, sizeof *d->ns);
        if (!d->ns) return -1;
        for (uint32_t k = 0; k < ns && !r.bad; k++) {
            rk_into(&r, &d->ns[k].name, sizeof d->ns[k].name);
            rk_into(&r, &d->ns[k].st, sizeof d->ns[k].st);
            d->ns[k].where = rk_str(&r);
            d->nns = k + 1;
        }
        uint32_t nio = rk_u32(&r);
        for (uint32_t k = 0; k < nio && !r.bad; k++) {
            char *w = rk_str(&r), *nm = rk_u32(&r) ? rk_str(&r) : NULL;
            struct an_io_prof *io = io_stat(d, k + 1, 0, 1, NULL);   /* a new entry */
            if (!io || r.bad) {
                free(w);
                free(nm);
                return -1;
            }
            struct io_ent *ie = &d->io[d->nio - 1];
            ie->where = w;
            ie->name = nm;
            rk_into(&r, io, sizeof *io);
        }
    }
    uint32_t nc = rk_u32(&r);
    for (uint32_t k = 0; k < nc && !r.bad; k++) {
        struct an_coll_prof c;
        rk_into(&r, &c, sizeof c);
        if (r.bad || c.name >= run->nnames) return -1;
        struct an_coll_prof *cp = &p->colls[c.name];
        cp->name = c.name;
        cp->instances += c.instances;
        cp->skew_total = an_sadd(cp->skew_total, c.skew_total);
        if (c.skew_max > cp->skew_max) cp->skew_max = c.skew_max;
        cp->bytes += c.bytes;
    }
    uint32_t np = rk_u32(&r);
    for (uint32_t k = 0; k < np && !r.bad; k++) {
        struct pair_ent e;
        rk_into(&r, &e, sizeof e);
        if (!r.bad && e.key && e.messages) pair_addn(p, e.key, e.messages, e.bytes);
    }
    uint64_t c[AN_SIZE_BUCKETS], by[AN_SIZE_BUCKETS];
    rk_into(&r, c, sizeof c);
    rk_into(&r, by, sizeof by);
    int64_t g[4];
    rk_into(&r, g, sizeof g);
    if (r.bad || r.p != r.end) return -1;
    for (unsigned b = 0; b < AN_SIZE_BUCKETS; b++) {
        p->sz_count[b] += c[b];
        p->sz_bytes[b] += by[b];
    }
    p->events += (uint64_t)g[0];
    p->calls += (uint64_t)g[1];
    if (g[2] < p->first) p->first = g[2];
    if (g[3] > p->last) p->last = g[3];
    return 0;
}
