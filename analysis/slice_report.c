/*
 * slice_report.c — the data of `mpilens report` from a sliced run
 * (docs/PARALLEL.md): each process matches its own ranks' receives (with
 * the sends of other slices shipped to it, an_slice_match) and sums its
 * ranks' profile; the collective instances of communicators that span
 * slices are completed where their arrivals meet (the owner of the
 * communicator's first member); process 0 gathers the sums, the counters
 * and the findings and merges them into what the serial analysis gives.
 *
 * Clocks that need repair are repaired across the slices first
 * (an_slice_repair), and the slices matched and profiled again with the
 * final clocks, as the serial report reads the run again.
 *
 * Where the sliced result could differ from the serial one, it says why
 * (an_slice_report.why) and gives nothing: the caller then analyses the run
 * serially.  Those cases: clocks still to repair after 8 rounds or a
 * violation too large to repair, a successful cancel of a send shipped to
 * another slice, an instance window the serial matcher would overflow,
 * findings beyond the matcher's cap.
 */
#include "analysis.h"
#include "critpath.h"
#include "exchange.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define FINDINGS_MAX 4096            /* match.c's cap */
#define COLL_WINDOW_MAX (1u << 20)   /* match.c's window */

enum { WHY_REPAIR = 1, WHY_CANCEL = 2, WHY_LARGE = 4, WHY_WINDOW = 8, WHY_FINDINGS = 16 };

static const char *why_text(int64_t w)
{
    if (w & WHY_LARGE)
        return "some messages end too long before their send began to be a clock error, and the serial analysis "
               "then repairs the others in its own order";
    if (w & WHY_REPAIR)
        return "the clocks still needed repair after 8 rounds across slices, and where the serial analysis stops "
               "then follows its own order";
    if (w & WHY_CANCEL) return "a send to another slice was cancelled, and whether its receive took it first depends on the serial order";
    if (w & WHY_WINDOW) return "a collective instance stayed incomplete while more than 2^20 later ones were called";
    return "the findings exceed the matcher's cap, which keeps the first ones in the serial order";
}

struct cnt_rec {                     /* a member's collectives called, for its communicator's owner */
    uint32_t comm, pos;
    uint64_t count;
};

/* The process that completes communicator c's instances: the owner of its
 * first member that has a file (-1: no member has one). */
static int comm_owner(const struct an_run *run, const struct an_comm *c)
{
    for (uint32_t k = 0; k < c->size; k++) {
        int w = c->world ? (int)k : c->members ? c->members[k] : -1;
        if (w >= 0 && w < run->size && run->slice->owner[w] >= 0) return run->slice->owner[w];
    }
    return -1;
}

static int part_cmp(const void *a, const void *b)
{
    const struct an_coll_part *x = a, *y = b;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

struct found {                       /* findings of this process, growing */
    struct an_finding *v;
    unsigned n, cap;
};

static int found_add(struct found *f, const struct an_finding *x)
{
    if (f->n == f->cap) {
        unsigned cap = f->cap ? f->cap * 2 : 64;
        struct an_finding *t = realloc(f->v, cap * sizeof *t);
        if (!t) return -1;
        f->v = t;
        f->cap = cap;
    }
    f->v[f->n++] = *x;
    return 0;
}

/* Arrivals q of another slice (or combined ones) into in, as the serial
 * matcher would have counted them all in one instance. */
static void part_merge(struct an_coll_part *in, const struct an_coll_part *q)
{
    /* the other slice's first arrival, then its first of another routine */
    an_coll_arrive(&in->fa, 0, q->fa.t0, q->fa.rank, q->fa.name, q->fa.site);
    if (q->fa.rankb >= 0) an_coll_arrive(&in->fa, 0, q->fa.t0b, q->fa.rankb, q->fa.nameb, q->fa.siteb);
    if (q->first < in->first) in->first = q->first;
    if (q->last > in->last) in->last = q->last;
    if (q->end > in->end) in->end = q->end;
    in->arrived += q->arrived;
    in->bytes += q->bytes;
}

/* ---- a spanning communicator's instances during the read ----------------
 * Each round of a sliced read (analysis/stream.c) brings the owner of a
 * communicator the instances whose members in some slice all called them;
 * the owner combines them and completes, in index order, those every
 * member reached, as the serial window does (an instance is completed only
 * once all earlier ones are).  What is left at the end of the read (an
 * incomplete instance and those after it) goes through colls_complete with
 * the last arrivals. */
struct ccomm {
    struct an_coll_part *w;          /* instances base.., arrived 0: nothing came yet */
    uint64_t base;
    size_t len, cap;
};

struct comb {
    const struct an_run *run;
    const struct an_sink *sink;
    struct ccomm *c;                 /* per communicator */
    uint64_t instances, mismatch;    /* completed here during the read */
    struct found fd;
    int oom;
    size_t held, held_max;           /* instances in the windows */
};

static int comb_owner(void *ctx, uint32_t comm)
{
    const struct comb *cb = ctx;
    return comm_owner(cb->run, &cb->run->comms[comm]);
}

static void comb_emit(struct comb *cb, const struct an_coll_part *in)
{
    if (in->fa.rankb >= 0) {   /* as the serial matcher finds it (match.c coll_mismatch) */
        struct an_finding f;
        an_coll_mismatch(&in->fa, in->comm, in->index, &f);
        cb->mismatch++;
        if (found_add(&cb->fd, &f)) cb->oom = 1;
    }
    cb->instances++;
    if (cb->sink->coll) {
        struct an_coll ac = {in->comm, in->index, in->fa.name, cb->run->comms[in->comm].size, in->first, in->last,
                             in->end, in->bytes};
        cb->sink->coll(cb->sink->ctx, &ac);
    }
}

static void comb_in(void *ctx, const struct an_coll_part *p, size_t n)
{
    struct comb *cb = ctx;
    for (size_t i = 0; i < n && !cb->oom; i++) {
        const struct an_coll_part *q = &p[i];
        if (q->comm >= cb->run->ncomms || q->index < cb->c[q->comm].base) {
            cb->oom = 1;   /* a slice shipped an instance twice: cannot happen */
            break;
        }
        struct ccomm *c = &cb->c[q->comm];
        uint64_t j = q->index - c->base;
        if (j >= c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 16;
            while (cap <= j) cap *= 2;
            struct an_coll_part *t = realloc(c->w, cap * sizeof *t);
            if (!t) {
                cb->oom = 1;
                break;
            }
            memset(t + c->cap, 0, (cap - c->cap) * sizeof *t);
            c->w = t;
            c->cap = cap;
        }
        if (j >= c->len) {
            cb->held += j + 1 - c->len;
            c->len = j + 1;
        }
        if (c->w[j].arrived == 0) c->w[j] = *q;
        else part_merge(&c->w[j], q);
    }
    if (cb->held > cb->held_max) cb->held_max = cb->held;
    /* the instances every member reached, in order, up to the first one not */
    for (unsigned k = 0; k < cb->run->ncomms; k++) {
        struct ccomm *c = &cb->c[k];
        size_t d = 0;
        while (d < c->len && c->w[d].arrived >= cb->run->comms[k].size) comb_emit(cb, &c->w[d++]);
        if (!d) continue;
        memmove(c->w, c->w + d, (c->len - d) * sizeof *c->w);
        memset(c->w + (c->len - d), 0, d * sizeof *c->w);
        c->len -= d;
        c->base += d;
        cb->held -= d;
    }
}

static void comb_reset(struct comb *cb, const struct an_run *run, const struct an_sink *sink)
{
    for (unsigned k = 0; cb->c && k < cb->run->ncomms; k++) free(cb->c[k].w);
    free(cb->c);
    free(cb->fd.v);
    size_t hm = cb->held_max;
    memset(cb, 0, sizeof *cb);
    cb->held_max = hm;
    cb->run = run;
    cb->sink = sink;
    cb->c = calloc(run->ncomms + 1, sizeof *cb->c);
    if (!cb->c) cb->oom = 1;
}

/* The instances of the communicators whose owner this process is, from
 * every slice's arrivals (parts sorted by comm, index): completed ones fed
 * to sink as the serial matcher feeds them, the counters and the findings
 * of incomplete ones as its an_match_finish makes them. */
static int64_t colls_complete(const struct an_run *run, struct an_coll_part *pt, size_t np, const struct cnt_rec *cr,
                              size_t nc, const struct an_sink *sink, struct an_match_stats *st, struct found *fd)
{
    int64_t why = 0;
    uint64_t *count = NULL;
    for (size_t i = 0; i < np;) {
        uint32_t comm = pt[i].comm;
        const struct an_comm *cm = &run->comms[comm];
        free(count);
        count = calloc(cm->size ? cm->size : 1, sizeof *count);
        if (!count) return -1;
        for (size_t k = 0; k < nc; k++)
            if (cr[k].comm == comm && cr[k].pos < cm->size) count[cr[k].pos] += cr[k].count;
        int blocked = 0;
        uint64_t first = 0, incomplete = 0;
        struct an_coll_part inc;
        memset(&inc, 0, sizeof inc);
        while (i < np && pt[i].comm == comm) {
            struct an_coll_part in = pt[i++];
            while (i < np && pt[i].comm == comm && pt[i].index == in.index) part_merge(&in, &pt[i++]);
            if (in.fa.rankb >= 0) {   /* as the serial matcher finds it (match.c coll_mismatch) */
                struct an_finding f;
                an_coll_mismatch(&in.fa, comm, in.index, &f);
                st->coll_mismatch++;
                if (found_add(fd, &f)) {
                    free(count);
                    return -1;
                }
            }
            if (blocked && in.index - first >= COLL_WINDOW_MAX) why |= WHY_WINDOW;
            if (in.arrived >= cm->size) {
                st->coll_instances++;
                /* the serial matcher completes an instance only once all earlier ones are */
                if (!blocked && sink->coll) {
                    struct an_coll ac = {comm, in.index, in.fa.name, cm->size, in.first, in.last, in.end, in.bytes};
                    sink->coll(sink->ctx, &ac);
                }
            } else {
                if (!blocked) {
                    blocked = 1;
                    first = in.index;
                    inc = in;
                }
                incomplete++;
            }
        }
        st->coll_incomplete += incomplete;
        if (!incomplete) continue;
        int32_t missing = -1;
        for (uint32_t p = 0; p < cm->size && missing < 0; p++)
            if (count[p] <= first) missing = cm->world ? (int32_t)p : cm->members[p];
        struct an_finding f;
        memset(&f, 0, sizeof f);
        f.kind = AN_F_COLL_INCOMPLETE;
        f.comm = comm;
        f.rank = missing;
        f.peer = (int32_t)inc.arrived;
        f.name = inc.fa.name;
        f.index = first;
        f.count = incomplete;
        if (found_add(fd, &f)) {
            free(count);
            return -1;
        }
    }
    free(count);
    return why;
}

/* Same key, counts apart (an_finding_same's order). */
static int fkey_cmp(const void *a, const void *b)
{
    const struct an_finding *x = a, *y = b;
#define K(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
    K(kind);
    K(comm);
    K(rank);
    K(peer);
    K(tag);
    K(name);
    K(site);
    K(index);
    K(name2);
#undef K
    return 0;
}

/* The counters that add up over slices, and the largest ones. */
#define SUMS(X)                                                                                                    \
    X(events) X(messages) X(bytes) X(sends) X(recvs) X(unmatched_sends) X(unmatched_send_bytes) X(unmatched_recvs) \
    X(pending_recvs) X(unresolved_recvs) X(proc_null) X(probes) X(coll_calls) X(coll_instances) X(coll_incomplete) \
    X(coll_mismatch) X(untracked_done) X(cancels) X(cancelled_recvs) X(cancelled_sends) X(unfinished) X(repaired)  \
    X(repair_late) X(repair_skipped) X(repairable) X(moved) X(unmatched_unsized)
#define MAXES(X) X(held_max) X(repair_max)

/* The profile's sink, and beside it the hook's for this read (collective). */
static struct an_sink read_sink(struct an_run *run, struct an_profile *prof, const struct an_slice_hook *hook,
                                struct an_tee *tee)
{
    struct an_sink ps = an_profile_sink(prof);
    if (!hook) return ps;
    tee->a = ps;
    tee->b = hook->read(hook->ctx, run);
    return an_tee_sink(tee);
}

int an_slice_report(struct an_run *run, an_site_namer where, an_site_namer site, int progress,
                    struct an_slice_report *out)
{
    return an_slice_report_with(run, where, site, progress, NULL, out);
}

int an_slice_report_with(struct an_run *run, an_site_namer where, an_site_namer site, int progress,
                         const struct an_slice_hook *hook, struct an_slice_report *out)
{
    struct an_slice *sl = run->slice;
    struct an_xch *x = sl->x;
    int P = x->size, me = x->rank;
    memset(out, 0, sizeof *out);
    struct an_profile *prof = an_profile_new(run);
    if (!prof) x->fail(x, "mpilens report: out of memory");
    struct an_tee tee;
    struct an_sink sink = read_sink(run, prof, hook, &tee);
    uint64_t remote = 0, cancels = 0;
    struct an_slice_sends xs;
    memset(&xs, 0, sizeof xs);
    /* the spanning communicators' instances completed during the read */
    struct comb cb;
    memset(&cb, 0, sizeof cb);
    struct an_slice_coll cc = {&cb, comb_owner, comb_in};
    comb_reset(&cb, run, &sink);
    xs.coll = &cc;
    struct an_match *m = an_slice_match(run, &sink, progress, &remote, &cancels, &xs);
    struct an_match_stats st = *an_match_stats(m);
    int64_t why = 0;
    /* clocks to repair (design item 2): rounds across the slices, each
     * matching and profiling the slice anew; the first that repairs
     * nothing anywhere read the final clocks: its result is the one, as
     * the serial report's pass with the final clocks */
    struct an_slice_repair rep;
    memset(&rep, 0, sizeof rep);
    int64_t need[2] = {(int64_t)st.repairable, (int64_t)(st.repaired - st.repairable)};
    x->reduce_i64(x, need, 2, AN_XCH_SUM);
    if (need[0] && need[1]) why |= WHY_LARGE;
    char what[64];
    while (need[0] && !need[1] && rep.rounds < 8) {
        an_match_free(m);
        an_profile_free(prof);
        if (!(prof = an_profile_new(run))) x->fail(x, "mpilens report: out of memory");
        sink = read_sink(run, prof, hook, &tee);
        comb_reset(&cb, run, &sink);
        uint64_t before = x->bytes;
        snprintf(what, sizeof what, "repairing clocks (round %u)", ++rep.rounds);
        m = an_slice_round(run, &sink, &xs, progress, what);
        rep.exchanged += x->bytes - before;
        st = *an_match_stats(m);
        remote = xs.nin;
        int64_t v[2] = {(int64_t)st.repaired, (int64_t)(st.repaired - st.repairable)};
        x->reduce_i64(x, v, 2, AN_XCH_SUM);
        if (v[1]) why |= WHY_LARGE;
        if (v[1] || v[0] == 0) break;
    }
    if (need[0] && !(why & WHY_LARGE) && st.repaired) why |= WHY_REPAIR;
    an_slice_sends_free(&xs, P);
    /* the largest correction and the first rank (in the run's order) with it */
    int64_t rmax[2] = {0, 0};
    int32_t rrank = -1;
    for (unsigned i = 0; i < run->n; i++) {
        int64_t e = an_clock_max_extra(&run->ranks[i].clock);
        if (e > rmax[0]) {
            rmax[0] = e;
            rrank = run->ranks[i].rank;
        }
    }
    int64_t mine = rmax[0];
    x->reduce_i64(x, rmax, 1, AN_XCH_MAX);
    rmax[1] = rmax[0] > 0 && mine == rmax[0] ? -(int64_t)me : -(int64_t)P;
    x->reduce_i64(x, rmax + 1, 1, AN_XCH_MAX);   /* the first process with it */
    int64_t rr = -rmax[1] == me ? rrank : -1;
    x->reduce_i64(x, &rr, 1, AN_XCH_MAX);
    st.sends -= remote;   /* counted by their senders' processes */
    unsigned nf0;
    const struct an_finding *f0 = an_match_findings(m, &nf0);
    struct found fd = {0};
    if (nf0 >= FINDINGS_MAX) why |= WHY_FINDINGS;
    for (unsigned i = 0; i < nf0; i++)
        if (found_add(&fd, &f0[i])) x->fail(x, "mpilens report: out of memory");
    if (cancels) why |= WHY_CANCEL;

    /* collectives spanning slices: each slice's arrivals to the communicator's owner */
    void **pout = calloc((size_t)P, sizeof *pout), **cout = calloc((size_t)P, sizeof *cout);
    size_t *plen = calloc((size_t)P, sizeof *plen), *clen = calloc((size_t)P, sizeof *clen);
    size_t *pin_len = calloc((size_t)P, sizeof *pin_len), *cin_len = calloc((size_t)P, sizeof *cin_len);
    if (!pout || !cout || !plen || !clen || !pin_len || !cin_len) x->fail(x, "mpilens report: out of memory");
    for (unsigned c = 0; c < run->ncomms; c++) {
        uint64_t n;
        const uint64_t *count;
        const struct an_coll_part *pt = an_match_coll_parts(m, c, &n, &count);
        int to = comm_owner(run, &run->comms[c]);
        if (!pt || to < 0) continue;
        for (uint64_t k = 0; k < n; k++) {
            if (!pt[k].arrived) continue;
            char *t = realloc(pout[to], plen[to] + sizeof *pt);
            if (!t) x->fail(x, "mpilens report: out of memory");
            memcpy(t + plen[to], &pt[k], sizeof *pt);
            pout[to] = t;
            plen[to] += sizeof *pt;
        }
        for (uint32_t p = 0; count && p < run->comms[c].size; p++) {
            if (!count[p]) continue;
            struct cnt_rec r = {c, p, count[p]};
            char *t = realloc(cout[to], clen[to] + sizeof r);
            if (!t) x->fail(x, "mpilens report: out of memory");
            memcpy(t + clen[to], &r, sizeof r);
            cout[to] = t;
            clen[to] += sizeof r;
        }
    }
    an_match_free(m);
    void *pin = NULL, *cin = NULL;
    if (x->alltoall(x, pout, plen, &pin, pin_len) || x->alltoall(x, cout, clen, &cin, cin_len))
        x->fail(x, "mpilens report: the exchange failed");
    size_t np = 0, nc = 0;
    for (int p = 0; p < P; p++) {
        np += pin_len[p] / sizeof(struct an_coll_part);
        nc += cin_len[p] / sizeof(struct cnt_rec);
        free(pout[p]);
        free(cout[p]);
    }
    /* with what the rounds left in the windows: completed as before */
    if (cb.oom) x->fail(x, "mpilens report: out of memory (or a bad exchange) completing collectives");
    {
        size_t nw = 0;
        for (unsigned c = 0; c < run->ncomms; c++)
            for (size_t k = 0; k < cb.c[c].len; k++) nw += cb.c[c].w[k].arrived > 0;
        char *t = nw ? realloc(pin, (np + nw) * sizeof(struct an_coll_part)) : pin;
        if (nw && !t) x->fail(x, "mpilens report: out of memory");
        pin = t;
        for (unsigned c = 0; c < run->ncomms; c++)
            for (size_t k = 0; k < cb.c[c].len; k++)
                if (cb.c[c].w[k].arrived) ((struct an_coll_part *)pin)[np++] = cb.c[c].w[k];
    }
    st.coll_instances += cb.instances;
    st.coll_mismatch += cb.mismatch;
    for (unsigned i = 0; i < cb.fd.n; i++)
        if (found_add(&fd, &cb.fd.v[i])) x->fail(x, "mpilens report: out of memory");
    if (cb.held_max > x->coll_held) x->coll_held = cb.held_max;   /* MPILENS_XCH_STATS */
    for (unsigned k = 0; k < run->ncomms; k++) free(cb.c[k].w);
    free(cb.c);
    free(cb.fd.v);
    free(pout);
    free(cout);
    free(plen);
    free(clen);
    free(pin_len);
    free(cin_len);
    if (np) qsort(pin, np, sizeof(struct an_coll_part), part_cmp);
    int64_t w = colls_complete(run, pin, np, cin, nc, &sink, &st, &fd);
    if (w < 0) x->fail(x, "mpilens report: out of memory");
    why |= w;
    free(pin);
    free(cin);

    /* the counters; whether the result can be the serial one */
    int64_t v[32], k = 0;
#define PUT(f) v[k++] = (int64_t)st.f;
    SUMS(PUT)
#undef PUT
    int nsum = (int)k;
    x->reduce_i64(x, v, (unsigned)nsum, AN_XCH_SUM);
    k = 0;
#define GET(f) st.f = (uint64_t)v[k++];
    SUMS(GET)
#undef GET
    k = 0;
#define PUT(f) v[k++] = (int64_t)st.f;
    MAXES(PUT)
#undef PUT
    v[k++] = why;
    x->reduce_i64(x, v, (unsigned)k, AN_XCH_MAX);
    k = 0;
    st.held_max = (uint64_t)v[k++];
    st.repair_max = v[k++];
    why = v[k++];
    if (st.repairable) why |= WHY_REPAIR;
    if (why) {
        out->why = why_text(why);
        free(fd.v);
        an_profile_free(prof);
        return 0;
    }

    /* findings, merged by key at process 0 */
    void *fall = NULL;
    size_t *lens = calloc((size_t)P, sizeof *lens);
    if (!lens || x->gather(x, fd.v, fd.n * sizeof *fd.v, &fall, lens)) x->fail(x, "mpilens report: the exchange failed");
    free(fd.v);
    int64_t nfind = 0;
    struct an_finding *all = fall;
    if (me == 0) {
        size_t n = 0;
        for (int p = 0; p < P; p++) n += lens[p] / sizeof *all;
        if (n) qsort(all, n, sizeof *all, fkey_cmp);
        for (size_t i = 0; i < n; i++) {
            if (nfind && an_finding_same(&all[nfind - 1], &all[i])) {
                all[nfind - 1].count += all[i].count;
                all[nfind - 1].bytes += all[i].bytes;
                all[nfind - 1].unsized &= all[i].unsized;   /* as match.c merges them */
            } else {
                all[nfind++] = all[i];
            }
        }
        if (nfind > FINDINGS_MAX) nfind = -1;
        else if (nfind) qsort(all, (size_t)nfind, sizeof *all, an_finding_cmp);
    }
    x->bcast(x, &nfind, sizeof nfind);
    if (nfind < 0) {
        out->why = why_text(WHY_FINDINGS);
        free(fall);
        free(lens);
        an_profile_free(prof);
        return 0;
    }
    if (me != 0 && !(all = malloc(((size_t)nfind + 1) * sizeof *all))) x->fail(x, "mpilens report: out of memory");
    x->bcast(x, all, (size_t)nfind * sizeof *all);
    /* each finding's call site, named by its rank's owner */
    char buf[1024];
    size_t slen = 0;
    char *sbuf = NULL;
    for (int64_t i = 0; i < nfind; i++) {
        const struct an_finding *f = &all[i];
        const char *s = "";
        if (f->site && f->rank >= 0 && f->rank < run->size && sl->owner[f->rank] == me && run->slot[f->rank] >= 0) {
            s = site(run->ranks[run->slot[f->rank]].f, f->site, buf, sizeof buf);
            if (!s) s = "";
        }
        size_t l = strlen(s) + 1;
        char *t = realloc(sbuf, slen + l);
        if (!t) x->fail(x, "mpilens report: out of memory");
        memcpy(t + slen, s, l);
        sbuf = t;
        slen += l;
    }
    void *sall = NULL;
    if (x->gather(x, sbuf, slen, &sall, lens)) x->fail(x, "mpilens report: the exchange failed");
    free(sbuf);

    /* the profile, the ranks' clocks and the lowest rank's header */
    void *pk = NULL, *pall = NULL;
    size_t pklen = 0;
    if (an_profile_pack(prof, where, &pk, &pklen)) x->fail(x, "mpilens report: out of memory");
    int lowest = -1;
    for (int r = 0; r < run->size && lowest < 0; r++)
        if (sl->owner[r] >= 0) lowest = r;
    size_t hl = 0;
    for (unsigned i = 0; i < run->n; i++) hl += 8;
    int have_h0 = lowest >= 0 && sl->owner[lowest] == me && run->slot[lowest] >= 0;
    const char *exe = have_h0 ? mlr_exe(run->ranks[run->slot[lowest]].f) : "";
    if (!exe) exe = "";
    size_t el = strlen(exe);
    size_t tot = 4 + hl + pklen + (have_h0 ? sizeof(struct ml_header) + el : 0);
    char *blk = malloc(tot), *o = blk;
    if (!blk) x->fail(x, "mpilens report: out of memory");
    uint32_t nr = run->n;
    memcpy(o, &nr, 4);
    o += 4;
    for (unsigned i = 0; i < run->n; i++) {
        int32_t rv[2] = {run->ranks[i].rank, run->ranks[i].clock.samples};
        memcpy(o, rv, 8);
        o += 8;
    }
    memcpy(o, pk, pklen);
    o += pklen;
    if (have_h0) {
        memcpy(o, mlr_header(run->ranks[run->slot[lowest]].f), sizeof(struct ml_header));
        o += sizeof(struct ml_header);
        memcpy(o, exe, el);
    }
    free(pk);
    size_t *plens = calloc((size_t)P, sizeof *plens);
    if (!plens || x->gather(x, blk, tot, &pall, plens)) x->fail(x, "mpilens report: the exchange failed");
    free(blk);
    /* pklen of each block: told separately (the blocks hold the rest) */
    int64_t *pkl = calloc((size_t)P, sizeof *pkl);
    if (!pkl) x->fail(x, "mpilens report: out of memory");
    pkl[me] = (int64_t)pklen;
    x->reduce_i64(x, pkl, (unsigned)P, AN_XCH_SUM);
    an_profile_free(prof);
    if (me != 0) {
        free(all);
        free(lens);
        free(plens);
        free(pkl);
        return 0;
    }

    /* process 0: the whole run as the report reads it */
    struct an_run *full = &out->run;
    *full = *run;
    full->ranks = calloc((size_t)run->size + 1, sizeof *full->ranks);
    full->slot = malloc(((size_t)run->size + 1) * sizeof *full->slot);
    if (!full->ranks || !full->slot) x->fail(x, "mpilens report: out of memory");
    full->n = 0;
    for (int r = 0; r < run->size; r++) {
        full->slot[r] = -1;
        if (sl->owner[r] < 0) continue;
        if (run->slot[r] >= 0) full->ranks[full->n] = run->ranks[run->slot[r]];
        full->ranks[full->n].rank = r;
        full->slot[r] = (int)full->n++;
    }
    int bad = 0;
    const char *b = pall;
    for (int p = 0; p < P; p++) {
        const char *e = b + plens[p];
        uint32_t n;
        if (plens[p] < 4) {
            bad = 1;
            break;
        }
        memcpy(&n, b, 4);
        const char *q = b + 4;
        for (uint32_t i = 0; i < n && q + 8 <= e; i++, q += 8) {
            int32_t rv[2];
            memcpy(rv, q, 8);
            if (rv[0] < 0 || rv[0] >= run->size || full->slot[rv[0]] < 0) bad = 1;
            else full->ranks[full->slot[rv[0]]].clock.samples = rv[1];
        }
        if ((size_t)(e - q) < (size_t)pkl[p]) {
            bad = 1;
            break;
        }
        q += pkl[p];
        if (e - q >= (ptrdiff_t)sizeof(struct ml_header)) {
            memcpy(&out->h0, q, sizeof out->h0);
            q += sizeof out->h0;
            char ex[600];
            size_t l = (size_t)(e - q) < sizeof ex - 1 ? (size_t)(e - q) : sizeof ex - 1;
            memcpy(ex, q, l);
            ex[l] = 0;
            an_run_header_text(full, &out->h0, ex);
            out->have_h0 = 1;
        }
        b = e;
    }
    out->prof = an_profile_new(full);
    if (!out->prof) x->fail(x, "mpilens report: out of memory");
    b = pall;
    for (int p = 0; p < P && !bad; p++) {
        const char *q = b + 4 + 8 * (size_t)(*(const uint32_t *)b);
        if (an_profile_unpack(out->prof, q, (size_t)pkl[p])) bad = 1;
        b += plens[p];
    }
    if (bad || !out->have_h0) x->fail(x, "mpilens report: the processes of the analysis disagree (bad exchange)");
    if (an_profile_finish(out->prof, NULL)) x->fail(x, "mpilens report: out of memory");
    free(pall);
    free(plens);
    free(pkl);
    /* the result as an_analyse and its final pass give it */
    out->res.stats = st;
    out->res.findings = all;
    out->res.nfindings = (unsigned)nfind;
    out->res.passes = 1 + rep.rounds;
    out->res.repair_max = rmax[0];
    out->res.repair_rank = (int)rr;
    out->res.repair_steps = rmax[0] > 0 ? st.moved : 0;
    out->res.repair_converged = st.repaired == 0;
    out->find_site = calloc((size_t)nfind + 1, sizeof *out->find_site);
    char **at = calloc((size_t)P, sizeof *at);
    if (!out->find_site || !at) x->fail(x, "mpilens report: out of memory");
    char *sp = sall;
    for (int p = 0; p < P; p++) {
        at[p] = sp;
        sp += lens[p];
    }
    for (int64_t i = 0; i < nfind; i++) {
        const struct an_finding *f = &all[i];
        int ow = f->rank >= 0 && f->rank < run->size ? sl->owner[f->rank] : -1;
        const char *s = "(unknown)";
        if (f->site && ow >= 0 && at[ow][0]) s = at[ow];
        else if (f->site && ow >= 0) s = "(unknown)";
        out->find_site[i] = strdup(s);
        if (!out->find_site[i]) x->fail(x, "mpilens report: out of memory");
        for (int p = 0; p < P; p++) at[p] += strlen(at[p]) + 1;
    }
    free(at);
    free(sall);
    free(lens);
    return 0;
}

void an_slice_report_free(struct an_slice_report *out)
{
    if (out->prof) an_profile_free(out->prof);
    for (unsigned i = 0; out->find_site && i < out->res.nfindings; i++) free(out->find_site[i]);
    free(out->find_site);
    an_result_free(&out->res);
    free(out->run.ranks);
    free(out->run.slot);
    memset(out, 0, sizeof *out);
}
