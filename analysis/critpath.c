/*
 * critpath.c — the critical path of a recorded run, six measures each along
 * its own longest path, and the wait states (critpath.h says what; the
 * interface a parallel split uses is described there; docs/CRITPATH.md has
 * the happens-before model and the cost model).
 *
 * A forward replay over the matched stream.  Every rank carries, for each
 * measure, the largest value of any chain of happens-before edges ending at
 * its current point; waiting lies on no chain.  An event of a rank:
 *   phase A  computation since its previous call counts (runtime, comp);
 *            the bytes and modelled cost of the sends it starts count;
 *            it publishes its values at its start (an edge value) when
 *            another rank's call may depend on it;
 *   phase B  the call's end takes, per measure, the largest of its own
 *            value and the edge values it depends on, plus the useful time
 *            of the call: the part after the last dependency arrived.
 *            The part before is a wait state of the rank.
 * Phase B waits for the edge values it needs (a receive whose send another
 * rank has not replayed yet); the rank's later events wait behind it.
 *
 * Path history: each rank points, per measure, at the node where its
 * current stretch began (a hop: the node taken from another rank's edge
 * value is its parent); what it gained since is the difference between
 * its ledger now and the ledger then (one ledger per rank, by routine and
 * region, shared by the six measures, copied only when written while an
 * edge value holds it).  An edge value holds the rank's ledger and
 * stretch starts as they were; the stretch is made a node (closed) only
 * when another rank's path takes the edge, or at the end for the path's
 * last rank.  What stays alive is the ranks' current histories, which
 * share their prefixes: the path, not the trace.
 */
#include "critpath.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Functions of the per-event path, inlined where they are called: each is
 * called about once per event or message, and a call (arguments, saved
 * registers) cost as much as its common case (callgrind, docs/CRITPATH.md). */
#define CP_INLINE static inline __attribute__((always_inline))

#define CP_FORCE_NS 200000000ll   /* a dependency not seen 0.2 s (stream time) after the call ended: undecided */
#define CP_TIGHT_NS 5000ll        /* a run of polls less than this apart on average: a tight poll loop */

/* ---- path history nodes ------------------------------------------------------- */

struct node {                 /* a closed stretch of one rank, or the start of one (a hop) */
    int ref;
    int rank;                 /* index in an_run.ranks */
    uint8_t hop;              /* 1: parent is the edge value of another rank (or a collective) */
    int64_t from;             /* aligned ns where this stretch starts */
    int64_t parent_t;         /* hop: time of the edge value on the parent's rank */
    struct node *parent;
    uint16_t in_name;         /* hop: the routine that took the edge (local) */
    uint32_t in_site;
    uint16_t out_name;        /* hop: the routine of the edge on the parent's rank */
    uint32_t out_site;
    int64_t sum;              /* value gained in this stretch */
    struct an_cp_kv *kv;
    unsigned nkv, capkv, hint;
    uint32_t *ix;             /* (the path's sum only) beyond KV_SCAN entries: slot+1 per key hash */
    unsigned capix;           /* power of two; 0: not indexed */
};
#define KV_SCAN 24

/* A rank's ledger: what it gained since its window opened, one copy for
 * all six measures, an entry per slot of the rank's own (cp_rank.lkey,
 * lmask): a region's computation (run time and computation), a routine's
 * useful time (run time and communication) and, for a routine that sends,
 * three more: its bytes, bandwidth and latency cost.  Edge values and the starts of
 * the rank's stretches hold a version (reference counted, copied when the
 * rank writes to a version someone else holds): a stretch's breakdown is
 * the difference of two versions, computed only when another rank's path
 * takes the edge or the path is read. */
struct lent {
    int64_t v;
};
struct ledger {
    int ref;
    unsigned n, cap;          /* keys 0 .. n-1 (a later key: 0) */
    uint64_t wseq;            /* the rank's write count when this version was last written */
    struct ledger *next_free;
    struct lent e[];
};

struct sctx {                 /* where a rank's current stretches began, per measure */
    int ref;
    struct node *n[AN_CP_NM]; /* the start (a hop), NULL: the rank's first stretch */
    struct ledger *base[AN_CP_NM]; /* the ledger then (NULL: empty) */
    int64_t sfrom[AN_CP_NM];  /* a first stretch: when its first gain came */
    struct sctx *next_free;
};

struct snap {                 /* an edge value: a rank's values at one point */
    int64_t t;                /* aligned ns */
    int64_t v[AN_CP_NM];
    struct sctx *cx;          /* the rank's stretches */
    struct ledger *led;       /* its ledger at this point */
    unsigned closed;          /* bit m: x[m] is the history up to here (snap_node) */
    int rank;
    uint16_t name;
    uint32_t site;
    int refs;                 /* consumers still to come */
    int epoch;                /* MPI_Pcontrol calls the rank had made */
    /* the above is written for every edge value, the rest only when a path takes it */
    struct node *x[AN_CP_NM];
    struct snap *next_free;
};

/* ---- a small map (u64, i64) -> pointer --------------------------------------- */

struct ment {
    uint64_t a;
    int64_t b;
    void *p;                  /* NULL: empty; TOMB: deleted */
};
static char tomb_;
#define TOMB ((void *)&tomb_)

struct map {
    struct ment *t;
    size_t cap, used, live;
    unsigned spread;          /* grown to at least 4 << spread slots per live entry */
};

static size_t mhash(uint64_t a, int64_t b, size_t cap)
{
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)b * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 29;
    return (size_t)h & (cap - 1);
}

static int map_grow(struct map *m)
{
    size_t cap = 256;   /* sized by what is alive: deleted entries go */
    while ((m->live * 4) << m->spread >= cap) cap *= 2;
    struct ment *t = calloc(cap, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < m->cap; i++) {
        struct ment *e = &m->t[i];
        if (!e->p || e->p == TOMB) continue;
        size_t k = mhash(e->a, e->b, cap);
        while (t[k].p) k = (k + 1) & (cap - 1);
        t[k] = *e;
    }
    free(m->t);
    m->t = t;
    m->cap = cap;
    m->used = m->live;
    return 0;
}

CP_INLINE void *map_get(const struct map *m, uint64_t a, int64_t b)
{
    if (!m->cap) return NULL;
    size_t k = mhash(a, b, m->cap);
    for (;;) {
        struct ment *e = &m->t[k];
        if (!e->p) return NULL;
        if (e->p != TOMB && e->a == a && e->b == b) return e->p;
        k = (k + 1) & (m->cap - 1);
    }
}

static int map_put(struct map *m, uint64_t a, int64_t b, void *p)
{
    if ((m->used + 1) * 2 >= m->cap && map_grow(m)) return -1;   /* probes stay short */
    size_t k = mhash(a, b, m->cap);
    for (;;) {
        struct ment *e = &m->t[k];
        if (!e->p) {
            e->a = a;
            e->b = b;
            e->p = p;
            m->used++;
            m->live++;
            return 0;
        }
        if (e->p != TOMB && e->a == a && e->b == b) {
            e->p = p;
            return 0;
        }
        k = (k + 1) & (m->cap - 1);
    }
}

/* Empties slot i; the entries after it in its run move back where their
 * probe from their own slot still finds them (no tombstones: the table is
 * rebuilt only when it grows). */
static void map_erase(struct map *m, size_t i)
{
    size_t mask = m->cap - 1;
    for (size_t j = (i + 1) & mask; m->t[j].p; j = (j + 1) & mask) {
        size_t h = mhash(m->t[j].a, m->t[j].b, m->cap);
        /* t[j] stays when its home h lies cyclically in (i, j] */
        if (i <= j ? (h > i && h <= j) : (h > i || h <= j)) continue;
        m->t[i] = m->t[j];
        i = j;
    }
    m->t[i].p = NULL;
    m->live--;
    m->used--;
}

static void map_del(struct map *m, uint64_t a, int64_t b)
{
    if (!m->cap) return;
    size_t k = mhash(a, b, m->cap);
    for (;;) {
        struct ment *e = &m->t[k];
        if (!e->p) return;
        if (e->p != TOMB && e->a == a && e->b == b) {
            map_erase(m, k);
            return;
        }
        k = (k + 1) & (m->cap - 1);
    }
}

/* Stores p under the key and returns what the key held before (NULL: it
 * was free), in one probe; *err set on a failed allocation. */
CP_INLINE void *map_swap(struct map *m, uint64_t a, int64_t b, void *p, int *err)
{
    if ((m->used + 1) * 2 >= m->cap && map_grow(m)) {
        *err = 1;
        return map_get(m, a, b);
    }
    size_t k = mhash(a, b, m->cap);
    for (;;) {
        struct ment *e = &m->t[k];
        if (!e->p) {
            e->a = a;
            e->b = b;
            e->p = p;
            m->used++;
            m->live++;
            return NULL;
        }
        if (e->p != TOMB && e->a == a && e->b == b) {
            void *old = e->p;
            e->p = p;
            return old;
        }
        k = (k + 1) & (m->cap - 1);
    }
}

/* Insert only when the key is free: 1 when another entry holds it (two
 * calls of one thread with the same start: a coarse clock or a damaged
 * file), 0 inserted, -1 memory. */
CP_INLINE int map_add(struct map *m, uint64_t a, int64_t b, void *p)
{
    if ((m->used + 1) * 2 >= m->cap && map_grow(m)) return map_get(m, a, b) ? 1 : -1;
    size_t k = mhash(a, b, m->cap);
    for (;;) {
        struct ment *e = &m->t[k];
        if (!e->p) {
            e->a = a;
            e->b = b;
            e->p = p;
            m->used++;
            m->live++;
            return 0;
        }
        if (e->p != TOMB && e->a == a && e->b == b) return 1;
        k = (k + 1) & (m->cap - 1);
    }
}

/* Delete the key only while it still names p. */
CP_INLINE void map_del_p(struct map *m, uint64_t a, int64_t b, const void *p)
{
    if (!m->cap) return;
    size_t k = mhash(a, b, m->cap);
    for (;;) {
        struct ment *e = &m->t[k];
        if (!e->p) return;
        if (e->p != TOMB && e->a == a && e->b == b) {
            if (e->p == p) map_erase(m, k);
            return;
        }
        k = (k + 1) & (m->cap - 1);
    }
}

/* The key of a call's edges: rank and thread, and the call's local start. */
static inline uint64_t ckey(int ri, uint32_t thread)
{
    return (uint64_t)(uint32_t)ri | (uint64_t)thread << 32;
}

/* ---- messages, collectives, queued events ----------------------------------- */

struct cmsg {                 /* a matched message, until both ends used it */
    struct cmsg *next;        /* inbox list of one receiving call */
    int src, dst;             /* rank indexes */
    int64_t send_lt0, recv_lt0; /* local starts of the calls (keys) */
    uint32_t send_th, recv_th;  /* and their threads */
    uint32_t bytes;
    uint16_t send_name, recv_name;
    uint32_t send_site;
    int sync;                 /* the send waits for the receive */
    int refs;
    struct snap *snap;        /* the sender's edge value, once found */
};

enum ckind {
    CK_NXN = 0, CK_ROOT_OUT, CK_ROOT_IN,
    CK_NBR                    /* a neighbourhood collective: each member on its in-neighbours (an_comm.src) */
};

struct wlent {                /* a rank to wake, and for which edge value */
    int rank;
    uint32_t thread;          /* it waits for the call of this thread ... */
    int64_t lt0;              /* ... that starts at lt0 (INT64_MIN: any edge value) */
};

struct wlist {                /* ranks to wake */
    struct wlent *r;
    unsigned n, cap;
};

struct cinst {                /* a collective instance */
    uint32_t size, arrived, left;
    int kind;
    int32_t root;             /* position, -1 unknown */
    const int32_t *const *src; /* CK_NBR: the communicator's in-neighbours (an_comm.src, .nsrc) */
    const int32_t *nsrc;
    uint32_t lsize;           /* an inter-communicator's: its first group's size, */
    int32_t *proot;           /* and per position the root that member named (a position in the
                               * other group; -2 MPI_ROOT, -3 MPI_PROC_NULL or none), else NULL */
    struct snap *entry;       /* per member position (t == INT64_MIN: not yet) */
    int best[AN_CP_NM];       /* NxN: the member with the largest value, once all arrived */
    int last;                 /* the member that arrived last */
    struct wlist wl;          /* members waiting for the others */
};

enum qflag {
    QF_INIT = 1, QF_FIN = 2, QF_COLL = 4, QF_BRECV = 8, QF_COMPLETE = 16, QF_SYNC = 32, QF_SNAP = 64,
    QF_NB = 128, QF_UNFIN = 256,
    QF_NBC = 512,             /* a nonblocking collective: publishes its entry, local otherwise */
    QF_NBW = 1024,            /* completes nonblocking collectives (qev.nbw) */
    QF_PROBE = 2048,          /* MPI_Probe/Iprobe: comm, pos (source, world, -1 any), root (tag, -1 any) */
    QF_PTGT = 4096,           /* ... its receive is known: cidx is its local start, pos the sender */
    QF_PNONE = 8192,          /* ... no receive of the thread took what it probed: local */
    QF_TPOLL = 16384,         /* ... an MPI_Test* that completed nothing: it polled for what the
                               * thread's next completing call completes (any message) */
    QF_TIGHT = 32768,         /* a run of polls with nothing between them (CP_TIGHT_NS) */
};

/* A nonblocking collective's member, from its call until the call that
 * completes its request: (rank, request handle) -> this (an_cp.nbreq). */
struct nbreq {
    uint32_t comm;
    int32_t pos;
    uint64_t cidx;
    int32_t root;             /* persistent starts (qev.nbw, pcoll_starts): the root, */
    uint16_t name;            /* and the routine performed (MPI_Allreduce) */
};

struct nbw {                  /* the nonblocking collectives one call completes */
    unsigned n;
    struct nbreq d[];
};

/* A synchronous nonblocking send (MPI_Issend, MPI_Start of an
 * MPI_Ssend_init request) from its start until both the call that
 * completes its request and its message are known: then that call depends
 * on the receive's posting as an MPI_Ssend would (docs/CRITPATH.md).  Held
 * by an_cp.sreq under (rank, activation id) until its completion is seen,
 * and by an_cp.scall under its call's key (the message's send key; a list:
 * one MPI_Startall may start several) until its message is. */
struct swt;
struct ssnd {
    struct ssnd *next;        /* an_cp.scall list */
    uint64_t ck;              /* its call's key: ckey(rank, thread), local start */
    int64_t lt0;
    uint64_t req;             /* its activation id (an_op.req) */
    int32_t dst;              /* the message: world rank, an_comm id, tag */
    uint32_t comm;
    int32_t tag;
    uint8_t in_sreq, in_scall;
    struct swt *w;            /* the completing call, once known (then no longer in sreq) */
    struct cmsg *m;           /* the message, matched before the completion was seen (holds a ref) */
};

/* A call that completes synchronous sends: (rank, thread, local start) ->
 * this (an_cp.swait), until its phase B; freed once that ran and no send
 * of it waits for its message any more. */
struct swt {
    int64_t t0, t1;           /* the call, aligned */
    unsigned pending;         /* its sends whose message is not matched yet */
    int done;                 /* its phase B ran */
    unsigned nout, capout;
    struct cmsg **out;        /* messages whose blocking receive began during the call (refs held) */
};

struct qev {                  /* 128 bytes, no holes: two cache lines in the ring (qgrow) */
    int64_t t0, t1;           /* aligned */
    int64_t lt0;              /* local start: the key of its edges */
    int64_t comp_extra;       /* repeated polls: time between them (computation) */
    uint64_t sbytes;          /* bytes its sends and collective contribution send */
    int64_t bw, lat;          /* their modelled cost (ns) */
    uint64_t cidx;            /* collective: instance */
    struct cmsg *in;          /* its inbox list then */
    struct snap *own;         /* the edge value it published */
    struct nbw *nbw;          /* QF_NBW: what it completes; else the persistent collectives an
                               * MPI_Start(all) starts (pcoll_starts), or NULL */
    uint32_t thread;          /* with the thread */
    uint32_t site;
    uint32_t comm;            /* collective: an_comm id */
    int32_t pos, root;
    uint32_t in_ver;          /* cp_rank.in_ver when `in` was looked up (0: never) */
    int32_t upeer;            /* QF_UNFIN: the rank it waited for (index in the run), -1 if unknown */
    uint16_t name;
    uint16_t flags;
    uint16_t nrecv, nsend;
    uint8_t phase;            /* 0: not started, 1: phase A done */
    int8_t ukind;             /* QF_UNFIN: what it waited for when the rank stopped (enum an_cp_wait, -1) */
    uint16_t nlight;          /* light calls queued right after it (cp_rank.lq) */
};
_Static_assert(sizeof(struct qev) == 128, "struct qev: two cache lines");

/* A light call: no edge (it sends nothing, receives nothing, is no
 * collective, completes nothing another rank's call decides), no window
 * change (MPI_Init, MPI_Finalize, MPI_Pcontrol), no polls, finished.  About
 * half the calls of a halo exchange (MPI_Irecv, MPI_Wtime ...).  Queued
 * behind a waiting call, it takes 24 bytes in a ring of its own, not a
 * 128-byte qev, and is replayed (phase A and B at once: light) right
 * after the qev it follows. */
struct lev {
    int64_t t0, t1;           /* aligned */
    uint32_t site;
    uint16_t name;
};

#define RC_SIZE 64
#define WLOG 256              /* a power of two */

struct cp_rank {
    int64_t v[AN_CP_NM];
    struct node *cur[AN_CP_NM];   /* where the current stretch began (NULL: the rank's first) */
    struct ledger *base[AN_CP_NM]; /* the ledger then (NULL: empty) */
    int64_t sfrom[AN_CP_NM];  /* first stretch: when its first gain came (INT64_MIN: none yet) */
    unsigned nosfrom;         /* bit m: a first stretch without a gain yet */
    struct ledger *led;       /* what it gained so far */
    uint64_t wseq;            /* writes to it so far (stretch skips what a stretch did not write) */
    uint32_t wlog[WLOG];      /* the slot of write w at w % WLOG (stretch: the recent ones) */
    uint32_t *seen;           /* per slot: the stretch call that took it last (stretch) */
    uint32_t nseen;           /* stretch calls so far */
    struct sctx *cx;          /* cur, base and sfrom as edge values hold them (NULL: not made) */
    uint32_t *lkey;           /* per ledger slot: routine name, or AN_CP_REGION | region id */
    uint8_t *lmask;           /* and the measures it counts for (bit m) */
    unsigned nkey, capkey;
    uint32_t *nkey_of;        /* per routine name: its useful time's slot + 1 (0: none yet) */
    uint32_t *nsend_of;       /* ... the first of its bytes, bw, lat slots + 1 */
    int64_t open, close;      /* window of the rank */
    int64_t last;             /* aligned end of the last call replayed */
    int64_t ustop;            /* where its unfinished call began to wait (INT64_MIN: none) */
    uint32_t last_site;
    int64_t useful_comp, useful_comm, wait[AN_CP_NW];
    int64_t total[AN_CP_NM];
    int finished, seen_init;
    uint64_t undecided;
    uint32_t in_ver;          /* counts messages put in this rank's inbox (from 1) */
    struct {                  /* regions seen last (region_of), direct-mapped */
        uint32_t a, b, id1;   /* id1: region id + 1, 0: empty */
        uint32_t li;          /* its ledger key */
    } rc[RC_SIZE];
    struct qev *q;            /* ring */
    unsigned qh, qn, qcap;
    struct lev *lq;           /* ring of the light calls queued (each follows a qev: qev.nlight) */
    unsigned lh, ln, lcap;
    uint64_t *ccount;         /* per an_comm: instances entered */
    int pcontrol;             /* MPI_Pcontrol calls seen */
    unsigned nprobe;          /* queued probes whose receive is not known yet */
    int bpos;                 /* index in an_cp.blocked, -1 */
    int ready;                /* blocked, and what it waits for may have come */
    int inq;                  /* in an_cp.rq */
    struct wlist wl;          /* blocked ranks waiting for this rank's edge values */
};

struct regent {
    uint64_t key;
    uint32_t id;
};

struct wsent {
    struct an_cp_wsite w;
};

struct an_cp {
    struct an_run *run;
    struct an_cp_opts o;
    struct cp_rank *r;
    struct map snaps;         /* (rank, lt0) -> struct snap */
    struct map inbox;         /* (rank, recv lt0) -> struct cmsg list */
    struct map outbox;        /* (rank, send lt0) -> struct cmsg (synchronous sends) */
    struct map sreq;          /* (rank, activation id) -> struct ssnd: synchronous isends not completed */
    struct map scall;         /* (rank, send lt0) -> struct ssnd list: ... whose message is not matched */
    struct map swait;         /* (rank, lt0) -> struct swt: calls completing synchronous isends */
    struct map colls;         /* (comm, instance) -> struct cinst */
    struct map nbreq;         /* (rank, request handle) -> struct nbreq: started, not completed */
    struct map regions;       /* (rank<<32|site_from, site_to) -> id+1 */
    struct map wmap;          /* (kind,rank,peer packed, site|name) -> wsent */
    struct an_cp_region *reg;
    unsigned nreg, capreg;
    uint8_t *ckind;           /* per name: enum ckind */
    uint8_t *sync_name;       /* per name: 1 Ssend, 2 Send, 3 Issend, Ssend_init (an_op.name of an ISEND),
                               * 4 Start, Startall (may start one) */
    uint8_t *done_name;       /* per name: 1 its done list is of completed requests (Wait, Test families),
                               * | 2 a poll when it completes nothing (MPI_Test, Testany, Testsome, Testall) */
    int pcontrol_name;        /* name index of MPI_Pcontrol, -1 */
    const uint8_t *ss_tab;    /* per name: look at the event's ops for synchronous isends (ss_ops): ss_name, or
                               * ss_all while some are open (one test per event either way) */
    uint8_t *ss_name;         /* 1: MPI_Issend, MPI_Start, MPI_Startall */
    uint8_t *ss_all;          /* all 1 */
    int64_t now;              /* stream time */
    int any_pcontrol;
    struct uwait {            /* an unfinished collective's wait: its peer is known at the end */
        int ri, kind;
        uint32_t site, comm;
        uint16_t name;
        uint64_t cidx;
        int64_t w;
    } *uw;
    unsigned nuw, capuw;
    struct uin {              /* per rank: the collective instance its unfinished call was in */
        uint32_t comm;        /* UINT32_MAX: none */
        uint64_t cidx;
    } *uin;
    int64_t w0;               /* the run's start (first MPI_Init end), 0: per rank */
    struct node *free_nodes;  /* free lists (through parent, next_free, next) */
    struct ledger *free_led;
    struct sctx *free_cx;
    struct snap *free_snaps;
    struct cmsg *free_msgs;
    int *blocked;             /* ranks with events waiting */
    unsigned nblocked;
    int *rq;                  /* ranks made ready since they were last tried */
    unsigned nrq;
    int64_t deadline;         /* no blocked rank times out before (stream time) */
    int failed;
    size_t nodes, peak_nodes;
    struct an_cp_result res;
    uint64_t events;
};

/* ---- nodes --------------------------------------------------------------------- */

static struct node *node_new(struct an_cp *cp, int rank, int64_t from)
{
    struct node *n = cp->free_nodes;
    if (n) {                  /* reused: its breakdown buffer stays */
        struct an_cp_kv *kv = n->kv;
        unsigned cap = n->capkv;
        cp->free_nodes = n->parent;
        memset(n, 0, sizeof *n);
        n->kv = kv;
        n->capkv = cap;
    } else if (!(n = calloc(1, sizeof *n))) {
        cp->failed = 1;
        return NULL;
    }
    n->ref = 1;
    n->rank = rank;
    n->from = from;
    if (++cp->nodes > cp->peak_nodes) cp->peak_nodes = cp->nodes;
    return n;
}

static void node_put(struct an_cp *cp, struct node *n)
{
    n->parent = cp->free_nodes;
    cp->free_nodes = n;
}

static void node_unref(struct an_cp *cp, struct node *n)
{
    while (n && --n->ref == 0) {
        struct node *p = n->parent;
        node_put(cp, n);
        cp->nodes--;
        n = p;
    }
}

static unsigned kv_slot(uint32_t key, unsigned cap)
{
    return (unsigned)((key * 0x9E3779B1u) >> 7) & (cap - 1);
}

/* (Re)builds the key index of a node with more than KV_SCAN keys. */
static int kv_index(struct an_cp *cp, struct node *n)
{
    unsigned cap = n->capix > 32 ? n->capix : 32;
    while (cap < 4 * n->nkv) cap *= 2;
    if (cap != n->capix) {
        uint32_t *ix = realloc(n->ix, cap * sizeof *ix);
        if (!ix) {
            cp->failed = 1;
            return -1;
        }
        n->ix = ix;
        n->capix = cap;
    }
    memset(n->ix, 0, cap * sizeof *n->ix);
    for (unsigned i = 0; i < n->nkv; i++) {
        unsigned k = kv_slot(n->kv[i].key, cap);
        while (n->ix[k]) k = (k + 1) & (cap - 1);
        n->ix[k] = i + 1;
    }
    return 0;
}

/* Adds v under key (the sum of a path's nodes: path_breakdown). */
static void kv_add(struct an_cp *cp, struct node *n, uint32_t key, int64_t v)
{
    if (n->hint < n->nkv && n->kv[n->hint].key == key) {
        n->kv[n->hint].val = an_sadd(n->kv[n->hint].val, v);
        return;
    }
    unsigned k = 0;
    if (n->nkv <= KV_SCAN) {
        for (unsigned i = n->nkv; i-- > 0;)
            if (n->kv[i].key == key) {
                n->kv[i].val = an_sadd(n->kv[i].val, v);
                n->hint = i;
                return;
            }
    } else {
        k = kv_slot(key, n->capix);
        for (uint32_t e; (e = n->ix[k]); k = (k + 1) & (n->capix - 1))
            if (n->kv[e - 1].key == key) {
                n->kv[e - 1].val = an_sadd(n->kv[e - 1].val, v);
                n->hint = e - 1;
                return;
            }
    }
    if (n->nkv == n->capkv) {
        unsigned cap = n->capkv ? n->capkv * 2 : 4;
        struct an_cp_kv *kv = realloc(n->kv, cap * sizeof *kv);
        if (!kv) {
            cp->failed = 1;
            return;
        }
        n->kv = kv;
        n->capkv = cap;
    }
    n->kv[n->nkv].key = key;
    n->kv[n->nkv].val = v;
    n->hint = n->nkv++;
    if (n->nkv == KV_SCAN + 1 || (n->nkv > KV_SCAN && 4 * n->nkv > n->capix)) kv_index(cp, n);
    else if (n->nkv > KV_SCAN) n->ix[k] = n->nkv;
}

/* ---- ledgers ------------------------------------------------------------------- */

static struct ledger *led_new(struct an_cp *cp, unsigned cap)
{
    struct ledger *l = cp->free_led;
    if (l && l->cap >= cap) {
        cp->free_led = l->next_free;
    } else {
        if (cap < 16) cap = 16;
        if (!(l = malloc(sizeof *l + cap * sizeof l->e[0]))) {
            cp->failed = 1;
            return NULL;
        }
        l->cap = cap;
    }
    l->ref = 1;
    l->n = 0;
    l->wseq = 0;
    return l;
}

static void led_unref(struct an_cp *cp, struct ledger *l)
{
    if (!l || --l->ref > 0) return;
    l->next_free = cp->free_led;
    cp->free_led = l;
}

static inline struct ledger *led_ref(struct ledger *l)
{
    if (l) l->ref++;
    return l;
}

/* The rank's ledger, its own to write (a copy when another holds it) with
 * room for `need` keys; NULL: no memory. */
static __attribute__((noinline)) struct ledger *led_own(struct an_cp *cp, struct cp_rank *r, unsigned need)
{
    struct ledger *o = r->led;
    if (o->ref == 1 && o->cap >= need) return o;
    unsigned cap = o->cap;
    while (cap < need) cap *= 2;
    struct ledger *l;
    if (o->ref == 1) {        /* only more room */
        if (!(l = realloc(o, sizeof *l + cap * sizeof l->e[0]))) {
            cp->failed = 1;
            return NULL;
        }
        l->cap = cap;
    } else {
        if (!(l = led_new(cp, cap))) return NULL;
        l->n = o->n;
        l->wseq = o->wseq;
        memcpy(l->e, o->e, o->n * sizeof o->e[0]);
        o->ref--;
    }
    r->led = l;
    return l;
}

/* The ledger key of a routine or region on a rank (a new one: 0 so far). */
static __attribute__((noinline)) unsigned lkey_new(struct an_cp *cp, struct cp_rank *r, uint32_t key, unsigned mask)
{
    if (r->nkey == r->capkey) {
        unsigned cap = r->capkey ? r->capkey * 2 : 16;
        uint32_t *t = realloc(r->lkey, cap * sizeof *t);
        if (t) r->lkey = t;
        uint8_t *u = t ? realloc(r->lmask, cap) : NULL;
        if (u) r->lmask = u;
        uint32_t *z = u ? realloc(r->seen, cap * sizeof *z) : NULL;
        if (!z) {
            cp->failed = 1;
            return UINT32_MAX;
        }
        r->seen = z;
        r->capkey = cap;
    }
    unsigned li = r->nkey;
    struct ledger *l = led_own(cp, r, li + 1);
    if (!l) return UINT32_MAX;
    r->lkey[r->nkey] = key;
    r->seen[r->nkey] = 0;
    r->lmask[r->nkey++] = (uint8_t)mask;
    memset(&l->e[li], 0, sizeof l->e[li]);
    l->n = li + 1;
    return li;
}

#define M_(m) (1u << (m))

/* The slot of a routine's useful time (send 0), or the first of its
 * bytes, bw and lat slots (send 1). */
static unsigned name_slot_new(struct an_cp *cp, struct cp_rank *r, uint16_t name, int send)
{
    unsigned mask = send ? M_(AN_CP_BYTES) : M_(AN_CP_RUNTIME) | M_(AN_CP_COMM);
    for (unsigned i = 0; i < r->nkey; i++)     /* a name beyond the run's table (damaged file) */
        if (r->lkey[i] == name && r->lmask[i] == mask) return i;
    unsigned li = lkey_new(cp, r, name, mask);
    if (send && li != UINT32_MAX && (lkey_new(cp, r, name, M_(AN_CP_BW)) == UINT32_MAX ||
                                     lkey_new(cp, r, name, M_(AN_CP_LAT)) == UINT32_MAX))
        return UINT32_MAX;
    if (li != UINT32_MAX && name < cp->run->nnames) (send ? r->nsend_of : r->nkey_of)[name] = li + 1;
    return li;
}

static inline unsigned name_key(struct an_cp *cp, struct cp_rank *r, uint16_t name)
{
    if (name < cp->run->nnames && r->nkey_of[name]) return r->nkey_of[name] - 1;
    return name_slot_new(cp, r, name, 0);
}

static inline unsigned name_send_key(struct an_cp *cp, struct cp_rank *r, uint16_t name)
{
    if (name < cp->run->nnames && r->nsend_of[name]) return r->nsend_of[name] - 1;
    return name_slot_new(cp, r, name, 1);
}

/* The measures a ledger entry counts for (docs/CRITPATH.md). */
enum { G_REGION, G_USEFUL, G_SEND };

static inline void cx_drop(struct an_cp *cp, struct cp_rank *r);

static inline void led_wrote(struct cp_rank *r, struct ledger *l, unsigned li)
{
    uint64_t w = ++r->wseq;
    l->wseq = w;
    r->wlog[w & (WLOG - 1)] = li;
}

/* A first stretch starts at its first gain (sfrom). */
static __attribute__((noinline)) void first_gain(struct an_cp *cp, struct cp_rank *r, unsigned ms, int64_t now)
{
    for (int m = 0; m < AN_CP_NM; m++)
        if (r->nosfrom & ms & 1u << m) r->sfrom[m] = now;
    r->nosfrom &= ~ms;
    cx_drop(cp, r);
}

/* Measure m gains v (the caller tests nosfrom once for all it gains). */
static inline void gain_m(struct cp_rank *r, int m, int64_t v)
{
    r->v[m] = an_sadd(r->v[m], v);
    r->total[m] = an_sadd(r->total[m], v);
}

/* Rank ri gains v in ledger key li: run time and measure m (computation for
 * a region, communication for a routine's useful time). */
static inline void gain_time(struct an_cp *cp, struct cp_rank *r, unsigned li, int64_t v, int64_t now, int m)
{
    if (v <= 0 || li == UINT32_MAX) return;
    struct ledger *l = r->led;
    if (l->ref > 1 && !(l = led_own(cp, r, l->n))) return;
    l->e[li].v = an_sadd(l->e[li].v, v);
    led_wrote(r, l, li);
    gain_m(r, AN_CP_RUNTIME, v);
    gain_m(r, m, v);
    if (r->nosfrom & (M_(AN_CP_RUNTIME) | M_(m))) first_gain(cp, r, M_(AN_CP_RUNTIME) | M_(m), now);
}

/* ... computation in region key li. */
static inline void gain_region(struct an_cp *cp, struct cp_rank *r, unsigned li, int64_t v, int64_t now)
{
    gain_time(cp, r, li, v, now, AN_CP_COMP);
}

/* ... useful time in a routine. */
static inline void gain_useful(struct an_cp *cp, struct cp_rank *r, unsigned li, int64_t v, int64_t now)
{
    gain_time(cp, r, li, v, now, AN_CP_COMM);
}

/* ... the bytes and modelled costs of the sends of a routine. */
CP_INLINE void gain_send(struct an_cp *cp, struct cp_rank *r, unsigned li, int64_t by, int64_t bw, int64_t lat,
                         int64_t now)
{
    if ((by <= 0 && bw <= 0 && lat <= 0) || li == UINT32_MAX) return;
    struct ledger *l = r->led;
    if (l->ref > 1 && !(l = led_own(cp, r, l->n))) return;
    unsigned ms = 0;
    if (by > 0) {
        l->e[li].v = an_sadd(l->e[li].v, by);
        led_wrote(r, l, li);
        gain_m(r, AN_CP_BYTES, by);
        ms |= M_(AN_CP_BYTES);
    }
    if (bw > 0) {
        l->e[li + 1].v = an_sadd(l->e[li + 1].v, bw);
        led_wrote(r, l, li + 1);
        gain_m(r, AN_CP_BW, bw);
        ms |= M_(AN_CP_BW);
    }
    if (lat > 0) {
        l->e[li + 2].v = an_sadd(l->e[li + 2].v, lat);
        led_wrote(r, l, li + 2);
        gain_m(r, AN_CP_LAT, lat);
        ms |= M_(AN_CP_LAT);
    }
    if (r->nosfrom & ms) first_gain(cp, r, ms, now);
}

/* A closed stretch of rank ri for measure m: what it gained between the
 * ledgers lo (NULL: nothing) and hi; NULL when it gained nothing. */
static struct node *stretch(struct an_cp *cp, int ri, int m, const struct ledger *lo, const struct ledger *hi,
                            int64_t from)
{
    struct cp_rank *r = &cp->r[ri];
    struct node *x = NULL;
    uint64_t w0 = lo ? lo->wseq : 0;  /* lo is an older version of hi: what changed was written since */
    /* the slots written since: from the rank's log of recent writes while
     * it still holds them (each slot once), else all */
    int recent = r->wseq - w0 <= WLOG;
    uint32_t stamp = 0;
    if (recent && !(stamp = ++r->nseen)) {   /* wrapped: the marks start again */
        memset(r->seen, 0, r->nkey * sizeof *r->seen);
        stamp = r->nseen = 1;
    }
    uint64_t w = w0;
    for (unsigned k = 0;; k++) {
        unsigned i;
        if (recent) {
            if (++w > hi->wseq) break;
            i = r->wlog[w & (WLOG - 1)];
            if (r->seen[i] == stamp) continue;
            r->seen[i] = stamp;
        } else {
            if (k >= hi->n) break;
            i = k;
        }
        if (!(r->lmask[i] & M_(m))) continue;
        int64_t v = hi->e[i].v;
        if (lo && i < lo->n) v -= lo->e[i].v;
        if (v <= 0) continue;
        if (!x && !(x = node_new(cp, ri, from))) return NULL;
        if (x->nkv == x->capkv) {
            unsigned cap = x->capkv ? x->capkv * 2 : 8;
            struct an_cp_kv *kv = realloc(x->kv, cap * sizeof *kv);
            if (!kv) {
                cp->failed = 1;
                return x;
            }
            x->kv = kv;
            x->capkv = cap;
        }
        x->kv[x->nkv].key = r->lkey[i];
        x->kv[x->nkv++].val = v;
        x->sum = an_sadd(x->sum, v);
    }
    return x;
}

/* ---- edge values ----------------------------------------------------------------- */

/* The history an edge value carries for measure m, as a node: the rank's
 * stretch up to the edge is closed (made a node) the first time. */
static struct node *snap_node(struct an_cp *cp, struct snap *s, int m)
{
    if (s->closed & 1u << m) return s->x[m];
    s->closed |= 1u << m;
    struct sctx *c = s->cx;
    struct node *x = stretch(cp, s->rank, m, c->base[m], s->led, c->sfrom[m]);
    if (x) {                  /* x is the edge value's */
        x->parent = c->n[m];
        if (c->n[m]) c->n[m]->ref++;
    } else if ((x = c->n[m])) {
        x->ref++;
    }
    s->x[m] = x;
    return x;
}

static void cx_unref(struct an_cp *cp, struct sctx *c)
{
    if (!c || --c->ref > 0) return;
    for (int m = 0; m < AN_CP_NM; m++) {
        node_unref(cp, c->n[m]);
        led_unref(cp, c->base[m]);
    }
    c->next_free = cp->free_cx;
    cp->free_cx = c;
}

/* The rank's stretches changed (a hop, MPI_Pcontrol, a first gain). */
static inline void cx_drop(struct an_cp *cp, struct cp_rank *r)
{
    if (r->cx) {
        cx_unref(cp, r->cx);
        r->cx = NULL;
    }
}

static __attribute__((noinline)) struct sctx *cx_make(struct an_cp *cp, struct cp_rank *r)
{
    struct sctx *c = cp->free_cx;
    if (c) cp->free_cx = c->next_free;
    else if (!(c = malloc(sizeof *c))) {
        cp->failed = 1;
        return NULL;
    }
    c->ref = 1;
    for (int m = 0; m < AN_CP_NM; m++) {
        c->n[m] = r->cur[m];
        if (c->n[m]) c->n[m]->ref++;
        c->base[m] = led_ref(r->base[m]);
        c->sfrom[m] = r->sfrom[m];
    }
    r->cx = c;
    return c;
}

/* An edge value holds the rank's values, stretch starts and ledger. */
CP_INLINE void snap_fill(struct an_cp *cp, struct cp_rank *r, struct snap *s)
{
    struct sctx *c = r->cx ? r->cx : cx_make(cp, r);
    if (c) c->ref++;
    s->cx = c;
    s->led = led_ref(r->led);
    s->closed = 0;
    memcpy(s->v, r->v, sizeof s->v);
}

static void snap_drop(struct an_cp *cp, struct snap *s)
{
    for (int m = 0; s->closed && m < AN_CP_NM; m++)
        if (s->closed & 1u << m) node_unref(cp, s->x[m]);
    cx_unref(cp, s->cx);
    led_unref(cp, s->led);
}

static void snap_release(struct an_cp *cp, struct snap *s)
{
    if (!s || --s->refs > 0) return;
    snap_drop(cp, s);
    s->next_free = cp->free_snaps;
    cp->free_snaps = s;
}

CP_INLINE struct snap *snap_take(struct an_cp *cp, int ri, int64_t t, uint16_t name, uint32_t site, int refs)
{
    struct snap *s = cp->free_snaps;
    if (s) cp->free_snaps = s->next_free;
    else if (!(s = calloc(1, sizeof *s))) {
        cp->failed = 1;
        return NULL;
    }
    struct cp_rank *r = &cp->r[ri];
    s->t = t;
    s->rank = ri;
    s->name = name;
    s->site = site;
    s->refs = refs;
    s->epoch = r->pcontrol;
    snap_fill(cp, r, s);
    return s;
}

/* ---- regions and wait sites ------------------------------------------------------- */

static unsigned region_new(struct an_cp *cp, int ri, uint32_t a, uint32_t b, unsigned c);

/* The ledger key of the computation between call sites a and b of rank ri:
 * the rank's cache, else the run's map. */
static inline unsigned region_of(struct an_cp *cp, int ri, uint32_t a, uint32_t b)
{
    struct cp_rank *r = &cp->r[ri];
    unsigned c = (a * 0x9E3779B1u ^ b * 0x85EBCA77u) >> 26 & (RC_SIZE - 1);
    if (r->rc[c].id1 && r->rc[c].a == a && r->rc[c].b == b) return r->rc[c].li;
    return region_new(cp, ri, a, b, c);
}

/* The map holds region id + 1 and the ledger key (a region is one rank's). */
static __attribute__((noinline)) unsigned region_new(struct an_cp *cp, int ri, uint32_t a, uint32_t b, unsigned c)
{
    struct cp_rank *r = &cp->r[ri];
    uint64_t k1 = (uint64_t)(uint32_t)ri << 32 | a;
    uintptr_t p = (uintptr_t)map_get(&cp->regions, k1, b);
    if (p) {
        r->rc[c].a = a, r->rc[c].b = b, r->rc[c].id1 = (uint32_t)p, r->rc[c].li = (uint32_t)((uint64_t)p >> 32);
        return r->rc[c].li;
    }
    if (cp->nreg == cp->capreg) {
        unsigned cap = cp->capreg ? cp->capreg * 2 : 64;
        struct an_cp_region *t = realloc(cp->reg, cap * sizeof *t);
        if (!t) {
            cp->failed = 1;
            return UINT32_MAX;
        }
        cp->reg = t;
        cp->capreg = cap;
    }
    unsigned li = lkey_new(cp, r, (uint32_t)cp->nreg | AN_CP_REGION, M_(AN_CP_RUNTIME) | M_(AN_CP_COMP));
    if (li == UINT32_MAX) return li;
    cp->reg[cp->nreg].rank = cp->run->ranks[ri].rank;
    cp->reg[cp->nreg].site_from = a;
    cp->reg[cp->nreg].site_to = b;
    cp->nreg++;
    if (map_put(&cp->regions, k1, b, (void *)(uintptr_t)((uint64_t)li << 32 | cp->nreg))) cp->failed = 1;
    return li;
}

static void wait_note(struct an_cp *cp, int ri, int kind, uint32_t site, uint16_t name, int peer_idx, int64_t w)
{
    if (w <= 0) return;
    struct cp_rank *r = &cp->r[ri];
    r->wait[kind] = an_sadd(r->wait[kind], w);
    int peer = peer_idx >= 0 ? cp->run->ranks[peer_idx].rank : -1;
    uint64_t a = (uint64_t)kind << 60 | (uint64_t)(uint32_t)ri << 28 | (uint64_t)(uint32_t)(peer + 1);
    int64_t b = (int64_t)((uint64_t)site << 16 | name);
    struct wsent *e = map_get(&cp->wmap, a, b);
    if (!e) {
        if (!(e = calloc(1, sizeof *e)) || map_put(&cp->wmap, a, b, e)) {
            free(e);
            cp->failed = 1;
            return;
        }
        e->w.kind = kind;
        e->w.rank = cp->run->ranks[ri].rank;
        e->w.site = site;
        e->w.name = name;
        e->w.peer = peer;
    }
    e->w.time = an_sadd(e->w.time, w);
    e->w.count++;
}

/* ---- cost model (docs/CRITPATH.md) ------------------------------------------------ */

static int ceil_log2(uint32_t p)
{
    int k = 0;
    while (k < 32 && (1ull << k) < p) k++;
    return k;
}

static int has(const char *n, const char *w)
{
    size_t l = strlen(w);
    return strncmp(n, w, l) == 0 && (n[l] == 0 || strcmp(n + l, "_c") == 0);
}

/* Modelled cost of one member's part of a collective: messages on the
 * algorithm's longest chain (lat, in units of alpha) and bytes on it. */
static void coll_cost(const struct an_cp *cp, const char *nm, uint32_t p, int is_root, uint64_t bytes,
                      uint64_t rbytes, int64_t *bw, int64_t *lat)
{
    double msgs, by;
    double L = ceil_log2(p ? p : 1);
    if (cp->o.simple) {
        msgs = 1;
        by = (double)(bytes + rbytes);
    } else if (has(nm, "MPI_Barrier") || has(nm, "MPI_Ibarrier")) {
        msgs = L;
        by = 0;
    } else if (has(nm, "MPI_Bcast")) {
        msgs = L;
        by = L * (double)(is_root ? bytes : rbytes);
    } else if (has(nm, "MPI_Reduce") || has(nm, "MPI_Allreduce") || has(nm, "MPI_Scan") || has(nm, "MPI_Exscan")) {
        msgs = L;
        by = L * (double)bytes;
    } else if (has(nm, "MPI_Gather") || has(nm, "MPI_Gatherv")) {
        double total = is_root ? (double)rbytes : (double)bytes * p;
        msgs = L;
        by = p ? total * (p - 1) / p : 0;
    } else if (has(nm, "MPI_Scatter") || has(nm, "MPI_Scatterv")) {
        double total = is_root ? (double)bytes : (double)rbytes * p;
        msgs = L;
        by = p ? total * (p - 1) / p : 0;
    } else if (has(nm, "MPI_Allgather") || has(nm, "MPI_Allgatherv")) {
        msgs = L;
        by = (double)bytes * (p ? p - 1 : 0);
    } else if (has(nm, "MPI_Alltoall") || has(nm, "MPI_Alltoallv") || has(nm, "MPI_Alltoallw")) {
        msgs = p ? p - 1 : 0;
        by = p ? (double)bytes * (p - 1) / p : 0;
    } else if (has(nm, "MPI_Reduce_scatter") || has(nm, "MPI_Reduce_scatter_block")) {
        msgs = L;
        by = p ? (double)bytes * (p - 1) / p : 0;
    } else {
        msgs = L;
        by = 0;
    }
    *lat = an_d2i(msgs * cp->o.alpha_ns);
    *bw = an_d2i(by * cp->o.beta_ns);
}

static int coll_kind(const char *nm)
{
    if (has(nm, "MPI_Bcast") || has(nm, "MPI_Scatter") || has(nm, "MPI_Scatterv") || has(nm, "MPI_Ibcast") ||
        has(nm, "MPI_Iscatter") || has(nm, "MPI_Iscatterv"))
        return CK_ROOT_OUT;
    if (has(nm, "MPI_Reduce") || has(nm, "MPI_Gather") || has(nm, "MPI_Gatherv") || has(nm, "MPI_Ireduce") ||
        has(nm, "MPI_Igather") || has(nm, "MPI_Igatherv"))
        return CK_ROOT_IN;
    if (strncmp(nm, "MPI_Neighbor_", 13) == 0 || strncmp(nm, "MPI_Ineighbor_", 14) == 0) return CK_NBR;
    return CK_NXN;
}

static int64_t aligned(const struct an_cp *cp, int ri, int64_t t);

/* ---- setup ----------------------------------------------------------------------- */

void an_cp_opts_default(struct an_cp_opts *o)
{
    memset(o, 0, sizeof *o);
    o->alpha_ns = 1000;       /* 1 us per message */
    o->beta_ns = 0.1;         /* 10 GB/s */
    o->eager = 65536;
    o->from_ns = INT64_MIN;
    o->to_ns = INT64_MAX;
}

struct an_cp *an_cp_new(struct an_run *run, const struct an_cp_opts *o)
{
    struct an_cp *cp = calloc(1, sizeof *cp);
    if (!cp) return NULL;
    cp->run = run;
    cp->o = *o;
    cp->r = calloc(run->n ? run->n : 1, sizeof *cp->r);
    cp->ckind = calloc(run->nnames + 1, 1);
    cp->sync_name = calloc(run->nnames + 1, 1);
    cp->done_name = calloc(run->nnames + 1, 1);
    cp->ss_name = calloc(run->nnames + 1, 1);
    cp->ss_all = malloc(run->nnames + 1);
    if (cp->ss_all) memset(cp->ss_all, 1, run->nnames + 1);
    cp->ss_tab = cp->ss_name;
    cp->blocked = calloc(run->n ? run->n : 1, sizeof *cp->blocked);
    cp->rq = calloc(run->n ? run->n : 1, sizeof *cp->rq);
    cp->deadline = INT64_MAX;
    if (!cp->r || !cp->ckind || !cp->sync_name || !cp->done_name || !cp->ss_name || !cp->ss_all || !cp->blocked ||
        !cp->rq) {
        an_cp_free(cp);
        return NULL;
    }
    cp->pcontrol_name = -1;
    /* edge values and inboxes churn: a roomier table is rebuilt less often */
    cp->snaps.spread = cp->inbox.spread = 1;
    for (unsigned i = 0; i < run->nnames; i++) {
        const char *nm = run->names[i];
        cp->ckind[i] = (uint8_t)coll_kind(nm);
        if (has(nm, "MPI_Ssend")) cp->sync_name[i] = 1;
        else if (has(nm, "MPI_Send")) cp->sync_name[i] = 2;
        else if (has(nm, "MPI_Issend") || has(nm, "MPI_Ssend_init")) cp->sync_name[i] = 3;
        else if (has(nm, "MPI_Start") || has(nm, "MPI_Startall")) cp->sync_name[i] = 4;
        cp->ss_name[i] = cp->sync_name[i] >= 3;
        if (strcmp(nm, "MPI_Pcontrol") == 0) cp->pcontrol_name = (int)i;
        if (!strncmp(nm, "MPI_Wait", 8) || !strncmp(nm, "MPI_Test", 8)) cp->done_name[i] = 1;
        if (!strcmp(nm, "MPI_Test") || !strcmp(nm, "MPI_Testany") || !strcmp(nm, "MPI_Testsome") ||
            !strcmp(nm, "MPI_Testall"))
            cp->done_name[i] |= 2;
    }
    for (unsigned i = 0; i < run->n; i++) {
        struct cp_rank *r = &cp->r[i];
        r->open = o->from_ns;
        r->close = o->to_ns;
        r->last = INT64_MIN;
        r->ustop = INT64_MIN;
        r->bpos = -1;
        for (int m = 0; m < AN_CP_NM; m++) r->sfrom[m] = INT64_MIN;
        r->nosfrom = (1u << AN_CP_NM) - 1;
        r->ccount = calloc(run->ncomms ? run->ncomms : 1, sizeof *r->ccount);
        r->nkey_of = calloc(run->nnames + 1, sizeof *r->nkey_of);
        r->nsend_of = calloc(run->nnames + 1, sizeof *r->nsend_of);
        r->led = led_new(cp, 16);
        if (!r->ccount || !r->nkey_of || !r->nsend_of || !r->led) {
            an_cp_free(cp);
            return NULL;
        }
    }
    if (!o->window_set) {
        /* MPI_Init synchronises the ranks: the run starts for all of them
         * when the first one leaves it; a rank still inside is in MPI_Init
         * (communication), not outside the window (docs/CRITPATH.md) */
        int64_t w0 = INT64_MAX;
        for (unsigned i = 0; i < run->n && w0 != INT64_MIN; i++) {
            struct an_rank *rk = &run->ranks[i];
            struct mlr_iter *it = mlr_iter_new(rk->f);
            struct mlr_event ev;
            int found = 0;
            for (int k = 0; it && k < 16 && mlr_next(it, &ev) == 1; k++)
                if (ev.routine < rk->nroutines && rk->role[ev.routine] == AN_INIT) {
                    int64_t t = aligned(cp, (int)i, ev.end_ns);
                    if (t < w0) w0 = t;
                    found = 1;
                    break;
                }
            if (it) mlr_iter_free(it);
            if (!found) w0 = INT64_MIN;   /* a rank without MPI_Init: each rank from its own start */
        }
        if (w0 != INT64_MIN && w0 != INT64_MAX) {
            cp->w0 = w0;
            for (unsigned i = 0; i < run->n; i++) cp->r[i].open = w0;
        }
    }
    cp->res.from = o->from_ns;
    cp->res.to = o->to_ns;
    cp->res.source = o->window_set ? "options" : "run";
    return cp;
}

/* ---- the replay ---------------------------------------------------------------- */

static int64_t clip(const struct cp_rank *r, int64_t a, int64_t b)
{
    if (a < r->open) a = r->open;
    if (b > r->close) b = r->close;
    return b > a ? an_wsub(b, a) : 0;
}

static int64_t aligned(const struct an_cp *cp, int ri, int64_t t)
{
    const struct an_clock *c = &cp->run->ranks[ri].clock;
    return an_wadd(an_clock_base(c, t), an_clock_extra(c, t));
}

/* Is a message's receive one whose posting the trace shows (a blocking one)? */
static inline int recv_posted(const struct an_cp *cp, const struct cmsg *m)
{
    int role = m->recv_name < cp->run->nnames ? cp->run->name_role[m->recv_name] : AN_OTHER;
    return role == AN_RECV || role == AN_SENDRECV || role == AN_MPROBE;
}

/* Does a message's send wait for its receive (docs/CRITPATH.md)? */
CP_INLINE int msg_sync(const struct an_cp *cp, const struct cmsg *m, int si, int di, const struct an_msg *msg)
{
    uint8_t s = m->send_name < cp->run->nnames ? cp->sync_name[m->send_name] : 0;
    if (!s || s > 2 || (s == 2 && m->bytes < cp->o.eager)) return 0;   /* (3: at its completion, ss_message) */
    if (!recv_posted(cp, m)) return 0;   /* the post is not seen */
    /* the trace shows it: the receive was posted while the send was still on */
    int64_t recv_t0 = aligned(cp, di, msg->recv.t0);
    return recv_t0 > aligned(cp, si, msg->send.t0) && recv_t0 < aligned(cp, si, msg->send.t1);
}

/* A blocked rank is tried again only once what it waits for may have come
 * (an edge value of the rank it waits for, a member of its collective, its
 * message; or stream time past its limits): trying every blocked rank after
 * every step cost more than the replay itself. */
static void set_ready(struct an_cp *cp, int b)
{
    struct cp_rank *r = &cp->r[b];
    r->ready = 1;
    if (!r->inq) {
        r->inq = 1;
        cp->rq[cp->nrq++] = b;
    }
}

static void wl_add(struct an_cp *cp, struct wlist *w, int b, uint32_t thread, int64_t lt0)
{
    if (w->n && w->r[w->n - 1].rank == b) {
        struct wlent *e = &w->r[w->n - 1];
        if (e->thread != thread) e->lt0 = INT64_MIN;
        else if (lt0 < e->lt0) e->lt0 = lt0;
        return;
    }
    if (w->n == w->cap) {
        unsigned cap = w->cap ? w->cap * 2 : 8;
        struct wlent *t = realloc(w->r, cap * sizeof *t);
        if (!t) {
            cp->failed = 1;
            set_ready(cp, b);     /* no list: tried now */
            return;
        }
        w->r = t;
        w->cap = cap;
    }
    w->r[w->n].rank = b;
    w->r[w->n].thread = thread;
    w->r[w->n].lt0 = lt0;
    w->n++;
}

static void wl_wake(struct an_cp *cp, struct wlist *w)
{
    for (unsigned i = 0; i < w->n; i++) set_ready(cp, w->r[i].rank);
    w->n = 0;
}

static int timed_out(const struct an_cp *cp, const struct cp_rank *r);

/* Only the ranks of the list whose waiting call's time is up. */
static void wl_wake_late(struct an_cp *cp, struct wlist *w)
{
    unsigned k = 0;
    for (unsigned i = 0; i < w->n; i++) {
        if (timed_out(cp, &cp->r[w->r[i].rank])) set_ready(cp, w->r[i].rank);
        else w->r[k++] = w->r[i];
    }
    w->n = k;
}

/* A rank published the edge value of its call (thread, lt0): the ranks
 * waiting for that one, or for an earlier call of the thread (a thread's
 * calls are replayed in start order: it came, or never will), are woken;
 * those waiting for a later one are not (they would only fail again). */
CP_INLINE void wl_wake_pub(struct an_cp *cp, struct wlist *w, uint32_t thread, int64_t lt0)
{
    unsigned k = 0;
    for (unsigned i = 0; i < w->n; i++) {
        const struct wlent *e = &w->r[i];
        if (e->lt0 == INT64_MIN || e->thread != thread || lt0 >= e->lt0) set_ready(cp, e->rank);
        else w->r[k++] = *e;
    }
    w->n = k;
}

/* MPI_Pcontrol: the runtime does not record the level; the first call of a
 * rank opens its window (MPI_Pcontrol(1)), the second closes it.  What the
 * rank did before is forgotten. */
static void pcontrol(struct an_cp *cp, int ri, const struct qev *q)
{
    struct cp_rank *r = &cp->r[ri];
    cp->any_pcontrol = 1;
    r->pcontrol++;
    if (r->pcontrol == 1) {
        for (int m = 0; m < AN_CP_NM; m++) {
            r->v[m] = r->total[m] = 0;
            node_unref(cp, r->cur[m]);
            r->cur[m] = NULL;
            led_unref(cp, r->base[m]);
            r->base[m] = led_ref(r->led);
            r->sfrom[m] = INT64_MIN;
            r->nosfrom |= 1u << m;
            cx_drop(cp, r);
        }
        r->useful_comp = r->useful_comm = 0;
        memset(r->wait, 0, sizeof r->wait);
        for (size_t i = 0; i < cp->wmap.cap; i++) {
            struct wsent *e = cp->wmap.t[i].p;
            if (e && (void *)e != TOMB && e->w.rank == cp->run->ranks[ri].rank) e->w.time = 0, e->w.count = 0;
        }
        if (q->t1 > r->open) r->open = q->t1;
        r->last = q->t1;
    } else if (r->pcontrol == 2 && q->t0 < r->close) {
        r->close = q->t0;
    }
}

/* A collective's entry: member pos's values at the call q's start (a
 * nonblocking one's, for the call that completes it) in instance cidx of
 * comm, of the routine kname.  -1: out of memory. */
static int coll_entry(struct an_cp *cp, int ri, const struct qev *q, uint32_t comm, uint64_t cidx, int32_t pos,
                      int32_t root, uint16_t kname)
{
    struct cp_rank *r = &cp->r[ri];
    struct cinst *ci = map_get(&cp->colls, comm, (int64_t)cidx);
    const struct an_comm *cm = &cp->run->comms[comm];
    if (!ci) {
        ci = calloc(1, sizeof *ci);
        if (ci) ci->entry = calloc(cm->size, sizeof *ci->entry);
        if (!ci || !ci->entry || map_put(&cp->colls, comm, (int64_t)cidx, ci)) {
            if (ci) free(ci->entry);
            free(ci);
            cp->failed = 1;
            return -1;
        }
        ci->size = cm->size;
        ci->left = cm->size;
        ci->kind = cp->ckind[kname];
        ci->root = root;
        if (ci->kind == CK_NBR) {
            /* without the topology (an older file, a slice): as N x N */
            if (cm->src) ci->src = cm->src, ci->nsrc = cm->nsrc;
            else ci->kind = CK_NXN;
        }
        if (cm->inter) {
            ci->lsize = cm->lsize;
            ci->proot = malloc(cm->size * sizeof *ci->proot);
            if (!ci->proot) {
                cp->failed = 1;
                return -1;
            }
            for (uint32_t k = 0; k < cm->size; k++) ci->proot[k] = -1;
        }
        for (uint32_t k = 0; k < cm->size; k++) ci->entry[k].t = INT64_MIN;
    }
    if (ci->proot) ci->proot[pos] = root;
    struct snap *s = &ci->entry[pos];
    s->t = q->t0;
    s->rank = ri;
    s->name = q->name;
    s->site = q->site;
    s->epoch = r->pcontrol;
    snap_fill(cp, r, s);
    /* the members waiting (coll_need) go on once all arrived, or, for
     * a rooted-out one, once the root did: only then are they woken;
     * before, only those whose time is up (they go on without it;
     * none before stream time passes cp->deadline) */
    int full = ++ci->arrived == ci->size;
    if (full || (ci->kind == CK_ROOT_OUT && pos == ci->root) || ci->kind == CK_NBR || ci->proot) wl_wake(cp, &ci->wl);
    else if (ci->wl.n && cp->now != INT64_MIN && cp->now > cp->deadline) wl_wake_late(cp, &ci->wl);
    if (full) {
        ci->last = 0;
        for (uint32_t k = 0; k < ci->size; k++)
            if (ci->entry[k].t > ci->entry[ci->last].t) ci->last = (int)k;
        for (int m = 0; m < AN_CP_NM; m++) {
            ci->best[m] = 0;
            for (uint32_t k = 1; k < ci->size; k++)
                if (ci->entry[k].v[m] > ci->entry[ci->best[m]].v[m]) ci->best[m] = (int)k;
        }
    }
    return 0;
}

CP_INLINE void phase_a(struct an_cp *cp, int ri, struct qev *q)
{
    struct cp_rank *r = &cp->r[ri];
    if (q->flags & QF_INIT) {
        if (!cp->w0 && q->t1 > r->open) r->open = q->t1;
        r->seen_init = 1;
    }
    if (q->flags & QF_FIN) {
        if (q->t0 < r->close) r->close = q->t0;
        r->finished = 1;
    }
    if (cp->pcontrol_name >= 0 && q->name == cp->pcontrol_name) pcontrol(cp, ri, q);
    if (r->open == INT64_MIN) r->open = q->t0;   /* no MPI_Init recorded: from the first call */
    if (r->last == INT64_MIN) r->last = r->seen_init ? r->open : q->t0;
    /* computation since the previous call */
    int64_t gap = clip(r, r->last, q->t0);
    if (gap > 0) {
        unsigned reg = region_of(cp, ri, r->last_site, q->site);
        int64_t g0 = r->last > r->open ? r->last : r->open;
        gain_region(cp, r, reg, gap, g0);
        r->useful_comp = an_sadd(r->useful_comp, gap);
    }
    if (q->t0 > r->last) r->last = q->t0;
    /* bytes and modelled cost of the sends it starts */
    int inside = q->t0 >= r->open && q->t0 < r->close;
    if (inside && !(q->flags & QF_COLL)) {
        if ((int64_t)q->sbytes > 0 || q->bw > 0 || q->lat > 0)
            gain_send(cp, r, name_send_key(cp, r, q->name), (int64_t)q->sbytes, q->bw, q->lat, q->t0);
    }
    int refs = q->nsend + ((q->flags & QF_BRECV) ? 1 : 0);
    if (refs) {
        q->own = snap_take(cp, ri, q->t0, q->name, q->site, refs);
        if (q->own && map_add(&cp->snaps, ckey(ri, q->thread), q->lt0, q->own) < 0) cp->failed = 1;
        wl_wake_pub(cp, &r->wl, q->thread, q->lt0);
    }
    if (q->flags & (QF_COLL | QF_NBC)) {
        if (coll_entry(cp, ri, q, q->comm, q->cidx, q->pos, q->root, q->name)) {
            q->flags &= ~(QF_COLL | QF_NBC);
            goto out;
        }
    }
    if (q->nbw && !(q->flags & QF_NBW)) {
        /* MPI_Start(all) of persistent collectives: each a nonblocking
         * collective's entry */
        for (unsigned i = 0; i < q->nbw->n; i++) {
            const struct nbreq *d = &q->nbw->d[i];
            if (coll_entry(cp, ri, q, d->comm, d->cidx, d->pos, d->root, d->name)) break;
        }
        free(q->nbw);
        q->nbw = NULL;
    }
out:
    q->phase = 1;
}

static void hop(struct an_cp *cp, int ri, int m, const struct snap *s, int64_t at, const struct qev *q)
{
    struct cp_rank *r = &cp->r[ri];
    struct node *n = node_new(cp, ri, at);
    if (!n) return;
    n->hop = 1;
    n->parent = snap_node(cp, (struct snap *)s, m);
    if (n->parent) n->parent->ref++;
    n->parent_t = s->t;
    n->out_name = s->name;
    n->out_site = s->site;
    n->in_name = q->name;
    n->in_site = q->site;
    struct node *old = r->cur[m];
    r->cur[m] = n;
    r->v[m] = s->v[m];
    node_unref(cp, old);
    led_unref(cp, r->base[m]);     /* the stretch starts here */
    r->base[m] = led_ref(r->led);
    r->nosfrom &= ~(1u << m);
    cx_drop(cp, r);
}

static void coll_leave(struct an_cp *cp, uint32_t comm, uint64_t cidx, struct cinst *ci)
{
    if (--ci->left) return;
    for (uint32_t k = 0; k < ci->size; k++)
        if (ci->entry[k].t != INT64_MIN) snap_drop(cp, &ci->entry[k]);
    map_del(&cp->colls, comm, (int64_t)cidx);
    free(ci->proot);
    free(ci->wl.r);
    free(ci->entry);
    free(ci);
}

static void msg_done(struct an_cp *cp, struct cmsg *m)
{
    if (--m->refs == 0) {
        m->next = cp->free_msgs;
        cp->free_msgs = m;
    }
}

/* Does the member at pos still wait for members that have not entered:
 * the root (rooted out), everyone (NxN, and the root of rooted in)? */
/* An inter-communicator's member at pos depends on the positions lo..hi-1:
 * in a rooted-out collective (MPI_Bcast, MPI_Scatter) on the root it named
 * in the other group (MPI_ROOT and MPI_PROC_NULL on none), in a rooted-in
 * one (MPI_Reduce, MPI_Gather) the root (MPI_ROOT) on all of the other
 * group, the others on none; in every other (MPI_Allreduce, MPI_Barrier,
 * MPI_Allgather ...) on every member, as on an intra-communicator: its
 * result is the other group's, but the MPIs gather each group at a leader
 * first (a late member of its own group holds it too; where it does not,
 * the member left before that one came, which ties nothing). */
static void inter_range(const struct cinst *ci, int32_t pos, uint32_t *lo, uint32_t *hi)
{
    uint32_t a = (uint32_t)pos < ci->lsize ? ci->lsize : 0, b = (uint32_t)pos < ci->lsize ? ci->size : ci->lsize;
    int32_t r = ci->proot[pos];
    *lo = *hi = 0;
    if (ci->kind == CK_ROOT_OUT) {
        if (r >= 0 && (uint32_t)r >= a && (uint32_t)r < b) *lo = (uint32_t)r, *hi = (uint32_t)r + 1;
    } else if (ci->kind == CK_ROOT_IN) {
        if (r == -2) *lo = a, *hi = b;
    } else {
        *hi = ci->size;
    }
}

static int coll_need(const struct cinst *ci, int32_t pos)
{
    if (ci->proot) {
        uint32_t lo, hi;
        inter_range(ci, pos, &lo, &hi);
        for (uint32_t k = lo; k < hi; k++)
            if (ci->entry[k].t == INT64_MIN) return 1;
        return 0;
    }
    if (ci->kind == CK_NBR && ci->nsrc[pos] >= 0) {
        for (int32_t k = 0; k < ci->nsrc[pos]; k++)
            if (ci->entry[ci->src[pos][k]].t == INT64_MIN) return 1;
        return 0;
    }
    if (ci->kind == CK_ROOT_OUT && ci->root >= 0 && (uint32_t)ci->root < ci->size)
        return pos != ci->root && ci->entry[ci->root].t == INT64_MIN;
    if (ci->kind == CK_ROOT_IN && ci->root >= 0 && (uint32_t)ci->root < ci->size)
        return pos == ci->root && ci->arrived < ci->size;
    return ci->arrived < ci->size;
}

struct dep {
    const struct snap *s;
    int64_t t;                /* when it let the call go on */
};

/* The entries the member at pos depends on, appended to deps (64 at most);
 * *tdep and *peer: the last of them to arrive, if later than *tdep.  t1:
 * the end of the call (the blocking one, or the one completing a
 * nonblocking one): a member that entered after it cannot have been waited
 * for (MPI_Scan, MPI_Exscan, a neighbourhood collective let members go
 * before the others came), as a probe that ended before its send began. */
static void coll_deps(const struct cinst *ci, int32_t pos, int64_t t1, struct dep *deps, unsigned *ndp,
                      int64_t *tdep, int *peer)
{
    unsigned nd = *ndp, nd0 = nd;
    uint32_t lo = 0, hi = 0;
    if (ci->proot) {
        inter_range(ci, pos, &lo, &hi);
        for (uint32_t k = lo; k < hi; k++) {
            const struct snap *s = &ci->entry[k];
            if (s->t == INT64_MIN || (int32_t)k == pos || s->t >= t1) continue;
            if (s->t > *tdep) {
                *tdep = s->t;
                *peer = s->rank;
            }
            if (nd < 64) {
                deps[nd].s = s;
                deps[nd].t = s->t;
                nd++;
            }
        }
        *ndp = nd;
        return;
    }
    if (ci->kind == CK_NBR && ci->nsrc[pos] >= 0) {
        /* its in-neighbours only (a neighbour listed twice counts once) */
        for (int32_t j = 0; j < ci->nsrc[pos]; j++) {
            int32_t k = ci->src[pos][j];
            const struct snap *s = &ci->entry[k];
            if (s->t == INT64_MIN || k == pos || s->t >= t1) continue;
            if (s->t > *tdep) {
                *tdep = s->t;
                *peer = s->rank;
            }
            unsigned i;
            for (i = nd0; i < nd; i++)
                if (deps[i].s == s) break;
            if (i < nd || nd == 64) continue;
            deps[nd].s = s;
            deps[nd].t = s->t;
            nd++;
        }
        *ndp = nd;
        return;
    }
    if (ci->kind == CK_ROOT_OUT && ci->root >= 0 && (uint32_t)ci->root < ci->size) {
        if (pos != ci->root) lo = (uint32_t)ci->root, hi = lo + 1;
    } else if (ci->kind == CK_ROOT_IN && ci->root >= 0 && (uint32_t)ci->root < ci->size) {
        if (pos == ci->root) hi = ci->size;
    } else {
        hi = ci->size;
    }
    for (uint32_t k = lo; k < hi; k++) {
        const struct snap *s = &ci->entry[k];
        if (s->t == INT64_MIN || (int32_t)k == pos || s->t >= t1) continue;
        if (s->t > *tdep) {
            *tdep = s->t;
            *peer = s->rank;
        }
    }
    /* the values: every needed member's entry; NxN uses the precomputed best */
    for (uint32_t k = lo; k < hi && nd < 64; k++) {
        const struct snap *s = &ci->entry[k];
        if (s->t == INT64_MIN || (int32_t)k == pos || s->t >= t1) continue;
        if (hi - lo > 8 && ci->arrived == ci->size && ci->kind == CK_NXN) break;
        deps[nd].s = s;
        deps[nd].t = s->t;
        nd++;
    }
    if (hi - lo > 8 && ci->arrived == ci->size && ci->kind == CK_NXN) {
        nd = nd0;
        int bk[AN_CP_NM];
        if (ci->entry[ci->last].t < t1) {
            memcpy(bk, ci->best, sizeof bk);
        } else {
            /* some entered after the call ended: the best of the others */
            for (int m = 0; m < AN_CP_NM; m++) bk[m] = -1;
            for (uint32_t k = lo; k < hi; k++) {
                const struct snap *s = &ci->entry[k];
                if ((int32_t)k == pos || s->t >= t1) continue;
                for (int m = 0; m < AN_CP_NM; m++)
                    if (bk[m] < 0 || s->v[m] > ci->entry[bk[m]].v[m]) bk[m] = (int)k;
            }
        }
        for (int m = 0; m < AN_CP_NM && nd < 64; m++) {
            if (bk[m] < 0 || bk[m] == pos) continue;
            const struct snap *s = &ci->entry[bk[m]];
            unsigned j;
            for (j = nd0; j < nd; j++)
                if (deps[j].s == s) break;
            if (j == nd) {
                deps[nd].s = s;
                deps[nd].t = s->t;
                nd++;
            }
        }
    }
    *ndp = nd;
}

/* Of two edge values equal in a measure, the one the path takes: the lower
 * rank, then the earlier point.  A rule that does not depend on the order of
 * a call's dependencies (the order the matcher paired its messages in), so
 * that a replay meeting them in another order takes the same path.  Equal
 * to the call's own value, the path stays on the rank (no hop). */
static inline int snap_first(const struct snap *a, const struct snap *b)
{
    return a->rank < b->rank || (a->rank == b->rank && a->t < b->t);
}

/* Does a call that would wait go on without what it waits for: the pass
 * ends (force 1), or stream time is past its limit (force 2: tested only
 * when the call would wait)? */
static inline int forced(const struct an_cp *cp, const struct qev *q, int force)
{
    return force == 1 || (force == 2 && cp->now != INT64_MIN && an_wsub(cp->now, q->t1) > CP_FORCE_NS);
}

/* Phase B of a call completing synchronous isends (an_cp.swait), out of
 * the common path: 0 while it must wait (their messages are matched while
 * it is still on, ss_message: once the stream is past its end, none came;
 * then the receivers' posts), 1 ready, 2 ready without some post (forced:
 * undecided), -1 not such a call. */
static __attribute__((noinline)) int ss_ready(struct an_cp *cp, int ri, struct qev *q, int force)
{
    struct swt *sw = map_get(&cp->swait, ckey(ri, q->thread), q->lt0);
    if (!sw) return -1;
    if (sw->pending && !forced(cp, q, force) &&
        !(cp->now != INT64_MIN && an_wsub(cp->now, q->t1) > 2 * AN_STREAM_SLACK))
        return 0;
    int ret = 1;
    for (unsigned i = 0; i < sw->nout; i++) {
        const struct cmsg *m = sw->out[i];
        if (map_get(&cp->snaps, ckey(m->dst, m->recv_th), m->recv_lt0)) continue;
        if (!forced(cp, q, force)) {
            wl_add(cp, &cp->r[m->dst].wl, ri, m->recv_th, m->recv_lt0);
            return 0;
        }
        ret = 2;
    }
    return ret;
}

/* ... its dependencies: the posts of the late receivers; when one came
 * last, the wait is a late receiver's (of several at once, the lower rank's) */
static __attribute__((noinline)) void ss_deps(struct an_cp *cp, int ri, const struct qev *q, struct dep *deps,
                                              unsigned *nd, int64_t *tdep, int *peer, int *kind)
{
    const struct swt *sw = map_get(&cp->swait, ckey(ri, q->thread), q->lt0);
    for (unsigned i = 0; sw && i < sw->nout; i++) {
        const struct cmsg *m = sw->out[i];
        const struct snap *s = map_get(&cp->snaps, ckey(m->dst, m->recv_th), m->recv_lt0);
        if (!s || *nd == 64) continue;
        deps[*nd].s = s;
        deps[*nd].t = s->t;
        (*nd)++;
        if (*kind < 0 || s->t > *tdep || (s->t == *tdep && *kind == AN_CP_W_LATE_RECEIVER && m->dst < *peer)) {
            if (s->t > *tdep) *tdep = s->t;
            *peer = m->dst;
            *kind = AN_CP_W_LATE_RECEIVER;
        }
    }
}

/* ... and what it used, released. */
static __attribute__((noinline)) void ss_done(struct an_cp *cp, int ri, const struct qev *q)
{
    struct swt *sw = map_get(&cp->swait, ckey(ri, q->thread), q->lt0);
    if (!sw) return;
    for (unsigned i = 0; i < sw->nout; i++) {
        struct cmsg *m = sw->out[i];
        struct snap *s = map_get(&cp->snaps, ckey(m->dst, m->recv_th), m->recv_lt0);
        if (s) {
            if (s->refs <= 1) map_del_p(&cp->snaps, ckey(m->dst, m->recv_th), m->recv_lt0, s);
            snap_release(cp, s);
        }
        msg_done(cp, m);
    }
    free(sw->out);
    sw->out = NULL;
    sw->nout = sw->capout = 0;
    sw->done = 1;
    map_del_p(&cp->swait, ckey(ri, q->thread), q->lt0, sw);
    if (!sw->pending) free(sw);   /* else the last of its sends' messages frees it (ss_message) */
}

/* Phase B; returns 0 when it must wait for an edge value.  force: see
 * forced.  with_ss: a constant, 1 in the copy for calls completing
 * synchronous isends (phase_b_ss; the common one has none of that code). */
CP_INLINE int phase_b(struct an_cp *cp, int ri, struct qev *q, int force, const int with_ss)
{
    struct cp_rank *r = &cp->r[ri];
    struct dep deps[64];
    unsigned nd = 0;
    int kind = -1;
    struct cmsg *in = NULL, *out = NULL;
    struct cinst *ci = NULL;
    int undecided = 0;
    if (q->nrecv) {
        if (q->in_ver != r->in_ver) {   /* a message came since the last look */
            q->in = map_get(&cp->inbox, ckey(ri, q->thread), q->lt0);
            q->in_ver = r->in_ver;
        }
        in = q->in;
        unsigned have = 0;
        unsigned got = 0;
        for (struct cmsg *m = in; m; m = m->next) {
            if (!m->snap) m->snap = map_get(&cp->snaps, ckey(m->src, m->send_th), m->send_lt0);
            have += m->snap != NULL;
            got++;
        }
        if ((have < q->nrecv || got < have) && !forced(cp, q, force)) {
            for (struct cmsg *m = in; m; m = m->next)
                if (!m->snap) wl_add(cp, &cp->r[m->src].wl, ri, m->send_th, m->send_lt0);
            return 0;            /* a message not matched yet: on_message tries again */
        }
        if (have < q->nrecv) undecided = 1;
        kind = (q->flags & QF_COMPLETE) ? AN_CP_W_COMPLETION : AN_CP_W_LATE_SENDER;
    }
    int ss = with_ss ? ss_ready(cp, ri, q, force) : -1;
    if (!ss) return 0;
    if (ss == 2) undecided = 1;
    if ((q->flags & QF_SYNC) && ss < 0) {
        /* a synchronous message is matched while the send is still on: once
         * the stream is past the send's end, none came */
        out = cp->outbox.live ? map_get(&cp->outbox, ckey(ri, q->thread), q->lt0) : NULL;
        if (!out && !forced(cp, q, force) && !(cp->now != INT64_MIN && an_wsub(cp->now, q->t1) > 2 * AN_STREAM_SLACK)) return 0;
        if (out && !map_get(&cp->snaps, ckey(out->dst, out->recv_th), out->recv_lt0)) {
            if (!forced(cp, q, force)) {
                wl_add(cp, &cp->r[out->dst].wl, ri, out->recv_th, out->recv_lt0);
                return 0;
            }
            out = NULL;
            undecided = 1;
        }
    }
    if ((q->flags & QF_COLL) && !(q->flags & QF_NB)) {
        ci = map_get(&cp->colls, q->comm, (int64_t)q->cidx);
        int need = ci && coll_need(ci, q->pos);
        if (need && !forced(cp, q, force)) {
            wl_add(cp, &ci->wl, ri, 0, INT64_MIN);
            return 0;
        }
        if (need) undecided = 1;
        kind = AN_CP_W_COLLECTIVE;
    }
    /* completing nonblocking collectives: as their blocking kind would wait */
    struct nbw *nw = (q->flags & QF_NBW) ? q->nbw : NULL;
    for (unsigned i = 0; nw && i < nw->n; i++) {
        struct cinst *c = map_get(&cp->colls, nw->d[i].comm, (int64_t)nw->d[i].cidx);
        if (!c || !coll_need(c, nw->d[i].pos)) continue;
        if (!forced(cp, q, force)) {
            wl_add(cp, &c->wl, ri, 0, INT64_MIN);
            return 0;
        }
        undecided = 1;
    }
    /* the dependencies and when each let the call go on */
    int peer = -1;
    int64_t tdep = INT64_MIN;
    if (q->flags & QF_PROBE) {
        if (!(q->flags & (QF_PTGT | QF_PNONE))) {
            if (!forced(cp, q, force)) return 0;   /* probe_target wakes it */
            q->flags |= QF_PNONE;                  /* no receive in time: local */
            r->nprobe--;
        }
        const struct cmsg *pm = NULL;
        if (q->flags & QF_PTGT) {
            /* the probed message: from the sender it found, the earliest sent */
            for (struct cmsg *m = map_get(&cp->inbox, ckey(ri, q->thread), (int64_t)q->cidx); m; m = m->next)
                if (m->src == q->pos && (!pm || m->send_lt0 < pm->send_lt0)) pm = m;
            if (!pm && !forced(cp, q, force)) return 0;   /* not matched yet: on_message wakes it */
        }
        const struct snap *s = NULL;
        if (pm) {
            s = pm->snap ? pm->snap : map_get(&cp->snaps, ckey(pm->src, pm->send_th), pm->send_lt0);
            if (!s && !forced(cp, q, force)) {
                wl_add(cp, &cp->r[pm->src].wl, ri, pm->send_th, pm->send_lt0);
                return 0;
            }
        }
        if (s) {
            /* the send began while the probe was on: it went on from there;
             * after it ended (an Iprobe that found nothing): all waiting */
            kind = (q->flags & QF_TPOLL) ? AN_CP_W_COMPLETION : AN_CP_W_LATE_SENDER;
            peer = pm->src;
            tdep = s->t < q->t1 ? s->t : q->t1;
            if (s->t < q->t1) {
                deps[nd].s = s;
                deps[nd].t = s->t;
                nd++;
            }
        }
    }
    for (struct cmsg *m = in; m; m = m->next) {
        const struct snap *s = m->snap;
        if (!s || nd == 64) continue;
        deps[nd].s = s;
        deps[nd].t = s->t;
        nd++;
        if (s->t > tdep || (s->t == tdep && m->src < peer)) {   /* the lower rank on a tie: order-free */
            tdep = s->t;
            peer = m->src;
        }
    }
    if (out) {
        const struct snap *s = map_get(&cp->snaps, ckey(out->dst, out->recv_th), out->recv_lt0);
        if (s && nd < 64) {
            deps[nd].s = s;
            deps[nd].t = s->t;
            nd++;
            kind = AN_CP_W_LATE_RECEIVER;
            if (s->t > tdep) {
                tdep = s->t;
                peer = out->dst;
            }
        }
    }
    if (with_ss && ss > 0) ss_deps(cp, ri, q, deps, &nd, &tdep, &peer, &kind);
    if (ci) coll_deps(ci, q->pos, q->t1, deps, &nd, &tdep, &peer);
    if (nw) {
        int64_t tmsg = tdep;
        for (unsigned i = 0; i < nw->n; i++) {
            const struct cinst *c = map_get(&cp->colls, nw->d[i].comm, (int64_t)nw->d[i].cidx);
            if (c) coll_deps(c, nw->d[i].pos, q->t1, deps, &nd, &tdep, &peer);
        }
        if (kind < 0 || tdep > tmsg) kind = AN_CP_W_COLLECTIVE;   /* a member came last */
    }
    /* the call: waiting until the last dependency, then useful */
    int64_t t0 = q->t0 > r->last ? q->t0 : r->last;
    int64_t go = tdep > t0 ? tdep : t0;
    if (go > q->t1) go = q->t1;
    int64_t w = clip(r, t0, go);
    int64_t u = clip(r, go, q->t1);
    if (kind >= 0 && w > 0) wait_note(cp, ri, kind, q->site, q->name, peer, w);
    /* per measure: the largest input */
    if (nd) {
        /* an edge from before the window opened (MPI_Pcontrol) counts for nothing */
        const struct snap *best[AN_CP_NM] = {0};
        int64_t bv[AN_CP_NM];
        memcpy(bv, r->v, sizeof bv);
        int skip0 = r->pcontrol == 1;
        for (unsigned j = 0; j < nd; j++) {
            const struct snap *s = deps[j].s;
            if (skip0 && s->epoch == 0) continue;
            for (int m = 0; m < AN_CP_NM; m++)
                if (s->v[m] > bv[m] || (s->v[m] == bv[m] && best[m] && snap_first(s, best[m])))
                    bv[m] = s->v[m], best[m] = s;
        }
        for (int m = 0; m < AN_CP_NM; m++)
            if (best[m]) hop(cp, ri, m, best[m], go, q);
    }
    if (u > 0) {
        gain_useful(cp, r, name_key(cp, r, q->name), u, go);
        r->useful_comm = an_sadd(r->useful_comm, u);
    }
    if (q->comp_extra > 0) {
        int64_t ce = clip(r, q->t1, an_wadd(q->t1, q->comp_extra));
        gain_region(cp, r, region_of(cp, ri, q->site, q->site), ce, q->t1);
        r->useful_comp = an_sadd(r->useful_comp, ce);
    }
    if (ci && q->t0 >= r->open && q->t0 < r->close) {
        if ((int64_t)q->sbytes > 0 || q->bw > 0 || q->lat > 0)
            gain_send(cp, r, name_send_key(cp, r, q->name), (int64_t)q->sbytes, q->bw, q->lat, go);
    }
    int64_t end = an_wadd(q->t1, q->comp_extra);
    if (end > r->last) r->last = end;
    r->last_site = q->site;
    if (undecided) r->undecided++;
    /* release what this call used */
    for (struct cmsg *m = in, *nx; m; m = nx) {
        nx = m->next;
        struct snap *s = m->snap;
        if (s) {
            if (s->refs <= 1) map_del_p(&cp->snaps, ckey(m->src, m->send_th), m->send_lt0, s);
            snap_release(cp, s);
        }
        /* my own receive post: no synchronous sender will take it */
        if (!m->sync && (q->flags & QF_BRECV) && q->own) {
            struct snap *o = q->own;
            if (o->refs <= 1) map_del_p(&cp->snaps, ckey(ri, q->thread), q->lt0, o);
            snap_release(cp, o);
            q->own = NULL;
        }
        msg_done(cp, m);
    }
    if (in) map_del_p(&cp->inbox, ckey(ri, q->thread), q->lt0, in);
    if ((q->flags & QF_BRECV) && q->own && !in) {   /* posted, nothing matched: nobody takes it */
        struct snap *o = q->own;
        if (o->refs <= 1) map_del_p(&cp->snaps, ckey(ri, q->thread), q->lt0, o);
        snap_release(cp, o);
        q->own = NULL;
    }
    if (out) {
        struct snap *s = map_get(&cp->snaps, ckey(out->dst, out->recv_th), out->recv_lt0);
        if (s) {
            if (s->refs <= 1) map_del_p(&cp->snaps, ckey(out->dst, out->recv_th), out->recv_lt0, s);
            snap_release(cp, s);
        }
    }
    struct cmsg *ob = cp->outbox.live ? map_get(&cp->outbox, ckey(ri, q->thread), q->lt0) : NULL;
    if (ob) {
        map_del_p(&cp->outbox, ckey(ri, q->thread), q->lt0, ob);
        msg_done(cp, ob);
    }
    if (with_ss && ss > 0) ss_done(cp, ri, q);
    if (ci) coll_leave(cp, q->comm, q->cidx, ci);
    for (unsigned i = 0; nw && i < nw->n; i++) {
        struct cinst *c = map_get(&cp->colls, nw->d[i].comm, (int64_t)nw->d[i].cidx);
        if (c) coll_leave(cp, nw->d[i].comm, nw->d[i].cidx, c);
    }
    if (nw) {
        free(nw);
        q->nbw = NULL;
    }
    return 1;
}

static __attribute__((noinline)) int phase_b_ss(struct an_cp *cp, int ri, struct qev *q, int force)
{
    return phase_b(cp, ri, q, force, 1);
}

/* Phase B of a call that depends on nobody (no receive, no synchronous
 * send, no blocking collective: most calls): what phase_b does for it,
 * without the rest. */
CP_INLINE void phase_b_local(struct an_cp *cp, int ri, struct qev *q)
{
    struct cp_rank *r = &cp->r[ri];
    int64_t go = q->t0 > r->last ? q->t0 : r->last;
    if (go > q->t1) go = q->t1;
    int64_t u = clip(r, go, q->t1);
    if (q->flags & QF_UNFIN) {   /* waiting until the records stop: no useful time */
        r->ustop = go;
        if (q->upeer == -2 && u > 0) {   /* the member that never came: known at the end */
            if (cp->nuw == cp->capuw) {
                unsigned nc = cp->capuw ? 2 * cp->capuw : 16;
                struct uwait *n = realloc(cp->uw, nc * sizeof *n);
                if (!n) cp->failed = 1;
                else cp->uw = n, cp->capuw = nc;
            }
            if (cp->nuw < cp->capuw)
                cp->uw[cp->nuw++] = (struct uwait){ri, q->ukind, q->site, q->comm, q->name, q->cidx, u};
        } else {
            wait_note(cp, ri, q->ukind, q->site, q->name, q->upeer, u);
        }
        u = 0;
    }
    if (u > 0) {
        gain_useful(cp, r, name_key(cp, r, q->name), u, go);
        r->useful_comm = an_sadd(r->useful_comm, u);
    }
    if (q->comp_extra > 0) {
        int64_t ce = clip(r, q->t1, an_wadd(q->t1, q->comp_extra));
        gain_region(cp, r, region_of(cp, ri, q->site, q->site), ce, q->t1);
        r->useful_comp = an_sadd(r->useful_comp, ce);
    }
    int64_t end = an_wadd(q->t1, q->comp_extra);
    if (end > r->last) r->last = end;
    r->last_site = q->site;
    struct cmsg *ob = cp->outbox.live ? map_get(&cp->outbox, ckey(ri, q->thread), q->lt0) : NULL;
    if (ob) {
        map_del_p(&cp->outbox, ckey(ri, q->thread), q->lt0, ob);
        msg_done(cp, ob);
    }
}

/* Phase A and phase B of a light call (struct lev): what phase_a and
 * phase_b_local do for it, without the rest. */
CP_INLINE void light(struct an_cp *cp, int ri, int64_t t0, int64_t t1, uint32_t site, uint16_t name)
{
    struct cp_rank *r = &cp->r[ri];
    if (r->open == INT64_MIN) r->open = t0;   /* no MPI_Init recorded: from the first call */
    if (r->last == INT64_MIN) r->last = r->seen_init ? r->open : t0;
    /* computation since the previous call */
    int64_t gap = clip(r, r->last, t0);
    if (gap > 0) {
        unsigned reg = region_of(cp, ri, r->last_site, site);
        int64_t g0 = r->last > r->open ? r->last : r->open;
        gain_region(cp, r, reg, gap, g0);
        r->useful_comp = an_sadd(r->useful_comp, gap);
    }
    if (t0 > r->last) r->last = t0;
    /* the call: useful from where it began (r->last >= t0 now) */
    int64_t go = r->last;
    if (go > t1) go = t1;
    int64_t u = clip(r, go, t1);
    if (u > 0) {
        gain_useful(cp, r, name_key(cp, r, name), u, go);
        r->useful_comm = an_sadd(r->useful_comm, u);
    }
    if (t1 > r->last) r->last = t1;
    r->last_site = site;
}

/* The light calls queued after a qev, once it is replayed. */
CP_INLINE void light_run(struct an_cp *cp, int ri, struct cp_rank *r, unsigned n)
{
    for (; n; n--) {
        const struct lev *l = &r->lq[r->lh];
        light(cp, ri, l->t0, l->t1, l->site, l->name);
        r->lh = (r->lh + 1) & (r->lcap - 1);
        r->ln--;
    }
}

static inline int is_local(const struct qev *q)
{
    return !q->nrecv && !(q->flags & (QF_SYNC | QF_COLL | QF_BRECV | QF_NBW | QF_PROBE));
}

/* Replay what rank ri can; other ranks waiting for it are tried after. */
static void drain(struct an_cp *cp, int ri, int force);

static void drain_one(struct an_cp *cp, int ri, int force, int *progressed)
{
    struct cp_rank *r = &cp->r[ri];
    while (r->qn) {
        struct qev *q = &r->q[r->qh];
        if (q->phase == 0) {
            phase_a(cp, ri, q);
            *progressed = 1;
        }
        r->ready = 0;
        if (is_local(q)) phase_b_local(cp, ri, q);
        else if (!((q->flags & QF_SYNC) && cp->swait.live ? phase_b_ss(cp, ri, q, force ? 1 : 2)
                                                          : phase_b(cp, ri, q, force ? 1 : 2, 0)))
            return;
        *progressed = 1;
        if (q->nlight) light_run(cp, ri, r, q->nlight);
        r->qh = (r->qh + 1) & (r->qcap - 1);   /* a power of two */
        r->qn--;
    }
}

static void set_blocked(struct an_cp *cp, int ri)
{
    struct cp_rank *r = &cp->r[ri];
    int b = r->qn > 0;
    if (b == (r->bpos >= 0)) return;
    if (b) {
        r->bpos = (int)cp->nblocked;
        cp->blocked[cp->nblocked++] = ri;
    } else {
        int last = cp->blocked[--cp->nblocked];
        cp->blocked[r->bpos] = last;
        cp->r[last].bpos = r->bpos;
        r->bpos = -1;
    }
}

/* Stream time past a limit of the rank's waiting call (see phase_b). */
static int timed_out(const struct an_cp *cp, const struct cp_rank *r)
{
    if (cp->now == INT64_MIN || !r->qn) return 0;
    const struct qev *q = &r->q[r->qh];
    int64_t d = an_wsub(cp->now, q->t1);
    return d > CP_FORCE_NS || ((q->flags & QF_SYNC) && d > 2 * AN_STREAM_SLACK);
}

/* When the head of a blocked rank's queue is tried without waiting any
 * more (timed_out): the stream time after which it is forced. */
static int64_t deadline(const struct cp_rank *r)
{
    const struct qev *q = &r->q[r->qh];
    return an_wadd(q->t1, (q->flags & QF_SYNC) ? 2 * AN_STREAM_SLACK : CP_FORCE_NS);
}

/* Rank ri went on: others may have waited for its edge values.  The ranks
 * woken since (cp->rq), then, once stream time passed a blocked rank's
 * limit (or at the end), every blocked rank. */
static void drain_others(struct an_cp *cp, int ri, int force)
{
    int defer = 0;
    for (int progressed = 1; progressed;) {
        progressed = 0;
        while (cp->nrq) {
            int b = cp->rq[--cp->nrq];
            struct cp_rank *rb = &cp->r[b];
            rb->inq = 0;
            if (b == ri) {    /* tried by the next drain that progresses */
                defer = rb->ready;
                continue;
            }
            if (!rb->ready || !rb->qn) continue;
            int p = 0;
            drain_one(cp, b, force, &p);
            if (p) {
                progressed = 1;
                set_blocked(cp, b);
            }
            if (rb->qn && deadline(rb) < cp->deadline) cp->deadline = deadline(rb);
        }
        if (force || (cp->now != INT64_MIN && cp->now > cp->deadline)) {
            int64_t dl = INT64_MAX;
            for (unsigned k = 0; k < cp->nblocked; k++) {
                int b = cp->blocked[k];
                struct cp_rank *rb = &cp->r[b];
                if (b != ri && (force || rb->ready || timed_out(cp, rb))) {
                    int p = 0;
                    drain_one(cp, b, force, &p);
                    if (p) {
                        progressed = 1;
                        set_blocked(cp, b);
                        dl = INT64_MIN;   /* the list changed: computed again next time */
                        break;
                    }
                }
                if (rb->qn && deadline(rb) < dl) dl = deadline(rb);
            }
            cp->deadline = dl;
        }
    }
    if (defer && !cp->r[ri].inq) {
        cp->r[ri].inq = 1;
        cp->rq[cp->nrq++] = ri;
    }
}

static void drain(struct an_cp *cp, int ri, int force)
{
    int progressed = 0;
    drain_one(cp, ri, force, &progressed);
    set_blocked(cp, ri);
    if (cp->r[ri].qn && deadline(&cp->r[ri]) < cp->deadline) cp->deadline = deadline(&cp->r[ri]);
    if (progressed) drain_others(cp, ri, force);
}

static int qgrow(struct an_cp *cp, struct cp_rank *r)
{
    {
        unsigned cap = r->qcap ? r->qcap * 2 : 64;
        struct qev *t = aligned_alloc(64, cap * sizeof *t);   /* an entry: two whole cache lines */
        if (!t) {
            cp->failed = 1;
            return -1;
        }
        for (unsigned i = 0; i < r->qn; i++) t[i] = r->q[(r->qh + i) & (r->qcap - 1)];
        free(r->q);
        r->q = t;
        r->qh = 0;
        r->qcap = cap;
    }
    return 0;
}

static int lgrow(struct an_cp *cp, struct cp_rank *r)
{
    unsigned cap = r->lcap ? r->lcap * 2 : 64;
    struct lev *t = malloc(cap * sizeof *t);
    if (!t) {
        cp->failed = 1;
        return -1;
    }
    for (unsigned i = 0; i < r->ln; i++) t[i] = r->lq[(r->lh + i) & (r->lcap - 1)];
    free(r->lq);
    r->lq = t;
    r->lh = 0;
    r->lcap = cap;
    return 0;
}

static int32_t member_pos(const struct an_run *run, const struct an_comm *cm, int world)
{
    if (cm->world) return world;
    for (uint32_t k = 0; k < cm->size; k++)
        if (cm->members[k] == world) return (int32_t)k;
    return -1;
}

/* A call in progress when its rank stopped or died (a deadlock, a crash, a
 * kill): it never completed, so none of its time is useful.  What it waited
 * for, by routine: a message (receive, probe), its receiver (a blocking
 * send), the members of a collective, a request (Wait family).  Its time is
 * then that wait state and lies on no path (phase_b_local); other
 * routines (MPI_Init, I/O, ...) keep their time as useful. */
static void unfinished(struct an_cp *cp, const struct an_rank *rk, const struct mlr_event *ev, int role,
                       struct qev *q)
{
    const char *nm = q->name < cp->run->nnames ? cp->run->names[q->name] : "";
    int peer = -1, kind = -1;
    switch (role) {
    case AN_RECV:
    case AN_PROBE:
    case AN_IMPROBE:
    case AN_MPROBE:
        kind = AN_CP_W_LATE_SENDER;
        peer = ev->p2p[0].peer;
        break;
    case AN_SENDRECV:
        kind = AN_CP_W_LATE_SENDER;
        peer = (int32_t)(uint32_t)ev->request;   /* the slot's aux: the source */
        break;
    case AN_SEND:
        kind = AN_CP_W_LATE_RECEIVER;
        peer = ev->p2p[0].peer;
        break;
    default:
        if (!strncmp(nm, "MPI_Wait", 8) || !strncmp(nm, "MPI_Mrecv", 9))
            kind = AN_CP_W_COMPLETION;
        else if (ev->coll.comm != ML_COMM_NONE)
            kind = AN_CP_W_COLLECTIVE;
        break;
    }
    if (kind < 0) return;
    /* the peer as a world rank of the call's communicator, then its index */
    int world = -1;
    uint16_t lc = kind == AN_CP_W_COLLECTIVE ? ev->coll.comm : ev->p2p[0].comm;
    uint32_t comm = lc < rk->ncomms ? rk->comm[lc] : UINT32_MAX;
    if (kind == AN_CP_W_COLLECTIVE) peer = ev->coll.root;   /* a rooted one waits for its root */
    if (peer >= 0 && comm < cp->run->ncomms && !cp->run->comms[comm].inter &&
        (uint32_t)peer < cp->run->comms[comm].size) {
        const int32_t *mb = cp->run->comms[comm].members;
        world = mb ? mb[peer] : peer;
    }
    q->flags |= QF_UNFIN;
    q->ukind = (int8_t)kind;
    q->upeer = world >= 0 && world < cp->run->size ? cp->run->slot[world] : -1;
    /* a collective with no root to wait for (or this rank's own root part):
     * it waits for the first member that never entered this instance,
     * known once every rank is replayed (an_cp_finish) */
    if (kind == AN_CP_W_COLLECTIVE && comm < cp->run->ncomms && !cp->run->comms[comm].inter) {
        int ri = cp->run->slot[rk->rank];
        int32_t pos = member_pos(cp->run, &cp->run->comms[comm], rk->rank);
        if (!cp->uin && (cp->uin = malloc(cp->run->n * sizeof *cp->uin)))
            for (unsigned i = 0; i < cp->run->n; i++) cp->uin[i].comm = UINT32_MAX;
        if (cp->uin) cp->uin[ri] = (struct uin){comm, cp->r[ri].ccount[comm]};
        if (pos >= 0 && (peer < 0 || peer == pos)) {
            q->upeer = -2;
            q->comm = comm;
            q->cidx = cp->r[ri].ccount[comm];
        }
    }
}

/* The unfinished collectives' waits, now that every rank is replayed: the
 * peer is the first member (by position) that never entered the instance,
 * -1 when all did (the call hung inside MPI) or none has a file. */
static void unfinished_waits(struct an_cp *cp)
{
    for (unsigned i = 0; i < cp->nuw; i++) {
        const struct uwait *u = &cp->uw[i];
        const struct an_comm *cm = &cp->run->comms[u->comm];
        int peer = -1;
        for (uint32_t k = 0; k < cm->size && peer < 0; k++) {
            int32_t w = cm->members ? cm->members[k] : (int32_t)k;
            int s = w >= 0 && w < cp->run->size ? cp->run->slot[w] : -1;
            if (s < 0 || s == u->ri || cp->r[s].ccount[u->comm] > u->cidx) continue;   /* entered it */
            if (cp->uin && cp->uin[s].comm == u->comm && cp->uin[s].cidx == u->cidx) continue;   /* in it too */
            peer = s;
        }
        wait_note(cp, u->ri, u->kind, u->site, u->name, peer, u->w);
    }
    cp->nuw = 0;
}

/* MPI_Probe, MPI_Iprobe (found something or not: the record does not
 * say): it waits, as a receive would, for the send of the message that the
 * thread's next receive takes from what it probed (docs/CRITPATH.md). */
static void probe_note(struct an_cp *cp, const struct an_rank *rk, struct cp_rank *r, const struct mlr_event *ev,
                       struct qev *q)
{
    const struct ml_p2p *p = &ev->p2p[0];
    if (p->peer == rk->proc_null || p->comm >= rk->ncomms) return;
    q->comm = rk->comm[p->comm];
    q->pos = p->peer == rk->any_source ? -1 : an_peer_world(cp->run, rk, p->comm, p->peer);
    if (q->comm >= cp->run->ncomms || (p->peer != rk->any_source && q->pos < 0)) return;
    q->root = p->tag < 0 ? -1 : p->tag;
    q->flags |= QF_PROBE;
    r->nprobe++;
}

/* MPI_Test, Testany, Testsome, Testall that completed nothing (a poll, or a
 * run of them): it waits, as MPI_Wait would, for the send of the message
 * that the thread's next call completing a request completes, if that is a
 * receive; else it was local (docs/CRITPATH.md). */
static void tpoll_note(struct cp_rank *r, struct qev *q)
{
    q->comm = 0;
    q->pos = q->root = -1;
    q->flags |= QF_PROBE | QF_TPOLL;
    r->nprobe++;
}

/* The thread's next call that completes a receive (q, not queued yet)
 * decides its queued probes; its next call that completes any request, its
 * queued test polls: one of its messages fits what a probe asked
 * for (communicator, source, tag): the probe waits for that send; none
 * does, or MPI_Finalize came first: the probe is local. */
static void probe_target(struct an_cp *cp, int ri, const struct qev *q, const struct an_op *ops, unsigned nops,
                         unsigned nrecv)
{
    struct cp_rank *r = &cp->r[ri];
    for (unsigned i = 0; i < r->qn && r->nprobe; i++) {
        struct qev *p = &r->q[(r->qh + i) & (r->qcap - 1)];
        if (!(p->flags & QF_PROBE) || (p->flags & (QF_PTGT | QF_PNONE)) || p->thread != q->thread) continue;
        if (!nrecv && !(q->flags & QF_FIN) && !(p->flags & QF_TPOLL)) continue;   /* a probe waits for a receive */
        p->flags |= QF_PNONE;
        r->nprobe--;
        for (unsigned k = 0; k < nops && !(q->flags & QF_FIN); k++) {
            const struct an_op *o = &ops[k];
            int tp = !!(p->flags & QF_TPOLL);   /* a test poll: any message the call completes */
            if ((o->kind != AN_OP_RECV && o->kind != AN_OP_RECV_DONE) || o->peer < 0 || o->peer >= cp->run->size ||
                cp->run->slot[o->peer] < 0 || (!tp && o->comm != p->comm) || (!tp && p->pos >= 0 && o->peer != p->pos) ||
                (!tp && p->root >= 0 && o->tag != p->root))
                continue;
            p->flags = (uint16_t)((p->flags & ~QF_PNONE) | QF_PTGT);
            p->cidx = (uint64_t)q->lt0;
            p->pos = cp->run->slot[o->peer];
            break;
        }
    }
    /* A tight run of polls went on until the same loop's next poll (the one
     * that found the message, or completed its request): time between them
     * is the rank off its CPU, not work (a loaded node: preempted just as
     * the message came); polling, so what of it follows the send's start is
     * on the path, and not beside it as computation. */
    for (unsigned i = 0; i < r->qn; i++) {
        struct qev *p = &r->q[(r->qh + i) & (r->qcap - 1)];
        if ((p->flags & (QF_TIGHT | QF_PTGT)) != (QF_TIGHT | QF_PTGT) || p->cidx != (uint64_t)q->lt0 ||
            p->thread != q->thread || p->nlight)
            continue;
        const struct qev *n = NULL;
        for (unsigned j = i + 1; j < r->qn && !n; j++) {
            const struct qev *x = &r->q[(r->qh + j) & (r->qcap - 1)];
            if (x->thread == q->thread) n = x;
        }
        if (n && (!(n->flags & QF_PTGT) || n->cidx != (uint64_t)q->lt0)) continue;   /* another call between */
        if (!n) n = q;
        if (n->site == p->site && n->t0 > p->t1) p->t1 = n->t0;
    }
    set_ready(cp, ri);
}

/* A nonblocking collective started: its member is remembered under its
 * request handle (a handle is reused once completed: forgotten then). */
static void nb_start(struct an_cp *cp, int ri, uint64_t handle, struct qev *q)
{
    struct nbreq *b = malloc(sizeof *b);
    if (!b) {
        cp->failed = 1;
        return;
    }
    b->comm = q->comm;
    b->pos = q->pos;
    b->cidx = q->cidx;
    int err = 0;
    free(map_swap(&cp->nbreq, (uint64_t)(uint32_t)ri, (int64_t)handle, b, &err));   /* one never completed */
    if (err) {
        free(b);
        cp->failed = 1;
        return;
    }
    q->flags |= QF_NBC;
}

/* A Wait/Test call completed requests: those of nonblocking collectives
 * make it depend on the instances' members (phase_b). */
static void nb_complete(struct an_cp *cp, int ri, const struct mlr_event *ev, struct qev *q)
{
    struct nbw *w = NULL;
    for (uint32_t i = 0; i < ev->ndone; i++) {
        int64_t h = (int64_t)ev->done[i].request;
        struct nbreq *b = map_get(&cp->nbreq, (uint64_t)(uint32_t)ri, h);
        if (!b) continue;
        if (!w) {
            w = malloc(sizeof *w + (ev->ndone - i) * sizeof w->d[0]);
            if (!w) {
                cp->failed = 1;
                return;
            }
            w->n = 0;
        }
        w->d[w->n++] = *b;
        map_del(&cp->nbreq, (uint64_t)(uint32_t)ri, h);
        free(b);
    }
    if (!w) return;
    q->nbw = w;
    q->flags |= QF_NBW;
}

/* The root a member of an inter-communicator's collective named: a
 * position in the other group, -2 MPI_ROOT, -3 MPI_PROC_NULL (or none). */
static int32_t inter_root(struct an_cp *cp, const struct an_rank *rk, const struct an_comm *cm, const struct ml_coll *c)
{
    int w = c->root >= 0 ? an_peer_world(cp->run, rk, c->comm, c->root) : -1;
    return c->root == rk->mpi_root ? -2 : w >= 0 ? member_pos(cp->run, cm, w) : -3;
}

/* MPI_Start(all) of persistent collectives (match.c, AN_OP_COLL_START):
 * each a nonblocking collective started, its instance the communicator's
 * next, its entry published at the call (phase_a, the list in q->nbw) and
 * waited for by the call that completes its request.  Returns how many. */
static unsigned pcoll_starts(struct an_cp *cp, int ri, const struct an_rank *rk, const struct an_op *ops,
                             unsigned nops, struct qev *q)
{
    struct cp_rank *r = &cp->r[ri];
    struct nbw *w = NULL;
    for (unsigned i = 0; i < nops; i++) {
        const struct an_op *o = &ops[i];
        if (o->kind != AN_OP_COLL_START || o->comm >= cp->run->ncomms) continue;
        const struct an_comm *cm = &cp->run->comms[o->comm];
        if (cm->inter && cm->lsize >= cm->size) continue;   /* (its two groups not known: local) */
        int32_t pos = member_pos(cp->run, cm, rk->rank);
        if (pos < 0) continue;
        if (!w) {
            if (!(w = malloc(sizeof *w + (nops - i) * sizeof w->d[0]))) {
                cp->failed = 1;
                return 0;
            }
            w->n = 0;
        }
        struct nbreq *d = &w->d[w->n++];
        d->comm = o->comm;
        d->pos = pos;
        d->cidx = r->ccount[o->comm]++;
        d->root = (o->coll.root >= 0 && (uint32_t)o->coll.root < cm->size) ? o->coll.root : -1;
        if (cm->inter) d->root = inter_root(cp, rk, cm, &o->coll);
        d->name = o->name;
        int64_t bw = 0, lat = 0;
        const char *nm = o->name < cp->run->nnames ? cp->run->names[o->name] : "";
        coll_cost(cp, nm, cm->size, cm->inter ? d->root == -2 : d->root >= 0 && d->root == pos, o->coll.bytes,
                  o->coll.rbytes, &bw, &lat);
        q->bw = an_sadd(q->bw, bw);
        q->lat = an_sadd(q->lat, lat);
        q->sbytes += o->coll.bytes;
        struct nbreq *b = malloc(sizeof *b);
        int err = !b;
        if (b) {
            *b = *d;
            free(map_swap(&cp->nbreq, (uint64_t)(uint32_t)ri, (int64_t)o->req, b, &err));   /* one never completed */
            if (err) free(b);
        }
        if (err) cp->failed = 1;
    }
    if (!w) return 0;
    q->nbw = w;
    return w->n;
}

/* ---- synchronous isends (struct ssnd, struct swt) -------------------------------- */

static void ss_unlink(struct an_cp *cp, struct ssnd *x)
{
    struct ssnd *h = map_get(&cp->scall, x->ck, x->lt0);
    if (h == x) {
        if (!x->next) map_del_p(&cp->scall, x->ck, x->lt0, x);
        else if (map_put(&cp->scall, x->ck, x->lt0, x->next)) cp->failed = 1;
    } else {
        for (struct ssnd *p = h; p; p = p->next)
            if (p->next == x) {
                p->next = x->next;
                break;
            }
    }
    x->next = NULL;
    x->in_scall = 0;
}

/* Did the completing call w wait for m's receive: a blocking one that
 * began while w was on (as msg_sync for a blocking synchronous send)? */
static int ss_ties(const struct an_cp *cp, const struct cmsg *m, const struct swt *w)
{
    if (!recv_posted(cp, m)) return 0;
    int64_t t = aligned(cp, m->dst, m->recv_lt0);
    return t > w->t0 && t < w->t1;
}

/* w waits for m's receiver: 0, or -1 (memory) */
static int ss_out(struct an_cp *cp, struct swt *w, struct cmsg *m)
{
    if (w->nout == w->capout) {
        unsigned nc = w->capout ? 2 * w->capout : 2;
        struct cmsg **n = realloc(w->out, nc * sizeof *n);
        if (!n) {
            cp->failed = 1;
            return -1;
        }
        w->out = n;
        w->capout = nc;
    }
    w->out[w->nout++] = m;
    return 0;
}

/* Drop a message held for a completion that does not wait for it: its
 * receiver kept its post for it (m->sync) and lets it go itself if it has
 * not been replayed yet (it holds the other reference), else it goes here. */
static void ss_untie(struct an_cp *cp, struct cmsg *m)
{
    if (m->sync) {
        if (m->refs > 1) {
            m->sync = 0;
        } else {
            struct snap *s = map_get(&cp->snaps, ckey(m->dst, m->recv_th), m->recv_lt0);
            if (s) {
                if (s->refs <= 1) map_del_p(&cp->snaps, ckey(m->dst, m->recv_th), m->recv_lt0, s);
                snap_release(cp, s);
            }
        }
    }
    msg_done(cp, m);
}

/* An ISEND op of a synchronous send (an_op.name MPI_Issend or
 * MPI_Ssend_init) with an activation: remembered until its completion and
 * its message are seen. */
static void ss_open(struct an_cp *cp, int ri, const struct qev *q, const struct an_op *o,
                                              int unfinished)
{
    if (!o->req || unfinished || o->peer >= cp->run->size || cp->run->slot[o->peer] < 0) return;
    struct ssnd *x = calloc(1, sizeof *x);
    if (!x) {
        cp->failed = 1;
        return;
    }
    x->ck = ckey(ri, q->thread);
    x->lt0 = q->lt0;
    x->req = o->req;
    x->dst = o->peer;
    x->comm = o->comm;
    x->tag = o->tag;
    int err = 0;
    struct ssnd *old = map_swap(&cp->sreq, (uint64_t)(uint32_t)ri, (int64_t)o->req, x, &err);
    if (err) {
        free(x);
        cp->failed = 1;
        return;
    }
    if (old) {                /* (ids are unique per rank: a damaged stream) */
        old->in_sreq = 0;
        if (old->in_scall) ss_unlink(cp, old);
        if (old->m) ss_untie(cp, old->m);
        free(old);
    }
    x->in_sreq = 1;
    x->next = map_swap(&cp->scall, x->ck, x->lt0, x, &err);
    if (err) {
        x->next = NULL;
        cp->failed = 1;
        return;
    }
    x->in_scall = 1;
}

/* A SEND_DONE or CANCELLED op of the call q: if it closes a synchronous
 * isend's activation and q is a Wait/Test completing it (completes), q
 * will depend on its receive's posting when that is a blocking receive
 * that began while q was on (QF_SYNC, an_cp.swait); freed, cancelled or
 * abandoned, it ties nothing. */
static void ss_complete(struct an_cp *cp, int ri, struct qev *q, const struct an_op *o, int completes)
{
    struct ssnd *x = map_get(&cp->sreq, (uint64_t)(uint32_t)ri, (int64_t)o->req);
    if (!x) return;
    map_del_p(&cp->sreq, (uint64_t)(uint32_t)ri, (int64_t)o->req, x);
    x->in_sreq = 0;
    struct swt *w = NULL;
    if (completes) {
        w = map_get(&cp->swait, ckey(ri, q->thread), q->lt0);
        if (!w && (w = calloc(1, sizeof *w))) {
            w->t0 = q->t0;
            w->t1 = q->t1;
            if (map_add(&cp->swait, ckey(ri, q->thread), q->lt0, w)) {
                free(w);
                w = NULL;     /* (two calls of a thread with one start: a damaged file) */
            }
        }
        if (w) q->flags |= QF_SYNC;
    }
    if (!w) {
        if (x->in_scall) ss_unlink(cp, x);
        if (x->m) ss_untie(cp, x->m);
        free(x);
        return;
    }
    if (x->m) {               /* its message came first: decided now */
        struct cmsg *m = x->m;
        if (!ss_ties(cp, m, w) || ss_out(cp, w, m)) ss_untie(cp, m);   /* (else the reference goes with it) */
        free(x);
        return;
    }
    x->w = w;
    w->pending++;
}

/* A message matched: if it is a synchronous isend's, tie it to the call
 * completing it (or hold it until that is seen); that call's rank is tried
 * again (at once where it waits for this message's receiver: m->sync). */
static __attribute__((noinline)) void ss_message(struct an_cp *cp, struct cmsg *m, const struct an_msg *msg, int si)
{
    struct ssnd *x = map_get(&cp->scall, ckey(si, m->send_th), m->send_lt0);
    while (x && (x->dst != msg->dst || x->comm != msg->comm || x->tag != msg->tag)) x = x->next;
    if (!x) return;
    ss_unlink(cp, x);
    struct swt *w = x->w;
    if (w) {
        free(x);
        w->pending--;
        if (w->done) {        /* its call went on without it (past its time) */
            if (!w->pending) free(w);
            return;
        }
        if (ss_ties(cp, m, w) && !ss_out(cp, w, m)) {
            m->sync = 1;      /* the receiver keeps its post for w */
            m->refs++;
        }
        set_ready(cp, si);
        return;
    }
    if (recv_posted(cp, m)) {
        /* matched before its completion was seen (within the stream's
         * slack): the receiver keeps its post until that is */
        m->sync = 1;
        m->refs++;
        x->m = m;
        return;
    }
    map_del_p(&cp->sreq, (uint64_t)(uint32_t)x->ck, (int64_t)x->req, x);   /* an MPI_Irecv: nothing to tie */
    free(x);
    if (!cp->sreq.live) cp->ss_tab = cp->ss_name;
}

/* The ops of an event for the synchronous isends: an ISEND of one
 * (an_op.name, always a name index for an ISEND, is MPI_Issend or
 * MPI_Ssend_init), a completion of one.  Called for the events that may
 * start one, and for every event while some are open (an_cp.ss_tab). */
static __attribute__((noinline)) void ss_ops(struct an_cp *cp, int ri, struct qev *q, const struct mlr_event *ev,
                                             const struct an_op *ops, unsigned nops)
{
    for (unsigned i = 0; i < nops; i++) {
        const struct an_op *o = &ops[i];
        if (o->kind == AN_OP_ISEND && cp->sync_name[o->name] == 3 && o->peer >= 0)
            ss_open(cp, ri, q, o, ev->unfinished);
        else if ((o->kind == AN_OP_SEND_DONE || o->kind == AN_OP_CANCELLED) && cp->sreq.live)
            ss_complete(cp, ri, q, o, o->kind == AN_OP_SEND_DONE && !ev->unfinished && (cp->done_name[q->name] & 1));
    }
    cp->ss_tab = cp->sreq.live ? cp->ss_all : cp->ss_name;
}

/* What the synchronous isends still hold when the pass is freed. */
static void ss_free_all(struct an_cp *cp)
{
    for (size_t i = 0; i < cp->scall.cap; i++) {
        struct ssnd *x = cp->scall.t[i].p;
        if (!x || (void *)x == TOMB) continue;
        for (struct ssnd *nx; x; x = nx) {
            nx = x->next;
            x->in_scall = 0;
            if (x->w && !--x->w->pending && x->w->done) free(x->w);   /* (its out list went at its phase B) */
            if (!x->in_sreq) free(x);
        }
    }
    for (size_t i = 0; i < cp->sreq.cap; i++) {
        struct ssnd *x = cp->sreq.t[i].p;
        if (!x || (void *)x == TOMB) continue;
        if (x->m && --x->m->refs == 0) free(x->m);
        free(x);
    }
    for (size_t i = 0; i < cp->swait.cap; i++) {
        struct swt *w = cp->swait.t[i].p;
        if (!w || (void *)w == TOMB) continue;
        for (unsigned k = 0; k < w->nout; k++)
            if (--w->out[k]->refs == 0) free(w->out[k]);
        free(w->out);
        free(w);
    }
    free(cp->scall.t);
    free(cp->sreq.t);
    free(cp->swait.t);
}

CP_INLINE void on_event(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    struct an_cp *cp = ctx;
    const struct an_rank *rk = e->r;
    int ri = cp->run->slot[rk->rank];   /* (rk - ranks: a division by the struct's size) */
    struct cp_rank *r = &cp->r[ri];
    const struct mlr_event *ev = &e->ev;
    cp->events++;
    cp->now = e->t0;
    /* the event is written where it would wait in the rank's queue (a
     * light call or one replayed at once leaves the slot free again) */
    if (r->qn == r->qcap && qgrow(cp, r)) return;
    if (!r->qn) r->qh = 0;    /* an empty queue starts again at its first slot (stays in cache) */
    struct qev *q = &r->q[(r->qh + r->qn) & (r->qcap - 1)];
    /* every field set here (no memset: this runs once per event) */
    q->t0 = e->t0;
    q->t1 = e->t1 > e->t0 ? e->t1 : e->t0;
    q->lt0 = ev->start_ns;
    q->thread = ev->thread;
    q->comp_extra = 0;
    q->flags = 0;
    q->nrecv = q->nsend = 0;
    q->sbytes = 0;
    q->bw = q->lat = 0;
    q->comm = 0;
    q->cidx = 0;
    q->phase = 0;
    q->in_ver = 0;
    q->in = NULL;
    q->own = NULL;
    q->nbw = NULL;
    q->site = ev->site;
    q->pos = q->root = -1;
    q->nlight = 0;
    int known = ev->routine < rk->nroutines;
    q->name = known ? rk->name[ev->routine] : 0;
    int role = known ? rk->role[ev->routine] : AN_OTHER;
    if (ev->repeat && ev->repeat_end_ns > ev->end_ns) {
        /* a run of polls: their time inside the calls, the rest computation;
         * but a loop that did nothing between its polls (less than
         * CP_TIGHT_NS a poll on average, its time inside them recorded)
         * polled all the span: its time between them is waiting too */
        int64_t span = an_wsub(ev->repeat_end_ns, ev->end_ns), rep = an_repeat_ns(ev);
        if (ev->repeat_busy_ns >= 0 && span - rep < an_smul(CP_TIGHT_NS, ev->repeat)) {
            rep = span;
            q->flags |= QF_TIGHT;
        }
        q->t1 = an_wadd(q->t1, rep);
        q->comp_extra = span - rep;
    }
    if (role == AN_INIT) q->flags |= QF_INIT;
    if (role == AN_FINALIZE) q->flags |= QF_FIN;
    if (ev->unfinished) unfinished(cp, rk, ev, role, q);
    /* synchronous isends: started (MPI_Issend, MPI_Start), or completed
     * while some are open (one test per event where there are none) */
    if (cp->ss_tab[q->name]) ss_ops(cp, ri, q, ev, ops, nops);
    unsigned nsend = 0, nrecv = 0;
    for (unsigned i = 0; i < nops; i++) {
        const struct an_op *o = &ops[i];
        if (o->kind == AN_OP_SEND || o->kind == AN_OP_ISEND) {
            if (o->peer < 0) continue;
            nsend++;
            q->sbytes += o->bytes;
            q->bw = an_sadd(q->bw, an_d2i(cp->o.beta_ns * o->bytes));
            q->lat = an_sadd(q->lat, an_d2i(cp->o.alpha_ns));
            uint8_t sy = o->kind == AN_OP_SEND && q->name < cp->run->nnames ? cp->sync_name[q->name] : 0;
            if (sy == 1 || (sy == 2 && o->bytes >= cp->o.eager)) q->flags |= QF_SYNC;
        } else if ((o->kind == AN_OP_RECV || o->kind == AN_OP_RECV_DONE) && o->peer >= 0 &&
                   o->peer < cp->run->size && cp->run->slot[o->peer] >= 0) {
            nrecv++;
        }
    }
    q->nsend = (uint16_t)nsend;
    q->nrecv = (uint16_t)nrecv;
    int heavy = nsend || ev->repeat;   /* (the light test reads these, not q's 16-bit fields just written) */
    if (q->nrecv && ev->type == ML_REC_COMPLETE) q->flags |= QF_COMPLETE;
    if (ev->type == ML_REC_P2P || ev->type == ML_REC_SENDRECV)
        if (role == AN_RECV || role == AN_SENDRECV || role == AN_MPROBE) q->flags |= QF_BRECV;
    if (ev->type == ML_REC_COLL && !(role == AN_COLL_INIT && ev->request)) {   /* (a persistent init: local) */
        const struct ml_coll *c = &ev->coll;
        uint32_t comm = c->comm < rk->ncomms ? rk->comm[c->comm] : UINT32_MAX;
        /* (a collective on an inter-communicator whose two groups are known too) */
        if (comm < cp->run->ncomms &&
            (!cp->run->comms[comm].inter || cp->run->comms[comm].lsize < cp->run->comms[comm].size)) {
            const struct an_comm *cm = &cp->run->comms[comm];
            heavy = 1;
            q->flags |= QF_COLL;
            if (ev->request) q->flags |= QF_NB;   /* nonblocking: local here, synchronised at its completion */
            q->comm = comm;
            q->pos = member_pos(cp->run, cm, rk->rank);
            if (q->pos < 0) q->flags &= ~QF_COLL;
            else q->cidx = r->ccount[comm]++;
            q->root = (c->root >= 0 && (uint32_t)c->root < cm->size) ? c->root : -1;
            if (cm->inter) q->root = inter_root(cp, rk, cm, c);
            q->sbytes = c->bytes;
            const char *nm = q->name < cp->run->nnames ? cp->run->names[q->name] : "";
            coll_cost(cp, nm, cm->size, cm->inter ? q->root == -2 : q->root >= 0 && q->root == q->pos, c->bytes,
                      c->rbytes, &q->bw, &q->lat);
            if (q->flags & QF_NB) {
                /* its bytes and cost count at the call (phase A), its entry
                 * is published there, the call completing it waits */
                if (q->flags & QF_COLL) nb_start(cp, ri, ev->request, q);
                q->flags &= ~QF_COLL;
                q->sbytes = c->bytes;
            }
        }
    }
    if (q->flags & QF_NB) q->flags &= ~QF_NB;
    if (role == AN_START && nops && pcoll_starts(cp, ri, rk, ops, nops, q)) heavy = 1;
    if (ev->type == ML_REC_COMPLETE && cp->nbreq.live && q->name < cp->run->nnames && cp->done_name[q->name])
        nb_complete(cp, ri, ev, q);
    if (q->flags & QF_UNFIN) q->nrecv = nrecv = 0;   /* it never completed: nothing came to wait for */
    if (r->nprobe && (nrecv || (q->flags & QF_FIN) || (ev->type == ML_REC_COMPLETE && ev->ndone)))
        probe_target(cp, ri, q, ops, nops, nrecv);
    /* (an MPI_Improbe that found nothing is a poll as MPI_Iprobe's; the one
     * that found the message takes it, as a receive) */
    if ((role == AN_PROBE || role == AN_IMPROBE) && ev->type == ML_REC_P2P && !ev->unfinished)
        probe_note(cp, rk, r, ev, q);
    else if (ev->type == ML_REC_COMPLETE && !ev->ndone && !ev->unfinished && q->name < cp->run->nnames &&
             (cp->done_name[q->name] & 2))
        tpoll_note(r, q);
    if (!heavy && !nrecv && !q->flags && (int)q->name != cp->pcontrol_name) {
        /* a light call: at once, or behind the last qev queued */
        if (!r->qn) {
            light(cp, ri, q->t0, q->t1, q->site, q->name);
            drain_others(cp, ri, 0);
            return;
        }
        struct qev *tail = &r->q[(r->qh + r->qn - 1) & (r->qcap - 1)];
        if (tail->nlight < UINT16_MAX && (r->ln < r->lcap || !lgrow(cp, r))) {
            struct lev *l = &r->lq[(r->lh + r->ln) & (r->lcap - 1)];
            l->t0 = q->t0;
            l->t1 = q->t1;
            l->site = q->site;
            l->name = q->name;
            r->ln++;
            tail->nlight++;
            if (!r->ready && !timed_out(cp, r)) return;
            drain(cp, ri, 0);
            return;
        }
    }
    if (!r->qn && !q->nrecv && !(q->flags & (QF_COLL | QF_SYNC | QF_BRECV | QF_NBW | QF_PROBE))) {
        /* nothing to wait for, nothing queued before it: replayed at once */
        phase_a(cp, ri, q);
        phase_b_local(cp, ri, q);
        drain_others(cp, ri, 0);
        return;
    }
    int waiting = r->qn > 0;
    r->qn++;
    /* queued behind a call that waits: tried only once what it waits for may
     * have come (it was woken) or its time is up */
    if (waiting && !r->ready && !timed_out(cp, r)) return;
    drain(cp, ri, 0);
}

CP_INLINE void on_message(void *ctx, const struct an_msg *msg)
{
    struct an_cp *cp = ctx;
    if (!msg->recv_done || msg->src < 0 || msg->dst < 0 || msg->src >= cp->run->size || msg->dst >= cp->run->size)
        return;
    int si = cp->run->slot[msg->src], di = cp->run->slot[msg->dst];
    if (si < 0 || di < 0) return;
    struct cmsg *m = cp->free_msgs;
    if (m) {
        cp->free_msgs = m->next;
        memset(m, 0, sizeof *m);
    } else if (!(m = calloc(1, sizeof *m))) {
        cp->failed = 1;
        return;
    }
    m->src = si;
    m->dst = di;
    m->send_lt0 = msg->send.t0;
    m->recv_lt0 = msg->recv.t0;
    m->send_th = msg->send.thread;
    m->recv_th = msg->recv.thread;
    m->bytes = msg->bytes;
    m->send_name = msg->send.name;
    m->recv_name = msg->recv.name;
    m->send_site = msg->send.site;
    m->sync = msg_sync(cp, m, si, di, msg);
    m->refs = 1;
    if (++cp->r[di].in_ver == 0) cp->r[di].in_ver = 1;
    int err = 0;
    m->next = map_swap(&cp->inbox, ckey(di, m->recv_th), m->recv_lt0, m, &err);
    if (err) cp->failed = 1;
    if (m->sync) {            /* the sender's phase B takes the receiver's post */
        int e = map_add(&cp->outbox, ckey(si, m->send_th), m->send_lt0, m);
        if (e < 0) cp->failed = 1;
        if (e) m->sync = 0;   /* key taken (no memory, or two sends with one start): not synchronous */
        else m->refs++;
    }
    if (cp->scall.live) ss_message(cp, m, msg, si);
    /* the receiver can use the message once the sender's edge value is
     * published: until then it waits for that, not for this (or for its time
     * to be up) */
    m->snap = map_get(&cp->snaps, ckey(si, m->send_th), m->send_lt0);
    if (m->snap || timed_out(cp, &cp->r[di])) set_ready(cp, di);
    else wl_add(cp, &cp->r[si].wl, di, m->send_th, m->send_lt0);
    if (m->sync) set_ready(cp, si);
    if (cp->r[di].ready) drain(cp, di, 0);
    if (m->sync) drain(cp, si, 0);
}

static void cp_event(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    on_event(ctx, e, ops, nops);
}

static void cp_message(void *ctx, const struct an_msg *msg)
{
    on_message(ctx, msg);
}

struct an_sink an_cp_sink(struct an_cp *cp)
{
    struct an_sink s = {cp, cp_event, cp_message, NULL};
    return s;
}

/* ---- results ---------------------------------------------------------------------- */

static int kv_cmp(const void *a, const void *b)
{
    const struct an_cp_kv *x = a, *y = b;
    if (x->val != y->val) return x->val > y->val ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int ws_cmp(const void *a, const void *b)
{
    const struct an_cp_wsite *x = a, *y = b;
    if (x->time != y->time) return x->time > y->time ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The breakdown of a path: the sums of the nodes from its end back. */
static int path_breakdown(struct an_cp *cp, struct node *end, struct an_cp_path *p)
{
    struct node acc;
    memset(&acc, 0, sizeof acc);
    for (struct node *n = end; n; n = n->parent)
        for (unsigned i = 0; i < n->nkv; i++) kv_add(cp, &acc, n->kv[i].key, n->kv[i].val);
    if (acc.nkv) qsort(acc.kv, acc.nkv, sizeof *acc.kv, kv_cmp);
    free(acc.ix);
    p->by = acc.kv;
    p->nby = acc.nkv;
    return cp->failed ? -1 : 0;
}

int an_cp_finish(struct an_cp *cp)
{
    struct an_run *run = cp->run;
    struct an_cp_result *res = &cp->res;
    /* whatever still waits: its partner is not in the trace */
    cp->now = INT64_MIN;
    for (unsigned i = 0; i < run->n; i++) drain(cp, (int)i, 1);
    for (unsigned i = 0; i < run->n; i++)
        if (cp->r[i].qn) drain(cp, (int)i, 1);
    unfinished_waits(cp);
    res->nranks = run->n;
    res->ranks = calloc(run->n ? run->n : 1, sizeof *res->ranks);
    if (!res->ranks) return -1;
    int64_t wfrom = INT64_MAX, wto = INT64_MIN;
    for (unsigned i = 0; i < run->n; i++) {
        struct cp_rank *r = &cp->r[i];
        struct an_cp_rank *o = &res->ranks[i];
        o->rank = run->ranks[i].rank;
        o->start = r->open;
        o->end = r->finished ? r->close : (r->last < r->close ? r->last : r->close);
        if (r->last == INT64_MIN) o->start = o->end = 0;
        o->comp = r->useful_comp;
        o->comm = r->useful_comm;
        memcpy(o->wait, r->wait, sizeof o->wait);
        memcpy(o->total, r->total, sizeof o->total);
        o->finished = r->finished;
        o->undecided = r->undecided;
        res->undecided += r->undecided;
        if (!r->finished) res->unfinished++;
        for (int k = 0; k < AN_CP_NW; k++) res->wait_total[k] = an_sadd(res->wait_total[k], r->wait[k]);
        if (r->last != INT64_MIN && !(cp->any_pcontrol && !r->pcontrol)) {
            if (o->start < wfrom) wfrom = o->start;
            if (o->end > wto) wto = o->end;
        }
    }
    if (cp->any_pcontrol) {
        res->source = "MPI_Pcontrol";
        for (unsigned i = 0; i < run->n; i++)
            if (!cp->r[i].pcontrol) res->pcontrol_never_opened++;
    }
    /* what the window is, in words */
    int closed = 0;
    for (unsigned i = 0; i < run->n; i++) closed |= cp->r[i].pcontrol >= 2;
    int init = 1;             /* every rank from the end of its MPI_Init */
    for (unsigned i = 0; i < run->n; i++) init &= cp->r[i].seen_init;
    res->from_what = cp->any_pcontrol            ? "MPI_Pcontrol"
                     : cp->o.from_ns != INT64_MIN ? "--from"
                     : cp->w0 || init            ? "MPI_Init"
                                                 : "first call";
    res->to_what = closed && cp->any_pcontrol  ? "MPI_Pcontrol"
                   : cp->o.to_ns != INT64_MAX ? "--to"
                   : res->unfinished          ? "end of records"
                                              : "MPI_Finalize";
    if (res->from == INT64_MIN || cp->any_pcontrol) res->from = wfrom == INT64_MAX ? 0 : wfrom;
    if (res->to == INT64_MAX) res->to = wto == INT64_MIN ? 0 : wto;
    for (int m = 0; m < AN_CP_NM; m++) {
        struct an_cp_path *p = &res->m[m];
        p->end_rank = -1;
        p->per_process_rank = -1;
        int best = -1;
        double sum = 0;
        unsigned nin = 0;
        for (unsigned i = 0; i < run->n; i++) {
            struct cp_rank *r = &cp->r[i];
            if (cp->any_pcontrol && !r->pcontrol) continue;   /* its window never opened */
            nin++;
            if (best < 0 || r->v[m] > cp->r[best].v[m]) best = (int)i;
            if (p->per_process_rank < 0 || r->total[m] > p->per_process) {
                p->per_process = r->total[m];
                p->per_process_rank = run->ranks[i].rank;
            }
            sum += (double)r->total[m];
        }
        p->volumetric = nin ? sum / nin : 0;
        if (best < 0) continue;
        {                     /* the stretch the path ends with */
            struct cp_rank *rb = &cp->r[best];
            struct node *x = stretch(cp, best, m, rb->base[m], rb->led, rb->sfrom[m]);
            if (x) {
                x->parent = rb->cur[m];
                rb->cur[m] = x;
            }
        }
        p->path = cp->r[best].v[m];
        p->end_rank = run->ranks[best].rank;
        if (path_breakdown(cp, cp->r[best].cur[m], p)) return -1;
        if (m == AN_CP_RUNTIME) {
            for (unsigned k = 0; k < p->nby; k++) {
                if (p->by[k].key & AN_CP_REGION) res->rt_comp = an_sadd(res->rt_comp, p->by[k].val);
                else res->rt_comm = an_sadd(res->rt_comm, p->by[k].val);
            }
            /* segments: the nodes from the end back, one per stretch of a rank */
            unsigned cnt = 0;
            for (struct node *n = cp->r[best].cur[m]; n; n = n->parent)
                if (n->hop || !n->parent) cnt++;
            res->seg = calloc(cnt ? cnt : 1, sizeof *res->seg);
            if (!res->seg) return -1;
            unsigned k = cnt;
            int64_t to = res->ranks[best].end;
            /* a rank that stopped in a call: the path ends where that call began to wait */
            if (cp->r[best].ustop != INT64_MIN && cp->r[best].ustop < to) to = cp->r[best].ustop;
            int64_t gain = 0;
            struct an_cp_segment next = {0};
            next.to_rank = -1;
            next.out_name = UINT16_MAX;
            for (struct node *n = cp->r[best].cur[m]; n; n = n->parent) {
                gain = an_sadd(gain, n->sum);
                if (!(n->hop || !n->parent)) continue;
                struct an_cp_segment *s = &res->seg[--k];
                *s = next;
                s->rank = run->ranks[n->rank].rank;
                /* a stretch may begin before the window opens: it counts from there */
                s->from = n->from > cp->r[n->rank].open ? n->from : cp->r[n->rank].open;
                s->to = to;
                s->on_path = gain;
                res->ranks[n->rank].on_path = an_sadd(res->ranks[n->rank].on_path, gain);
                gain = 0;
                if (n->hop && n->parent) {
                    to = n->parent_t;
                    next.to_rank = s->rank;
                    next.in_name = n->in_name;
                    next.in_site = n->in_site;
                    next.out_name = n->out_name;
                    next.out_site = n->out_site;
                }
            }
            res->nseg = cnt;
        }
    }
    /* wait sites */
    size_t nw = cp->wmap.live, k = 0;
    res->wsites = calloc(nw ? nw : 1, sizeof *res->wsites);
    if (!res->wsites) return -1;
    for (size_t i = 0; i < cp->wmap.cap; i++) {
        struct ment *e = &cp->wmap.t[i];
        if (!e->p || e->p == TOMB) continue;
        res->wsites[k++] = ((struct wsent *)e->p)->w;
    }
    res->nwsites = (unsigned)k;
    if (k) qsort(res->wsites, k, sizeof *res->wsites, ws_cmp);
    res->regions = cp->reg;
    res->nregions = cp->nreg;
    res->events = cp->events;
    res->peak_nodes = cp->peak_nodes;
    return cp->failed ? -1 : 0;
}

const struct an_cp_result *an_cp_result(const struct an_cp *cp)
{
    return &cp->res;
}

static void map_free_all(struct map *m, int what)
{
    for (size_t i = 0; i < m->cap; i++) {
        void *p = m->t[i].p;
        if (!p || p == TOMB) continue;
        if (what == 1) {          /* inbox lists */
            for (struct cmsg *c = p, *nx; c; c = nx) {
                nx = c->next;
                if (--c->refs == 0) free(c);
            }
        } else if (what == 2) {   /* outbox */
            struct cmsg *c = p;
            if (--c->refs == 0) free(c);
        } else if (what == 3) {
            free(p);
        }
    }
    free(m->t);
    memset(m, 0, sizeof *m);
}

void an_cp_free(struct an_cp *cp)
{
    if (!cp) return;
    /* nodes: every holder lets go; what is left is freed with its chain */
    for (size_t i = 0; i < cp->snaps.cap; i++) {
        struct snap *s = cp->snaps.t[i].p;
        if (!s || (void *)s == TOMB) continue;
        snap_drop(cp, s);
        free(s);
    }
    free(cp->snaps.t);
    for (size_t i = 0; i < cp->colls.cap; i++) {
        struct cinst *ci = cp->colls.t[i].p;
        if (!ci || (void *)ci == TOMB) continue;
        for (uint32_t k = 0; k < ci->size; k++)
            if (ci->entry[k].t != INT64_MIN) snap_drop(cp, &ci->entry[k]);
        free(ci->wl.r);
        free(ci->entry);
        free(ci);
    }
    free(cp->colls.t);
    map_free_all(&cp->nbreq, 3);
    ss_free_all(cp);
    map_free_all(&cp->inbox, 1);
    map_free_all(&cp->outbox, 2);
    map_free_all(&cp->wmap, 3);
    map_free_all(&cp->regions, 0);
    for (unsigned i = 0; cp->r && i < cp->run->n; i++) {
        for (int m = 0; m < AN_CP_NM; m++) {
            node_unref(cp, cp->r[i].cur[m]);
            led_unref(cp, cp->r[i].base[m]);
        }
        led_unref(cp, cp->r[i].led);
        cx_drop(cp, &cp->r[i]);
        free(cp->r[i].lkey);
        free(cp->r[i].lmask);
        free(cp->r[i].seen);
        free(cp->r[i].nkey_of);
        free(cp->r[i].nsend_of);
        for (unsigned k = 0; k < cp->r[i].qn; k++) {   /* never replayed (a failed pass) */
            struct qev *q = &cp->r[i].q[(cp->r[i].qh + k) & (cp->r[i].qcap - 1)];
            if ((q->flags & QF_NBW) || q->nbw) free(q->nbw);
        }
        free(cp->r[i].q);
        free(cp->r[i].lq);
        free(cp->r[i].ccount);
        free(cp->r[i].wl.r);
    }
    free(cp->r);
    free(cp->uw);
    free(cp->uin);
    free(cp->ckind);
    free(cp->sync_name);
    free(cp->done_name);
    free(cp->ss_name);
    free(cp->ss_all);
    free(cp->blocked);
    free(cp->rq);
    while (cp->free_nodes) {
        struct node *n = cp->free_nodes;
        cp->free_nodes = n->parent;
        free(n->kv);
        free(n->ix);
        free(n);
    }
    while (cp->free_cx) {
        struct sctx *c = cp->free_cx;
        cp->free_cx = c->next_free;
        free(c);
    }
    while (cp->free_led) {
        struct ledger *l = cp->free_led;
        cp->free_led = l->next_free;
        free(l);
    }
    while (cp->free_snaps) {
        struct snap *x = cp->free_snaps;
        cp->free_snaps = x->next_free;
        free(x);
    }
    while (cp->free_msgs) {
        struct cmsg *x = cp->free_msgs;
        cp->free_msgs = x->next;
        free(x);
    }
    for (int m = 0; m < AN_CP_NM; m++) free(cp->res.m[m].by);
    free(cp->res.seg);
    free(cp->res.ranks);
    free(cp->res.wsites);
    free(cp->reg);
    free(cp);
}

/* ---- tee ---------------------------------------------------------------------------- */

static void tee_event(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    struct an_tee *t = ctx;
    if (t->a.event) t->a.event(t->a.ctx, e, ops, nops);
    if (t->b.event) t->b.event(t->b.ctx, e, ops, nops);
}

static void tee_message(void *ctx, const struct an_msg *m)
{
    struct an_tee *t = ctx;
    if (t->a.message) t->a.message(t->a.ctx, m);
    if (t->b.message) t->b.message(t->b.ctx, m);
}

static void tee_coll(void *ctx, const struct an_coll *c)
{
    struct an_tee *t = ctx;
    if (t->a.coll) t->a.coll(t->a.ctx, c);
    if (t->b.coll) t->b.coll(t->b.ctx, c);
}

/* The report's tee (the profile, then the critical path): the critical
 * path's calls made in place, not through a second pointer (one call less
 * per event). */
static void tee_cp_event(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    struct an_tee *t = ctx;
    if (t->a.event) t->a.event(t->a.ctx, e, ops, nops);
    on_event(t->b.ctx, e, ops, nops);
}

static void tee_cp_message(void *ctx, const struct an_msg *m)
{
    struct an_tee *t = ctx;
    if (t->a.message) t->a.message(t->a.ctx, m);
    on_message(t->b.ctx, m);
}

struct an_sink an_tee_sink(struct an_tee *t)
{
    struct an_sink s = {t, tee_event, tee_message, tee_coll};
    if (t->b.event == cp_event && t->b.message == cp_message && !t->b.coll) {
        s.event = tee_cp_event;
        s.message = tee_cp_message;
    }
    return s;
}
