/*
 * export_otf2.c — `mpilens export --format=otf2`: the run as an OTF2
 * archive (Vampir, Scalasca, ViTE, otf2-print), written with libotf2.  Only
 * the tool links libotf2, never the runtime; without it at build time this
 * format says so and the rest of mpilens works.
 *
 * What is written:
 *   definitions  a system tree (machine, one node per host), one location
 *                group per rank, one location per thread of a rank, one
 *                region per MPI routine, one communicator per communicator
 *                of the run (a COMM_GROUP of world ranks over the
 *                COMM_LOCATIONS group of the ranks' first threads)
 *   events       Enter/Leave per call; MpiSend/MpiRecv for blocking
 *                point-to-point, MpiIsend/MpiIsendComplete and
 *                MpiIrecvRequest/MpiIrecv for nonblocking and persistent
 *                requests (request id unique per rank and activation),
 *                MpiRequestCancelled for one that completed as cancelled:
 *                every MpiIsend and MpiIrecvRequest is closed once, by
 *                MpiIsendComplete, MpiIrecv or MpiRequestCancelled (when
 *                its completion or free was recorded), and nothing
 *                else is (none on MPI_PROC_NULL, none for inactive
 *                persistent requests waited on or freed);
 *                MpiCollectiveBegin/End for collectives, with the bytes
 *                each member sends and receives by its role
 *                (an_coll_bytes: a non-root of MPI_Bcast receives)
 * Location ids: a rank's first thread is the rank (as Score-P writes them,
 * and ViTE looks up a process's location by its rank), thread t of rank r
 * is t << 32 | r.
 * Times: nanoseconds on rank 0's clock (aligned and repaired as in the
 * report) from the run's first call.  Peers and roots are ranks in the
 * communicator's group; an inter-communicator's group is both groups
 * together (OTF2's InterComm is not used), so a peer or root there, a rank
 * in the remote group in MPI, is written as its place in that group
 * (inter_rank), and MPI_ROOT as the root's own place.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exchange.h"
#include "export.h"
#include "tool.h"

#ifdef ML_NO_OTF2

int export_otf2(struct an_run *run, const char *out, int progress)
{
    (void)run;
    (void)out;
    fprintf(stderr, "mpilens export: this mpilens was built without libotf2 (Debian: libotf2-trace-dev); "
                    "rebuild with it for --format=otf2\n");
    return -1;
}

#else

#include <otf2/otf2.h>

struct loc {                      /* one thread of one rank */
    OTF2_EvtWriter *w;
    uint64_t events;
    uint64_t tid;
};

struct ox {
    struct an_run *run;
    OTF2_Archive *ar;
    struct loc **locs;            /* per rank slot: per thread */
    unsigned *nlocs;
    int64_t origin, last;
    int have_origin;
    int failed;
    char **strs;                  /* string definitions, id = index */
    unsigned nstrs, capstrs;
    uint64_t events, sends, recvs, colls;
    uint64_t unfinished;          /* calls in progress when their rank stopped or died */
    OTF2_AttributeList *attrs;    /* for their Enter: attribute 0 "mpilens:unfinished" */
    /* the sends of calls unfinished when their rank stopped (their record
     * has no size) that a receive took: the size received, per world rank
     * and thread (one unfinished call per thread), from the matching pass */
    struct unsized { int32_t rank; uint32_t thread, bytes; } *usz;
    unsigned nusz, capusz;
    /* a sliced run, at process 0: every rank's locations, gathered */
    unsigned *gnt;                /* per world rank: threads */
    uint64_t **gev;               /* per world rank and thread: events + 1, 0 no location */
    int32_t **ipos;               /* per inter-communicator, made when first needed: world rank ->
                                   * place in its group, -1 not in it */
};

/* The place of world rank w in the group of inter-communicator `comm` (both
 * groups, as write_defs writes them); `other` for any other communicator,
 * or a rank not in it. */
static int32_t inter_rank(struct ox *x, uint32_t comm, int w, int32_t other)
{
    const struct an_run *run = x->run;
    if (comm >= run->ncomms || !run->comms[comm].inter || !run->comms[comm].members || w < 0 || w >= run->size)
        return other;
    if (!x->ipos && !(x->ipos = calloc(run->ncomms, sizeof *x->ipos))) return other;
    int32_t *m = x->ipos[comm];
    if (!m) {
        if (!(m = x->ipos[comm] = malloc((size_t)run->size * sizeof *m))) return other;
        for (int i = 0; i < run->size; i++) m[i] = -1;
        const struct an_comm *cm = &run->comms[comm];
        for (uint32_t k = 0; k < cm->size; k++)
            if (cm->members[k] >= 0 && cm->members[k] < run->size) m[cm->members[k]] = (int32_t)k;
    }
    return m[w] >= 0 ? m[w] : other;
}

static void ipos_free(struct ox *x)
{
    for (unsigned c = 0; x->ipos && c < x->run->ncomms; c++) free(x->ipos[c]);
    free(x->ipos);
    x->ipos = NULL;
}

/* The threads of world rank `rank` (locations t < this), and whether
 * thread t is a location, with its events. */
static unsigned rank_threads(const struct ox *x, int rank)
{
    if (x->gnt) return x->gnt[rank];
    int slot = x->run->slot[rank];
    return slot >= 0 ? x->nlocs[slot] : 0;
}

static int rank_loc(const struct ox *x, int rank, unsigned t, uint64_t *events)
{
    if (x->gnt) {
        *events = x->gev[rank][t] ? x->gev[rank][t] - 1 : 0;
        return x->gev[rank][t] != 0;
    }
    const struct loc *l = &x->locs[x->run->slot[rank]][t];
    *events = l->events;
    return l->w != NULL;
}

static const char *rank_host(const struct ox *x, int rank)
{
    if (x->run->slice) return x->run->slice->host[rank];
    int slot = x->run->slot[rank];
    return slot >= 0 ? mlr_host(x->run->ranks[slot].f) : NULL;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud;
    (void)ft;
    (void)loc;
    (void)cd;
    (void)final;
    return OTF2_FLUSH;
}

/* no post-flush callback: no BufferFlush records in the trace */
static OTF2_FlushCallbacks flush_cb = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};

/* OTF2's errors (a full disk: several lines per failed call, and a close
 * that still returns success) are kept here, the first one, instead of
 * printed: the export says in one line that the archive could not be
 * written, and removes it. */
static char otf2_err[512];
static int otf2_nerr;

static OTF2_ErrorCode on_otf2_error(void *u, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode ec,
                                    const char *fmt, va_list va)
{
    (void)u, (void)file, (void)line, (void)fn;
    if (otf2_nerr++ == 0) {
        int n = snprintf(otf2_err, sizeof otf2_err, "%s", OTF2_Error_GetDescription(ec));
        if (fmt && n >= 0 && (size_t)n + 2 < sizeof otf2_err) {
            snprintf(otf2_err + n, sizeof otf2_err - (size_t)n, ": ");
            vsnprintf(otf2_err + n + 2, sizeof otf2_err - (size_t)n - 2, fmt, va);
        }
    }
    return ec;
}

/* Location ids as Score-P writes them and ViTE expects: a rank's first
 * thread is the rank itself, thread t of rank r is t << 32 | r. */
static uint64_t loc_id(int rank, unsigned thread)
{
    return (uint64_t)thread << 32 | (uint32_t)rank;
}

static uint32_t str_id(struct ox *x, const char *s)
{
    for (unsigned i = 0; i < x->nstrs; i++)
        if (strcmp(x->strs[i], s) == 0) return i;
    if (x->nstrs == x->capstrs) {
        unsigned cap = x->capstrs ? x->capstrs * 2 : 256;
        char **p = realloc(x->strs, cap * sizeof *p);
        if (!p) return 0;
        x->strs = p;
        x->capstrs = cap;
    }
    x->strs[x->nstrs] = strdup(s);
    return x->strs[x->nstrs] ? x->nstrs++ : 0;
}

static struct loc *loc_get(struct ox *x, unsigned slot, unsigned thread)
{
    if (thread >= 65536) return NULL;
    if (thread >= x->nlocs[slot]) {
        unsigned n = thread + 4;
        struct loc *p = realloc(x->locs[slot], n * sizeof *p);
        if (!p) return NULL;
        memset(p + x->nlocs[slot], 0, (n - x->nlocs[slot]) * sizeof *p);
        x->locs[slot] = p;
        x->nlocs[slot] = n;
    }
    struct loc *l = &x->locs[slot][thread];
    if (!l->w) {
        l->w = OTF2_Archive_GetEvtWriter(x->ar, loc_id(x->run->ranks[slot].rank, thread));
        if (!l->w) x->failed = 1;
    }
    return l->w ? l : NULL;
}

static int coll_op(const char *name)
{
    static const struct { const char *n; int op; } t[] = {
        {"Barrier", OTF2_COLLECTIVE_OP_BARRIER},       {"Bcast", OTF2_COLLECTIVE_OP_BCAST},
        {"Gather", OTF2_COLLECTIVE_OP_GATHER},         {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
        {"Scatter", OTF2_COLLECTIVE_OP_SCATTER},       {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
        {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},   {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
        {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},     {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
        {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},   {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
        {"Reduce", OTF2_COLLECTIVE_OP_REDUCE},         {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
        {"Scan", OTF2_COLLECTIVE_OP_SCAN},             {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN},
        {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
        {"Neighbor_allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
        {"Neighbor_allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
        {"Neighbor_alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
        {"Neighbor_alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
        {"Neighbor_alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
    };
    char b[64];
    if (strncasecmp(name, "MPI_", 4) == 0) name += 4;
    else if (strncasecmp(name, "MPIX_", 5) == 0) name += 5;   /* Open MPI 4.1's persistent collectives */
    snprintf(b, sizeof b, "%s", name);
    size_t l = strlen(b);
    if (l > 2 && strcasecmp(b + l - 2, "_c") == 0) b[l -= 2] = 0;
    if (l > 5 && strcasecmp(b + l - 5, "_init") == 0) b[l -= 5] = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *n = pass == 0 ? b : b + 1;   /* then without the nonblocking I */
        if (pass == 1 && (b[0] != 'I' && b[0] != 'i')) break;
        for (size_t i = 0; i < sizeof t / sizeof *t; i++)
            if (strcasecmp(n, t[i].n) == 0) return t[i].op;
    }
    return -1;
}

static OTF2_RegionRole region_role(const char *name, int role)
{
    switch (role) {
    case AN_SEND: case AN_ISEND: case AN_RECV: case AN_IRECV: case AN_SEND_INIT: case AN_RECV_INIT:
    case AN_SENDRECV: case AN_ISENDRECV: case AN_PROBE: case AN_MPROBE: case AN_IMPROBE: case AN_START:
        return OTF2_REGION_ROLE_POINT2POINT;
    }
    switch (coll_op(name)) {
    case OTF2_COLLECTIVE_OP_BARRIER: return OTF2_REGION_ROLE_BARRIER;
    case OTF2_COLLECTIVE_OP_BCAST: case OTF2_COLLECTIVE_OP_SCATTER: case OTF2_COLLECTIVE_OP_SCATTERV:
        return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV: case OTF2_COLLECTIVE_OP_REDUCE:
        return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case -1: return OTF2_REGION_ROLE_FUNCTION;
    }
    return OTF2_REGION_ROLE_COLL_ALL2ALL;
}

static void ox_unsized(void *ctx, const struct an_msg *m)
{
    struct ox *x = ctx;
    if (!m->send.unsized) return;
    if (x->nusz == x->capusz) {
        unsigned cap = x->capusz ? x->capusz * 2 : 16;
        struct unsized *u = realloc(x->usz, cap * sizeof *u);
        if (!u) return;
        x->usz = u;
        x->capusz = cap;
    }
    x->usz[x->nusz++] = (struct unsized){m->send.rank, m->send.thread, m->bytes};
}

/* An unfinished call's send: the size its receiver got, 0 if none took it */
static uint32_t unsized_bytes(const struct ox *x, int32_t rank, uint32_t thread)
{
    for (unsigned i = 0; i < x->nusz; i++)
        if (x->usz[i].rank == rank && x->usz[i].thread == thread) return x->usz[i].bytes;
    return 0;
}

static void ox_event(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    struct ox *x = ctx;
    const struct an_rank *r = e->r;
    const struct mlr_event *ev = &e->ev;
    if (!x->have_origin) {
        x->origin = e->t0;
        x->have_origin = 1;
    }
    /* a run of equal unsuccessful polls (one record and a REPEAT) is one
     * Enter/Leave pair to the last one's end, as the Perfetto slice: the
     * rank polled all that time (it left after the first call, and a
     * viewer showed a 1.5 s MPI_Test loop as 1 us of MPI) */
    int64_t end = an_wadd(e->t1, ev->repeat ? an_wsub(ev->repeat_end_ns, ev->end_ns) : 0);
    if (end < e->t1) end = e->t1;
    if (end > x->last) x->last = end;
    struct loc *l = loc_get(x, (unsigned)(r - x->run->ranks), ev->thread);
    if (!l) return;
    l->tid = ev->tid;
    OTF2_TimeStamp t0 = (uint64_t)e->t0 - (uint64_t)x->origin, t1 = (uint64_t)end - (uint64_t)x->origin;
    OTF2_RegionRef region = ev->routine < r->nroutines ? r->name[ev->routine] : 0;
    OTF2_EvtWriter *w = l->w;
    uint64_t n = 0;
    /* a call in progress when its rank stopped or died: Enter with the
     * attribute mpilens:unfinished = 1, Leave at the rank's last known time */
    OTF2_AttributeList *al = NULL;
    if (ev->unfinished && (x->attrs || (x->attrs = OTF2_AttributeList_New()))) {
        al = x->attrs;
        OTF2_AttributeList_RemoveAllAttributes(al);
        OTF2_AttributeList_AddUint8(al, 0, 1);
        x->unfinished++;
    }
    OTF2_EvtWriter_Enter(w, al, t0, region);
    n++;
    int op = -1;
    int role = ev->routine < r->nroutines ? r->role[ev->routine] : AN_OTHER;
    if (ev->type == ML_REC_COLL && !(role == AN_COLL_INIT && ev->request)) {   /* (a persistent init: local) */
        op = coll_op(mlr_routine_name(r->f, ev->routine));
        if (op < 0) op = OTF2_COLLECTIVE_OP_BARRIER;   /* unknown kind: still a collective */
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t0);
        n++;
    }
    for (unsigned i = 0; i < nops; i++) {   /* what starts at the call's start */
        const struct an_op *o = &ops[i];
        if (o->comm == UINT32_MAX) continue;
        switch (o->kind) {
        case AN_OP_SEND:
            if (o->peer_comm < 0) break;
            OTF2_EvtWriter_MpiSend(w, NULL, t0, (uint32_t)inter_rank(x, o->comm, o->peer, o->peer_comm), o->comm,
                                   (uint32_t)o->tag,
                                   ev->unfinished && !o->bytes ? unsized_bytes(x, r->rank, ev->thread) : o->bytes);
            n++;
            x->sends++;
            break;
        case AN_OP_ISEND:
            if (o->peer_comm < 0) break;
            if (o->req == 0)   /* no request recorded: nothing will complete it */
                OTF2_EvtWriter_MpiSend(w, NULL, t0, (uint32_t)inter_rank(x, o->comm, o->peer, o->peer_comm), o->comm,
                                       (uint32_t)o->tag, o->bytes);
            else
                OTF2_EvtWriter_MpiIsend(w, NULL, t0, (uint32_t)inter_rank(x, o->comm, o->peer, o->peer_comm),
                                        o->comm, (uint32_t)o->tag, o->bytes, o->req);
            n++;
            x->sends++;
            break;
        case AN_OP_IRECV:
            if (o->req == 0) break;
            OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t0, o->req);
            n++;
            break;
        }
    }
    /* MPI_Start(all) of persistent collectives: each one operation, as a
     * nonblocking collective's call is (the last one ends with the call) */
    unsigned npc = 0, kpc = 0;
    for (unsigned i = 0; i < nops; i++) npc += ops[i].kind == AN_OP_COLL_START;
    for (unsigned i = 0; npc && i < nops; i++) {
        const struct an_op *o = &ops[i];
        if (o->kind != AN_OP_COLL_START) continue;
        const char *nm = o->name < x->run->nnames ? x->run->names[o->name] : "";
        int pop = coll_op(nm);
        uint64_t sent, recv;
        an_coll_bytes(x->run, r, nm, &o->coll, &sent, &recv);
        int inter = o->comm < x->run->ncomms && x->run->comms[o->comm].inter;
        uint32_t root = o->coll.root >= 0 && !inter ? (uint32_t)o->coll.root : OTF2_UNDEFINED_UINT32;
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t0);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, ++kpc == npc ? t1 : t0,
                                        (OTF2_CollectiveOp)(pop < 0 ? OTF2_COLLECTIVE_OP_BARRIER : pop),
                                        o->comm < x->run->ncomms ? o->comm : OTF2_UNDEFINED_COMM, root, sent, recv);
        n += 2;
        x->colls++;
    }
    /* What completes at its end.  The matcher closes each request it
     * opened exactly once (analysis.h, an_op), so these are written as they
     * come, with an unknown communicator or sender left undefined. */
    for (unsigned i = 0; i < nops; i++) {
        const struct an_op *o = &ops[i];
        switch (o->kind) {
        case AN_OP_SEND_DONE:
            OTF2_EvtWriter_MpiIsendComplete(w, NULL, t1, o->req);
            n++;
            break;
        case AN_OP_CANCELLED:
            OTF2_EvtWriter_MpiRequestCancelled(w, NULL, t1, o->req);
            n++;
            break;
        case AN_OP_RECV:
            if (o->comm == UINT32_MAX || o->peer_comm < 0) break;
            OTF2_EvtWriter_MpiRecv(w, NULL, t1, (uint32_t)inter_rank(x, o->comm, o->peer, o->peer_comm), o->comm,
                                   (uint32_t)o->tag, o->bytes);
            n++;
            x->recvs++;
            break;
        case AN_OP_RECV_DONE:
            OTF2_EvtWriter_MpiIrecv(w, NULL, t1,
                                    o->peer_comm >= 0 ? (uint32_t)inter_rank(x, o->comm, o->peer, o->peer_comm)
                                                      : OTF2_UNDEFINED_UINT32,
                                    o->comm == UINT32_MAX ? OTF2_UNDEFINED_COMM : o->comm,
                                    o->tag >= 0 ? (uint32_t)o->tag : OTF2_UNDEFINED_UINT32, o->bytes, o->req);
            n++;
            x->recvs++;
            break;
        }
    }
    if (op >= 0) {
        const struct ml_coll *c = &ev->coll;
        uint32_t comm = c->comm < r->ncomms ? r->comm[c->comm] : UINT32_MAX;
        uint32_t root = c->root >= 0 ? (uint32_t)c->root : OTF2_UNDEFINED_UINT32;
        if (comm < x->run->ncomms && x->run->comms[comm].inter) {   /* remote rank, or MPI_ROOT: this rank */
            int w = c->root == r->mpi_root ? r->rank : an_peer_world(x->run, r, c->comm, c->root);
            int32_t k = inter_rank(x, comm, w, -1);
            root = k >= 0 ? (uint32_t)k : OTF2_UNDEFINED_UINT32;
        }
        uint64_t sent, recv;   /* by this member's role (analysis.h) */
        an_coll_bytes(x->run, r, mlr_routine_name(r->f, ev->routine), c, &sent, &recv);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t1, (OTF2_CollectiveOp)op,
                                        comm == UINT32_MAX ? OTF2_UNDEFINED_COMM : comm, root, sent, recv);
        n++;
        x->colls++;
    }
    OTF2_EvtWriter_Leave(w, NULL, t1, region);
    n++;
    l->events += n;
    x->events++;
}

/* A rank of the job without a rank file is still a location (of the
 * communicators' group), and readers open every location's files: empty
 * ones for it.  evt: between OpenEvtFiles and CloseEvtFiles, else between
 * OpenDefFiles and CloseDefFiles.  Ranks with no file that `mine` says
 * this process writes. */
static void write_absent(struct ox *x, int evt, int mine)
{
    const struct an_run *run = x->run;
    for (int rank = 0; mine && rank < run->size; rank++) {
        if (run->slice ? run->slice->owner[rank] >= 0 : run->slot[rank] >= 0) continue;
        if (evt) {
            OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(x->ar, loc_id(rank, 0));
            if (w) OTF2_Archive_CloseEvtWriter(x->ar, w);
        } else {
            OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(x->ar, loc_id(rank, 0));
            if (d) OTF2_Archive_CloseDefWriter(x->ar, d);
        }
    }
}

static int split_out(const char *out, char *dir, size_t dn, char *name, size_t nn)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", out);
    size_t l = strlen(tmp);
    if (l > 5 && strcmp(tmp + l - 5, ".otf2") == 0) tmp[l -= 5] = 0;
    while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
    char *s = strrchr(tmp, '/');
    if (s) {
        *s = 0;
        snprintf(dir, dn, "%s", s == tmp ? "/" : tmp);
        snprintf(name, nn, "%s", s + 1);
    } else {
        snprintf(dir, dn, ".");
        snprintf(name, nn, "%s", tmp);
    }
    return name[0] ? 0 : -1;
}

static int mkdirs(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* Global definitions.  Run twice: with g == NULL only the strings are
 * collected (str_id is never called inside W), so they can be written
 * before anything refers to them. */
#define W(call)      \
    do {             \
        if (g) call; \
    } while (0)

static void write_defs(struct ox *x, OTF2_GlobalDefWriter *g)
{
    struct an_run *run = x->run;
    str_id(x, "");
    uint64_t len = x->last > x->origin ? (uint64_t)x->last - (uint64_t)x->origin : 0;
    W(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ull, 0, len + 1, OTF2_UNDEFINED_TIMESTAMP));
    /* regions first (their ids are the routine name ids) */
    uint32_t mpi_file = str_id(x, "MPI");
    for (unsigned n = 0; n < run->nnames; n++) {
        uint32_t s = str_id(x, run->names[n]);
        W(OTF2_GlobalDefWriter_WriteRegion(g, n, s, s, s, region_role(run->names[n], run->name_role[n]),
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, mpi_file, 0, 0));
    }
    if (x->unfinished) {
        uint32_t an = str_id(x, "mpilens:unfinished"),
                 ad = str_id(x, "1: the call was in progress when its rank stopped or died; it leaves at the "
                                "rank's last known time");
        W(OTF2_GlobalDefWriter_WriteAttribute(g, 0, an, ad, OTF2_TYPE_UINT8));
    }
    /* system tree: the machine, one node per host */
    uint32_t s_machine = str_id(x, "machine"), s_node = str_id(x, "node");
    W(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_machine, s_machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    const char **hosts = calloc(run->size ? run->size : 1, sizeof *hosts);
    unsigned nhosts = 0;
    uint32_t *host_of = calloc(run->size ? run->size : 1, sizeof *host_of);   /* per world rank */
    for (int i = 0; hosts && host_of && i < run->size; i++) {
        const char *h = rank_host(x, i);
        if (!h) continue;
        unsigned k;
        for (k = 0; k < nhosts && strcmp(hosts[k], h) != 0; k++) {
        }
        if (k == nhosts) {
            hosts[nhosts++] = h;
            uint32_t s_host = str_id(x, h);
            W(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, k + 1, s_host, s_node, 0));
        }
        host_of[i] = k + 1;
    }
    /* location groups (every rank of the job), locations */
    uint64_t *world = calloc(run->size ? run->size : 1, sizeof *world);
    for (int rank = 0; world && rank < run->size; rank++) {
        char b[64];
        snprintf(b, sizeof b, "rank %d", rank);
        uint32_t s_rank = str_id(x, b);
        W(OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)rank, s_rank, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                host_of ? host_of[rank] : 0, OTF2_UNDEFINED_LOCATION_GROUP));
        world[rank] = loc_id(rank, 0);
        unsigned nt = rank_threads(x, rank);
        for (unsigned t = 0; t < nt || t == 0; t++) {
            uint64_t events = 0;
            int has = t < nt && rank_loc(x, rank, t, &events);
            if (t > 0 && !has) continue;
            snprintf(b, sizeof b, "rank %d thread %u", rank, t);
            uint32_t s_thread = str_id(x, b);
            W(OTF2_GlobalDefWriter_WriteLocation(g, loc_id(rank, t), s_thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                               events, (uint32_t)rank));
        }
    }
    /* communicators: group 0 = the ranks' first threads; group c+1 = comm c */
    uint32_t s_locs = str_id(x, "MPI_COMM_WORLD locations"), s_empty = str_id(x, "");
    if (world)
        W(OTF2_GlobalDefWriter_WriteGroup(g, 0, s_locs, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)run->size, world));
    uint32_t world_comm = OTF2_UNDEFINED_COMM;
    for (unsigned c = 0; c < run->ncomms; c++)
        if (run->comms[c].world) world_comm = c;
    for (unsigned c = 0; c < run->ncomms; c++) {
        const struct an_comm *cm = &run->comms[c];
        uint64_t *mem = malloc((cm->size ? cm->size : 1) * sizeof *mem);
        if (!mem) continue;
        for (uint32_t k = 0; k < cm->size; k++) mem[k] = cm->world ? k : (uint64_t)cm->members[k];
        char name[160];
        an_comm_name(run, c, name, sizeof name);
        uint32_t s_comm = str_id(x, name);
        W(OTF2_GlobalDefWriter_WriteGroup(g, c + 1, s_empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, cm->size, mem));
        /* the parent must be defined before (a reader resolves a reference
         * only to a definition already read, and ids come in order): a
         * communicator numbered before MPI_COMM_WORLD (MPI_COMM_SELF used
         * first) has none; it named an invalid one */
        W(OTF2_GlobalDefWriter_WriteComm(g, c, s_comm, c + 1, cm->world || c < world_comm ? OTF2_UNDEFINED_COMM : world_comm,
                                         OTF2_COMM_FLAG_NONE));
        free(mem);
    }
    free(world);
    free(hosts);
    free(host_of);
}

/* Whether the archive out can be made: a name, nothing there, the folder
 * made.  0, or -1 with the reason on stderr. */
static int archive_check(const char *out, char *dir, size_t dn, char *name, size_t nn)
{
    char path[5200];
    struct stat st;
    if (strcmp(out, "-") == 0) {   /* standard output for the JSON; an archive is several files */
        fprintf(stderr, "mpilens export: an OTF2 archive is several files and cannot go to standard output; "
                        "give -o DIR/NAME\n");
        return -1;
    }
    if (split_out(out, dir, dn, name, nn)) {
        fprintf(stderr, "mpilens export: '%s' names no archive; give -o DIR/NAME\n", out);
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s.otf2", dir, name);
    int exists = stat(path, &st) == 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (exists || stat(path, &st) == 0) {
        fprintf(stderr, "mpilens export: %s/%s.otf2 or %s/ exists; an existing archive is never overwritten\n",
                dir, name, path);
        return -1;
    }
    if (mkdirs(dir) != 0) {
        fprintf(stderr, "mpilens export: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* The archive dir/name that this export made (it did not exist): gone. */
static void archive_remove(const char *dir, const char *name)
{
    char path[5200], f[5500];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(f, sizeof f, "%s/%s", path, e->d_name);
        unlink(f);
    }
    if (d) closedir(d);
    rmdir(path);
    snprintf(f, sizeof f, "%s/%s.otf2", dir, name);
    unlink(f);
    snprintf(f, sizeof f, "%s/%s.def", dir, name);
    unlink(f);
}

/* x for run, its per-rank location tables and the archive dir/name opened
 * for writing (x.ar, x.locs or x.nlocs NULL when that failed). */
static void ox_open(struct ox *x, struct an_run *run, const char *dir, const char *name)
{
    memset(x, 0, sizeof *x);
    x->run = run;
    x->locs = calloc(run->n ? run->n : 1, sizeof *x->locs);
    x->nlocs = calloc(run->n ? run->n : 1, sizeof *x->nlocs);
    x->ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                              OTF2_COMPRESSION_NONE);
}

/* A sliced run (docs/PARALLEL.md): every process writes the locations of
 * its own ranks, process 0 the global definitions from what the others
 * tell it (each location's events, the unfinished calls). */
static int export_otf2_sliced(struct an_run *run, const char *out, int progress)
{
    struct an_xch *xc = run->slice->x;
    int me = xc->rank;
    char dir[4096], name[1024];
    int64_t bad = me == 0 ? archive_check(out, dir, sizeof dir, name, sizeof name) != 0 : 0;
    xc->bcast(xc, &bad, sizeof bad);
    if (bad) return -1;
    split_out(out, dir, sizeof dir, name, sizeof name);
    if (!tool_otf2_parallel) {
        if (me == 0) fprintf(stderr, "mpilens export: this engine was built without OTF2's MPI collectives\n");
        return -1;
    }
    /* clocks to repair: the first archive is removed, the clocks repaired
     * across the slices (an_slice_repair), and the archive written again */
    struct an_slice_sends xs;
    memset(&xs, 0, sizeof xs);
    struct an_slice_repair rep;
    memset(&rep, 0, sizeof rep);
    int repaired = 0;
again:;
    /* the times are relative to the run's first call, over all slices */
    int64_t origin = an_slice_first(run);
    struct ox x;
    ox_open(&x, run, dir, name);
    bad = !x.ar || !x.locs || !x.nlocs;
    if (x.ar) {
        OTF2_Archive_SetFlushCallbacks(x.ar, &flush_cb, NULL);
        if (tool_otf2_parallel(x.ar) != 0) bad = 1;
    }
    xc->reduce_i64(xc, &bad, 1, AN_XCH_MAX);
    if (bad) xc->fail(xc, "mpilens export: cannot create the OTF2 archive");
    OTF2_Archive_SetCreator(x.ar, "mpilens export");
    OTF2_Archive_OpenEvtFiles(x.ar);
    for (unsigned i = 0; i < run->n; i++) loc_get(&x, i, 0);
    x.origin = origin;
    x.have_origin = 1;
    /* written while the sends to other slices are collected, then checked
     * (docs/PARALLEL.md): the archive stands only if no clock needs repair */
    struct an_sink sink = {&x, ox_event, NULL, NULL};
    struct an_slice_clocks ck;
    memset(&ck, 0, sizeof ck);
    int64_t rc = repaired ? an_slice_pass(run, &sink, progress && me == 0, &ck.first, &ck.last) != 0
                          : an_slice_check(run, &sink, progress && me == 0, &ck, &xs) != 0;
    x.last = ck.last;
    for (unsigned i = 0; i < run->n; i++)
        for (unsigned t = 0; t < x.nlocs[i]; t++)
            if (x.locs[i][t].w) OTF2_Archive_CloseEvtWriter(x.ar, x.locs[i][t].w);
    write_absent(&x, 1, me == 0);
    OTF2_Archive_CloseEvtFiles(x.ar);
    OTF2_Archive_OpenDefFiles(x.ar);
    for (unsigned i = 0; i < run->n; i++)
        for (unsigned t = 0; t < x.nlocs[i]; t++) {
            if (!x.locs[i][t].w) continue;
            OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(x.ar, loc_id(run->ranks[i].rank, t));
            if (d) OTF2_Archive_CloseDefWriter(x.ar, d);
        }
    write_absent(&x, 0, me == 0);
    OTF2_Archive_CloseDefFiles(x.ar);
    /* this slice's locations, to process 0: rank, threads, events + 1 per thread (0: none) */
    size_t len = 0;
    for (unsigned i = 0; i < run->n; i++) len += 8 + 8 * (size_t)x.nlocs[i];
    uint64_t *mine = malloc(len ? len : 1), *w = mine;
    if (!mine) xc->fail(xc, "mpilens export: out of memory");
    for (unsigned i = 0; i < run->n; i++) {
        *w++ = (uint64_t)run->ranks[i].rank << 32 | x.nlocs[i];
        for (unsigned t = 0; t < x.nlocs[i]; t++) *w++ = x.locs[i][t].w ? x.locs[i][t].events + 1 : 0;
    }
    void *all = NULL;
    size_t *lens = malloc((size_t)xc->size * sizeof *lens);
    if (!lens || xc->gather(xc, mine, len, &all, lens) != 0) xc->fail(xc, "mpilens export: the exchange failed");
    int64_t v[6] = {(int64_t)x.unfinished, (int64_t)x.events, (int64_t)x.sends, (int64_t)x.recvs,
                    (int64_t)x.colls, rc || x.failed};
    xc->reduce_i64(xc, v, 5, AN_XCH_SUM);
    xc->reduce_i64(xc, v + 5, 1, AN_XCH_MAX);
    x.unfinished = (uint64_t)v[0];
    rc = v[5];
    if (me == 0 && !ck.repairable) {
        size_t total = 0;
        for (int p = 0; p < xc->size; p++) total += lens[p];
        x.gnt = calloc((size_t)run->size + 1, sizeof *x.gnt);
        x.gev = calloc((size_t)run->size + 1, sizeof *x.gev);
        if (!x.gnt || !x.gev) xc->fail(xc, "mpilens export: out of memory");
        for (const uint64_t *p = all, *end = (const uint64_t *)((const char *)all + total); p < end;) {
            int rank = (int)(*p >> 32);
            unsigned nt = (unsigned)(*p++ & 0xffffffffu);
            if (rank < 0 || rank >= run->size || (size_t)(end - p) < nt) break;
            x.gnt[rank] = nt;
            x.gev[rank] = nt ? malloc(nt * sizeof **x.gev) : NULL;
            if (nt && !x.gev[rank]) xc->fail(xc, "mpilens export: out of memory");
            if (nt) memcpy(x.gev[rank], p, nt * sizeof **x.gev);
            p += nt;
        }
        write_defs(&x, NULL);
        OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x.ar);
        if (g) {
            for (unsigned i = 0; i < x.nstrs; i++) OTF2_GlobalDefWriter_WriteString(g, i, x.strs[i]);
            write_defs(&x, g);
            OTF2_Archive_CloseGlobalDefWriter(x.ar, g);
        } else {
            rc = 1;
        }
    }
    free(all);
    free(lens);
    free(mine);
    OTF2_ErrorCode ec = OTF2_Archive_Close(x.ar);
    int64_t failed = ec != OTF2_SUCCESS || rc;
    xc->reduce_i64(xc, &failed, 1, AN_XCH_MAX);
    if (ec != OTF2_SUCCESS)
        fprintf(stderr, "mpilens export: writing the OTF2 archive failed: %s (analysis process %d)\n",
                OTF2_Error_GetDescription(ec), me);
    /* (ck.repairable is the whole job's) clocks to repair: repaired across
     * the slices, then written again; where the slices cannot give the
     * serial clocks, the caller has process 0 export the run alone */
    int redo = ck.repairable && !failed, serial = 0;
    if (redo) {
        if (!ck.too_large) an_slice_repair(run, &xs, progress && me == 0, &rep);
        serial = ck.too_large || rep.too_large || !rep.converged;
    }
    an_slice_sends_free(&xs, xc->size);
    if (redo && me == 0) archive_remove(dir, name);
    if (serial && me == 0 && progress)
        fprintf(stderr, "mpilens export: note: by the measured clock offsets, %llu message%s of this run "
                        "end%s before %s send began, and %s, so process 0 exports the run alone\n",
                (unsigned long long)ck.repairable, ck.repairable == 1 ? "" : "s", ck.repairable == 1 ? "s" : "",
                ck.repairable == 1 ? "its" : "their",
                ck.too_large || rep.too_large ? "some end too long before it to be a clock error"
                                              : "the clocks still needed repair after 8 rounds across the slices");
    if (!failed && !redo && progress && me == 0)
        fprintf(stderr, "mpilens export: wrote %s/%s.otf2: %" PRIu64 " calls, %" PRIu64 " sends, %" PRIu64
                        " receives, %" PRIu64 " collective calls%s (%d processes)\n",
                dir, name, (uint64_t)v[1], (uint64_t)v[2], (uint64_t)v[3], (uint64_t)v[4],
                x.unfinished ? " (some unfinished)" : "", xc->size);
    if (x.attrs) OTF2_AttributeList_Delete(x.attrs);
    ipos_free(&x);
    for (unsigned i = 0; i < run->n; i++) free(x.locs[i]);
    for (int r = 0; x.gev && r < run->size; r++) free(x.gev[r]);
    free(x.gev);
    free(x.gnt);
    free(x.locs);
    free(x.nlocs);
    for (unsigned i = 0; i < x.nstrs; i++) free(x.strs[i]);
    free(x.strs);
    if (redo && !serial) {
        if (me == 0 && getenv("MPILENS_SLICE_LOG"))   /* tests: the clocks were repaired in slices */
            fprintf(stderr, "mpilens export: clocks repaired across slices in %u round%s\n", rep.rounds,
                    rep.rounds == 1 ? "" : "s");
        int64_t sync = 0;   /* the first archive is gone before it is made again */
        xc->reduce_i64(xc, &sync, 1, AN_XCH_MAX);
        repaired = 1;
        goto again;
    }
    return failed ? -1 : serial ? 2 : 0;
}

int export_otf2(struct an_run *run, const char *out, int progress)
{
    char dir[4096], name[1024];
    if (run->slice) return export_otf2_sliced(run, out, progress);
    if (archive_check(out, dir, sizeof dir, name, sizeof name)) return -1;
    struct ox x;
    otf2_nerr = 0;
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
    ox_open(&x, run, dir, name);
    if (!x.ar || !x.locs || !x.nlocs) {
        fprintf(stderr, "mpilens export: cannot create the OTF2 archive %s/%s%s%s\n", dir, name,
                otf2_nerr ? ": " : "", otf2_nerr ? otf2_err : "");
        free(x.locs);
        free(x.nlocs);
        if (x.ar) OTF2_Archive_Close(x.ar);
        return -1;
    }
    OTF2_Archive_SetFlushCallbacks(x.ar, &flush_cb, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(x.ar);
    OTF2_Archive_SetCreator(x.ar, "mpilens export");
    OTF2_Archive_OpenEvtFiles(x.ar);
    /* every rank's first thread is a location of the communicators */
    for (unsigned i = 0; i < run->n; i++) loc_get(&x, i, 0);
    struct an_sink sink = {&x, ox_event, NULL, NULL}, sizes = {&x, NULL, ox_unsized, NULL};
    struct an_result res;
    int rc = an_analyse(run, &sizes, &sink, progress, &res);
    an_result_free(&res);
    for (unsigned i = 0; i < run->n; i++)
        for (unsigned t = 0; t < x.nlocs[i]; t++)
            if (x.locs[i][t].w) OTF2_Archive_CloseEvtWriter(x.ar, x.locs[i][t].w);
    write_absent(&x, 1, 1);
    OTF2_Archive_CloseEvtFiles(x.ar);
    OTF2_Archive_OpenDefFiles(x.ar);
    for (unsigned i = 0; i < run->n; i++)
        for (unsigned t = 0; t < x.nlocs[i]; t++) {
            if (!x.locs[i][t].w) continue;
            OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(x.ar, loc_id(run->ranks[i].rank, t));
            if (d) OTF2_Archive_CloseDefWriter(x.ar, d);
        }
    write_absent(&x, 0, 1);
    OTF2_Archive_CloseDefFiles(x.ar);
    write_defs(&x, NULL);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x.ar);
    if (g) {
        for (unsigned i = 0; i < x.nstrs; i++) OTF2_GlobalDefWriter_WriteString(g, i, x.strs[i]);
        write_defs(&x, g);
        OTF2_Archive_CloseGlobalDefWriter(x.ar, g);
    } else {
        x.failed = 1;
    }
    OTF2_ErrorCode ec = OTF2_Archive_Close(x.ar);
    if (ec != OTF2_SUCCESS || otf2_nerr) {   /* no half-written archive left behind */
        fprintf(stderr, "mpilens export: writing the OTF2 archive %s/%s failed: %s; nothing kept\n", dir, name,
                otf2_nerr ? otf2_err : OTF2_Error_GetDescription(ec));
        archive_remove(dir, name);
        rc = -1;
    }
    if (x.failed) rc = -1;
    if (rc == 0 && progress)
        fprintf(stderr, "mpilens export: wrote %s/%s.otf2: %" PRIu64 " calls, %" PRIu64 " sends, %" PRIu64
                        " receives, %" PRIu64 " collective calls%s\n",
                dir, name, x.events, x.sends, x.recvs, x.colls, x.unfinished ? " (some unfinished)" : "");
    if (x.attrs) OTF2_AttributeList_Delete(x.attrs);
    ipos_free(&x);
    free(x.usz);
    for (unsigned i = 0; i < run->n; i++) free(x.locs[i]);
    free(x.locs);
    free(x.nlocs);
    for (unsigned i = 0; i < x.nstrs; i++) free(x.strs[i]);
    free(x.strs);
    return rc;
}

#endif
