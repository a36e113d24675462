/*
 * viewdata.c — the data of `mpilens view`'s page: every MPI call, every
 * matched message and every collective instance of a run, in aligned time
 * (the same clocks, repair and matching as the report), as compact columns
 * of variable-length integers for the page to decode.
 *
 * It is fed by one pass of an_analyse (an_view_sink) and keeps only the
 * encoded columns, per rank while the pass runs (calls and messages are
 * grouped by rank in the page: no rank column, and each rank's values
 * follow each other), joined rank after rank at the end (an_view_finish),
 * or given in the page's order without being joined (an_view_finish_parts,
 * an_view_write; a sliced run: an_view_slice_write).  Times are
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
#include <zlib.h>

#include "analysis.h"
#include "exchange.h"

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

struct vrank {                  /* per rank read, while the pass runs */
    struct vbuf c[NCCOL], m[NMCOL];
    uint64_t ncalls, nmsgs, prev_scall;
    int64_t prev_end;
};

struct pending {                /* a message, until every call is read */
    int32_t src, dst, tag;
    uint32_t bytes, comm1;
    int32_t ts_local;           /* sliced: ts is still the send's local start, for the sender's owner */
    int64_t ts, tr;
    int64_t rcall;              /* the receive call: its index among dst's calls, -1 none */
};

struct crec {                   /* a collective instance, until the pass ends */
    uint32_t comm, name, members, pad;
    uint64_t index, bytes;
    int64_t first, end;
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
    struct pending *pend;
    size_t npend, pend_cap;
    struct pairmap pairs;
    struct vbuf col[AN_VIEW_NCOLS];
    struct an_view_counts counts;
    struct keymap sites, types;
    uint64_t *site_keys, *type_keys;   /* global index -> key */
    unsigned site_cap, type_cap;
    uint32_t *site_map;         /* keymap index -> index of its name (names shared by ranks) */
    uint32_t *type_map;         /* the same for datatypes */
    unsigned nsite_names, ntype_names;
    char **site_names, **type_names;
    struct crec *colls;
    size_t ncolls, colls_cap;
    int merged;                 /* an_view_slice_merge made it */
    int parts;                  /* an_view_finish_parts done: columns per rank, for an_view_write */
    int32_t *pid;               /* merged: per world rank, its process id (-1 none) */
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
    uint8_t etype = ev->unfinished ? an_unfinished_type(r, ev, nm) : ev->type;
    int ckind = call_kind(nm, etype);
    if (v->ov) ov_call(v, ri, an_wsub(e->t0, v->origin), an_wsub(e->t0, v->origin) + dur, ckind);
    if (!keep(v, an_wsub(e->t0, v->origin), an_wsub(e->t0, v->origin) + dur)) return;
    v->counts.shown_calls++;
    uint16_t comm = ML_COMM_NONE, dtype = ML_TYPE_NONE;
    int32_t peer = ML_PEER_NONE, tag = ML_PEER_NONE;
    uint32_t bytes = 0;
    switch (etype) {
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
        peer = ev->unfinished ? ML_PEER_NONE : ev->coll.root;   /* (the slot's peer: not always a root) */
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
    k->ncalls++;
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
    /* a sliced run pairs a send of another slice here: its start is
     * aligned by its sender's owner (an_view_slice_messages) */
    int remote = m->send.rank < 0 || m->send.rank >= v->run->size || v->run->slot[m->send.rank] < 0;
    int64_t ts = remote ? m->send.t0 : end_time(v->run, &m->send, m->send.t0);
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
    p->ts_local = remote;
    p->ts = ts;
    p->tr = tr;
    p->rcall = -1;
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
    if (v->ncolls == v->colls_cap) {
        size_t cap = v->colls_cap ? v->colls_cap * 2 : 64;
        struct crec *q = realloc(v->colls, cap * sizeof *q);
        if (!q) {
            v->oom = 1;
            return;
        }
        v->colls = q;
        v->colls_cap = cap;
    }
    struct crec *q = &v->colls[v->ncolls++];
    memset(q, 0, sizeof *q);
    q->comm = c->comm;
    q->name = c->name;
    q->members = c->members;
    q->index = c->index;
    q->bytes = c->bytes;
    q->first = c->first;
    q->end = c->end;
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
    return v;
}

struct an_sink an_view_sink(struct an_view *v)
{
    struct an_sink s = {v, view_event, view_message, view_coll};
    return s;
}

void an_view_set_origin(struct an_view *v, int64_t origin)
{
    v->origin = v->prev_coll = v->counts.origin = origin;
    v->have_origin = 1;
}

static int cmp_name(const void *a, const void *b, void *names)
{
    char **n = names;
    return strcmp(n[*(const uint32_t *)a], n[*(const uint32_t *)b]);
}

/* all[0..n) (taken) as sorted unique names: (*map)[i] is the index of all[i]'s. */
static int unique_names(char **all, unsigned n, uint32_t **map, char ***names, unsigned *nu)
{
    uint32_t *ord = malloc((n + 1) * sizeof *ord);
    *map = malloc((n + 1) * sizeof **map);
    *names = calloc(n + 1, sizeof **names);
    *nu = 0;
    if (!ord || !*map || !*names) {
        free(ord);
        return -1;
    }
    for (unsigned i = 0; i < n; i++) ord[i] = i;
    qsort_r(ord, n, sizeof *ord, cmp_name, all);
    unsigned u = 0;
    for (unsigned i = 0; i < n; i++) {
        if (u == 0 || strcmp(all[ord[i]], (*names)[u - 1]) != 0) {
            (*names)[u++] = all[ord[i]];
            all[ord[i]] = NULL;
        }
        (*map)[ord[i]] = u - 1;
    }
    *nu = u;
    free(ord);
    return 0;
}

/* Call sites and datatypes named once however many ranks share them, in
 * the order of their names (not the order they were met: the same in a
 * sliced run): site_map[i] is the index of keymap site i's name in
 * site_names, type_map the same for types. */
static int name_sites(struct an_view *v, an_site_namer where)
{
    unsigned n = v->sites.n, nt = v->types.n;
    char buf[1024];
    char **all = calloc(n + 1, sizeof *all), **tall = calloc(nt + 1, sizeof *tall);
    int rc = -1;
    if (!all || !tall) goto out;
    for (unsigned i = 0; i < n; i++) {
        const struct an_rank *r = &v->run->ranks[v->site_keys[i] >> 32];
        const char *s = where ? where(r->f, (uint32_t)v->site_keys[i], buf, sizeof buf) : NULL;
        if (!(all[i] = strdup(s ? s : "(unknown)"))) goto out;
    }
    for (unsigned i = 0; i < nt; i++) {
        const struct an_rank *r = &v->run->ranks[v->type_keys[i] >> 32];
        const struct mlr_type *t = mlr_type(r->f, (uint16_t)v->type_keys[i]);
        if (!t) snprintf(buf, sizeof buf, "type #%u", (unsigned)(uint16_t)v->type_keys[i]);
        else if (t->name[0]) snprintf(buf, sizeof buf, "%s", t->name);
        else snprintf(buf, sizeof buf, "derived (%d bytes)", t->size);
        if (!(tall[i] = strdup(buf))) goto out;
    }
    if (unique_names(all, n, &v->site_map, &v->site_names, &v->nsite_names) != 0 ||
        unique_names(tall, nt, &v->type_map, &v->type_names, &v->ntype_names) != 0)
        goto out;
    rc = 0;
out:
    for (unsigned i = 0; all && i < n; i++) free(all[i]);
    for (unsigned i = 0; tall && i < nt; i++) free(tall[i]);
    free(all);
    free(tall);
    return rc;
}

/* ---- messages: the calls they name ------------------------------------------------ */

/* One rank's calls decoded from its columns, for naming the calls of its
 * messages: any of its calls may be named, whatever the order the messages
 * came in (the same in a sliced run, where they come in another order). */
struct rcalls {
    uint64_t n;
    int64_t *t0, *end, *tag1;
    uint64_t *pcode, *bytes, *comm1;
    uint64_t *ord;              /* calls by (key, index); NULL: the keys are in order already */
    const int64_t *key;
};

static void rcalls_free(struct rcalls *c)
{
    free(c->t0), free(c->end), free(c->tag1), free(c->pcode), free(c->bytes), free(c->comm1), free(c->ord);
    memset(c, 0, sizeof *c);
}

static int cmp_key(const void *a, const void *b, void *ctx)
{
    const int64_t *key = ctx;
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    if (key[x] != key[y]) return key[x] < key[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static struct vread col_reader(const struct vbuf *b)
{
    struct vread r = {b->p, b->p ? b->p + b->n : NULL, 0};
    return r;
}

/* Rank k's calls, to be found by end (by_end: times only) or by start
 * (with what a send call says: peer, tag, bytes, communicator). */
static int rcalls_load(struct an_view *v, struct vrank *k, struct rcalls *c, int by_end)
{
    memset(c, 0, sizeof *c);
    uint64_t n = c->n = k->ncalls;
    c->t0 = malloc((n + 1) * sizeof *c->t0), c->end = malloc((n + 1) * sizeof *c->end);
    if (!c->t0 || !c->end) return -1;
    if (!by_end) {
        c->tag1 = malloc((n + 1) * sizeof *c->tag1), c->pcode = malloc((n + 1) * sizeof *c->pcode);
        c->bytes = malloc((n + 1) * sizeof *c->bytes), c->comm1 = malloc((n + 1) * sizeof *c->comm1);
        if (!c->tag1 || !c->pcode || !c->bytes || !c->comm1) return -1;
    }
    struct vread t0 = col_reader(&k->c[AN_VC_T0 - AN_VC_T0]), du = col_reader(&k->c[AN_VC_DUR - AN_VC_T0]),
                 co = col_reader(&k->c[AN_VC_COMM - AN_VC_T0]), pe = col_reader(&k->c[AN_VC_PEER - AN_VC_T0]),
                 tg = col_reader(&k->c[AN_VC_TAG - AN_VC_T0]), by = col_reader(&k->c[AN_VC_BYTES - AN_VC_T0]);
    int64_t prev = v->origin;
    for (uint64_t i = 0; i < n; i++) {
        c->t0[i] = an_wadd(prev, get_s(&t0));
        c->end[i] = prev = an_wadd(c->t0[i], (int64_t)get_u(&du));
        if (by_end) continue;
        c->comm1[i] = get_u(&co);
        c->pcode[i] = get_u(&pe);
        c->tag1[i] = get_s(&tg);
        c->bytes[i] = get_u(&by);
    }
    if (t0.bad || du.bad || co.bad || pe.bad || tg.bad || by.bad) return -1;
    c->key = by_end ? c->end : c->t0;
    int sorted = 1;
    for (uint64_t i = 1; i < n && sorted; i++) sorted = c->key[i - 1] <= c->key[i];
    if (sorted) return 0;       /* mostly: a rank's calls follow each other */
    if (!(c->ord = malloc((n + 1) * sizeof *c->ord))) return -1;
    for (uint64_t i = 0; i < n; i++) c->ord[i] = i;
    qsort_r(c->ord, n, sizeof *c->ord, cmp_key, (void *)c->key);
    return 0;
}

/* The last call (by index) whose key is t, -1 none. */
static int64_t rcalls_find(const struct rcalls *c, int64_t t)
{
    uint64_t lo = 0, hi = c->n;
#define AT(i) (c->ord ? c->ord[i] : (i))
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (c->key[AT(mid)] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && c->key[AT(lo - 1)] == t ? (int64_t)AT(lo - 1) : -1;
#undef AT
}

/* Messages in a fixed order: by sender, send start, receive completion, and the rest. */
static int cmp_msg(const void *a, const void *b)
{
    const struct pending *x = a, *y = b;
#define K(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
    K(src);
    K(ts);
    K(tr);
    K(dst);
    K(tag);
    K(bytes);
    K(comm1);
    K(rcall);
#undef K
    return 0;
}

static int cmp_msg_at(const void *a, const void *b, void *pend)
{
    const struct pending *p = pend;
    return cmp_msg(&p[*(const size_t *)a], &p[*(const size_t *)b]);
}

/* The messages' indices grouped by receiver (by_src: by sender), in a new
 * array; *at (nranks + 1 entries) where each rank's start. */
static size_t *group(struct an_view *v, int by_src, size_t **at)
{
    size_t R = (size_t)v->nranks;
    size_t *ix = malloc((v->npend + 1) * sizeof *ix), *c = calloc(R + 2, sizeof *c);
    if (!ix || !c) {
        free(ix), free(c);
        return NULL;
    }
    for (size_t i = 0; i < v->npend; i++) {
        int32_t w = by_src ? v->pend[i].src : v->pend[i].dst;
        c[(w >= 0 && (size_t)w < R ? (size_t)w : R) + 1]++;
    }
    for (size_t w = 1; w <= R + 1; w++) c[w] += c[w - 1];
    size_t *put = malloc((R + 2) * sizeof *put);
    if (!put) {
        free(ix), free(c);
        return NULL;
    }
    memcpy(put, c, (R + 2) * sizeof *put);
    for (size_t i = 0; i < v->npend; i++) {
        int32_t w = by_src ? v->pend[i].src : v->pend[i].dst;
        ix[put[w >= 0 && (size_t)w < R ? (size_t)w : R]++] = i;
    }
    free(put);
    *at = c;
    return ix;
}

/* Each message's receive call, among its receiver's calls (here). */
static int name_receives(struct an_view *v)
{
    size_t *at, *ix = group(v, 0, &at);
    if (!ix) return -1;
    struct rcalls c;
    int rc = 0;
    for (int d = 0; d <= v->nranks && rc == 0; d++) {
        if (at[d] == at[d + 1]) continue;
        struct vrank *k = d < v->nranks ? vrank_of(v, d) : NULL;
        int have = k && rcalls_load(v, k, &c, 1) == 0;
        if (k && !have) rc = -1;
        for (size_t i = at[d]; rc == 0 && i < at[d + 1]; i++) {
            struct pending *p = &v->pend[ix[i]];
            p->rcall = have ? rcalls_find(&c, p->tr) : -1;
            if (p->rcall < 0) v->counts.msg_no_recv++;
        }
        if (k) rcalls_free(&c);
    }
    free(ix);
    free(at);
    return rc;
}

/* The messages into their senders' columns (all senders here), in the
 * fixed order, naming their send calls. */
static int name_sends(struct an_view *v)
{
    size_t *at, *ix = group(v, 1, &at);
    if (!ix) return -1;
    struct rcalls c;
    int rc = 0;
    for (int sw = 0; sw <= v->nranks && rc == 0; sw++) {
        size_t a = at[sw], b = at[sw + 1];
        if (a == b) continue;
        struct vrank *k = sw < v->nranks ? vrank_of(v, sw) : NULL;
        if (!k || rcalls_load(v, k, &c, 0) != 0) {   /* never: messages go to their sender's owner */
            if (k) rcalls_free(&c);
            rc = -1;
            break;
        }
        int sorted = 1;
        for (size_t i = a + 1; i < b && sorted; i++) sorted = cmp_msg(&v->pend[ix[i - 1]], &v->pend[ix[i]]) <= 0;
        if (!sorted) qsort_r(ix + a, b - a, sizeof *ix, cmp_msg_at, v->pend);
        struct vbuf *m = k->m;
        for (size_t i = a; i < b; i++) {
            const struct pending *p = &v->pend[ix[i]];
            int64_t s = rcalls_find(&c, p->ts);
            unsigned flags = 0;
            if (s < 0) {
                flags = AN_VMF_TS | AN_VMF_DST | AN_VMF_BYTES | AN_VMF_TAG | AN_VMF_COMM;
                v->counts.msg_no_send++;
            } else {
                if (c.pcode[s] < 4 || c.pcode[s] - 4 != (uint64_t)(int64_t)p->dst) flags |= AN_VMF_DST;
                if (c.bytes[s] != p->bytes) flags |= AN_VMF_BYTES;
                if (c.tag1[s] != (int64_t)p->tag + 1) flags |= AN_VMF_TAG;
                if (c.comm1[s] != p->comm1) flags |= AN_VMF_COMM;
            }
            if (p->rcall < 0) flags |= AN_VMF_TR;
            put_u(&m[AN_VM_FLAGS - AN_VM_FLAGS], flags);
            if (s >= 0) {
                put_s(&m[AN_VM_SCALL - AN_VM_FLAGS], (int64_t)((uint64_t)s - k->prev_scall));
                k->prev_scall = (uint64_t)s;
            }
            if (p->rcall >= 0) {
                uint64_t *last = pair_slot(&v->pairs, (uint64_t)(uint32_t)p->src << 32 | (uint32_t)p->dst);
                if (!last) {
                    rc = -1;
                    break;
                }
                put_s(&m[AN_VM_RCALL - AN_VM_FLAGS], (int64_t)((uint64_t)p->rcall - *last));
                *last = (uint64_t)p->rcall;
            }
            if (flags & AN_VMF_DST) put_u(&m[AN_VM_DST - AN_VM_FLAGS], (uint64_t)(int64_t)p->dst);
            if (flags & AN_VMF_TS) put_s(&m[AN_VM_TS - AN_VM_FLAGS], an_wsub(p->ts, v->origin));
            if (flags & AN_VMF_TR) put_s(&m[AN_VM_TR - AN_VM_FLAGS], an_wsub(p->tr, p->ts));
            if (flags & AN_VMF_BYTES) put_u(&m[AN_VM_BYTES - AN_VM_FLAGS], p->bytes);
            if (flags & AN_VMF_TAG) put_s(&m[AN_VM_TAG - AN_VM_FLAGS], p->tag);
            if (flags & AN_VMF_COMM) put_u(&m[AN_VM_COMM - AN_VM_FLAGS], p->comm1);
            k->nmsgs++;
        }
        rcalls_free(&c);
    }
    free(ix);
    free(at);
    if (rc) return -1;
    free(v->pend);
    v->pend = NULL;
    v->npend = v->pend_cap = 0;
    return 0;
}

/* Collective instances in a fixed order: first arrival, communicator, instance. */
static int cmp_coll(const void *a, const void *b)
{
    const struct crec *x = a, *y = b;
#define K(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
    K(first);
    K(comm);
    K(index);
#undef K
    return 0;
}

static void put_colls(struct an_view *v)
{
    if (v->ncolls) qsort(v->colls, v->ncolls, sizeof *v->colls, cmp_coll);
    int64_t prev = v->origin;
    for (size_t i = 0; i < v->ncolls; i++) {
        const struct crec *c = &v->colls[i];
        put_u(&v->col[AN_VK_COMM], (uint64_t)c->comm + 1);
        put_u(&v->col[AN_VK_NAME], c->name);
        put_s(&v->col[AN_VK_FIRST], an_wsub(c->first, prev));
        prev = c->first;
        put_s(&v->col[AN_VK_LEN], an_wsub(c->end, c->first));
        put_u(&v->col[AN_VK_MEMBERS], c->members);
        put_u(&v->col[AN_VK_BYTES], c->bytes);
    }
}

/* A site or type column (n values) rewritten through map (nmap entries):
 * value i + 1 becomes map[i] + 1, 0 stays 0. */
static int remap_col(struct vbuf *b, uint64_t n, const uint32_t *map, unsigned nmap)
{
    struct vbuf o = {0};
    struct vread rd = col_reader(b);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t s = get_u(&rd);
        put_u(&o, s && s <= nmap ? (uint64_t)map[s - 1] + 1 : 0);
    }
    if (rd.bad || o.oom) {
        free(o.p);
        return -1;
    }
    free(b->p);
    *b = o;
    return 0;
}

/* The ranks' columns joined, rank after rank, and the collectives. */
static int join(struct an_view *v)
{
    for (int w = 0; w < v->nranks; w++) {
        struct vrank *k = vrank_of(v, w);
        put_u(&v->col[AN_VC_COUNT], k ? k->ncalls : 0);
        put_u(&v->col[AN_VM_COUNT], k ? k->nmsgs : 0);
        if (!k) continue;
        for (int c = 0; c < NCCOL; c++) {
            if (k->c[c].oom) v->oom = 1;
            put_bytes(&v->col[c + AN_VC_T0], k->c[c].p, k->c[c].n);
            free(k->c[c].p);
            memset(&k->c[c], 0, sizeof k->c[c]);
        }
        for (int c = 0; c < NMCOL; c++) {
            if (k->m[c].oom) v->oom = 1;
            put_bytes(&v->col[c + AN_VM_FLAGS], k->m[c].p, k->m[c].n);
            free(k->m[c].p);
            memset(&k->m[c], 0, sizeof k->m[c]);
        }
    }
    put_colls(v);
    for (int i = 0; i < AN_VIEW_NCOLS; i++)
        if (v->col[i].oom) v->oom = 1;
    if (v->oom) return -1;
    v->counts.origin = v->origin;
    v->counts.sites = v->nsite_names;
    v->counts.types = v->ntype_names;
    return 0;
}

/* This process's calls named: sites and types by their sorted names. */
static int name_calls(struct an_view *v, an_site_namer where)
{
    if (name_sites(v, where) != 0) return -1;
    for (unsigned i = 0; i < v->run->n; i++) {
        struct vrank *k = &v->rk[i];
        if (remap_col(&k->c[AN_VC_SITE - AN_VC_T0], k->ncalls, v->site_map, v->sites.n) != 0 ||
            remap_col(&k->c[AN_VC_TYPE - AN_VC_T0], k->ncalls, v->type_map, v->types.n) != 0)
            return -1;
    }
    return 0;
}

int an_view_finish(struct an_view *v, an_site_namer where)
{
    for (int i = 0; i < AN_VIEW_NCOLS; i++)
        if (v->col[i].oom) v->oom = 1;
    if (v->oom || name_receives(v) != 0 || name_sends(v) != 0 || name_calls(v, where) != 0) return -1;
    return join(v);
}

/* ---- the columns as a stream (an_view_write) ------------------------------------- */

/* Per-rank column j: the calls' (0 to NCCOL - 1), then the messages'. */
static struct vbuf *rank_col(struct vrank *k, int j)
{
    return j < NCCOL ? &k->c[j] : &k->m[j - NCCOL];
}

#define NSCOL (NCCOL + NMCOL)   /* the columns kept per rank */

/* The page's column of per-rank column j. */
static int stream_col(int j)
{
    return j < NCCOL ? AN_VC_T0 + j : AN_VM_FLAGS + (j - NCCOL);
}

static int out_buf(const struct an_view_out *o, int c, const uint8_t *p, size_t n)
{
    return o->col(o->ctx, c, n) != 0 || (n && o->put(o->ctx, p, n) != 0) ? -1 : 0;
}

/* A COUNT column (AN_VC_COUNT or AN_VM_COUNT): per world rank its calls or messages. */
static int out_counts(struct an_view *v, const struct an_view_out *o, int c)
{
    struct vbuf b = {0};
    for (int w = 0; w < v->nranks; w++) {
        struct vrank *k = vrank_of(v, w);
        put_u(&b, !k ? 0 : c == AN_VC_COUNT ? k->ncalls : k->nmsgs);
    }
    int rc = b.oom ? -1 : out_buf(o, c, b.p, b.n);
    free(b.p);
    return rc;
}

int an_view_finish_parts(struct an_view *v, an_site_namer where)
{
    for (int i = 0; i < AN_VIEW_NCOLS; i++)
        if (v->col[i].oom) v->oom = 1;
    if (v->oom || name_receives(v) != 0 || name_sends(v) != 0 || name_calls(v, where) != 0) return -1;
    for (unsigned i = 0; i < v->run->n; i++)
        for (int j = 0; j < NSCOL; j++)
            if (rank_col(&v->rk[i], j)->oom) v->oom = 1;
    put_colls(v);
    for (int i = 0; i < AN_VIEW_NCOLS; i++)
        if (v->col[i].oom) v->oom = 1;
    if (v->oom) return -1;
    v->parts = 1;
    v->counts.origin = v->origin;
    v->counts.sites = v->nsite_names;
    v->counts.types = v->ntype_names;
    return 0;
}

int an_view_write(struct an_view *v, const struct an_view_out *o)
{
    if (!v->parts) return -1;
    for (int c = 0; c < AN_VIEW_NCOLS; c++) {
        if (c == AN_VC_COUNT || c == AN_VM_COUNT) {
            if (out_counts(v, o, c) != 0) return -1;
            continue;
        }
        if (c >= AN_VK_COMM) {
            if (out_buf(o, c, v->col[c].p, v->col[c].n) != 0) return -1;
            continue;
        }
        int j = c < AN_VM_COUNT ? c - AN_VC_T0 : NCCOL + (c - AN_VM_FLAGS);
        uint64_t len = 0;
        for (int w = 0; w < v->nranks; w++) {
            struct vrank *k = vrank_of(v, w);
            if (k) len += rank_col(k, j)->n;
        }
        if (o->col(o->ctx, c, len) != 0) return -1;
        for (int w = 0; w < v->nranks; w++) {
            struct vrank *k = vrank_of(v, w);
            struct vbuf *b = k ? rank_col(k, j) : NULL;
            if (b && b->n && o->put(o->ctx, b->p, b->n) != 0) return -1;
        }
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
    return v->type_names && i < v->ntype_names ? v->type_names[i] : "?";
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
    }
    free(v->rk);
    free(v->pend);
    free(v->pairs.key);
    free(v->pairs.val);
    for (unsigned i = 0; v->site_names && i < v->nsite_names; i++) free(v->site_names[i]);
    for (unsigned i = 0; v->type_names && i < v->ntype_names; i++) free(v->type_names[i]);
    free(v->site_names);
    free(v->type_names);
    free(v->site_map);
    free(v->type_map);
    free(v->colls);
    free(v->pid);
    free(v->sites.key);
    free(v->sites.val);
    free(v->types.key);
    free(v->types.val);
    free(v->site_keys);
    free(v->type_keys);
    ov_free(v);
    free(v);
}

/* ---- a sliced run (slice_view.c) -------------------------------------------------- */

int an_view_pid(const struct an_view *v, int w)
{
    return v->pid && w >= 0 && w < v->nranks ? v->pid[w] : -1;
}

/* Receive calls named here; a message whose sender lies in another slice
 * goes to that sender's owner, which aligns its send start on its clock. */
int an_view_slice_messages(struct an_view *v, struct an_xch *x, uint64_t *sent)
{
    struct an_run *run = v->run;
    int P = x->size;
    int64_t bad = v->oom || name_receives(v) != 0;
    struct pending **out = calloc((size_t)P, sizeof *out);
    size_t *n = calloc((size_t)P, sizeof *n), *len = calloc((size_t)P, sizeof *len),
           *inlen = calloc((size_t)P, sizeof *inlen);
    bad |= !out || !n || !len || !inlen;
    size_t keep = 0;
    for (size_t i = 0; !bad && i < v->npend; i++) {
        struct pending *p = &v->pend[i];
        if (!p->ts_local) {
            v->pend[keep++] = *p;
            continue;
        }
        int o = p->src >= 0 && p->src < run->size ? run->slice->owner[p->src] : -1;
        if (o < 0 || o == x->rank) {   /* never: a send is shipped only to a rank with a file elsewhere */
            bad = 1;
            break;
        }
        if (!(n[o] & (n[o] + 1)) || !n[o]) {   /* grow at 0, 1, 3, 7, ... */
            struct pending *q = realloc(out[o], (2 * n[o] + 2) * sizeof *q);
            if (!q) {
                bad = 1;
                break;
            }
            out[o] = q;
        }
        out[o][n[o]++] = *p;
    }
    if (!bad) v->npend = keep;
    x->reduce_i64(x, &bad, 1, AN_XCH_MAX);
    if (bad) x->fail(x, "mpilens view: out of memory sending the messages to their senders");
    for (int p = 0; p < P; p++) {
        len[p] = n[p] * sizeof(struct pending);
        if (p != x->rank) *sent += len[p];
    }
    void *in = NULL;
    if (x->alltoall(x, (void *const *)out, len, &in, inlen) != 0) x->fail(x, "mpilens view: the exchange failed");
    size_t total = 0;
    for (int p = 0; p < P; p++) {
        total += inlen[p] / sizeof(struct pending);
        free(out[p]);
    }
    free(out), free(n), free(len), free(inlen);
    if (v->npend + total > v->pend_cap) {
        struct pending *q = realloc(v->pend, (v->npend + total + 1) * sizeof *q);
        if (!q) {
            free(in);
            return -1;
        }
        v->pend = q;
        v->pend_cap = v->npend + total + 1;
    }
    const struct pending *got = in;
    for (size_t i = 0; i < total; i++) {
        struct pending p = got[i];
        if (p.src < 0 || p.src >= run->size || run->slot[p.src] < 0) {
            free(in);
            return -1;
        }
        const struct an_clock *c = &run->ranks[run->slot[p.src]].clock;
        p.ts = an_wadd(an_clock_base(c, p.ts), an_clock_extra(c, p.ts));
        p.ts_local = 0;
        v->pend[v->npend++] = p;
    }
    free(in);
    return 0;
}

#define PACK_COUNTS 11

static int pk_put(struct vbuf *b, const void *p, size_t n)
{
    put_bytes(b, p, n);
    return b->oom ? -1 : 0;
}

static int pk_names(struct vbuf *b, char **names, unsigned n)
{
    uint32_t n32 = n;
    if (pk_put(b, &n32, 4)) return -1;
    for (unsigned i = 0; i < n; i++)
        if (pk_put(b, names[i], strlen(names[i]) + 1)) return -1;
    return 0;
}

static int cmp_world(const void *a, const void *b, void *run)
{
    const struct an_rank *r = ((const struct an_run *)run)->ranks;
    int x = r[*(const unsigned *)a].rank, y = r[*(const unsigned *)b].rank;
    return (x > y) - (x < y);
}

/* This process's ranks by world rank: the order of its pieces of every column. */
static unsigned *by_world(const struct an_run *run)
{
    unsigned *o = malloc((run->n + 1) * sizeof *o);
    if (!o) return NULL;
    for (unsigned i = 0; i < run->n; i++) o[i] = i;
    qsort_r(o, run->n, sizeof *o, cmp_world, (void *)run);
    return o;
}

int an_view_slice_pack(struct an_view *v, an_site_namer where, void **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (v->oom || name_sends(v) != 0 || name_calls(v, where) != 0) return -1;
    unsigned *ord = by_world(v->run);
    if (!ord) return -1;
    struct vbuf b = {0};
    const struct an_view_counts *c = &v->counts;
    uint64_t cnt[PACK_COUNTS] = {c->calls, c->calls_repeated, c->messages, c->bytes, c->colls, (uint64_t)c->last,
                                 c->msg_no_send, c->msg_no_recv, c->shown_calls, c->shown_messages, c->shown_colls};
    uint32_t nr = v->run->n;
    int rc = pk_put(&b, cnt, sizeof cnt) || pk_names(&b, v->site_names, v->nsite_names) ||
             pk_names(&b, v->type_names, v->ntype_names) || pk_put(&b, &nr, 4);
    for (unsigned i = 0; !rc && i < v->run->n; i++) {
        struct vrank *k = &v->rk[ord[i]];
        int32_t wp[2] = {v->run->ranks[ord[i]].rank, mlr_header(v->run->ranks[ord[i]].f)->pid};
        uint64_t nn[2] = {k->ncalls, k->nmsgs};
        rc = pk_put(&b, wp, 8) || pk_put(&b, nn, 16);
        for (int j = 0; !rc && j < NSCOL; j++) rc = rank_col(k, j)->oom;
    }
    free(ord);
    if (rc) {
        free(b.p);
        return -1;
    }
    *out = b.p;
    *len = b.n;
    return 0;
}

struct pk_read {
    const char *p, *end;
    int bad;
};

static void pk_get(struct pk_read *r, void *to, size_t n)
{
    if ((size_t)(r->end - r->p) < n) {
        r->bad = 1;
        memset(to, 0, n);
        return;
    }
    memcpy(to, r->p, n);
    r->p += n;
}

static const char *pk_str(struct pk_read *r)
{
    const char *s = r->p, *z = r->p < r->end ? memchr(r->p, 0, (size_t)(r->end - r->p)) : NULL;
    if (!z) {
        r->bad = 1;
        return "";
    }
    r->p = z + 1;
    return s;
}

/* Block p's names (its first *np of all[*base...]) into all, taken by unique_names later. */
static int pk_read_names(struct pk_read *r, char ***all, unsigned *n, unsigned *cap)
{
    uint32_t k;
    pk_get(r, &k, 4);
    for (uint32_t i = 0; i < k && !r->bad; i++) {
        if (*n == *cap) {
            unsigned nc = *cap ? *cap * 2 : 256;
            char **t = realloc(*all, nc * sizeof *t);
            if (!t) return -1;
            *all = t;
            *cap = nc;
        }
        if (!((*all)[*n] = strdup(pk_str(r)))) return -1;
        (*n)++;
    }
    return r->bad ? -1 : 0;
}

/* Process p's map of its names to the merged ones: its site names' count
 * and indices, then its datatypes'. */
static int map_blob(struct vbuf *b, const uint32_t *smap, uint32_t ns, const uint32_t *tmap, uint32_t nt)
{
    return pk_put(b, &ns, 4) || pk_put(b, smap, ns * sizeof *smap) || pk_put(b, &nt, 4) ||
           pk_put(b, tmap, nt * sizeof *tmap);
}

struct an_view *an_view_slice_merge(struct an_run *full, int64_t origin, const void *all, const size_t *lens, int P,
                                    void **maps, size_t *maplens)
{
    struct an_view *v = an_view_new(full);
    unsigned *sbase = calloc((size_t)P + 1, sizeof *sbase), *tbase = calloc((size_t)P + 1, sizeof *tbase);
    char **sn = NULL, **tn = NULL;
    unsigned nsn = 0, csn = 0, ntn = 0, ctn = 0;
    uint32_t *smap = NULL, *tmap = NULL;
    int ok = v && sbase && tbase;
    for (int p = 0; p < P; p++) maps[p] = NULL, maplens[p] = 0;
    if (ok) {
        an_view_set_origin(v, origin);
        v->merged = 1;
        ok = !!(v->pid = malloc((size_t)v->nranks * sizeof *v->pid));
        for (int w = 0; ok && w < v->nranks; w++) v->pid[w] = -1;
    }
    /* the names of every block, then one sorted list */
    const char *b = all;
    for (int p = 0; ok && p < P; p++) {
        struct pk_read r = {b, b + lens[p], 0};
        uint64_t cnt[PACK_COUNTS];
        pk_get(&r, cnt, sizeof cnt);
        sbase[p] = nsn;
        tbase[p] = ntn;
        ok = !r.bad && pk_read_names(&r, &sn, &nsn, &csn) == 0 && pk_read_names(&r, &tn, &ntn, &ctn) == 0;
        b += lens[p];
    }
    sbase[P] = nsn;
    tbase[P] = ntn;
    if (ok)
        ok = unique_names(sn, nsn, &smap, &v->site_names, &v->nsite_names) == 0 &&
             unique_names(tn, ntn, &tmap, &v->type_names, &v->ntype_names) == 0;
    b = all;
    int32_t prev_w = -1;
    for (int p = 0; ok && p < P; p++) {
        struct pk_read r = {b, b + lens[p], 0};
        uint64_t cnt[PACK_COUNTS];
        pk_get(&r, cnt, sizeof cnt);
        struct an_view_counts *c = &v->counts;
        c->calls += cnt[0], c->calls_repeated += cnt[1], c->messages += cnt[2], c->bytes += cnt[3];
        c->colls += cnt[4];
        if ((int64_t)cnt[5] > c->last) c->last = (int64_t)cnt[5];
        c->msg_no_send += cnt[6], c->msg_no_recv += cnt[7], c->shown_calls += cnt[8];
        c->shown_messages += cnt[9], c->shown_colls += cnt[10];
        for (int z = 0; z < 2; z++) {
            uint32_t k;
            pk_get(&r, &k, 4);
            for (uint32_t i = 0; i < k && !r.bad; i++) pk_str(&r);
        }
        uint32_t nr;
        pk_get(&r, &nr, 4);
        for (uint32_t i = 0; i < nr && ok && !r.bad; i++) {
            int32_t wp[2];
            uint64_t nn[2];
            pk_get(&r, wp, 8);
            pk_get(&r, nn, 16);
            /* the blocks' ranks follow each other: the columns are their pieces joined */
            struct vrank *k = r.bad || wp[0] <= prev_w ? NULL : vrank_of(v, wp[0]);
            if (!k) {
                ok = 0;
                break;
            }
            prev_w = wp[0];
            v->pid[wp[0]] = wp[1];
            k->ncalls = nn[0];
            k->nmsgs = nn[1];
        }
        if (r.bad || r.p != r.end) ok = 0;
        struct vbuf m = {0};
        if (ok && map_blob(&m, smap + sbase[p], sbase[p + 1] - sbase[p], tmap + tbase[p], tbase[p + 1] - tbase[p]) != 0)
            ok = 0;
        maps[p] = m.p;
        maplens[p] = m.n;
        b += lens[p];
    }
    for (unsigned i = 0; sn && i < nsn; i++) free(sn[i]);
    for (unsigned i = 0; tn && i < ntn; i++) free(tn[i]);
    free(sn), free(tn), free(smap), free(tmap), free(sbase), free(tbase);
    if (ok) {
        v->counts.origin = v->origin;
        v->counts.sites = v->nsite_names;
        v->counts.types = v->ntype_names;
    }
    if (!ok) {
        for (int p = 0; p < P; p++) free(maps[p]), maps[p] = NULL, maplens[p] = 0;
        an_view_free(v);
        return NULL;
    }
    return v;
}

int an_view_slice_remap(struct an_view *v, const void *map, size_t len)
{
    struct pk_read r = {map, (const char *)map + len, 0};
    uint32_t ns, nt;
    pk_get(&r, &ns, 4);
    if (r.bad || ns != v->nsite_names || (size_t)(r.end - r.p) / 4 < ns) return -1;
    const uint32_t *sm = (const uint32_t *)(const void *)r.p;
    r.p += (size_t)ns * 4;
    uint32_t *cp = malloc(((size_t)ns + 1) * 4);
    if (!cp) return -1;
    memcpy(cp, sm, (size_t)ns * 4);
    pk_get(&r, &nt, 4);
    uint32_t *tp = malloc(((size_t)nt + 1) * 4);
    int rc = r.bad || nt != v->ntype_names || (size_t)(r.end - r.p) != (size_t)nt * 4 || !tp ? -1 : 0;
    if (!rc) pk_get(&r, tp, (size_t)nt * 4);
    for (unsigned i = 0; !rc && i < v->run->n; i++) {
        struct vrank *k = &v->rk[i];
        if (remap_col(&k->c[AN_VC_SITE - AN_VC_T0], k->ncalls, cp, ns) != 0 ||
            remap_col(&k->c[AN_VC_TYPE - AN_VC_T0], k->ncalls, tp, nt) != 0)
            rc = -1;
    }
    free(cp);
    free(tp);
    return rc;
}

/* The columns' schedule: per-rank column j's pieces, process after
 * process, cut into rounds of at most a piece's bytes. */
struct vsched {
    int j, p;
    uint64_t off;
};

/* The next step of a round (budget bytes left): n bytes of column j's
 * piece of process p from off; 0 at the round's or the columns' end. */
static int sched_next(struct vsched *s, const uint64_t *L, int P, uint64_t *budget, int *j, int *p, uint64_t *off,
                      uint64_t *n)
{
    while (s->j < NSCOL && s->off == L[(size_t)s->p * NSCOL + s->j]) {
        s->off = 0;
        if (++s->p == P) s->p = 0, s->j++;
    }
    if (s->j == NSCOL || !*budget) return 0;
    uint64_t left = L[(size_t)s->p * NSCOL + s->j] - s->off, t = left < *budget ? left : *budget;
    *j = s->j, *p = s->p, *off = s->off, *n = t;
    s->off += t;
    *budget -= t;
    return 1;
}

/* n bytes from off of this process's piece of column j (its ranks' joined, by world rank). */
static void piece_copy(struct an_view *v, const unsigned *ord, int j, uint64_t off, uint64_t n, uint8_t *to)
{
    for (unsigned i = 0; i < v->run->n && n; i++) {
        const struct vbuf *b = rank_col(&v->rk[ord[i]], j);
        if (off >= b->n) {
            off -= b->n;
            continue;
        }
        uint64_t t = b->n - off < n ? b->n - off : n;
        memcpy(to, b->p + off, t);
        to += t, n -= t, off = 0;
    }
}

struct vemit {                  /* process 0: the columns opened so far */
    struct an_view *m;
    const struct an_view_out *o;
    const uint64_t *tot;        /* per-rank column j's length in all */
    int next;                   /* the next column to open */
    int bad;
};

/* Every column up to c (before the collectives') opened, the COUNT ones whole. */
static void emit_upto(struct vemit *e, int c)
{
    for (; e->next <= c && !e->bad; e->next++) {
        int k = e->next, rc;
        if (k == AN_VC_COUNT || k == AN_VM_COUNT) rc = out_counts(e->m, e->o, k);
        else rc = e->o->col(e->o->ctx, k, e->tot[k < AN_VM_COUNT ? k - AN_VC_T0 : NCCOL + (k - AN_VM_FLAGS)]);
        if (rc) e->bad = 1;
    }
}

/* The collective instances' columns (AN_VK_COMM to AN_VK_BYTES) from the
 * processes' sorted runs: a merge in rounds.  Every process keeps its own
 * instances sorted (cmp_coll, the serial page's order; the keys are unique,
 * an instance being completed by one process); process 0 holds at most a
 * batch of the other processes' next ones (shared by those that have
 * some), and takes the smallest head of all until a process's buffer runs
 * out while that process has more: then one broadcast says how many each
 * process sends next (a buffer is refilled only when empty) and one
 * gather brings them.  The page's columns are one
 * field of every instance each, in that order, each after its length, so
 * the merge is made once per column: the lengths of the columns whose
 * values do not depend on the order are sums over the processes (one
 * reduce); the first arrival's (a difference to the previous instance's)
 * is counted during the first column's merge. */
struct krec {                   /* an instance as one merge needs it: its key and the column's value */
    int64_t first;
    uint64_t index, val;
    uint32_t comm;
};

struct kmerge {
    struct an_xch *x;
    const struct crec *own;     /* this process's instances, sorted */
    uint64_t nown, k;           /* k: process 0 holds at most k of each other process's */
    /* process 0 */
    uint64_t *n, *sent;         /* per process: its instances, those it sent (process 0: taken) */
    struct krec **buf;          /* per other process: at most k of its next instances */
    uint64_t *bn, *bi;          /* their count and the next one */
    uint64_t rounds, held;
    int stopped;                /* o said stop: merged on, not written */
};

static size_t leb_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) v >>= 7, n++;
    return n;
}

static size_t leb_len_s(int64_t v)
{
    return leb_len(((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* Instance r as column c's merge needs it (the first arrival's column
 * needs only the key). */
static struct krec kval(int c, const struct crec *r)
{
    struct krec k = {r->first, r->index, 0, r->comm};
    switch (c) {
    case AN_VK_NAME: k.val = r->name; break;
    case AN_VK_LEN: k.val = (uint64_t)an_wsub(r->end, r->first); break;
    case AN_VK_MEMBERS: k.val = r->members; break;
    case AN_VK_BYTES: k.val = r->bytes; break;
    default: break;
    }
    return k;
}

static int cmp_krec(const struct krec *x, const struct krec *y)
{
#define K(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
    K(first);
    K(comm);
    K(index);
#undef K
    return 0;
}

/* Column c's value of instance r (prev: the previous instance's first arrival). */
static void kput(struct vbuf *b, int c, const struct krec *r, int64_t prev)
{
    switch (c) {
    case AN_VK_COMM: put_u(b, (uint64_t)r->comm + 1); break;
    case AN_VK_FIRST: put_s(b, an_wsub(r->first, prev)); break;
    case AN_VK_LEN: put_s(b, (int64_t)r->val); break;
    default: put_u(b, r->val); break;
    }
}

/* What a process sends of its instances, as variable-length integers:
 * the first arrival as a difference to the previous one it sent in this
 * merge (wrapping: exact), the communicator, the instance, and the
 * column's value (none for the communicator's and the first arrival's). */
static void kpack(struct vbuf *b, int c, const struct krec *r, int64_t *prev)
{
    put_s(b, (int64_t)((uint64_t)r->first - (uint64_t)*prev));
    *prev = r->first;
    put_u(b, r->comm);
    put_u(b, r->index);
    if (c != AN_VK_COMM && c != AN_VK_FIRST) put_u(b, r->val);
}

static int kunpack(struct vread *rd, int c, struct krec *r, int64_t *prev)
{
    r->first = (int64_t)((uint64_t)*prev + (uint64_t)get_s(rd));
    *prev = r->first;
    uint64_t comm = get_u(rd);
    r->comm = (uint32_t)comm;
    r->index = get_u(rd);
    r->val = c != AN_VK_COMM && c != AN_VK_FIRST ? get_u(rd) : 0;
    return rd->bad || comm > UINT32_MAX ? -1 : 0;
}

/* One merge: column c to o at process 0 (o NULL: merged, not written);
 * *first_len: the first-arrival column's length (counted at process 0). */
static void kmerge_pass(struct kmerge *m, int c, const struct an_view_out *o, int64_t origin, uint64_t *first_len)
{
    struct an_xch *x = m->x;
    int P = x->size;
    uint64_t mine = 0;          /* sent so far (process 0: taken from its own) */
    int64_t sprev = 0;          /* the last first arrival this process sent */
    int64_t *want = malloc(((size_t)P + 1) * sizeof *want), *rprev = calloc((size_t)P, sizeof *rprev);
    size_t *lens = calloc((size_t)P, sizeof *lens);
    struct vbuf w = {0}, pk = {0};
    int64_t prev = origin;
    uint64_t flen = 0;
    if (!want || !rprev || !lens) x->fail(x, "mpilens view: out of memory writing the page's collectives");
    if (x->rank == 0)
        for (int q = 0; q < P; q++) m->sent[q] = m->bn[q] = m->bi[q] = 0;
    for (;;) {
        if (x->rank == 0) {
            int more = m->sent[0] < m->n[0];
            for (int q = 1; q < P; q++) {
                uint64_t left = m->n[q] - m->sent[q];
                want[q] = m->bi[q] == m->bn[q] ? (int64_t)(left < m->k ? left : m->k) : 0;
                if (left || m->bi[q] < m->bn[q]) more = 1;
            }
            want[0] = 0;
            want[P] = more;
        }
        if (x->bcast(x, want, ((size_t)P + 1) * sizeof *want) != 0) x->fail(x, "mpilens view: the exchange failed");
        if (!want[P]) break;
        uint64_t give = x->rank == 0 ? 0 : (uint64_t)want[x->rank];
        if (give > m->nown - mine) x->fail(x, "mpilens view: the processes of the analysis disagree (collectives)");
        pk.n = 0;
        for (uint64_t i = 0; i < give; i++) {
            struct krec r = kval(c, &m->own[mine + i]);
            kpack(&pk, c, &r, &sprev);
        }
        if (pk.oom) x->fail(x, "mpilens view: out of memory writing the page's collectives");
        void *all = NULL;
        if (x->gather(x, pk.p, pk.n, &all, lens) != 0) x->fail(x, "mpilens view: the exchange failed");
        mine += give;
        m->rounds++;
        if (x->rank != 0) {
            free(all);
            continue;
        }
        /* the instances that came: each into its process's (empty) buffer */
        const uint8_t *at = all;
        uint64_t held = 0;
        for (int q = 0; q < P; q++) {
            struct vread rd = {at, at + lens[q], 0};
            if (q == 0 ? lens[q] != 0 : (uint64_t)want[q] > m->n[q] - m->sent[q])
                x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
            for (int64_t i = 0; q && i < want[q]; i++)
                if (kunpack(&rd, c, &m->buf[q][i], &rprev[q]) != 0)
                    x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
            if (rd.p != rd.end) x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
            if (q && want[q]) {
                m->bn[q] = (uint64_t)want[q], m->bi[q] = 0;
                m->sent[q] += (uint64_t)want[q];
            }
            at += lens[q];
            if (q) held += m->bn[q] - m->bi[q];
        }
        free(all);
        if (held > m->held) m->held = held;
        /* the smallest heads, until a buffer to refill runs out */
        for (;;) {
            struct krec h0, best = {0, 0, 0, 0};
            int bq = -1, stop = 0;
            for (int q = 0; q < P && !stop; q++) {
                const struct krec *h = NULL;
                if (q == 0) {
                    if (m->sent[0] < m->n[0]) h0 = kval(c, &m->own[m->sent[0]]), h = &h0;
                } else if (m->bi[q] < m->bn[q]) {
                    h = &m->buf[q][m->bi[q]];
                } else {
                    stop = m->sent[q] < m->n[q];   /* its next one may be the smallest */
                }
                if (h && (bq < 0 || cmp_krec(h, &best) < 0)) best = *h, bq = q;
            }
            if (stop || bq < 0) break;
            if (bq == 0) m->sent[0]++;
            else m->bi[bq]++;
            if (c == AN_VK_COMM) flen += leb_len_s(an_wsub(best.first, prev));
            kput(&w, c, &best, prev);
            prev = best.first;
            if (w.oom) x->fail(x, "mpilens view: out of memory writing the page's collectives");
            if (w.n >= 65536) {
                if (o && o->put(o->ctx, w.p, w.n) != 0) o = NULL, m->stopped = 1;
                w.n = 0;
            }
        }
    }
    if (x->rank == 0) {
        for (int q = 0; q < P; q++)
            if (m->sent[q] != m->n[q] || (q && m->bi[q] != m->bn[q]))
                x->fail(x, "mpilens view: the processes of the analysis disagree (collectives)");
        if (o && w.n && o->put(o->ctx, w.p, w.n) != 0) m->stopped = 1;
        if (c == AN_VK_COMM) *first_len = flen;
    }
    free(w.p), free(pk.p), free(want), free(rprev), free(lens);
}

/* The collective columns: every process's sorted run merged, column after
 * column, into o at process 0 (NULL: not written), holding at most k of
 * the other processes' instances at once; *rounds, *held: the rounds made
 * and the most of them process 0 held at once.  0, or -1 at process 0
 * where o stopped. */
static int kmerge_write(struct an_view *mine, struct an_xch *x, const struct an_view_out *o, int64_t origin,
                        uint64_t k, uint64_t *rounds, uint64_t *held)
{
    int P = x->size;
    if (mine->ncolls > 1) qsort(mine->colls, mine->ncolls, sizeof *mine->colls, cmp_coll);
    struct kmerge m = {x, mine->colls, mine->ncolls, k ? k : 1, NULL, NULL, NULL, NULL, NULL, 0, 0, 0};
    /* the lengths of the columns whose values do not depend on the order */
    int64_t len[AN_VK_BYTES - AN_VK_COMM + 1] = {0};
    for (size_t i = 0; i < mine->ncolls; i++) {
        const struct crec *r = &mine->colls[i];
        len[AN_VK_COMM - AN_VK_COMM] += (int64_t)leb_len((uint64_t)r->comm + 1);
        len[AN_VK_NAME - AN_VK_COMM] += (int64_t)leb_len(r->name);
        len[AN_VK_LEN - AN_VK_COMM] += (int64_t)leb_len_s(an_wsub(r->end, r->first));
        len[AN_VK_MEMBERS - AN_VK_COMM] += (int64_t)leb_len(r->members);
        len[AN_VK_BYTES - AN_VK_COMM] += (int64_t)leb_len(r->bytes);
    }
    if (x->reduce_i64(x, len, AN_VK_BYTES - AN_VK_COMM + 1, AN_XCH_SUM) != 0)
        x->fail(x, "mpilens view: the exchange failed");
    uint64_t n = mine->ncolls;
    void *all = NULL;
    size_t *lens = calloc((size_t)P, sizeof *lens);
    if (!lens || x->gather(x, &n, sizeof n, &all, lens) != 0) x->fail(x, "mpilens view: the exchange failed");
    if (x->rank == 0) {
        m.n = all;
        m.sent = calloc((size_t)P, sizeof *m.sent);
        m.buf = calloc((size_t)P, sizeof *m.buf);
        m.bn = calloc((size_t)P, sizeof *m.bn);
        m.bi = calloc((size_t)P, sizeof *m.bi);
        int ok = m.sent && m.buf && m.bn && m.bi, with = 0;
        for (int q = 0; q < P; q++) {
            if (lens[q] != sizeof n) x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
            with += q && m.n[q];
        }
        /* the batch shared by the other processes that have instances */
        if (with > 1) m.k = m.k / (uint64_t)with ? m.k / (uint64_t)with : 1;
        for (int q = 0; ok && q < P; q++) {
            if (q && !(m.buf[q] = malloc((size_t)(m.n[q] < m.k ? m.n[q] : m.k) * sizeof(struct krec) + 1))) ok = 0;
        }
        if (!ok) x->fail(x, "mpilens view: out of memory writing the page's collectives");
    }
    uint64_t first_len = 0;
    for (int c = AN_VK_COMM; c <= AN_VK_BYTES; c++) {
        uint64_t l = c == AN_VK_FIRST ? first_len : (uint64_t)len[c - AN_VK_COMM];
        if (o && !m.stopped && o->col(o->ctx, c, l) != 0) m.stopped = 1;
        kmerge_pass(&m, c, m.stopped ? NULL : o, origin, &first_len);
    }
    *rounds = m.rounds;
    *held = m.held;
    for (int q = 0; m.buf && q < P; q++) free(m.buf[q]);
    free(m.buf), free(m.sent), free(m.bn), free(m.bi), free(all), free(lens);
    return x->rank == 0 && m.stopped ? -1 : 0;
}

int an_view_slice_write(struct an_view *mine, struct an_view *merged, struct an_xch *x, const struct an_view_out *o,
                        size_t piece, uint64_t kbatch, struct an_view_slice_stats *st)
{
    uint64_t *rounds = &st->rounds, *held = &st->held;
    int P = x->size;
    uint64_t mylen[NSCOL] = {0};
    for (unsigned i = 0; i < mine->run->n; i++)
        for (int j = 0; j < NSCOL; j++) mylen[j] += rank_col(&mine->rk[i], j)->n;
    void *la = NULL;
    size_t *ll = calloc((size_t)P, sizeof *ll);
    if (!ll || an_xch_allgather(x, mylen, sizeof mylen, &la, ll) != 0) x->fail(x, "mpilens view: the exchange failed");
    for (int p = 0; p < P; p++)
        if (ll[p] != sizeof mylen) x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
    const uint64_t *L = la;
    uint64_t tot[NSCOL] = {0};
    for (int p = 0; p < P; p++)
        for (int j = 0; j < NSCOL; j++) tot[j] += L[(size_t)p * NSCOL + j];
    if (piece < 1) piece = 1;
    unsigned *ord = by_world(mine->run);
    /* a round's bytes travel deflated (fast level; raw they are about 15
     * bytes a call, several times the rank files' share of the exchange),
     * inflated by process 0 into one round's buffer */
    uLong zcap = compressBound((uLong)piece);
    uint8_t *buf = malloc(piece), *zb = malloc(8 + zcap), *inb = x->rank == 0 ? malloc(piece) : NULL;
    size_t *at = calloc(2 * (size_t)P + 1, sizeof *at);
    if (!ord || !buf || !zb || !at || (x->rank == 0 && !inb))
        x->fail(x, "mpilens view: out of memory writing the page's data");
    struct vemit e = {merged, o, tot, 0, !o || !merged};
    struct vsched s = {0, 0, 0};
    *rounds = *held = 0;
    for (;;) {
        struct vsched s0 = s;
        uint64_t budget = piece, off, n, mine_n = 0;
        int j, p;
        while (sched_next(&s, L, P, &budget, &j, &p, &off, &n))
            if (p == x->rank) {
                piece_copy(mine, ord, j, off, n, buf + mine_n);
                mine_n += n;
            }
        if (budget == piece) break;   /* nothing left anywhere */
        uLongf zl = (uLongf)zcap;
        memcpy(zb, &mine_n, 8);
        if (mine_n && compress2(zb + 8, &zl, buf, (uLong)mine_n, 1) != Z_OK)
            x->fail(x, "mpilens view: out of memory packing the page's data");
        if (!mine_n) zl = 0;
        void *all = NULL;
        if (x->gather(x, zb, 8 + zl, &all, ll) != 0) x->fail(x, "mpilens view: the exchange failed");
        (*rounds)++;
        if (x->rank == 0) {
            size_t *cur = at + P + 1;   /* where each block's bytes are taken from */
            const uint8_t *q8 = all;
            at[0] = 0;
            for (int q = 0; q < P; q++) {
                uint64_t raw;
                if (ll[q] < 8) x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
                memcpy(&raw, q8, 8);
                uLongf got = (uLongf)raw;
                if (raw > piece - at[q] ||
                    (raw && uncompress(inb + at[q], &got, q8 + 8, (uLong)(ll[q] - 8)) != Z_OK) || got != raw)
                    x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
                q8 += ll[q];
                at[q + 1] = at[q] + raw, cur[q] = at[q];
            }
            if (at[P] > *held) *held = at[P];
            budget = piece;
            while (sched_next(&s0, L, P, &budget, &j, &p, &off, &n)) {
                if (cur[p] + n > at[p + 1]) x->fail(x, "mpilens view: the processes of the analysis disagree (bad exchange)");
                emit_upto(&e, stream_col(j));
                if (!e.bad && o->put(o->ctx, inb + cur[p], n) != 0) e.bad = 1;
                cur[p] += n;
            }
        }
        free(all);
    }
    if (x->rank == 0) emit_upto(&e, AN_VK_COMM - 1);
    free(la), free(ll), free(ord), free(buf), free(zb), free(inb), free(at);
    /* the collective instances, merged in rounds (every process) */
    int kr = kmerge_write(mine, x, x->rank == 0 && !e.bad ? o : NULL, merged ? merged->origin : mine->origin, kbatch,
                          &st->coll_rounds, &st->coll_held);
    return x->rank == 0 && o && merged && (e.bad || kr != 0) ? -1 : 0;
}
