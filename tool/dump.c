/*
 * dump.c — `mpilens dump DIR [--rank R]`: every recorded event, one line
 * each, in start-time order per rank:
 *
 *   <rank> <thread> <start_s> <end_s> <routine> <call site> [key=value ...]
 *
 * keys (help() says the same to the user): comm (the communicator by name:
 * MPI_COMM_WORLD, the name the program gave it with MPI_Comm_set_name
 * with the definition index, rows#2, else the call that created it,
 * MPI_Comm_split#2, or comm#3 for one defined where it was first used),
 * peer (world rank, or ANY_SOURCE / PROC_NULL), tag, bytes (this call's
 * send or receive size), type, root, rbytes (a collective's receive-buffer
 * size as passed), req (request handle), done (completed requests:
 * req/peer/tag/bytes each), recv_* (the receive half of a sendrecv),
 * result (error code when not MPI_SUCCESS), repeat=N until=T inside=S (a
 * call that completed nothing, followed by N more equal to it, the last
 * ending at T, S seconds inside them together: format REPEAT), lang=fortran, stack (recorded with mpilens run -k N, N > 1:
 * the call chain, innermost first, ';'-separated).  Call sites as "file.c:42", or
 * "function+0x1a(module)" with C++ names demangled.  Times are seconds on
 * the run's common time line.  Lines starting with '#' describe each rank
 * file and name its communicators.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "diag.h"
#include "symbols.h"
#include "tool.h"

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens dump DIR [--rank R] [--no-header]\n\n"
            "Prints every event recorded in run directory DIR (or in one rank file),\n"
            "one line each:\n"
            "  RANK THREAD START END ROUTINE SITE [KEY=VALUE ...]\n"
            "START and END are seconds on the run's common clock; SITE is file.c:42, or\n"
            "function+0x1a(module) (C++ names demangled) where there is no line information.\n"
            "Keys, where they apply:\n"
            "  comm=     the communicator: MPI_COMM_WORLD, the name the program gave it\n"
            "            (MPI_Comm_set_name; spaces as '_') and its number (rows#2), else the\n"
            "            call that created it and its number (MPI_Comm_split#2), or comm#N\n"
            "            (defined on first use); the '#' lines say who is in each\n"
            "  peer=     the other side as a world rank, or ANY_SOURCE, PROC_NULL;\n"
            "            CANCELLED in a completion: MPI_Cancel worked, no message\n"
            "  tag=      message tag          bytes=  bytes sent or received by this call\n"
            "  type=     datatype             root=   root of a collective (world rank)\n"
            "            (its name, spaces as _; derived#N(SIZE) for a derived type\n"
            "            without one)\n"
            "  rbytes=   a collective's receive count x receive type size, as passed\n"
            "  req=      request handle started by the call\n"
            "  done=     requests it completed: handle/peer/tag/bytes each, comma-separated\n"
            "            (a send's: its destination, tag and bytes; a nonblocking\n"
            "            collective's, or one whose status MPI left unset: its handle alone)\n"
            "  recv_*=   the receive half of a sendrecv (recv_comm, recv_peer, ...)\n"
            "  result=   the error code, when not MPI_SUCCESS\n"
            "  repeat=N until=T  N more equal calls that completed nothing, the last\n"
            "            ending at T\n"
            "  inside=S  the seconds those N calls took together (where the record says)\n"
            "  lang=fortran      called through a Fortran binding\n"
            "  stack=    the call chain, innermost frame (SITE) first, ';'-separated:\n"
            "            a run recorded with mpilens run -k N, N > 1\n\n"
            "  -r, --rank R     only rank R\n"
            "      --no-header  omit the '#' lines describing each rank file\n"
            "  -h, --help       this text\n");
}

/* A routine that returns a new communicator. */
static int constructor(const char *name)
{
    static const char *const pre[] = {"MPI_Comm_split", "MPI_Comm_dup", "MPI_Comm_idup", "MPI_Comm_create",
                                      "MPI_Cart_create", "MPI_Cart_sub", "MPI_Graph_create",
                                      "MPI_Dist_graph_create", "MPI_Intercomm_", "MPI_Comm_spawn",
                                      "MPI_Comm_accept", "MPI_Comm_connect", "MPI_Comm_join",
                                      "MPI_Comm_get_parent"};
    if (strstr(name, "keyval") || strstr(name, "errhandler")) return 0;
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
        if (!strncmp(name, pre[i], strlen(pre[i]))) return 1;
    return 0;
}

/* Communicator definition `index` of f by name: MPI_COMM_WORLD, rows#2
 * (named so with MPI_Comm_set_name), MPI_Comm_split#2 (created by that
 * call), comm#3 (defined on first use). */
static const char *comm_name(const struct mlr_file *f, uint16_t index, char *b, size_t n)
{
    const struct mlr_comm *c = mlr_comm(f, index);
    if (c && c->valid && (c->flags & 2)) snprintf(b, n, "MPI_COMM_WORLD");
    else if (c && c->name[0]) {
        /* the name the program gave it (MPI_Comm_set_name), one token */
        snprintf(b, n, "%s#%u", c->name, index);
        for (char *p = b; *p; p++)
            if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '=') *p = '_';
    } else if (c && c->valid && c->has_prev && constructor(mlr_routine_name(f, c->prev_routine)))
        snprintf(b, n, "%s#%u", mlr_routine_name(f, c->prev_routine), index);
    else snprintf(b, n, "comm#%u", index);
    return b;
}

/* Requests started by the rank: handle -> communicator, to name the peer of
 * a completion in world ranks; coll: a nonblocking collective's, whose
 * completion is no message (the status the library returns for it says
 * nothing: MPICH's may hold another request's source, tag and count);
 * send: a send's (nonblocking or persistent), whose status is undefined
 * but for MPI_Test_cancelled (Open MPI's holds an earlier receive's source
 * and size, MPICH's what the program's status held): its completion shows
 * the send's own destination, tag and bytes; nostatus: an MPI_Isendrecv's
 * whose completion status is not the receive's (MPICH 4.0: the runtime's
 * ML_SR_NOSTATUS), shown as its handle alone. */
#define REQ_SLOTS 65536
struct req_info {
    uint16_t comm;
    uint8_t coll;
    uint8_t send;
    uint8_t nostatus;
    uint8_t done;          /* completed once (a persistent request completes again) */
    int32_t peer;          /* a send's destination (comm rank), tag and bytes */
    int32_t tag;
    uint32_t bytes;
};
/* A handle's requests in the order they were made: an MPI gives one
 * handle to many requests at once when they completed as they were made
 * (MPICH's and Open MPI's small MPI_Isend: six of them, one handle, one
 * MPI_Waitall), and its completions take them in that order; usually one. */
static struct req_slot {
    uint64_t handle;
    unsigned head, n, cap;
    struct req_info *q;
} reqs[REQ_SLOTS];

static struct req_slot *req_slot(uint64_t h)
{
    unsigned s = (unsigned)((h * 0x9E3779B97F4A7C15ull) >> 48);
    for (unsigned i = 0; i < 64; i++) {
        struct req_slot *r = &reqs[(s + i) & (REQ_SLOTS - 1)];
        if (r->handle == h || r->handle == 0) return r;
    }
    return &reqs[s];
}

/* A request made with handle h: after those of h not yet completed (the
 * completed one before them, if any, is gone). */
static void req_made(uint64_t h, const struct req_info *x)
{
    struct req_slot *r = req_slot(h);
    if (r->handle != h) r->head = r->n = 0;
    r->handle = h;
    while (r->n && r->q[r->head].done) r->head++, r->n--;
    if (!r->n) r->head = 0;
    if (r->head + r->n == r->cap) {
        if (r->head) {
            memmove(r->q, r->q + r->head, r->n * sizeof *r->q);
            r->head = 0;
        } else if (r->cap >= 4096) {   /* never completed, thousands: the oldest goes */
            memmove(r->q, r->q + 1, (r->n - 1) * sizeof *r->q);
            r->n--;
        } else {
            unsigned c = r->cap ? r->cap * 2 : 1;
            struct req_info *q = realloc(r->q, c * sizeof *q);
            if (!q) return;
            r->q = q;
            r->cap = c;
        }
    }
    r->q[r->head + r->n++] = *x;
}

/* The request the j-th of m completions of h in one call is about (NULL:
 * none known).  m > 1: the MPI gave h to m requests that completed as they
 * were made, and the call completes the m made last, in the order they
 * were made; m = 1: the one made last (an earlier one that never completed
 * here was freed: MPI_Request_free).  Those made before are done with. */
static const struct req_info *req_done(uint64_t h, unsigned m, unsigned j)
{
    struct req_slot *r = req_slot(h);
    if (r->handle != h || !r->n) return NULL;
    if (j == 0 && r->n > m) {
        r->head += r->n - m;
        r->n = m;
    }
    struct req_info *x = &r->q[r->head + (j < r->n ? j : r->n - 1)];
    x->done = 1;
    return x;
}

static void req_reset(void)
{
    for (unsigned i = 0; i < REQ_SLOTS; i++) free(reqs[i].q);
    memset(reqs, 0, sizeof reqs);
}

/* For each completion of a call: how many of the call's completions name
 * its handle (m) and which of them it is (j). */
static void done_counts(const struct ml_done *d, uint32_t n, unsigned *m, unsigned *j)
{
    if (n <= 32) {
        for (uint32_t i = 0; i < n; i++) {
            m[i] = 1, j[i] = 0;
            for (uint32_t k = 0; k < n; k++)
                if (k != i && d[k].request == d[i].request) {
                    m[i]++;
                    j[i] += k < i;
                }
        }
        return;
    }
    /* a table of the call's handles: first index and count */
    unsigned cap = 64;
    while (cap < 2 * n) cap *= 2;
    uint32_t *t = malloc(cap * sizeof *t), *cnt = calloc(n, sizeof *cnt);
    if (!t || !cnt) {
        for (uint32_t i = 0; i < n; i++) m[i] = 1, j[i] = 0;
        free(t);
        free(cnt);
        return;
    }
    memset(t, 0xff, cap * sizeof *t);
    for (uint32_t i = 0; i < n; i++) {
        unsigned s = (unsigned)((d[i].request * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
        while (t[s] != UINT32_MAX && d[t[s]].request != d[i].request) s = (s + 1) & (cap - 1);
        if (t[s] == UINT32_MAX) t[s] = i;
        j[i] = cnt[t[s]]++;
        m[i] = t[s];   /* the first index for now */
    }
    for (uint32_t i = 0; i < n; i++) m[i] = cnt[m[i]];
    free(t);
    free(cnt);
}

static void put_peer(FILE *o, const struct mlr_file *f, const char *key, uint16_t comm, int32_t peer)
{
    if (peer == ML_PEER_NONE) return;
    const char *n = tool_peer_name(f, peer);
    if (n) {
        fprintf(o, " %s=%s", key, n);
        return;
    }
    int w = mlr_world_rank(f, comm, peer, 1);
    if (w >= 0) fprintf(o, " %s=%d", key, w);
    else fprintf(o, " %s=%d@comm", key, peer);
}

/* pfx: "recv_" for the receive half of a sendrecv (its own key) */
static void put_type(FILE *o, const struct mlr_file *f, uint16_t t, const char *pfx)
{
    if (t == ML_TYPE_NONE) return;
    const struct mlr_type *ty = mlr_type(f, t);
    if (!ty) fprintf(o, " %stype=#%u", pfx, t);
    else if (ty->name[0]) {
        /* one token, as every field: a name set with MPI_Type_set_name
         * may hold spaces */
        fprintf(o, " %stype=", pfx);
        for (const char *c = ty->name; *c; c++) putc(*c == ' ' || *c == '\t' || *c == '\n' ? '_' : *c, o);
    } else
        fprintf(o, " %stype=derived#%u(%d)", pfx, t, ty->size);
}

static void put_p2p(FILE *o, const struct mlr_file *f, const struct ml_p2p *p, const char *pfx,
                    const char *peer)
{
    char k[32];
    if (p->comm != ML_COMM_NONE) {
        char cn[96];
        fprintf(o, " %scomm=%s", pfx, comm_name(f, p->comm, cn, sizeof cn));
    }
    snprintf(k, sizeof k, "%s%s", pfx, peer);
    put_peer(o, f, k, p->comm, p->peer);
    if (p->tag != ML_PEER_NONE) fprintf(o, " %stag=%d", pfx, p->tag);
    fprintf(o, " %sbytes=%" PRIu32, pfx, p->bytes);
    put_type(o, f, p->dtype, pfx);
}

static const char *state_name(int32_t s)
{
    switch (s) {
    case ML_STATE_RUNNING: return "running-or-died";
    case ML_STATE_FINALIZED: return "finalized";
    case ML_STATE_EXITED: return "exited-without-finalize";
    }
    return "unknown";
}

static int dump_file(FILE *o, struct mlr_file *f, int64_t origin, int header)
{
    const struct ml_header *h = mlr_header(f);
    int rank = mlr_rank(f);
    if (header) {
        /* a process that never completed MPI_Init knows its rank from the
         * launcher only, not the size, nor the MPI's version string */
        char of[48] = " (MPI_Init never completed)";
        if (h->size > 0) snprintf(of, sizeof of, " of %d", h->size);
        const char *ver = mlr_mpi_version(f);
        fprintf(o, "# rank %d%s: pid %d on %s, %s%s%s, state %s, %u threads, exe %s\n", rank, of, h->pid,
                mlr_host(f), h->mpi_impl, ver && *ver ? ", " : "", ver ? ver : "", state_name(h->state),
                mlr_nthreads(f), mlr_exe(f));
    }
    if (header) {
        const struct ml_clock_sync *a = &h->sync_init, *b = &h->sync_final;
        fprintf(o, "# rank %d clock: offset to rank 0 at MPI_Init ", rank);
        if (a->valid) fprintf(o, "%+lld ns (rtt %lld ns)", (long long)a->offset_ns, (long long)a->rtt_ns);
        else fprintf(o, "not measured");
        fprintf(o, ", at MPI_Finalize ");
        if (b->valid) fprintf(o, "%+lld ns (rtt %lld ns)\n", (long long)b->offset_ns, (long long)b->rtt_ns);
        else fprintf(o, "not measured\n");
        if (h->dropped)
            fprintf(o, "# rank %d dropped: %llu calls not recorded (disk full or stalled), from %.3f s after start\n",
                    rank, (unsigned long long)h->dropped,
                    ((double)mlr_ticks_to_ns(f, h->dropped_since) - (double)h->anchor0_ns) / 1e9);
    }
    for (unsigned i = 0; header && i < mlr_ncomms(f); i++) {   /* who is in each communicator */
        const struct mlr_comm *c = mlr_comm(f, (uint16_t)i);
        if (!c || !c->valid || (c->flags & 2)) continue;
        char cn[96], site[600];
        fprintf(o, "# rank %d comm %s: ", rank, comm_name(f, (uint16_t)i, cn, sizeof cn));
        if (c->has_prev && constructor(mlr_routine_name(f, c->prev_routine)))
            fprintf(o, "created by %s at %s, ", mlr_routine_name(f, c->prev_routine),
                    sym_site(f, c->prev_site, site, sizeof site));
        else fprintf(o, "defined where first used, ");
        fprintf(o, "%s%u rank%s:", (c->flags & 1) ? "inter-communicator, " : "", c->size, c->size == 1 ? "" : "s");
        for (uint32_t k = 0; c->members && k < c->size && k < 64; k++) fprintf(o, "%s%d", k ? "," : " ", c->members[k]);
        if (c->members && c->size > 64) fprintf(o, ",...");
        if (c->flags & 1) {
            fprintf(o, "; remote group %u:", c->remote_size);
            for (uint32_t k = 0; c->members && k < c->remote_size && k < 64; k++)
                fprintf(o, "%s%d", k ? "," : " ", c->members[c->size + k]);
        }
        fputc('\n', o);
    }
    req_reset();
    static uint8_t role[65536];   /* per routine of this file: 0 not known yet, else an_role_of + 1 */
    memset(role, 0, sizeof role);
    struct mlr_iter *it = mlr_iter_new(f);
    if (!it) return -1;
    mlr_iter_unfinished(it);
    struct mlr_event e;
    char site[600];
    int chains = mlr_chain_depth(f) > 1;
    while (mlr_next(it, &e)) {
        int64_t s = tool_aligned_ns(f, e.start_ns) - origin, t = tool_aligned_ns(f, e.end_ns) - origin;
        fprintf(o, "%d %u %.9f %.9f %s %s", rank, e.thread, s / 1e9, t / 1e9,
                mlr_routine_name(f, e.routine), sym_site(f, e.site, site, sizeof site));
        if (e.unfinished) {
            /* in progress when the rank stopped or died: what it waited for */
            fputs(" unfinished", o);
            char ucn[96];
            if (e.p2p[0].comm != ML_COMM_NONE) fprintf(o, " comm=%s", comm_name(f, e.p2p[0].comm, ucn, sizeof ucn));
            put_peer(o, f, "peer", e.p2p[0].comm, e.p2p[0].peer);
            if (e.p2p[0].tag != ML_PEER_NONE) fprintf(o, " tag=%d", e.p2p[0].tag);
        }
        switch (e.type) {
        case ML_REC_P2P:
        case ML_REC_P2P_REQ:
            /* one-sided calls (analysis.h AN_RMA): the peer is their target */
            if (!role[e.routine]) role[e.routine] = (uint8_t)(an_role_of(mlr_routine_name(f, e.routine)) + 1);
            put_p2p(o, f, &e.p2p[0], "", role[e.routine] == AN_RMA + 1 ? "target" : "peer");
            if (e.type == ML_REC_P2P_REQ) {
                fprintf(o, " req=0x%" PRIx64, e.request);
                struct req_info x = {.comm = e.p2p[0].comm,
                                     .send = role[e.routine] == AN_ISEND + 1 || role[e.routine] == AN_SEND_INIT + 1,
                                     .peer = e.p2p[0].peer, .tag = e.p2p[0].tag, .bytes = e.p2p[0].bytes};
                req_made(e.request, &x);
            }
            break;
        case ML_REC_SENDRECV:
            put_p2p(o, f, &e.p2p[0], "", "peer");
            put_p2p(o, f, &e.p2p[1], "recv_", "peer");
            if (e.request) {                 /* MPI_Isendrecv(_replace) */
                fprintf(o, " req=0x%" PRIx64, e.request);
                struct req_info x = {.comm = e.p2p[1].comm, .nostatus = (e.sr_flags & ML_SR_NOSTATUS) != 0};
                req_made(e.request, &x);
            }
            break;
        case ML_REC_COLL:
            if (e.coll.comm != ML_COMM_NONE) {
                char cn[96];
                fprintf(o, " comm=%s", comm_name(f, e.coll.comm, cn, sizeof cn));
            }
            put_peer(o, f, "root", e.coll.comm, e.coll.root);
            fprintf(o, " bytes=%" PRIu32 " rbytes=%" PRIu32, e.coll.bytes, e.coll.rbytes);
            put_type(o, f, e.coll.dtype, "");
            if (e.request) {                 /* a nonblocking collective */
                fprintf(o, " req=0x%" PRIx64, e.request);
                struct req_info x = {.comm = e.coll.comm, .coll = 1};
                req_made(e.request, &x);
            }
            break;
        case ML_REC_IO:
            fprintf(o, " file=0x%" PRIx64, e.io.file);
            if (!(e.io.flags & ML_IO_OPEN)) {
                fprintf(o, " bytes=%" PRIu64, e.io.bytes);
                put_type(o, f, e.io.dtype, "");
            }
            break;
        case ML_REC_COMPLETE:
            if (e.ndone) {
                fputs(" done=", o);
                int nmsg = 0;            /* completions that are messages */
                struct ml_done sd;       /* a send's: what it sent */
                const struct ml_done *first = &e.done[0];
                uint16_t first_comm = ML_COMM_NONE;
                unsigned *dm = malloc(2 * (size_t)e.ndone * sizeof *dm), *dj = dm ? dm + e.ndone : NULL;
                if (dm) done_counts(e.done, e.ndone, dm, dj);
                for (uint32_t i = 0; i < e.ndone; i++) {
                    const struct ml_done *d = &e.done[i];
                    const struct req_info *r = req_done(d->request, dm ? dm[i] : 1, dm ? dj[i] : 0);
                    int known = r != NULL;
                    uint16_t comm = known ? r->comm : ML_COMM_NONE;
                    if (i == 0) first_comm = comm;
                    fprintf(o, "%s0x%" PRIx64, i ? "," : "", d->request);
                    if (known && (r->coll || (r->nostatus && d->source != ML_PEER_CANCELLED))) continue;
                    nmsg++;
                    if (known && r->send && d->source != ML_PEER_NONE) {
                        int cancelled = d->source == ML_PEER_CANCELLED;
                        sd = *d;
                        sd.source = cancelled ? ML_PEER_CANCELLED : r->peer;
                        sd.tag = r->tag;
                        sd.bytes = cancelled ? 0 : r->bytes;
                        d = &sd;
                        if (i == 0) first = &sd;
                    }
                    if (d->source != ML_PEER_NONE) {
                        const char *n = tool_peer_name(f, d->source);
                        int w = n ? -1 : mlr_world_rank(f, comm, d->source, 1);
                        if (n) fprintf(o, "/%s", n);
                        else if (w >= 0) fprintf(o, "/%d", w);
                        else fprintf(o, "/?");
                        fprintf(o, "/%d/%" PRIu32, d->tag, d->bytes);
                    }
                }
                free(dm);
                if (e.ndone == 1 && nmsg == 1 && first->source != ML_PEER_NONE) {
                    put_peer(o, f, "peer", first_comm, first->source);
                    fprintf(o, " tag=%d bytes=%" PRIu32, first->tag, first->bytes);
                }
            }
            break;
        }
        if (e.has_result) fprintf(o, " result=%d", e.result);
        if (e.repeat) {      /* as many more equal unsuccessful calls, the last ending then */
            fprintf(o, " repeat=%" PRIu32 " until=%.9f", e.repeat,
                    (tool_aligned_ns(f, e.repeat_end_ns) - origin) / 1e9);
            if (e.repeat_busy_ns >= 0) fprintf(o, " inside=%.9f", e.repeat_busy_ns / 1e9);
        }
        if (e.fortran) fputs(" lang=fortran", o);
        if (chains && e.site) {
            char st[2048];
            sym_stack(f, e.site, st, sizeof st);
            fputs(" stack=", o);
            for (const char *p = st; *p; p++) {   /* " < " between frames: ';' */
                if (p[0] == ' ' && p[1] == '<' && p[2] == ' ') {
                    fputc(';', o);
                    p += 2;
                } else {
                    fputc(*p, o);
                }
            }
        }
        fputc('\n', o);
    }
    mlr_iter_free(it);
    return 0;
}

static void print_warnings(const struct mlr_file *f)
{
    for (const char *w = mlr_warnings(f); w && *w; w += strlen(w) + 1)
        fprintf(stderr, "mpilens dump: warning: %s\n", w);
}

int cmd_dump(int argc, char **argv)
{
    static const struct option opts[] = {
        {"rank", required_argument, 0, 'r'},
        {"no-header", no_argument, 0, 'H'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    long only = -1;
    int header = 1, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'r': {
            char *end;
            errno = 0;
            only = strtol(optarg, &end, 10);
            if (end == optarg || *end || only < 0 || only > INT32_MAX || errno) {
                fprintf(stderr, "mpilens dump: --rank wants a rank number (0, 1, ...), not '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'H': header = 0; break;
        case 'h': help(stdout); return 0;
        default: tool_bad_option("dump", argc, argv); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mpilens dump: give one run directory, e.g. 'mpilens dump mpilens-app-1234/'\n");
        return 2;
    }
    const char *dir = argv[optind];
    struct mlr_dir d;
    int err = mlr_dir_scan(dir, &d);
    if (err == MLR_EDIR) {
        /* a single rank file is fine too */
        struct mlr_file *f;
        int ferr = mlr_open(dir, &f);
        if (ferr == MLR_EIO) {
            fprintf(stderr, "mpilens dump: %s does not exist or is not a run directory; "
                            "give the directory 'mpilens run' wrote (mpilens-<app>-<id>/)\n", dir);
            return 1;
        }
        if (ferr) {
            fprintf(stderr, "mpilens dump: %s %s\n", dir, mlr_strerror(ferr));
            return 1;
        }
        if (only >= 0 && mlr_rank(f) != only) {
            fprintf(stderr, "mpilens dump: %s is rank %d's file, not rank %ld's\n", dir, mlr_rank(f), only);
            mlr_close(f);
            return 1;
        }
        print_warnings(f);
        int64_t origin = tool_aligned_ns(f, mlr_header(f)->anchor0_ns);
        dump_file(stdout, f, origin, header);
        mlr_close(f);
        sym_cleanup();
        return 0;
    }
    if (err) {
        fprintf(stderr, "mpilens dump: %s %s; is it the directory 'mpilens run' wrote?\n", dir,
                mlr_strerror(err));
        return 1;
    }
    /* open all (to find the common origin), dump one at a time */
    struct mlr_file **fs = calloc(d.n, sizeof *fs);
    int64_t origin = INT64_MAX;
    unsigned ok = 0, bad = 0, shown = 0;
    for (unsigned i = 0; fs && i < d.n; i++) {
        int e = mlr_open(d.files[i], &fs[i]);
        if (e) {
            fprintf(stderr, "mpilens dump: %s %s; skipped\n", d.files[i], mlr_strerror(e));
            fs[i] = NULL;
            bad++;
            continue;
        }
        print_warnings(fs[i]);
        ok++;
        int64_t o = tool_aligned_ns(fs[i], mlr_header(fs[i])->anchor0_ns);
        if (o < origin) origin = o;
    }
    for (unsigned i = 0; fs && i < d.n; i++) {
        if (!fs[i]) continue;
        if (only < 0 || mlr_rank(fs[i]) == only) {
            dump_file(stdout, fs[i], origin, header);
            shown++;
        }
        mlr_close(fs[i]);
    }
    free(fs);
    mlr_dir_free(&d);
    sym_cleanup();
    if (header) {   /* the live monitor's verdict, as comment lines */
        char when[64];
        char *v = an_deadlock_verdict(dir, when, sizeof when);
        if (v) {
            printf("# deadlock verdict of the live monitor (%s/deadlock.txt%s%s):\n", dir, when[0] ? ", " : "", when);
            for (char *p = v, *nl; p && *p; p = nl ? nl + 1 : NULL) {
                nl = strchr(p, '\n');
                printf("#   %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
            }
            free(v);
        }
    }
    if (only >= 0 && shown == 0) {
        fprintf(stderr, "mpilens dump: no rank %ld in %s\n", only, dir);
        return 1;
    }
    if (ok == 0) return 1;
    (void)bad;
    return 0;
}
