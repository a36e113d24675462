/*
 * profile_report.c — the profile part of `mpilens report`: what the run's
 * MPI calls cost (per routine, call site and rank, with the imbalance across
 * ranks), its messages (matched send to receive, sizes) and collectives,
 * and what did not match.  Text that fits 100 columns, or JSON with the same
 * data (docs/REPORT.md describes the schema).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "critpath_report.h"
#include "diag.h"
#include "exchange.h"
#include "json_out.h"
#include "profile_report.h"
#include "symbols.h"
#include "tool.h"

#define WIDTH 100

/* ---- numbers for people ------------------------------------------------------ */

static const char *fmt_time(int64_t ns, char *b, size_t n)
{
    double v = (double)ns;
    if (ns < 0) v = 0;
    if (v < 1e3) snprintf(b, n, "%.0f ns", v);
    else if (v < 1e6) snprintf(b, n, "%.1f us", v / 1e3);
    else if (v < 1e9) snprintf(b, n, "%.1f ms", v / 1e6);
    else snprintf(b, n, "%.3f s", v / 1e9);
    return b;
}

static const char *fmt_bytes(uint64_t x, char *b, size_t n)
{
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)x;
    int k = 0;
    while (v >= 1024 && k < 5) {
        v /= 1024;
        k++;
    }
    if (k == 0) snprintf(b, n, "%" PRIu64 " B", x);
    else snprintf(b, n, "%.1f %s", v, u[k]);
    return b;
}

static const char *fmt_count(uint64_t x, char *b, size_t n)
{
    if (x < 100000) snprintf(b, n, "%" PRIu64, x);
    else if (x < 999950) snprintf(b, n, "%.1fk", x / 1e3);
    else if (x < 999950000) snprintf(b, n, "%.1fM", x / 1e6);
    else snprintf(b, n, "%.1fG", x / 1e9);
    return b;
}

/* s cut to w columns, keeping its tail ("...dir/file.c:42"). */
static const char *fit(const char *s, size_t w, char *b, size_t n)
{
    size_t l = strlen(s);
    if (l <= w || w < 8) return s;
    snprintf(b, n, "...%s", s + l - (w - 3));
    return b;
}

static const char *rname(const struct an_run *run, uint16_t name)
{
    return name < run->nnames ? run->names[name] : "MPI_(unknown)";
}

/* ---- the data of one report ------------------------------------------------ */

struct report {
    struct an_run run;
    struct an_profile *prof;
    struct an_result res;
    struct an_cp *cp;             /* critical path, or NULL */
    struct cp_cost cost;          /* its cost model and where it came from */
    const char *dir;
    int all;
    char **find_site;             /* a sliced run: each finding's call site, named by its rank's owner */
    const struct ml_header *h0;   /* a sliced run: the lowest rank's header */
    int refed;                    /* profile and critical path fed by a pass with the final clocks */
    int diag_given;               /* a sliced run: the failure diagnosis made in slices, */
    const struct an_diag *diag;   /* here (NULL: no rank file readable) */
};

static const char *site_name(const struct report *rp, int rank, uint32_t site, char *b, size_t n)
{
    if (rank < 0 || rank >= rp->run.size || rp->run.slot[rank] < 0 || site == 0) return "(unknown)";
    return sym_site(rp->run.ranks[rp->run.slot[rank]].f, site, b, n);
}

/* The call site of finding f. */
static const char *finding_site(const struct report *rp, const struct an_finding *f, char *b, size_t n)
{
    if (rp->find_site) return rp->find_site[f - rp->res.findings];
    return site_name(rp, f->rank, f->site, b, n);
}

static const char *peer_text(int32_t p, char *b, size_t n)
{
    if (p < 0) snprintf(b, n, "any rank");
    else snprintf(b, n, "rank %d", p);
    return b;
}

static const char *tag_text(int32_t t, char *b, size_t n)
{
    if (t < 0) snprintf(b, n, "any tag");
    else snprintf(b, n, "tag %d", t);
    return b;
}

static const char *finding_kind(enum an_finding_kind k)
{
    switch (k) {
    case AN_F_UNMATCHED_SEND: return "unmatched_send";
    case AN_F_UNMATCHED_RECV: return "unmatched_receive";
    case AN_F_PENDING_RECV: return "pending_receive";
    case AN_F_UNRESOLVED_RECV: return "unresolved_receive";
    case AN_F_SIZE_MISMATCH: return "size_mismatch";
    case AN_F_COLL_INCOMPLETE: return "collective_incomplete";
    case AN_F_COLL_MISMATCH: return "collective_mismatch";
    case AN_F_UNKNOWN_COMM: return "unknown_communicator";
    case AN_F_OUTSIDE_COMM: return "outside_communicator";
    }
    return "other";
}

/* One finding as a sentence. */
static void finding_text(const struct report *rp, const struct an_finding *f, char *b, size_t n)
{
    char comm[160], sbuf[600], p[32], t[32], by[32], cnt[32];
    an_comm_name(&rp->run, f->comm, comm, sizeof comm);
    const char *site = finding_site(rp, f, sbuf, sizeof sbuf);
    const char *rt = rname(&rp->run, f->name);
    fmt_count(f->count, cnt, sizeof cnt);
    switch (f->kind) {
    case AN_F_UNMATCHED_SEND:
        snprintf(b, n, "%s message%s (%s) from rank %d to %s, %s, %s: sent by %s at %s, never received", cnt,
                 f->count == 1 ? "" : "s",
                 f->unsized ? "size not recorded: the call was unfinished" : fmt_bytes(f->bytes, by, sizeof by),
                 f->rank,
                 peer_text(f->peer, p, sizeof p), tag_text(f->tag, t, sizeof t), comm, rt, site);
        break;
    case AN_F_UNMATCHED_RECV:
        snprintf(b, n, "%s receive%s on rank %d from %s, %s, %s: completed by %s at %s, but no recorded send "
                       "fits",
                 cnt, f->count == 1 ? "" : "s", f->rank, peer_text(f->peer, p, sizeof p),
                 tag_text(f->tag, t, sizeof t), comm, rt, site);
        break;
    case AN_F_PENDING_RECV:
        snprintf(b, n, "%s receive%s on rank %d from %s, %s, %s: posted by %s at %s, never completed nor "
                       "matched",
                 cnt, f->count == 1 ? "" : "s", f->rank, peer_text(f->peer, p, sizeof p),
                 tag_text(f->tag, t, sizeof t), comm, rt, site);
        break;
    case AN_F_UNRESOLVED_RECV:
        snprintf(b, n, "%s receive%s on rank %d from %s, %s, %s (%s at %s): the actual source or tag was not "
                       "recorded, so the message cannot be named",
                 cnt, f->count == 1 ? "" : "s", f->rank, peer_text(f->peer, p, sizeof p),
                 tag_text(f->tag, t, sizeof t), comm, rt, site);
        break;
    case AN_F_SIZE_MISMATCH:
        snprintf(b, n, "%s message%s from rank %d to rank %d, %s, %s: the receive (%s at %s) got another size "
                       "than was sent (%s in all); the pairing is doubtful",
                 cnt, f->count == 1 ? "" : "s", f->peer, f->rank, tag_text(f->tag, t, sizeof t), comm, rt, site,
                 fmt_bytes(f->bytes, by, sizeof by));
        break;
    case AN_F_COLL_INCOMPLETE:
        snprintf(b, n, "%s on %s: collective #%" PRIu64 " was called by %d of %u ranks (rank %d did not); %s "
                       "incomplete instance%s",
                 rt, comm, f->index + 1, f->peer, f->comm < rp->run.ncomms ? rp->run.comms[f->comm].size : 0,
                 f->rank, cnt, f->count == 1 ? "" : "s");
        break;
    case AN_F_COLL_MISMATCH:
        snprintf(b, n, "collective #%" PRIu64 " on %s: rank %d called %s at %s where another rank called %s",
                 f->index + 1, comm, f->rank, rt, site, rname(&rp->run, f->name2));
        break;
    case AN_F_UNKNOWN_COMM:
        snprintf(b, n, "%s call%s on rank %d (%s at %s) name communicator definition %d, which the rank file "
                       "does not hold",
                 cnt, f->count == 1 ? "" : "s", f->rank, rt, site, f->peer);
        break;
    case AN_F_OUTSIDE_COMM:
        snprintf(b, n, "%s call%s on rank %d (%s at %s) use%s a communicator that reaches processes outside "
                       "the job (from %s): those processes are not recorded, so %s nothing and %s bytes "
                       "are not counted",
                 cnt, f->count == 1 ? "" : "s", f->rank, rt, site, f->count == 1 ? "s" : "",
                 f->name2 < rp->run.nnames ? rname(&rp->run, f->name2)
                                           : "MPI_Comm_spawn, MPI_Comm_connect, _accept or _join",
                 f->count == 1 ? "it matches" : "they match", f->count == 1 ? "its" : "their");
        break;
    }
}

/* ---- text ------------------------------------------------------------------ */

static void rule(FILE *o, const char *title)
{
    fprintf(o, "\n%s\n", title);
    for (size_t i = 0; i < strlen(title); i++) putc('-', o);
    putc('\n', o);
}

static void cmdline_text(const struct report *rp, char *b, size_t n)
{
    const struct ml_header *h = rp->h0 ? rp->h0 : mlr_header(rp->run.ranks[0].f);
    size_t o = 0, lim = sizeof h->cmdline;
    for (size_t i = 0; i < lim && o + 1 < n; i++) {
        char c = h->cmdline[i];
        if (c == 0) {
            if (i + 1 < lim && h->cmdline[i + 1] == 0) break;
            c = ' ';
        }
        b[o++] = (c < 32 || c == 127) ? '?' : c;
    }
    while (o && b[o - 1] == ' ') o--;
    b[o] = 0;
}

static void text_header(FILE *o, const struct report *rp)
{
    const struct an_run *run = &rp->run;
    char b1[64], b2[64], cmd[1100], fb[200];
    int64_t first, last;
    an_profile_span(rp->prof, &first, &last);
    cmdline_text(rp, cmd, sizeof cmd);
    fprintf(o, "mpilens report: %s\n", fit(rp->dir, WIDTH - 16, fb, sizeof fb));
    fprintf(o, "  program    %s\n", fit(cmd[0] ? cmd : run->exe, WIDTH - 13, fb, sizeof fb));
    fprintf(o, "  MPI        %.80s\n", run->mpi_version[0] ? run->mpi_version : run->mpi_impl);
    fprintf(o, "  ranks      %d (%u rank file%s read)\n", run->size, run->n, run->n == 1 ? "" : "s");
    fprintf(o, "  run time   %s on rank 0's clock, first call to last; %s MPI calls",
            fmt_time(last > first ? an_wsub(last, first) : 0, b1, sizeof b1),
            fmt_count(an_profile_calls(rp->prof), b2, sizeof b2));
    if (rp->res.stats.unfinished)
        fprintf(o, ", %" PRIu64 " unfinished\n             (unfinished: in progress when the rank stopped or died)",
                rp->res.stats.unfinished);
    fputc('\n', o);
    unsigned two = 0, one = 0;
    for (unsigned i = 0; i < run->n; i++) {
        if (run->ranks[i].clock.samples == 2) two++;
        else if (run->ranks[i].clock.samples == 1) one++;
    }
    fprintf(o, "  clocks     %u rank%s interpolated between MPI_Init and MPI_Finalize offsets", two, two == 1 ? "" : "s");
    if (one) fprintf(o, ",\n             %u with the MPI_Init offset only", one);
    fputc('\n', o);
    if (rp->res.repair_max > 0)
        fprintf(o, "             repaired %" PRIu64 " message%s that arrived before being sent\n"
                   "             largest correction %s (rank %d)%s\n",
                rp->res.repair_steps, rp->res.repair_steps == 1 ? "" : "s", fmt_time(rp->res.repair_max, b1, sizeof b1),
                rp->res.repair_rank, rp->res.repair_converged ? "" : "; not fully repaired");
    else
        fprintf(o, "             largest correction 0 ns: no message arrives before it was sent\n");
    if (rp->cp && rp->cost.opts && rp->cost.opts->window_set)
        fprintf(o, "  window     --from/--to limit the critical path and wait states only; the other\n"
                   "             sections cover the whole run\n");
}

/* text at most WIDTH columns a line, cut at spaces: "  " before the first
 * line, "    " before the others (a word longer than a line stays whole) */
static void print_wrapped(FILE *o, const char *text)
{
    const char *ind = "  ";
    while (*text) {
        size_t room = WIDTH - strlen(ind), n = strlen(text);
        if (n > room) {
            size_t cut = room;
            while (cut > 0 && text[cut] != ' ') cut--;
            if (cut == 0) cut = strcspn(text + room, " ") + room;
            n = cut;
        }
        fprintf(o, "%s%.*s\n", ind, (int)n, text);
        text += n;
        while (*text == ' ') text++;
        ind = "    ";
    }
}

static void text_problems(FILE *o, const struct report *rp)
{
    if (!rp->run.nproblems) return;
    rule(o, "Input problems");
    unsigned k = 0;
    for (const char *p = an_run_problem(&rp->run, NULL); p; p = an_run_problem(&rp->run, p)) {
        if (k++ == 20 && !rp->all) {
            fprintf(o, "  ... %u more (--all shows them)\n", rp->run.nproblems - 20);
            break;
        }
        print_wrapped(o, p);
    }
}

static void text_messages(FILE *o, const struct report *rp)
{
    const struct an_match_stats *st = &rp->res.stats;
    char a[32], b[32], c[32], d[64], e[32];
    uint64_t bad_recvs = st->unmatched_recvs + st->pending_recvs + st->unresolved_recvs;
    rule(o, "Messages");
    /* the sends of calls unfinished when their rank stopped have no size:
     * not '0 B' (dl_bigsend: 2 unmatched sends of 64 MiB said '(0 B)') */
    uint64_t un = st->unmatched_unsized;
    fmt_bytes(st->unmatched_send_bytes, d, sizeof d);
    if (un && un >= st->unmatched_sends) snprintf(d, sizeof d, "size unknown");
    fprintf(o, "  point-to-point  %s matched (%s); unmatched: %s send%s (%s), %s receive%s",
            fmt_count(st->messages, a, sizeof a), fmt_bytes(st->bytes, b, sizeof b),
            fmt_count(st->unmatched_sends, c, sizeof c), st->unmatched_sends == 1 ? "" : "s", d,
            fmt_count(bad_recvs, e, sizeof e), bad_recvs == 1 ? "" : "s");
    fputc('\n', o);
    if (un)
        fprintf(o, "                  size unknown: %" PRIu64 " unmatched send%s of unfinished calls, not in the bytes\n",
                un, un == 1 ? "" : "s");
    if (st->proc_null || st->probes)
        fprintf(o, "                  %" PRIu64 " to or from MPI_PROC_NULL (no message), %" PRIu64 " probe%s\n",
                st->proc_null, st->probes, st->probes == 1 ? "" : "s");
    if (st->cancels || st->cancelled_recvs || st->cancelled_sends)
        fprintf(o, "                  cancelled (no message): %" PRIu64 " receive%s, %" PRIu64 " send%s (%" PRIu64
                   " MPI_Cancel call%s)\n",
                st->cancelled_recvs, st->cancelled_recvs == 1 ? "" : "s", st->cancelled_sends,
                st->cancelled_sends == 1 ? "" : "s", st->cancels, st->cancels == 1 ? "" : "s");
    fprintf(o, "  collectives     %s call%s in %s instance%s", fmt_count(st->coll_calls, c, sizeof c),
            st->coll_calls == 1 ? "" : "s", fmt_count(st->coll_instances, d, sizeof d),
            st->coll_instances == 1 ? "" : "s");
    if (st->coll_incomplete || st->coll_mismatch)
        fprintf(o, "; %" PRIu64 " incomplete, %" PRIu64 " mismatched", st->coll_incomplete, st->coll_mismatch);
    fputc('\n', o);
}

static int rank_mpi_cmp(const void *a, const void *b)
{
    const struct an_rank_prof *x = *(const struct an_rank_prof *const *)a, *y = *(const struct an_rank_prof *const *)b;
    double sx = x->app ? (double)x->mpi / x->app : 0, sy = y->app ? (double)y->mpi / y->app : 0;
    return sx > sy ? -1 : sx < sy;
}

struct imbalance {
    double mean;
    int64_t max, min;
    int max_rank, min_rank;
    double pct;
};

static void imbalance_of(const struct report *rp, struct imbalance *im)
{
    unsigned n;
    const struct an_rank_prof *r = an_profile_ranks(rp->prof, &n);
    memset(im, 0, sizeof *im);
    im->min = INT64_MAX;
    im->max_rank = im->min_rank = -1;
    double sum = 0;
    for (unsigned i = 0; i < n; i++) {
        sum += (double)r[i].mpi;
        if (r[i].mpi > im->max || im->max_rank < 0) {
            im->max = r[i].mpi;
            im->max_rank = r[i].rank;
        }
        if (r[i].mpi < im->min) {
            im->min = r[i].mpi;
            im->min_rank = r[i].rank;
        }
    }
    if (!n) im->min = 0;
    im->mean = n ? sum / n : 0;
    im->pct = im->max > 0 ? 100.0 * ((double)im->max - im->mean) / (double)im->max : 0;
}

/* A call count, marked '*' when some of the calls are unfinished (in
 * progress when their rank stopped or died: time so far). */
static const char *calls_cell(uint64_t calls, uint64_t unfinished, char *b, size_t n)
{
    char c[32];
    snprintf(b, n, "%s%s", fmt_count(calls, c, sizeof c), unfinished ? "*" : "");
    return b;
}

/* A time, marked '~' when it holds the estimated time of repeated polls
 * (one record for a run of equal unsuccessful polls: docs/REPORT.md). */
static const char *time_cell(int64_t t, uint64_t estimated, char *b, size_t n)
{
    char c[32];
    snprintf(b, n, "%s%s", estimated ? "~" : "", fmt_time(t, c, sizeof c));
    return b;
}

static void estimated_note(FILE *o, const struct report *rp)
{
    unsigned n;
    uint64_t est = 0;
    const struct an_rank_prof *r = an_profile_ranks(rp->prof, &n);
    for (unsigned i = 0; i < n; i++) est += r[i].estimated;
    if (est)
        fprintf(o, "  ~ an estimate: it holds %" PRIu64 " repeated call%s (unsuccessful polls, MPI_Wtime),\n"
                   "    recorded once per run, each taken to last as long as the first\n", est, est == 1 ? "" : "s");
}

static void unfinished_note(FILE *o, uint64_t unfinished)
{
    if (unfinished)
        fprintf(o, "  * %" PRIu64 " unfinished call%s: in progress when the rank stopped or died, "
                   "counted with the time so far\n", unfinished, unfinished == 1 ? "" : "s");
}

static void text_ranks(FILE *o, const struct report *rp)
{
    unsigned n;
    const struct an_rank_prof *r = an_profile_ranks(rp->prof, &n);
    char a[32], b[32], c[32], d[32], e[32];
    rule(o, "Ranks (application time: end of MPI_Init to start of MPI_Finalize)");
    fprintf(o, "  %6s %12s %12s %7s %10s %12s %12s %4s\n", "rank", "app time", "MPI time", "MPI %", "calls",
            "MPI_Init", "MPI_Finalize", "thr");
    const struct an_rank_prof **order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return;
    for (unsigned i = 0; i < n; i++) order[i] = &r[i];
    unsigned shown = n;
    if (n > 16 && !rp->all) {
        qsort(order, n, sizeof *order, rank_mpi_cmp);  /* highest MPI share first */
        shown = 16;
    }
    for (unsigned i = 0; i < shown; i++) {
        const struct an_rank_prof *x = order[i];
        fprintf(o, "  %6d %12s %12s %6.1f%% %10s %12s %12s %4u%s\n", x->rank, fmt_time(x->app, a, sizeof a),
                time_cell(x->mpi, x->estimated, b, sizeof b), x->app ? 100.0 * x->mpi / x->app : 0.0,
                calls_cell(x->calls, x->unfinished, c, sizeof c), fmt_time(x->init, d, sizeof d), fmt_time(x->finalize, e, sizeof e),
                x->threads, x->finalized ? "" : " no MPI_Finalize");
    }
    if (shown < n) fprintf(o, "  ... %u more ranks (shown: the 16 with the highest MPI share; --all shows all)\n", n - shown);
    free(order);
    unfinished_note(o, rp->res.stats.unfinished);
    estimated_note(o, rp);
    struct imbalance im;
    imbalance_of(rp, &im);
    /* Two lines, so that long times and large rank numbers stay within the
     * report's 100 columns. */
    fprintf(o, "  MPI time per rank: mean %s, max %s (rank %d), min %s (rank %d)\n",
            fmt_time((int64_t)im.mean, a, sizeof a), fmt_time(im.max, b, sizeof b), im.max_rank,
            fmt_time(im.min, c, sizeof c), im.min_rank);
    fprintf(o, "  imbalance %.1f%% = (max - mean) / max: the share of the slowest rank's MPI time the others lack\n",
            im.pct);
}

/* MPI_Init and MPI_Finalize: outside the application time, so outside the
 * time shares (as in the rank table's MPI %), and shown apart. */
static int init_fin(const struct an_run *run, uint16_t name)
{
    return name < run->nnames && (run->name_role[name] == AN_INIT || run->name_role[name] == AN_FINALIZE);
}

/* The MPI time the routines' time% are shares of: every routine but
 * MPI_Init and MPI_Finalize. */
static int64_t routines_mpi(const struct report *rp)
{
    unsigned n;
    const struct an_routine_prof *r = an_profile_routines(rp->prof, &n);
    int64_t mpi = 0;
    for (unsigned i = 0; i < n; i++)
        if (!init_fin(&rp->run, r[i].name)) mpi = an_sadd(mpi, r[i].all.total);
    return mpi;
}

static void text_routines(FILE *o, const struct report *rp)
{
    unsigned n;
    const struct an_routine_prof *r = an_profile_routines(rp->prof, &n);
    int64_t mpi = routines_mpi(rp);
    char a[32], b[32], c[32], d[32], e[32];
    rule(o, "Routines (all ranks; imbalance of the per-rank time)");
    unsigned shown = n > 30 && !rp->all ? 30 : n, k = 0, apart = 0;
    /* a routine name is never cut: the name column is as wide as the longest
     * name shown (MPI_Type_create_hindexed_block: 30), and takes up to 2 of
     * its extra columns from the calls column, whose widest cell is 7
     * (999.9k*): the table stays in 100 columns up to names of 31 */
    int rw = 24;
    for (unsigned pass = 0, j = 0; pass < 2; pass++)
        for (unsigned i = 0; i < n; i++) {
            int outside = init_fin(&rp->run, r[i].name);
            if (outside != (int)pass || (!outside && j++ >= shown)) continue;
            int l = (int)strlen(rname(&rp->run, r[i].name));
            if (l > rw) rw = l;
        }
    int cw = 9 - (rw - 24) < 7 ? 7 : 9 - (rw - 24);
    fprintf(o, "  %-*s %*s %11s %10s %10s %10s %6s %6s\n", rw, "routine", cw, "calls", "total", "mean", "max",
            "bytes", "time%", "imbal");
    for (unsigned pass = 0; pass < 2; pass++)
    for (unsigned i = 0; i < n; i++) {
        const struct an_routine_prof *x = &r[i];
        int outside = init_fin(&rp->run, x->name);
        if (outside != (int)pass) continue;
        if (!outside && k++ >= shown) continue;
        if (outside && !apart++)
            fprintf(o, "  outside the application time (not in time%%):\n");
        double mean_rank = rp->run.n ? (double)x->all.total / rp->run.n : 0;
        double imb = x->rank_max > 0 ? 100.0 * ((double)x->rank_max - mean_rank) / (double)x->rank_max : 0;
        if (outside) {
            fprintf(o, "  %-*s %*s %11s %10s %10s %10s %6s %5.1f%%\n", rw, rname(&rp->run, x->name), cw,
                    calls_cell(x->all.calls, x->all.unfinished, a, sizeof a), time_cell(x->all.total, x->all.estimated, b, sizeof b),
                    fmt_time(x->all.calls ? x->all.total / (int64_t)x->all.calls : 0, c, sizeof c),
                    fmt_time(x->all.max, d, sizeof d), fmt_bytes(x->all.bytes, e, sizeof e), "-", imb);
            continue;
        }
        fprintf(o, "  %-*s %*s %11s %10s %10s %10s %5.1f%% %5.1f%%\n", rw, rname(&rp->run, x->name), cw,
                calls_cell(x->all.calls, x->all.unfinished, a, sizeof a), time_cell(x->all.total, x->all.estimated, b, sizeof b),
                fmt_time(x->all.calls ? x->all.total / (int64_t)x->all.calls : 0, c, sizeof c),
                fmt_time(x->all.max, d, sizeof d), fmt_bytes(x->all.bytes, e, sizeof e),
                mpi ? 100.0 * x->all.total / mpi : 0.0, imb);
    }
    if (k > shown) fprintf(o, "  ... %u more routines (--all or --json)\n", k - shown);
    unfinished_note(o, rp->res.stats.unfinished);
    estimated_note(o, rp);
}

/* The site cell of a table row (the report fits 100 columns): the site
 * fitted into sw columns (symbols.h, sym_fit); where even its shortest
 * form (the function's own name and offset, file and line) does not fit, the
 * site goes on a line of its own above the row, fitted to the page, and
 * the row's cell stays empty. */
static const char *site_row(FILE *o, const char *where, int sw, char *w, size_t n)
{
    /* a call chain (mpilens run -k N) too wide for the cell: on its own line,
     * so that its callers show */
    if (strstr(where, " < ") && (int)strlen(where) > sw) {
        fprintf(o, "  %s\n", sym_fit(where, WIDTH - 2, w, n));
        return "";
    }
    if ((int)strlen(where) <= sw || (int)sym_fit_min(where) <= sw) return sym_fit(where, (size_t)sw, w, n);
    fprintf(o, "  %s\n", sym_fit(where, WIDTH - 2, w, n));
    return "";
}

static void text_sites(FILE *o, const struct report *rp)
{
    unsigned n;
    const struct an_site_prof *s = an_profile_sites(rp->prof, &n);
    char a[32], b[32], c[32], d[32], e[32], w[700];
    rule(o, "Call sites, by time (all ranks)");
    unsigned shown = n > 20 && !rp->all ? 20 : n;
    /* routine names are never cut: a long one takes its room from the site
     * (down to 16 columns: the table fits 100 columns up to names of 31) */
    int rw = 18;
    for (unsigned i = 0; i < shown; i++)
        if ((int)strlen(rname(&rp->run, s[i].name)) > rw) rw = (int)strlen(rname(&rp->run, s[i].name));
    int sw = 29 - (rw - 18) < 16 ? 16 : 29 - (rw - 18);
    fprintf(o, "  %-*s %-*s %8s %10s %9s %9s %9s\n", sw, "call site", rw, "routine", "calls", "total", "mean", "max",
            "bytes");
    for (unsigned i = 0; i < shown; i++) {
        const struct an_site_prof *x = &s[i];
        fprintf(o, "  %-*s %-*s %8s %10s %9s %9s %9s\n", sw, site_row(o, x->where, sw, w, sizeof w),
                rw, rname(&rp->run, x->name), calls_cell(x->all.calls, x->all.unfinished, a, sizeof a),
                time_cell(x->all.total, x->all.estimated, b, sizeof b),
                fmt_time(x->all.calls ? x->all.total / (int64_t)x->all.calls : 0, c, sizeof c),
                fmt_time(x->all.max, d, sizeof d), fmt_bytes(x->all.bytes, e, sizeof e));
    }
    if (shown < n) fprintf(o, "  ... %u more call sites (--all or --json)\n", n - shown);
    unfinished_note(o, rp->res.stats.unfinished);
    estimated_note(o, rp);
}

/* "12.3" or "-" (not defined: MPI_Init, MPI_Finalize lie outside the
 * application time) */
static const char *pct(double v, char *b, size_t n)
{
    if (v < 0) snprintf(b, n, "-");
    else snprintf(b, n, "%.1f", v);
    return b;
}

/* Per call site across ranks: what each rank spent there (mpiP's
 * per-rank call-site statistics; --json has every rank's row). */
static void text_site_ranks(FILE *o, const struct report *rp)
{
    unsigned n;
    const struct an_site_prof *s = an_profile_sites(rp->prof, &n);
    if (!n) return;
    char a[32], b[32], c[32], d[16], e[16], w[700];
    rule(o, "Call sites per rank (time per rank: smallest, mean, largest; CV = stddev / mean)");
    unsigned shown = n > 20 && !rp->all ? 20 : n;
    int rw = 18;
    for (unsigned i = 0; i < shown; i++)
        if ((int)strlen(rname(&rp->run, s[i].name)) > rw) rw = (int)strlen(rname(&rp->run, s[i].name));
    int sw = 28 - (rw - 18) < 16 ? 16 : 28 - (rw - 18);   /* as above */
    fprintf(o, "  %-*s %-*s %5s %8s %8s %8s %5s %5s %5s\n", sw, "call site", rw, "routine", "ranks", "min", "mean",
            "max", "CV", "App%", "MPI%");
    for (unsigned i = 0; i < shown; i++) {
        const struct an_site_prof *x = &s[i];
        fprintf(o, "  %-*s %-*s %5u %8s %8s %8s %5.2f %5s %5s\n", sw, site_row(o, x->where, sw, w, sizeof w), rw,
                rname(&rp->run, x->name), x->nranks, fmt_time(x->rank_min, a, sizeof a),
                fmt_time((int64_t)(x->rank_mean + 0.5), b, sizeof b), fmt_time(x->rank_max, c, sizeof c), x->rank_cv,
                pct(x->app_pct, d, sizeof d), pct(x->mpi_pct, e, sizeof e));
    }
    if (shown < n) fprintf(o, "  ... %u more call sites (--all or --json)\n", n - shown);
    fprintf(o, "  (App%% and MPI%%: the site's time in %% of all ranks' application and MPI time, '-' for\n"
               "   MPI_Init and MPI_Finalize; --json has each rank's calls, shortest/mean/longest call, App%%, MPI%%)\n");
}

static int pair_by_bytes(const void *a, const void *b)
{
    const struct an_pair *x = *(const struct an_pair *const *)a, *y = *(const struct an_pair *const *)b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Who sends to whom (point-to-point), then each rank's collective volume. */
static void text_matrix(FILE *o, const struct report *rp)
{
    unsigned n;
    const struct an_pair *m = an_profile_matrix(rp->prof, &n);
    const struct an_run *run = &rp->run;
    char a[32], b[32];
    rule(o, "Communication matrix (matched point-to-point messages; sender rows, receiver columns)");
    if (!n) fprintf(o, "  no point-to-point messages\n");
    if (n && run->size <= 8) {   /* the whole grid: bytes */
        fprintf(o, "  %-9s", "bytes");
        for (int d = 0; d < run->size; d++) fprintf(o, " %8s%d", "to ", d);
        fputc('\n', o);
        unsigned k = 0;
        for (int src = 0; src < run->size; src++) {
            fprintf(o, "  from %-4d", src);
            for (int d = 0; d < run->size; d++) {
                while (k < n && (m[k].src < src || (m[k].src == src && m[k].dst < d))) k++;
                int hit = k < n && m[k].src == src && m[k].dst == d;
                fprintf(o, " %9s", hit ? fmt_bytes(m[k].bytes, a, sizeof a) : "-");
            }
            fputc('\n', o);
        }
    }
    if (n) {
        const struct an_pair **by = malloc(n * sizeof *by);
        if (by) {
            for (unsigned i = 0; i < n; i++) by[i] = &m[i];
            qsort(by, n, sizeof *by, pair_by_bytes);
            unsigned shown = n > 20 && !rp->all ? 20 : n;
            fprintf(o, "  %-16s %10s %10s\n", "sender > receiver", "messages", "bytes");
            for (unsigned i = 0; i < shown; i++) {
                char pr[48];
                snprintf(pr, sizeof pr, "%d > %d", by[i]->src, by[i]->dst);
                fprintf(o, "  %-16s %10s %10s\n", pr, fmt_count(by[i]->messages, a, sizeof a),
                        fmt_bytes(by[i]->bytes, b, sizeof b));
            }
            if (shown < n) fprintf(o, "  ... %u more pairs (--all or --json)\n", n - shown);
            free(by);
        }
    }
    unsigned nr;
    const struct an_rank_prof *r = an_profile_ranks(rp->prof, &nr);
    uint64_t calls = 0;
    for (unsigned i = 0; i < nr; i++) calls += r[i].coll_calls;
    if (!calls) return;
    fprintf(o, "  collectives apart (bytes through each rank's buffers, by its role):\n");
    fprintf(o, "  %-6s %10s %10s %10s\n", "rank", "calls", "sent", "received");
    unsigned shown = nr > 16 && !rp->all ? 16 : nr;
    for (unsigned i = 0; i < shown; i++) {
        char c[32];
        fprintf(o, "  %-6d %10s %10s %10s\n", r[i].rank, fmt_count(r[i].coll_calls, a, sizeof a),
                fmt_bytes(r[i].coll_sent, b, sizeof b), fmt_bytes(r[i].coll_recv, c, sizeof c));
    }
    if (shown < nr) fprintf(o, "  ... %u more ranks (--all or --json)\n", nr - shown);
}

static void bucket_range(unsigned k, char *b, size_t n)
{
    char x[32], y[32];
    if (k == 0) snprintf(b, n, "0 B");
    else if (k == 1) snprintf(b, n, "1 B");
    else if (k >= AN_SIZE_BUCKETS - 1) snprintf(b, n, ">= %s", fmt_bytes(1ull << (AN_SIZE_BUCKETS - 2), x, sizeof x));
    else snprintf(b, n, "%s - %s", fmt_bytes(1ull << (k - 1), x, sizeof x), fmt_bytes((1ull << k) - 1, y, sizeof y));
}

static void text_sizes(FILE *o, const struct report *rp)
{
    uint64_t cnt[AN_SIZE_BUCKETS], by[AN_SIZE_BUCKETS], total = 0;
    an_profile_sizes(rp->prof, cnt, by);
    for (unsigned k = 0; k < AN_SIZE_BUCKETS; k++) total += cnt[k];
    rule(o, "Message sizes (matched point-to-point messages)");
    if (!total) {
        fprintf(o, "  no point-to-point messages\n");
        return;
    }
    fprintf(o, "  %-22s %10s %7s %12s  %s\n", "size", "messages", "%", "bytes", "");
    uint64_t maxc = 0;
    for (unsigned k = 0; k < AN_SIZE_BUCKETS; k++)
        if (cnt[k] > maxc) maxc = cnt[k];
    for (unsigned k = 0; k < AN_SIZE_BUCKETS; k++) {
        if (!cnt[k]) continue;
        char r[64], a[32], b[32], bar[41];
        bucket_range(k, r, sizeof r);
        unsigned len = (unsigned)(40.0 * cnt[k] / maxc + 0.5);
        if (len == 0) len = 1;
        memset(bar, '#', len);
        bar[len] = 0;
        fprintf(o, "  %-22s %10s %6.1f%% %12s  %s\n", r, fmt_count(cnt[k], a, sizeof a), 100.0 * cnt[k] / total,
                fmt_bytes(by[k], b, sizeof b), bar);
    }
}

static void text_colls(FILE *o, const struct report *rp)
{
    unsigned n;
    const struct an_coll_prof *c = an_profile_colls(rp->prof, &n);
    if (!n) return;
    char a[32], b[32], d[32], e[32];
    rule(o, "Collectives (instances: one call on every member; skew: first to last arrival)");
    fprintf(o, "  %-28s %10s %12s %12s %12s\n", "routine", "instances", "mean skew", "max skew", "bytes");
    for (unsigned i = 0; i < n; i++)
        fprintf(o, "  %-28s %10s %12s %12s %12s\n", rname(&rp->run, c[i].name),
                fmt_count(c[i].instances, a, sizeof a),
                fmt_time(c[i].instances ? c[i].skew_total / (int64_t)c[i].instances : 0, b, sizeof b),
                fmt_time(c[i].skew_max, d, sizeof d), fmt_bytes(c[i].bytes, e, sizeof e));
}

static void text_io(FILE *o, const struct report *rp)
{
    unsigned n;
    const struct an_io_prof *io = an_profile_io(rp->prof, &n);
    if (!n) return;
    char a[32], b[32], d[32], e[32], w[64], fn[64];
    rule(o, "I/O (MPI_File_*: per file as opened, and rank; bytes: count x type size asked for)");
    fprintf(o, "  %-26s %-20s %5s %9s %10s %9s %10s\n", "file", "opened at", "rank", "reads", "read", "writes",
            "written");
    for (unsigned i = 0; i < n; i++)
        fprintf(o, "  %-26s %-20s %5d %9s %10s %9s %10s\n", fit(io[i].name, 26, fn, sizeof fn),
                sym_fit(io[i].where, 20, w, sizeof w), io[i].rank,
                fmt_count(io[i].reads, a, sizeof a), fmt_bytes(io[i].rbytes, b, sizeof b),
                fmt_count(io[i].writes, d, sizeof d), fmt_bytes(io[i].wbytes, e, sizeof e));
}

static void text_findings(FILE *o, const struct report *rp)
{
    rule(o, "Findings");
    const struct an_match_stats *st = &rp->res.stats;
    if (!rp->res.nfindings) {
        fprintf(o, "  none: every message matched, every collective complete\n");
        return;
    }
    char buf[2048];
    unsigned shown = rp->res.nfindings > 20 && !rp->all ? 20 : rp->res.nfindings;
    for (unsigned i = 0; i < shown; i++) {
        finding_text(rp, &rp->res.findings[i], buf, sizeof buf);
        /* wrap at WIDTH */
        const char *p = buf;
        int first = 1;
        while (*p) {
            size_t w = WIDTH - 6, l = strlen(p);
            if (l > w) {
                size_t cut = w;
                while (cut > 20 && p[cut] != ' ') cut--;
                if (cut <= 20) cut = w;
                fprintf(o, "  %s %.*s\n", first ? "-" : " ", (int)cut, p);
                p += cut;
                while (*p == ' ') p++;
            } else {
                fprintf(o, "  %s %s\n", first ? "-" : " ", p);
                break;
            }
            first = 0;
        }
    }
    if (shown < rp->res.nfindings) fprintf(o, "  ... %u more (--all or --json)\n", rp->res.nfindings - shown);
    if (st->cancels > st->cancelled_recvs + st->cancelled_sends && (st->pending_recvs || st->unmatched_recvs))
        fprintf(o, "  note: the program called MPI_Cancel %" PRIu64 " time%s; a cancelled request whose completion\n"
                   "  was never recorded (or a recording older than the cancelled flag) shows as pending\n",
                st->cancels, st->cancels == 1 ? "" : "s");
}

static void report_text(FILE *o, const struct report *rp)
{
    text_header(o, rp);
    text_problems(o, rp);
    text_messages(o, rp);
    text_ranks(o, rp);
    text_routines(o, rp);
    text_sites(o, rp);
    text_site_ranks(o, rp);
    text_sizes(o, rp);
    text_matrix(o, rp);
    text_colls(o, rp);
    text_io(o, rp);
    text_findings(o, rp);
}

/* ---- JSON ------------------------------------------------------------------ */

static void j_stat(FILE *o, const struct an_stat *s)
{
    fprintf(o, "\"calls\": %" PRIu64 ", \"total_ns\": %" PRId64 ", \"mean_ns\": %" PRId64 ", \"max_ns\": %" PRId64
               ", \"bytes\": %" PRIu64 ", \"unfinished\": %" PRIu64 ", \"estimated_calls\": %" PRIu64,
            s->calls, s->total, s->calls ? s->total / (int64_t)s->calls : 0, s->max, s->bytes, s->unfinished,
            s->estimated);
}

/* "site": the innermost frame, "stack": every frame of the call chain,
 * innermost first (one frame unless recorded with mpilens run -k N) */
static void j_site(FILE *o, const char *where)
{
    const char *q = strstr(where, " < ");
    fprintf(o, "\"site\": ");
    json_strn(o, where, q ? (size_t)(q - where) : strlen(where));
    fprintf(o, ", \"stack\": [");
    for (const char *p = where;;) {
        q = strstr(p, " < ");
        json_strn(o, p, q ? (size_t)(q - p) : strlen(p));
        if (!q) break;
        fprintf(o, ", ");
        p = q + 3;
    }
    fprintf(o, "]");
}

/* a percentage, or null where it is not defined (negative) */
static const char *jpct(double v, char *b, size_t n)
{
    if (v < 0) snprintf(b, n, "null");
    else snprintf(b, n, "%.6f", v);
    return b;
}

static void report_json(FILE *o, const struct report *rp)
{
    const struct an_run *run = &rp->run;
    const struct an_match_stats *st = &rp->res.stats;
    char cmd[1100];
    int64_t first, last;
    an_profile_span(rp->prof, &first, &last);
    cmdline_text(rp, cmd, sizeof cmd);
    fprintf(o, "{\n  \"mpilens_report\": 1,\n  \"run\": {\"dir\": ");
    json_str(o, rp->dir);
    fprintf(o, ", \"exe\": ");
    json_str(o, run->exe);
    fprintf(o, ", \"command\": ");
    json_str(o, cmd);
    fprintf(o, ", \"mpi_impl\": ");
    json_str(o, run->mpi_impl);
    fprintf(o, ", \"mpi_version\": ");
    json_str(o, run->mpi_version);
    fprintf(o, ",\n          \"ranks\": %d, \"rank_files\": %u, \"ranks_read\": %u, \"events\": %" PRIu64
               ", \"calls\": %" PRIu64 ", \"unfinished_calls\": %" PRIu64 ", \"first_ns\": %" PRId64
               ", \"last_ns\": %" PRId64 ", \"span_ns\": %" PRId64 "},\n",
            run->size, run->nfiles, run->n, an_profile_events(rp->prof),
            an_profile_calls(rp->prof), st->unfinished, first == INT64_MAX ? 0 : first,
            last == INT64_MIN ? 0 : last, last > first ? an_wsub(last, first) : 0);
    tool_deadlock_json(o, rp->dir, 0);   /* the live monitor's verdict, or null */
    /* "failure_summary", "failures", "other_ranks" */
    if (rp->diag_given) diag_json_diag(rp->dir, rp->diag, o, 0);
    else diag_json(rp->dir, o, 0);
    fprintf(o, "  \"input_problems\": [");
    int k = 0;
    for (const char *p = an_run_problem(run, NULL); p; p = an_run_problem(run, p)) {
        fprintf(o, "%s\n    ", k++ ? "," : "");
        json_str(o, p);
    }
    fprintf(o, "],\n");
    unsigned two = 0, one = 0;
    for (unsigned i = 0; i < run->n; i++) {
        if (run->ranks[i].clock.samples == 2) two++;
        else if (run->ranks[i].clock.samples == 1) one++;
    }
    fprintf(o, "  \"clock\": {\"ranks_two_samples\": %u, \"ranks_one_sample\": %u, "
               "\"repaired_messages\": %" PRIu64 ", \"largest_correction_ns\": %" PRId64
               ", \"largest_correction_rank\": %d, \"converged\": %s},\n",
            two, one, rp->res.repair_steps, rp->res.repair_max,
            rp->res.repair_max > 0 ? rp->res.repair_rank : -1, rp->res.repair_converged ? "true" : "false");
    fprintf(o, "  \"messages\": {\"matched\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"sends\": %" PRIu64
               ", \"receives\": %" PRIu64 ", \"unmatched_sends\": %" PRIu64 ", \"unmatched_send_bytes\": %" PRIu64
               ", \"unmatched_sends_unsized\": %" PRIu64
               ",\n               \"unmatched_receives\": %" PRIu64 ", \"pending_receives\": %" PRIu64
               ", \"unresolved_receives\": %" PRIu64 ", \"proc_null\": %" PRIu64 ", \"probes\": %" PRIu64
               ", \"cancels\": %" PRIu64 ", \"cancelled_receives\": %" PRIu64 ", \"cancelled_sends\": %" PRIu64
               ",\n               \"held_behind_wildcards_max\": %" PRIu64 ", \"untracked_completions\": %" PRIu64 "},\n",
            st->messages, st->bytes, st->sends, st->recvs, st->unmatched_sends, st->unmatched_send_bytes,
            st->unmatched_unsized,
            st->unmatched_recvs, st->pending_recvs, st->unresolved_recvs, st->proc_null, st->probes, st->cancels,
            st->cancelled_recvs, st->cancelled_sends, st->held_max, st->untracked_done);
    unsigned n;
    const struct an_coll_prof *c = an_profile_colls(rp->prof, &n);
    fprintf(o, "  \"collectives\": {\"calls\": %" PRIu64 ", \"instances\": %" PRIu64 ", \"incomplete\": %" PRIu64
               ", \"mismatched\": %" PRIu64 ", \"by_routine\": [",
            st->coll_calls, st->coll_instances, st->coll_incomplete, st->coll_mismatch);
    for (unsigned i = 0; i < n; i++) {
        fprintf(o, "%s\n    {\"routine\": ", i ? "," : "");
        json_str(o, rname(run, c[i].name));
        fprintf(o, ", \"instances\": %" PRIu64 ", \"skew_total_ns\": %" PRId64 ", \"skew_max_ns\": %" PRId64
                   ", \"bytes\": %" PRIu64 "}",
                c[i].instances, c[i].skew_total, c[i].skew_max, c[i].bytes);
    }
    fprintf(o, "]},\n");
    const struct an_rank_prof *r = an_profile_ranks(rp->prof, &n);
    fprintf(o, "  \"ranks\": [");
    for (unsigned i = 0; i < n; i++)
        fprintf(o, "%s\n    {\"rank\": %d, \"app_ns\": %" PRId64 ", \"mpi_ns\": %" PRId64 ", \"mpi_share\": %.6f, "
                   "\"init_ns\": %" PRId64 ", \"finalize_ns\": %" PRId64 ", \"calls\": %" PRIu64
                   ", \"unfinished\": %" PRIu64 ", \"estimated_calls\": %" PRIu64 ", \"threads\": %u, \"finalized\": %s}",
                i ? "," : "", r[i].rank, r[i].app, r[i].mpi, r[i].app ? (double)r[i].mpi / r[i].app : 0.0,
                r[i].init, r[i].finalize, r[i].calls, r[i].unfinished, r[i].estimated, r[i].threads, r[i].finalized ? "true" : "false");
    fprintf(o, "],\n");
    struct imbalance im;
    imbalance_of(rp, &im);
    fprintf(o, "  \"imbalance\": {\"mpi_mean_ns\": %.0f, \"mpi_max_ns\": %" PRId64 ", \"mpi_max_rank\": %d, "
               "\"mpi_min_ns\": %" PRId64 ", \"mpi_min_rank\": %d, \"percent\": %.3f},\n",
            im.mean, im.max, im.max_rank, im.min, im.min_rank, im.pct);
    const struct an_routine_prof *ro = an_profile_routines(rp->prof, &n);
    int64_t mpi = routines_mpi(rp);
    fprintf(o, "  \"routines\": [");
    for (unsigned i = 0; i < n; i++) {
        double mean_rank = run->n ? (double)ro[i].all.total / run->n : 0;
        fprintf(o, "%s\n    {\"routine\": ", i ? "," : "");
        json_str(o, rname(run, ro[i].name));
        fprintf(o, ", ");
        j_stat(o, &ro[i].all);
        fprintf(o, ", \"time_share\": %.6f, \"ranks\": %u, \"rank_min_ns\": %" PRId64 ", \"rank_max_ns\": %" PRId64
                   ", \"rank_max\": %d, \"imbalance_percent\": %.3f}",
                mpi && !init_fin(run, ro[i].name) ? (double)ro[i].all.total / mpi : 0.0, ro[i].nranks, ro[i].rank_min, ro[i].rank_max,
                ro[i].rank_argmax,
                ro[i].rank_max > 0 ? 100.0 * ((double)ro[i].rank_max - mean_rank) / (double)ro[i].rank_max : 0.0);
    }
    fprintf(o, "],\n");
    const struct an_site_prof *s = an_profile_sites(rp->prof, &n);
    char pa[32], pb[32];
    fprintf(o, "  \"sites\": [");
    for (unsigned i = 0; i < n; i++) {
        fprintf(o, "%s\n    {", i ? "," : "");
        j_site(o, s[i].where);
        fprintf(o, ", \"routine\": ");
        json_str(o, rname(run, s[i].name));
        fprintf(o, ", ");
        j_stat(o, &s[i].all);
        fprintf(o, ", \"min_ns\": %" PRId64 ", \"ranks\": %u, \"rank_min_ns\": %" PRId64 ", \"rank_mean_ns\": %.0f"
                   ", \"rank_max_ns\": %" PRId64 ", \"rank_cv\": %.6f, \"app_percent\": %s, \"mpi_percent\": %s"
                   ",\n     \"per_rank\": [",
                s[i].all.calls ? s[i].all.min : 0, s[i].nranks, s[i].rank_min, s[i].rank_mean, s[i].rank_max,
                s[i].rank_cv, jpct(s[i].app_pct, pa, sizeof pa), jpct(s[i].mpi_pct, pb, sizeof pb));
        for (unsigned q = 0; q < s[i].nranks; q++) {
            const struct an_site_rank *x = &s[i].per_rank[q];
            fprintf(o, "%s{\"rank\": %d, \"calls\": %" PRIu64 ", \"total_ns\": %" PRId64 ", \"min_ns\": %" PRId64
                       ", \"mean_ns\": %" PRId64 ", \"max_ns\": %" PRId64 ", \"app_percent\": %s, \"mpi_percent\": %s}",
                    q ? ", " : "", x->rank, x->st.calls, x->st.total, x->st.calls ? x->st.min : 0,
                    x->st.calls ? x->st.total / (int64_t)x->st.calls : 0, x->st.max, jpct(x->app_pct, pa, sizeof pa),
                    jpct(x->mpi_pct, pb, sizeof pb));
        }
        fprintf(o, "]}");
    }
    fprintf(o, "],\n");
    const struct an_pair *mx = an_profile_matrix(rp->prof, &n);
    fprintf(o, "  \"matrix\": {\"pairs\": [");
    for (unsigned i = 0; i < n; i++)
        fprintf(o, "%s\n    {\"src\": %d, \"dst\": %d, \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 "}",
                i ? "," : "", mx[i].src, mx[i].dst, mx[i].messages, mx[i].bytes);
    fprintf(o, "],\n    \"collectives\": [");
    const struct an_rank_prof *cr = an_profile_ranks(rp->prof, &n);
    for (unsigned i = 0; i < n; i++)
        fprintf(o, "%s\n    {\"rank\": %d, \"calls\": %" PRIu64 ", \"sent\": %" PRIu64 ", \"received\": %" PRIu64 "}",
                i ? "," : "", cr[i].rank, cr[i].coll_calls, cr[i].coll_sent, cr[i].coll_recv);
    fprintf(o, "]},\n");
    uint64_t cnt[AN_SIZE_BUCKETS], by[AN_SIZE_BUCKETS];
    an_profile_sizes(rp->prof, cnt, by);
    fprintf(o, "  \"message_sizes\": [");
    k = 0;
    for (unsigned b = 0; b < AN_SIZE_BUCKETS; b++) {
        if (!cnt[b]) continue;
        uint64_t lo = b == 0 ? 0 : 1ull << (b - 1);
        fprintf(o, "%s\n    {\"min_bytes\": %" PRIu64 ", ", k++ ? "," : "", lo);
        if (b == 0) fprintf(o, "\"max_bytes\": 0");
        else if (b == AN_SIZE_BUCKETS - 1) fprintf(o, "\"max_bytes\": null");
        else fprintf(o, "\"max_bytes\": %" PRIu64, (uint64_t)((1ull << b) - 1));
        fprintf(o, ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 "}", cnt[b], by[b]);
    }
    fprintf(o, "],\n  \"io\": [");
    const struct an_io_prof *io = an_profile_io(rp->prof, &n);
    for (unsigned i = 0; i < n; i++) {
        fprintf(o, "%s\n    {\"file\": ", i ? "," : "");
        json_str(o, io[i].name);
        fprintf(o, ", \"opened_at\": ");
        json_str(o, io[i].where);
        fprintf(o, ", \"rank\": %d, \"opens\": %" PRIu64 ", \"reads\": %" PRIu64 ", \"read_bytes\": %" PRIu64
                   ", \"writes\": %" PRIu64 ", \"written_bytes\": %" PRIu64 "}",
                io[i].rank, io[i].opens, io[i].reads, io[i].rbytes, io[i].writes, io[i].wbytes);
    }
    fprintf(o, "],\n");
    if (rp->cp) cp_json(o, run, an_cp_result(rp->cp), &rp->cost);
    fprintf(o, "  \"findings\": [");
    char buf[2048], site[600], comm[160];
    for (unsigned i = 0; i < rp->res.nfindings; i++) {
        const struct an_finding *f = &rp->res.findings[i];
        fprintf(o, "%s\n    {\"kind\": \"%s\", \"rank\": %d, \"peer\": %d, \"tag\": %d, \"comm\": ", i ? "," : "",
                finding_kind(f->kind), f->rank, f->peer, f->tag);
        an_comm_name(run, f->comm, comm, sizeof comm);
        json_str(o, comm);
        fprintf(o, ", \"routine\": ");
        json_str(o, rname(run, f->name));
        fprintf(o, ", \"site\": ");
        json_str(o, finding_site(rp, f, site, sizeof site));
        fprintf(o, ", \"count\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"instance\": %" PRIu64 ", \"text\": ",
                f->count, f->bytes, f->index);
        finding_text(rp, f, buf, sizeof buf);
        json_str(o, buf);
        fputc('}', o);
    }
    fprintf(o, "]\n}\n");
}

/* ---- entry ------------------------------------------------------------------- */

/* The critical path rides on the profile's pass (critpath.c). */
static int critpath_start(struct report *rp, const struct report_opts *opts, struct an_tee *tee, struct an_sink *sink)
{
    struct an_cp_opts def;
    an_cp_opts_default(&def);
    rp->cp = an_cp_new(&rp->run, opts->cp ? opts->cp : &def);
    if (!rp->cp) return -1;
    tee->a = *sink;
    tee->b = an_cp_sink(rp->cp);
    *sink = an_tee_sink(tee);
    return 0;
}

static int critpath_end(struct report *rp, const struct report_opts *opts)
{
    if (rp->res.repair_steps && !rp->refed) {
        /* the first pass saw clocks still being repaired: once more with the final ones */
        struct an_cp_opts def;
        an_cp_opts_default(&def);
        an_cp_free(rp->cp);
        rp->cp = an_cp_new(&rp->run, opts->cp ? opts->cp : &def);
        if (!rp->cp) return -1;
        struct an_sink s = an_cp_sink(rp->cp);
        struct an_result again;
        int rc = an_analyse(&rp->run, &s, NULL, opts->progress, &again);
        an_result_free(&again);
        if (rc) return -1;
    }
    return an_cp_finish(rp->cp);
}

int report_profile_opts(const char *dir, FILE *out, const struct report_opts *opts)
{
    struct report rp;
    memset(&rp, 0, sizeof rp);
    rp.dir = dir;
    rp.all = opts->all;
    rp.cost.opts = opts->cp;
    rp.cost.source = opts->cost_source;
    int err = an_run_open(dir, &rp.run);
    if (err) {
        for (const char *p = an_run_problem(&rp.run, NULL); p; p = an_run_problem(&rp.run, p))
            fprintf(stderr, "mpilens report: %s\n", p);
        an_run_close(&rp.run);
        return 1;
    }
    if (!opts->json)   /* problems go to the report; say them on stderr too when it goes to a file */
        for (const char *p = an_run_problem(&rp.run, NULL); p && out != stdout; p = an_run_problem(&rp.run, p))
            fprintf(stderr, "mpilens report: warning: %s\n", p);
    rp.prof = an_profile_new(&rp.run);
    if (!rp.prof) {
        an_run_close(&rp.run);
        fprintf(stderr, "mpilens report: out of memory\n");
        return 1;
    }
    struct an_sink sink = an_profile_sink(rp.prof);
    struct an_tee tee;
    if (opts->critpath && critpath_start(&rp, opts, &tee, &sink)) goto oom;
    if (an_analyse(&rp.run, &sink, NULL, opts->progress, &rp.res) != 0) goto oom;
    if (rp.res.repair_max > 0) {
        /* the first pass saw clocks still being repaired: the profile (and
         * the critical path) once more with the final ones, whatever order
         * the repairs came in (docs/PARALLEL.md) */
        an_profile_free(rp.prof);
        an_cp_free(rp.cp);
        rp.cp = NULL;
        if (!(rp.prof = an_profile_new(&rp.run))) goto oom;
        sink = an_profile_sink(rp.prof);
        if (opts->critpath && critpath_start(&rp, opts, &tee, &sink)) goto oom;
        if (an_analyse_final(&rp.run, &sink, opts->progress, &rp.res) != 0) goto oom;
        rp.refed = 1;
    }
    if (an_profile_finish(rp.prof, sym_stack) || (rp.cp && critpath_end(&rp, opts))) {
    oom:
        fprintf(stderr, "mpilens report: out of memory while reading %s\n", dir);
        an_cp_free(rp.cp);
        an_profile_free(rp.prof);
        an_result_free(&rp.res);
        an_run_close(&rp.run);
        return 1;
    }
    if (opts->json) report_json(out, &rp);
    else if (opts->critpath == 2) text_header(out, &rp);
    else report_text(out, &rp);
    if (!opts->json && rp.cp) cp_text(out, &rp.run, an_cp_result(rp.cp), rp.all, &rp.cost);
    an_cp_free(rp.cp);
    an_profile_free(rp.prof);
    an_result_free(&rp.res);
    an_run_close(&rp.run);
    sym_cleanup();
    return 0;
}

int report_sliced(const char *dir, FILE *out, const struct report_opts *opts)
{
    struct an_xch *x = tool_xch;
    struct report rp;
    memset(&rp, 0, sizeof rp);
    rp.dir = dir;
    rp.all = opts->all;
    struct an_run run;
    if (an_run_open_slice(dir, x, &run) != 0) {
        if (x->rank == 0 && !opts->json && diag_print(dir, out) >= 0) fputc('\n', out);   /* as the serial report */
        for (const char *p = an_run_problem(&run, NULL); x->rank == 0 && p; p = an_run_problem(&run, p))
            fprintf(stderr, "mpilens report: %s\n", p);
        an_run_close(&run);
        sym_cleanup();
        return 1;
    }
    if (getenv("MPILENS_SLICE_LOG")) tool_slice_log("report", &run, x->rank, x->size);   /* tests */
    /* the failure diagnosis: each process its own rank files, process 0 the job */
    struct an_diag dg;
    int dl = run.slice ? an_diag_load_slice(&run, sym_site, sym_addr, &dg) : -1;
    if (getenv("MPILENS_SLICE_LOG")) tool_diag_slice_log("report", &run, x->rank, x->size);   /* tests */
    if (x->rank == 0 && !opts->json && dl == 0) {
        diag_print_diag(dir, &dg, out);
        fputc('\n', out);
    }
    struct an_slice_report sr;
    an_slice_report(&run, sym_stack, sym_site, opts->progress && x->rank == 0, &sr);
    if (sr.why) {
        if (x->rank == 0 && dl == 0) an_diag_free(&dg);
        an_run_close(&run);
        sym_cleanup();
        if (x->rank == 0)
            fprintf(stderr, "mpilens report: note: %s, so process 0 analyses every rank (docs/PARALLEL.md)\n", sr.why);
        return -2;
    }
    if (x->rank == 0) {
        if (getenv("MPILENS_SLICE_LOG") && sr.res.passes > 1)   /* tests: the clocks were repaired in slices */
            fprintf(stderr, "mpilens report: clocks repaired across slices in %u round%s\n", sr.res.passes - 1,
                    sr.res.passes == 2 ? "" : "s");
        if (!opts->json)   /* problems go to the report; say them on stderr too when it goes to a file */
            for (const char *p = an_run_problem(&run, NULL); p && out != stdout; p = an_run_problem(&run, p))
                fprintf(stderr, "mpilens report: warning: %s\n", p);
        rp.run = sr.run;
        rp.prof = sr.prof;
        rp.res = sr.res;
        rp.find_site = sr.find_site;
        rp.h0 = &sr.h0;
        rp.diag_given = 1;
        rp.diag = dl == 0 ? &dg : NULL;
        if (opts->json) report_json(out, &rp);
        else report_text(out, &rp);
        an_slice_report_free(&sr);
        if (dl == 0) an_diag_free(&dg);
    }
    an_run_close(&run);
    sym_cleanup();
    return 0;
}

int report_profile(const char *dir, FILE *out, int json)
{
    struct report_opts o = {json, 0, 1, 0, NULL, NULL};
    return report_profile_opts(dir, out, &o);
}
