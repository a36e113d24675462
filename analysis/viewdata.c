/*
 * viewdata.c — the data of `mpilens view`'s page: every MPI call, every
 * matched message and every collective instance of a run, in aligned time
 * (the same clocks, repair and matching as the report), as compact columns
 * of variable-length integers for the page to decode.
 *
 * It is fed by one pass of an_analyse (an_view_sink) and keeps only the
 * encoded columns: about 10 to 20 bytes per call and per message before
 * compression, nothing per call beyond that.  Times are nanoseconds since
 * the run's earliest call; a time column holds each value's difference to
 * the previous one of its column (zigzag: the stream is in start order only
 * to within AN_STREAM_SLACK).  The column layout is AN_VIEW_COLUMNS below
 * and docs/DESIGN.md ("mpilens view"); tool/view.c turns the columns into
 * the page.
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

struct an_view {
    struct an_run *run;
    int64_t origin;
    int have_origin;
    int64_t prev_call, prev_msg, prev_coll;
    int64_t *prev_end;          /* per rank index: end of its previous call */
    struct vbuf col[AN_VIEW_NCOLS];
    struct an_view_counts counts;
    struct keymap sites, types;
    uint64_t *site_keys, *type_keys;   /* global index -> key */
    unsigned site_cap, type_cap;
    char **site_names, **type_names;
    int oom;
};

/* ---- encoding ---------------------------------------------------------------- */

static void put_u(struct vbuf *b, uint64_t v)
{
    if (b->n + 10 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
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

/* ---- the sink ------------------------------------------------------------------- */

static uint32_t global_comm(const struct an_rank *r, uint16_t comm)
{
    if (comm == ML_COMM_NONE || comm >= r->ncomms) return UINT32_MAX;
    return r->comm[comm];
}

static void view_event(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    struct an_view *v = ctx;
    const struct an_rank *r = e->r;
    const struct mlr_event *ev = &e->ev;
    (void)ops;
    (void)nops;
    if (!v->have_origin) {      /* the stream starts with the earliest call */
        v->origin = e->t0;
        v->prev_call = v->prev_msg = v->prev_coll = e->t0;
        v->have_origin = 1;
    }
    unsigned ri = (unsigned)(r - v->run->ranks);
    uint16_t name = ev->routine < r->nroutines ? r->name[ev->routine] : 0;
    const char *nm = name < v->run->nnames ? v->run->names[name] : "";
    int64_t end = an_wadd(e->t1, ev->repeat ? an_wsub(ev->repeat_end_ns, ev->end_ns) : 0);
    int64_t dur = an_wsub(end, e->t0);
    if (dur < 0) dur = 0;
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
    put_u(&v->col[AN_VC_RANK], (uint64_t)r->rank);
    /* the time since the end of the rank's previous call: mostly small */
    put_s(&v->col[AN_VC_T0], an_wsub(e->t0, v->prev_end[ri] == INT64_MIN ? v->origin : v->prev_end[ri]));
    v->prev_end[ri] = an_wadd(e->t0, dur);
    put_u(&v->col[AN_VC_DUR], (uint64_t)dur);
    put_u(&v->col[AN_VC_NAME], name);
    put_u(&v->col[AN_VC_KIND], (uint64_t)call_kind(nm, ev->type));
    put_u(&v->col[AN_VC_SITE], site);
    put_u(&v->col[AN_VC_COMM], gc == UINT32_MAX ? 0 : (uint64_t)gc + 1);
    put_u(&v->col[AN_VC_PEER], pcode);
    put_s(&v->col[AN_VC_TAG], tag == ML_PEER_NONE ? 0 : (int64_t)tag + 1);
    put_u(&v->col[AN_VC_BYTES], bytes);
    put_u(&v->col[AN_VC_TYPE], type);
    put_u(&v->col[AN_VC_REPEAT], ev->repeat);
    v->counts.calls++;
    v->counts.calls_repeated += 1 + (uint64_t)ev->repeat;
    if (an_wsub(end, v->origin) > v->counts.last) v->counts.last = an_wsub(end, v->origin);
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
    if (!v->have_origin) {
        v->origin = v->prev_call = v->prev_msg = v->prev_coll = ts;
        v->have_origin = 1;
    }
    put_u(&v->col[AN_VM_SRC], (uint64_t)m->send.rank);
    put_u(&v->col[AN_VM_DST], (uint64_t)m->recv.rank);
    put_s(&v->col[AN_VM_TS], an_wsub(ts, v->prev_msg));
    v->prev_msg = ts;
    put_s(&v->col[AN_VM_LAT], an_wsub(tr, ts));
    put_u(&v->col[AN_VM_BYTES], m->bytes);
    put_s(&v->col[AN_VM_TAG], m->tag);
    put_u(&v->col[AN_VM_COMM], m->comm == UINT32_MAX ? 0 : (uint64_t)m->comm + 1);
    v->counts.messages++;
    v->counts.bytes += m->bytes;
}

static void view_coll(void *ctx, const struct an_coll *c)
{
    struct an_view *v = ctx;
    if (!v->have_origin) {
        v->origin = v->prev_call = v->prev_msg = v->prev_coll = c->first;
        v->have_origin = 1;
    }
    put_u(&v->col[AN_VK_COMM], (uint64_t)c->comm + 1);
    put_u(&v->col[AN_VK_NAME], c->name);
    put_s(&v->col[AN_VK_FIRST], an_wsub(c->first, v->prev_coll));
    v->prev_coll = c->first;
    put_s(&v->col[AN_VK_LEN], an_wsub(c->end, c->first));
    put_u(&v->col[AN_VK_MEMBERS], c->members);
    put_u(&v->col[AN_VK_BYTES], c->bytes);
    v->counts.colls++;
}

/* ---- public face ----------------------------------------------------------------- */

struct an_view *an_view_new(struct an_run *run)
{
    struct an_view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->run = run;
    v->prev_end = malloc((run->n ? run->n : 1) * sizeof *v->prev_end);
    if (!v->prev_end) {
        free(v);
        return NULL;
    }
    for (unsigned i = 0; i < run->n; i++) v->prev_end[i] = INT64_MIN;
    return v;
}

struct an_sink an_view_sink(struct an_view *v)
{
    struct an_sink s = {v, view_event, view_message, view_coll};
    return s;
}

int an_view_finish(struct an_view *v, an_site_namer where)
{
    for (int i = 0; i < AN_VIEW_NCOLS; i++)
        if (v->col[i].oom) v->oom = 1;
    if (v->oom) return -1;
    v->counts.origin = v->origin;
    v->counts.sites = v->sites.n;
    v->counts.types = v->types.n;
    v->site_names = calloc(v->sites.n + 1, sizeof *v->site_names);
    v->type_names = calloc(v->types.n + 1, sizeof *v->type_names);
    if (!v->site_names || !v->type_names) return -1;
    char buf[1024];
    for (unsigned i = 0; i < v->sites.n; i++) {
        const struct an_rank *r = &v->run->ranks[v->site_keys[i] >> 32];
        const char *s = where ? where(r->f, (uint32_t)v->site_keys[i], buf, sizeof buf) : NULL;
        v->site_names[i] = strdup(s ? s : "(unknown)");
        if (!v->site_names[i]) return -1;
    }
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
    return v->site_names && i < v->sites.n ? v->site_names[i] : "(unknown)";
}

const char *an_view_type(const struct an_view *v, unsigned i)
{
    return v->type_names && i < v->types.n ? v->type_names[i] : "?";
}

void an_view_free(struct an_view *v)
{
    if (!v) return;
    for (int i = 0; i < AN_VIEW_NCOLS; i++) free(v->col[i].p);
    for (unsigned i = 0; v->site_names && i < v->sites.n; i++) free(v->site_names[i]);
    for (unsigned i = 0; v->type_names && i < v->types.n; i++) free(v->type_names[i]);
    free(v->site_names);
    free(v->type_names);
    free(v->sites.key);
    free(v->sites.val);
    free(v->types.key);
    free(v->types.val);
    free(v->prev_end);
    free(v->site_keys);
    free(v->type_keys);
    free(v);
}
