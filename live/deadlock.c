/*
 * deadlock.c — the wait-for graph of one snapshot of the live state, and the
 * verdict (live.h: deadlock_check).
 *
 * Nodes are the threads that are inside a blocking MPI call or polling
 * without progress.  What each one waits for comes from its live slot:
 *
 *   blocking send/receive/probe     one operation: send to / receive from a
 *                                   world rank (or any member: MPI_ANY_SOURCE)
 *   MPI_Sendrecv                    both
 *   MPI_Wait/Test (request in aux), the requests of the thread that are
 *   Waitall/any/some, Testall/...   active: rebuilt from its trace (nonblocking
 *                                   starts minus completions), AND for
 *                                   Wait/Waitall/Testall, OR for any/some
 *   collective (number in aux)      the members of the communicator that have
 *                                   not arrived at the same instance (also the
 *                                   collectives on a window or file: the
 *                                   runtime publishes their communicator)
 *   MPI_Intercomm_create            as a collective on the local communicator;
 *                                   once all arrived, a member waits for the
 *                                   local leader, the leader for the remote
 *                                   leader it names unless that one names it
 *                                   back with the same tag (icc_clauses)
 *   MPI_Finalize                    the ranks that are neither in it nor past it
 *
 * A pending operation whose counterpart is pending too (a send to us that
 * our receive matches: a large transfer still going) is satisfied.  The
 * rest are clauses: a node needs every clause (AND) to have one rank (OR)
 * that can progress.  Ranks that can progress: computing (a sink), not
 * started, stale, or with a node that can.  A finalized, exited or dead rank
 * never can (it will never send).  The fixpoint leaves the nodes that can
 * never progress: the deadlock.  A node whose wait cannot be known (a
 * nonblocking collective's request, passive-target or post/start/complete/
 * wait one-sided synchronisation, an independent I/O call, ...) is
 * assumed to progress: the verdict may miss a deadlock, never invent one.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "symbols.h"
#include "tool.h"

enum { K_UNKNOWN = 0, K_ALL, K_ANY, K_COLL, K_FINALIZE, K_JOIN };

struct op {
    int send;                /* 1 send, 0 receive */
    uint64_t gid;            /* communicator */
    int any;                 /* receive from any source */
    int peer;                /* world rank, -1 unknown, -2 MPI_PROC_NULL */
    int tag;                 /* -1: any tag */
    uint32_t comm;           /* definition index in the rank's file */
    int coll;                /* a nonblocking collective's request: instance seq on gid */
    uint64_t seq;
    char routine[40];        /* coll: the collective (MPI_Ibcast) */
    char site[96];           /* coll: where it started */
    char desc[200];          /* "receive from 1 tag 5 (MPI_Irecv at x.c:10)" */
};

struct node {
    unsigned ent;
    int rank;
    int kind;
    struct op *ops;
    unsigned nops;
    /* collectives */
    uint64_t gid, seq;
    int rgid, root;
    int icc;                 /* MPI_Intercomm_create: its tag, and at the local leader the
                              * world rank of the remote leader (-1 unknown) */
    int icc_tag, icc_remote;
    char icc_note[200];      /* why the leaders' exchange cannot match */
    const int *members;      /* world ranks (shared per communicator: G->cm); NULL: the
                              * world, member i is rank i */
    unsigned nmembers;
    /* state */
    int active;
    int matched_all;         /* every operation met its counterpart */
    int **cl;                /* clauses: cl[i] = ranks, ncl_n[i] of them */
    unsigned *cln;
    unsigned ncl;
    int *clause_any;         /* clause comes from MPI_ANY_SOURCE / any-of requests */
    struct inst **ci;        /* collective instances it needs (AND): each needs all its missing */
    unsigned nci;
    int join;                /* K_JOIN: the node of the joined thread (same rank), -1 */
    int jnext;               /* next node joining the same thread, -1 (G->joiners) */
    /* the fixpoint */
    unsigned need;           /* clauses, instances and join not satisfied yet */
    char *clsat;             /* per clause: satisfied */
    char why[160];
};

/* A collective instance, shared by every node that waits in it (indexed:
 * the members that have not arrived are found once per instance, not once
 * per node, which made the check quadratic in ranks). */
struct inst {
    int kind;                /* 0 a blocking collective (same routine and root), 1 a
                              * nonblocking one: every member must have started it */
    uint64_t gid, seq;
    int rgid, root;
    const struct node *first;   /* the node it was made from */
    uint32_t comm;           /* kind 1: definition index in first's file */
    int *missing;            /* members that have not arrived / started */
    unsigned nmissing;
    const struct node *mis;  /* a member in another collective at the same position */
    int mis_rank;            /* kind 1, or a member waiting on a nonblocking collective there: */
    char mis_what[160];      /* that member, "MPI_Ibcast started at x.c:12", or -1 */
    int mis_done;            /* mis_what is a blocking collective it completed */
    unsigned left;           /* fixpoint: missing members not yet able to go on */
    unsigned *nodes, nnodes; /* the nodes that need it */
    int reported, marked;
};

/* ---- requests of a rank, from its trace ---------------------------------- */

/* Does a call of this name, recorded without a request, start one?  (File_i*,
 * Rput, Grequest_start, persistent and partitioned inits, Comm_idup, ...) */
static int makes_request(const char *n)
{
    if (strncmp(n, "MPI_", 4) != 0) return 0;
    n += 4;
    if (!strncmp(n, "File_i", 6) || !strncmp(n, "Grequest_start", 14) || !strncmp(n, "Comm_idup", 9)) return 1;
    if (!strcmp(n, "Rput") || !strcmp(n, "Rget") || !strcmp(n, "Raccumulate") || !strcmp(n, "Rget_accumulate"))
        return 1;
    size_t l = strlen(n);
    if (l > 2 && !strcmp(n + l - 2, "_c")) l -= 2;
    if (l > 5 && !strncmp(n + l - 5, "_init", 5) && strncmp(n, "Init", 4)) return 1;
    if (n[0] == 'I' && strncmp(n, "Iprobe", 6) && strncmp(n, "Improbe", 7) && strncmp(n, "Init", 4) &&
        strncmp(n, "Info", 4) && strncmp(n, "Intercomm", 9) && strncmp(n, "Is_thread_main", 14))
        return 1;
    return 0;
}

static void nbc_note(struct dl_reqs *q, uint32_t comm, uint64_t seq)
{
    for (unsigned i = 0; i < q->nnb; i++)
        if (q->nb[i].comm == comm) {
            if (seq > q->nb[i].seq) q->nb[i].seq = seq;
            return;
        }
    struct dl_nbc *p = realloc(q->nb, (q->nnb + 1) * sizeof *p);
    if (!p) return;
    q->nb = p;
    q->nb[q->nnb].comm = comm;
    q->nb[q->nnb++].seq = seq;
}

static struct dl_req *req_new(struct dl_reqs *q, uint64_t h)
{
    struct dl_req *r = NULL;
    for (unsigned i = q->n; i-- > 0 && !r;)
        if (q->r[i].handle == h) r = &q->r[i];
    if (!r) {
        if (q->n == q->cap) {
            unsigned c = q->cap ? q->cap * 2 : 64;
            struct dl_req *p = realloc(q->r, c * sizeof *p);
            if (!p) return NULL;
            q->r = p;
            q->cap = c;
        }
        r = &q->r[q->n++];
    }
    memset(r, 0, sizeof *r);
    r->handle = h;
    return r;
}

static struct dl_req *req_find(struct dl_reqs *q, uint64_t h)
{
    for (unsigned i = q->n; i-- > 0;)
        if (q->r[i].handle == h) return &q->r[i];
    return NULL;
}

/* Nonblocking collective r completed: the latest one of its communicator. */
static void cdone_note(struct dl_reqs *q, const struct dl_req *r)
{
    for (unsigned i = 0; i < q->ncdone; i++)
        if (q->cdone[i].comm == r->comm) {
            if (r->seq > q->cdone[i].seq) q->cdone[i] = *r;
            return;
        }
    struct dl_req *p = realloc(q->cdone, (q->ncdone + 1) * sizeof *p);
    if (!p) return;
    q->cdone = p;
    q->cdone[q->ncdone++] = *r;
}

/* The count of collectives on communicator comm (bcoll_note). */
static struct dl_bcoll *bcoll_get(struct dl_reqs *q, uint32_t comm, unsigned epoch)
{
    for (unsigned i = 0; i < q->nbc; i++)
        if (q->bc[i].comm == comm) return &q->bc[i];
    struct dl_bcoll *p = realloc(q->bc, (q->nbc + 1) * sizeof *p);
    if (!p) return NULL;
    q->bc = p;
    p = &q->bc[q->nbc++];
    memset(p, 0, sizeof *p);
    p->comm = comm;
    p->exact = epoch == 0;   /* else a constructor before may have counted on it */
    p->epoch = epoch;
    return p;
}

/* The runtime numbers every collective on a communicator (rt.h
 * ml_coll_next); the trace carries the number of nonblocking ones only.
 * Blocking ones are counted here; the count is the runtime's number while
 * no call that the runtime numbers but whose record names no communicator
 * (constructors, window and file collectives: epoch) came in between, and
 * no Fortran collective (Open MPI's are not numbered).  A nonblocking
 * collective's number makes it sure again. */
static void bcoll_note(struct dl_reqs *q, const struct mlr_file *f, const struct mlr_event *e, unsigned epoch)
{
    if (e->coll.comm == ML_COMM_NONE) return;
    if (e->request && !e->coll_seq) return;  /* a persistent collective's init: not numbered */
    struct dl_bcoll *c = bcoll_get(q, e->coll.comm, epoch);
    if (!c) return;
    if (e->request) {
        c->n = e->coll_seq;
        c->exact = 1;
        c->epoch = epoch;
        return;
    }
    if (c->epoch != epoch || e->fortran) c->exact = 0;
    c->epoch = epoch;
    c->n++;
    c->has = 1;
    c->root = e->coll.root;
    snprintf(c->routine, sizeof c->routine, "%s", mlr_routine_name(f, e->routine));
    sym_site(f, e->site, c->site, sizeof c->site);
}

void dl_load_requests(const char *path, struct dl_reqs *q)
{
    struct mlr_file *f;
    if (mlr_open(path, &f) != 0) return;
    struct mlr_iter *it = mlr_iter_new(f);
    struct mlr_event e;
    unsigned epoch = 0;
    while (it && mlr_next(it, &e)) {
        const char *name = mlr_routine_name(f, e.routine);
        if (e.type == ML_REC_COLL) bcoll_note(q, f, &e, epoch);
        else if (routine_class(name) == RC_COMM_COLL) epoch++;
        if (e.type == ML_REC_COLL && e.request && e.coll_seq) {
            /* a nonblocking collective (runtime: ml_rec_coll_req) */
            nbc_note(q, e.coll.comm, e.coll_seq);
            struct dl_req *r = req_new(q, e.request);
            if (!r) break;
            r->thread = e.thread;
            r->coll = 1;
            r->active = 1;
            r->seq = e.coll_seq;
            r->comm = e.coll.comm;
            r->peer = e.coll.root;
            snprintf(r->routine, sizeof r->routine, "%s", name);
            sym_site(f, e.site, r->site, sizeof r->site);
        } else if (e.type == ML_REC_P2P_REQ && strstr(name, "probe") == NULL) {
            /* (MPI_Improbe's request is the message it found: no request) */
            struct dl_req *r = req_new(q, e.request);
            if (!r) break;
            r->thread = e.thread;
            r->send = strstr(name, "send") != NULL && strstr(name, "recv") == NULL;
            r->persistent = strstr(name, "_init") != NULL;
            r->active = !r->persistent;
            r->comm = e.p2p[0].comm;
            r->peer = e.p2p[0].peer;
            r->tag = e.p2p[0].tag;
            snprintf(r->routine, sizeof r->routine, "%s", name);
            sym_site(f, e.site, r->site, sizeof r->site);
        } else if (e.type == ML_REC_SENDRECV && e.request) {
            /* MPI_Isendrecv(_replace): a Wait on it waits for its receive */
            struct dl_req *r = req_new(q, e.request);
            if (!r) break;
            r->thread = e.thread;
            r->send = 0;
            r->persistent = 0;
            r->active = 1;
            r->comm = e.p2p[1].comm;
            r->peer = e.p2p[1].peer;
            r->tag = e.p2p[1].tag;
            snprintf(r->routine, sizeof r->routine, "%s", name);
            sym_site(f, e.site, r->site, sizeof r->site);
        } else if (e.type != ML_REC_COMPLETE && (e.request ? e.type != ML_REC_P2P_REQ : makes_request(name))) {
            /* a request not followed here: one recorded with a handle but
             * not described above (a nonblocking collective without its
             * number, ...), or by a call that starts one unrecorded */
            q->undescribed++;
        } else if (e.type == ML_REC_COMPLETE) {
            int start = !strcmp(name, "MPI_Start") || !strcmp(name, "MPI_Startall");
            for (uint32_t i = 0; i < e.ndone; i++) {
                struct dl_req *r = req_find(q, e.done[i].request);
                if (!r) continue;
                if (start) r->active = 1;
                else if (r->persistent) r->active = 0;
                else {
                    if (r->coll) cdone_note(q, r);
                    *r = q->r[--q->n];          /* gone */
                }
            }
        }
    }
    mlr_iter_free(it);
    mlr_close(f);
}

void dl_reqs_free(struct dl_reqs *q)
{
    free(q->r);
    free(q->nb);
    free(q->cdone);
    free(q->bc);
    memset(q, 0, sizeof *q);
}

void dl_reqs_copy(const struct dl_reqs *from, struct dl_reqs *to)
{
    memset(to, 0, sizeof *to);
    if (!from) return;
    to->undescribed = from->undescribed;
    if (from->n) {
        to->r = malloc(from->n * sizeof *to->r);
        if (to->r) {
            memcpy(to->r, from->r, from->n * sizeof *to->r);
            to->n = to->cap = from->n;
        }
    }
    if (from->nnb) {
        to->nb = malloc(from->nnb * sizeof *to->nb);
        if (to->nb) {
            memcpy(to->nb, from->nb, from->nnb * sizeof *to->nb);
            to->nnb = from->nnb;
        }
    }
    if (from->ncdone) {
        to->cdone = malloc(from->ncdone * sizeof *to->cdone);
        if (to->cdone) {
            memcpy(to->cdone, from->cdone, from->ncdone * sizeof *to->cdone);
            to->ncdone = from->ncdone;
        }
    }
}

/* ---- building the nodes --------------------------------------------------- */

struct g {
    struct ent *ents;
    unsigned nents;
    int nranks;
    int64_t now;
    struct node *nodes;
    unsigned nnodes;
    int *rank_term;          /* 0 running, ES_FINALIZED / ES_EXITED / ES_DIED */
    int *rank_active;
    int *rank_first;         /* first entity of each rank, -1 */
    int *rank_node;          /* first node of each rank, -1; then node_next */
    int *node_next;
    struct dl_reqs *rq;         /* per rank, loaded on demand */
    char *rq_loaded;
    char *in_fin;            /* per rank: a node in MPI_Finalize */
    char *mark;              /* scratch, per rank, all 0 between uses */
    struct inst **inst;      /* instances, and their hash (open addressing) */
    unsigned ninst, capinst;
    unsigned *ihash, ihcap;
    int *joiners;            /* per node: first node joining its thread, -1; then jnext */
    struct cmem {            /* communicator members by gid (comm_members) */
        uint64_t gid;
        unsigned n;
        int *m;
    } *cm;
    unsigned ncm, cmcap;
};

static int world_of(struct lf *f, uint32_t comm, int peer)
{
    if (peer == lf_proc_null(f)) return -2;
    return lf_world(f, comm, peer);
}

static uint64_t comm_gid(struct lf *f, uint32_t comm)
{
    const struct lf_comm *c = comm < ML_COMM_NONE ? lf_comm(f, comm) : NULL;
    return c ? c->gid : 0;
}

static struct op *op_add(struct node *n)
{
    struct op *p = realloc(n->ops, (n->nops + 1) * sizeof *p);
    if (!p) return NULL;
    n->ops = p;
    struct op *o = &p[n->nops++];
    memset(o, 0, sizeof *o);
    return o;
}

static void op_fill(struct op *o, struct lf *f, int send, uint32_t comm, int32_t peer, int32_t tag)
{
    char p[48], t[24];
    o->send = send;
    o->comm = comm;
    o->gid = comm_gid(f, comm);
    o->any = !send && peer == lf_any_source(f);
    o->peer = o->any ? -1 : world_of(f, comm, peer);
    o->tag = tag;
    if (o->any) snprintf(p, sizeof p, "any source");
    else if (o->peer == -2) snprintf(p, sizeof p, "MPI_PROC_NULL");
    else if (o->peer >= 0) snprintf(p, sizeof p, "%d", o->peer);
    else snprintf(p, sizeof p, "?");
    if (tag == -1) snprintf(t, sizeof t, "any tag");
    else snprintf(t, sizeof t, "tag %d", tag);
    snprintf(o->desc, sizeof o->desc, "%s %s %s %s", send ? "send" : "receive", send ? "to" : "from", p, t);
}

static struct dl_reqs *rank_reqs(struct g *G, int r)
{
    if (r < 0 || r >= G->nranks) return NULL;
    if (!G->rq_loaded[r]) {
        G->rq_loaded[r] = 1;
        int i = G->rank_first[r];
        if (i >= 0 && G->ents[i].f) {
            struct lf *f = G->ents[i].f;
            if (lf_is_remote(f)) dl_reqs_copy(lf_remote_reqs(f), &G->rq[r]);   /* from the node's stream */
            else dl_load_requests(lf_path(f), &G->rq[r]);
        }
    }
    return &G->rq[r];
}

/* The blocking collectives rank r completed on communicator gid, from its
 * trace (NULL: none known). */
static const struct dl_bcoll *rank_bcoll(struct g *G, int r, uint64_t gid)
{
    struct dl_reqs *q = rank_reqs(G, r);
    int i = r >= 0 && r < G->nranks ? G->rank_first[r] : -1;
    if (!q || i < 0 || !G->ents[i].f) return NULL;
    for (unsigned j = 0; j < q->nbc; j++)
        if (comm_gid(G->ents[i].f, q->bc[j].comm) == gid) return &q->bc[j];
    return NULL;
}

/* The blocking collective rank r completed as #seq on communicator gid,
 * when its trace says so for sure: NULL otherwise. */
static const struct dl_bcoll *coll_done_at(struct g *G, int r, uint64_t gid, uint64_t seq)
{
    const struct dl_bcoll *c = seq ? rank_bcoll(G, r, gid) : NULL;
    return c && c->has && c->exact && c->n == seq ? c : NULL;
}

/* "MPI_Reduce root 2 at x.c:12" for a collective of rank r's trace. */
static void bcoll_text(struct g *G, int r, const struct dl_bcoll *c, char *buf, size_t n)
{
    struct lf *f = G->ents[G->rank_first[r]].f;
    int root = c->root != ML_PEER_NONE && rclass_rooted(c->routine) ? world_of(f, c->comm, c->root) : -3;
    char rt[24] = "";
    if (root >= 0) snprintf(rt, sizeof rt, " root %d", root);
    snprintf(buf, n, "%s%s at %s", c->routine, rt, c->site);
}

/* Has rank r started collective #seq on communicator gid, or one after it?
 * (a nonblocking one in its trace, the collective it is in now, or a
 * blocking one it completed, counted for sure) */
static int coll_past(struct g *G, int r, uint64_t gid, uint64_t seq)
{
    if (r < 0 || r >= G->nranks) return 0;
    for (int k = G->rank_node[r]; k >= 0; k = G->node_next[k]) {
        const struct node *m = &G->nodes[k];
        if (m->kind == K_COLL && m->gid == gid && m->seq >= seq) return 1;
        for (unsigned i = 0; i < m->nops; i++)
            if (m->ops[i].coll && m->ops[i].gid == gid && m->ops[i].seq >= seq) return 1;
    }
    struct dl_reqs *q = rank_reqs(G, r);
    int i = G->rank_first[r];
    if (!q || i < 0 || !G->ents[i].f) return 0;
    for (unsigned j = 0; j < q->nnb; j++)
        if (q->nb[j].seq >= seq && comm_gid(G->ents[i].f, q->nb[j].comm) == gid) return 1;
    const struct dl_bcoll *c = rank_bcoll(G, r, gid);
    return c && c->has && c->exact && c->n >= seq;
}

static void ent_where(const struct ent *e, char *buf, size_t n)
{
    snprintf(buf, n, "%s", lf_site_text(e->sgid));
}

/* Names compared across ranks: MPI_Bcast_c and MPI_Bcast are one collective. */
static int same_coll(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 2 && !strcmp(a + la - 2, "_c")) la -= 2;
    if (lb > 2 && !strcmp(b + lb - 2, "_c")) lb -= 2;
    return la == lb && !strncmp(a, b, la);
}

/* A key for a collective's name, the same for MPI_Ibcast and MPI_Ibcast_c. */
static int coll_key(const char *a)
{
    size_t l = strlen(a);
    if (l > 2 && !strcmp(a + l - 2, "_c")) l -= 2;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < l; i++) h = (h ^ (unsigned char)a[i]) * 16777619u;
    return (int)(h & 0x7fffffff);
}

/* Which collective rank r started as #seq on communicator gid, if that is
 * known: the blocking one it is in, or a nonblocking one still active (its
 * wait, or its trace).  Fills what ("MPI_Ibcast started at x.c:12") and
 * returns the routine's name, else NULL. */
static const char *coll_at(struct g *G, int r, uint64_t gid, uint64_t seq, char *what, size_t wn)
{
    if (r < 0 || r >= G->nranks || !seq) return NULL;
    for (int k = G->rank_node[r]; k >= 0; k = G->node_next[k]) {
        const struct node *m = &G->nodes[k];
        if (m->kind == K_COLL && m->gid == gid && m->seq == seq) {
            const struct ent *e = &G->ents[m->ent];
            char where[160];
            ent_where(e, where, sizeof where);
            snprintf(what, wn, "%s at %s", lf_routine(e->f, e->l.routine), where);
            return lf_routine(e->f, e->l.routine);
        }
        for (unsigned i = 0; i < m->nops; i++)
            if (m->ops[i].coll && m->ops[i].gid == gid && m->ops[i].seq == seq) {
                snprintf(what, wn, "%s started at %s", m->ops[i].routine, m->ops[i].site);
                return m->ops[i].routine;
            }
    }
    struct dl_reqs *q = rank_reqs(G, r);
    int i = G->rank_first[r];
    if (!q || i < 0 || !G->ents[i].f) return NULL;
    for (unsigned j = 0; j < q->n + q->ncdone; j++) {
        const struct dl_req *x = j < q->n ? &q->r[j] : &q->cdone[j - q->n];
        if (x->coll && (x->active || j >= q->n) && x->seq == seq && comm_gid(G->ents[i].f, x->comm) == gid) {
            snprintf(what, wn, "%s started at %s%s", x->routine, x->site, j < q->n ? "" : " (completed)");
            return x->routine;
        }
    }
    const struct dl_bcoll *c = coll_done_at(G, r, gid, seq);
    if (c) {
        bcoll_text(G, r, c, what, wn);
        return c->routine;
    }
    return NULL;
}

/* The operations of a Wait/Test-family node from the rank's requests. */
static void node_requests(struct g *G, struct node *n, const struct ent *e)
{
    struct dl_reqs *q = rank_reqs(G, e->rank);
    if (!q) return;
    int c = e->rclass;
    int single = c == RC_WAIT || c == RC_TEST || c == RC_REQ_STATUS;
    unsigned want = single ? 1 : (unsigned)(int64_t)e->l.aux;
    struct dl_req *pick[256];
    unsigned np = 0;
    if (single) {
        struct dl_req *x = req_find(q, e->l.aux);
        if (x && x->active) pick[np++] = x;
    } else {
        for (unsigned i = 0; i < q->n && np < 256; i++)
            if (q->r[i].active && q->r[i].thread == e->thread) pick[np++] = &q->r[i];
    }
    int any = c == RC_WAITANY || c == RC_WAITSOME || c == RC_TESTANY || c == RC_TESTSOME, widened = 0;
    if (!single && want > 0 && (np == 0 || (np != want && (any || np > want))) && !q->undescribed) {
        /* The thread's own requests do not explain the call: it waits on
         * requests another thread started.  Those it waits on are active
         * requests of the rank (at least one, or the call would have
         * returned), and the trace describes them all: any of the rank's
         * active requests (OR) is needed, whatever the call (weaker than
         * Waitall's AND: it may miss a deadlock, never invent one). */
        np = 0;
        int other = 0;
        for (unsigned i = 0; i < q->n; i++)
            if (q->r[i].active) {
                if (np == 256) {
                    np = 0;         /* too many to say */
                    break;
                }
                other |= q->r[i].thread != e->thread;
                pick[np++] = &q->r[i];
            }
        if (np && other) any = widened = 1;
        else np = 0;
    }
    if (np == 0 || (!widened && np != want && (any || np > want))) {
        snprintf(n->why, sizeof n->why, "%s on request%s the trace does not describe (a collective's?)",
                 lf_routine(e->f, e->l.routine), want == 1 ? "" : "s");
        n->kind = K_UNKNOWN;
        return;
    }
    /* Waitall with fewer known requests than it waits for: the known ones
     * are still all needed (fewer clauses: never a false verdict) */
    n->kind = any ? K_ANY : K_ALL;
    for (unsigned i = 0; i < np; i++) {
        struct op *o = op_add(n);
        if (!o) return;
        if (pick[i]->coll) {
            /* a nonblocking collective: every member must start it (an
             * any-of over collectives is not judged) */
            if (any) {
                snprintf(n->why, sizeof n->why, "%s on a nonblocking collective's request",
                         lf_routine(e->f, e->l.routine));
                n->kind = K_UNKNOWN;
                return;
            }
            char cb[128];
            o->coll = 1;
            o->seq = pick[i]->seq;
            o->comm = pick[i]->comm;
            o->gid = comm_gid(e->f, pick[i]->comm);
            o->peer = -3;
            snprintf(o->routine, sizeof o->routine, "%s", pick[i]->routine);
            snprintf(o->site, sizeof o->site, "%s", pick[i]->site);
            snprintf(o->desc, sizeof o->desc, "%s on %s (collective #%llu on it, at %s)", pick[i]->routine,
                     fmt_comm(e->f, pick[i]->comm, cb, sizeof cb), (unsigned long long)pick[i]->seq,
                     pick[i]->site);
            if (!o->gid) {
                snprintf(n->why, sizeof n->why, "collective request on an unknown communicator");
                n->kind = K_UNKNOWN;
                return;
            }
            continue;
        }
        op_fill(o, e->f, pick[i]->send, pick[i]->comm, pick[i]->peer, pick[i]->tag);
        size_t l = strlen(o->desc);
        snprintf(o->desc + l, sizeof o->desc - l, " (%s at %s)", pick[i]->routine, pick[i]->site);
    }
}

/* One copy of a communicator's member list per check, shared by its nodes
 * (a copy per node was 1 GiB at 16,384 ranks in one collective). */
static const int *comm_members(struct g *G, const struct lf_comm *c)
{
    if (!c->members) return NULL;
    if (G->ncm * 2 >= G->cmcap) {
        unsigned cap = G->cmcap ? G->cmcap * 2 : 32;
        struct cmem *t = calloc(cap, sizeof *t);
        if (!t) return NULL;
        for (unsigned i = 0; i < G->cmcap; i++) {
            if (!G->cm[i].m) continue;
            unsigned j = (unsigned)(G->cm[i].gid * 0x9E3779B97F4A7C15ull >> 32) & (cap - 1);
            while (t[j].m) j = (j + 1) & (cap - 1);
            t[j] = G->cm[i];
        }
        free(G->cm);
        G->cm = t;
        G->cmcap = cap;
    }
    unsigned j = (unsigned)(c->gid * 0x9E3779B97F4A7C15ull >> 32) & (G->cmcap - 1);
    for (; G->cm[j].m; j = (j + 1) & (G->cmcap - 1))
        if (G->cm[j].gid == c->gid && G->cm[j].n == c->size + c->remote_size) return G->cm[j].m;
    unsigned m = c->size + c->remote_size;
    int *p = malloc((m ? m : 1) * sizeof *p);
    if (!p) return NULL;
    memcpy(p, c->members, m * sizeof *p);
    G->cm[j].gid = c->gid;
    G->cm[j].n = m;
    G->cm[j].m = p;
    G->ncm++;
    return p;
}

static inline int member(const struct node *n, unsigned i)
{
    return n->members ? n->members[i] : (int)i;
}

static void build_node(struct g *G, struct node *n, const struct ent *e)
{
    struct lf *f = e->f;
    n->rank = e->rank;
    n->kind = K_ALL;
    n->join = n->jnext = -1;
    switch (e->rclass) {
    case RC_SEND:
    case RC_RECV:
    case RC_PROBE:
    case RC_IPROBE: {
        struct op *o = op_add(n);
        if (o) op_fill(o, f, e->rclass == RC_SEND, e->l.comm, e->l.peer, e->l.tag);
        break;
    }
    case RC_SENDRECV: {
        struct op *o = op_add(n);
        if (o) op_fill(o, f, 1, e->l.comm, e->l.peer, e->l.tag);
        o = op_add(n);
        if (o) op_fill(o, f, 0, e->l.comm, (int32_t)(uint32_t)e->l.aux, (int32_t)(uint32_t)(e->l.aux >> 32));
        break;
    }
    case RC_COLL:
    case RC_COMM_COLL: {
        const struct lf_comm *c = e->l.comm < ML_COMM_NONE ? lf_comm(f, e->l.comm) : NULL;
        if (!c) {
            n->kind = K_UNKNOWN;
            snprintf(n->why, sizeof n->why, "collective on an unknown communicator");
            break;
        }
        n->kind = K_COLL;
        n->gid = c->gid;
        n->seq = e->l.aux;
        n->rgid = e->rgid;
        n->root = rclass_rooted(lf_routine(f, e->l.routine)) ? world_of(f, e->l.comm, e->l.peer) : -1;
        if (!strcmp(lf_routine(f, e->l.routine), "MPI_Intercomm_create")) {
            /* the runtime publishes the local leader as the peer, the tag,
             * and the collective number | (world rank of the remote leader
             * + 1) << 32, the latter at the local leader only (0: unknown;
             * files of older runtimes: peer and tag none, aux the number) */
            n->icc = 1;
            n->seq = e->l.aux & 0xffffffffu;
            n->root = e->l.peer != ML_PEER_NONE ? world_of(f, e->l.comm, e->l.peer) : -1;
            n->icc_tag = e->l.tag;
            n->icc_remote = (int)(e->l.aux >> 32) - 1;
            if (n->root < 0) n->icc = 0;
        }
        if (c->flags & 2) {
            n->members = NULL;
            n->nmembers = (unsigned)G->nranks;
        } else {
            n->members = comm_members(G, c);
            if (!n->members) {
                n->kind = K_UNKNOWN;
                snprintf(n->why, sizeof n->why, "collective on an unknown communicator");
                break;
            }
            n->nmembers = c->size + c->remote_size;
        }
        break;
    }
    case RC_FINALIZE:
        n->kind = K_FINALIZE;
        break;
    case RC_JOIN:
        /* pthread_join: waits for one thread of its rank (make_clauses) */
        n->kind = K_JOIN;
        if (e->l.peer < 0 || (unsigned)e->l.peer == e->thread) {
            n->kind = K_UNKNOWN;
            snprintf(n->why, sizeof n->why, "joins a thread the runtime does not see");
        }
        break;
    case RC_WAIT:
    case RC_TEST:
    case RC_REQ_STATUS:
    case RC_WAITALL:
    case RC_TESTALL:
    case RC_WAITANY:
    case RC_TESTANY:
    case RC_WAITSOME:
    case RC_TESTSOME:
        node_requests(G, n, e);
        break;
    default:
        n->kind = K_UNKNOWN;
        snprintf(n->why, sizeof n->why, "%s: what it waits for is not known", lf_routine(f, e->l.routine));
        break;
    }
    for (unsigned i = 0; i < n->nops; i++)
        if (n->ops[i].peer == -1 && !n->ops[i].any) {
            n->kind = K_UNKNOWN;     /* a peer we cannot name */
            snprintf(n->why, sizeof n->why, "peer on an unknown communicator");
        }
}

/* Does some node of rank r have a pending operation matching o (of rank me)? */
static int counterpart(struct g *G, const struct op *o, int me, int r)
{
    if (r < 0 || r >= G->nranks) return 0;
    for (int k = G->rank_node[r]; k >= 0; k = G->node_next[k]) {      /* rank r's nodes only */
        const struct node *m = &G->nodes[k];
        for (unsigned i = 0; i < m->nops; i++) {
            const struct op *x = &m->ops[i];
            if (x->coll || x->send == o->send || x->gid != o->gid) continue;
            const struct op *s = o->send ? o : x, *rc = o->send ? x : o;
            int sender = o->send ? me : r, receiver = o->send ? r : me;
            if (s->peer != receiver) continue;
            if (!rc->any && rc->peer != sender) continue;
            if (rc->tag != -1 && rc->tag != s->tag) continue;
            return 1;
        }
    }
    return 0;
}

static void clause_add(struct node *n, const int *ranks, unsigned k, int any)
{
    int **c = realloc(n->cl, (n->ncl + 1) * sizeof *c);
    if (!c) return;
    n->cl = c;
    unsigned *cn = realloc(n->cln, (n->ncl + 1) * sizeof *cn);
    if (!cn) return;
    n->cln = cn;
    int *ca = realloc(n->clause_any, (n->ncl + 1) * sizeof *ca);
    if (!ca) return;
    n->clause_any = ca;
    int *r = malloc((k ? k : 1) * sizeof *r);
    if (!r) return;
    memcpy(r, ranks, k * sizeof *r);
    n->cl[n->ncl] = r;
    n->cln[n->ncl] = k;
    n->clause_any[n->ncl] = any;
    n->ncl++;
}

/* Candidates of an operation: its peer, or every member of the
 * communicator but me for MPI_ANY_SOURCE. */
static unsigned op_candidates(struct g *G, const struct op *o, const struct node *n, int *out)
{
    if (!o->any) {
        out[0] = o->peer;
        return 1;
    }
    const struct ent *e = &G->ents[n->ent];
    const struct lf_comm *c = o->comm < ML_COMM_NONE ? lf_comm(e->f, o->comm) : NULL;
    unsigned k = 0;
    if (!c || (c->flags & 2)) {
        for (int r = 0; r < G->nranks; r++)
            if (r != n->rank) out[k++] = r;
    } else {
        unsigned base = (c->flags & 1) ? c->size : 0, m = (c->flags & 1) ? c->remote_size : c->size;
        for (unsigned i = 0; i < m; i++)
            if (c->members[base + i] != n->rank) out[k++] = c->members[base + i];
    }
    return k;
}

/* Is a thread of rank r in blocking collective #seq on gid now? */
static int in_coll(struct g *G, int r, uint64_t gid, uint64_t seq)
{
    for (int k = G->rank_node[r]; k >= 0; k = G->node_next[k])
        if (G->nodes[k].kind == K_COLL && G->nodes[k].gid == gid && G->nodes[k].seq == seq) return 1;
    return 0;
}

/* Did rank r complete (its part of) blocking collective n, by its trace? */
static int bcoll_same(struct g *G, const struct node *n, int r)
{
    const struct dl_bcoll *c = coll_done_at(G, r, n->gid, n->seq);
    if (!c) return 0;
    const struct ent *e = &G->ents[n->ent];
    if (!same_coll(c->routine, lf_routine(e->f, e->l.routine))) return 0;
    int root = c->root != ML_PEER_NONE && rclass_rooted(c->routine)
                   ? world_of(G->ents[G->rank_first[r]].f, c->comm, c->root) : -1;
    return root == n->root;
}

/* Where member r stands in collective n: 1 arrived (or past), 0 not, and
 * *mismatch when it is in another collective at the same position. */
static int coll_arrived(struct g *G, const struct node *n, int r, const struct node **mismatch)
{
    int arrived = 0;
    if (r < 0 || r >= G->nranks) return 0;
    /* the nodes of rank r only: a scan of all nodes here made the check cubic */
    for (int k = G->rank_node[r]; k >= 0; k = G->node_next[k]) {
        const struct node *m = &G->nodes[k];
        if (m->rank != r || m->kind != K_COLL || m->gid != n->gid) continue;
        if (!n->seq || !m->seq) {
            if (m->rgid == n->rgid) arrived = 1;
            else if (mismatch) *mismatch = m;
            continue;
        }
        if (m->seq > n->seq) arrived = 1;
        else if (m->seq == n->seq) {
            if (m->rgid == n->rgid && m->root == n->root) arrived = 1;
            else if (mismatch) *mismatch = m;
        }
    }
    if (!arrived && n->seq && coll_past(G, r, n->gid, n->seq + 1)) arrived = 1;
    if (!arrived && bcoll_same(G, n, r)) arrived = 1;   /* it completed this one */
    return arrived;
}

/* The instance of blocking collective node n (kind 0), or of nonblocking
 * collective o started by n (kind 1): found or made, its missing members
 * computed once. */
static struct inst *inst_get(struct g *G, const struct node *n, const struct op *o)
{
    int kind = o != NULL;
    uint64_t gid = kind ? o->gid : n->gid, seq = kind ? o->seq : n->seq;
    /* kind 1: one instance per routine (ranks that started different
     * collectives as #seq are in different ones) */
    int rgid = kind ? coll_key(o->routine) : n->rgid, root = kind ? -1 : n->root;
    uint64_t h = (gid * 0x9E3779B97F4A7C15ull) ^ (seq * 0xff51afd7ed558ccdull) ^
                 ((uint64_t)(uint32_t)rgid << 20) ^ (uint64_t)(uint32_t)root ^ (uint64_t)kind << 62;
    h ^= h >> 29;
    if (G->ninst * 2 >= G->ihcap) {          /* grow the hash */
        unsigned c = G->ihcap ? G->ihcap * 2 : 64;
        unsigned *t = malloc(c * sizeof *t);
        if (!t) return NULL;
        memset(t, 0xff, c * sizeof *t);
        for (unsigned i = 0; i < G->ninst; i++) {
            const struct inst *x = G->inst[i];
            uint64_t hx = (x->gid * 0x9E3779B97F4A7C15ull) ^ (x->seq * 0xff51afd7ed558ccdull) ^
                          ((uint64_t)(uint32_t)x->rgid << 20) ^ (uint64_t)(uint32_t)x->root ^
                          (uint64_t)x->kind << 62;
            hx ^= hx >> 29;
            unsigned j = (unsigned)hx & (c - 1);
            while (t[j] != UINT_MAX) j = (j + 1) & (c - 1);
            t[j] = i;
        }
        free(G->ihash);
        G->ihash = t;
        G->ihcap = c;
    }
    unsigned j = (unsigned)h & (G->ihcap - 1);
    for (; G->ihash[j] != UINT_MAX; j = (j + 1) & (G->ihcap - 1)) {
        struct inst *x = G->inst[G->ihash[j]];
        if (x->kind == kind && x->gid == gid && x->seq == seq && x->rgid == rgid && x->root == root) return x;
    }
    if (G->ninst == G->capinst) {
        unsigned c = G->capinst ? G->capinst * 2 : 16;
        struct inst **p = realloc(G->inst, c * sizeof *p);
        if (!p) return NULL;
        G->inst = p;
        G->capinst = c;
    }
    struct inst *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->kind = kind;
    x->gid = gid;
    x->seq = seq;
    x->rgid = rgid;
    x->root = root;
    x->first = n;
    x->comm = kind ? o->comm : 0;
    x->mis_rank = -1;
    /* the members that have not arrived (kind 0) / not started it (kind 1) */
    const struct lf_comm *c = NULL;
    unsigned m;
    if (kind) {
        c = lf_comm(G->ents[n->ent].f, o->comm);
        m = !c ? 0 : (c->flags & 2) ? (unsigned)G->nranks : c->members ? c->size + c->remote_size : 0;
    } else {
        m = n->nmembers;
    }
    x->missing = malloc((m ? m : 1) * sizeof *x->missing);
    for (unsigned i = 0; x->missing && i < m; i++) {
        int r = kind ? ((c->flags & 2) ? (int)i : c->members[i]) : member(n, i);
        if (r == n->rank || r < 0 || r >= G->nranks) continue;
        const struct node *mm = NULL;
        char w[160];
        const char *other = NULL;
        if (kind ? coll_past(G, r, gid, seq) : coll_arrived(G, n, r, &mm)) {
            /* a member that started another collective as #seq (MPI
             * matches collectives by their order on the communicator)
             * never completes this one */
            if (!kind) continue;
            other = coll_at(G, r, gid, seq, w, sizeof w);
            if (!other || same_coll(other, o->routine)) continue;
        } else if (!kind && !mm) {
            other = coll_at(G, r, gid, seq, w, sizeof w);   /* a nonblocking one there */
        }
        if (mm && !x->mis) x->mis = mm;
        if (other && x->mis_rank < 0) {
            x->mis_rank = r;
            x->mis_done = coll_done_at(G, r, gid, seq) != NULL;
            snprintf(x->mis_what, sizeof x->mis_what, "%s", w);
        }
        x->missing[x->nmissing++] = r;
    }
    G->inst[G->ninst] = x;
    G->ihash[j] = G->ninst++;
    return x;
}

static void node_inst(struct g *G, struct node *n, struct inst *x)
{
    if (!x) return;
    struct inst **p = realloc(n->ci, (n->nci + 1) * sizeof *p);
    if (!p) return;
    /* the instance's node list grows by doubling */
    if ((x->nnodes & (x->nnodes - 1)) == 0) {
        unsigned *q = realloc(x->nodes, (x->nnodes ? x->nnodes * 2 : 1) * sizeof *q);
        if (!q) return;
        x->nodes = q;
    }
    x->nodes[x->nnodes++] = (unsigned)(n - G->nodes);
    n->ci = p;
    n->ci[n->nci++] = x;
}

/* MPI_Intercomm_create whose local group has all arrived: a member other
 * than the local leader waits for the leader; the leader for the remote
 * leader it named, unless that rank is in an MPI_Intercomm_create as the
 * leader of its side, naming this one, with the same tag (then the
 * exchange matches).  A rank elsewhere may still call it: only its state
 * decides (a clause on it), so a late but right leader is no deadlock. */
static void icc_clauses(struct g *G, struct node *n)
{
    if (n->root != n->rank) {
        if (n->root >= 0 && n->root < G->nranks) clause_add(n, &n->root, 1, 0);
        return;
    }
    int R = n->icc_remote;
    if (R < 0 || R >= G->nranks || R == n->rank) return;   /* unknown: assumed to match */
    const struct node *why = NULL;
    for (int k = G->rank_node[R]; k >= 0; k = G->node_next[k]) {
        const struct node *m = &G->nodes[k];
        if (m->kind != K_COLL || !m->icc) continue;
        if (m->root != R) {
            why = m;
            continue;
        }
        if (m->icc_remote < 0 || (m->icc_remote == n->rank && m->icc_tag == n->icc_tag)) return;
        why = m;
    }
    clause_add(n, &R, 1, 0);
    if (!why) return;
    if (why->root != R)
        snprintf(n->icc_note, sizeof n->icc_note,
                 "the remote leader it names, rank %d, is no leader: its side's local leader is rank %d", R,
                 why->root);
    else if (why->icc_remote != n->rank)
        snprintf(n->icc_note, sizeof n->icc_note,
                 "the remote leader it names, rank %d, names rank %d as its remote leader, not rank %d", R,
                 why->icc_remote, n->rank);
    else
        snprintf(n->icc_note, sizeof n->icc_note, "tag %d here, tag %d at the remote leader rank %d", n->icc_tag,
                 why->icc_tag, R);
}

static void make_clauses(struct g *G, struct node *n)
{
    int *tmp = malloc((size_t)(G->nranks + 1) * sizeof *tmp);
    if (!tmp) return;
    switch (n->kind) {
    case K_ALL: {
        unsigned open = 0;
        for (unsigned i = 0; i < n->nops; i++) {
            const struct op *o = &n->ops[i];
            if (o->peer == -2) continue;              /* MPI_PROC_NULL completes */
            if (o->coll) {
                /* every member must start the same instance */
                struct inst *x = inst_get(G, n, o);
                if (x && x->nmissing) {
                    node_inst(G, n, x);
                    open++;
                }
                continue;
            }
            unsigned k = op_candidates(G, o, n, tmp);
            int met = 0;
            for (unsigned j = 0; j < k && !met; j++) met = counterpart(G, o, n->rank, tmp[j]);
            if (met) continue;
            clause_add(n, tmp, k, o->any);
            open++;
        }
        if (!open) n->matched_all = 1;
        break;
    }
    case K_ANY: {
        /* one clause: the union of every operation's candidates */
        char *in = calloc((size_t)G->nranks + 1, 1);
        int *c = malloc((size_t)(G->nranks + 1) * sizeof *c);
        unsigned k = 0;
        int met = 0;
        for (unsigned i = 0; in && c && i < n->nops && !met; i++) {
            const struct op *o = &n->ops[i];
            if (o->peer == -2) {
                met = 1;
                break;
            }
            unsigned kc = op_candidates(G, o, n, c);
            for (unsigned j = 0; j < kc && !met; j++) met = counterpart(G, o, n->rank, c[j]);
            for (unsigned j = 0; j < kc; j++)
                if (c[j] >= 0 && c[j] < G->nranks && !in[c[j]]) {
                    in[c[j]] = 1;
                    tmp[k++] = c[j];
                }
        }
        if (met) n->matched_all = 1;
        else clause_add(n, tmp, k, 1);
        free(in);
        free(c);
        break;
    }
    case K_COLL: {
        struct inst *x = inst_get(G, n, NULL);
        if (x && x->nmissing) node_inst(G, n, x);
        if (!n->nci && n->icc) icc_clauses(G, n);
        if (!n->nci && !n->ncl) n->matched_all = 1;
        break;
    }
    case K_JOIN: {
        /* the joined thread: blocked (a node of the same rank), or else
         * computing or ended, and then the join returns */
        const struct ent *e = &G->ents[n->ent];
        for (int k = G->rank_node[n->rank]; k >= 0 && n->join < 0; k = G->node_next[k])
            if (G->ents[G->nodes[k].ent].thread == (unsigned)e->l.peer && &G->nodes[k] != n) n->join = k;
        if (n->join < 0) n->matched_all = 1;
        break;
    }
    case K_FINALIZE:
        for (int r = 0; r < G->nranks; r++) {
            if (r == n->rank || G->rank_term[r] == ES_FINALIZED || G->in_fin[r]) continue;
            clause_add(n, &r, 1, 0);
        }
        if (!n->ncl) n->matched_all = 1;
        break;
    }
    free(tmp);
}

/* ---- the verdict --------------------------------------------------------- */

struct sbuf {
    char *s;
    size_t n, cap;
};

static void sput(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void sput(struct sbuf *b, const char *fmt, ...)
{
    char tmp[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
    if (b->n + (size_t)n + 1 > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 4096;
        while (c < b->n + (size_t)n + 1) c *= 2;
        char *p = realloc(b->s, c);
        if (!p) return;
        b->s = p;
        b->cap = c;
    }
    memcpy(b->s + b->n, tmp, (size_t)n + 1);
    b->n += (size_t)n;
}

static const char *term_name(int t)
{
    return t == ES_FINALIZED ? "finalized" : t == ES_EXITED ? "exited" : t == ES_DIED ? "died" : "";
}

/* Short description of what rank r is doing: "in MPI_Recv from 1 tag 5 at x.c:3". */
static void rank_brief(struct g *G, int r, char *buf, size_t n)
{
    if (r < 0 || r >= G->nranks) {
        snprintf(buf, n, "?");
        return;
    }
    if (G->rank_term[r]) {
        snprintf(buf, n, "%s", term_name(G->rank_term[r]));
        return;
    }
    int i = G->rank_first[r];
    if (i < 0) {
        snprintf(buf, n, "not started");
        return;
    }
    int k = G->rank_node[r];         /* its first blocked thread in MPI */
    for (int j = k; j >= 0; j = G->node_next[j])
        if (G->nodes[j].kind != K_JOIN) {
            k = j;
            break;
        }
    if (k >= 0) {
        const struct ent *e = &G->ents[G->nodes[k].ent];
        char w[200], s[120];
        fmt_what(e, w, sizeof w);
        ent_where(e, s, sizeof s);
        snprintf(buf, n, "in %s at %s", w, s);
        return;
    }
    snprintf(buf, n, "computing");
}

static int icmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* The ranks node n still waits for (members of its unsatisfiable clauses). */
static unsigned waits_for(struct g *G, const struct node *n, int *out, unsigned cap)
{
    unsigned k = 0;
    for (unsigned c = 0; c < n->ncl; c++)
        for (unsigned j = 0; j < n->cln[c]; j++) {
            int r = n->cl[c][j];
            if (r < 0 || r >= G->nranks || G->mark[r] || k >= cap) continue;
            G->mark[r] = 1;
            out[k++] = r;
        }
    for (unsigned c = 0; c < n->nci; c++)
        for (unsigned j = 0; j < n->ci[c]->nmissing; j++) {
            int r = n->ci[c]->missing[j];
            if (r < 0 || r >= G->nranks || G->mark[r] || k >= cap) continue;
            G->mark[r] = 1;
            out[k++] = r;
        }
    for (unsigned j = 0; j < k; j++) G->mark[out[j]] = 0;
    qsort(out, k, sizeof *out, icmp);
    return k;
}

/* One entry of the verdict's list: a blocked thread, or VG_MIN or more
 * whose text (key: what, where, requests, waits for) is the same. */
#define VG_MIN 4
struct ventry {
    char *key;               /* "[ thread T]: WHAT at WHERE\n" then the lines under it */
    int rank;                /* the first */
    unsigned thread;         /* ~0u: threads differ */
    unsigned node, n;
    int *ranks;              /* n > 1: the ranks, sorted */
    double since, smin, smax;   /* seconds ago; < 0 unknown */
    int poll;
    char *pkey;              /* key with ranks relative to this one (relkey), or NULL */
};

/* The key of a blocked thread of rank r with the ranks it names written
 * relative to r ("MPI_Ssend to rank+1 tag 5", "waits for rank+1: rank+1 in
 * MPI_Ssend to rank+2 ..."), modulo the job's size: threads that differ
 * only by a regular pattern (a ring: rank r waits for r+1) have the same.
 * A number is a rank after "to ", "from " or "rank " (not "rank N of
 * comm", a communicator's rank; not a list "1-3" or "0,2").  NULL when the
 * key names no rank. */
static char *relkey(const char *t, int r, int nranks)
{
    struct sbuf o = {0};
    int subs = 0;
    if (!t || nranks <= 0) return NULL;
    for (const char *p = t; *p;) {
        static const char *ctx[] = {"to ", "from ", "rank "};
        size_t cl = 0;
        int c;
        for (c = 0; c < 3; c++) {
            cl = strlen(ctx[c]);
            if (!strncmp(p, ctx[c], cl) && (p == t || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
                isdigit((unsigned char)p[cl]))
                break;
        }
        if (c < 3) {
            char *e;
            long x = strtol(p + cl, &e, 10);
            if (*e != '-' && *e != ',' && strncmp(e, " of comm", 8) && x >= 0 && x < nranks) {
                long d = ((x - r) % nranks + nranks) % nranks;
                if (d > nranks / 2) d -= nranks;
                sput(&o, "%.*srank%+ld", c == 2 ? 0 : (int)cl, p, d);
                subs++;
                p = e;
                continue;
            }
            sput(&o, "%.*s", (int)cl, p);
            p += cl;
            continue;
        }
        const char *q = p + 1;
        while (*q && *q != 't' && *q != 'f' && *q != 'r') q++;
        sput(&o, "%.*s", (int)(q - p), p);
        p = q;
    }
    if (!subs) {
        free(o.s);
        return NULL;
    }
    return o.s;
}

static int ventry_key_cmp(const void *a, const void *b)
{
    const struct ventry *x = a, *y = b;
    int c = strcmp(x->key ? x->key : "", y->key ? y->key : "");
    if (c) return c;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int ventry_rank_cmp(const void *a, const void *b)
{
    const struct ventry *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* b's text in a block of its size (sput starts at 4 KiB: one per blocked
 * thread adds up at scale). */
static char *shrink(struct sbuf *b)
{
    if (!b->s) return NULL;
    char *p = realloc(b->s, b->n + 1);
    return p ? p : b->s;
}

/* Text of any length (sput cuts at 2 KiB). */
static void sput_long(struct sbuf *b, const char *t)
{
    size_t l = strlen(t);
    for (size_t o = 0; o < l; o += 1024) sput(b, "%.*s", (int)(l - o < 1024 ? l - o : 1024), t + o);
}

#define VLINE 100           /* the verdict's lines that can fit: at most this wide */

/* "  cycle: rank 0 -> rank 1 -> rank 0": all of it when it fits VLINE
 * columns, else its first and last ranks around "... (N more) -> ", with
 * the length at the end ("(a cycle of 24)"). */
static void cycle_line(struct sbuf *b, const int *c, unsigned len)
{
    char t[32];
    size_t full = strlen("  cycle: ");
    for (unsigned i = 0; i < len; i++) full += (size_t)snprintf(t, sizeof t, "rank %d -> ", c[i]);
    full += (size_t)snprintf(t, sizeof t, "rank %d", c[0]);
    if (full <= VLINE || len < 4) {
        sput(b, "  cycle: ");
        for (unsigned i = 0; i < len; i++) sput(b, "rank %d -> ", c[i]);
        sput(b, "rank %d\n", c[0]);
        return;
    }
    /* head ranks c[0..h), tail c[len-k..len), then back to c[0]: taken in
     * turn while the line fits */
    unsigned h = 1, k = 1;
    for (;;) {
        size_t w = strlen("  cycle: ");
        for (unsigned i = 0; i < h; i++) w += (size_t)snprintf(t, sizeof t, "rank %d -> ", c[i]);
        for (unsigned i = len - k; i < len; i++) w += (size_t)snprintf(t, sizeof t, "rank %d -> ", c[i]);
        w += (size_t)snprintf(t, sizeof t, "rank %d", c[0]);
        w += (size_t)snprintf(t, sizeof t, "... (%u more) -> ", len - h - k);
        w += (size_t)snprintf(t, sizeof t, " (a cycle of %u)", len);
        if (w > VLINE) {
            /* the last one taken does not fit: give it back */
            if (h > k) h--;
            else if (k > 1) k--;
            break;
        }
        if (h + k + 1 >= len) break;
        if (h <= k) h++;
        else k++;
    }
    if (h < 1) h = 1;
    sput(b, "  cycle: ");
    for (unsigned i = 0; i < h; i++) sput(b, "rank %d -> ", c[i]);
    sput(b, "... (%u more) -> ", len - h - k);
    for (unsigned i = len - k; i < len; i++) sput(b, "rank %d -> ", c[i]);
    sput(b, "rank %d (a cycle of %u)\n", c[0], len);
}

/* Ranks as ranges ("0-3,5,7-9") in at most w characters: the ranges that
 * do not fit are ",... (N more)". */
static void ranks_fit(char *buf, size_t bn, const int *v, unsigned n, size_t w)
{
    size_t l = 0;
    buf[0] = 0;
    if (w >= bn) w = bn - 1;
    for (unsigned i = 0; i < n;) {
        unsigned j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1) j++;
        char t[40], more[40];
        int k = j > i ? snprintf(t, sizeof t, "%s%d-%d", i ? "," : "", v[i], v[j])
                      : snprintf(t, sizeof t, "%s%d", i ? "," : "", v[i]);
        int mk = j + 1 < n ? snprintf(more, sizeof more, ",... (%u more)", n - (j + 1)) : 0;
        if (i && l + (size_t)k + (size_t)mk > w) {
            snprintf(buf + l, bn - l, ",... (%u more)", n - i);
            return;
        }
        if (l + (size_t)k >= bn) return;
        memcpy(buf + l, t, (size_t)k + 1);
        l += (size_t)k;
        i = j + 1;
    }
}

static int ventry_pkey_cmp(const void *a, const void *b)
{
    const struct ventry *x = a, *y = b;
    if (!x->pkey != !y->pkey) return x->pkey ? -1 : 1;
    int c = x->pkey ? strcmp(x->pkey, y->pkey) : 0;
    if (c) return c;
    return ventry_rank_cmp(a, b);
}

/* Entries with the same key (by_pkey: the same pkey), VG_MIN or more, as
 * one; returns the number of entries left. */
static unsigned vgroup(struct ventry *v, unsigned nv, int by_pkey)
{
    qsort(v, nv, sizeof *v, by_pkey ? ventry_pkey_cmp : ventry_key_cmp);
    unsigned m = 0;
    for (unsigned i = 0; i < nv;) {
        unsigned j = i + 1;
        const char *k = by_pkey ? v[i].pkey : v[i].key;
        while (j < nv && k && (by_pkey ? v[j].pkey : v[j].key) && !strcmp(by_pkey ? v[j].pkey : v[j].key, k)) j++;
        if (j - i >= VG_MIN) {
            struct ventry g = v[i];
            g.ranks = malloc((j - i) * sizeof *g.ranks);
            g.n = j - i;
            if (by_pkey) {
                free(g.key);
                g.key = g.pkey;
                g.pkey = NULL;
            }
            for (unsigned t = i; t < j; t++) {
                if (g.ranks) g.ranks[t - i] = v[t].rank;
                if (v[t].since < g.smin) g.smin = v[t].since;
                if (v[t].since > g.smax) g.smax = v[t].since;
                if (v[t].thread != g.thread) g.thread = ~0u;
                if (t > i) {
                    free(v[t].key);
                    free(v[t].pkey);
                }
            }
            v[m++] = g;
        } else {
            for (unsigned t = i; t < j; t++) {
                v[m] = v[t];
                if (by_pkey) {
                    free(v[m].pkey);
                    v[m].pkey = NULL;
                }
                m++;
            }
        }
        i = j;
    }
    return m;
}

/* A list of ranks in a verdict line ("1,3,5-9,12"): its end, and in *cnt
 * how many ranks it names; NULL when p starts none (two items at least). */
static const char *rlist_end(const char *p, unsigned long *cnt)
{
    unsigned items = 0;
    unsigned long c = 0;
    for (;;) {
        if (!isdigit((unsigned char)*p)) break;
        char *e;
        long a = strtol(p, &e, 10), z = a;
        if (*e == '-' && isdigit((unsigned char)e[1])) z = strtol(e + 1, &e, 10);
        c += z >= a ? (unsigned long)(z - a + 1) : 1;
        items++;
        p = e;
        if (*p != ',' || !isdigit((unsigned char)p[1])) break;
        p++;
    }
    *cnt = c;
    return items >= 2 ? p : NULL;
}

/* n bytes of p, of any length (sput cuts at 2 KiB). */
static void sput_n(struct sbuf *b, const char *p, size_t n)
{
    for (size_t o = 0; o < n; o += 1024) sput(b, "%.*s", (int)(n - o < 1024 ? n - o : 1024), p + o);
}

/* One line of the verdict with its lists of ranks bounded: in a line over
 * VLINE columns, a list after "ranks " longer than 40 columns is cut to
 * ",... (N more)" (at 1,024 ranks lists made lines of 500 columns and more;
 * a list cut already, ending in "...", is left as it is).  The grouping
 * compared the whole texts before; this only changes what is printed.
 * Lines that fit are left as they are, and no line is broken: tests and
 * scripts match a verdict's lines whole. */
static void fit_line(struct sbuf *o, const char *l, size_t n)
{
    if (n <= VLINE) {
        sput_n(o, l, n);
        sput(o, "\n");
        return;
    }
    struct sbuf c = {0};
    size_t i = 0, from = 0;
    while (i + 6 < n) {
        unsigned long cnt, shown = 0;
        const char *p = l + i + 6, *e;
        if (strncmp(l + i, "ranks ", 6) || !(e = rlist_end(p, &cnt)) || e > l + n || (size_t)(e - p) <= 40 ||
            (e + 3 <= l + n && (!strncmp(e, "...", 3) || !strncmp(e, ",..", 3)))) {   /* cut already */
            i++;
            continue;
        }
        const char *keep = p;   /* whole items while they fit 40 columns */
        for (;;) {
            const char *q = keep;
            while (q < e && *q != ',') q++;
            if ((size_t)(q - p) > 40) break;
            char *x;
            long a = strtol(keep, &x, 10), z = a;
            if (*x == '-') z = strtol(x + 1, &x, 10);
            shown += z >= a ? (unsigned long)(z - a + 1) : 1;
            keep = q;
            if (q == e) break;
            keep++;
        }
        size_t kl = (size_t)(keep - p);
        if (kl && p[kl - 1] == ',') kl--;
        sput_n(&c, l + from, (size_t)(p - (l + from)));
        sput_n(&c, p, kl);
        sput(&c, ",... (%lu more)", cnt - shown);
        i = from = (size_t)(e - l);
    }
    sput_n(&c, l + from, n - from);
    if (c.s) sput_n(o, c.s, c.n);
    sput(o, "\n");
    free(c.s);
}

static char *verdict_fit(char *text)
{
    if (!text) return NULL;
    struct sbuf o = {0};
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        fit_line(&o, p, n);
        p += n + (e != NULL);
    }
    free(text);
    return shrink(&o);
}

static void verdict(struct g *G, struct sbuf *b, double stalled, unsigned ndead)
{
    int *dead_ranks = calloc((size_t)G->nranks + 1, sizeof *dead_ranks);
    unsigned nd = 0;
    for (unsigned k = 0; k < G->nnodes && dead_ranks; k++) {
        struct node *n = &G->nodes[k];
        if (n->active || G->mark[n->rank]) continue;
        G->mark[n->rank] = 1;
        dead_ranks[nd++] = n->rank;
    }
    for (unsigned x = 0; x < nd; x++) G->mark[dead_ranks[x]] = 0;
    qsort(dead_ranks, nd, sizeof *dead_ranks, icmp);
    char hd[160], rl[256];
    int hl = snprintf(hd, sizeof hd, "DEADLOCK: no progress for %.1f s, and none is possible: %u rank%s blocked forever",
                      stalled, nd, nd == 1 ? " is" : "s are");
    /* the line fits VLINE columns: a list of ranks too long for it goes on
     * the next line, cut to fit there */
    size_t rw = VLINE - (size_t)hl - strlen(" (ranks ).");
    ranks_fit(rl, sizeof rl, dead_ranks, nd, sizeof rl - 1);
    if (strlen(rl) <= rw || hl < 0) {
        sput(b, "%s (%s%s).\n", hd, nd == 1 ? "rank " : "ranks ", rl);
    } else {
        ranks_fit(rl, sizeof rl, dead_ranks, nd, VLINE - strlen("  (ranks )."));
        sput(b, "%s\n  (ranks %s).\n", hd, rl);
    }

    /* every blocked thread: what, where, since, waits for; by rank, and
     * threads in the same state waiting for the same ranks, VG_MIN or more,
     * as one entry ("ranks 1-15: MPI_Barrier ...") */
    int *wf = malloc((size_t)(G->nranks + 1) * sizeof *wf);
    unsigned nv = 0;
    struct ventry *v = calloc(G->nnodes ? G->nnodes : 1, sizeof *v);
    for (unsigned k = 0; k < G->nnodes && wf && v; k++) {
        struct node *n = &G->nodes[k];
        if (n->active) continue;
        const struct ent *e = &G->ents[n->ent];
        struct ventry *x = &v[nv++];
        struct sbuf kb = {0};
        char what[256], where[160], th[32] = "";
        x->node = k;
        x->rank = n->rank;
        x->thread = e->thread;
        x->n = 1;
        x->since = e->since_ns ? (double)(G->now - e->since_ns) / 1e9 : -1;
        x->smin = x->smax = x->since;
        x->poll = e->state == ES_POLL;
        fmt_what(e, what, sizeof what);
        ent_where(e, where, sizeof where);
        if (e->thread) snprintf(th, sizeof th, " thread %u", e->thread);
        sput(&kb, "%s: %s at %s\n", th, what, where);
        for (unsigned i = 0; i < n->nops && (n->kind == K_ALL || n->kind == K_ANY); i++) {
            if (e->rclass >= RC_WAIT && e->rclass <= RC_REQ_STATUS)
                sput(&kb, "      request: %s\n", n->ops[i].desc);
        }
        if (n->kind == K_JOIN && n->join >= 0) {
            const struct ent *je = &G->ents[G->nodes[n->join].ent];
            char w2[200], s2[120];
            fmt_what(je, w2, sizeof w2);
            ent_where(je, s2, sizeof s2);
            sput(&kb, "      waits for thread %u of rank %d to end: it is in %s at %s\n", je->thread, n->rank, w2, s2);
            x->key = shrink(&kb);
            continue;
        }
        if (n->icc_note[0]) sput(&kb, "      MPI_Intercomm_create cannot match: %s\n", n->icc_note);
        unsigned k2 = waits_for(G, n, wf, (unsigned)G->nranks);
        if (k2) {
            int anyc = 0;
            for (unsigned c = 0; c < n->ncl; c++) anyc |= n->clause_any[c];
            /* cut at 40 columns with the count of the rest (a 256-byte
             * list ended in '...', 500 ranks of 1,024 unsaid) */
            ranks_fit(rl, sizeof rl, wf, k2, 40);
            sput(&kb, "      waits for %s%s %s", anyc && k2 > 1 ? "any of " : "", k2 == 1 ? "rank" : "ranks", rl);
            /* the state of each (a few) */
            unsigned lim = k2 < 4 ? k2 : 4;
            sput(&kb, ":");
            for (unsigned j = 0; j < lim; j++) {
                char br[400];
                rank_brief(G, wf[j], br, sizeof br);
                sput(&kb, "%s rank %d %s", j ? ";" : "", wf[j], br);
            }
            if (k2 > lim) sput(&kb, "; ...");
            if (anyc) sput(&kb, "; no rank will ever send to it");
            sput(&kb, "\n");
        }
        x->key = shrink(&kb);
    }
    /* the same text: one entry when there are VG_MIN or more; then those
     * left alone whose text is the same but for ranks in a regular pattern
     * (relkey: a ring of 24 was 24 entries) */
    if (v && nv) {
        nv = vgroup(v, nv, 0);
        for (unsigned i = 0; i < nv; i++)
            if (v[i].n == 1) v[i].pkey = relkey(v[i].key, v[i].rank, G->nranks);
        nv = vgroup(v, nv, 1);
        qsort(v, nv, sizeof *v, ventry_rank_cmp);
    }
    unsigned shown = 0, hidden = 0;
    for (unsigned i = 0; i < nv; i++) {
        struct ventry *x = &v[i];
        if (shown >= 32) {
            hidden += x->n;
            continue;
        }
        shown++;
        const char *txt = x->key ? x->key : ": ?\n";
        const char *nl = strchr(txt, '\n');
        int hl = nl ? (int)(nl - txt) : (int)strlen(txt);
        if (x->n == 1) {
            sput(b, "  rank %d%.*s", x->rank, hl, txt);
        } else {
            char gl[256];
            if (x->ranks) ranks_fit(gl, sizeof gl, x->ranks, x->n, 48);
            else snprintf(gl, sizeof gl, "?");
            /* a thread number only when all are the same thread: the key has it */
            const char *colon = x->thread == ~0u ? strstr(txt, ": ") : NULL;
            if (colon && colon < txt + hl)
                sput(b, "  ranks %s (%u threads)%.*s", gl, x->n, (int)(txt + hl - colon), colon);
            else
                sput(b, "  ranks %s%.*s", gl, hl, txt);
        }
        const char *sw = x->poll ? "last progress" : "started";
        if (x->smax >= 0) {
            char a[32], c[32];
            snprintf(a, sizeof a, "%.1f", x->smin);
            snprintf(c, sizeof c, "%.1f", x->smax);
            if (x->n == 1 || !strcmp(a, c)) sput(b, " (%s %s s ago)", sw, c);
            else sput(b, " (%s %s-%s s ago)", sw, a, c);
        }
        sput(b, "\n");
        if (nl && nl[1]) sput_long(b, nl + 1);
    }
    if (hidden) sput(b, "  ... and %u more blocked threads\n", hidden);
    for (unsigned i = 0; i < nv; i++) {
        free(v[i].key);
        free(v[i].ranks);
    }
    free(v);

    /* collectives: who is in, who never arrives, mismatches */
    for (unsigned k = 0; k < G->nnodes; k++) {
        struct node *n = &G->nodes[k];
        if (n->active || n->kind != K_COLL || !n->nci || n->ci[0]->reported) continue;
        struct inst *x = n->ci[0];
        x->reported = 1;
        int *in = malloc((size_t)(G->nranks + 1) * sizeof *in), *out = malloc((size_t)(G->nranks + 1) * sizeof *out);
        unsigned nin = 0, nout = 0;
        const struct node *mis = x->mis;
        for (unsigned i = 0; i < x->nmissing; i++) G->mark[x->missing[i]] = 1;
        for (unsigned i = 0; in && out && i < n->nmembers; i++) {
            int r = member(n, i);
            if (r < 0 || r >= G->nranks) continue;
            if (G->mark[r]) out[nout++] = r;
            else in[nin++] = r;
        }
        for (unsigned i = 0; i < x->nmissing; i++) G->mark[x->missing[i]] = 0;
        const struct ent *e = &G->ents[n->ent];
        char what[256], where[160], il[256], ol[256];
        fmt_what(e, what, sizeof what);
        ent_where(e, where, sizeof where);
        if (in && out) {
            qsort(in, nin, sizeof *in, icmp);
            qsort(out, nout, sizeof *out, icmp);
            /* members that completed it (their trace says so) went on: said
             * apart from those in it, with where they are now; members that
             * completed another collective as this number are no members
             * that "never arrive": they took part in that one */
            unsigned ndone = 0, nin2 = 0, nother = 0, nout2 = 0;
            int *done = malloc((size_t)(nin + nout + 1) * sizeof *done), *other = done ? done + nin : NULL;
            for (unsigned i = 0; done && i < nin; i++) {
                /* a member in it now has a node there: its trace is not read */
                if (in[i] != n->rank && !in_coll(G, in[i], n->gid, n->seq) && bcoll_same(G, n, in[i]))
                    done[ndone++] = in[i];
                else in[nin2++] = in[i];
            }
            for (unsigned i = 0; done && i < nout; i++) {
                if (coll_done_at(G, out[i], n->gid, n->seq)) other[nother++] = out[i];
                else out[nout2++] = out[i];
            }
            if (done) nin = nin2, nout = nout2;
            ranks_fit(il, sizeof il, in, nin, 48);
            ranks_fit(ol, sizeof ol, out, nout, 48);
            sput(b, "  collective %s at %s", what, where);
            if (n->seq) sput(b, " (collective #%llu on it)", (unsigned long long)n->seq);
            sput(b, ": rank%s %s in it", nin == 1 ? "" : "s", il);
            if (ndone) {
                char dl[256];
                ranks_fit(dl, sizeof dl, done, ndone, 48);
                sput(b, "; rank%s %s completed it", ndone == 1 ? "" : "s", dl);
                for (unsigned j = 0; j < ndone && j < 4; j++) {
                    char br[400];
                    rank_brief(G, done[j], br, sizeof br);
                    sput(b, "%s rank %d now %s", j ? ";" : ":", done[j], br);
                }
                if (ndone > 4) sput(b, "; ...");
            }
            if (nother) {
                /* "rank 1 completed MPI_Reduce root 0 at x.c:12 as #1, now in
                 * MPI_Finalize at x.c:13"; one text for all when it is the same */
                char t0[600] = "", t[600], oth[256];
                int same = 1;
                for (unsigned j = 0; j < nother; j++) {
                    char c[200], br[400];
                    bcoll_text(G, other[j], coll_done_at(G, other[j], n->gid, n->seq), c, sizeof c);
                    rank_brief(G, other[j], br, sizeof br);
                    snprintf(t, sizeof t, "%s as #%llu, now %s", c, (unsigned long long)n->seq, br);
                    if (!j) memcpy(t0, t, sizeof t0);
                    else if (strcmp(t, t0)) same = 0;
                }
                ranks_fit(oth, sizeof oth, other, nother, 48);
                if (same)
                    sput(b, "; rank%s %s completed %s", nother == 1 ? "" : "s", oth, t0);
                else
                    for (unsigned j = 0; j < nother && j < 4; j++) {
                        char c[200], br[400];
                        bcoll_text(G, other[j], coll_done_at(G, other[j], n->gid, n->seq), c, sizeof c);
                        rank_brief(G, other[j], br, sizeof br);
                        sput(b, "; rank %d completed %s as #%llu, now %s", other[j], c, (unsigned long long)n->seq,
                             br);
                    }
                if (!same && nother > 4) sput(b, "; ...");
            }
            if (nout) sput(b, "; rank%s %s never arrive%s", nout == 1 ? "" : "s", ol, nout == 1 ? "s" : "");
            unsigned lim = nout < 4 ? nout : 4;
            for (unsigned j = 0; j < lim; j++) {
                char br[400];
                rank_brief(G, out[j], br, sizeof br);
                sput(b, "%s rank %d %s", j ? ";" : ":", out[j], br);
            }
            sput(b, "\n");
            free(done);
            if (mis) {
                const struct ent *me = &G->ents[mis->ent];
                char w2[256], s2[160];
                fmt_what(me, w2, sizeof w2);
                ent_where(me, s2, sizeof s2);
                sput(b, "  mismatched collectives: rank %d is in %s at %s, rank %d in %s at %s", n->rank,
                     what, where, mis->rank, w2, s2);
                if (n->seq) sput(b, " (both collective #%llu on the communicator)", (unsigned long long)n->seq);
                sput(b, "\n");
                /* said once: the other side's collective is the same story */
                if (mis->kind == K_COLL && mis->nci) mis->ci[0]->reported = 1;
            } else if (x->mis_rank >= 0) {
                sput(b, "  mismatched collectives: rank %d is in %s at %s, rank %d %s %s (both collective #%llu on "
                     "the communicator)\n", n->rank, what, where, x->mis_rank, x->mis_done ? "completed" : "in",
                     x->mis_what, (unsigned long long)n->seq);
            }
        }
        free(in);
        free(out);
    }
    /* nonblocking collectives waited for, that a member started as another */
    for (unsigned k = 0; k < G->nnodes; k++) {
        struct node *n = &G->nodes[k];
        if (n->active || n->kind == K_COLL) continue;
        for (unsigned c = 0; c < n->nci; c++) {
            struct inst *x = n->ci[c];
            if (x->kind != 1 || x->mis_rank < 0 || x->reported) continue;
            x->reported = 1;
            const struct op *o = NULL;
            for (unsigned i = 0; i < n->nops && !o; i++)
                if (n->ops[i].coll && n->ops[i].gid == x->gid && n->ops[i].seq == x->seq) o = &n->ops[i];
            if (!o) continue;
            const struct ent *e = &G->ents[n->ent];
            char where[160];
            ent_where(e, where, sizeof where);
            sput(b, "  mismatched collectives: rank %d waits (%s at %s) in %s started at %s, rank %d %s %s (both "
                 "collective #%llu on the communicator)\n", n->rank, lf_routine(e->f, e->l.routine), where,
                 o->routine, o->site, x->mis_rank, x->mis_done ? "completed" : "in", x->mis_what,
                 (unsigned long long)x->seq);
        }
    }

    /* a cycle among the blocked ranks */
    if (wf && nd) {
        int *state = calloc((size_t)G->nranks + 1, sizeof *state);   /* 0 new, 1 on path, 2 done */
        int *path = malloc((size_t)(G->nranks + 1) * sizeof *path);
        struct cursor {
            int node;
            unsigned c, j;
        } *cur = malloc((size_t)(G->nranks + 1) * sizeof *cur);
        int found = 0;
        long budget = 1L << 24;    /* edges looked at: the cycle is a bonus, not the verdict */
        for (unsigned s = 0; s < nd && state && path && cur && !found && budget > 0; s++) {
            int start = dead_ranks[s];
            if (state[start]) continue;
            /* iterative DFS following the first blocked successor that leads on */
            unsigned depth = 0;
            path[depth++] = start;
            state[start] = 1;
            cur[0].node = G->rank_node[start];
            cur[0].c = cur[0].j = 0;
            while (depth && !found && budget > 0) {
                int r = path[depth - 1], next = -1;
                struct cursor *cu = &cur[depth - 1];
                /* the next rank r waits for: over its blocked nodes, their
                 * clauses, then their collective instances */
                while (cu->node >= 0 && next < 0 && !found && budget-- > 0) {
                    struct node *n = &G->nodes[cu->node];
                    int q = -1;
                    if (n->active) {
                        cu->node = G->node_next[cu->node];
                        cu->c = cu->j = 0;
                        continue;
                    }
                    if (cu->c < n->ncl) {
                        if (cu->j < n->cln[cu->c]) q = n->cl[cu->c][cu->j++];
                        else cu->c++, cu->j = 0;
                    } else if (cu->c < n->ncl + n->nci) {
                        const struct inst *x = n->ci[cu->c - n->ncl];
                        if (cu->j < x->nmissing) q = x->missing[cu->j++];
                        else cu->c++, cu->j = 0;
                    } else {
                        cu->node = G->node_next[cu->node];
                        cu->c = cu->j = 0;
                    }
                    if (q < 0 || q >= G->nranks || G->rank_term[q] || G->rank_active[q]) continue;
                    if (state[q] == 1) {
                        /* cycle: from q's position in the path */
                        unsigned from = 0;
                        while (path[from] != q) from++;
                        cycle_line(b, path + from, depth - from);
                        found = 1;
                    } else if (state[q] == 0) {
                        next = q;
                    }
                }
                if (found) break;
                if (next >= 0) {
                    state[next] = 1;
                    cur[depth].node = G->rank_node[next];
                    cur[depth].c = cur[depth].j = 0;
                    path[depth++] = next;
                } else if (cu->node < 0) {
                    state[r] = 2;
                    depth--;
                }
            }
        }
        if (!found) {
            /* chains that end at ranks that will never act */
            for (unsigned k = 0; k < G->nnodes; k++) {
                struct node *n = &G->nodes[k];
                if (n->active) continue;
                for (unsigned c = 0; c < n->ncl; c++)
                    for (unsigned j = 0; j < n->cln[c]; j++)
                        if (n->cl[c][j] >= 0 && n->cl[c][j] < G->nranks) G->mark[n->cl[c][j]] = 1;
                for (unsigned c = 0; c < n->nci; c++) {
                    struct inst *x = n->ci[c];
                    if (x->marked) continue;
                    x->marked = 1;
                    for (unsigned j = 0; j < x->nmissing; j++) G->mark[x->missing[j]] = 1;
                }
            }
            for (int r = 0; r < G->nranks; r++)
                if (G->rank_term[r] && G->mark[r])
                    sput(b, "  rank %d has %s: it will never send or take part again\n", r,
                         term_name(G->rank_term[r]));
        }
        memset(G->mark, 0, (size_t)G->nranks);
        free(state);
        free(path);
        free(cur);
    }
    free(wf);
    free(dead_ranks);
    (void)ndead;
}

/* ---- the fixpoint ------------------------------------------------------- */

/* Which nodes can ever progress.  A node can once each of its clauses has
 * a rank that can (OR), each of its collective instances has every missing
 * member able to (AND), and the thread it joins can; a rank can once one of
 * its nodes can, or from the start (computing, unknown, ...).  Worked off
 * queues with the reverse edges (rank -> clauses and instances naming it,
 * node -> nodes joining its thread): every edge is looked at once, so the
 * time is linear in the graph, whatever order the ranks unblock in. */
struct fx {
    struct g *G;
    int *rq, nrq;            /* ranks that became able to progress, to propagate */
    unsigned *nq, nnq;       /* nodes that did */
    char *queued;            /* per rank */
};

static void fx_rank(struct fx *X, int r)
{
    struct g *G = X->G;
    if (r < 0 || r >= G->nranks || X->queued[r] || !G->rank_active[r] || G->rank_term[r]) return;
    X->queued[r] = 1;
    X->rq[X->nrq++] = r;
}

static void fx_activate(struct fx *X, unsigned k)
{
    struct g *G = X->G;
    struct node *n = &G->nodes[k];
    if (n->active) return;
    n->active = 1;
    X->nq[X->nnq++] = k;
    G->rank_active[n->rank] = 1;
    fx_rank(X, n->rank);
}

static void fx_satisfy(struct fx *X, unsigned k)
{
    struct node *n = &X->G->nodes[k];
    if (n->active || !n->need) return;
    if (--n->need == 0) fx_activate(X, k);
}

static void fixpoint(struct g *G)
{
    int nr = G->nranks;
    struct fx X = {G, NULL, 0, NULL, 0, NULL};
    unsigned *off = calloc((size_t)nr + 2, sizeof *off);      /* rank -> refs (CSR) */
    X.rq = malloc(((size_t)nr + 1) * sizeof *X.rq);
    X.nq = malloc(((size_t)G->nnodes + 1) * sizeof *X.nq);
    X.queued = calloc((size_t)nr + 1, 1);
    G->joiners = malloc(((size_t)G->nnodes + 1) * sizeof *G->joiners);
    uint64_t *ref = NULL;    /* clause: node << 32 | clause + 1; instance: (1 << 63) | index */
    if (!off || !X.rq || !X.nq || !X.queued || !G->joiners) goto fail;
    for (unsigned k = 0; k < G->nnodes; k++) G->joiners[k] = -1;
    /* the reverse edges */
    for (unsigned k = 0; k < G->nnodes; k++) {
        struct node *n = &G->nodes[k];
        for (unsigned c = 0; c < n->ncl; c++)
            for (unsigned j = 0; j < n->cln[c]; j++)
                if (n->cl[c][j] >= 0 && n->cl[c][j] < nr) off[n->cl[c][j] + 1]++;
        if (n->join >= 0) {
            n->jnext = G->joiners[n->join];
            G->joiners[n->join] = (int)k;
        }
    }
    for (unsigned i = 0; i < G->ninst; i++)
        for (unsigned j = 0; j < G->inst[i]->nmissing; j++) off[G->inst[i]->missing[j] + 1]++;
    for (int r = 0; r < nr; r++) off[r + 1] += off[r];
    ref = malloc(((size_t)off[nr] + 1) * sizeof *ref);
    if (!ref) goto fail;
    for (unsigned k = 0; k < G->nnodes; k++) {
        struct node *n = &G->nodes[k];
        for (unsigned c = 0; c < n->ncl; c++)
            for (unsigned j = 0; j < n->cln[c]; j++)
                if (n->cl[c][j] >= 0 && n->cl[c][j] < nr) ref[off[n->cl[c][j]]++] = (uint64_t)k << 32 | (c + 1);
    }
    for (unsigned i = 0; i < G->ninst; i++) {
        struct inst *x = G->inst[i];
        x->left = x->nmissing;
        for (unsigned j = 0; j < x->nmissing; j++) ref[off[x->missing[j]]++] = 1ull << 63 | i;
    }
    for (int r = nr; r > 0; r--) off[r] = off[r - 1];         /* back to the starts */
    off[0] = 0;
    /* what each node needs */
    for (unsigned k = 0; k < G->nnodes; k++) {
        struct node *n = &G->nodes[k];
        n->need = n->ncl + n->nci + (n->join >= 0);
        n->clsat = calloc(n->ncl ? n->ncl : 1, 1);
        if (!n->clsat) goto fail;
    }
    for (unsigned i = 0; i < G->ninst; i++) {
        struct inst *x = G->inst[i];
        if (!x->left)        /* (not made so: make_clauses keeps only open ones) */
            for (unsigned j = 0; j < x->nnodes; j++) fx_satisfy(&X, x->nodes[j]);
    }
    for (unsigned k = 0; k < G->nnodes; k++) {
        struct node *n = &G->nodes[k];
        if (n->active) X.nq[X.nnq++] = k;          /* unknown or matched: progress */
        else if (!n->need) fx_activate(&X, k);
    }
    for (int r = 0; r < nr; r++) fx_rank(&X, r);
    /* propagate */
    unsigned hr = 0, hn = 0;
    while (hr < (unsigned)X.nrq || hn < X.nnq) {
        if (hn < X.nnq) {
            unsigned k = X.nq[hn++];
            for (int j = G->joiners[k]; j >= 0; j = G->nodes[j].jnext) fx_satisfy(&X, (unsigned)j);
            continue;
        }
        int r = X.rq[hr++];
        for (unsigned i = off[r]; i < off[r + 1]; i++) {
            uint64_t v = ref[i];
            if (v >> 63) {
                struct inst *x = G->inst[(unsigned)v];
                if (x->left && --x->left == 0)
                    for (unsigned j = 0; j < x->nnodes; j++) fx_satisfy(&X, x->nodes[j]);
            } else {
                unsigned k = (unsigned)(v >> 32), c = (unsigned)(v & 0xffffffffu) - 1;
                struct node *n = &G->nodes[k];
                if (n->clsat[c]) continue;
                n->clsat[c] = 1;
                fx_satisfy(&X, k);
            }
        }
    }
    free(ref);
    free(off);
    free(X.rq);
    free(X.nq);
    free(X.queued);
    return;
fail:
    /* out of memory: nothing is judged deadlocked */
    for (unsigned k = 0; k < G->nnodes; k++) G->nodes[k].active = 1;
    free(ref);
    free(off);
    free(X.rq);
    free(X.nq);
    free(X.queued);
}

void dl_result_free(struct dl_result *r)
{
    free(r->text);
    free(r->ranks);
    free(r->ents);
    memset(r, 0, sizeof *r);
}

int deadlock_check(struct ent *ents, unsigned nents, int nranks, int64_t now_ns, double stalled_s,
                   struct dl_result *res)
{
    memset(res, 0, sizeof *res);
    if (nranks <= 0) return 0;
    unsigned ndead = 0;
    struct g G;
    memset(&G, 0, sizeof G);
    G.ents = ents;
    G.nents = nents;
    G.nranks = nranks;
    G.now = now_ns;
    G.rank_term = calloc((size_t)nranks, sizeof *G.rank_term);
    G.rank_active = calloc((size_t)nranks, sizeof *G.rank_active);
    G.rank_first = malloc((size_t)nranks * sizeof *G.rank_first);
    G.rq = calloc((size_t)nranks, sizeof *G.rq);
    G.rq_loaded = calloc((size_t)nranks, 1);
    G.nodes = calloc(nents ? nents : 1, sizeof *G.nodes);
    G.rank_node = malloc((size_t)nranks * sizeof *G.rank_node);
    G.node_next = malloc((nents ? nents : 1) * sizeof *G.node_next);
    G.in_fin = calloc((size_t)nranks, 1);
    G.mark = calloc((size_t)nranks, 1);
    if (!G.rank_term || !G.rank_active || !G.rank_first || !G.rq || !G.rq_loaded || !G.nodes || !G.rank_node ||
        !G.node_next || !G.in_fin || !G.mark)
        goto out;
    for (int r = 0; r < nranks; r++) G.rank_first[r] = G.rank_node[r] = -1;
    /* ranks: terminal, or able to progress (computing, unknown), or nodes */
    for (unsigned i = 0; i < nents; i++) {
        struct ent *e = &ents[i];
        if (e->rank < 0 || e->rank >= nranks) continue;
        if (G.rank_first[e->rank] < 0) G.rank_first[e->rank] = (int)i;
        switch (e->state) {
        case ES_FINALIZED:
        case ES_EXITED:
        case ES_DIED:
            G.rank_term[e->rank] = e->state;
            break;
        case ES_POLL:
            if (e->working) {        /* computes between polls: a sink */
                G.rank_active[e->rank] = 1;
                break;
            }
            /* fall through */
        case ES_IN: {
            G.node_next[G.nnodes] = -1;
            if (G.rank_node[e->rank] < 0) {
                G.rank_node[e->rank] = (int)G.nnodes;
            } else {
                int t = G.rank_node[e->rank];
                while (G.node_next[t] >= 0) t = G.node_next[t];
                G.node_next[t] = (int)G.nnodes;
            }
            struct node *n = &G.nodes[G.nnodes++];
            n->ent = i;
            build_node(&G, n, e);
            break;
        }
        default:                     /* computing, not started, stale: a sink */
            G.rank_active[e->rank] = 1;
            break;
        }
    }
    for (int r = 0; r < nranks; r++)
        if (G.rank_first[r] < 0) G.rank_active[r] = 1;      /* not even listed: unknown */
    for (unsigned k = 0; k < G.nnodes; k++)
        if (G.nodes[k].kind == K_FINALIZE) G.in_fin[G.nodes[k].rank] = 1;
    for (unsigned k = 0; k < G.nnodes; k++) make_clauses(&G, &G.nodes[k]);
    for (unsigned k = 0; k < G.nnodes; k++) {
        struct node *n = &G.nodes[k];
        if (n->kind == K_UNKNOWN || n->matched_all) {
            n->active = 1;
            G.rank_active[n->rank] = 1;
        }
    }
    fixpoint(&G);
    for (unsigned k = 0; k < G.nnodes; k++) ndead += !G.nodes[k].active;
    if (ndead) {
        struct sbuf b = {0};
        verdict(&G, &b, stalled_s, ndead);
        res->text = verdict_fit(b.s);
        res->ents = malloc(ndead * sizeof *res->ents);
        res->ranks = malloc(ndead * sizeof *res->ranks);
        for (unsigned k = 0; k < G.nnodes && res->ents && res->ranks; k++) {
            if (G.nodes[k].active) continue;
            res->ents[res->nents++] = G.nodes[k].ent;
            if (G.mark[G.nodes[k].rank]) continue;
            G.mark[G.nodes[k].rank] = 1;
            res->ranks[res->nranks++] = G.nodes[k].rank;
        }
        memset(G.mark, 0, (size_t)nranks);
    } else {
        /* why not: the first node that waits on someone who can go on */
        char note[256] = "";
        for (unsigned k = 0; k < G.nnodes && !note[0]; k++) {
            struct node *n = &G.nodes[k];
            if (n->kind == K_UNKNOWN && n->why[0]) snprintf(note, sizeof note, "not judged: rank %d %s", n->rank, n->why);
        }
        if (!note[0]) {
            for (int r = 0; r < nranks && !note[0]; r++) {
                int i = G.rank_first[r];
                if (i >= 0 && ents[i].state == ES_COMPUTE && !G.rank_term[r])
                    snprintf(note, sizeof note, "not a deadlock: rank %d is computing", r);
            }
            for (unsigned i = 0; i < nents && !note[0]; i++) {
                if (ents[i].state == ES_POLL && ents[i].working)
                    snprintf(note, sizeof note, "not a deadlock: rank %d computes between polls", ents[i].rank);
            }
        }
        if (!note[0] && G.nnodes) snprintf(note, sizeof note, "not a deadlock: the blocked calls match each other");
        if (note[0]) res->text = strdup(note);
    }
    ndead = ndead ? 1 : 0;
out:
    for (unsigned k = 0; k < G.nnodes; k++) {
        struct node *n = &G.nodes[k];
        free(n->ops);
        for (unsigned c = 0; c < n->ncl; c++) free(n->cl[c]);
        free(n->cl);
        free(n->cln);
        free(n->clause_any);
        free(n->ci);
        free(n->clsat);
    }
    for (unsigned i = 0; i < G.ninst; i++) {
        free(G.inst[i]->missing);
        free(G.inst[i]->nodes);
        free(G.inst[i]);
    }
    free(G.inst);
    free(G.ihash);
    free(G.joiners);
    free(G.in_fin);
    free(G.mark);
    for (unsigned i = 0; i < G.cmcap; i++) free(G.cm[i].m);
    free(G.cm);
    for (int r = 0; G.rq && r < nranks; r++) {
        dl_reqs_free(&G.rq[r]);
    }
    free(G.rq);
    free(G.rq_loaded);
    free(G.nodes);
    free(G.rank_term);
    free(G.rank_active);
    free(G.rank_first);
    free(G.rank_node);
    free(G.node_next);
    return (int)ndead;
}
