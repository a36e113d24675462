/*
 * viewdata.c — the data of `mpilens view`'s page: every MPI call, every
 * matched message and every collective instance of a run, in aligned time
 * (the same clocks, repair and matching as the report), as compact columns
 * of variable-length integers for the page to decode.
 *
 * It is fed by one pass of an_analyse (an_view_sink) and keeps only the
 * encoded columns, per rank while the pass runs (calls and messages are
 * grouped by rank in the page: no rank column, and each rank's values
 * follow each other), joined rank after rank at the end.  Times are
 * nanoseconds since the run's earliest call; a call's start is the time
 * since its rank's previous call ended.  A message repeats nothing its
 * calls hold: it names its send call (the send start, receiver, bytes, tag
 * and communicator are that call's) and the call that completed its receive
 * (the completion is that call's end) by their index among their rank's
 * calls, as a small difference to the previous message's; a message whose
 * calls are not found among the last calls of their ranks (or that differ)
 * says so in its flags and gives the values.  The column layout is
 * AN_VIEW_COLUMNS below and docs/DESIGN.md ("mpilens view"); tool/view.c
 * turns the columns into the page, an_view_decode into arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

struct vbuf {
    uint8_t *p;
    size_t n, cap;
    int oom;
};

struct keymap {                 /* (rank index, id) -> small global index */
    uint64_t *key;              /* key + 1; 0 = empty */
    uint32_t *val;
    unsigned cap, n;
};

#define NCCOL (AN_VC_REPEAT - AN_VC_T0 + 1)      /* per-call columns */
#define NMCOL (AN_VM_COMM - AN_VM_FLAGS + 1)     /* per-message columns */

struct recent {                 /* one of a rank's last calls: what a message may name */
    int64_t t0, end;
    uint64_t idx, pcode;
    int64_t tag1;
    uint32_t bytes, comm1;
};

struct vrank {                  /* per rank read, while the pass runs */
    struct vbuf c[NCCOL], m[NMCOL];
    uint64_t ncalls, nmsgs, prev_scall;
    int64_t prev_end;
    struct recent *ring;        /* the last ring_cap calls (ring_cap: a power of 2) */
};

struct pending {                /* a message, until its calls are in the rings */
    int32_t src, dst, tag;
    uint32_t bytes, comm1;
    int64_t ts, tr;
};

struct pairmap {                /* (sender, receiver) -> last receive call index */
    uint64_t *key;              /* key + 1; 0 = empty */
    uint64_t *val;
    size_t cap, n;
};

struct an_view {
    struct an_run *run;
    int64_t origin;
    int have_origin;
    int64_t prev_coll;
    int nranks;
    struct vrank *rk;           /* per rank read (an_run.ranks) */
    unsigned ring_cap;
    struct pending *pend;
    size_t npend, pend_cap;
    struct pairmap pairs;
    struct vbuf col[AN_VIEW_NCOLS];
    struct an_view_counts counts;
    struct keymap sites, types;
    uint64_t *site_keys, *type_keys;   /* global index -> key */
    unsigned site_cap, type_cap;
    uint32_t *site_map;         /* keymap index -> index of its name (names shared by ranks) */
    unsigned nsite_names;
    char **site_names, **type_names;
    int oom;
    int windowed, over;         /* an_view_window */
    int64_t win_from, win_to;
    uint64_t cap;
    struct an_view_overview *ov;    /* an_view_want_overview */
    size_t ov_cap, ov_max;
    uint32_t *ov_slot;          /* hash: entry index + 1, 0 empty; ov_slots entries */
    size_t ov_slots;
    int64_t ov_span;
};

/* ---- encoding ---------------------------------------------------------------- */

static void put_u(struct vbuf *b, uint64_t v)
{
    if (b->n + 10 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    while (v >= 0x80) {
        b->p[b->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->p[b->n++] = (uint8_t)v;
}

static void put_s(struct vbuf *b, int64_t v)
{
    put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_bytes(struct vbuf *b, const uint8_t *p, size_t n)
{
    if (!n) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n) cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

struct vread {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t get_u(struct vread *r)
{
    uint64_t x = 0;
    for (int sh = 0;; sh += 7) {
        if (r->p >= r->end || sh > 63) {
            r->bad = 1;
            return 0;
        }
        uint8_t b = *r->p++;
        x |= (uint64_t)(b & 127) << sh;
        if (!(b & 128)) return x;
    }
}

static int64_t get_s(struct vread *r)
{
    uint64_t x = get_u(r);
    return (x & 1) ? -(int64_t)(x >> 1) - 1 : (int64_t)(x >> 1);
}

/* ---- (sender, receiver) -> last receive call index ----------------------------- */

static uint64_t *pair_slot(struct pairmap *m, uint64_t key)
{
    key++;
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        uint64_t *k = calloc(cap, sizeof *k), *v = calloc(cap, sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            return NULL;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->key[i]) continue;
            size_t j = (size_t)((m->key[i] * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
            while (k[j]) j = (j + 1) & (cap - 1);
            k[j] = m->key[i];
            v[j] = m->val[i];
        }
        free(m->key);
        free(m->val);
        m->key = k;
        m->val = v;
        m->cap = cap;
    }
    size_t j = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
    while (m->key[j] && m->key[j] != key) j = (j + 1) & (m->cap - 1);
    if (!m->key[j]) {
        m->key[j] = key;
        m->val[j] = 0;
        m->n++;
    }
    return &m->val[j];
}

/* ---- (rank, id) tables: call sites and datatypes ------------------------------- */

static int keymap_get(struct keymap *m, uint64_t key, uint64_t **keys, unsigned *kcap, uint32_t *out)
{
    key++;
    if ((m->n + 1) * 2 > m->cap) {
        unsigned cap = m->cap ? m->cap * 2 : 1024;
        uint64_t *k = calloc(cap, sizeof *k);
        uint32_t *v = calloc(cap, sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            return -1;
        }
        for (unsigned i = 0; i < m->cap; i++) {
            if (!m->key[i]) continue;
            unsigned j = (unsigned)((m->key[i] * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
            while (k[j]) j = (j + 1) & (cap - 1);
            k[j] = m->key[i];
            v[j] = m->val[i];
        }
        free(m->key);
        free(m->val);
        m->key = k;
        m->val = v;
        m->cap = cap;
    }
    unsigned j = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 40) & (m->cap - 1);
    while (m->key[j] && m->key[j] != key) j = (j + 1) & (m->cap - 1);
    if (!m->key[j]) {
        if (m->n >= *kcap) {
            unsigned cap = *kcap ? *kcap * 2 : 256;
            uint64_t *k = realloc(*keys, cap * sizeof *k);
            if (!k) return -1;
            *keys = k;
            *kcap = cap;
        }
        (*keys)[m->n] = key - 1;
        m->key[j] = key;
        m->val[j] = m->n++;
    }
    *out = m->val[j];
    return 0;
}

/* ---- what kind of call ------------------------------------------------------------ */

static int prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int call_kind(const char *name, uint8_t type)
{
    if (prefix(name, "MPI_File_") || prefix(name, "MPI_Register_datarep")) return AN_VIEW_IO;
    if (prefix(name, "MPI_Win_") || prefix(name, "MPI_Put") || prefix(name, "MPI_Get") ||
        prefix(name, "MPI_Rput") || prefix(name, "MPI_Rget") || prefix(name, "MPI_Accumulate") ||
        prefix(name, "MPI_Raccumulate") || prefix(name, "MPI_Fetch_and_op") ||
        prefix(name, "MPI_Compare_and_swap") || prefix(name, "MPI_Rget_accumulate")) {
        if (strcmp(name, "MPI_Get_count") && strcmp(name, "MPI_Get_elements") &&
            strcmp(name, "MPI_Get_elements_x") && strcmp(name, "MPI_Get_processor_name") &&
            strcmp(name, "MPI_Get_version") && strcmp(name, "MPI_Get_library_version") &&
            strcmp(name, "MPI_Get_address"))
            return AN_VIEW_RMA;
    }
    switch (type) {
    case ML_REC_P2P: case ML_REC_P2P_REQ: case ML_REC_SENDRECV: return AN_VIEW_P2P;
    case ML_REC_COLL: return AN_VIEW_COLL;
    case ML_REC_COMPLETE:
        if (prefix(name, "MPI_Start")) return AN_VIEW_P2P;
        if (prefix(name, "MPI_Wait") || prefix(name, "MPI_Test")) return AN_VIEW_WAIT;
        return AN_VIEW_OTHER;
    }
    if (prefix(name, "MPI_Wait") || prefix(name, "MPI_Test")) return AN_VIEW_WAIT;
    if (prefix(name, "MPI_Probe") || prefix(name, "MPI_Iprobe") || prefix(name, "MPI_Mprobe") ||
        prefix(name, "MPI_Improbe") || prefix(name, "MPI_Mrecv") || prefix(name, "MPI_Imrecv"))
        return AN_VIEW_P2P;
    return AN_VIEW_OTHER;
}

/* ---- the overview ---------------------------------------------------------------- */

static size_t ov_hash(int32_t src, int32_t dst, int64_t a, int64_t b, size_t mask)
{
    uint64_t h = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)a * 0xC2B2AE3D27D4EB4Full) ^ ((uint64_t)b * 0x165667B19E3779F9ull);
    h ^= h >> 29;
    return (size_t)h & mask;
}

static int64_t ov_bin(double t, double w)
{
    return (int64_t)(t / w);
}

/* The entries re-keyed at the current msg_bin_ns, equal keys merged (the
 * first message of the earlier entry kept). */
static int ov_rehash(struct an_view *v)
{
    struct an_view_overview *o = v->ov;
    size_t slots = 1;
    while (slots < 2 * (o->n + 1) || slots < 2 * v->ov_max) slots <<= 1;
    uint32_t *sl = calloc(slots, sizeof *sl);
    if (!sl) return -1;
    size_t n = 0;
    for (size_t i = 0; i < o->n; i++) {
        int64_t a = ov_bin((double)o->ts[i], o->msg_bin_ns), b = ov_bin((double)(o->ts[i] + o->lat[i]), o->msg_bin_ns);
        size_t j = ov_hash(o->src[i], o->dst[i], a, b, slots - 1);
        for (; sl[j]; j = (j + 1) & (slots - 1)) {
            size_t e = sl[j] - 1;
            if (o->src[e] == o->src[i] && o->dst[e] == o->dst[i] && ov_bin((double)o->ts[e], o->msg_bin_ns) == a &&
                ov_bin((double)(o->ts[e] + o->lat[e]), o->msg_bin_ns) == b)
                break;
        }
        if (sl[j]) {
            size_t e = sl[j] - 1;
            o->count[e] += o->count[i];
            o->bytes[e] += o->bytes[i];
            if (o->max_bytes[i] > o->max_bytes[e]) o->max_bytes[e] = o->max_bytes[i];
            continue;
        }
        o->src[n] = o->src[i], o->dst[n] = o->dst[i], o->count[n] = o->count[i], o->bytes[n] = o->bytes[i];
        o->max_bytes[n] = o->max_bytes[i], o->ts[n] = o->ts[i], o->lat[n] = o->lat[i];
        sl[j] = (uint32_t)(n + 1);
        n++;
    }
    o->n = n;
    free(v->ov_slot);
    v->ov_slot = sl;
    v->ov_slots = slots;
    return 0;
}

static void ov_message(struct an_view *v, int32_t src, int32_t dst, int64_t ts, int64_t lat, uint32_t bytes)
{
    struct an_view_overview *o = v->ov;
    if (lat > o->max_lat) o->max_lat = lat;
    int64_t a = ov_bin((double)ts, o->msg_bin_ns), b = ov_bin((double)(ts + lat), o->msg_bin_ns);
    size_t j = ov_hash(src, dst, a, b, v->ov_slots - 1);
    for (; v->ov_slot[j]; j = (j + 1) & (v->ov_slots - 1)) {
        size_t e = v->ov_slot[j] - 1;
        if (o->src[e] == src && o->dst[e] == dst && ov_bin((double)o->ts[e], o->msg_bin_ns) == a &&
            ov_bin((double)(o->ts[e] + o->lat[e]), o->msg_bin_ns) == b) {
            o->count[e]++;
            o->bytes[e] += bytes;
            if (bytes > o->max_bytes[e]) o->max_bytes[e] = bytes;
            return;
        }
    }
    size_t n = o->n++;
    o->src[n] = src, o->dst[n] = dst, o->count[n] = 1, o->bytes[n] = bytes, o->max_bytes[n] = bytes;
    o->ts[n] = ts, o->lat[n] = lat;
    v->ov_slot[j] = (uint32_t)(n + 1);
    /* full: bins twice as wide, until the entries merge to 3/4 or fewer */
    while (o->n >= v->ov_max && !v->oom) {
        o->msg_bin_ns *= 2;
        if (ov_rehash(v) != 0) v->oom = 1;
        if (o->n <= v->ov_max * 3 / 4) break;
    }
}

static void ov_call(struct an_view *v, unsigned ri, int64_t a, int64_t b, int kind)
{
    struct an_view_overview *o = v->ov;
    int w = v->run->ranks[ri].rank;
    if (w < 0 || (unsigned)w >= o->ranks) return;
    double bw = o->bin_ns;
    int64_t b0 = ov_bin((double)a, bw), b1 = ov_bin((double)b, bw);
    if (b0 < 0) b0 = 0;
    if (b1 >= (int64_t)o->bins) b1 = o->bins - 1;
    if (b0 >= (int64_t)o->bins) b0 = o->bins - 1;
    size_t base = (size_t)w * o->bins;
    for (int64_t k = b0; k <= b1; k++) {
        double lo = (double)k * bw, hi = lo + bw;
        double ov = ((double)b < hi ? (double)b : hi) - ((double)a > lo ? (double)a : lo) + 1e-3;
        if (ov > o->best[base + k]) {
            o->best[base + k] = (float)ov;
            o->kind[base + k] = (uint8_t)(kind + 1);
        }
    }
}

int an_view_want_overview(struct an_view *v, unsigned bins, size_t max_entries)
{
    struct an_view_overview *o = calloc(1, sizeof *o);
    if (!o) return -1;
    v->ov = o;
    int64_t first, last;
    an_run_span(v->run, &first, &last);
    v->ov_span = first == INT64_MAX || last <= first ? 1000000000 : an_wsub(last, first);
    o->ranks = (unsigned)(v->run->size > 0 ? v->run->size : 1);
    o->bins = bins ? bins : 1;
    o->bin_ns = (double)v->ov_span / o->bins;
    if (o->bin_ns < 1) o->bin_ns = 1;
    o->msg_bin_ns = o->bin_ns / 4 < 1 ? 1 : o->bin_ns / 4;
    v->ov_max = max_entries < 16 ? 16 : max_entries;
    size_t rb = (size_t)o->ranks * o->bins, m = v->ov_max + 1;
    o->kind = calloc(rb, 1);
    o->best = calloc(rb, sizeof *o->best);
    o->src = malloc(m * sizeof *o->src), o->dst = malloc(m * sizeof *o->dst);
    o->count = malloc(m * sizeof *o->count), o->bytes = malloc(m * sizeof *o->bytes);
    o->max_bytes = malloc(m * sizeof *o->max_bytes), o->ts = malloc(m * sizeof *o->ts), o->lat = malloc(m * sizeof *o->lat);
    if (!o->kind || !o->best || !o->src || !o->dst || !o->count || !o->bytes || !o->max_bytes || !o->ts || !o->lat ||
        ov_rehash(v) != 0)
        return -1;
    return 0;
}

const struct an_view_overview *an_view_overview(const struct an_view *v)
{
    return v->oom ? NULL : v->ov;
}

static void ov_free(struct an_view *v)
{
    struct an_view_overview *o = v->ov;
    if (!o) return;
    free(o->kind), free(o->best), free(o->src), free(o->dst), free(o->count), free(o->bytes), free(o->max_bytes);
    free(o->ts), free(o->lat), free(o);
    free(v->ov_slot);
}

void an_view_window(struct an_view *v, int64_t origin, int64_t from, int64_t to, uint64_t cap)
{
    v->windowed = 1;
    if (origin != INT64_MIN) {
        v->origin = v->prev_coll = origin;
        v->have_origin = 1;
    }
    v->win_from = from;
    v->win_to = to;
    v->cap = cap;
}

const int *an_view_over(const struct an_view *v)
{
    return &v->over;
}

/* Kept in the columns: in the window, and the cap not reached. */
static int keep(struct an_view *v, int64_t a, int64_t b)
{
    if (!v->windowed) return 1;
    if (v->over || b < v->win_from || a > v->win_to) return 0;
    if (v->counts.shown_calls + v->counts.shown_messages >= v->cap) {
        v->over = 1;
        return 0;
    }
    return 1;
}

/* ---- the sink ------------------------------------------------------------------- */

static uint32_t global_comm(const struct an_rank *r, uint16_t comm)
{
    if (comm == ML_COMM_NONE || comm >= r->ncomms) return UINT32_MAX;
    return r->comm[comm];
}

static void set_origin(struct an_view *v, int64_t t)
{
    if (v->have_origin) return;  /* the stream starts with the earliest call */
    v->origin = v->prev_coll = t;
    v->have_origin = 1;
}

/* The state of world rank w, NULL for a rank without a file. */
static struct vrank *vrank_of(struct an_view *v, int32_t w)
{
    if (w < 0 || w >= v->run->size || v->run->slot[w] < 0) return NULL;
    return &v->rk[v->run->slot[w]];
}

/* The newest of rank w's last calls that starts (send) or ends (receive) at t. */
static const struct recent *find_call(struct an_view *v, int32_t w, int64_t t, int end)
{
    struct vrank *k = vrank_of(v, w);
    if (!k || !k->ring) return NULL;
    uint64_t n = k->ncalls < v->ring_cap ? k->ncalls : v->ring_cap;
    for (uint64_t i = 1; i <= n; i++) {
        const struct recent *c = &k->ring[(k->ncalls - i) & (v->ring_cap - 1)];
        if ((end ? c->end : c->t0) == t) return c;
    }
    return NULL;
}

/* A message into its sender's columns, naming its calls where they are found. */
static void resolve(struct an_view *v, const struct pending *p)
{
    struct vrank *k = vrank_of(v, p->src);
    if (!k) {
        v->oom = 1;               /* never: matching only pairs ranks of the run */
        return;
    }
    struct vbuf *m = k->m;
    const struct recent *s = find_call(v, p->src, p->ts, 0);
    const struct recent *r = find_call(v, p->dst, p->tr, 1);
    unsigned flags = 0;
    if (!s) {
        flags = AN_VMF_TS | AN_VMF_DST | AN_VMF_BYTES | AN_VMF_TAG | AN_VMF_COMM;
        v->counts.msg_no_send++;
    } else {
        if (s->pcode < 4 || s->pcode - 4 != (uint64_t)(int64_t)p->dst) flags |= AN_VMF_DST;
        if (s->bytes != p->bytes) flags |= AN_VMF_BYTES;
        if (s->tag1 != (int64_t)p->tag + 1) flags |= AN_VMF_TAG;
        if (s->comm1 != p->comm1) flags |= AN_VMF_COMM;
    }
    if (!r) {
        flags |= AN_VMF_TR;
        v->counts.msg_no_recv++;
    }
    put_u(&m[AN_VM_FLAGS - AN_VM_FLAGS], flags);
    if (s) {
        put_s(&m[AN_VM_SCALL - AN_VM_FLAGS], (int64_t)(s->idx - k->prev_scall));
        k->prev_scall = s->idx;
    }
    if (r) {
        uint64_t *last = pair_slot(&v->pairs, (uint64_t)(uint32_t)p->src << 32 | (uint32_t)p->dst);
        if (!last) {
            v->oom = 1;
            return;
        }
        put_s(&m[AN_VM_RCALL - AN_VM_FLAGS], (int64_t)(r->idx - *last));
        *last = r->idx;
    }
    if (flags & AN_VMF_DST) put_u(&m[AN_VM_DST - AN_VM_FLAGS], (uint64_t)(int64_t)p->dst);
    if (flags & AN_VMF_TS) put_s(&m[AN_VM_TS - AN_VM_FLAGS], an_wsub(p->ts, v->origin));
    if (flags & AN_VMF_TR) put_s(&m[AN_VM_TR - AN_VM_FLAGS], an_wsub(p->tr, p->ts));
    if (flags & AN_VMF_BYTES) put_u(&m[AN_VM_BYTES - AN_VM_FLAGS], p->bytes);
    if (flags & AN_VMF_TAG) put_s(&m[AN_VM_TAG - AN_VM_FLAGS], p->tag);
    if (flags & AN_VMF_COMM) put_u(&m[AN_VM_COMM - AN_VM_FLAGS], p->comm1);
    k->nmsgs++;
}

static void resolve_pending(struct an_view *v)
{
    for (size_t i = 0; i < v->npend; i++) resolve(v, &v->pend[i]);
    v->npend = 0;
}

static void view_event(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    struct an_view *v = ctx;
    const struct an_rank *r = e->r;
    const struct mlr_event *ev = &e->ev;
    (void)ops;
    (void)nops;
    set_origin(v, e->t0);
    unsigned ri = (unsigned)(r - v->run->ranks);
    struct vrank *k = &v->rk[ri];
    uint16_t name = ev->routine < r->nroutines ? r->name[ev->routine] : 0;
    const char *nm = name < v->run->nnames ? v->run->names[name] : "";
    int64_t end = an_wadd(e->t1, ev->repeat ? an_wsub(ev->repeat_end_ns, ev->end_ns) : 0);
    int64_t dur = an_wsub(end, e->t0);
    if (dur < 0) dur = 0;
    v->counts.calls++;
    v->counts.calls_repeated += 1 + (uint64_t)ev->repeat;
    if (an_wsub(end, v->origin) > v->counts.last) v->counts.last = an_wsub(end, v->origin);
    int ckind = call_kind(nm, ev->type);
    if (v->ov) ov_call(v, ri, an_wsub(e->t0, v->origin), an_wsub(e->t0, v->origin) + dur, ckind);
    if (!keep(v, an_wsub(e->t0, v->origin), an_wsub(e->t0, v->origin) + dur)) {
        resolve_pending(v);
        return;
    }
    v->counts.shown_calls++;
    uint16_t comm = ML_COMM_NONE, dtype = ML_TYPE_NONE;
    int32_t peer = ML_PEER_NONE, tag = ML_PEER_NONE;
    uint32_t bytes = 0;
    switch (ev->type) {
    case ML_REC_P2P: case ML_REC_P2P_REQ: case ML_REC_SENDRECV:
        comm = ev->p2p[0].comm;
        dtype = ev->p2p[0].dtype;
        peer = ev->p2p[0].peer;
        tag = ev->p2p[0].tag;
        bytes = ev->p2p[0].bytes;
        break;
    case ML_REC_COLL:
        comm = ev->coll.comm;
        dtype = ev->coll.dtype;
        peer = ev->coll.root;
        bytes = ev->coll.bytes;
        break;
    }
    uint64_t pcode = 0;         /* 0 none, 1 any source, 2 proc null, 3 unknown, 4 + world rank */
    if (peer != ML_PEER_NONE) {
        if (peer == r->any_source) pcode = 1;
        else if (peer == r->proc_null) pcode = 2;
        else {
            int w = an_peer_world(v->run, r, comm, peer);
            pcode = w >= 0 ? 4 + (uint64_t)w : 3;
        }
    }
    uint32_t site = 0, type = 0;
    if (ev->site && keymap_get(&v->sites, (uint64_t)ri << 32 | ev->site, &v->site_keys, &v->site_cap, &site) == 0)
        site++;
    else if (ev->site)
        v->oom = 1;
    if (dtype != ML_TYPE_NONE &&
        keymap_get(&v->types, (uint64_t)ri << 32 | dtype, &v->type_keys, &v->type_cap, &type) == 0)
        type++;
    uint32_t gc = global_comm(r, comm);
    int64_t tag1 = tag == ML_PEER_NONE ? 0 : (int64_t)tag + 1;
    struct vbuf *c = k->c;
    /* the time since the end of the rank's previous call: mostly small */
    put_s(&c[AN_VC_T0 - AN_VC_T0], an_wsub(e->t0, k->prev_end == INT64_MIN ? v->origin : k->prev_end));
    k->prev_end = an_wadd(e->t0, dur);
    put_u(&c[AN_VC_DUR - AN_VC_T0], (uint64_t)dur);
    put_u(&c[AN_VC_NAME - AN_VC_T0], name);
    put_u(&c[AN_VC_KIND - AN_VC_T0], (uint64_t)ckind);
    put_u(&c[AN_VC_SITE - AN_VC_T0], site);
    put_u(&c[AN_VC_COMM - AN_VC_T0], gc == UINT32_MAX ? 0 : (uint64_t)gc + 1);
    put_u(&c[AN_VC_PEER - AN_VC_T0], pcode);
    put_s(&c[AN_VC_TAG - AN_VC_T0], tag1);
    put_u(&c[AN_VC_BYTES - AN_VC_T0], bytes);
    put_u(&c[AN_VC_TYPE - AN_VC_T0], type);
    put_u(&c[AN_VC_REPEAT - AN_VC_T0], ev->repeat);
    if (!k->ring && !(k->ring = malloc(v->ring_cap * sizeof *k->ring))) v->oom = 1;
    if (k->ring) {
        struct recent *x = &k->ring[k->ncalls & (v->ring_cap - 1)];
        x->t0 = e->t0;
        x->end = an_wadd(e->t0, dur);
        x->idx = k->ncalls;
        x->pcode = pcode;
        x->tag1 = tag1;
        x->bytes = bytes;
        x->comm1 = gc == UINT32_MAX ? 0 : gc + 1;
    }
    k->ncalls++;
    /* the messages this event matched name it or calls before it */
    resolve_pending(v);
}

/* Aligned time of a message end: the call's local time on its rank's clock. */
static int64_t end_time(struct an_run *run, const struct an_end *e, int64_t local)
{
    const struct an_rank *r = &run->ranks[run->slot[e->rank]];
    return an_wadd(an_clock_base(&r->clock, local), an_clock_extra(&r->clock, e->t0));
}

static void view_message(void *ctx, const struct an_msg *m)
{
    struct an_view *v = ctx;
    int64_t ts = end_time(v->run, &m->send, m->send.t0);
    int64_t tr = end_time(v->run, &m->recv, m->recv.t1);
    set_origin(v, ts);
    v->counts.messages++;
    v->counts.bytes += m->bytes;
    if (v->ov) ov_message(v, m->send.rank, m->recv.rank, an_wsub(ts, v->origin), an_wsub(tr, ts), m->bytes);
    if (!keep(v, an_wsub(ts, v->origin), an_wsub(tr, v->origin))) return;
    v->counts.shown_messages++;
    if (v->npend == v->pend_cap) {
        size_t cap = v->pend_cap ? v->pend_cap * 2 : 64;
        struct pending *p = realloc(v->pend, cap * sizeof *p);
        if (!p) {
            v->oom = 1;
            return;
        }
        v->pend = p;
        v->pend_cap = cap;
    }
    struct pending *p = &v->pend[v->npend++];
    p->src = m->send.rank;
    p->dst = m->recv.rank;
    p->tag = m->tag;
    p->bytes = m->bytes;
    p->comm1 = m->comm == UINT32_MAX ? 0 : m->comm + 1;
    p->ts = ts;
    p->tr = tr;
}

static void view_coll(void *ctx, const struct an_coll *c)
{
    struct an_view *v = ctx;
    set_origin(v, c->first);
    v->counts.colls++;
    if (v->ov && an_wsub(c->end, c->first) > v->ov->max_coll) v->ov->max_coll = an_wsub(c->end, c->first);
    if (v->windowed && (v->over || an_wsub(c->end, v->origin) < v->win_from || an_wsub(c->first, v->origin) > v->win_to))
        return;
    v->counts.shown_colls++;
    put_u(&v->col[AN_VK_COMM], (uint64_t)c->comm + 1);
    put_u(&v->col[AN_VK_NAME], c->name);
    put_s(&v->col[AN_VK_FIRST], an_wsub(c->first, v->prev_coll));
    v->prev_coll = c->first;
    put_s(&v->col[AN_VK_LEN], an_wsub(c->end, c->first));
    put_u(&v->col[AN_VK_MEMBERS], c->members);
    put_u(&v->col[AN_VK_BYTES], c->bytes);
}

/* ---- public face ----------------------------------------------------------------- */

struct an_view *an_view_new(struct an_run *run)
{
    struct an_view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->run = run;
    v->nranks = run->size > 0 ? run->size : 1;
    v->rk = calloc(run->n ? run->n : 1, sizeof *v->rk);
    if (!v->rk) {
        free(v);
        return NULL;
    }
    for (unsigned i = 0; i < run->n; i++) v->rk[i].prev_end = INT64_MIN;
    /* a message names one of the last calls of its ranks: 256 per rank, fewer
     * (not under 16) when ranks are many */
    v->ring_cap = 256;
    while (v->ring_cap > 16 && (uint64_t)v->ring_cap * run->n > (1u << 20)) v->ring_cap /= 2;
    return v;
}

struct an_sink an_view_sink(struct an_view *v)
{
    struct an_sink s = {v, view_event, view_message, view_coll};
    return s;
}

static int cmp_name(const void *a, const void *b, void *names)
{
    char **n = names;
    return strcmp(n[*(const uint32_t *)a], n[*(const uint32_t *)b]);
}

/* Call sites named once however many ranks share them: site_map[i] is the
 * index of keymap site i's name in site_names. */
static int name_sites(struct an_view *v, an_site_namer where)
{
    unsigned n = v->sites.n;
    char buf[1024];
    char **all = calloc(n + 1, sizeof *all);
    uint32_t *ord = malloc((n + 1) * sizeof *ord);
    v->site_map = malloc((n + 1) * sizeof *v->site_map);
    v->site_names = calloc(n + 1, sizeof *v->site_names);
    int rc = -1;
    if (!all || !ord || !v->site_map || !v->site_names) goto out;
    for (unsigned i = 0; i < n; i++) {
        const struct an_rank *r = &v->run->ranks[v->site_keys[i] >> 32];
        const char *s = where ? where(r->f, (uint32_t)v->site_keys[i], buf, sizeof buf) : NULL;
        if (!(all[i] = strdup(s ? s : "(unknown)"))) goto out;
        ord[i] = i;
    }
    qsort_r(ord, n, sizeof *ord, cmp_name, all);
    unsigned u = 0;
    for (unsigned i = 0; i < n; i++) {
        if (u == 0 || strcmp(all[ord[i]], v->site_names[u - 1]) != 0) {
            v->site_names[u++] = all[ord[i]];
            all[ord[i]] = NULL;
        }
        v->site_map[ord[i]] = u - 1;
    }
    v->nsite_names = u;
    rc = 0;
out:
    for (unsigned i = 0; all && i < n; i++) free(all[i]);
    free(all);
    free(ord);
    return rc;
}

int an_view_finish(struct an_view *v, an_site_namer where)
{
    resolve_pending(v);
    for (int i = 0; i < AN_VIEW_NCOLS; i++)
        if (v->col[i].oom) v->oom = 1;
    if (v->oom || name_sites(v, where) != 0) return -1;
    /* the ranks' columns joined, rank after rank; call sites by name */
    for (int w = 0; w < v->nranks; w++) {
        struct vrank *k = vrank_of(v, w);
        put_u(&v->col[AN_VC_COUNT], k ? k->ncalls : 0);
        put_u(&v->col[AN_VM_COUNT], k ? k->nmsgs : 0);
        if (!k) continue;
        for (int c = 0; c < NCCOL; c++) {
            if (k->c[c].oom) v->oom = 1;
            if (c + AN_VC_T0 == AN_VC_SITE) {
                struct vread rd = {k->c[c].p, k->c[c].p ? k->c[c].p + k->c[c].n : NULL, 0};
                for (uint64_t i = 0; i < k->ncalls; i++) {
                    uint64_t s = get_u(&rd);
                    put_u(&v->col[AN_VC_SITE], s && s <= v->sites.n ? (uint64_t)v->site_map[s - 1] + 1 : 0);
                }
                if (rd.bad) v->oom = 1;
            } else {
                put_bytes(&v->col[c + AN_VC_T0], k->c[c].p, k->c[c].n);
            }
            free(k->c[c].p);
            memset(&k->c[c], 0, sizeof k->c[c]);
        }
        for (int c = 0; c < NMCOL; c++) {
            if (k->m[c].oom) v->oom = 1;
            put_bytes(&v->col[c + AN_VM_FLAGS], k->m[c].p, k->m[c].n);
            free(k->m[c].p);
            memset(&k->m[c], 0, sizeof k->m[c]);
        }
        free(k->ring);
        k->ring = NULL;
    }
    for (int i = 0; i < AN_VIEW_NCOLS; i++)
        if (v->col[i].oom) v->oom = 1;
    if (v->oom) return -1;
    v->counts.origin = v->origin;
    v->counts.sites = v->nsite_names;
    v->counts.types = v->types.n;
    v->type_names = calloc(v->types.n + 1, sizeof *v->type_names);
    if (!v->type_names) return -1;
    char buf[1024];
    for (unsigned i = 0; i < v->types.n; i++) {
        const struct an_rank *r = &v->run->ranks[v->type_keys[i] >> 32];
        const struct mlr_type *t = mlr_type(r->f, (uint16_t)v->type_keys[i]);
        if (!t) snprintf(buf, sizeof buf, "type #%u", (unsigned)(uint16_t)v->type_keys[i]);
        else if (t->name[0]) snprintf(buf, sizeof buf, "%s", t->name);
        else snprintf(buf, sizeof buf, "derived (%d bytes)", t->size);
        v->type_names[i] = strdup(buf);
        if (!v->type_names[i]) return -1;
    }
    return 0;
}

const uint8_t *an_view_column(const struct an_view *v, int i, size_t *len)
{
    *len = v->col[i].n;
    return v->col[i].p;
}

const struct an_view_counts *an_view_counts(const struct an_view *v)
{
    return &v->counts;
}

const char *an_view_site(const struct an_view *v, unsigned i)
{
    return v->site_names && i < v->nsite_names ? v->site_names[i] : "(unknown)";
}

const char *an_view_type(const struct an_view *v, unsigned i)
{
    return v->type_names && i < v->types.n ? v->type_names[i] : "?";
}

void an_view_arrays_free(struct an_view_arrays *a)
{
    free(a->c_rank), free(a->c_t0), free(a->c_dur), free(a->c_name), free(a->c_kind);
    free(a->m_src), free(a->m_dst), free(a->m_tag), free(a->m_ts), free(a->m_lat), free(a->m_bytes);
    memset(a, 0, sizeof *a);
}

static struct vread reader(const struct an_view *v, int col)
{
    struct vread r = {v->col[col].p, v->col[col].p ? v->col[col].p + v->col[col].n : NULL, 0};
    return r;
}

int an_view_decode(const struct an_view *v, struct an_view_arrays *a)
{
    memset(a, 0, sizeof *a);
    uint64_t nc = a->nc = v->counts.shown_calls, nm = a->nm = v->counts.shown_messages;
    int R = v->nranks;
    a->c_rank = malloc((nc + 1) * sizeof *a->c_rank);
    a->c_t0 = malloc((nc + 1) * sizeof *a->c_t0);
    a->c_dur = malloc((nc + 1) * sizeof *a->c_dur);
    a->c_name = malloc((nc + 1) * sizeof *a->c_name);
    a->c_kind = malloc((nc + 1) * sizeof *a->c_kind);
    a->m_src = malloc((nm + 1) * sizeof *a->m_src);
    a->m_dst = malloc((nm + 1) * sizeof *a->m_dst);
    a->m_tag = malloc((nm + 1) * sizeof *a->m_tag);
    a->m_ts = malloc((nm + 1) * sizeof *a->m_ts);
    a->m_lat = malloc((nm + 1) * sizeof *a->m_lat);
    a->m_bytes = malloc((nm + 1) * sizeof *a->m_bytes);
    uint64_t *base = malloc(((size_t)R + 1) * sizeof *base);
    int64_t *c_bytes = malloc((nc + 1) * sizeof *c_bytes), *c_tag = malloc((nc + 1) * sizeof *c_tag);
    uint64_t *c_peer = malloc((nc + 1) * sizeof *c_peer), *c_comm = malloc((nc + 1) * sizeof *c_comm);
    uint64_t *last = malloc(((size_t)R + 1) * sizeof *last);
    int32_t *stamp = malloc(((size_t)R + 1) * sizeof *stamp);
    int bad = 0;
    if (!a->c_rank || !a->c_t0 || !a->c_dur || !a->c_name || !a->c_kind || !a->m_src || !a->m_dst || !a->m_tag ||
        !a->m_ts || !a->m_lat || !a->m_bytes || !base || !c_bytes || !c_tag || !c_peer || !c_comm || !last || !stamp) {
        bad = 1;
        goto out;
    }
    struct vread cnt = reader(v, AN_VC_COUNT), t0 = reader(v, AN_VC_T0), du = reader(v, AN_VC_DUR),
                 na = reader(v, AN_VC_NAME), ki = reader(v, AN_VC_KIND), co = reader(v, AN_VC_COMM),
                 pe = reader(v, AN_VC_PEER), tg = reader(v, AN_VC_TAG), by = reader(v, AN_VC_BYTES);
    uint64_t i = 0;
    for (int r = 0; r < R; r++) {
        uint64_t n = get_u(&cnt);
        base[r] = i;
        if (n > nc - i) {
            bad = 1;
            goto out;
        }
        int64_t prev = 0;
        for (uint64_t e = i + n; i < e; i++) {
            a->c_rank[i] = r;
            a->c_t0[i] = an_wadd(prev, get_s(&t0));
            a->c_dur[i] = (int64_t)get_u(&du);
            prev = an_wadd(a->c_t0[i], a->c_dur[i]);
            a->c_name[i] = (uint32_t)get_u(&na);
            a->c_kind[i] = (uint32_t)get_u(&ki);
            c_comm[i] = get_u(&co);
            c_peer[i] = get_u(&pe);
            c_tag[i] = get_s(&tg);
            c_bytes[i] = (int64_t)get_u(&by);
        }
    }
    base[R] = i;
    bad = i != nc || cnt.bad || t0.bad || du.bad || na.bad || ki.bad || co.bad || pe.bad || tg.bad || by.bad;
    if (bad) goto out;
    struct vread mc = reader(v, AN_VM_COUNT), fl = reader(v, AN_VM_FLAGS), sc = reader(v, AN_VM_SCALL),
                 rc = reader(v, AN_VM_RCALL), ds = reader(v, AN_VM_DST), ts = reader(v, AN_VM_TS),
                 tr = reader(v, AN_VM_TR), mb = reader(v, AN_VM_BYTES), mt = reader(v, AN_VM_TAG);
    for (int r = 0; r <= R; r++) stamp[r] = -1;
    uint64_t j = 0;
    for (int r = 0; r < R && !bad; r++) {
        uint64_t n = get_u(&mc), sidx = 0;
        if (n > nm - j) {
            bad = 1;
            break;
        }
        for (uint64_t e = j + n; j < e; j++) {
            unsigned f = (unsigned)get_u(&fl);
            int64_t dst = -1, tag = 0, when = 0;
            uint64_t bytes = 0;
            a->m_src[j] = r;
            if (!(f & AN_VMF_TS)) {
                sidx += (uint64_t)get_s(&sc);
                if (sidx >= base[r + 1] - base[r]) {
                    bad = 1;
                    break;
                }
                uint64_t c = base[r] + sidx;
                when = a->c_t0[c];
                dst = c_peer[c] >= 4 ? (int64_t)c_peer[c] - 4 : -1;
                bytes = (uint64_t)c_bytes[c];
                tag = an_wsub(c_tag[c], 1);
            }
            if (f & AN_VMF_DST) dst = (int64_t)get_u(&ds);
            if (f & AN_VMF_TS) when = get_s(&ts);
            if (f & AN_VMF_BYTES) bytes = get_u(&mb);
            if (f & AN_VMF_TAG) tag = get_s(&mt);
            if (dst < 0 || dst >= R) {
                bad = 1;
                break;
            }
            a->m_dst[j] = (int32_t)dst;
            a->m_ts[j] = when;
            a->m_bytes[j] = bytes;
            a->m_tag[j] = (int32_t)tag;
            if (f & AN_VMF_TR) {
                a->m_lat[j] = get_s(&tr);
            } else {
                if (stamp[dst] != r) {
                    stamp[dst] = r;
                    last[dst] = 0;
                }
                last[dst] += (uint64_t)get_s(&rc);
                if (last[dst] >= base[dst + 1] - base[dst]) {
                    bad = 1;
                    break;
                }
                uint64_t c = base[dst] + last[dst];
                a->m_lat[j] = an_wsub(an_wadd(a->c_t0[c], a->c_dur[c]), when);
            }
        }
    }
    if (j != nm || mc.bad || fl.bad || sc.bad || rc.bad || ds.bad || ts.bad || tr.bad || mb.bad || mt.bad) bad = 1;
out:
    free(base), free(c_bytes), free(c_tag), free(c_peer), free(c_comm), free(last), free(stamp);
    if (bad) an_view_arrays_free(a);
    return bad ? -1 : 0;
}

void an_view_free(struct an_view *v)
{
    if (!v) return;
    for (int i = 0; i < AN_VIEW_NCOLS; i++) free(v->col[i].p);
    for (unsigned w = 0; v->rk && w < v->run->n; w++) {
        for (int c = 0; c < NCCOL; c++) free(v->rk[w].c[c].p);
        for (int c = 0; c < NMCOL; c++) free(v->rk[w].m[c].p);
        free(v->rk[w].ring);
    }
    free(v->rk);
    free(v->pend);
    free(v->pairs.key);
    free(v->pairs.val);
    for (unsigned i = 0; v->site_names && i < v->nsite_names; i++) free(v->site_names[i]);
    for (unsigned i = 0; v->type_names && i < v->types.n; i++) free(v->type_names[i]);
    free(v->site_names);
    free(v->type_names);
    free(v->site_map);
    free(v->sites.key);
    free(v->sites.val);
    free(v->types.key);
    free(v->types.val);
    free(v->site_keys);
    free(v->type_keys);
    ov_free(v);
    free(v);
}
