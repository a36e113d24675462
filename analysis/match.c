/*
 * match.c — every point-to-point message paired send to receive, every
 * collective call grouped into its instance (analysis.h, "matching").
 *
 * MPI's rule: a receive takes the earliest posted send, from the senders it
 * accepts, whose tag it accepts, on its communicator; receives take messages
 * in the order they were posted; messages between one pair of ranks do not
 * overtake.  With the actual source and tag of every receive known (the
 * runtime records them from the status) that is: per channel (communicator,
 * source, destination, tag), the k-th send posted matches the k-th receive
 * posted.  Each channel holds a queue of sends nobody took yet or of
 * receives no send reached yet; one of the two is always empty.
 *
 * Wildcards: the actual source and tag of a nonblocking receive with
 * MPI_ANY_SOURCE or MPI_ANY_TAG are known only at its completion, after
 * later receives may have been posted.  A receive is therefore held back
 * while an earlier receive of the same rank that could take the same
 * message is still unresolved, and released in posting order once it is.
 *
 * Where the calls are:
 *   sends     MPI_Send/Bsend/Ssend/Rsend (P2P), Isend... (P2P_REQ), the send
 *             half of Sendrecv (SENDRECV), MPI_Start of a Send_init request
 *   receives  MPI_Recv, MPI_Mprobe (P2P: actual source, tag, size), Irecv
 *             (P2P_REQ, completed by a COMPLETE record listing its request
 *             with the status), the receive half of Sendrecv, MPI_Start of
 *             a Recv_init request
 *   neither   MPI_Probe/Iprobe (a probe does not consume), MPI_PROC_NULL
 *
 * Memory: the channels and receives in flight, the open requests, and the
 * collective instances not all members have reached; nothing per event.
 */
#include "analysis.h"
#include "exchange.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ANY (-1)                 /* wildcard source or tag inside the matcher */
#define HELD_MAX (1u << 16)      /* receives held behind wildcards, per rank */
#define COLL_WINDOW_MAX (1u << 20)
#define FINDINGS_MAX 4096
#define REPAIR_MAX 10000000000000ll  /* 10^13 ns, almost 3 hours */

/* ---- objects in flight --------------------------------------------------- */

struct psend {                   /* a send no receive took yet */
    struct psend *next;
    struct an_end end;
    uint32_t bytes;
    uint64_t id;                 /* request activation of a nonblocking send, else 0 */
    int64_t at;                  /* a send from another slice: its aligned start */
    int remote;
};

enum {
    RV_RESOLVED = 1,             /* source and tag known */
    RV_RELEASED = 2,             /* in a channel, or paired */
    RV_PAIRED = 4,
    RV_DONE = 8,                 /* completion seen */
    RV_HELD = 16,                /* in the rank's held list */
    RV_ORPHAN = 32,              /* no request will report its completion */
    RV_STATUS = 64,              /* bytes: the received size from a status */
    RV_REMOTE = 128,             /* paired with a send from another slice (send_at) */
};

struct precv {                   /* a receive from posting to its message */
    struct precv *next;          /* channel queue */
    struct precv *hprev, *hnext; /* held list */
    uint32_t comm;
    int32_t src, dst, tag;       /* world ranks; src/tag ANY until resolved */
    uint16_t cidx;               /* communicator definition index in the rank's file */
    uint8_t flags;
    uint32_t bytes;              /* posted size, then received size */
    struct an_end post, done;
    struct an_end send;          /* the paired send */
    uint32_t send_bytes;
    int64_t send_at;             /* RV_REMOTE: its aligned start */
};

struct chan {                    /* (comm, src, dst, tag) */
    struct chan *next;
    uint32_t comm;
    int32_t src, dst, tag;
    struct psend *sh, *st;
    struct precv *rh, *rt;
};

/* COLL: a nonblocking collective's (no message); PCOLL: a persistent
 * collective's (MPI_Allreduce_init ...), each start one operation */
enum { RQ_SEND = 1, RQ_RECV = 2, RQ_COLL = 3, RQ_PCOLL = 4 };

struct req {                     /* open request of a rank, by handle */
    uint64_t handle;             /* 0: empty slot */
    uint8_t kind;
    uint8_t persistent;
    uint16_t cidx;
    uint32_t comm;
    int32_t peer;                /* world rank or ANY (pattern) */
    int32_t peer_comm;
    int32_t tag;
    uint32_t bytes;
    uint64_t id;                 /* current activation (for exporters) */
    uint64_t send_id;            /* MPI_Isendrecv: its send half (0: none) */
    uint8_t nostatus;            /* MPI_Isendrecv whose completion status is not the receive's */
    uint8_t running;             /* an activation started and not completed (persistent: Start..Wait) */
    uint8_t open;                /* an ISEND/IRECV op opened activation `id` for the exporters */
    struct precv *active;        /* receive of the current activation */
    struct an_end start;         /* persistent: the Send_init (name, site) */
    struct ml_coll coll;         /* PCOLL: the init's payload */
    uint16_t pname;              /* PCOLL: the routine each start performs (MPI_Allreduce); a send or
                                  * receive: the routine that made it (MPI_Ssend_init) */
    struct req *succ;            /* the next request with this handle, made while this one */
    int64_t succ_t1;             /* still runs in the stream: end of the call that made it */
    uint32_t succ_thread;        /* and its thread (req_open) */
    int64_t mk_t1;               /* end of the call that made this one, and its thread */
    uint32_t mk_thread;
};

struct rstate {                  /* per rank */
    struct req *reqs;
    unsigned rcap, rn;
    struct precv *hh, *ht;       /* held receives in posting order */
    unsigned nheld, nunresolved;
    uint64_t next_id;
    int32_t *pos;                /* per comm definition: my index in the comm, -2 unknown */
    int64_t sent_hi;             /* latest send start (raw) of a message checked and no longer in the ring */
};

/* The messages most recently checked for causality (analysis.h, "clocks"):
 * when a repair moves a rank's events from t on, the messages it sent from
 * t on that were already checked are checked again from here.  Only one
 * that has left the ring needs another pass (rstate.sent_hi). */
#define CHECKED_RING 65536u
#define RECHECK_DEPTH 64
struct checked {
    int32_t is, id;              /* sender, receiver (index in run->ranks) */
    int64_t s0, r0, r1;          /* send start, receive start and end (raw) */
};

struct cinst {
    struct an_coll_first fa;     /* its routine; mismatched when fa.rankb >= 0 */
    uint32_t arrived;
    int64_t first, last, end;
    uint64_t bytes;
};

struct cstate {                  /* collectives of one communicator */
    uint64_t *count;             /* per member: collectives called */
    uint64_t base;               /* instance index of win[head] */
    struct cinst *win;
    unsigned cap, head, len;
    int overflow;
    int remote;                  /* a sliced run: members in other slices (an_match_coll_parts) */
    struct an_coll_part *part;   /* remote: this slice's arrivals per instance, from pbase on */
    uint64_t npart, cappart;
    uint64_t pbase;              /* remote: the instances before it went to the owner (an_match_coll_ship) */
    uint32_t *local;             /* remote: positions of this slice's members (nlocal), when first shipped */
    uint32_t nlocal;
    int local_set;
};

struct an_match {
    struct an_run *run;
    struct an_sink sink;
    uint64_t parts_held;         /* a sliced run: instances of spanning communicators held (cstate.part) */
    int repair;
    struct rstate *rs;
    struct chan **tab;
    unsigned tab_size, nchan;
    struct cstate *cs;           /* per an_comm */
    uint16_t *pbase;             /* per routine name: what a persistent collective's start performs
                                    (0: not looked up yet; name + 1) */
    struct psend *free_s;
    struct precv *free_r;
    struct chan *free_c;
    struct an_op *ops;
    unsigned nops, ops_cap;
    struct an_finding *find;
    unsigned nfind, find_cap;
    unsigned *find_idx;          /* open addressing over find, FINDINGS_MAX * 2 slots */
    uint64_t inflight;
    struct checked *ring;        /* CHECKED_RING entries, or NULL */
    uint64_t nchecked;
    void (*outbox)(void *ctx, const struct an_send_rec *s);   /* sends to other slices */
    void *outbox_ctx;
    struct an_match_stats st;
};

/* ---- small allocators ------------------------------------------------------ */

static struct psend *psend_new(struct an_match *m)
{
    struct psend *s = m->free_s;
    if (s) m->free_s = s->next;
    else s = malloc(sizeof *s);
    if (s) {
        memset(s, 0, sizeof *s);
        if (++m->inflight > m->st.inflight_max) m->st.inflight_max = m->inflight;
    }
    return s;
}

static void psend_free(struct an_match *m, struct psend *s)
{
    m->inflight--;
    s->next = m->free_s;
    m->free_s = s;
}

static struct precv *precv_new(struct an_match *m)
{
    struct precv *r = m->free_r;
    if (r) m->free_r = r->next;
    else r = malloc(sizeof *r);
    if (r) {
        memset(r, 0, sizeof *r);
        if (++m->inflight > m->st.inflight_max) m->st.inflight_max = m->inflight;
    }
    return r;
}

static void precv_free(struct an_match *m, struct precv *r)
{
    m->inflight--;
    r->next = m->free_r;
    m->free_r = r;
}

/* ---- findings ------------------------------------------------------------ */

static uint64_t fhash(const struct an_finding *f)
{
    uint64_t h = (uint64_t)f->kind * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)f->comm << 32 | (uint32_t)f->rank) * 0xff51afd7ed558ccdull;
    h ^= ((uint64_t)(uint32_t)f->peer << 32 | (uint32_t)f->tag) * 0xc4ceb9fe1a85ec53ull;
    h ^= ((uint64_t)f->name << 32 | f->site) * 0x9E3779B97F4A7C15ull;
    h ^= f->index * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static int fsame(const struct an_finding *a, const struct an_finding *b)
{
    return a->kind == b->kind && a->comm == b->comm && a->rank == b->rank && a->peer == b->peer &&
           a->tag == b->tag && a->name == b->name && a->site == b->site && a->index == b->index &&
           a->name2 == b->name2;
}

static void finding(struct an_match *m, const struct an_finding *f)
{
    if (!m->find_idx) {
        m->find_idx = calloc(FINDINGS_MAX * 2, sizeof *m->find_idx);
        if (!m->find_idx) return;
    }
    unsigned s = (unsigned)(fhash(f) & (FINDINGS_MAX * 2 - 1));
    for (;;) {
        unsigned i = m->find_idx[s];
        if (i == 0) break;
        struct an_finding *g = &m->find[i - 1];
        if (fsame(g, f)) {
            g->count += f->count;
            g->bytes += f->bytes;
            g->unsized &= f->unsized;   /* sizes unknown only when none was known */
            return;
        }
        s = (s + 1) & (FINDINGS_MAX * 2 - 1);
    }
    if (m->nfind >= FINDINGS_MAX) return;  /* the counters in stats still count it */
    if (m->nfind == m->find_cap) {
        unsigned cap = m->find_cap ? m->find_cap * 2 : 64;
        struct an_finding *p = realloc(m->find, cap * sizeof *p);
        if (!p) return;
        m->find = p;
        m->find_cap = cap;
    }
    m->find[m->nfind++] = *f;
    m->find_idx[s] = m->nfind;
}

static void find_end(struct an_match *m, enum an_finding_kind k, uint32_t comm, const struct an_end *e,
                     int32_t peer, int32_t tag, uint64_t bytes)
{
    struct an_finding f;
    memset(&f, 0, sizeof f);
    f.kind = k;
    f.comm = comm;
    f.rank = e->rank;
    f.peer = peer;
    f.tag = tag;
    f.name = e->name;
    f.site = e->site;
    f.count = 1;
    f.bytes = bytes;
    f.unsized = k == AN_F_UNMATCHED_SEND && e->unsized;
    finding(m, &f);
}

/* ---- channels ---------------------------------------------------------------- */

static unsigned chash(uint32_t comm, int32_t src, int32_t dst, int32_t tag)
{
    uint64_t h = ((uint64_t)comm << 32 | (uint32_t)tag) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) * 0xff51afd7ed558ccdull;
    return (unsigned)(h >> 32 ^ h);
}

static void chan_grow(struct an_match *m)
{
    unsigned n = m->tab_size ? m->tab_size * 2 : 1024;
    struct chan **t = calloc(n, sizeof *t);
    if (!t) return;
    for (unsigned i = 0; i < m->tab_size; i++) {
        struct chan *c = m->tab[i], *next;
        for (; c; c = next) {
            next = c->next;
            unsigned b = chash(c->comm, c->src, c->dst, c->tag) & (n - 1);
            c->next = t[b];
            t[b] = c;
        }
    }
    free(m->tab);
    m->tab = t;
    m->tab_size = n;
}

static struct chan *chan_get(struct an_match *m, uint32_t comm, int32_t src, int32_t dst, int32_t tag)
{
    if (m->nchan >= m->tab_size) chan_grow(m);
    if (!m->tab) return NULL;
    unsigned b = chash(comm, src, dst, tag) & (m->tab_size - 1);
    for (struct chan *c = m->tab[b]; c; c = c->next)
        if (c->comm == comm && c->src == src && c->dst == dst && c->tag == tag) return c;
    struct chan *c = m->free_c;
    if (c) m->free_c = c->next;
    else c = malloc(sizeof *c);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->src = src;
    c->dst = dst;
    c->tag = tag;
    c->next = m->tab[b];
    m->tab[b] = c;
    m->nchan++;
    return c;
}

/* Drop a channel whose queues are empty. */
static void chan_put(struct an_match *m, struct chan *c)
{
    if (c->sh || c->rh) return;
    unsigned b = chash(c->comm, c->src, c->dst, c->tag) & (m->tab_size - 1);
    for (struct chan **p = &m->tab[b]; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            c->next = m->free_c;
            m->free_c = c;
            m->nchan--;
            return;
        }
    }
}

/* ---- messages ---------------------------------------------------------------- */

/* A receive that ends before its send began moves the receiving rank's
 * events from the receive on (an_clock_repair).  Its messages from there on
 * that were checked already are checked again (they were checked with
 * their old send times); a repair that reaches a message no longer in the
 * ring, or a chain deeper than RECHECK_DEPTH, counts as late: only another
 * pass can tell. */
static int64_t send_start(const struct an_match *m, const struct checked *c)
{
    if (c->is < 0) return c->s0;  /* a send of another slice: its aligned start as its owner sent it */
    const struct an_clock *k = &m->run->ranks[c->is].clock;
    return an_wadd(an_clock_base(k, c->s0), an_clock_extra(k, c->s0));
}

static void causality(struct an_match *m, const struct checked *c, int depth)
{
    struct an_rank *rd = &m->run->ranks[c->id];
    int64_t s0 = send_start(m, c);
    int64_t r1 = an_wadd(an_clock_base(&rd->clock, c->r1), an_clock_extra(&rd->clock, c->r0));
    if (r1 >= s0) return;
    int64_t late = an_wsub(s0, r1);
    m->st.repaired++;
    if (late <= REPAIR_MAX) m->st.repairable++;
    if (late > m->st.repair_max) m->st.repair_max = late;
    /* more than REPAIR_MAX is no clock error but a broken file */
    if (!m->repair || late > REPAIR_MAX) {
        m->st.repair_skipped++;
        return;
    }
    an_clock_repair(&rd->clock, c->r0, late);
    if (m->rs[c->id].sent_hi >= c->r0 || depth >= RECHECK_DEPTH || !m->ring) {
        m->st.repair_late++;
        return;
    }
    uint64_t n = m->nchecked < CHECKED_RING ? m->nchecked : CHECKED_RING;
    for (uint64_t k = 0; k < n; k++) {
        const struct checked *x = &m->ring[k];
        if (x->is == c->id && x->s0 >= c->r0) causality(m, x, depth + 1);
    }
}

/* A message moved its receive when it ends before its send began by its
 * receiver's clock as corrected for the events before the receive, and no
 * longer does by the correction from the receive on (docs/REPORT.md,
 * "Clock alignment"): counted with the clocks as they are, which only a
 * pass that repairs nothing reads final. */
static void moved(struct an_match *m, const struct checked *c)
{
    const struct an_clock *k = &m->run->ranks[c->id].clock;
    if (!k->nsteps) return;
    int64_t s0 = send_start(m, c), r1 = an_clock_base(k, c->r1);
    if (s0 > an_wadd(r1, an_clock_extra(k, c->r0 - 1)) && s0 <= an_wadd(r1, an_clock_extra(k, c->r0)))
        m->st.moved++;
}

static void emit(struct an_match *m, struct precv *rv)
{
    struct an_msg msg;
    msg.comm = rv->comm;
    msg.src = rv->src;
    msg.dst = rv->dst;
    msg.tag = rv->tag;
    /* a send unfinished when its rank stopped: its size is what was received */
    if (rv->send.unsized && (rv->flags & RV_STATUS)) rv->send_bytes = rv->bytes;
    msg.bytes = rv->send_bytes;
    msg.recv_bytes = rv->bytes;
    msg.send = rv->send;
    msg.recv_done = !!(rv->flags & RV_DONE);
    msg.recv = msg.recv_done ? rv->done : rv->post;
    m->st.messages++;
    m->st.bytes += rv->send_bytes;
    /* MPI delivers what was sent (or fails): another size means a wrong pair */
    if ((rv->flags & RV_STATUS) && rv->bytes != rv->send_bytes && !rv->send.unsized)
        find_end(m, AN_F_SIZE_MISMATCH, rv->comm, &rv->done, rv->src, rv->tag, rv->send_bytes);
    if (msg.recv_done) {
        /* causality: the receive cannot end before the send began */
        struct an_run *run = m->run;
        int is = run->slot[msg.src], id = run->slot[msg.dst];
        if (is < 0 && id >= 0 && (rv->flags & RV_REMOTE)) {
            /* a send of another slice (an_match_remote_send): its receiver
             * is repaired here; the send moves only where its sender is
             * read, so it never enters the ring */
            struct checked c = {-1, id, rv->send_at, msg.recv.t0, msg.recv.t1};
            causality(m, &c, 0);
            moved(m, &c);
            goto out;
        }
        if (is < 0 || id < 0) goto out;
        struct checked c = {is, id, msg.send.t0, msg.recv.t0, msg.recv.t1};
        causality(m, &c, 0);
        moved(m, &c);
        if (m->ring) {
            struct checked *slot = &m->ring[m->nchecked++ % CHECKED_RING];
            if (m->nchecked > CHECKED_RING && slot->s0 > m->rs[slot->is].sent_hi) m->rs[slot->is].sent_hi = slot->s0;
            *slot = c;
        } else if (c.s0 > m->rs[is].sent_hi) {
            m->rs[is].sent_hi = c.s0;
        }
    }
out:
    if (m->sink.message) m->sink.message(m->sink.ctx, &msg);
}

/* A receive whose source and tag are known goes to its channel. */
static void release(struct an_match *m, struct precv *rv)
{
    rv->flags |= RV_RELEASED;
    struct chan *c = chan_get(m, rv->comm, rv->src, rv->dst, rv->tag);
    if (!c) return;
    if (c->sh) {
        struct psend *s = c->sh;
        c->sh = s->next;
        if (!c->sh) c->st = NULL;
        rv->send = s->end;
        rv->send_bytes = s->bytes;
        rv->flags |= RV_PAIRED;
        if (s->remote) {
            rv->flags |= RV_REMOTE;
            rv->send_at = s->at;
        }
        psend_free(m, s);
        chan_put(m, c);
        if (rv->flags & (RV_DONE | RV_ORPHAN)) {
            emit(m, rv);
            precv_free(m, rv);
        }
        return;
    }
    rv->next = NULL;
    if (c->rt) c->rt->next = rv;
    else c->rh = rv;
    c->rt = rv;
}

static int overlaps(const struct precv *w, const struct precv *r)
{
    return w->comm == r->comm && (w->src == ANY || w->src == r->src) && (w->tag == ANY || w->tag == r->tag);
}

static void held_unlink(struct rstate *rs, struct precv *rv)
{
    if (rv->hprev) rv->hprev->hnext = rv->hnext;
    else rs->hh = rv->hnext;
    if (rv->hnext) rv->hnext->hprev = rv->hprev;
    else rs->ht = rv->hprev;
    rv->hprev = rv->hnext = NULL;
    rv->flags &= (uint8_t)~RV_HELD;
    rs->nheld--;
}

static void held_append(struct an_match *m, struct rstate *rs, struct precv *rv)
{
    rv->flags |= RV_HELD;
    rv->hnext = NULL;
    rv->hprev = rs->ht;
    if (rs->ht) rs->ht->hnext = rv;
    else rs->hh = rv;
    rs->ht = rv;
    rs->nheld++;
    if (rs->nheld > m->st.held_max) m->st.held_max = rs->nheld;
}

/* Release, in posting order, every held receive that is resolved and that
 * no earlier unresolved receive could take the message of. */
static void held_flush(struct an_match *m, struct rstate *rs)
{
    struct precv *p = rs->hh, *next;
    for (; p; p = next) {
        next = p->hnext;
        if (!(p->flags & RV_RESOLVED)) continue;
        int blocked = 0;
        for (struct precv *q = rs->hh; q != p && !blocked; q = q->hnext)
            if (!(q->flags & RV_RESOLVED) && overlaps(q, p)) blocked = 1;
        if (blocked && rs->nheld <= HELD_MAX) continue;
        held_unlink(rs, p);
        release(m, p);
    }
}

/* A receive was posted (its pattern in rv). */
static void recv_post(struct an_match *m, struct rstate *rs, struct precv *rv)
{
    if (rs->nunresolved == 0 && (rv->flags & RV_RESOLVED)) {
        release(m, rv);
        return;
    }
    if (rv->flags & RV_RESOLVED) {
        int blocked = 0;
        for (struct precv *q = rs->hh; q && !blocked; q = q->hnext)
            if (!(q->flags & RV_RESOLVED) && overlaps(q, rv)) blocked = 1;
        if (!blocked) {
            release(m, rv);
            return;
        }
    } else {
        rs->nunresolved++;
    }
    held_append(m, rs, rv);
    if (rs->nheld > HELD_MAX) held_flush(m, rs);
}

/* A send was posted. */
/* A send to world rank dst goes to another slice: dst's file is read there
 * (no file: it stays here, unmatched, as in the serial analysis). */
static int shipped(const struct an_run *run, int32_t dst)
{
    return !run->slice || (dst >= 0 && dst < run->size && run->slice->owner[dst] >= 0);
}

static void send_post(struct an_match *m, uint32_t comm, int32_t src, int32_t dst, int32_t tag,
                      const struct an_end *end, uint32_t bytes, uint64_t id, int remote, int64_t at)
{
    m->st.sends++;
    if (m->outbox && !remote && m->run->slot[dst] < 0 && shipped(m->run, dst)) {
        const struct an_clock *k = &m->run->ranks[m->run->slot[src]].clock;
        struct an_send_rec rec;
        memset(&rec, 0, sizeof rec);
        rec.comm = comm;
        rec.src = src;
        rec.dst = dst;
        rec.tag = tag;
        rec.bytes = bytes;
        rec.at = an_wadd(an_clock_base(k, end->t0), an_clock_extra(k, end->t0));
        rec.send = *end;
        rec.id = id;
        m->outbox(m->outbox_ctx, &rec);
        return;
    }
    struct chan *c = chan_get(m, comm, src, dst, tag);
    if (!c) return;
    if (c->rh) {
        struct precv *rv = c->rh;
        c->rh = rv->next;
        if (!c->rh) c->rt = NULL;
        chan_put(m, c);
        rv->send = *end;
        rv->send_bytes = bytes;
        rv->flags |= RV_PAIRED;
        if (remote) {
            rv->flags |= RV_REMOTE;
            rv->send_at = at;
        }
        if (rv->flags & (RV_DONE | RV_ORPHAN)) {
            emit(m, rv);
            precv_free(m, rv);
        }
        return;
    }
    struct psend *s = psend_new(m);
    if (!s) return;
    s->end = *end;
    s->bytes = bytes;
    s->id = id;
    s->remote = remote;
    s->at = at;
    if (c->st) c->st->next = s;
    else c->sh = s;
    c->st = s;
}

/* ---- requests ---------------------------------------------------------------- */

static uint64_t rhash(uint64_t h)
{
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

static struct req *req_find(struct rstate *rs, uint64_t handle)
{
    if (!rs->rcap || handle == 0) return NULL;
    unsigned i = (unsigned)rhash(handle) & (rs->rcap - 1);
    for (;;) {
        struct req *q = &rs->reqs[i];
        if (q->handle == handle) return q;
        if (q->handle == 0) return NULL;
        i = (i + 1) & (rs->rcap - 1);
    }
}

static void req_del(struct rstate *rs, struct req *q)
{
    /* backward-shift deletion keeps probe chains intact */
    unsigned i = (unsigned)(q - rs->reqs), mask = rs->rcap - 1;
    unsigned j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (rs->reqs[j].handle == 0) break;
        unsigned k = (unsigned)rhash(rs->reqs[j].handle) & mask;
        if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
            rs->reqs[i] = rs->reqs[j];
            i = j;
        }
    }
    memset(&rs->reqs[i], 0, sizeof rs->reqs[i]);
    rs->rn--;
}

static struct req *req_slot(struct rstate *rs, uint64_t handle)
{
    if ((rs->rn + 1) * 2 > rs->rcap) {
        unsigned n = rs->rcap ? rs->rcap * 2 : 64;
        struct req *t = calloc(n, sizeof *t), *old = rs->reqs;
        if (!t) return NULL;
        unsigned oc = rs->rcap;
        rs->reqs = t;
        rs->rcap = n;
        rs->rn = 0;
        for (unsigned i = 0; i < oc; i++) {
            if (!old[i].handle) continue;
            unsigned k = (unsigned)rhash(old[i].handle) & (n - 1);
            while (t[k].handle) k = (k + 1) & (n - 1);
            t[k] = old[i];
            rs->rn++;
        }
        free(old);
    }
    unsigned i = (unsigned)rhash(handle) & (rs->rcap - 1);
    while (rs->reqs[i].handle && rs->reqs[i].handle != handle) i = (i + 1) & (rs->rcap - 1);
    if (!rs->reqs[i].handle) rs->rn++;
    return &rs->reqs[i];
}

/* Request q's successor takes its place (q's own activation is over). */
static void req_promote(struct req *q)
{
    struct req *s = q->succ;
    uint64_t h = q->handle;
    *q = *s;
    q->handle = h;
    free(s);
}

/* The request q is done with: deleted, or its successor takes its place. */
static void req_gone(struct rstate *rs, struct req *q)
{
    if (q->succ) req_promote(q);
    else req_del(rs, q);
}

/* The receive of a request is no longer reported by it (request freed,
 * handle reused, end of the run). */
static void recv_abandon(struct an_match *m, struct rstate *rs, struct precv *rv)
{
    if (rv->flags & RV_PAIRED) {          /* matched: only its completion is unknown */
        emit(m, rv);
        precv_free(m, rv);
        return;
    }
    if (rv->flags & RV_HELD) {            /* never resolved: cannot say which message */
        if (!(rv->flags & RV_RESOLVED)) {
            rs->nunresolved--;
            m->st.pending_recvs++;
            find_end(m, AN_F_PENDING_RECV, rv->comm, &rv->post, rv->src, rv->tag, 0);
            held_unlink(rs, rv);
            precv_free(m, rv);
            held_flush(m, rs);
            return;
        }
    }
    rv->flags |= RV_ORPHAN;               /* a send may still reach it */
}

/* ---- events ------------------------------------------------------------------- */

static struct an_op *op_add(struct an_match *m)
{
    if (m->nops == m->ops_cap) {
        unsigned cap = m->ops_cap ? m->ops_cap * 2 : 16;
        struct an_op *p = realloc(m->ops, cap * sizeof *p);
        if (!p) return NULL;
        m->ops = p;
        m->ops_cap = cap;
    }
    struct an_op *o = &m->ops[m->nops++];
    memset(o, 0, sizeof *o);
    return o;
}

static void op_note(struct an_match *m, uint8_t kind, uint32_t comm, int32_t peer, int32_t peer_comm,
                    int32_t tag, uint32_t bytes, uint64_t req)
{
    if (!m->sink.event) return;
    struct an_op *o = op_add(m);
    if (!o) return;
    o->kind = kind;
    o->comm = comm;
    o->peer = peer;
    o->peer_comm = peer_comm;
    o->tag = tag;
    o->bytes = bytes;
    o->req = req;
}

/* What a completed receive took: nothing from MPI_PROC_NULL (its status
 * says count 0; the runtime recorded the count posted before it recorded 0) */
static uint32_t recv_bytes(const struct an_rank *r, const struct ml_p2p *p)
{
    return p->peer == r->proc_null ? 0 : p->bytes;
}

static uint32_t comm_of(struct an_match *m, const struct an_rank *r, uint16_t cidx, const struct an_end *e)
{
    if (cidx < r->ncomms && r->comm[cidx] != UINT32_MAX) return r->comm[cidx];
    struct an_finding f;
    memset(&f, 0, sizeof f);
    f.kind = AN_F_UNKNOWN_COMM;
    /* defined, but with members that are no rank of the job: processes
     * MPI_Comm_spawn started or a job reached by MPI_Comm_connect/accept/join */
    const struct mlr_comm *c = mlr_comm(r->f, cidx);
    for (uint32_t k = 0; c && c->valid && c->members && k < c->size + c->remote_size; k++)
        if (c->members[k] < 0) {
            f.kind = AN_F_OUTSIDE_COMM;
            f.name2 = c->has_prev && c->prev_routine < r->nroutines ? r->name[c->prev_routine] : UINT16_MAX;
            break;
        }
    f.comm = UINT32_MAX;
    f.rank = r->rank;
    f.peer = cidx;
    f.name = e->name;
    f.site = e->site;
    f.count = 1;
    finding(m, &f);
    return UINT32_MAX;
}

static void end_of(struct an_end *end, const struct an_event *e)
{
    end->rank = e->r->rank;
    end->thread = e->ev.thread;
    end->name = e->ev.routine < e->r->nroutines ? e->r->name[e->ev.routine] : 0;
    end->unsized = 0;
    end->site = e->ev.site;
    end->t0 = e->ev.start_ns;
    end->t1 = e->ev.end_ns;
}

/* Send half of anything: p is the record's payload.  Returns 1 when a
 * message was posted (and its op noted): not on MPI_PROC_NULL, an unknown
 * communicator or peer. */
static int do_send(struct an_match *m, const struct an_event *e, const struct an_end *end,
                   const struct ml_p2p *p, uint8_t op, uint64_t req)
{
    const struct an_rank *r = e->r;
    if (p->peer == r->proc_null) {
        m->st.proc_null++;
        return 0;
    }
    uint32_t comm = comm_of(m, r, p->comm, end);
    if (comm == UINT32_MAX) return 0;
    int dst = an_peer_world(m->run, r, p->comm, p->peer);
    if (dst < 0) return 0;
    send_post(m, comm, r->rank, dst, p->tag, end, p->bytes, req, 0, 0);
    if (m->sink.event) {      /* (op_note, and the routine: MPI_Start's says the init's, do_start) */
        struct an_op *o = op_add(m);
        if (o) {
            o->kind = op;
            o->comm = comm;
            o->peer = dst;
            o->peer_comm = p->peer;
            o->tag = p->tag;
            o->bytes = p->bytes;
            o->req = req;
            o->name = end->name;
        }
    }
    return 1;
}

/* The exporters' view of request q's current activation ends (analysis.h,
 * an_op): the op that closes it, if an op opened it, and the send half of
 * an MPI_Isendrecv with it.  kind: SEND_DONE, RECV_DONE or CANCELLED. */
static void req_close(struct an_match *m, struct req *q, uint8_t kind, uint32_t comm, int32_t peer,
                      int32_t peer_comm, int32_t tag, uint32_t bytes)
{
    if (q->open) op_note(m, kind, comm, peer, peer_comm, tag, bytes, q->id);
    if (q->send_id)
        op_note(m, kind == AN_OP_CANCELLED ? AN_OP_CANCELLED : AN_OP_SEND_DONE, q->comm, -1, -1, -1, 0, q->send_id);
    q->open = 0;
    q->send_id = 0;
    q->running = 0;
}

/* Request q's activation will never report its completion (its handle was
 * reused, or it was started again): close it for the exporters without a
 * sender, and abandon its receive. */
static void req_abandon(struct an_match *m, struct rstate *rs, struct req *q)
{
    if (q->kind == RQ_RECV && q->active) {
        struct precv *a = q->active;
        q->active = NULL;
        recv_abandon(m, rs, a);
    }
    req_close(m, q, q->kind == RQ_SEND ? AN_OP_SEND_DONE : AN_OP_RECV_DONE, q->comm, -1, -1, q->tag, 0);
}

/* Where a new request with handle h, made by the call of event e, goes
 * (NULL: nowhere, h is MPI_REQUEST_NULL or memory ran out); the caller
 * fills it in.  MPI gives a handle to one request at a time, so when the
 * request with handle h still runs here, MPI freed it before e's call got
 * the handle again: either in a call we never saw complete it, or in a
 * call of another thread that started before e's call ended.  Events come
 * in start order, and such a call (MPI_Wait in one thread while another
 * thread's MPI_Irecv waits for a lock inside MPI, then gets the handle
 * MPI_Wait freed) may come after e: the new request waits beside the old
 * one (succ) until a completion of h says which one it completes
 * (req_at). */
static struct req *req_open(struct an_match *m, struct rstate *rs, uint64_t h, const struct an_event *e)
{
    if (h == 0) return NULL;
    struct req *old = req_find(rs, h);
    if (old && old->running) {
        if (old->succ) {          /* a third one: the first's completion was never recorded */
            req_abandon(m, rs, old);
            req_promote(old);
        }
        struct req *s = calloc(1, sizeof *s);
        if (s) {
            old->succ = s;
            old->succ_t1 = e->ev.end_ns;
            old->succ_thread = e->ev.thread;
            return s;
        }
    }
    if (old) {
        req_abandon(m, rs, old);
        if (old->succ) {
            req_promote(old);
            return req_open(m, rs, h, e);
        }
    }
    return req_slot(rs, h);
}

/* req_open, the request then fresh: its handle and when and on which
 * thread the call that made it ended, the rest zero. */
static struct req *req_new(struct an_match *m, struct rstate *rs, uint64_t h, const struct an_event *e)
{
    struct req *q = req_open(m, rs, h, e);
    if (q) {
        memset(q, 0, sizeof *q);
        q->handle = h;
        q->mk_t1 = e->ev.end_ns;
        q->mk_thread = e->ev.thread;
    }
    return q;
}

/* The request with handle h that a completion in event e is about: the
 * oldest one, unless the call of e started after the call that made the
 * next one had ended (then it could not have freed the old one before the
 * handle was given again: the old one's completion was never recorded). */
static struct req *req_at(struct an_match *m, struct rstate *rs, uint64_t h, const struct an_event *e)
{
    struct req *q = req_find(rs, h);
    /* Two threads: the stream gives calls in start order, but a call gets
     * its handle at some point before it ends.  When the call that made the
     * successor ended before the one that made q, the handle was the
     * successor's first (q's call could not have freed it before it ended:
     * no call completes a request its own creating call has not returned),
     * so the successor is the older request. */
    if (q && q->succ && !q->succ->succ && q->succ_thread != q->mk_thread && q->succ_t1 < q->mk_t1) {
        struct req *s = q->succ, first = *s, later = *q;
        *q = first;
        q->handle = later.handle;
        q->succ = s;
        q->succ_t1 = later.mk_t1;
        q->succ_thread = later.mk_thread;
        *s = later;
        s->succ = NULL;
        s->succ_t1 = 0;
        s->succ_thread = 0;
    }
    while (q && q->succ && (e->ev.start_ns > q->succ_t1 || e->ev.thread == q->succ_thread)) {
        req_abandon(m, rs, q);
        req_promote(q);
    }
    return q;
}

/* Receive half: a receive posted with pattern p.  done: completed by this
 * same call (p holds the actual source, tag and size); orphan: nothing will
 * report its completion.  Fills *info (ok = a receive was posted) and
 * returns the receive when the caller's request owns it (neither done nor
 * orphan), else NULL: it may already be matched and gone. */
struct recv_info {
    int ok;
    uint32_t comm;
    int32_t src;              /* world rank, -1 if a wildcard */
};

static struct precv *do_recv(struct an_match *m, const struct an_event *e, const struct an_end *end,
                             const struct ml_p2p *p, int done, int orphan, struct recv_info *info)
{
    const struct an_rank *r = e->r;
    struct rstate *rs = &m->rs[r - m->run->ranks];
    info->ok = 0;
    info->comm = UINT32_MAX;
    info->src = -1;
    if (p->peer == r->proc_null) {
        m->st.proc_null++;
        return NULL;
    }
    uint32_t comm = comm_of(m, r, p->comm, end);
    if (comm == UINT32_MAX) return NULL;
    int32_t src = ANY, tag = p->tag < 0 ? ANY : p->tag;
    if (p->peer != r->any_source) {
        src = an_peer_world(m->run, r, p->comm, p->peer);
        if (src < 0) return NULL;
    }
    info->comm = comm;
    info->src = src;
    if (done && (src == ANY || tag == ANY)) {
        /* completed, but the actual source or tag was not recorded */
        m->st.unresolved_recvs++;
        find_end(m, AN_F_UNRESOLVED_RECV, comm, end, src, tag, 0);
        return NULL;
    }
    struct precv *rv = precv_new(m);
    if (!rv) return NULL;
    info->ok = 1;
    rv->comm = comm;
    rv->src = src;
    rv->dst = r->rank;
    rv->tag = tag;
    rv->cidx = p->comm;
    rv->bytes = p->bytes;
    rv->post = *end;
    if (src != ANY && tag != ANY) rv->flags |= RV_RESOLVED;
    if (done) {
        rv->flags |= RV_DONE;
        rv->done = *end;
        m->st.recvs++;
        /* C receives record the status; Open MPI's Fortran ones the request */
        if (!(e->ev.fortran && strcmp(mlr_header(r->f)->mpi_impl, "openmpi") == 0)) rv->flags |= RV_STATUS;
    }
    if (orphan) rv->flags |= RV_ORPHAN;
    recv_post(m, rs, rv);
    return done || orphan ? NULL : rv;
}

/* The receive rv completed in event e with status d. */
static void recv_complete(struct an_match *m, struct rstate *rs, const struct an_event *e,
                          struct precv *rv, const struct ml_done *d)
{
    const struct an_rank *r = e->r;
    end_of(&rv->done, e);
    rv->flags |= RV_DONE;
    m->st.recvs++;
    if (d->source != ML_PEER_NONE && d->source >= 0) {
        rv->bytes = d->bytes;
        rv->flags |= RV_STATUS;
    }
    if (!(rv->flags & RV_RESOLVED)) {
        int src = d->source >= 0 ? an_peer_world(m->run, r, rv->cidx, d->source) : -1;
        int tag = d->tag;
        if (rv->src != ANY) src = rv->src;
        if (rv->tag != ANY) tag = rv->tag;
        rs->nunresolved--;
        if (d->source == r->proc_null) {
            m->st.proc_null++;
            held_unlink(rs, rv);
            precv_free(m, rv);
        } else if (src < 0 || tag < 0 || d->source == ML_PEER_NONE) {
            m->st.unresolved_recvs++;
            find_end(m, AN_F_UNRESOLVED_RECV, rv->comm, &rv->post, rv->src, rv->tag, 0);
            held_unlink(rs, rv);
            precv_free(m, rv);
        } else {
            rv->src = src;
            rv->tag = tag;
            rv->flags |= RV_RESOLVED;
        }
        held_flush(m, rs);
        return;
    }
    if ((rv->flags & RV_PAIRED)) {
        emit(m, rv);
        precv_free(m, rv);
    }
    /* else: released and waiting in its channel for the send */
}

/* Communicator of a request, quietly (the call itself reports an unknown one). */
static uint32_t comm_quiet(const struct an_rank *r, uint16_t cidx)
{
    return cidx < r->ncomms ? r->comm[cidx] : UINT32_MAX;
}

static void do_request(struct an_match *m, const struct an_event *e, const struct an_end *end, int role)
{
    const struct an_rank *r = e->r;
    struct rstate *rs = &m->rs[r - m->run->ranks];
    const struct ml_p2p *p = &e->ev.p2p[0];
    uint64_t h = e->ev.request;
    int persistent = role == AN_SEND_INIT || role == AN_RECV_INIT;
    int is_send = role == AN_ISEND || role == AN_SEND_INIT;
    struct req *q = req_new(m, rs, h, e);   /* MPI_REQUEST_NULL: nothing will complete it */
    if (q) {
        q->kind = is_send ? RQ_SEND : RQ_RECV;
        q->persistent = (uint8_t)persistent;
        q->cidx = p->comm;
        q->peer_comm = p->peer;
        q->tag = p->tag;
        q->bytes = p->bytes;
        q->comm = comm_quiet(r, p->comm);
        q->peer = p->peer == r->any_source || p->peer == r->proc_null ? -1
                                                                       : an_peer_world(m->run, r, p->comm, p->peer);
    }
    if (persistent) {         /* each MPI_Start starts one message */
        if (q) q->pname = end->name;   /* the routine that made it (MPI_Ssend_init): its starts' ISEND ops say it */
        return;
    }
    /* no request kept (MPI_REQUEST_NULL): nothing will close it, so no id */
    uint64_t id = q ? ++rs->next_id : 0;
    if (q) {
        q->id = id;
        q->running = 1;
    }
    if (is_send) {
        int posted = do_send(m, e, end, p, AN_OP_ISEND, id);
        if (q) q->open = (uint8_t)posted;
        return;
    }
    struct recv_info ri;
    struct precv *rv = do_recv(m, e, end, p, 0, q == NULL, &ri);
    if (q) {
        q->active = rv;
        q->open = (uint8_t)ri.ok;
        if (ri.ok) op_note(m, AN_OP_IRECV, ri.comm, ri.src, p->peer, p->tag, p->bytes, id);
    }
}

static void coll_arrive(struct an_match *m, const struct an_event *e, const struct an_end *end,
                        const struct ml_coll *c);

/* MPI_Start / Startall: each listed persistent request starts one message,
 * or one collective operation. */
static void do_start(struct an_match *m, const struct an_event *e, const struct an_end *end)
{
    const struct an_rank *r = e->r;
    struct rstate *rs = &m->rs[r - m->run->ranks];
    for (uint32_t i = 0; i < e->ev.ndone; i++) {
        struct req *q = req_at(m, rs, e->ev.done[i].request, e);
        if (!q || !q->persistent) {
            m->st.untracked_done++;
            continue;
        }
        if (q->kind == RQ_PCOLL) {
            /* one collective operation: an arrival at the communicator's
             * next instance, as a nonblocking collective's call is */
            struct an_end pe = *end;
            pe.name = q->pname;
            q->running = 1;
            coll_arrive(m, e, &pe, &q->coll);
            if (m->sink.event) {
                struct an_op *o = op_add(m);
                if (o) {
                    uint32_t comm = comm_quiet(r, q->coll.comm);
                    *o = (struct an_op){AN_OP_COLL_START, comm, -1, q->coll.root, ML_PEER_NONE,
                                        q->coll.bytes, q->handle, q->coll, q->pname};
                }
            }
            continue;
        }
        struct ml_p2p p = {q->cidx, ML_TYPE_NONE, q->peer_comm, q->tag, q->bytes};
        if (q->running) req_abandon(m, rs, q);   /* started again without a completion we saw */
        q->id = ++rs->next_id;
        q->running = 1;
        if (q->kind == RQ_SEND) {
            unsigned n0 = m->nops;
            q->open = (uint8_t)do_send(m, e, end, &p, AN_OP_ISEND, q->id);
            if (m->nops > n0) m->ops[m->nops - 1].name = q->pname;   /* made by MPI_Ssend_init ... */
            continue;
        }
        struct recv_info ri;
        q->active = do_recv(m, e, end, &p, 0, 0, &ri);
        q->open = (uint8_t)ri.ok;
        if (ri.ok) op_note(m, AN_OP_IRECV, ri.comm, ri.src, p.peer, p.tag, p.bytes, q->id);
    }
}

/* MPI_Isendrecv(_replace): a send posted, and a receive posted whose request
 * (the call's) reports its status at completion, like an MPI_Irecv's. */
static void do_isendrecv(struct an_match *m, const struct an_event *e, const struct an_end *end)
{
    const struct an_rank *r = e->r;
    struct rstate *rs = &m->rs[r - m->run->ranks];
    const struct ml_p2p *p = &e->ev.p2p[1];
    uint64_t h = e->ev.request;
    uint64_t sid = ++rs->next_id;
    int sent = do_send(m, e, end, &e->ev.p2p[0], AN_OP_ISEND, sid);
    struct req *q = req_new(m, rs, h, e);
    if (q) {
        q->kind = RQ_RECV;
        q->cidx = p->comm;
        q->peer_comm = p->peer;
        q->tag = p->tag;
        q->bytes = p->bytes;
        q->comm = comm_quiet(r, p->comm);
        q->peer = p->peer == r->any_source || p->peer == r->proc_null ? -1
                                                                       : an_peer_world(m->run, r, p->comm, p->peer);
        q->id = ++rs->next_id;
        q->send_id = sent ? sid : 0;
        q->nostatus = (e->ev.sr_flags & ML_SR_NOSTATUS) != 0;
        q->running = 1;
    }
    struct recv_info ri;
    struct precv *rv = do_recv(m, e, end, p, 0, q == NULL, &ri);
    if (q) {
        q->active = rv;
        q->open = (uint8_t)ri.ok;
        if (ri.ok) op_note(m, AN_OP_IRECV, ri.comm, ri.src, p->peer, p->tag, p->bytes, q->id);
    }
}

/* A send request completed as cancelled: its message never existed.  It is
 * taken back from its channel if no receive took it yet (one that did was
 * paired by posting order with a message MPI cancelled; that pairing
 * stays). */
static void send_cancelled(struct an_match *m, const struct an_rank *r, const struct req *q)
{
    m->st.cancelled_sends++;
    if (q->comm == UINT32_MAX || q->peer < 0) return;
    if (m->outbox && m->run->slot[q->peer] < 0 && shipped(m->run, q->peer)) {   /* shipped: take it back */
        struct an_send_rec rec;
        memset(&rec, 0, sizeof rec);
        rec.comm = q->comm;
        rec.src = r->rank;
        rec.dst = q->peer;
        rec.tag = q->tag;
        rec.id = q->id;
        rec.cancel = 1;
        m->outbox(m->outbox_ctx, &rec);
        return;
    }
    struct chan *c = chan_get(m, q->comm, r->rank, q->peer, q->tag);
    if (!c) return;
    struct psend *prev = NULL;
    for (struct psend *s = c->sh; s; prev = s, s = s->next) {
        if (s->id != q->id || s->end.rank != r->rank) continue;
        if (prev) prev->next = s->next;
        else c->sh = s->next;
        if (c->st == s) c->st = prev;
        psend_free(m, s);
        m->st.sends--;
        break;
    }
    chan_put(m, c);
}

/* A receive completed as cancelled: it took no message.  Whatever send the
 * matcher gave it goes to the next receive of its channel (or back to the
 * head of the channel's sends: it is older than any send there). */
static void recv_cancelled(struct an_match *m, struct rstate *rs, struct precv *rv)
{
    m->st.cancelled_recvs++;
    if (rv->flags & RV_HELD) {
        if (!(rv->flags & RV_RESOLVED)) rs->nunresolved--;
        held_unlink(rs, rv);
        precv_free(m, rv);
        held_flush(m, rs);
        return;
    }
    if (!(rv->flags & RV_RELEASED)) {
        precv_free(m, rv);
        return;
    }
    struct chan *c = chan_get(m, rv->comm, rv->src, rv->dst, rv->tag);
    if (!c) {
        precv_free(m, rv);
        return;
    }
    if (rv->flags & RV_PAIRED) {
        struct an_end send = rv->send;
        uint32_t bytes = rv->send_bytes;
        int remote = !!(rv->flags & RV_REMOTE);
        int64_t at = rv->send_at;
        precv_free(m, rv);
        if (c->rh) {
            struct precv *nx = c->rh;
            c->rh = nx->next;
            if (!c->rh) c->rt = NULL;
            nx->send = send;
            nx->send_bytes = bytes;
            nx->flags |= RV_PAIRED;
            if (remote) {
                nx->flags |= RV_REMOTE;
                nx->send_at = at;
            }
            if (nx->flags & (RV_DONE | RV_ORPHAN)) {
                emit(m, nx);
                precv_free(m, nx);
            }
        } else {
            struct psend *s = psend_new(m);
            if (s) {
                s->end = send;
                s->bytes = bytes;
                s->remote = remote;
                s->at = at;
                s->next = c->sh;
                c->sh = s;
                if (!c->st) c->st = s;
            }
        }
        chan_put(m, c);
        return;
    }
    struct precv *prev = NULL;
    for (struct precv *p = c->rh; p; prev = p, p = p->next) {
        if (p != rv) continue;
        if (prev) prev->next = p->next;
        else c->rh = p->next;
        if (c->rt == p) c->rt = prev;
        break;
    }
    precv_free(m, rv);
    chan_put(m, c);
}

/* Wait/Test family, and MPI_Request_free (is_free): each listed request
 * completed, or is freed.  A persistent request that is not active (never
 * started, or completed already) completes nothing: a Wait on it returns at
 * once, and freeing it only frees it.  Freeing an active request lets its
 * operation go on: its message is still matched, and for the exporters the
 * free is where it ends. */
static void do_complete(struct an_match *m, const struct an_event *e, int is_free)
{
    const struct an_rank *r = e->r;
    struct rstate *rs = &m->rs[r - m->run->ranks];
    for (uint32_t i = 0; i < e->ev.ndone; i++) {
        const struct ml_done *d = &e->ev.done[i];
        struct req *q = req_at(m, rs, d->request, e);
        if (!q) {
            m->st.untracked_done++;
            continue;
        }
        if (!q->running) {
            if (is_free) req_gone(rs, q);
            continue;
        }
        if (q->kind == RQ_COLL) {
            q->running = 0;
            req_gone(rs, q);
            continue;
        }
        if (q->kind == RQ_PCOLL) {   /* inactive again; freed only by MPI_Request_free */
            q->running = 0;
            if (is_free) req_gone(rs, q);
            continue;
        }
        struct ml_done dd;
        if (q->nostatus && d->source != ML_PEER_CANCELLED) {
            /* the library's status says nothing about the receive: a
             * wildcard stays unresolved rather than resolved from garbage */
            dd = *d;
            dd.source = dd.tag = ML_PEER_NONE;
            dd.bytes = 0;
            d = &dd;
        }
        if (d->source == ML_PEER_CANCELLED) {
            if (q->kind == RQ_SEND) {
                send_cancelled(m, r, q);
            } else if (q->active) {
                struct precv *rv = q->active;
                q->active = NULL;
                recv_cancelled(m, rs, rv);
            }
            req_close(m, q, AN_OP_CANCELLED, q->comm, q->peer, q->peer_comm, q->tag, 0);
        } else if (q->kind == RQ_SEND) {
            req_close(m, q, AN_OP_SEND_DONE, q->comm, q->peer, q->peer_comm, q->tag, q->bytes);
        } else {
            int32_t src = q->peer, tag = q->tag, pc = d->source;
            uint32_t comm = q->comm;
            if (q->active) {
                struct precv *rv = q->active;
                q->active = NULL;
                src = rv->src;
                tag = rv->tag;
                comm = rv->comm;
                if (!(rv->flags & RV_RESOLVED) && d->source >= 0) {
                    src = an_peer_world(m->run, r, rv->cidx, d->source);
                    tag = d->tag;
                }
                recv_complete(m, rs, e, rv, d);
            }
            /* no status (MPI_Request_free): the sender if the receive named it */
            if (pc < 0) pc = q->peer_comm >= 0 && q->peer_comm != r->any_source ? q->peer_comm : -1;
            if (pc < 0) src = -1;
            req_close(m, q, AN_OP_RECV_DONE, comm, src, pc, tag, d->source >= 0 ? d->bytes : 0);
        }
        if (!q->persistent || is_free) req_gone(rs, q);
    }
}

void an_coll_arrive(struct an_coll_first *x, int first, int64_t t0, int32_t rank, uint16_t name, uint32_t site)
{
    if (first) {
        *x = (struct an_coll_first){t0, 0, rank, -1, site, 0, name, 0};
        return;
    }
    if (t0 < x->t0 || (t0 == x->t0 && rank < x->rank)) {
        /* the new first; the old one is the earliest of another routine */
        if (name != x->name) {
            x->t0b = x->t0;
            x->rankb = x->rank;
            x->siteb = x->site;
            x->nameb = x->name;
        }
        x->t0 = t0;
        x->rank = rank;
        x->site = site;
        x->name = name;
    } else if (name != x->name && (x->rankb < 0 || t0 < x->t0b || (t0 == x->t0b && rank < x->rankb))) {
        x->t0b = t0;
        x->rankb = rank;
        x->siteb = site;
        x->nameb = name;
    }
}

void an_coll_mismatch(const struct an_coll_first *x, uint32_t comm, uint64_t index, struct an_finding *f)
{
    memset(f, 0, sizeof *f);
    f->kind = AN_F_COLL_MISMATCH;
    f->comm = comm;
    f->rank = x->rankb;
    f->name = x->nameb;
    f->name2 = x->name;
    f->site = x->siteb;
    f->index = index;
    f->count = 1;
}

static void coll_mismatch(struct an_match *m, uint32_t comm, uint64_t index, const struct an_coll_first *x)
{
    struct an_finding f;
    an_coll_mismatch(x, comm, index, &f);
    m->st.coll_mismatch++;
    finding(m, &f);
}

/* The routine a persistent collective's start performs (MPI_Allreduce for
 * MPI_Allreduce_init), as a name of the run; the init's own name where
 * the run has no such name. */
static uint16_t pcoll_name(struct an_match *m, uint16_t init)
{
    const struct an_run *run = m->run;
    if (init >= run->nnames) return init;
    if (!m->pbase && !(m->pbase = calloc(run->nnames, sizeof *m->pbase))) return init;
    if (!m->pbase[init]) {
        char b[64];
        uint16_t v = init;
        if (an_pcoll_base(run->names[init], b, sizeof b))
            for (unsigned i = 0; i < run->nnames; i++)
                if (!strcmp(run->names[i], b)) {
                    v = (uint16_t)i;
                    break;
                }
        m->pbase[init] = (uint16_t)(v + 1);
    }
    return (uint16_t)(m->pbase[init] - 1);
}

/* A collective call.  A persistent collective's init with its request
 * (role AN_COLL_INIT) is no operation: it only makes the request, whose
 * every MPI_Start is one (do_start), numbered among the communicator's
 * collectives in the order of the calls that start them (docs/REPORT.md);
 * in files without the request it counts as the one operation. */
static void do_coll(struct an_match *m, const struct an_event *e, const struct an_end *end, int role)
{
    const struct an_rank *r = e->r;
    struct rstate *rs = &m->rs[r - m->run->ranks];
    const struct ml_coll *c = &e->ev.coll;
    if (role == AN_COLL_INIT && e->ev.request) {
        struct req *q = req_new(m, rs, e->ev.request, e);
        if (q) {
            q->kind = RQ_PCOLL;
            q->persistent = 1;
            q->cidx = c->comm;
            q->comm = comm_quiet(r, c->comm);
            q->peer = q->peer_comm = -1;
            q->coll = *c;
            q->pname = pcoll_name(m, end->name);
            q->start = *end;
        }
        return;
    }
    coll_arrive(m, e, end, c);
}

static void coll_arrive(struct an_match *m, const struct an_event *e, const struct an_end *end,
                        const struct ml_coll *c)
{
    const struct an_rank *r = e->r;
    struct rstate *rs = &m->rs[r - m->run->ranks];
    m->st.coll_calls++;
    if (e->ev.request && e->ev.type == ML_REC_COLL) {
        /* a nonblocking collective: its request is known, its completion
         * (do_complete) no message and not untracked */
        struct req *q = req_new(m, rs, e->ev.request, e);
        if (q) {
            q->kind = RQ_COLL;
            q->cidx = c->comm;
            q->peer = q->peer_comm = -1;
            q->running = 1;
        }
    }
    uint32_t comm = comm_of(m, r, c->comm, end);
    if (comm == UINT32_MAX) return;
    const struct an_comm *cm = &m->run->comms[comm];
    /* my position among the communicator's members */
    int32_t pos = -1;
    if (c->comm < r->ncomms && rs->pos) pos = rs->pos[c->comm];
    if (pos == -2 || !rs->pos) {
        pos = -1;
        if (cm->world) pos = r->rank;
        else
            for (uint32_t k = 0; k < cm->size; k++)
                if (cm->members[k] == r->rank) {
                    pos = (int32_t)k;
                    break;
                }
        if (rs->pos) rs->pos[c->comm] = pos;
    }
    if (pos < 0 || (uint32_t)pos >= cm->size) return;
    struct cstate *cs = &m->cs[comm];
    if (!cs->count && !(cs->count = calloc(cm->size, sizeof *cs->count))) return;
    uint64_t k = cs->count[pos]++;
    if (cs->remote) {           /* members in other slices: this slice's share of instance k */
        if (k < cs->pbase) return;   /* cannot happen: shipped once every member here called it */
        k -= cs->pbase;
        if (k >= cs->cappart) {
            uint64_t cap = cs->cappart ? cs->cappart * 2 : 16;
            while (cap <= k) cap *= 2;
            struct an_coll_part *t = realloc(cs->part, cap * sizeof *t);
            if (!t) return;
            memset(t + cs->cappart, 0, (cap - cs->cappart) * sizeof *t);
            cs->part = t;
            cs->cappart = cap;
        }
        if (k >= cs->npart) {
            m->parts_held += k + 1 - cs->npart;
            cs->npart = k + 1;
        }
        struct an_coll_part *q = &cs->part[k];
        an_coll_arrive(&q->fa, q->arrived == 0, e->t0, r->rank, end->name, end->site);
        if (q->arrived == 0) {
            q->comm = comm;
            q->index = cs->pbase + k;
            q->first = q->last = e->t0;
            q->end = e->t1;
        } else {
            if (e->t0 < q->first) q->first = e->t0;
            if (e->t0 > q->last) q->last = e->t0;
            if (e->t1 > q->end) q->end = e->t1;
        }
        q->arrived++;
        q->bytes += (uint64_t)c->bytes + c->rbytes;
        return;
    }
    if (k < cs->base) return;   /* cannot happen: an instance closes only when all arrived */
    while (k - cs->base >= cs->len) {
        if (cs->len == cs->cap) {
            if (cs->cap >= COLL_WINDOW_MAX) {
                cs->overflow = 1;
                return;
            }
            unsigned cap = cs->cap ? cs->cap * 2 : 16;
            struct cinst *w = malloc(cap * sizeof *w);
            if (!w) return;
            for (unsigned i = 0; i < cs->len; i++) w[i] = cs->win[(cs->head + i) % cs->cap];
            free(cs->win);
            cs->win = w;
            cs->cap = cap;
            cs->head = 0;
        }
        memset(&cs->win[(cs->head + cs->len) % cs->cap], 0, sizeof *cs->win);
        cs->len++;
    }
    struct cinst *in = &cs->win[(cs->head + (k - cs->base)) % cs->cap];
    /* the routine it bears and a mismatch: by start time and rank, not by
     * the order the stream gives the arrivals (a sliced run's is another) */
    an_coll_arrive(&in->fa, in->arrived == 0, e->t0, r->rank, end->name, end->site);
    if (in->arrived == 0) {
        in->first = e->t0;
        in->last = e->t0;
        in->end = e->t1;
    } else {
        if (e->t0 < in->first) in->first = e->t0;
        if (e->t0 > in->last) in->last = e->t0;
        if (e->t1 > in->end) in->end = e->t1;
    }
    in->arrived++;
    in->bytes += (uint64_t)c->bytes + c->rbytes;
    while (cs->len && cs->win[cs->head].arrived >= cm->size) {
        struct cinst *d = &cs->win[cs->head];
        m->st.coll_instances++;
        if (d->fa.rankb >= 0) coll_mismatch(m, comm, cs->base, &d->fa);
        if (m->sink.coll) {
            struct an_coll ac = {comm, cs->base, d->fa.name, cm->size, d->first, d->last, d->end, d->bytes};
            m->sink.coll(m->sink.ctx, &ac);
        }
        cs->head = (cs->head + 1) % cs->cap;
        cs->len--;
        cs->base++;
    }
}

/* A blocking collective by name (MPI_Barrier, MPI_Allreduce_c, ...): an
 * unfinished call names its communicator, not its record type. */
static int coll_blocking(const char *n)
{
    static const char *const t[] = {
        "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
        "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter",
        "Reduce_scatter_block", "Scan", "Exscan", "Neighbor_allgather", "Neighbor_allgatherv",
        "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw",
    };
    if (strncasecmp(n, "MPI_", 4) != 0) return 0;
    n += 4;
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        size_t l = strlen(t[i]);
        if (!strncasecmp(n, t[i], l) && (!n[l] || !strcasecmp(n + l, "_c"))) return 1;
    }
    return 0;
}

/* A call in progress when its rank stopped or died (ev.unfinished): a
 * receive never matched, a send never taken, a collective instance this
 * member reached (the others may not have). */
static void do_unfinished(struct an_match *m, const struct an_event *e, int role)
{
    const struct an_rank *r = e->r;
    const struct mlr_event *ev = &e->ev;
    struct an_end end;
    struct recv_info ri;
    end_of(&end, e);
    struct ml_p2p p = ev->p2p[0];
    p.bytes = 0;
    switch (role) {
    case AN_RECV:
    case AN_MPROBE:
        if (p.comm != ML_COMM_NONE) do_recv(m, e, &end, &p, 0, 1, &ri);
        return;
    case AN_SENDRECV:
        /* the slot: dest and send tag; source and receive tag in aux.  The
         * send half is a message posted, as an unfinished blocking send's
         * (a receive may have taken it while this one waits for its own) */
        if (p.comm != ML_COMM_NONE && p.tag != ML_PEER_NONE) {
            struct an_end se = end;
            se.unsized = 1;
            do_send(m, e, &se, &p, AN_OP_SEND, 0);
        }
        p.peer = (int32_t)(uint32_t)ev->request;
        p.tag = (int32_t)(uint32_t)(ev->request >> 32);
        if (p.comm != ML_COMM_NONE) do_recv(m, e, &end, &p, 0, 1, &ri);
        return;
    case AN_SEND:
        if (p.comm != ML_COMM_NONE && p.tag != ML_PEER_NONE) {
            end.unsized = 1;
            do_send(m, e, &end, &p, AN_OP_SEND, 0);
        }
        return;
    }
    if (ev->coll.comm != ML_COMM_NONE && end.name < m->run->nnames && coll_blocking(m->run->names[end.name]))
        do_coll(m, e, &end, role);
    (void)r;
}

void an_match_event(struct an_match *m, const struct an_event *e)
{
    const struct an_rank *r = e->r;
    const struct mlr_event *ev = &e->ev;
    int role = ev->routine < r->nroutines ? r->role[ev->routine] : AN_OTHER;
    struct an_end end;
    struct recv_info ri;
    m->st.events++;
    m->nops = 0;
    if (ev->unfinished) {
        m->st.unfinished++;
        do_unfinished(m, e, role);
        if (m->sink.event) m->sink.event(m->sink.ctx, e, m->ops, m->nops);
        return;
    }
    switch (ev->type) {
    case ML_REC_P2P:
        end_of(&end, e);
        switch (role) {
        case AN_SEND: do_send(m, e, &end, &ev->p2p[0], AN_OP_SEND, 0); break;
        case AN_ISEND: do_send(m, e, &end, &ev->p2p[0], AN_OP_ISEND, 0); break;  /* Fortran: no request */
        case AN_RECV:
        case AN_MPROBE:
            do_recv(m, e, &end, &ev->p2p[0], 1, 0, &ri);
            if (ri.ok || ev->p2p[0].peer == r->proc_null)
                op_note(m, AN_OP_RECV, ri.comm, ri.src, ev->p2p[0].peer, ev->p2p[0].tag, recv_bytes(r, &ev->p2p[0]), 0);
            break;
        case AN_IRECV: do_recv(m, e, &end, &ev->p2p[0], 0, 1, &ri); break;      /* Fortran: no request */
        case AN_PROBE:
        case AN_IMPROBE: m->st.probes++; break;   /* Improbe that found nothing (or an old file) */
        default: break;
        }
        break;
    case ML_REC_P2P_REQ:
        end_of(&end, e);
        if (role == AN_ISEND || role == AN_IRECV || role == AN_SEND_INIT || role == AN_RECV_INIT) {
            do_request(m, e, &end, role);
        } else if (role == AN_IMPROBE) {
            /* MPI_Improbe found a message (the request is its message
             * handle): taken here, as by MPI_Mprobe; MPI_Mrecv only fetches it */
            do_recv(m, e, &end, &ev->p2p[0], 1, 0, &ri);
            if (ri.ok || ev->p2p[0].peer == r->proc_null)
                op_note(m, AN_OP_RECV, ri.comm, ri.src, ev->p2p[0].peer, ev->p2p[0].tag, recv_bytes(r, &ev->p2p[0]), 0);
        }
        break;
    case ML_REC_SENDRECV:
        end_of(&end, e);
        if (role == AN_ISENDRECV && ev->request) {
            do_isendrecv(m, e, &end);
            break;
        }
        do_send(m, e, &end, &ev->p2p[0], AN_OP_SEND, 0);
        if (role == AN_ISENDRECV) {
            do_recv(m, e, &end, &ev->p2p[1], 0, 1, &ri);   /* older files: no request */
        } else {
            do_recv(m, e, &end, &ev->p2p[1], 1, 0, &ri);
            if (ri.ok || ev->p2p[1].peer == r->proc_null)
                op_note(m, AN_OP_RECV, ri.comm, ri.src, ev->p2p[1].peer, ev->p2p[1].tag, recv_bytes(r, &ev->p2p[1]), 0);
        }
        break;
    case ML_REC_COMPLETE:
        if (role == AN_CANCEL) {
            m->st.cancels++;      /* names its request; the completion says whether it worked */
        } else if (role == AN_START) {
            end_of(&end, e);
            do_start(m, e, &end);
        } else {
            do_complete(m, e, role == AN_FREE);
        }
        break;
    case ML_REC_COLL:
        end_of(&end, e);
        do_coll(m, e, &end, role);
        break;
    default:
        if (role == AN_CANCEL) m->st.cancels++;
        break;
    }
    if (m->sink.event) m->sink.event(m->sink.ctx, e, m->ops, m->nops);
}

/* ---- setup and end ------------------------------------------------------------ */

struct an_match *an_match_new(struct an_run *run, const struct an_sink *sink)
{
    struct an_match *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->run = run;
    if (sink) m->sink = *sink;
    m->rs = calloc(run->n ? run->n : 1, sizeof *m->rs);
    m->cs = calloc(run->ncomms ? run->ncomms : 1, sizeof *m->cs);
    if (!m->rs || !m->cs) {
        an_match_free(m);
        return NULL;
    }
    for (unsigned i = 0; i < run->n; i++) {
        struct an_rank *r = &run->ranks[i];
        m->rs[i].pos = malloc((r->ncomms ? r->ncomms : 1) * sizeof *m->rs[i].pos);
        for (unsigned k = 0; m->rs[i].pos && k < r->ncomms; k++) m->rs[i].pos[k] = -2;
        m->rs[i].sent_hi = INT64_MIN;
    }
    if (run->slice) {   /* a communicator with members in other slices collects arrivals only */
        int me = run->slice->x->rank;
        for (unsigned i = 0; i < run->ncomms; i++) {
            const struct an_comm *cm = &run->comms[i];
            for (uint32_t k = 0; k < cm->size && !m->cs[i].remote; k++) {
                int w = cm->world ? (int)k : cm->members ? cm->members[k] : -1;
                if (w < 0 || w >= run->size || run->slice->owner[w] != me) m->cs[i].remote = 1;
            }
        }
    }
    chan_grow(m);
    m->ring = malloc(CHECKED_RING * sizeof *m->ring);  /* without it: late repairs, more passes */
    return m;
}

/* ---- resume points: a copy of the state in flight ---------------------------- */

struct rvmap {                   /* receive of the original -> its copy */
    const struct precv **from;
    struct precv **to;
    size_t cap;                  /* a power of 2 */
};

/* The copy of receive rv (made on first sight: a receive may be in a
 * channel or the held list and also a request's active one); NULL when
 * memory ran out. */
static struct precv *rv_copy(struct rvmap *x, const struct precv *rv, size_t *bytes)
{
    size_t j = (size_t)(((uintptr_t)rv >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (x->cap - 1);
    for (; x->from[j]; j = (j + 1) & (x->cap - 1))
        if (x->from[j] == rv) return x->to[j];
    struct precv *c = malloc(sizeof *c);
    if (!c) return NULL;
    *c = *rv;
    c->next = c->hprev = c->hnext = NULL;
    x->from[j] = rv;
    x->to[j] = c;
    *bytes += sizeof *c;
    return c;
}

/* A copy of request q (its active receive through x), and of the requests
 * waiting beside it; -1 when memory ran out (what was copied is in *out). */
static int req_copy(struct req *out, const struct req *q, struct rvmap *x, size_t *bytes)
{
    *out = *q;
    out->succ = NULL;
    out->active = NULL;
    if (q->active && !(out->active = rv_copy(x, q->active, bytes))) return -1;
    if (!q->succ) return 0;
    struct req *s = malloc(sizeof *s);
    if (!s) return -1;
    *bytes += sizeof *s;
    out->succ = s;
    return req_copy(s, q->succ, x, bytes);
}

size_t an_match_bytes(const struct an_match *m)
{
    size_t b = sizeof *m + m->inflight * sizeof(struct precv) + m->nchan * (sizeof(struct chan) + 2 * sizeof(void *));
    for (unsigned i = 0; i < m->run->n; i++) b += sizeof *m->rs + 2 * m->rs[i].rn * sizeof(struct req) +
                                                  m->run->ranks[i].ncomms * sizeof *m->rs[i].pos;
    for (unsigned i = 0; i < m->run->ncomms; i++)
        if (m->cs[i].count) b += sizeof *m->cs + m->run->comms[i].size * sizeof *m->cs[i].count +
                                 m->cs[i].len * sizeof *m->cs[i].win;
    return b;
}

struct an_match *an_match_clone(const struct an_match *m, const struct an_sink *sink, size_t *bytes)
{
    struct an_run *run = m->run;
    struct an_match *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    size_t b = sizeof *c;
    struct rvmap x = {NULL, NULL, 1024};
    while (x.cap < 2 * (m->inflight + 1)) x.cap <<= 1;
    x.from = calloc(x.cap, sizeof *x.from);
    x.to = calloc(x.cap, sizeof *x.to);
    c->run = run;
    if (sink) c->sink = *sink;
    c->repair = m->repair;
    c->st = m->st;
    c->inflight = m->inflight;
    c->rs = calloc(run->n ? run->n : 1, sizeof *c->rs);
    c->cs = calloc(run->ncomms ? run->ncomms : 1, sizeof *c->cs);
    b += (run->n ? run->n : 1) * sizeof *c->rs + (run->ncomms ? run->ncomms : 1) * sizeof *c->cs;
    c->tab_size = 64;
    while (c->tab_size < 2 * m->nchan) c->tab_size <<= 1;
    c->tab = calloc(c->tab_size, sizeof *c->tab);
    b += c->tab_size * sizeof *c->tab;
    if (!x.from || !x.to || !c->rs || !c->cs || !c->tab) goto fail;
    /* channels, their queues in order */
    for (unsigned k = 0; k < m->tab_size; k++)
        for (const struct chan *ch = m->tab[k]; ch; ch = ch->next) {
            struct chan *d = malloc(sizeof *d);
            if (!d) goto fail;
            b += sizeof *d;
            *d = *ch;
            d->sh = d->st = NULL;
            d->rh = d->rt = NULL;
            unsigned j = chash(d->comm, d->src, d->dst, d->tag) & (c->tab_size - 1);
            d->next = c->tab[j];
            c->tab[j] = d;
            c->nchan++;
            for (const struct psend *p = ch->sh; p; p = p->next) {
                struct psend *q = malloc(sizeof *q);
                if (!q) goto fail;
                b += sizeof *q;
                *q = *p;
                q->next = NULL;
                if (d->st) d->st->next = q;
                else d->sh = q;
                d->st = q;
            }
            for (const struct precv *p = ch->rh; p; p = p->next) {
                struct precv *q = rv_copy(&x, p, &b);
                if (!q) goto fail;
                if (d->rt) d->rt->next = q;
                else d->rh = q;
                d->rt = q;
            }
        }
    for (unsigned i = 0; i < run->n; i++) {
        const struct rstate *r = &m->rs[i];
        struct rstate *d = &c->rs[i];
        d->nheld = r->nheld;
        d->nunresolved = r->nunresolved;
        d->next_id = r->next_id;
        d->sent_hi = r->sent_hi;
        unsigned nc = run->ranks[i].ncomms ? run->ranks[i].ncomms : 1;
        if (r->pos) {
            if (!(d->pos = malloc(nc * sizeof *d->pos))) goto fail;
            memcpy(d->pos, r->pos, nc * sizeof *d->pos);
            b += nc * sizeof *d->pos;
        }
        for (const struct precv *p = r->hh; p; p = p->hnext) {
            struct precv *q = rv_copy(&x, p, &b);
            if (!q) goto fail;
            q->hprev = d->ht;
            if (d->ht) d->ht->hnext = q;
            else d->hh = q;
            d->ht = q;
        }
        /* the open requests, in a table as small as they allow (one slot
         * left empty; lookups are by handle: the slots' order tells
         * nothing; the next request made grows it) */
        if (!r->rn) continue;
        d->rcap = 2;
        while (d->rcap < r->rn + 1) d->rcap <<= 1;
        if (!(d->reqs = calloc(d->rcap, sizeof *d->reqs))) goto fail;
        b += d->rcap * sizeof *d->reqs;
        for (unsigned k = 0; k < r->rcap; k++) {
            if (!r->reqs[k].handle) continue;
            unsigned j = (unsigned)rhash(r->reqs[k].handle) & (d->rcap - 1);
            while (d->reqs[j].handle) j = (j + 1) & (d->rcap - 1);
            d->rn++;
            if (req_copy(&d->reqs[j], &r->reqs[k], &x, &b) != 0) goto fail;
        }
    }
    /* collective instances not every member reached */
    for (unsigned i = 0; i < run->ncomms; i++) {
        const struct cstate *s = &m->cs[i];
        struct cstate *d = &c->cs[i];
        d->base = s->base;
        d->overflow = s->overflow;
        d->remote = s->remote;
        d->pbase = s->pbase;
        if (s->npart) {
            if (!(d->part = malloc(s->npart * sizeof *d->part))) goto fail;
            memcpy(d->part, s->part, s->npart * sizeof *d->part);
            d->npart = d->cappart = s->npart;
            b += s->npart * sizeof *d->part;
        }
        if (s->count) {
            size_t n = run->comms[i].size ? run->comms[i].size : 1;
            if (!(d->count = malloc(n * sizeof *d->count))) goto fail;
            memcpy(d->count, s->count, n * sizeof *d->count);
            b += n * sizeof *d->count;
        }
        if (s->len) {
            if (!(d->win = malloc(s->len * sizeof *d->win))) goto fail;
            for (unsigned k = 0; k < s->len; k++) d->win[k] = s->win[(s->head + k) % s->cap];
            d->cap = d->len = s->len;
            b += s->len * sizeof *d->win;
        }
    }
    free(x.from);
    free(x.to);
    if (bytes) *bytes += b;
    return c;
fail:
    /* every receive copied is in the map: unlinked, then freed from there */
    for (unsigned i = 0; c->rs && i < run->n; i++) c->rs[i].hh = c->rs[i].ht = NULL;
    for (unsigned k = 0; c->tab && k < c->tab_size; k++)
        for (struct chan *ch = c->tab[k]; ch; ch = ch->next) ch->rh = ch->rt = NULL;
    for (unsigned i = 0; c->rs && i < run->n; i++)
        for (unsigned k = 0; c->rs[i].reqs && k < c->rs[i].rcap; k++)
            for (struct req *q = &c->rs[i].reqs[k]; q; q = q->succ) q->active = NULL;
    for (size_t j = 0; x.from && j < x.cap; j++)
        if (x.from[j]) free(x.to[j]);
    free(x.from);
    free(x.to);
    an_match_free(c);
    return NULL;
}

void an_match_set_repair(struct an_match *m, int on)
{
    m->repair = on;
}

void an_match_set_outbox(struct an_match *m, void (*out)(void *ctx, const struct an_send_rec *s), void *ctx)
{
    m->outbox = out;
    m->outbox_ctx = ctx;
}

void an_match_remote_send(struct an_match *m, const struct an_send_rec *s)
{
    send_post(m, s->comm, s->src, s->dst, s->tag, &s->send, s->bytes, 0, 1, s->at);
}

/* Kind, most frequent first, rank; then the rest of the key, so that the
 * order is the same whatever order the findings were found in (a sliced
 * analysis merges them from its slices). */
int an_finding_cmp(const void *a, const void *b)
{
    const struct an_finding *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    if (x->site != y->site) return x->site < y->site ? -1 : 1;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    if (x->name2 != y->name2) return x->name2 < y->name2 ? -1 : 1;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

int an_finding_same(const struct an_finding *a, const struct an_finding *b)
{
    return fsame(a, b);
}

const struct an_coll_part *an_match_coll_parts(const struct an_match *m, uint32_t comm, uint64_t *n,
                                               const uint64_t **count)
{
    const struct cstate *cs = comm < m->run->ncomms ? &m->cs[comm] : NULL;
    *n = cs && cs->remote ? cs->npart : 0;
    *count = cs && cs->remote ? cs->count : NULL;
    return cs && cs->remote ? cs->part : NULL;
}

/* The positions of cs's members whose files this slice reads. */
static void local_members(const struct an_match *m, uint32_t comm, struct cstate *cs)
{
    const struct an_run *run = m->run;
    const struct an_comm *cm = &run->comms[comm];
    int me = run->slice->x->rank;
    cs->local_set = 1;
    cs->local = malloc((cm->size ? cm->size : 1) * sizeof *cs->local);
    for (uint32_t k = 0; cs->local && k < cm->size; k++) {
        int w = cm->world ? (int)k : cm->members ? cm->members[k] : -1;
        if (w >= 0 && w < run->size && run->slice->owner[w] == me) cs->local[cs->nlocal++] = k;
    }
}

void an_match_coll_ship(struct an_match *m, void (*put)(void *ctx, const struct an_coll_part *p), void *ctx)
{
    for (unsigned c = 0; m->run->slice && c < m->run->ncomms; c++) {
        struct cstate *cs = &m->cs[c];
        if (!cs->remote || !cs->npart) continue;
        if (!cs->local_set) local_members(m, c, cs);
        if (!cs->local || !cs->count) continue;
        /* the instances every member here called: this slice's share is complete */
        uint64_t lo = UINT64_MAX;
        for (uint32_t i = 0; i < cs->nlocal; i++)
            if (cs->count[cs->local[i]] < lo) lo = cs->count[cs->local[i]];
        if (lo == UINT64_MAX || lo <= cs->pbase) continue;
        uint64_t d = lo - cs->pbase;
        if (d > cs->npart) d = cs->npart;
        for (uint64_t k = 0; k < d; k++)
            if (cs->part[k].arrived) put(ctx, &cs->part[k]);
        memmove(cs->part, cs->part + d, (size_t)(cs->npart - d) * sizeof *cs->part);
        memset(cs->part + (cs->npart - d), 0, (size_t)d * sizeof *cs->part);
        cs->npart -= d;
        cs->pbase += d;
        m->parts_held -= d;
    }
}

uint64_t an_match_coll_held(const struct an_match *m)
{
    return m->parts_held;
}

void an_match_finish(struct an_match *m)
{
    struct an_run *run = m->run;
    /* requests still open: matched receives whose completion never came */
    for (unsigned i = 0; i < run->n; i++) {
        struct rstate *rs = &m->rs[i];
        for (unsigned k = 0; k < rs->rcap; k++) {
            struct req *q = &rs->reqs[k];
            for (; q->handle; req_promote(q)) {     /* and the requests waiting beside it */
                struct precv *rv = q->active;
                q->active = NULL;
                if (!rv) {
                } else if (rv->flags & RV_PAIRED) {
                    emit(m, rv);
                    precv_free(m, rv);
                } else {
                    rv->flags |= RV_ORPHAN;
                }
                if (!q->succ) break;
            }
        }
    }
    /* held receives: unresolved wildcards never completed; release the rest */
    for (unsigned i = 0; i < run->n; i++) {
        struct rstate *rs = &m->rs[i];
        while (rs->hh) {
            struct precv *rv = rs->hh;
            held_unlink(rs, rv);
            if (rv->flags & RV_RESOLVED) {
                release(m, rv);
                continue;
            }
            m->st.pending_recvs++;
            find_end(m, AN_F_PENDING_RECV, rv->comm, &rv->post, rv->src, rv->tag, 0);
            precv_free(m, rv);
        }
        rs->nunresolved = 0;
    }
    /* channels: what is left is unmatched */
    for (unsigned b = 0; b < m->tab_size; b++) {
        struct chan *c = m->tab[b], *next;
        for (; c; c = next) {
            next = c->next;
            for (struct psend *s = c->sh, *sn; s; s = sn) {
                sn = s->next;
                m->st.unmatched_sends++;
                m->st.unmatched_send_bytes += s->bytes;
                m->st.unmatched_unsized += s->end.unsized;
                find_end(m, AN_F_UNMATCHED_SEND, c->comm, &s->end, c->dst, c->tag, s->bytes);
                psend_free(m, s);
            }
            for (struct precv *rv = c->rh, *rn; rv; rv = rn) {
                rn = rv->next;
                if (rv->flags & RV_DONE) {
                    m->st.unmatched_recvs++;
                    find_end(m, AN_F_UNMATCHED_RECV, c->comm, &rv->done, c->src, c->tag, rv->bytes);
                } else {
                    m->st.pending_recvs++;
                    find_end(m, AN_F_PENDING_RECV, c->comm, &rv->post, c->src, c->tag, 0);
                }
                precv_free(m, rv);
            }
            c->sh = c->st = NULL;
            c->rh = c->rt = NULL;
            c->next = m->free_c;
            m->free_c = c;
        }
        m->tab[b] = NULL;
    }
    m->nchan = 0;
    /* collective instances not every member reached */
    for (unsigned i = 0; i < run->ncomms; i++) {
        struct cstate *cs = &m->cs[i];
        const struct an_comm *cm = &run->comms[i];
        if (cs->remote) continue;   /* completed where the slices' arrivals meet */
        uint64_t incomplete = 0, first = 0;
        for (unsigned j = 0; j < cs->len; j++) {
            const struct cinst *w = &cs->win[(cs->head + j) % cs->cap];
            if (w->arrived && w->fa.rankb >= 0) coll_mismatch(m, i, cs->base + j, &w->fa);
            if (w->arrived >= cm->size) {
                m->st.coll_instances++;
            } else if (incomplete++ == 0) {
                first = cs->base + j;
            }
        }
        m->st.coll_incomplete += incomplete;
        if (!incomplete) continue;
        /* one finding per communicator: its first incomplete instance, one
         * member that never called it, and how many instances are incomplete */
        struct cinst *in = &cs->win[(cs->head + (first - cs->base)) % cs->cap];
        int32_t missing = -1;
        for (uint32_t p = 0; p < cm->size && missing < 0; p++)
            if (cs->count[p] <= first) missing = cm->world ? (int32_t)p : cm->members[p];
        struct an_finding f;
        memset(&f, 0, sizeof f);
        f.kind = AN_F_COLL_INCOMPLETE;
        f.comm = i;
        f.rank = missing;
        f.peer = (int32_t)in->arrived;
        f.name = in->fa.name;
        f.index = first;
        f.count = incomplete;
        finding(m, &f);
    }
    if (m->nfind) qsort(m->find, m->nfind, sizeof *m->find, an_finding_cmp);
    free(m->find_idx);
    m->find_idx = NULL;
}

const struct an_match_stats *an_match_stats(const struct an_match *m)
{
    return &m->st;
}

const struct an_finding *an_match_findings(const struct an_match *m, unsigned *n)
{
    *n = m->nfind;
    return m->find;
}

void an_match_free(struct an_match *m)
{
    if (!m) return;
    /* a receive paired but not completed is held by its request only (the
     * others are in a channel or the held list, freed there) */
    for (unsigned i = 0; m->rs && i < m->run->n; i++)
        for (unsigned k = 0; m->rs[i].reqs && k < m->rs[i].rcap; k++)
            for (struct req *x = &m->rs[i].reqs[k]; x && x->handle; x = x->succ) {
                if (x->active && (x->active->flags & RV_PAIRED)) free(x->active);
                x->active = NULL;
            }
    free(m->ring);
    free(m->pbase);
    if (m->tab) {
        for (unsigned b = 0; b < m->tab_size; b++) {
            struct chan *c = m->tab[b], *next;
            for (; c; c = next) {
                next = c->next;
                for (struct psend *s = c->sh, *sn; s; s = sn) {
                    sn = s->next;
                    free(s);
                }
                for (struct precv *rv = c->rh, *rn; rv; rv = rn) {
                    rn = rv->next;
                    free(rv);
                }
                free(c);
            }
        }
    }
    for (unsigned i = 0; m->rs && i < m->run->n; i++) {
        struct rstate *rs = &m->rs[i];
        for (struct precv *rv = rs->hh, *rn; rv; rv = rn) {
            rn = rv->hnext;
            free(rv);
        }
        for (unsigned k = 0; rs->reqs && k < rs->rcap; k++)
            for (struct req *x = rs->reqs[k].succ, *xn; x; x = xn) {
                xn = x->succ;
                free(x);
            }
        free(rs->reqs);
        free(rs->pos);
    }
    for (unsigned i = 0; m->cs && i < m->run->ncomms; i++) {
        free(m->cs[i].count);
        free(m->cs[i].win);
        free(m->cs[i].part);
        free(m->cs[i].local);
    }
    for (struct psend *s = m->free_s, *n; s; s = n) {
        n = s->next;
        free(s);
    }
    for (struct precv *r = m->free_r, *n; r; r = n) {
        n = r->next;
        free(r);
    }
    for (struct chan *c = m->free_c, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(m->rs);
    free(m->cs);
    free(m->tab);
    free(m->ops);
    free(m->find);
    free(m->find_idx);
    free(m);
}
