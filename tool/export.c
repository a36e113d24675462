/*
 * export.c — `mpilens export --format=perfetto|chrome|otf2 DIR -o FILE`: a
 * recorded run in the formats other tools read.
 *
 * Perfetto / Chrome trace JSON (ui.perfetto.dev): one
 * process track per rank, one thread track per thread of the rank, one
 * complete ("X") slice per MPI call with its call site, peer, tag, bytes and
 * communicator as arguments, and one flow arrow per matched message from the
 * start of the call that sent it to the end of the call that completed its
 * receive (as OTF2 viewers draw them: the receive completes after the send
 * began, so no arrow points back in time).  Times are microseconds on rank
 * 0's clock (aligned and repaired as in the report), from the run's first
 * call.  Within a track slices come in time order and do not overlap; every
 * flow has its start and its end, each on the edge of a slice of its track.
 *
 * --from/--to (seconds from the run's first call) and --ranks cut a large
 * run down: a slice is written when its rank is chosen and it overlaps the
 * window, an arrow when both its ends are written (times stay relative to
 * the run's first call, so cuts of one run line up).
 *
 * OTF2: export_otf2.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "exchange.h"
#include "export.h"
#include "json_out.h"
#include "symbols.h"
#include "tool.h"

/* ---- call-site names, per rank ----------------------------------------------- */

struct site_names {                 /* site id -> "file.c:42", per rank */
    uint32_t *key;
    char **val;
    unsigned cap, n;
};

static const char *export_site(struct site_names *t, const struct an_rank *r, uint32_t site)
{
    if (site == 0) return "(unknown)";
    if ((t->n + 1) * 2 > t->cap) {
        unsigned cap = t->cap ? t->cap * 2 : 256;
        uint32_t *k = calloc(cap, sizeof *k);
        char **v = calloc(cap, sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            return "(unknown)";
        }
        for (unsigned i = 0; i < t->cap; i++) {
            if (!t->key[i]) continue;
            unsigned j = (t->key[i] * 2654435761u) & (cap - 1);
            while (k[j]) j = (j + 1) & (cap - 1);
            k[j] = t->key[i];
            v[j] = t->val[i];
        }
        free(t->key);
        free(t->val);
        t->key = k;
        t->val = v;
        t->cap = cap;
    }
    unsigned j = (site * 2654435761u) & (t->cap - 1);
    while (t->key[j] && t->key[j] != site) j = (j + 1) & (t->cap - 1);
    if (!t->key[j]) {
        char buf[1024];
        t->key[j] = site;
        t->val[j] = strdup(sym_site(r->f, site, buf, sizeof buf));
        t->n++;
    }
    return t->val[j] ? t->val[j] : "(unknown)";
}

static struct site_names *export_sites_new(unsigned nranks)
{
    return calloc(nranks ? nranks : 1, sizeof(struct site_names));
}

static void export_sites_free(struct site_names *sn, unsigned nranks)
{
    for (unsigned r = 0; sn && r < nranks; r++) {
        for (unsigned i = 0; i < sn[r].cap; i++) free(sn[r].val[i]);
        free(sn[r].key);
        free(sn[r].val);
    }
    free(sn);
}

/* ---- Perfetto / Chrome JSON ------------------------------------------------------ */

struct pf_cut {                     /* what --from/--to/--ranks keep */
    int64_t from, to;               /* ns from the run's first call; to < 0: no end */
    uint8_t *rank;                  /* per world rank: chosen (NULL: all) */
    int size;
};

static int cut_rank(const struct pf_cut *c, int rank)
{
    return !c->rank || (rank >= 0 && rank < c->size && c->rank[rank]);
}

/* t0..t1 (ns from the run's first call) overlaps the window */
static int cut_time(const struct pf_cut *c, int64_t t0, int64_t t1)
{
    return t1 >= c->from && (c->to < 0 || t0 <= c->to);
}

struct pf {
    FILE *o;
    struct an_run *run;
    struct site_names *sites;
    int64_t origin;
    int have_origin;
    uint64_t flow;
    uint8_t **seen;                 /* per rank: thread tracks named */
    unsigned *nseen;
    uint64_t slices, flows;
    uint64_t all_slices, all_flows;   /* before --from/--to/--ranks cut */
    const struct pf_cut *cut;
    char *pend;                     /* flows waiting for their slices to be written (pf_flush) */
    size_t npend, cappend;
    int oom;
};

/* Microseconds with nanosecond digits, exactly (no float rounding). */
static void put_us(FILE *o, int64_t ns)
{
    uint64_t u = (uint64_t)ns;
    if (ns < 0) {
        putc('-', o);
        u = -u;   /* INT64_MIN too */
    }
    fprintf(o, "%" PRIu64 ".%03" PRIu64, u / 1000, u % 1000);
}

static void pf_thread(struct pf *p, const struct an_event *e)
{
    unsigned ri = (unsigned)(e->r - p->run->ranks), t = e->ev.thread;
    if (t < p->nseen[ri] && p->seen[ri][t]) return;
    if (t >= p->nseen[ri]) {
        unsigned n = t + 16;
        uint8_t *s = realloc(p->seen[ri], n);
        if (!s) return;
        memset(s + p->nseen[ri], 0, n - p->nseen[ri]);
        p->seen[ri] = s;
        p->nseen[ri] = n;
    }
    p->seen[ri][t] = 1;
    fprintf(p->o, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"thread %u (tid %" PRIu64 ")\"}}",
            e->r->rank, t, t, e->ev.tid);
    fprintf(p->o, ",\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}}",
            e->r->rank, t, t);
}

static void pf_peer(struct pf *p, const struct an_rank *r, const char *key, uint16_t comm, int32_t peer)
{
    if (peer == ML_PEER_NONE) return;
    if (peer == r->any_source) fprintf(p->o, ",\"%s\":\"ANY_SOURCE\"", key);
    else if (peer == r->proc_null) fprintf(p->o, ",\"%s\":\"PROC_NULL\"", key);
    else if (peer == r->mpi_root) fprintf(p->o, ",\"%s\":\"ROOT\"", key);   /* the root, on an inter-communicator */
    else {
        int w = an_peer_world(p->run, r, comm, peer);
        if (w >= 0) fprintf(p->o, ",\"%s\":%d", key, w);
        else fprintf(p->o, ",\"%s\":\"%d (in comm)\"", key, peer);
    }
}

/* A receive posted with MPI_ANY_TAG (-1 in both MPIs) says so, as its
 * peer says ANY_SOURCE (it said "tag":-1) */
static void pf_tag(FILE *o, int32_t tag)
{
    if (tag == -1) fputs(",\"tag\":\"ANY_TAG\"", o);
    else if (tag != ML_PEER_NONE) fprintf(o, ",\"tag\":%d", tag);
}

static void pf_comm(struct pf *p, const struct an_rank *r, const char *key, uint16_t comm)
{
    if (comm == ML_COMM_NONE) return;
    char name[160];
    an_comm_name(p->run, comm < r->ncomms ? r->comm[comm] : UINT32_MAX, name, sizeof name);
    fprintf(p->o, ",\"%s\":", key);
    json_str(p->o, name);
}

static void pf_event_slice(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    struct pf *p = ctx;
    const struct an_rank *r = e->r;
    const struct mlr_event *ev = &e->ev;
    FILE *o = p->o;
    (void)ops;
    (void)nops;
    if (!p->have_origin) {   /* the stream starts with the earliest call */
        p->origin = e->t0;
        p->have_origin = 1;
    }
    /* a run of equal unsuccessful polls is one slice, to the last one's end */
    int64_t t1 = an_wadd(e->t1, ev->repeat ? an_wsub(ev->repeat_end_ns, ev->end_ns) : 0);
    p->all_slices++;
    if (!cut_rank(p->cut, r->rank) || !cut_time(p->cut, an_wsub(e->t0, p->origin), an_wsub(t1, p->origin))) return;
    pf_thread(p, e);
    fprintf(o, ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":", r->rank, ev->thread);
    put_us(o, an_wsub(e->t0, p->origin));
    fputs(",\"dur\":", o);
    put_us(o, an_wsub(t1, e->t0));
    fputs(",\"name\":", o);
    json_str(o, mlr_routine_name(r->f, ev->routine));
    const char *cat = "mpi";
    int rma = ev->routine < r->nroutines && r->role[ev->routine] == AN_RMA;   /* one-sided: P2P layout */
    /* a call in progress when its rank stopped: the category its routine has */
    switch (ev->unfinished ? an_unfinished_type(r, ev, mlr_routine_name(r->f, ev->routine)) : ev->type) {
    case ML_REC_P2P: case ML_REC_P2P_REQ: case ML_REC_SENDRECV: cat = rma ? "rma" : "p2p"; break;
    case ML_REC_COLL: cat = "collective"; break;
    case ML_REC_COMPLETE: cat = "completion"; break;
    case ML_REC_IO: cat = "io"; break;
    }
    fprintf(o, ",\"cat\":\"%s\",\"args\":{\"site\":", cat);
    json_str(o, export_site(&p->sites[r - p->run->ranks], r, ev->site));
    switch (ev->type) {
    case ML_REC_P2P:
    case ML_REC_P2P_REQ:
        pf_comm(p, r, "comm", ev->p2p[0].comm);
        pf_peer(p, r, rma ? "target" : "peer", ev->p2p[0].comm, ev->p2p[0].peer);
        pf_tag(o, ev->p2p[0].tag);
        fprintf(o, ",\"bytes\":%" PRIu32, ev->p2p[0].bytes);
        if (ev->type == ML_REC_P2P_REQ) fprintf(o, ",\"request\":\"0x%" PRIx64 "\"", ev->request);
        break;
    case ML_REC_SENDRECV:
        pf_comm(p, r, "comm", ev->p2p[0].comm);
        pf_peer(p, r, "dest", ev->p2p[0].comm, ev->p2p[0].peer);
        fprintf(o, ",\"sendtag\":%d,\"sendbytes\":%" PRIu32, ev->p2p[0].tag, ev->p2p[0].bytes);
        pf_peer(p, r, "source", ev->p2p[1].comm, ev->p2p[1].peer);
        fprintf(o, ",\"recvtag\":%d,\"recvbytes\":%" PRIu32, ev->p2p[1].tag, ev->p2p[1].bytes);
        if (ev->request) fprintf(o, ",\"request\":\"0x%" PRIx64 "\"", ev->request);
        break;
    case ML_REC_COLL:
        pf_comm(p, r, "comm", ev->coll.comm);
        pf_peer(p, r, "root", ev->coll.comm, ev->coll.root);
        fprintf(o, ",\"bytes\":%" PRIu32 ",\"rbytes\":%" PRIu32, ev->coll.bytes, ev->coll.rbytes);
        if (!(ev->routine < r->nroutines && r->role[ev->routine] == AN_COLL_INIT && ev->request)) {
            /* what this member's buffers send and receive by its role, as
             * OTF2's MpiCollectiveEnd and the report's matrix (a non-root
             * of MPI_Bcast receives: bytes/rbytes are the buffers as passed) */
            uint64_t sent, recv;
            an_coll_bytes(p->run, r, mlr_routine_name(r->f, ev->routine), &ev->coll, &sent, &recv);
            fprintf(o, ",\"sent\":%" PRIu64 ",\"received\":%" PRIu64, sent, recv);
        }
        break;
    case ML_REC_COMPLETE:
        fprintf(o, ",\"requests\":%" PRIu32, ev->ndone);
        break;
    case ML_REC_IO:
        fprintf(o, ",\"file\":\"0x%" PRIx64 "\"", ev->io.file);
        if (!(ev->io.flags & ML_IO_OPEN)) fprintf(o, ",\"bytes\":%" PRIu64, ev->io.bytes);
        if (ev->io_name) {
            fputs(",\"filename\":", o);
            json_str(o, ev->io_name);
        }
        break;
    }
    if (ev->has_result) fprintf(o, ",\"result\":%d", ev->result);
    if (ev->repeat) fprintf(o, ",\"calls\":%" PRIu64, 1 + (uint64_t)ev->repeat);
    if (ev->unfinished) {   /* in progress when the rank stopped or died: what it waited for */
        pf_comm(p, r, "comm", ev->p2p[0].comm);
        pf_peer(p, r, "peer", ev->p2p[0].comm, ev->p2p[0].peer);
        pf_tag(o, ev->p2p[0].tag);
        fputs(",\"unfinished\":true", o);
    }
    fputs("}}", o);
    p->slices++;
}

/* A flow binds to the slice that encloses its timestamp on its track, and
 * a viewer reading the file in order (Perfetto's importer: events of equal
 * time in file order) must meet that slice first: the matcher can pair a
 * message while it reads the send or the completing call, before that
 * call's slice is written, so flows wait here until the next call's slice
 * has been written (pf_event) or the stream ends. */
static void pf_flush(struct pf *p)
{
    if (p->npend) fwrite(p->pend, 1, p->npend, p->o);
    p->npend = 0;
}

static void pf_event(void *ctx, const struct an_event *e, const struct an_op *ops, unsigned nops)
{
    pf_event_slice(ctx, e, ops, nops);
    pf_flush(ctx);
}

/* Microseconds as put_us writes them, into s. */
static void us_str(char *s, size_t n, int64_t ns)
{
    uint64_t u = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
    snprintf(s, n, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", u / 1000, u % 1000);
}

/* Aligned time of a message end: the call's local time on its rank's clock. */
static int64_t end_time(struct an_run *run, const struct an_end *e, int64_t local)
{
    const struct an_rank *r = &run->ranks[run->slot[e->rank]];
    return an_wadd(an_clock_base(&r->clock, local), an_clock_extra(&r->clock, e->t0));
}

static void pf_message(void *ctx, const struct an_msg *m)
{
    struct pf *p = ctx;
    struct an_run *run = p->run;
    /* from the start of the sending call to the end of the call that
     * completed the receive: the edges of both slices, in time order
     * (a receive cannot complete before its send began; the alignment
     * repairs the clocks where they said so) */
    int64_t s0 = an_wsub(end_time(run, &m->send, m->send.t0), p->origin);
    int64_t r0 = an_wsub(end_time(run, &m->recv, m->recv.t0), p->origin);
    int64_t r1 = an_wsub(end_time(run, &m->recv, m->recv.t1), p->origin);
    if (r1 < r0) r1 = r0;
    p->all_flows++;
    if (!cut_rank(p->cut, m->send.rank) || !cut_rank(p->cut, m->recv.rank) || !cut_time(p->cut, s0, s0) ||
        !cut_time(p->cut, r1, r1))
        return;
    uint64_t id = ++p->flow;
    char a[32], b[32], line[512];
    us_str(a, sizeof a, s0);
    us_str(b, sizeof b, r1);
    int n = snprintf(line, sizeof line,
                     ",\n{\"ph\":\"s\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%u,\"ts\":%s,\"name\":\"message\","
                     "\"cat\":\"message\",\"bp\":\"e\",\"args\":{\"bytes\":%" PRIu32 ",\"tag\":%d}}"
                     ",\n{\"ph\":\"f\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%u,\"ts\":%s,\"name\":\"message\","
                     "\"cat\":\"message\",\"bp\":\"e\"}",
                     id, m->send.rank, m->send.thread, a, m->bytes, m->tag, id, m->recv.rank, m->recv.thread, b);
    if (n <= 0 || (size_t)n >= sizeof line) return;
    if (p->npend + (size_t)n > p->cappend) {
        size_t c = p->cappend ? 2 * p->cappend : 4096;
        while (c < p->npend + (size_t)n) c *= 2;
        char *x = realloc(p->pend, c);
        if (!x) {
            p->oom = 1;
            return;
        }
        p->pend = x;
        p->cappend = c;
    }
    memcpy(p->pend + p->npend, line, (size_t)n);
    p->npend += (size_t)n;
    p->flows++;
}

static int export_perfetto(struct an_run *run, FILE *o, int progress, const struct pf_cut *cut)
{
    struct pf p;
    memset(&p, 0, sizeof p);
    p.cut = cut;
    p.o = o;
    p.run = run;
    p.sites = export_sites_new(run->n);
    p.seen = calloc(run->n ? run->n : 1, sizeof *p.seen);
    p.nseen = calloc(run->n ? run->n : 1, sizeof *p.nseen);
    if (!p.sites || !p.seen || !p.nseen) {
        export_sites_free(p.sites, run->n);
        free(p.seen);
        free(p.nseen);
        return -1;
    }
    fprintf(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"mpilens export\",\"run\":");
    json_str(o, run->dir);
    fprintf(o, ",\"mpi\":");
    json_str(o, run->mpi_version);
    fprintf(o, "},\n\"traceEvents\":[\n");
    /* process tracks: one per rank, in rank order */
    int first = 1;
    for (unsigned i = 0; i < run->n; i++) {
        const struct an_rank *r = &run->ranks[i];
        if (!cut_rank(cut, r->rank)) continue;
        const struct ml_header *h = mlr_header(r->f);
        char name[160];
        snprintf(name, sizeof name, "rank %d (%s, pid %d)", r->rank, mlr_host(r->f), h->pid);
        fprintf(o, "%s{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":", first ? "" : ",\n", r->rank);
        first = 0;
        json_str(o, name);
        fprintf(o, "}},\n{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
                r->rank, r->rank);
    }
    struct an_sink sink = {&p, pf_event, pf_message, NULL};
    struct an_result res;
    int rc = an_analyse(run, NULL, &sink, progress, &res);
    pf_flush(&p);
    free(p.pend);
    if (p.oom) rc = -1;
    fprintf(o, "\n]}\n");
    if (rc == 0 && progress && !cut->rank && cut->from == 0 && cut->to < 0)
        fprintf(stderr, "mpilens export: %" PRIu64 " calls, %" PRIu64 " messages (flow arrows) on %u rank%s%s\n",
                p.slices, p.flows, run->n, run->n == 1 ? "" : "s",
                res.repair_max > 0 ? "; clocks repaired" : "");
    else if (rc == 0 && progress) {   /* a cut: what it kept of what */
        unsigned kept = 0;
        for (unsigned i = 0; i < run->n; i++) kept += cut_rank(cut, run->ranks[i].rank);
        char to[48] = "the end";
        if (cut->to >= 0) snprintf(to, sizeof to, "%.9g s", cut->to / 1e9);
        fprintf(stderr, "mpilens export: kept %" PRIu64 " of %" PRIu64 " calls, %" PRIu64 " of %" PRIu64
                        " messages (flow arrows): %u of %u rank%s, from %.9g s to %s%s\n",
                p.slices, p.all_slices, p.flows, p.all_flows, kept, run->n, run->n == 1 ? "" : "s",
                cut->from / 1e9, to, res.repair_max > 0 ? "; clocks repaired" : "");
    }
    an_result_free(&res);
    for (unsigned i = 0; i < run->n; i++) free(p.seen[i]);
    free(p.seen);
    free(p.nseen);
    export_sites_free(p.sites, run->n);
    return rc;
}

/* ---- the verb ----------------------------------------------------------------- */

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens export --format=perfetto|chrome|otf2 DIR [-o OUT]\n"
            "                      [--from S] [--to S] [--ranks LIST]\n\n"
            "Writes run directory DIR (or one rank file) for other tools:\n"
            "  perfetto, chrome  trace JSON for ui.perfetto.dev (Perfetto UI): a track per\n"
            "                    rank, a sub-track per thread, a slice per MPI call, an\n"
            "                    arrow per message (OUT default: <run>.json)\n"
            "  otf2              OTF2 archive for Vampir, Scalasca, ViTE: OUT.otf2 and the\n"
            "                    folder OUT/\n"
            "                    (OUT default: <run>-otf2/traces)\n\n"
            "  -f, --format F    perfetto (default), chrome (the same JSON) or otf2\n"
            "  -o, --output OUT  where to write; an existing file is never overwritten\n"
            "  --from S, --to S  perfetto/chrome: only calls overlapping this window, in\n"
            "                    seconds from the run's first call (e.g. --from 2.5 --to 3),\n"
            "                    and the arrows with both ends inside it\n"
            "  --ranks LIST      perfetto/chrome: only these ranks (e.g. 0-3,8), and the\n"
            "                    arrows between them\n"
                        "  -q, --quiet       no progress, summary or 'wrote' line\n"
            "  -h, --help        this text\n\n"
            "Under mpirun -n P (a large run), otf2 is written in parallel: each process\n"
            "reads its share of the rank files and writes their locations, and the\n"
            "archive is the serial one's.\n");
}

/* getopt found an option it does not know, or one without its value. */
static void bad_option(int argc, char **argv)
{
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (optopt == 'f' || optopt == 'o')
        fprintf(stderr, "mpilens export: option '-%c' needs a value; try 'mpilens export --help'\n", optopt);
    else if (optopt > ' ' && optopt < 127)
        fprintf(stderr, "mpilens export: unknown option '-%c'; try 'mpilens export --help'\n", optopt);
    else
        fprintf(stderr, "mpilens export: unknown option, or one missing its value: '%s'; try 'mpilens export --help'\n",
                arg);
}

static void default_out(const char *dir, const char *suffix, char *buf, size_t n)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    size_t l = strlen(tmp);
    while (l > 1 && tmp[l - 1] == '/') tmp[--l] = 0;
    const char *b = strrchr(tmp, '/');
    b = b ? b + 1 : tmp;
    snprintf(buf, n, "%s%s", b, suffix);
}

/* "2.5" seconds -> ns; -1 if not a number >= 0 */
static int64_t parse_seconds(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0) || v > 9.2e9) return -1;
    return (int64_t)(v * 1e9 + 0.5);
}

/* "0-3,8" into chosen[0..size); 0, or -1 with the bad part in *bad */
static int parse_ranks(const char *s, uint8_t *chosen, int size, const char **bad)
{
    const char *p = s;
    while (*p) {
        char *end;
        *bad = p;
        if (*p < '0' || *p > '9') return -1;
        long a = strtol(p, &end, 10), b = a;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9') return -1;
            b = strtol(end + 1, &end, 10);
        }
        if (*end && *end != ',') return -1;
        if (b < a || a > 1 << 24 || b > 1 << 24) return -1;
        for (long r = a; r <= b && r < size; r++) chosen[r] = 1;
        p = *end ? end + 1 : end;
        if (*end && !*p) return -1;
    }
    return 0;
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'}, {"output", required_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
        {"from", required_argument, 0, 1},     {"to", required_argument, 0, 2},
        {"ranks", required_argument, 0, 3},    {0, 0, 0, 0},
    };
    const char *format = "perfetto", *outpath = NULL, *ranks = NULL;
    struct pf_cut cut = {0, -1, NULL, 0};
    int progress = 1, c, cutting = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "f:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'o': outpath = optarg; break;
        case 'q': progress = 0; break;
        case 'h': help(stdout); return 0;
        case 1:
        case 2:
            cutting = 1;
            if ((*(c == 1 ? &cut.from : &cut.to) = parse_seconds(optarg)) < 0) {
                fprintf(stderr, "mpilens export: --%s wants seconds from the run's first call (e.g. 2.5), not '%s'\n",
                        c == 1 ? "from" : "to", optarg);
                return 2;
            }
            break;
        case 3:
            cutting = 1;
            ranks = optarg;
            break;
        default: bad_option(argc, argv); return 2;
        }
    }
    int otf2 = strcmp(format, "otf2") == 0;
    if (!otf2 && strcmp(format, "perfetto") != 0 && strcmp(format, "chrome") != 0) {
        fprintf(stderr, "mpilens export: unknown format '%s'; use perfetto, chrome or otf2\n", format);
        return 2;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mpilens export: give one run directory, e.g. 'mpilens export --format=perfetto "
                        "mpilens-app-1234/ -o app.json'\n");
        return 2;
    }
    if (otf2 && cutting) {
        fprintf(stderr, "mpilens export: --from, --to and --ranks cut the perfetto/chrome JSON; an OTF2 reader "
                        "(Vampir, ViTE) zooms and filters itself\n");
        return 2;
    }
    if (cut.to >= 0 && cut.to < cut.from) {
        fprintf(stderr, "mpilens export: --to must not be before --from\n");
        return 2;
    }
    const char *dir = argv[optind];
    /* an MPI job of several processes (docs/PARALLEL.md): OTF2 is written
     * in slices, each process its own ranks' files and locations; the JSON
     * is one stream, written by process 0 while the others wait */
    int sliced = tool_xch->size > 1 && otf2;
    if (tool_xch->size > 1 && !otf2) {
        if (tool_xch->rank != 0) return 0;
        if (progress)
            fprintf(stderr, "mpilens export: note: %d processes, but the %s export is not split: process 0 "
                            "writes every rank (docs/PARALLEL.md)\n", tool_xch->size, format);
    }
    int speak = !sliced || tool_xch->rank == 0;   /* the run's problems: named once */
    char def[4096];
    if (!outpath) {
        default_out(dir, otf2 ? "-otf2/traces" : ".json", def, sizeof def);
        outpath = def;
    }
    struct an_run run;
    if ((sliced ? an_run_open_slice(dir, tool_xch, &run) : an_run_open(dir, &run)) != 0) {
        for (const char *p = an_run_problem(&run, NULL); speak && p; p = an_run_problem(&run, p))
            fprintf(stderr, "mpilens export: %s\n", p);
        an_run_close(&run);
        return 1;
    }
    for (const char *p = an_run_problem(&run, NULL); speak && p; p = an_run_problem(&run, p))
        fprintf(stderr, "mpilens export: warning: %s\n", p);
    if (sliced && getenv("MPILENS_SLICE_LOG")) tool_slice_log("export", &run, tool_xch->rank, tool_xch->size);
    if (ranks) {
        const char *bad = ranks;
        int any = 0;
        cut.size = run.size > 0 ? run.size : 1;
        cut.rank = calloc((size_t)cut.size, 1);
        if (!cut.rank || parse_ranks(ranks, cut.rank, cut.size, &bad) != 0) {
            fprintf(stderr, "mpilens export: --ranks wants ranks and ranges like 0-3,8, not '%s'\n", bad);
            free(cut.rank);
            an_run_close(&run);
            return 2;
        }
        for (unsigned i = 0; i < run.n; i++) any |= cut_rank(&cut, run.ranks[i].rank);
        if (!any) {
            fprintf(stderr, "mpilens export: --ranks %s names no rank of this run (ranks 0-%d)\n", ranks, run.size - 1);
            free(cut.rank);
            an_run_close(&run);
            return 2;
        }
    }
    if (!otf2 && cut.from > 0) {   /* a window after the run: an empty trace is not what was asked for */
        int64_t first = 0, last = 0;
        an_run_span(&run, &first, &last);
        if (last > first && cut.from > last - first) {
            fprintf(stderr, "mpilens export: --from %.9g s is past the run's end (its last call ends %.3f s after its "
                            "first)\n", cut.from / 1e9, (last - first) / 1e9);
            free(cut.rank);
            an_run_close(&run);
            return 2;
        }
    }
    int rc;
    if (otf2) {
        rc = export_otf2(&run, outpath, progress);
        if (rc == 2 && sliced) {
            /* clocks the slices could not repair as the serial export
             * does (docs/PARALLEL.md): process 0 exports the whole run,
             * the others are done */
            an_run_close(&run);
            if (tool_xch->rank != 0) {
                free(cut.rank);
                return 0;
            }
            if (an_run_open(dir, &run) != 0) {
                for (const char *p = an_run_problem(&run, NULL); p; p = an_run_problem(&run, p))
                    fprintf(stderr, "mpilens export: %s\n", p);
                an_run_close(&run);
                free(cut.rank);
                return 1;
            }
            rc = export_otf2(&run, outpath, progress);
        }
    } else {
        FILE *o = strcmp(outpath, "-") == 0 ? stdout : fopen(outpath, "wx");
        if (!o) {
            fprintf(stderr, "mpilens export: cannot create %s: %s%s\n", outpath, strerror(errno),
                    errno == EEXIST ? " (an existing file is never overwritten; remove it or give -o)" : "");
            free(cut.rank);
            an_run_close(&run);
            return 1;
        }
        rc = export_perfetto(&run, o, progress, &cut);
        /* a write that failed on the way (a full disk) leaves ferror set,
         * and fclose may not say so again */
        errno = 0;
        int werr = fflush(o) != 0 || ferror(o), e = errno;
        if (o != stdout && fclose(o) != 0) werr = 1, e = errno;
        if (werr && o != stdout)
            fprintf(stderr, "mpilens export: cannot write %s: %s; nothing kept\n", outpath,
                    e ? strerror(e) : "a write failed (disk full?)");
        if (werr) rc = -1;   /* standard output: mpilens_main says so */
        if (rc != 0 && o != stdout) unlink(outpath);   /* no cut trace left behind */
        if (rc == 0 && o != stdout && progress) fprintf(stderr, "mpilens export: wrote %s\n", outpath);
    }
    free(cut.rank);
    an_run_close(&run);
    sym_cleanup();
    return rc == 0 ? 0 : 1;
}
