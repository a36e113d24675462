/*
 * stream.c — the events of all ranks as one stream in aligned start-time
 * order (a k-way merge over the ranks' own streams, which the reader gives
 * in start order), the passes that drive matching over it, and resume
 * points of a pass (an_marks) that a later pass over a time window starts
 * from instead of the run's start.
 *
 * The merge lets one rank run ahead of the others by at most
 * AN_STREAM_SLACK: a rank's events then come in runs, which keeps its
 * records in cache and the heap still (3x faster with 64 ranks).  Nothing
 * downstream needs more than that: matching pairs by posting order per
 * rank, not by time across ranks, and in-flight messages stay bounded by
 * what the ranks do within the slack.
 *
 * Memory: one current event per rank plus a heap of ranks; resume points
 * within the budget they are given.
 *
 * A sliced run (an_run_open_slice) streams only its own ranks; its passes
 * (an_slice_check) ship the sends that cross to other slices to their
 * receivers' owners and check the receives against them there, and repair
 * the clocks in rounds when some receive ends before its send began
 * (an_slice_repair).
 */
#include "analysis.h"
#include "exchange.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct heap_ent {
    int64_t key;
    uint32_t idx;
};

struct an_stream {
    struct an_run *run;
    unsigned n;
    struct mlr_iter **it;
    struct an_event *ev;         /* current event of each rank */
    struct heap_ent *heap;
    unsigned nheap;
    int advance;                 /* the top was handed out: step it first */
    int64_t limit;               /* the top rank may go on up to this key */
    uint64_t count;
    int64_t **last;              /* per rank, per thread: start of its previous call */
    uint32_t *nth;               /* per rank: threads in `last` */
};

static inline int ent_less(const struct heap_ent *a, const struct heap_ent *b)
{
    return a->key < b->key || (a->key == b->key && a->idx < b->idx);
}

static void sift_down(struct an_stream *s, unsigned i)
{
    struct heap_ent x = s->heap[i];
    unsigned n = s->nheap;
    for (;;) {
        unsigned l = 2 * i + 1;
        if (l >= n) break;
        unsigned c = l + 1 < n && ent_less(&s->heap[l + 1], &s->heap[l]) ? l + 1 : l;
        if (!ent_less(&s->heap[c], &x)) break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    s->heap[i] = x;
}

static void sift_up(struct an_stream *s, unsigned i)
{
    struct heap_ent x = s->heap[i];
    while (i > 0) {
        unsigned p = (i - 1) / 2;
        if (!ent_less(&x, &s->heap[p])) break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = x;
}

/* The key up to which the top rank may go on without the heap: the next
 * rank's key plus the slack. */
static int64_t run_limit(const struct an_stream *s)
{
    int64_t k = INT64_MAX;
    if (s->nheap > 1) k = s->heap[1].key;
    if (s->nheap > 2 && s->heap[2].key < k) k = s->heap[2].key;
    return k > INT64_MAX - AN_STREAM_SLACK ? INT64_MAX : k + AN_STREAM_SLACK;
}

/* Read rank i's next event; 0 at its end. */
static int load(struct an_stream *s, unsigned i)
{
    struct an_event *e = &s->ev[i];
    if (!s->it[i] || !mlr_next(s->it[i], &e->ev)) return 0;
    /* A call of a thread starts after the previous one of that thread: the
     * analysis keys calls by (rank, thread, start).  A clock too coarse to
     * tell two calls apart, or a damaged file, is nudged by a nanosecond. */
    if (e->ev.thread < s->nth[i]) {
        int64_t *l = &s->last[i][e->ev.thread];
        if (e->ev.start_ns <= *l && *l != INT64_MIN) {
            e->ev.start_ns = *l == INT64_MAX ? INT64_MAX : *l + 1;
            if (e->ev.end_ns < e->ev.start_ns) e->ev.end_ns = e->ev.start_ns;
            if (e->ev.repeat && e->ev.repeat_end_ns < e->ev.end_ns) e->ev.repeat_end_ns = e->ev.end_ns;
        }
        *l = e->ev.start_ns;
    }
    const struct an_clock *c = &e->r->clock;
    int64_t extra = c->nsteps ? an_clock_extra(c, e->ev.start_ns) : 0;
    e->t0 = an_wadd(an_clock_base(c, e->ev.start_ns), extra);
    e->t1 = an_wadd(an_clock_base(c, e->ev.end_ns), extra);
    if (e->t1 < e->t0) e->t1 = e->t0;
    return 1;
}

struct an_stream *an_stream_new(struct an_run *run)
{
    struct an_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->run = run;
    s->n = run->n;
    s->it = calloc(run->n ? run->n : 1, sizeof *s->it);
    s->ev = calloc(run->n ? run->n : 1, sizeof *s->ev);
    s->heap = calloc(run->n ? run->n : 1, sizeof *s->heap);
    if (!s->it || !s->ev || !s->heap) {
        an_stream_free(s);
        return NULL;
    }
    s->last = calloc(run->n ? run->n : 1, sizeof *s->last);
    s->nth = calloc(run->n ? run->n : 1, sizeof *s->nth);
    if (!s->last || !s->nth) {
        an_stream_free(s);
        return NULL;
    }
    for (unsigned i = 0; i < run->n; i++) {
        s->ev[i].r = &run->ranks[i];
        unsigned nt = run->ranks[i].f ? mlr_nthreads(run->ranks[i].f) : 0;
        if (nt && (s->last[i] = malloc(nt * sizeof **s->last))) {
            s->nth[i] = nt;
            for (unsigned t = 0; t < nt; t++) s->last[i][t] = INT64_MIN;
        }
        s->it[i] = mlr_iter_new(run->ranks[i].f);
        if (s->it[i]) mlr_iter_unfinished(s->it[i]);   /* calls in progress at the end, last */
        if (load(s, i)) {
            s->heap[s->nheap] = (struct heap_ent){s->ev[i].t0, i};
            sift_up(s, s->nheap++);
        }
    }
    s->limit = run_limit(s);
    return s;
}

const struct an_event *an_stream_next(struct an_stream *s)
{
    if (s->advance) {
        s->advance = 0;
        unsigned i = s->heap[0].idx;
        if (load(s, i)) {
            s->heap[0].key = s->ev[i].t0;
            /* the same rank goes on while it is within the slack of the
             * next one: its records stay in cache, the heap stays still */
            if (s->ev[i].t0 > s->limit) {
                sift_down(s, 0);
                s->limit = run_limit(s);
            }
        } else {
            s->heap[0] = s->heap[--s->nheap];
            if (s->nheap) sift_down(s, 0);
            s->limit = run_limit(s);
        }
    }
    if (!s->nheap) return NULL;
    s->advance = 1;
    s->count++;
    return &s->ev[s->heap[0].idx];
}

struct an_stream *an_stream_clone(const struct an_stream *s, size_t *bytes)
{
    struct an_stream *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    unsigned n = s->n ? s->n : 1;
    c->run = s->run;
    c->n = s->n;
    c->it = calloc(n, sizeof *c->it);
    c->ev = malloc(n * sizeof *c->ev);
    c->heap = malloc(n * sizeof *c->heap);
    c->last = calloc(n, sizeof *c->last);
    c->nth = calloc(n, sizeof *c->nth);
    size_t b = sizeof *c + n * (sizeof *c->it + sizeof *c->ev + sizeof *c->heap + sizeof *c->last + sizeof *c->nth);
    if (!c->it || !c->ev || !c->heap || !c->last || !c->nth) {
        an_stream_free(c);
        return NULL;
    }
    memcpy(c->ev, s->ev, n * sizeof *c->ev);
    memcpy(c->heap, s->heap, n * sizeof *c->heap);
    c->nheap = s->nheap;
    c->advance = s->advance;
    c->limit = s->limit;
    c->count = s->count;
    for (unsigned i = 0; i < s->n; i++) {
        if (s->nth[i]) {
            if (!(c->last[i] = malloc(s->nth[i] * sizeof **c->last))) {
                an_stream_free(c);
                return NULL;
            }
            memcpy(c->last[i], s->last[i], s->nth[i] * sizeof **c->last);
            c->nth[i] = s->nth[i];
            b += s->nth[i] * sizeof **c->last;
        }
        /* the rank's current event: its done list lives in its iterator */
        if (s->it[i] && !(c->it[i] = mlr_iter_clone(s->it[i], &c->ev[i].ev, &b))) {
            an_stream_free(c);
            return NULL;
        }
    }
    if (bytes) *bytes += b;
    return c;
}

uint64_t an_stream_count(const struct an_stream *s)
{
    return s->count;
}

void an_stream_free(struct an_stream *s)
{
    if (!s) return;
    for (unsigned i = 0; s->it && i < s->n; i++) mlr_iter_free(s->it[i]);
    free(s->it);
    for (unsigned i = 0; s->last && i < s->n; i++) free(s->last[i]);
    free(s->last);
    free(s->nth);
    free(s->ev);
    free(s->heap);
    free(s);
}

/* ---- progress ------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void an_progress_init(struct an_progress *p, const struct an_run *run, const char *what)
{
    memset(p, 0, sizeof *p);
    p->on = isatty(2);
    p->what = what;
    an_run_span(run, &p->first, &p->last);
    p->started = now_s();
}

void an_progress_tick(struct an_progress *p, uint64_t events, int64_t now)
{
    if (!p->on) return;
    double t = now_s();
    if (t - p->started < 1.0 || t - p->shown < 0.25) return;
    p->shown = t;
    double frac = p->last > p->first ? ((double)now - (double)p->first) / ((double)p->last - (double)p->first) : 0;
    if (frac < 0) frac = 0;
    if (frac > 0.99) frac = 0.99;
    fprintf(stderr, "\r%s: %3.0f%%  %.1fM events  %.1fM events/s   ", p->what, frac * 100, events / 1e6,
            events / 1e6 / (t - p->started));
    fflush(stderr);
}

void an_progress_done(struct an_progress *p)
{
    if (p->on && p->shown > 0) {
        fprintf(stderr, "\r%*s\r", 70, "");
        fflush(stderr);
    }
}

/* ---- resume points ---------------------------------------------------------- */

/* A copy of a pass's stream and matcher after its first `at` events, all of
 * which end (with their repeats) by `end`: a pass that resumes there feeds
 * its sink exactly what the whole pass feeds it from there on. */
struct an_mark {
    uint64_t at;
    int64_t end;
    struct an_stream *s;
    struct an_match *m;
    size_t bytes;
};

struct an_marks {
    struct an_mark *v;           /* in pass order: at and end never decrease */
    unsigned n, max;
    uint64_t every;              /* events between two marks (doubles as they thin out) */
    size_t bytes, budget;
    int64_t end;                 /* while the pass runs: the latest end of its events so far */
};

struct an_marks *an_marks_new(uint64_t every, unsigned max, size_t budget)
{
    struct an_marks *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->max = max < 2 ? 2 : max;
    k->v = calloc(k->max, sizeof *k->v);
    if (!k->v) {
        free(k);
        return NULL;
    }
    k->every = every ? every : 1;
    k->budget = budget;
    k->end = INT64_MIN;
    return k;
}

static void mark_drop(struct an_marks *k, struct an_mark *x)
{
    an_stream_free(x->s);
    an_match_free(x->m);
    k->bytes -= x->bytes;
    memset(x, 0, sizeof *x);
}

/* Every other mark dropped, twice the events between the next ones. */
static void marks_thin(struct an_marks *k)
{
    unsigned n = 0;
    for (unsigned i = 0; i < k->n; i++) {
        if (k->v[i].at % (2 * k->every)) mark_drop(k, &k->v[i]);
        else k->v[n++] = k->v[i];
    }
    k->n = n;
    k->every *= 2;
}

/* After event e of the pass (s, m): the latest end so far, and a mark
 * every `every` events while the budget allows. */
static void marks_note(struct an_marks *k, struct an_stream *s, struct an_match *m, const struct an_event *e)
{
    /* the end the view and the exporters give a call: its repeats' too */
    int64_t end = an_wadd(e->t1, e->ev.repeat ? an_wsub(e->ev.repeat_end_ns, e->ev.end_ns) : 0);
    if (end < e->t0) end = e->t0;
    if (end > k->end) k->end = end;
    uint64_t at = an_stream_count(s);
    if (at % k->every) return;
    size_t want = an_match_bytes(m) + (size_t)s->n * 1024;
    while (k->n && (k->n == k->max || k->bytes + want > k->budget)) marks_thin(k);
    if (at % k->every || want > k->budget / 8) return;   /* one mark too big: the state in flight is huge */
    struct an_mark x = {at, k->end, NULL, NULL, 0};
    if (!(x.s = an_stream_clone(s, &x.bytes)) || !(x.m = an_match_clone(m, NULL, &x.bytes))) {
        an_stream_free(x.s);
        return;
    }
    k->v[k->n++] = x;
    k->bytes += x.bytes;
}

unsigned an_marks_count(const struct an_marks *k, size_t *bytes)
{
    if (bytes) *bytes = k ? k->bytes : 0;
    return k ? k->n : 0;
}

void an_marks_free(struct an_marks *k)
{
    if (!k) return;
    for (unsigned i = 0; i < k->n; i++) mark_drop(k, &k->v[i]);
    free(k->v);
    free(k);
}

/* ---- passes ------------------------------------------------------------- */

#define MAX_PASSES 8

static int run_pass(struct an_run *run, const struct an_sink *sink, int repair, int progress,
                    const char *what, struct an_result *res, struct an_marks *marks)
{
    struct an_match *m = an_match_new(run, sink);
    struct an_stream *s = an_stream_new(run);
    if (!m || !s) {
        an_match_free(m);
        an_stream_free(s);
        return -1;
    }
    an_match_set_repair(m, repair);
    struct an_progress pr;
    an_progress_init(&pr, run, what);
    if (!progress) pr.on = 0;
    const struct an_event *e;
    uint64_t n = 0;
    while ((e = an_stream_next(s))) {
        an_match_event(m, e);
        if (marks) marks_note(marks, s, m, e);
        if ((++n & 0xffff) == 0) an_progress_tick(&pr, n, e->t0);
    }
    an_progress_done(&pr);
    an_match_finish(m);
    res->stats = *an_match_stats(m);
    unsigned nf = 0;
    const struct an_finding *f = an_match_findings(m, &nf);
    free(res->findings);
    res->findings = NULL;
    res->nfindings = 0;
    if (nf && (res->findings = malloc(nf * sizeof *f))) {
        memcpy(res->findings, f, nf * sizeof *f);
        res->nfindings = nf;
    }
    an_stream_free(s);
    an_match_free(m);
    return 0;
}

/* One pass with the clocks final (no repair): what it counts is order-free
 * (docs/PARALLEL.md, "Clock repair across slices"): the messages that
 * moved their receive, and whether any receive still ends before its send
 * began. */
static int final_pass(struct an_run *run, const struct an_sink *sink, int progress, struct an_result *res,
                      struct an_marks *marks, const char *what)
{
    struct an_result last;
    memset(&last, 0, sizeof last);
    if (run_pass(run, sink, 0, progress, what, &last, marks)) return -1;
    free(last.findings);
    res->repair_converged = last.stats.repaired == 0;
    res->repair_steps = last.stats.moved;
    return 0;
}

int an_analyse(struct an_run *run, const struct an_sink *first, const struct an_sink *final, int progress,
               struct an_result *res)
{
    return an_analyse_marked(run, first, final, progress, res, NULL);
}

int an_analyse_marked(struct an_run *run, const struct an_sink *first, const struct an_sink *final, int progress,
                      struct an_result *res, struct an_marks *marks)
{
    memset(res, 0, sizeof *res);
    char what[64];
    for (;;) {
        snprintf(what, sizeof what, "reading (pass %u)", res->passes + 1);
        if (run_pass(run, res->passes == 0 ? first : NULL, 1, progress, what, res, NULL)) return -1;
        res->passes++;
        if (res->passes == 1) res->repair_steps = res->stats.repaired;
        if (res->stats.repaired == 0) {
            res->repair_converged = 1;
            break;
        }
        /* Every repair of this pass moved only events not yet used in a
         * causality check (receives only ever move later, which keeps the
         * checks already passed): another pass would find nothing new. */
        if (res->stats.repair_late == 0) {
            res->repair_converged = res->stats.repair_skipped == 0;
            break;
        }
        if (res->passes >= MAX_PASSES) break;
    }
    for (unsigned i = 0; i < run->n; i++) {
        int64_t x = an_clock_max_extra(&run->ranks[i].clock);
        if (x > res->repair_max) {
            res->repair_max = x;
            res->repair_rank = run->ranks[i].rank;
        }
    }
    /* no clock moved: nothing was repaired (violations too large, if any,
     * were only counted) */
    if (res->repair_max == 0) res->repair_steps = 0;
    if (final) return final_pass(run, final, progress, res, marks, "writing");
    return 0;
}

int an_analyse_final(struct an_run *run, const struct an_sink *sink, int progress, struct an_result *res)
{
    return final_pass(run, sink, progress, res, NULL, "reading (final clocks)");
}

int an_replay(struct an_run *run, const struct an_marks *marks, const struct an_sink *sink, int64_t from,
              int64_t until, const int *stop, uint64_t *read)
{
    /* the last mark whose events all end before `from`: nothing before it
     * is in the window, and from it on the pass is the same */
    const struct an_mark *x = NULL;
    if (marks && marks->n && marks->v[0].end < from) {
        unsigned lo = 0, hi = marks->n - 1;
        while (lo < hi) {
            unsigned mid = lo + (hi - lo + 1) / 2;
            if (marks->v[mid].end < from) lo = mid;
            else hi = mid - 1;
        }
        x = &marks->v[lo];
    }
    struct an_match *m = x ? an_match_clone(x->m, sink, NULL) : an_match_new(run, sink);
    struct an_stream *s = x ? an_stream_clone(x->s, NULL) : an_stream_new(run);
    if (!m || !s) {
        an_match_free(m);
        an_stream_free(s);
        return -1;
    }
    an_match_set_repair(m, 0);
    /* the merge lets a rank run ahead by the slack: past until + slack,
     * every event still to come starts after until */
    int64_t past = until > INT64_MAX - AN_STREAM_SLACK ? INT64_MAX : until + AN_STREAM_SLACK;
    const struct an_event *e;
    uint64_t n = 0;
    while ((e = an_stream_next(s)) && e->t0 <= past && !(stop && *stop)) {
        an_match_event(m, e);
        n++;
    }
    if (read) *read = n;
    an_stream_free(s);
    an_match_free(m);
    return 0;
}

void an_result_free(struct an_result *res)
{
    free(res->findings);
    res->findings = NULL;
}

/* ---- a sliced run (an_run_open_slice, docs/PARALLEL.md) ------------------ */

/* The sends that cross to other slices travel in bounded batches during a
 * read ("Bounded batches" in docs/PARALLEL.md): the read goes in rounds of
 * stream time that all processes agree on; in a round each process reads
 * its slice up to the round's time, or until the sends it holds for one
 * receiving process reach the batch size B, then one all-to-all takes them
 * to their receivers' owners, which post them in their channels.  A
 * channel's sends all come from one rank and come in its order, batch
 * after batch, so the k-th send still takes the k-th receive released
 * (docs/PARALLEL.md, "Matching"), whether the receive waited for it or it
 * for the receive.  The next round's time is the earliest position any
 * process stopped at plus a window W that halves when a batch filled and
 * doubles when every batch stayed under half of B, so the crossing sends
 * held at once stay within B per peer, and the receives waiting for them
 * within what a window holds. */

#define BATCH_DEFAULT 65536      /* records per receiving process and round (80 bytes each) */
#define WINDOW_MAX ((int64_t)1 << 60)

static size_t batch_size(void)
{
    const char *e = getenv("MPILENS_SLICE_BATCH");   /* tests: small batches, many rounds */
    long v = e ? strtol(e, NULL, 10) : 0;
    return v > 0 ? (size_t)v : BATCH_DEFAULT;
}

struct outbox {                  /* sends to other slices, per receiving process */
    const struct an_slice *sl;
    struct an_send_rec **rec;
    size_t *n, *cap;
    size_t batch;                /* a round ends when one n[p] reaches it */
    int full;
    int oom;
    uint64_t cancels;            /* shipped sends taken back */
    uint64_t shipped;            /* records sent to other processes */
};

static int outbox_init(struct outbox *o, const struct an_slice *sl)
{
    int P = sl->x->size;
    memset(o, 0, sizeof *o);
    o->sl = sl;
    o->rec = calloc((size_t)P, sizeof *o->rec);
    o->n = calloc((size_t)P, sizeof *o->n);
    o->cap = calloc((size_t)P, sizeof *o->cap);
    o->batch = batch_size();
    return o->rec && o->n && o->cap ? 0 : -1;
}

static void outbox_free(struct outbox *o)
{
    for (int p = 0; o->rec && p < o->sl->x->size; p++) free(o->rec[p]);
    free(o->rec);
    free(o->n);
    free(o->cap);
    memset(o, 0, sizeof *o);
}

static void outbox_put(void *ctx, const struct an_send_rec *s)
{
    struct outbox *o = ctx;
    int p = o->sl->owner[s->dst];
    if (p < 0) return;           /* no file: unmatched, as in the serial analysis */
    if (s->cancel) {
        /* counted even when its batch is gone: the caller decides
         * (the report falls back to process 0) */
        o->cancels++;
        for (size_t i = o->n[p]; s->id && i-- > 0;)
            if (o->rec[p][i].src == s->src && o->rec[p][i].id == s->id) {
                memmove(&o->rec[p][i], &o->rec[p][i + 1], (o->n[p] - i - 1) * sizeof *o->rec[p]);
                o->n[p]--;
                break;
            }
        return;
    }
    if (o->n[p] == o->cap[p]) {
        size_t cap = o->cap[p] ? o->cap[p] * 2 : 256;
        struct an_send_rec *r = realloc(o->rec[p], cap * sizeof *r);
        if (!r) {
            o->oom = 1;
            return;
        }
        o->rec[p] = r;
        o->cap[p] = cap;
    }
    o->rec[p][o->n[p]++] = *s;
    if (o->n[p] >= o->batch) o->full = 1;
}

static void outbox_drop(void *ctx, const struct an_send_rec *s) {}

struct partbox {                 /* instances of spanning communicators, per owning process */
    const struct an_slice_coll *cc;
    struct an_coll_part **p;
    size_t *n, *cap;
    int oom;
};

static void partbox_put(void *ctx, const struct an_coll_part *q)
{
    struct partbox *b = ctx;
    int to = b->cc->owner(b->cc->ctx, q->comm);
    if (to < 0) return;
    if (b->n[to] == b->cap[to]) {
        size_t cap = b->cap[to] ? b->cap[to] * 2 : 256;
        struct an_coll_part *t = realloc(b->p[to], cap * sizeof *t);
        if (!t) {
            b->oom = 1;
            return;
        }
        b->p[to] = t;
        b->cap[to] = cap;
    }
    b->p[to][b->n[to]++] = *q;
}

/* The round's instances to their owners (collective): those every member
 * of this slice has called; what came is given to cc->in. */
static void parts_exchange(struct an_xch *x, struct an_match *m, struct partbox *b, size_t *outlen, size_t *inlen,
                           int bad)
{
    int P = x->size;
    if (!bad) an_match_coll_ship(m, partbox_put, b);
    for (int p = 0; p < P; p++) outlen[p] = bad || b->oom ? 0 : b->n[p] * sizeof(struct an_coll_part);
    void *in = NULL;
    if (x->alltoall(x, (void *const *)b->p, outlen, &in, inlen) != 0) x->fail(x, "mpilens: the exchange failed");
    size_t total = 0;
    for (int p = 0; p < P; p++) {
        total += inlen[p];
        b->n[p] = 0;
    }
    if (!bad && total) b->cc->in(b->cc->ctx, in, total / sizeof(struct an_coll_part));
    free(in);
}

/* One read of this slice fed to m, which has repair set and its sink: the
 * sends to other slices exchanged in rounds during it (above) and the
 * other slices' sends posted in their channels as they come.  *nremote:
 * the sends of other slices posted; first/last: the earliest start and
 * latest end this slice read.  Collective; a failure anywhere ends the
 * job. */
static void slice_read(struct an_run *run, struct an_match *m, struct outbox *o, const struct an_slice_coll *cc,
                       int progress, const char *what, uint64_t *nremote, int64_t *first, int64_t *last)
{
    struct an_xch *x = run->slice->x;
    int P = x->size;
    struct an_stream *s = an_stream_new(run);
    size_t *outlen = calloc((size_t)P, sizeof *outlen), *inlen = calloc((size_t)P, sizeof *inlen);
    struct partbox pb = {cc, NULL, NULL, NULL, 0};
    if (cc) {
        pb.p = calloc((size_t)P, sizeof *pb.p);
        pb.n = calloc((size_t)P, sizeof *pb.n);
        pb.cap = calloc((size_t)P, sizeof *pb.cap);
    }
    int64_t bad = !s || !outlen || !inlen || (cc && (!pb.p || !pb.n || !pb.cap));
    an_match_set_outbox(m, outbox_put, o);
    /* the first window: a 64th of the run's span (by the headers) */
    int64_t span[2];
    an_run_span(run, &span[0], &span[1]);
    span[1] = span[1] == INT64_MIN ? INT64_MAX : -span[1];
    x->reduce_i64(x, span, 2, AN_XCH_MIN);
    int64_t lo = span[0], hi = span[1] == INT64_MAX ? INT64_MIN : -span[1];
    int64_t w = hi > lo && lo != INT64_MAX ? an_wsub(hi, lo) / 64 : 1000000;
    if (w < 1) w = 1;
    int64_t t = lo == INT64_MAX ? INT64_MAX : an_wadd(lo, w);
    struct an_progress pr;
    an_progress_init(&pr, run, what);
    if (!progress) pr.on = 0;
    const struct an_event *e = NULL;
    uint64_t n = 0;
    *first = INT64_MAX;
    *last = INT64_MIN;
    *nremote = 0;
    for (;;) {
        o->full = 0;
        /* a round also ends when the instances held grew by a batch (a
         * member here that stopped calling holds the later ones back) */
        uint64_t held0 = an_match_coll_held(m), pfill = 0;
        while (!bad) {
            if (!e && !(e = an_stream_next(s))) break;
            if (e->t0 > t || o->full) break;
            if (cc && an_match_coll_held(m) - held0 >= o->batch) break;
            if (n == 0) *first = e->t0;
            if (e->t1 > *last) *last = e->t1;
            an_match_event(m, e);
            if ((++n & 0xffff) == 0) an_progress_tick(&pr, n, e->t0);
            e = NULL;
        }
        bad |= o->oom;
        if (cc) {
            pfill = an_match_coll_held(m) - held0;
            if (an_match_coll_held(m) > x->coll_held) x->coll_held = an_match_coll_held(m);
        }
        /* the batch: every process's sends to each other one, in its order */
        size_t fill = 0, held = 0;
        for (int p = 0; p < P; p++) {
            outlen[p] = bad ? 0 : o->n[p] * sizeof(struct an_send_rec);
            if (o->n[p] > fill) fill = o->n[p];
            held += o->n[p];
            if (p != x->rank && !bad) o->shipped += o->n[p];
        }
        void *in = NULL;
        if (x->alltoall(x, (void *const *)o->rec, outlen, &in, inlen) != 0) x->fail(x, "mpilens: the exchange failed");
        size_t total = 0;
        for (int p = 0; p < P; p++) {
            total += inlen[p];
            o->n[p] = 0;
        }
        size_t nin = total / sizeof(struct an_send_rec);
        x->batches++;
        if (held + nin > x->batch_held) x->batch_held = held + nin;
        for (size_t i = 0; !bad && i < nin; i++) an_match_remote_send(m, (const struct an_send_rec *)in + i);
        *nremote += nin;
        free(in);
        if (cc) {
            parts_exchange(x, m, &pb, outlen, inlen, (int)bad);
            bad |= pb.oom;
            if (pfill > fill) fill = pfill;
        }
        /* where the next round ends: the earliest position plus the window */
        int64_t v[3] = {e ? e->t0 : INT64_MAX, -(int64_t)fill, -bad};
        x->reduce_i64(x, v, 3, AN_XCH_MIN);
        if (v[2]) x->fail(x, "mpilens: out of memory reading the slice");
        if (v[0] == INT64_MAX) break;
        if ((size_t)-v[1] >= o->batch) w = w > 1 ? w / 2 : 1;
        else if (2 * (size_t)-v[1] < o->batch && w < WINDOW_MAX) w *= 2;
        t = an_wadd(v[0], w);
    }
    an_progress_done(&pr);
    an_match_set_outbox(m, outbox_drop, NULL);   /* the batches are done */
    an_stream_free(s);
    for (int p = 0; pb.p && p < P; p++) free(pb.p[p]);
    free(pb.p);
    free(pb.n);
    free(pb.cap);
    free(outlen);
    free(inlen);
}

/* One read of this slice with no exchange: sends to other slices dropped. */
static int slice_pass(struct an_run *run, const struct an_sink *sink, int progress, const char *what,
                      int64_t *first, int64_t *last)
{
    struct an_match *m = an_match_new(run, sink);
    struct an_stream *s = an_stream_new(run);
    if (!m || !s) {
        an_match_free(m);
        an_stream_free(s);
        return -1;
    }
    an_match_set_repair(m, 0);
    an_match_set_outbox(m, outbox_drop, NULL);
    struct an_progress pr;
    an_progress_init(&pr, run, what);
    if (!progress) pr.on = 0;
    const struct an_event *e;
    uint64_t n = 0;
    *first = INT64_MAX;
    *last = INT64_MIN;
    while ((e = an_stream_next(s))) {
        if (n == 0) *first = e->t0;
        if (e->t1 > *last) *last = e->t1;
        an_match_event(m, e);
        if ((++n & 0xffff) == 0) an_progress_tick(&pr, n, e->t0);
    }
    an_progress_done(&pr);
    an_match_finish(m);
    an_stream_free(s);
    an_match_free(m);
    return 0;
}

/* A read with the exchange (slice_read) with a fresh matcher, finished;
 * NULL only where the job already failed. */
static struct an_match *slice_matched(struct an_run *run, const struct an_sink *sink, int progress, const char *what,
                                      const struct an_slice_coll *cc, uint64_t *nremote, uint64_t *cancels,
                                      uint64_t *shipped, int64_t *first, int64_t *last)
{
    struct an_xch *x = run->slice->x;
    struct outbox o;
    struct an_match *m = an_match_new(run, sink);
    if (outbox_init(&o, run->slice) != 0 || !m) x->fail(x, "mpilens: out of memory");
    /* the clocks repaired as the serial matcher does (any repair: the
     * caller repairs them across the slices, an_slice_repair) */
    an_match_set_repair(m, 1);
    slice_read(run, m, &o, cc, progress, what, nremote, first, last);
    if (cancels) *cancels = o.cancels;
    if (shipped) *shipped = o.shipped;
    outbox_free(&o);
    an_match_finish(m);
    return m;
}

int64_t an_slice_first(struct an_run *run)
{
    struct an_xch *x = run->slice->x;
    struct an_stream *s = an_stream_new(run);
    const struct an_event *e = s ? an_stream_next(s) : NULL;
    int64_t v[2] = {e ? e->t0 : INT64_MAX, !s};
    an_stream_free(s);
    x->reduce_i64(x, v, 1, AN_XCH_MIN);
    x->reduce_i64(x, v + 1, 1, AN_XCH_MAX);
    if (v[1]) x->fail(x, "mpilens: out of memory reading the slice");
    return v[0];
}

int an_slice_check(struct an_run *run, const struct an_sink *sink, int progress, struct an_slice_clocks *out,
                   struct an_slice_sends *keep)
{
    struct an_xch *x = run->slice->x;
    int64_t first, last;
    uint64_t nremote = 0, shipped = 0;
    /* one read, fed to sink, every receive checked against its send as the
     * batches bring it (repair on): if nothing was repaired anywhere, the
     * clocks it read are the headers', final */
    struct an_match *m = slice_matched(run, sink, progress, "writing", NULL, &nremote, NULL, &shipped, &first, &last);
    const struct an_match_stats *st = an_match_stats(m);
    int64_t v[5] = {(int64_t)st->repairable, (int64_t)(st->repaired - st->repairable), -first, last,
                    (int64_t)shipped};
    an_match_free(m);
    if (keep) keep->nin = nremote;
    x->reduce_i64(x, v, 2, AN_XCH_SUM);
    x->reduce_i64(x, v + 2, 2, AN_XCH_MAX);
    x->reduce_i64(x, v + 4, 1, AN_XCH_SUM);
    out->wrote = 1;
    out->repairable = (uint64_t)v[0];
    out->too_large = (uint64_t)v[1];
    out->first = -v[2];
    out->last = v[3];
    out->sends_out = (uint64_t)v[4];
    return 0;
}

int an_slice_pass(struct an_run *run, const struct an_sink *sink, int progress, int64_t *first, int64_t *last)
{
    struct an_xch *x = run->slice->x;
    int64_t v[3] = {0, 0, 0};
    v[0] = slice_pass(run, sink, progress, "writing", first, last) != 0;
    v[1] = -*first;
    v[2] = *last;
    x->reduce_i64(x, v, 3, AN_XCH_MAX);
    if (v[0]) x->fail(x, "mpilens: out of memory reading the slice");
    *first = -v[1];
    *last = v[2];
    return 0;
}

void an_slice_sends_free(struct an_slice_sends *xs, int P)
{
    for (int p = 0; xs->out && p < P; p++) free(xs->out[p]);
    free(xs->out);
    free(xs->nout);
    free(xs->in);
    memset(xs, 0, sizeof *xs);
}

struct an_match *an_slice_round(struct an_run *run, const struct an_sink *sink, struct an_slice_sends *xs,
                                int progress, const char *what)
{
    uint64_t nremote = 0;
    int64_t first, last;
    struct an_match *m = slice_matched(run, sink, progress, what, xs ? xs->coll : NULL, &nremote, NULL, NULL, &first,
                                       &last);
    if (xs) xs->nin = nremote;
    return m;
}

/* The clock repair across slices (docs/PARALLEL.md, "Clock repair across
 * slices"): a forward replay in rounds.  Each round reads every slice with
 * repair on, the sends of other slices coming in batches with their
 * senders' aligned starts as the senders' clocks then are, so every
 * receive is checked, and its own rank repaired, as in the serial
 * analysis.  The clocks only ever move later, to no more than the least
 * ones that satisfy every message: a round that repaired nothing anywhere
 * found every receive ending after its send began, so the clocks are those
 * least ones, the serial analysis's. */
int an_slice_repair(struct an_run *run, struct an_slice_sends *xs, int progress, struct an_slice_repair *out)
{
    struct an_xch *x = run->slice->x;
    memset(out, 0, sizeof *out);
    char what[64];
    for (unsigned round = 1; round <= MAX_PASSES; round++) {
        uint64_t before = x->bytes;
        snprintf(what, sizeof what, "repairing clocks (round %u)", round);
        struct an_match *m = an_slice_round(run, NULL, xs, progress, what);
        const struct an_match_stats *st = an_match_stats(m);
        int64_t v[2] = {(int64_t)st->repaired, (int64_t)(st->repaired - st->repairable)};
        an_match_free(m);
        x->reduce_i64(x, v, 2, AN_XCH_SUM);
        out->exchanged += x->bytes - before;
        out->rounds = round;
        out->too_large = (uint64_t)v[1];
        if (v[1]) break;   /* not repaired by the serial analysis either, which then depends on its order */
        if (v[0] == 0) {
            out->converged = 1;
            break;
        }
    }
    return 0;
}

struct an_match *an_slice_match(struct an_run *run, const struct an_sink *sink, int progress, uint64_t *remote,
                                uint64_t *cancels, struct an_slice_sends *keep)
{
    /* One read: the sends to other slices go to their receivers' owners in
     * batches and are posted there in their channels, each sender's in its
     * order: a channel's sends all come from one rank, so the k-th send
     * takes the k-th receive released, whichever came first (a receive
     * cancelled meanwhile left the channel either way; a send cancelled
     * before its batch left was taken back). */
    int64_t first, last;
    struct an_match *m = slice_matched(run, sink, progress, "reading", keep ? keep->coll : NULL, remote, cancels,
                                       NULL, &first, &last);
    if (keep) keep->nin = *remote;
    return m;
}
