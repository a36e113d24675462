/*
 * critpath_report.c — the critical-path and wait-state part of `mpilens
 * report` (analysis/critpath.c computes, this file words it): a text
 * section that fits 100 columns, and the "critical_path" and "wait_states"
 * members of report --json (docs/REPORT.md, docs/CRITPATH.md).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "critpath_report.h"
#include "json_out.h"
#include "symbols.h"

static const char *const mkey[AN_CP_NM] = {"runtime", "comm_time", "comp_time", "bytes", "bandwidth_cost",
                                           "latency_cost"};
static const char *const mtext[AN_CP_NM] = {"run time", "communication", "computation", "bytes sent",
                                            "bandwidth cost", "latency cost"};
static const char *const wkey[AN_CP_NW] = {"late_sender", "late_receiver", "collective", "completion"};
static const char *const wtext[AN_CP_NW] = {"late sender", "late receiver", "collective", "completion"};

static const char *tm(int64_t ns, char *b, size_t n)
{
    double v = ns < 0 ? 0 : (double)ns;
    if (v < 1e3) snprintf(b, n, "%.0f ns", v);
    else if (v < 1e6) snprintf(b, n, "%.1f us", v / 1e3);
    else if (v < 1e9) snprintf(b, n, "%.2f ms", v / 1e6);
    else snprintf(b, n, "%.3f s", v / 1e9);
    return b;
}

static const char *by(double x, char *b, size_t n)
{
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int k = 0;
    while (x >= 1024 && k < 5) {
        x /= 1024;
        k++;
    }
    if (k == 0) snprintf(b, n, "%.0f B", x);
    else snprintf(b, n, "%.1f %s", x, u[k]);
    return b;
}

static const char *val(int m, double v, char *b, size_t n)
{
    return m == AN_CP_BYTES ? by(v, b, n) : tm((int64_t)v, b, n);
}

static const char *rn(const struct an_run *run, uint32_t name)
{
    return name < run->nnames ? run->names[name] : "MPI_(unknown)";
}

static const struct mlr_file *file_of(const struct an_run *run, int rank)
{
    if (rank < 0 || rank >= run->size || run->slot[rank] < 0) return NULL;
    return run->ranks[run->slot[rank]].f;
}

static const char *site(const struct an_run *run, int rank, uint32_t s, char *b, size_t n)
{
    const struct mlr_file *f = file_of(run, rank);
    if (!f || s == 0) return "(unknown)";
    const char *w = sym_site(f, s, b, n);
    return w ? w : "(unknown)";
}

/* regions of a breakdown merged by name (ranks with the same code) */
struct rsum {
    char name[1100];          /* "from -> to" */
    char from[520], to[520];  /* the two call sites */
    int64_t val;
    unsigned ranks;
};

static void region_name(const struct an_run *run, const struct an_cp_region *g, struct rsum *x)
{
    char t[512];
    snprintf(x->from, sizeof x->from, "%s", g->site_from ? site(run, g->rank, g->site_from, t, sizeof t) : "(start)");
    snprintf(x->to, sizeof x->to, "%s", site(run, g->rank, g->site_to, t, sizeof t));
    snprintf(x->name, sizeof x->name, "%s -> %s", x->from, x->to);
}

static int rsum_cmp(const void *a, const void *b)
{
    const struct rsum *x = a, *y = b;
    return x->val != y->val ? (x->val > y->val ? -1 : 1) : strcmp(x->name, y->name);
}

static struct rsum *regions(const struct an_run *run, const struct an_cp_result *r, const struct an_cp_path *p,
                            unsigned *np)
{
    struct rsum *s = calloc(p->nby ? p->nby : 1, sizeof *s);
    unsigned n = 0;
    if (!s) {
        *np = 0;
        return NULL;
    }
    for (unsigned i = 0; i < p->nby; i++) {
        if (!(p->by[i].key & AN_CP_REGION)) continue;
        uint32_t id = p->by[i].key & ~AN_CP_REGION;
        if (id >= r->nregions) continue;
        region_name(run, &r->regions[id], &s[n]);
        unsigned j;
        for (j = 0; j < n; j++)
            if (strcmp(s[j].name, s[n].name) == 0) break;
        if (j == n) n++;
        s[j].val += p->by[i].val;
        s[j].ranks++;
    }
    qsort(s, n, sizeof *s, rsum_cmp);
    *np = n;
    return s;
}

static void seg_what(const struct an_run *run, const struct an_cp_segment *s, char *b, size_t n)
{
    if (s->to_rank < 0) snprintf(b, n, "end");
    else snprintf(b, n, "%s -> rank %d %s", rn(run, s->out_name), s->to_rank, rn(run, s->in_name));
}

void cp_seg_words(const struct an_run *run, const struct an_cp_segment *s, char *what, size_t wn, char *where,
                  size_t sn)
{
    char b[1024];
    seg_what(run, s, what, wn);
    snprintf(where, sn, "%s", s->to_rank >= 0 ? site(run, s->rank, s->out_site, b, sizeof b) : "");
}

static int i64_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int seg_len_cmp(const void *a, const void *b)
{
    const struct an_cp_segment *x = *(const struct an_cp_segment *const *)a;
    const struct an_cp_segment *y = *(const struct an_cp_segment *const *)b;
    return x->on_path != y->on_path ? (x->on_path > y->on_path ? -1 : 1) : (x->from < y->from ? -1 : 1);
}

/* ---- text ---------------------------------------------------------------------- */

#define CP_WIDTH 100          /* the report's width (profile_report.c) */

/* The narrowest column sym_fit fits s into without cutting a name. */
static size_t fit_min(const char *s)
{
    size_t m = sym_fit_min(s), l = strlen(s);
    return m < l ? m : l;
}

/* A code region "from -> to" fitted into w columns: each call site by
 * sym_fit (a path loses its start, file:line stays whole, a routine's own
 * name is never cut); NULL when even their shortest forms do not fit. */
static const char *region_fit(const struct rsum *x, size_t w, char *b, size_t n)
{
    size_t la = strlen(x->from), lb = strlen(x->to);
    if (la + 4 + lb <= w) return snprintf(b, n, "%s", x->name), b;
    if (w < 6) return NULL;
    size_t avail = w - 4, ma = fit_min(x->from), mb = fit_min(x->to);
    if (ma + mb > avail) return NULL;
    size_t wa = la <= avail / 2 ? la : lb <= avail / 2 ? avail - lb : avail / 2;
    if (wa < ma) wa = ma;
    if (avail - wa < mb) wa = avail - mb;
    /* what one side leaves unused goes to the other */
    char fa[600], fb[600];
    sym_fit(x->from, wa, fa, sizeof fa);
    sym_fit(x->to, avail - strlen(fa), fb, sizeof fb);
    sym_fit(x->from, avail - strlen(fb), fa, sizeof fa);
    snprintf(b, n, "%s -> %s", fa, fb);
    return b;
}

/* One row of the code-region table: the name in its column, or where
 * even its shortest form does not fit, on lines of its own above. */
static void region_row(FILE *o, const struct rsum *x, int64_t v, int64_t path)
{
    enum { NW = CP_WIDTH - 4 - 1 - 12 - 1 - 7 };   /* "    NAME TIME PCT%" */
    char b[1300], t[64];
    const char *cell = region_fit(x, NW, b, sizeof b);
    if (!cell) {
        char f[600];
        fprintf(o, "    %s ->\n", sym_fit(x->from, CP_WIDTH - 7, f, sizeof f));
        snprintf(b, sizeof b, "  %s", sym_fit(x->to, NW - 2, f, sizeof f));
        cell = b;
    }
    fprintf(o, "    %-*s %12s %6.1f%%\n", (int)NW, cell, tm(v, t, sizeof t), path ? 100.0 * v / path : 0.0);
}

/* The "leaves by" cell of a segment, from column `col` to the page's end:
 * the hop (routine names whole) and its call site fitted to what is left;
 * what does not fit goes on a line of its own below the row. */
static void leaves_cell(FILE *o, const struct an_run *run, const struct an_cp_segment *s, int col)
{
    char w[1200], st[600], f[600];
    int cw = CP_WIDTH - col;
    seg_what(run, s, w, sizeof w);
    if (s->to_rank < 0) {
        fprintf(o, "%s\n", w);
        return;
    }
    const char *where = site(run, s->rank, s->out_site, st, sizeof st);
    int left = cw - (int)strlen(w) - 4;   /* " at " */
    if (left > 0 && (int)fit_min(where) <= left) {
        fprintf(o, "%s at %s\n", w, sym_fit(where, (size_t)left, f, sizeof f));
        return;
    }
    if ((int)strlen(w) <= cw) fprintf(o, "%s\n", w);
    else fprintf(o, "\n      %s\n", w);
    int ind = (int)fit_min(where) + 3 <= cw ? col : 6;
    fprintf(o, "%*sat %s\n", ind, "", sym_fit(where, (size_t)(CP_WIDTH - ind - 3), f, sizeof f));
}

/* The window in words: what opens and closes it. */
static void window_words(const struct an_cp_result *r, char *b, size_t n)
{
    const char *f = r->from_what ? r->from_what : "first call", *t = r->to_what ? r->to_what : "end of records";
    if (strcmp(f, "MPI_Pcontrol") == 0 && strcmp(t, "MPI_Pcontrol") == 0)
        snprintf(b, n, "MPI_Pcontrol: a rank's first call to its second");
    else if (strcmp(f, "MPI_Pcontrol") == 0)
        snprintf(b, n, "MPI_Pcontrol: a rank's first call to %s", t);
    else if (f[0] == '-' || t[0] == '-')
        snprintf(b, n, "%s to %s", f, t);
    else if (strcmp(t, "MPI_Finalize") == 0)
        snprintf(b, n, "the whole run: %s to %s", f, t);
    else
        snprintf(b, n, "%s to %s", f, t);
}

void cp_text(FILE *o, const struct an_run *run, const struct an_cp_result *r, int all, const struct cp_cost *cost)
{
    char a[64], b[64], c[64], d[64], w[1200];
    int64_t first, last;
    an_run_span(run, &first, &last);
    fprintf(o, "\nCritical path (the longest chain of computation and messages; waiting lies on no path)\n");
    fprintf(o, "-------------------------------------------------------------------------------------\n");
    window_words(r, w, sizeof w);
    if (r->to <= r->from) {
        /* --to before the window opens (MPI_Init's end), --from after it closes */
        fprintf(o, "  window     empty: it would run from %s to %s after the first call (%s);\n"
                   "             no critical path\n",
                tm(r->from - first, a, sizeof a), tm(r->to - first, b, sizeof b), w);
        return;
    }
    int wl = fprintf(o, "  window     %s to %s after the first call", tm(r->from - first, a, sizeof a),
                     tm(r->to - first, b, sizeof b));
    if (wl + 3 + (int)strlen(w) > CP_WIDTH) fprintf(o, "\n            ");
    fprintf(o, " (%s)\n", w);
    if (cost && cost->opts)
        fprintf(o, "  costs      alpha %.1f ns per message, beta %.4f ns per byte, %s model (%s)\n",
                cost->opts->alpha_ns, cost->opts->beta_ns, cost->opts->simple ? "simple" : "standard",
                cost->source ? cost->source : "default");
    if (r->pcontrol_never_opened)
        fprintf(o, "  window     never opened on %d rank%s (no MPI_Pcontrol call there): left out\n",
                r->pcontrol_never_opened, r->pcontrol_never_opened == 1 ? "" : "s");
    if (run->n < (unsigned)run->size)
        fprintf(o, "  incomplete %d of %d rank files missing: what their ranks did is not known\n", run->size - (int)run->n,
                run->size);
    if (r->unfinished)
        fprintf(o, "  incomplete %u rank%s never reached MPI_Finalize (crash, kill or deadlock): the path runs up to\n"
                   "             where the records stop\n",
                r->unfinished, r->unfinished == 1 ? "" : "s");
    if (r->undecided)
        fprintf(o, "  undecided  %" PRIu64 " call%s waited for a partner the trace does not show: the path cannot be\n"
                   "             followed through them (their time counts as their own rank's)\n",
                r->undecided, r->undecided == 1 ? "" : "s");
    fprintf(o, "  %-16s %14s %14s %-8s %14s\n", "measure", "on its path", "per process", "(rank)", "volumetric");
    for (int m = 0; m < AN_CP_NM; m++) {
        const struct an_cp_path *p = &r->m[m];
        char rk[16];
        snprintf(rk, sizeof rk, "(%d)", p->per_process_rank);
        fprintf(o, "  %-16s %14s %14s %-8s %14s\n", mtext[m], val(m, (double)p->path, a, sizeof a),
                val(m, (double)p->per_process, b, sizeof b), rk, val(m, p->volumetric, c, sizeof c));
    }
    fprintf(o, "  each measure is taken along its own longest path: the paths of different measures differ\n");
    const struct an_cp_path *rt = &r->m[AN_CP_RUNTIME];
    fprintf(o, "  run time on its path = communication %s + computation %s; it ends on rank %d\n",
            tm(r->rt_comm, a, sizeof a), tm(r->rt_comp, b, sizeof b), rt->end_rank);
    /* routines on the path */
    fprintf(o, "  communication on the run-time path by routine:\n");
    unsigned shown = 0;
    int rw = 28;   /* as wide as the longest name shown: the columns stay aligned */
    for (unsigned i = 0; i < rt->nby && shown < (all ? rt->nby : 6); i++) {
        if (rt->by[i].key & AN_CP_REGION) continue;
        int l = (int)strlen(rn(run, rt->by[i].key));
        if (l > rw) rw = l;
        shown++;
    }
    shown = 0;
    for (unsigned i = 0; i < rt->nby && shown < (all ? rt->nby : 6); i++) {
        if (rt->by[i].key & AN_CP_REGION) continue;
        fprintf(o, "    %-*s %12s %6.1f%%\n", rw, rn(run, rt->by[i].key), tm(rt->by[i].val, a, sizeof a),
                rt->path ? 100.0 * rt->by[i].val / rt->path : 0.0);
        shown++;
    }
    if (!shown) fprintf(o, "    (none)\n");
    unsigned nreg;
    struct rsum *rs = regions(run, r, rt, &nreg);
    fprintf(o, "  computation on the run-time path by code region (between two MPI call sites):\n");
    for (unsigned i = 0; i < nreg && i < (all ? nreg : 6); i++) region_row(o, &rs[i], rs[i].val, rt->path);
    if (!nreg) fprintf(o, "    (none)\n");
    free(rs);
    /* the path */
    unsigned hops = r->nseg ? r->nseg - 1 : 0;
    fprintf(o, "  the path: %u segment%s, %u hop%s between ranks", r->nseg, r->nseg == 1 ? "" : "s", hops,
            hops == 1 ? "" : "s");
    if (r->nseg <= 12) {
        fprintf(o, ": ");
        for (unsigned i = 0; i < r->nseg; i++) fprintf(o, "%s%d", i ? " > " : "", r->seg[i].rank);
    }
    fputc('\n', o);
    if (r->nseg) {
        const struct an_cp_segment **sp = malloc(r->nseg * sizeof *sp);
        if (sp) {
            for (unsigned i = 0; i < r->nseg; i++) sp[i] = &r->seg[i];
            qsort(sp, r->nseg, sizeof *sp, seg_len_cmp);
            unsigned k = all ? r->nseg : (r->nseg < 5 ? r->nseg : 5);
            fprintf(o, "  longest segments:\n    %-6s %12s %12s %12s  %s\n", "rank", "from", "to", "on path",
                    "leaves by");
            for (unsigned i = 0; i < k; i++) {
                fprintf(o, "    %-6d %12s %12s %12s  ", sp[i]->rank, tm(sp[i]->from - first, a, sizeof a),
                        tm(sp[i]->to - first, b, sizeof b), tm(sp[i]->on_path, c, sizeof c));
                leaves_cell(o, run, sp[i], 4 + 6 + 1 + 12 + 1 + 12 + 1 + 12 + 2);
            }
            free(sp);
        }
    }
    /* what-if: the path's time per rank bounds what that rank's speed-up can win
     * (docs/CRITPATH.md, "What-if"): an upper bound, not a prediction */
    fprintf(o, "  path time per rank (at most what speeding that rank up can gain; another path may then\n"
               "  be the longest, so the gain can be less):\n    ");
    /* by rank; past 32 ranks on the path (a path through 1,024 ranks was
     * 1,024 cells) only the 32 with the most path time, unless --all */
    unsigned non = 0, nshown = 0;
    int64_t cut = INT64_MIN, rest = 0;
    for (unsigned i = 0; i < r->nranks; i++) non += r->ranks[i].on_path != 0;
    if (!all && non > 32) {
        int64_t *v = malloc(non * sizeof *v);
        if (v) {
            unsigned k = 0;
            for (unsigned i = 0; i < r->nranks; i++)
                if (r->ranks[i].on_path) v[k++] = r->ranks[i].on_path;
            qsort(v, k, sizeof *v, i64_desc);
            cut = v[31];
            free(v);
        }
    }
    unsigned col = 4, left = 32;   /* ranks equal to the cut: the first ones by rank */
    for (unsigned i = 0; i < r->nranks; i++) {
        int64_t t = r->ranks[i].on_path;
        if (!t) continue;
        if (cut != INT64_MIN && (t < cut || !left)) {
            rest += t;
            continue;
        }
        if (cut != INT64_MIN) left--;
        char cell[64];
        int len = snprintf(cell, sizeof cell, "rank %d %s (%.0f%%)", r->ranks[i].rank, tm(t, a, sizeof a),
                           rt->path ? 100.0 * t / rt->path : 0);
        if (nshown && col + 2 + (unsigned)len > 98) {
            fprintf(o, "\n    ");
            col = 4;
        } else if (nshown) {
            fputs("  ", o);
            col += 2;
        }
        fputs(cell, o);
        col += (unsigned)len;
        nshown++;
    }
    fputc('\n', o);
    if (nshown < non)
        fprintf(o, "    ... %u more ranks on the path, %s together (--all or --json)\n", non - nshown,
                tm(rest, a, sizeof a));

    fprintf(o, "\nWait states (time a rank waited for another; useful + waiting = the rank's time)\n");
    fprintf(o, "-------------------------------------------------------------------------------\n");
    fprintf(o, "  %-6s %11s %11s %11s %11s %11s %11s %11s\n", "rank", "time", "useful", "late send", "late recv",
            "collective", "completion", "on path");
    for (unsigned i = 0; i < r->nranks && (all || i < 32); i++) {
        const struct an_cp_rank *x = &r->ranks[i];
        char e[64], f[64], g[64];
        fprintf(o, "  %-6d %11s %11s %11s %11s %11s %11s %11s\n", x->rank, tm(x->end - x->start, a, sizeof a),
                tm(x->comp + x->comm, b, sizeof b), tm(x->wait[0], c, sizeof c), tm(x->wait[1], d, sizeof d),
                tm(x->wait[2], e, sizeof e), tm(x->wait[3], f, sizeof f), tm(x->on_path, g, sizeof g));
    }
    if (!all && r->nranks > 32) fprintf(o, "  ... %u more ranks (--all or --json)\n", r->nranks - 32);
    if (r->nwsites) {
        unsigned k = all ? r->nwsites : (r->nwsites < 10 ? r->nwsites : 10);
        /* routine names whole: the longest shown takes its room from the site */
        int rw = 16;
        for (unsigned i = 0; i < k; i++) {
            int l = (int)strlen(rn(run, r->wsites[i].name));
            if (l > rw) rw = l;
        }
        int sw = CP_WIDTH - 51 - rw;   /* "    KIND RANK  SITE ROUTINE FOR TIME CALLS" */
        fprintf(o, "  where ranks waited:\n    %-13s %4s  %-*s %-*s %4s %11s %8s\n", "kind", "rank", sw, "call site", rw,
                "routine", "for", "time", "calls");
        for (unsigned i = 0; i < k; i++) {
            const struct an_cp_wsite *x = &r->wsites[i];
            char st[600], f[600];
            const char *where = site(run, x->rank, x->site, st, sizeof st);
            const char *cell = "";
            if ((int)fit_min(where) <= sw) cell = sym_fit(where, (size_t)sw, f, sizeof f);
            else fprintf(o, "    %s\n", sym_fit(where, CP_WIDTH - 4, f, sizeof f));   /* above its row */
            char pr[16] = "-";   /* the rank waited for; '-': not known */
            if (x->peer >= 0) snprintf(pr, sizeof pr, "%d", x->peer);
            fprintf(o, "    %-13s %4d  %-*s %-*s %4s %11s %8" PRIu64 "\n", wtext[x->kind], x->rank, sw, cell, rw,
                    rn(run, x->name), pr, tm(x->time, a, sizeof a), x->count);
        }
        if (k < r->nwsites) fprintf(o, "    ... %u more (--all or --json)\n", r->nwsites - k);
    }
}

/* ---- JSON ---------------------------------------------------------------------- */

void cp_json(FILE *o, const struct an_run *run, const struct an_cp_result *r, const struct cp_cost *cost)
{
    char b[1200];
    fprintf(o, "  \"critical_path\": {\"window\": {\"from_ns\": %" PRId64 ", \"to_ns\": %" PRId64 ", \"source\": ",
            r->from, r->to);
    json_str(o, r->source);
    fprintf(o, ", \"from\": ");
    json_str(o, r->from_what ? r->from_what : "");
    fprintf(o, ", \"to\": ");
    json_str(o, r->to_what ? r->to_what : "");
    fprintf(o, ", \"ranks_never_opened\": %d},\n", r->pcontrol_never_opened);
    if (cost && cost->opts) {
        fprintf(o, "    \"cost_model\": {\"alpha_ns\": %.3f, \"beta_ns_per_byte\": %.6f, \"model\": \"%s\", \"source\": ",
                cost->opts->alpha_ns, cost->opts->beta_ns, cost->opts->simple ? "simple" : "standard");
        json_str(o, cost->source ? cost->source : "default");
        fprintf(o, "},\n");
    }
    fprintf(o, "    \"complete\": %s, \"unfinished_ranks\": %u, \"undecided_calls\": %" PRIu64 ",\n",
            r->unfinished || r->undecided ? "false" : "true", r->unfinished, r->undecided);
    fprintf(o, "    \"runtime_split\": {\"comm_ns\": %" PRId64 ", \"comp_ns\": %" PRId64 "},\n    \"measures\": {",
            r->rt_comm, r->rt_comp);
    for (int m = 0; m < AN_CP_NM; m++) {
        const struct an_cp_path *p = &r->m[m];
        fprintf(o, "%s\n      \"%s\": {\"path\": %" PRId64 ", \"end_rank\": %d, \"per_process\": %" PRId64
                   ", \"per_process_rank\": %d, \"volumetric\": %.0f, \"by_routine\": {",
                m ? "," : "", mkey[m], p->path, p->end_rank, p->per_process, p->per_process_rank, p->volumetric);
        int k = 0;
        int64_t regsum = 0;
        for (unsigned i = 0; i < p->nby; i++) {
            if (p->by[i].key & AN_CP_REGION) {
                regsum += p->by[i].val;
                continue;
            }
            fprintf(o, "%s", k++ ? ", " : "");
            json_str(o, rn(run, p->by[i].key));
            fprintf(o, ": %" PRId64, p->by[i].val);
        }
        if (regsum) fprintf(o, "%s\"(computation)\": %" PRId64, k++ ? ", " : "", regsum);
        fprintf(o, "}, \"by_region\": [");
        unsigned nreg;
        struct rsum *rs = regions(run, r, p, &nreg);
        for (unsigned i = 0; i < nreg; i++) {
            fprintf(o, "%s{\"region\": ", i ? ", " : "");
            json_str(o, rs[i].name);
            fprintf(o, ", \"value\": %" PRId64 ", \"ranks\": %u}", rs[i].val, rs[i].ranks);
        }
        free(rs);
        fprintf(o, "]}");
    }
    fprintf(o, "},\n    \"segments\": [");
    for (unsigned i = 0; i < r->nseg; i++) {
        const struct an_cp_segment *s = &r->seg[i];
        fprintf(o, "%s\n      {\"rank\": %d, \"from_ns\": %" PRId64 ", \"to_ns\": %" PRId64 ", \"on_path_ns\": %" PRId64
                   ", \"what\": ",
                i ? "," : "", s->rank, s->from, s->to, s->on_path);
        seg_what(run, s, b, sizeof b);
        json_str(o, b);
        fprintf(o, ", \"site\": ");
        json_str(o, s->to_rank >= 0 ? site(run, s->rank, s->out_site, b, sizeof b) : "");
        fprintf(o, ", \"to_rank\": %d}", s->to_rank);
    }
    fprintf(o, "],\n    \"ranks\": [");
    for (unsigned i = 0; i < r->nranks; i++)
        fprintf(o, "%s{\"rank\": %d, \"on_path_ns\": %" PRId64 "}", i ? ", " : "", r->ranks[i].rank,
                r->ranks[i].on_path);
    fprintf(o, "], \"history_nodes_peak\": %zu},\n  \"wait_states\": {", r->peak_nodes);
    for (int k = 0; k < AN_CP_NW; k++) {
        fprintf(o, "%s\n    \"%s\": {\"total_ns\": %" PRId64 ", \"by_rank\": [", k ? "," : "", wkey[k], r->wait_total[k]);
        for (unsigned i = 0; i < r->nranks; i++) fprintf(o, "%s%" PRId64, i ? ", " : "", r->ranks[i].wait[k]);
        fprintf(o, "], \"by_site\": [");
        int n = 0;
        for (unsigned i = 0; i < r->nwsites; i++) {
            const struct an_cp_wsite *x = &r->wsites[i];
            if (x->kind != k) continue;
            fprintf(o, "%s\n      {\"site\": ", n++ ? "," : "");
            json_str(o, site(run, x->rank, x->site, b, sizeof b));
            fprintf(o, ", \"rank\": %d, \"time_ns\": %" PRId64 ", \"routine\": ", x->rank, x->time);
            json_str(o, rn(run, x->name));
            fprintf(o, ", \"peer\": %d, \"count\": %" PRIu64 "}", x->peer, x->count);
        }
        fprintf(o, "]}");
    }
    fprintf(o, ",\n    \"ranks\": [");
    for (unsigned i = 0; i < r->nranks; i++) {
        const struct an_cp_rank *x = &r->ranks[i];
        int64_t wsum = 0;
        for (int k = 0; k < AN_CP_NW; k++) wsum += x->wait[k];
        fprintf(o, "%s\n      {\"rank\": %d, \"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64 ", \"time_ns\": %" PRId64 ", \"useful_ns\": %" PRId64 ", \"comp_ns\": %" PRId64
                   ", \"comm_ns\": %" PRId64 ", \"wait_ns\": %" PRId64 ", \"finished\": %s, \"undecided\": %" PRIu64 "}",
                i ? "," : "", x->rank, x->start, x->end, x->end - x->start, x->comp + x->comm, x->comp, x->comm, wsum,
                x->finished ? "true" : "false", x->undecided);
    }
    fprintf(o, "]},\n");
}
