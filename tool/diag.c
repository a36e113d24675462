/*
 * diag.c — the failure diagnosis of a run directory written out: as text
 * (diag_print: `mpilens report --failures`, and `mpilens run` after a
 * failure) and as JSON (diag_json, docs/REPORT.md "failures"); the status
 * of the ranks and the notes `mpilens run` needs.  The diagnosis itself (who
 * failed, how, where, when, first, what the others were doing) is made by
 * analysis/diag.c; call sites and frames are named here through symbols.h.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "diag.h"
#include "json_out.h"
#include "symbols.h"
#include "tool.h"

static double secs(int64_t ns)
{
    return (double)ns / 1e9;
}

static void print_backtrace(FILE *o, const struct an_diag_record *rec)
{
    unsigned k = 0, rep = 0;
    const char *prev = "";
    for (unsigned i = 0; i <= rec->nframes; i++) {
        const char *b = i < rec->nframes ? rec->frames[i] : NULL;
        if (b && k && !strcmp(b, prev)) {   /* deep recursion: one line */
            rep++;
            continue;
        }
        if (rep) fprintf(o, "         ... %u more times %s\n", rep, prev);
        rep = 0;
        if (!b) break;
        if (k == 0) fprintf(o, "    backtrace:\n");
        fprintf(o, "      #%u %s\n", k++, b);
        prev = b;
    }
}

/* What each thread was doing, from the live slots: "in MPI_X at f:l since
 * T s" or "computing; last MPI call ...".  `at` is the moment to measure
 * durations to (the failure), or < 0. */
static void print_state(FILE *o, const struct an_diag_rank *r, double at, const char *prefix)
{
    for (unsigned i = 0; i < r->nthreads; i++) {
        const struct an_diag_thread *t = &r->threads[i];
        char th[32] = "";
        if (r->nslots > 1) snprintf(th, sizeof th, "thread %u: ", t->slot);
        if (t->doing != AN_DIAG_IN_MPI && t->doing != AN_DIAG_COMPUTING) {
            fprintf(o, "    %s%sin its first MPI call, %s, called at %s\n", prefix, th, t->routine, t->site);
            continue;
        }
        char tail[48] = "";
        int len;
        if (t->doing == AN_DIAG_IN_MPI) {
            double s = secs(t->start);
            len = fprintf(o, "    %s%sin %s called at %s since %.3f s", prefix, th, t->routine, t->site, s);
            if (at >= 0 && at >= s) snprintf(tail, sizeof tail, "(%.3f s)", at - s);
        } else {
            double e = secs(t->end);
            len = fprintf(o, "    %s%scomputing (not in MPI); last MPI call %s at %s ended at %.3f s", prefix, th,
                          t->routine, t->site, e);
            if (at >= 0 && at >= e) snprintf(tail, sizeof tail, "(%.3f s before)", at - e);
        }
        /* the duration goes on a line of its own where it would pass 100 columns */
        if (tail[0]) fprintf(o, len + 1 + (int)strlen(tail) > 100 ? "\n      %s" : " %s", tail);
        fputc('\n', o);
    }
    if (!r->nthreads) fprintf(o, "    %sno MPI call recorded\n", prefix);
}

/* The first line of a message, then the others indented. */
static void print_message_tail(FILE *o, const char *m)
{
    const char *nl = strchr(m, '\n');
    while (nl && nl[1]) {
        const char *e = strchr(nl + 1, '\n');
        int len = e ? (int)(e - nl - 1) : (int)strlen(nl + 1);
        if (len > 0) fprintf(o, "      %.*s\n", len, nl + 1);
        nl = e;
    }
}

static void print_cause(FILE *o, const struct an_diag_rank *r, int brief)
{
    const struct an_diag_record *rec = &r->rec;
    const struct ml_failure *fl = &rec->fl;
    switch (fl->kind) {
    case ML_FAIL_SIGNAL: {
        const char *what = rec->code_text;
        fprintf(o, "signal %s (%s%s%s)", rec->signal_name, rec->code_name, *what ? ": " : "", what);
        if (fl->flags & ML_FAILF_SENDER) {
            if ((int64_t)fl->addr == r->pid) fprintf(o, " sent by the process itself");
            else fprintf(o, " sent by pid %" PRIu64, fl->addr);
        } else if (fl->signo == SIGSEGV || fl->signo == SIGBUS || fl->signo == SIGFPE || fl->signo == SIGILL) {
            fprintf(o, " at address 0x%" PRIx64, fl->addr);
        }
        if (fl->flags & ML_FAILF_STACK) fprintf(o, " -- stack overflow");
        fputc('\n', o);
        if (fl->flags & ML_FAILF_HANDLER)
            fprintf(o, "    a handler of the program (or of its libraries) ran for it%s\n",
                    (fl->flags & ML_FAILF_SOFT) ? " and returned" : "");
        if (r->nslots > 1)
            for (unsigned i = 0; i < r->nthreads; i++)
                if (r->threads[i].tid == fl->tid) fprintf(o, "    in thread %u (tid %u)\n", r->threads[i].slot, fl->tid);
        if (fl->flags & ML_FAILF_OTHER_THREAD)
            fprintf(o, "    it arrived in a thread that never called MPI (tid %u)\n", fl->tid);
        const char *wf = brief ? NULL : rec->where;
        if (wf) fprintf(o, "    where: %s\n", wf);
        if (fl->routine != 0xffff && !brief) fprintf(o, "    inside %s called at %s\n", rec->routine, rec->site);
        break;
    }
    case ML_FAIL_EXIT:
        if (fl->flags & ML_FAILF_NOSTATUS) fprintf(o, "exited without calling MPI_Finalize (status unknown)\n");
        else if (fl->flags & ML_FAILF_MAIN)
            fprintf(o, "exited with status %d without calling MPI_Finalize (main returned)\n", fl->code);
        else
            fprintf(o, "exited with status %d without calling MPI_Finalize (%s)\n", fl->code,
                    (fl->flags & ML_FAILF_UNDER_EXIT) ? "_exit/_Exit/quick_exit: no exit handlers ran"
                                                      : "exit() called");
        if (!(fl->flags & ML_FAILF_MAIN) && rec->where) fprintf(o, "    where: %s\n", rec->where);
        if (fl->routine != 0xffff && r->by_abort)
            fprintf(o, "    inside %s called at %s: the MPI ended it with MPI_Abort's code (MPICH does so to the\n"
                       "    other members of the communicator given to MPI_Abort)\n", rec->routine, rec->site);
        else if (fl->routine != 0xffff)
            fprintf(o, "    inside %s called at %s (from an error handler or callback?)\n", rec->routine, rec->site);
        break;
    case ML_FAIL_MPI_ERROR: {
        /* message: "MPI_ERR_X: the library's text" */
        size_t cl = strcspn(fl->message, ":\n");
        const char *text = fl->message[cl] == ':' ? fl->message + cl + 1 : "";
        while (*text == ' ') text++;
        fprintf(o, "MPI error %.*s (error code %d)%s\n", (int)cl, fl->message[0] ? fl->message : "?", fl->code,
                (fl->flags & ML_FAILF_FATAL)  ? " under MPI_ERRORS_ARE_FATAL"
                : (fl->flags & ML_FAILF_SOFT) ? ", returned to the program"
                                              : "");
        if (*text) fprintf(o, "    message: %.*s\n", (int)strcspn(text, "\n"), text);
        print_message_tail(o, text);
        if (fl->routine != 0xffff) fprintf(o, "    where: %s called at %s\n", rec->routine, rec->site);
        else if (rec->where) fprintf(o, "    where: %s\n", rec->where);
        break;
    }
    case ML_FAIL_ABORT:
        fprintf(o, "MPI_Abort called with error code %d\n", fl->code);
        fprintf(o, "    where: %s called at %s\n", rec->routine, rec->site);
        if (fl->flags & ML_FAILF_NESTED) fprintf(o, "    called inside another MPI call (an error handler or callback)\n");
        {
            static const char eh[] = " by the program's error handler for MPI error ";
            const char *m = strstr(fl->message, eh);
            if (m) fprintf(o, "    called by the program's error handler for: MPI error %.*s\n",
                           (int)strcspn(m + sizeof eh - 1, "\n"), m + sizeof eh - 1);
        }
        break;
    case ML_FAIL_DEADLOCK:
        /* the live monitor's message, "deadlock: blocked forever in MPI_X
         * (mpilens: see deadlock.txt)", repeats what the next line says */
        if (!strncmp(fl->message, "deadlock: blocked forever in ", 29))
            fprintf(o, "stopped by the deadlock detector: blocked forever (see deadlock.txt)\n");
        else
            fprintf(o, "stopped by the deadlock detector%s%s\n", fl->message[0] ? ": " : "", fl->message);
        if (fl->routine != 0xffff) fprintf(o, "    blocked in %s called at %s\n", rec->routine, rec->site);
        break;
    default:
        fprintf(o, "failure of unknown kind %u\n", fl->kind);
    }
    if (fl->kind != ML_FAIL_MPI_ERROR && fl->kind != ML_FAIL_DEADLOCK && fl->message[0] &&
        fl->kind != ML_FAIL_EXIT && fl->kind != ML_FAIL_ABORT && !(fl->flags & ML_FAILF_STACK))
        fprintf(o, "    note: %s\n", fl->message);
}

/* Ranks as ranges ("0-3,5,7-9") into buf, at most w characters: ranges
 * that do not fit end it with ",... (N more)". */
static void ranges_fit(char *buf, size_t bn, const int *v, unsigned n, size_t w)
{
    size_t l = 0;
    buf[0] = 0;
    if (w >= bn) w = bn - 1;
    for (unsigned i = 0; i < n;) {
        unsigned j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1) j++;
        char t[40];
        int k = j > i ? snprintf(t, sizeof t, "%s%d-%d", i ? "," : "", v[i], v[j])
                      : snprintf(t, sizeof t, "%s%d", i ? "," : "", v[i]);
        char more[40];
        int mk = j + 1 < n ? snprintf(more, sizeof more, ",... (%u more)", n - (j + 1)) : 0;
        if (l + (size_t)k + (size_t)mk > w) {
            snprintf(buf + l, bn - l, ",... (%u more)", n - i);
            return;
        }
        memcpy(buf + l, t, (size_t)k + 1);
        l += (size_t)k;
        i = j + 1;
    }
}

static int int_cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Ranks of the job without a rank file (not counting unreadable ones). */
static unsigned nofile_count(const struct an_diag *g)
{
    unsigned n = 0;
    for (unsigned m = 0; m < g->nnofile; m++)
        for (int k = g->nofile[m].first; k <= g->nofile[m].last; k++) {
            unsigned j = 0;
            while (j < g->nskipped && g->skipped_rank[j] != k) j++;
            if (j == g->nskipped) n++;
        }
    return n;
}

/* The summary line, without its newline. */
static const struct an_diag_rank *diag_sort_rs;
static int by_rank_idx(const void *a, const void *b)
{
    return diag_sort_rs[*(const int *)a].rank - diag_sort_rs[*(const int *)b].rank;
}

/* Nothing failed by itself and every failed rank got its signal from one
 * process within 100 ms: the job was stopped at once (a time limit, the
 * launcher, Ctrl+C), which one the signal reached first means nothing. */
static int stopped_together(const struct an_diag *g)
{
    if (!g->outside || g->nexternal != g->nfailed || g->nfailed < 2) return 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t sender = 0;
    for (unsigned k = 0; k < g->norder; k++) {
        const struct an_diag_rank *r = &g->ranks[g->order[k]];
        if (r->t_fail == INT64_MAX) return 0;
        if (k == 0) sender = r->rec.fl.addr;
        else if (r->rec.fl.addr != sender) return 0;
        if (r->t_fail < lo) lo = r->t_fail;
        if (r->t_fail > hi) hi = r->t_fail;
    }
    return hi - lo <= 100000000;
}

static void print_summary(FILE *out, const struct an_diag *g)
{
    const struct an_diag_rank *rs = g->ranks;
    int first = g->first;
    if (g->nfailed == 0 && g->nvanished == 0) {
        if (g->nbad_exit)
            fprintf(out, "FAILED after MPI_Finalize: %u rank%s exited with a non-zero status (rank %d: %d)%s",
                    g->nbad_exit, g->nbad_exit == 1 ? "" : "s", g->bad_rank, g->bad_status,
                    g->nfinalized == g->n ? "" : "; others still running");
        else if (g->nskipped)
            fprintf(out, "no failure recorded in the %u readable rank file%s, but %u rank file%s unreadable: "
                         "what %s did is unknown",
                    g->n, g->n == 1 ? "" : "s", g->nskipped, g->nskipped == 1 ? " is" : "s are",
                    g->nskipped == 1 ? "its rank" : "their ranks");
        else if (nofile_count(g))   /* ranks without a file: nothing says they finalized */
            fprintf(out, "no failure recorded in the %u rank file%s, but %u rank%s had no rank file: what %s did is unknown",
                    g->n, g->n == 1 ? "" : "s", nofile_count(g), nofile_count(g) == 1 ? "" : "s",
                    nofile_count(g) == 1 ? "it" : "they");
        else if (g->nfinalized == g->n) fprintf(out, "no failure: every rank called MPI_Finalize");
        else fprintf(out, "no failure recorded; %u rank%s still running", g->nrunning, g->nrunning == 1 ? "" : "s");
        return;
    }
    if (g->all_deadlocked) {
        int64_t t = INT64_MAX;
        for (unsigned k = 0; k < g->norder; k++)
            if (rs[g->order[k]].t_fail < t) t = rs[g->order[k]].t_fail;
        fprintf(out, "%u rank%s stopped together as deadlocked by the live monitor", g->nfailed,
                g->nfailed == 1 ? "" : "s");
        if (t != INT64_MAX) fprintf(out, " at %.3f s", t / 1e9);
        fprintf(out, " (none failed by itself)");
        if (g->nvanished) fprintf(out, "\n%u vanished without a record", g->nvanished);
        (void)first;
        return;
    }
    if (stopped_together(g)) {
        const struct an_diag_rank *r0 = &rs[g->order[0]];
        fprintf(out, "%u ranks stopped together from outside at %.3f s; none failed by itself", g->nfailed,
                r0->t_fail / 1e9);
        if (g->nvanished) fprintf(out, "; %u vanished without a record", g->nvanished);
        fprintf(out, "\n  (signals from pid %" PRIu64 ": the launcher, a batch system, a user)", r0->rec.fl.addr);
        return;
    }
    unsigned ncol = g->ncollateral - g->nby_abort;
    if (g->outside && g->nexternal == g->nfailed)
        fprintf(out, "%u rank%s stopped by signals from another process (launcher, batch system, user)", g->nfailed,
                g->nfailed == 1 ? "" : "s");
    else
        fprintf(out, "%u rank%s failed", g->nfailed - g->ncollateral, g->nfailed - g->ncollateral == 1 ? "" : "s");
    if (g->nby_abort) fprintf(out, ", %u ended by the MPI after its MPI_Abort", g->nby_abort);
    if (ncol) fprintf(out, ", %u killed from outside after that", ncol);
    if (g->nvanished) fprintf(out, ", %u vanished without a record", g->nvanished);
    if (first >= 0 && rs[first].t_fail == INT64_MAX)
        fprintf(out, "; first %s: rank %d", g->outside ? "signalled" : "failure", rs[first].rank);
    else if (first >= 0)
        fprintf(out, "; first %s: rank %d %s %.3f s", g->outside ? "signalled" : "failure", rs[first].rank,
                rs[first].t_after ? "gone after" : "at", rs[first].t_fail / 1e9);
    /* ranks that finalized, then exited with a non-zero status (an uncaught
     * Python exception): maybe what made the launcher stop the others */
    unsigned nbad = 0;
    int brank = -1, bstatus = 0;
    for (unsigned i = 0; i < g->n; i++)
        if (rs[i].end == AN_DIAG_FINALIZED && rs[i].exit_status != 0 && nbad++ == 0) {
            brank = rs[i].rank;
            bstatus = rs[i].exit_status;
        }
    if (nbad)
        fprintf(out, "; %u rank%s exited with a non-zero status after MPI_Finalize (rank %d: %d)", nbad,
                nbad == 1 ? "" : "s", brank, bstatus);
}

/* The paragraph on failed rank rs[i], from its "rank N (...)" line on. */
static void print_failed(FILE *out, const struct an_diag *g, int i)
{
    const struct an_diag_rank *r = &g->ranks[i];
    const struct an_diag_rank *f0 = g->first >= 0 ? &g->ranks[g->first] : NULL;
    const struct ml_failure *fl = &r->rec.fl;
    double at = r->t_fail == INT64_MAX ? -1 : r->t_fail / 1e9;
    fprintf(out, "rank %d (pid %d on %s): FAILED%s", r->rank, r->pid, r->host,
            i == g->first  ? (!g->outside ? ", first failure" : stopped_together(g) ? "" : ", signalled first")
            : r->by_abort   ? ", ended by the MPI after the first failure's MPI_Abort"
            : r->collateral ? ", killed after the first failure"
                            : "");
    if (at >= 0) fprintf(out, r->t_after ? ", gone after %.3f s (its last activity)" : " at %.3f s", at);
    if (r->state == ML_STATE_FINALIZED) fprintf(out, ", after MPI_Finalize");
    if (at >= 0 && f0 && i != g->first && f0->t_fail != INT64_MAX && !stopped_together(g))
        fprintf(out, " (%+.3f s after rank %d)", at - f0->t_fail / 1e9, f0->rank);
    fprintf(out, "\n    how: ");
    if (r->vfirst) {
        fprintf(out, "killed (SIGKILL or the OOM killer): no record\n"
                     "    the process ended without writing anything: only SIGKILL does that (the OOM killer,\n"
                     "    a user, a time limit) or a lost node; nothing else failed before it\n");
        if (r->stamped && r->t_gone != INT64_MAX) fprintf(out, "    seen gone by mpilens run at %.3f s\n", r->t_gone / 1e9);
        print_state(out, r, r->t_after ? -1 : at, "last state: ");
        return;
    }
    if (fl->kind == ML_FAIL_NONE) fprintf(out, "exited without calling MPI_Finalize (no record of how)\n");
    else print_cause(out, r, r->collateral);
    /* a rank killed from outside after another failed: what it was
     * doing is the point, not where the signal found it */
    if (!r->collateral && (fl->kind == ML_FAIL_SIGNAL || fl->kind == ML_FAIL_ABORT ||
                           (fl->kind == ML_FAIL_EXIT && !(fl->flags & ML_FAILF_MAIN))))
        print_backtrace(out, &r->rec);
    if (fl->kind == ML_FAIL_ABORT && !(fl->flags & ML_FAILF_NESTED))
        return;                       /* its state is: in MPI_Abort */
    print_state(out, r, at, "state: ");
}

/* "finalized normally" for ranks not shown one by one */
static int finalized_clean(const struct an_diag_rank *r)
{
    return r->end == AN_DIAG_FINALIZED && r->rec.fl.kind == ML_FAIL_NONE && r->exit_status == 0;
}

static const char *other_status(const struct an_diag_rank *r)
{
    switch (r->end) {
    case AN_DIAG_VANISHED: return "vanished";
    case AN_DIAG_FINALIZED: return "finalized";
    case AN_DIAG_RUNNING: return "running";
    default: return "unknown";
    }
}

/* The paragraph on a rank that did not fail (and did not just finalize). */
static void print_other(FILE *out, const struct an_diag *g, const struct an_diag_rank *r)
{
    /* (ranks stopped together have no first: nothing is "after" one of them) */
    const struct an_diag_rank *f0 =
        g->first >= 0 && !stopped_together(g) && !g->all_deadlocked ? &g->ranks[g->first] : NULL;
    fprintf(out, "rank %d (pid %d on %s): ", r->rank, r->pid, r->host);
    if (r->end == AN_DIAG_VANISHED) {
        fprintf(out, "VANISHED: gone without MPI_Finalize or a failure record\n"
                     "    likely killed by SIGKILL (the launcher, the OOM killer, a time limit) or its node failed\n");
        if (r->stamped && r->t_gone != INT64_MAX) {
            fprintf(out, "    seen gone by mpilens run at %.3f s", r->t_gone / 1e9);
            if (f0 && f0->t_fail != INT64_MAX)
                fprintf(out, " (%+.3f s after rank %d)", (r->t_gone - f0->t_fail) / 1e9, f0->rank);
            fputc('\n', out);
        }
        if (r->stamped && (r->rec.fl.flags & ML_FAILF_STOPPING))
            fprintf(out, "    gone after mpilens run was told to stop the job: in that stop (the launcher's SIGKILL?)\n");
        else if (f0) fprintf(out, "    after the first failure: probably stopped by the launcher\n");
        print_state(out, r, -1, "last state: ");
    } else if (r->end == AN_DIAG_FINALIZED && r->exit_status != 0) {
        fprintf(out, "finalized, then exited with status %d\n", r->exit_status);
    } else if (r->end == AN_DIAG_FINALIZED) {
        fprintf(out, "finalized normally\n");
    } else if (r->end == AN_DIAG_RUNNING) {
        fprintf(out, "still running\n");
        print_state(out, r, -1, "state: ");
    } else {
        fprintf(out, "no MPI_Finalize; cannot tell from this host whether the process is alive\n");
        print_state(out, r, -1, "state: ");
    }
    if (r->rec.fl.kind != ML_FAIL_NONE && r->rec.fl.kind != ML_FAIL_VANISHED) {
        fprintf(out, "    note: went on after ");
        print_cause(out, r, 0);
    }
}

static int load(const char *dir, struct an_diag *g)
{
    return an_diag_load(dir, sym_site, sym_addr, g);
}

int diag_print(const char *dir, FILE *out)
{
    struct an_diag g;
    if (load(dir, &g) != 0) return -1;
    int rc = diag_print_diag(dir, &g, out);
    an_diag_free(&g);
    return rc;
}

/* A job stopped from outside (a time limit, Ctrl+C, the launcher) with
 * nothing failed by itself, and no deadlock verdict: what the ranks were
 * doing then, so that a hang shows ranks waiting in MPI for ranks that
 * compute (the live view's "not a deadlock: rank 1 is computing"). */
static void print_at_stop(FILE *out, const struct an_diag *g)
{
    if (g->verdict || !g->outside || g->nexternal != g->nfailed || !g->nfailed) return;
    int *in = malloc(sizeof(int) * (g->n + 1)), *comp = malloc(sizeof(int) * (g->n + 1));
    unsigned nin = 0, nc = 0;
    for (unsigned i = 0; in && comp && i < g->n; i++) {
        const struct an_diag_rank *r = &g->ranks[i];
        if (r->end != AN_DIAG_FAILED && r->end != AN_DIAG_VANISHED) continue;   /* its last state */
        int m = 0, c = 0;
        for (unsigned t = 0; t < r->nthreads; t++) {
            if (r->threads[t].doing == AN_DIAG_IN_MPI) m = 1;
            else if (r->threads[t].doing == AN_DIAG_COMPUTING) c = 1;
        }
        if (m) in[nin++] = r->rank;
        else if (c) comp[nc++] = r->rank;
    }
    if (nin || nc) {
        /* one line where both fit in 100 columns, else a line each, their
         * ranks cut to fit */
        char a[128] = "", b[128] = "", ra[100], rb[100];
        if (nc) {
            qsort(comp, nc, sizeof *comp, int_cmp);
            ranges_fit(ra, sizeof ra, comp, nc, 60);
            snprintf(a, sizeof a, "rank%s %s computing (not in MPI)", nc == 1 ? "" : "s", ra);
        }
        if (nin) {
            qsort(in, nin, sizeof *in, int_cmp);
            ranges_fit(rb, sizeof rb, in, nin, 60);
            snprintf(b, sizeof b, "rank%s %s in MPI calls", nin == 1 ? "" : "s", rb);
        }
        if (strlen("when stopped: ") + strlen(a) + 2 + strlen(b) <= 100)
            fprintf(out, "when stopped: %s%s%s\n", a, nc && nin ? ", " : "", b);
        else
            fprintf(out, "when stopped: %s\n%s%s%s", a[0] ? a : b, a[0] && b[0] ? "              " : "",
                    a[0] && b[0] ? b : "", a[0] && b[0] ? "\n" : "");
    }
    free(in);
    free(comp);
}

int diag_print_diag(const char *dir, const struct an_diag *gp, FILE *out)
{
    const struct an_diag g = *gp;
    const struct an_diag_rank *rs = g.ranks;
    unsigned n = g.n;
    for (unsigned i = 0; i < g.nskipped; i++) fprintf(out, "%s\n", g.skipped[i]);
    fprintf(out, "== failure diagnosis: %s (%u rank file%s%s%s) ==\n", dir, n, n == 1 ? "" : "s",
            g.mpi_impl[0] ? ", " : "", g.mpi_impl);
    print_summary(out, &g);
    fputc('\n', out);
    print_at_stop(out, &g);

    /* the live monitor's verdict (mpilens top), when it found a deadlock */
    if (g.verdict) {
        size_t dl = strlen(dir);
        while (dl > 1 && dir[dl - 1] == '/') dl--;    /* "run/", not "run//deadlock.txt" */
        fprintf(out, "\nDEADLOCK found by the live monitor (%.*s/deadlock.txt%s%s):\n", (int)dl, dir,
                g.verdict_when[0] ? ", " : "", g.verdict_when);
        /* each line indented by 2, wrapped at spaces to 100 columns */
        for (const char *p = g.verdict, *nl; p && *p; p = nl ? nl + 1 : NULL) {
            nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p), ind = 2;
            while (len > 100 - ind) {
                int cut = 100 - ind;
                while (cut > 20 && p[cut] != ' ') cut--;
                if (cut <= 20) cut = 100 - ind;
                fprintf(out, "%*s%.*s\n", ind, "", cut, p);
                while (cut < len && p[cut] == ' ') cut++;
                p += cut;
                len -= cut;
                ind = 8;
            }
            fprintf(out, "%*s%.*s\n", ind, "", len, p);
        }
    }

    /* stopped together: by rank, none first */
    int *ord = malloc(sizeof(int) * (g.norder + 1));
    if (ord) {
        memcpy(ord, g.order, sizeof(int) * g.norder);
        if (stopped_together(&g)) {
            diag_sort_rs = rs;
            qsort(ord, g.norder, sizeof *ord, by_rank_idx);
        }
    }
    for (unsigned k = 0; k < g.norder; k++) {
        fputc('\n', out);
        print_failed(out, &g, ord ? ord[k] : g.order[k]);
    }
    free(ord);
    /* the others; ranks that finalized cleanly in one line */
    int *fin = malloc(sizeof(int) * n);
    unsigned nfin = 0;
    for (unsigned i = 0; fin && i < n; i++)
        if (finalized_clean(&rs[i])) fin[nfin++] = rs[i].rank;
    if (nfin && (g.nfailed || g.nvanished || nfin < n)) {
        qsort(fin, nfin, sizeof *fin, int_cmp);
        char rr[100];
        ranges_fit(rr, sizeof rr, fin, nfin, 70);
        fprintf(out, "\nrank%s %s: finalized normally\n", nfin == 1 ? "" : "s", rr);
    }
    free(fin);
    for (unsigned i = 0; i < n; i++) {
        if (rs[i].end == AN_DIAG_FAILED || finalized_clean(&rs[i])) continue;
        fputc('\n', out);
        print_other(out, &g, &rs[i]);
    }
    /* ranks without a file */
    for (unsigned m = 0; m < g.nnofile; m++)
        for (int k = g.nofile[m].first; k <= g.nofile[m].last; k++) {
            unsigned j = 0;
            while (j < g.nskipped && g.skipped_rank[j] != k) j++;
            if (j < g.nskipped)
                fprintf(out, "\nrank %d: its rank file is UNREADABLE (%.*s): what it did is unknown\n", k,
                        (int)(strlen(g.skipped[j]) - strlen("; skipped")), g.skipped[j]);
            else
                fprintf(out, "\nrank %d: no rank file (it died before its first MPI call, could not create it or wrote elsewhere)\n", k);
        }
    return g.nfailed || g.nvanished || g.nskipped ? 1 : 0;
}

/* ---- the same as JSON (docs/REPORT.md, "failures") --------------------------- */

/* What fn prints, as a JSON string (without a trailing newline). */
static void j_text(FILE *o, void (*fn)(FILE *, const void *, int), const void *arg, int i)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        fprintf(o, "null");
        return;
    }
    fn(m, arg, i);
    fclose(m);
    while (len && buf[len - 1] == '\n') len--;
    json_strn(o, buf ? buf : "", len);
    free(buf);
}

static void t_failed(FILE *m, const void *g, int i) { print_failed(m, g, i); }
static void t_other(FILE *m, const void *g, int i)
{
    const struct an_diag *d = g;
    print_other(m, d, &d->ranks[i]);
}
static void t_summary(FILE *m, const void *g, int i) { (void)i; print_summary(m, g); }
static void t_cause(FILE *m, const void *r, int brief)
{
    const struct an_diag_rank *k = r;
    if (k->vfirst || k->rec.fl.kind == ML_FAIL_VANISHED)
        fprintf(m, "killed (SIGKILL or the OOM killer): no record\n");
    else if (k->rec.fl.kind == ML_FAIL_NONE) fprintf(m, "exited without calling MPI_Finalize (no record of how)\n");
    else print_cause(m, k, brief);
}

static void j_secs(FILE *o, double s)
{
    if (s < -1e15 || s > 1e15 || s != s) fprintf(o, "null");
    else fprintf(o, "%.6f", s);
}

/* Per thread with a call: what it was doing (the live slots). */
static void j_state(FILE *o, const struct an_diag_rank *r)
{
    fputc('[', o);
    for (unsigned i = 0; i < r->nthreads; i++) {
        const struct an_diag_thread *t = &r->threads[i];
        const char *st = t->doing == AN_DIAG_IN_MPI ? "in_mpi" : t->doing == AN_DIAG_COMPUTING ? "computing" : "first_call";
        fprintf(o, "%s{\"thread\": %u, \"tid\": %" PRIu64 ", \"state\": \"%s\", \"routine\": ", i ? ", " : "",
                t->slot, t->tid, st);
        json_str(o, t->routine);
        fprintf(o, ", \"site\": ");
        json_str(o, t->site);
        fprintf(o, ", \"start_s\": ");
        if (t->has_start) j_secs(o, secs(t->start));
        else fprintf(o, "null");
        fprintf(o, ", \"end_s\": ");
        if (t->has_end) j_secs(o, secs(t->end));
        else fprintf(o, "null");
        fputc('}', o);
    }
    fputc(']', o);
}

static void j_rank_id(FILE *o, const struct an_diag_rank *r)
{
    fprintf(o, "\"rank\": %d, \"pid\": %d, \"host\": ", r->rank, r->pid);
    json_str(o, r->host);
}

static const char *kind_name(const struct an_diag_rank *r)
{
    if (r->vfirst) return "killed_no_record";
    switch (r->rec.fl.kind) {
    case ML_FAIL_NONE: return "exit_no_record";
    case ML_FAIL_SIGNAL: return "signal";
    case ML_FAIL_EXIT: return "exit";
    case ML_FAIL_MPI_ERROR: return "mpi_error";
    case ML_FAIL_ABORT: return "abort";
    case ML_FAIL_DEADLOCK: return "deadlock";
    case ML_FAIL_VANISHED: return "killed_no_record";
    }
    return "unknown";
}

/* The record of one rank: kind, the details of that kind, where, the MPI
 * call in progress, the backtrace. */
static void j_record(FILE *o, const struct an_diag_rank *r)
{
    static const struct an_diag_record none = {.fl = {.kind = ML_FAIL_NONE, .routine = 0xffff}};
    const struct an_diag_record *rec = &r->rec;
    if (r->vfirst || rec->fl.kind == ML_FAIL_VANISHED)   /* no record of its own: nothing but the kind */
        rec = &none;
    const struct ml_failure *fl = &rec->fl;
    fprintf(o, "\"kind\": \"%s\", \"soft\": %s, \"how\": ", kind_name(r), (fl->flags & ML_FAILF_SOFT) ? "true" : "false");
    {   /* the first line of the text's "how:" */
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m) {
            t_cause(m, r, 1);
            fclose(m);
            json_strn(o, buf ? buf : "", buf ? strcspn(buf, "\n") : 0);
            free(buf);
        } else {
            fprintf(o, "null");
        }
    }
    fprintf(o, ",\n      \"signal\": ");
    if (fl->kind == ML_FAIL_SIGNAL) {
        fprintf(o, "{\"number\": %d, \"name\": ", fl->signo);
        json_str(o, rec->signal_name);
        fprintf(o, ", \"code\": %d, \"code_name\": ", fl->code);
        json_str(o, rec->code_name);
        fprintf(o, ", \"code_text\": ");
        json_str(o, rec->code_text);
        fprintf(o, ", \"address\": ");
        if (!(fl->flags & ML_FAILF_SENDER)) fprintf(o, "\"0x%" PRIx64 "\"", fl->addr);
        else fprintf(o, "null");
        fprintf(o, ", \"sender_pid\": ");
        if (fl->flags & ML_FAILF_SENDER) fprintf(o, "%" PRIu64, fl->addr);
        else fprintf(o, "null");
        fprintf(o, ", \"stack_overflow\": %s, \"program_handler\": %s, \"tid\": %u}",
                (fl->flags & ML_FAILF_STACK) ? "true" : "false", (fl->flags & ML_FAILF_HANDLER) ? "true" : "false",
                fl->tid);
    } else {
        fprintf(o, "null");
    }
    fprintf(o, ",\n      \"exit\": ");
    if (fl->kind == ML_FAIL_EXIT) {
        fprintf(o, "{\"status\": ");
        if (fl->flags & ML_FAILF_NOSTATUS) fprintf(o, "null");
        else fprintf(o, "%d", fl->code);
        fprintf(o, ", \"by\": \"%s\"}", (fl->flags & ML_FAILF_MAIN)          ? "return from main"
                                        : (fl->flags & ML_FAILF_UNDER_EXIT) ? "_exit"
                                                                            : "exit");
    } else if (fl->kind == ML_FAIL_NONE && r->end == AN_DIAG_FAILED && !r->vfirst) {
        fprintf(o, "{\"status\": null, \"by\": null}");
    } else {
        fprintf(o, "null");
    }
    fprintf(o, ", \"mpi_error\": ");
    if (fl->kind == ML_FAIL_MPI_ERROR) {
        size_t cl = strcspn(fl->message, ":\n");
        const char *text = fl->message[cl] == ':' ? fl->message + cl + 1 : "";
        while (*text == ' ') text++;
        fprintf(o, "{\"code\": %d, \"class\": ", fl->code);
        json_strn(o, fl->message, cl);
        fprintf(o, ", \"message\": ");
        json_str(o, text);
        fprintf(o, ", \"fatal\": %s}", (fl->flags & ML_FAILF_FATAL) ? "true" : "false");
    } else {
        fprintf(o, "null");
    }
    fprintf(o, ", \"abort_code\": ");
    if (fl->kind == ML_FAIL_ABORT) fprintf(o, "%d", fl->code);
    else fprintf(o, "null");
    /* where: the program's frame for signals and exits, the call for the rest */
    const char *wf = NULL;
    if (fl->kind == ML_FAIL_SIGNAL || (fl->kind == ML_FAIL_EXIT && !(fl->flags & ML_FAILF_MAIN)))
        wf = rec->where;
    else if (fl->kind != ML_FAIL_NONE && fl->routine != 0xffff)
        wf = rec->site;
    else if (fl->kind == ML_FAIL_MPI_ERROR)
        wf = rec->where;
    fprintf(o, ",\n      \"where\": ");
    if (wf) json_str(o, wf);
    else fprintf(o, "null");
    fprintf(o, ", \"call\": ");
    if (fl->kind != ML_FAIL_NONE && fl->routine != 0xffff) {
        fprintf(o, "{\"routine\": ");
        json_str(o, rec->routine);
        fprintf(o, ", \"site\": ");
        json_str(o, rec->site);
        fputc('}', o);
    } else {
        fprintf(o, "null");
    }
    fprintf(o, ",\n      \"backtrace\": [");
    for (unsigned i = 0; fl->kind != ML_FAIL_NONE && i < rec->nframes; i++) {
        if (i) fprintf(o, ", ");
        json_str(o, rec->frames[i]);
    }
    fputc(']', o);
}

int diag_json(const char *dir, FILE *o, int whole)
{
    struct an_diag g;
    int loaded = load(dir, &g) == 0;
    int rc = diag_json_diag(dir, loaded ? &g : NULL, o, whole);
    if (loaded) an_diag_free(&g);
    return rc;
}

int diag_json_diag(const char *dir, const struct an_diag *gp, FILE *o, int whole)
{
    struct an_diag g;
    int loaded = gp != NULL;
    if (loaded) g = *gp;
    else memset(&g, 0, sizeof g);
    if (!loaded && whole) return -1;
    if (whole) {
        fprintf(o, "{\n  \"mpilens_report\": 1,\n  \"dir\": ");
        json_str(o, dir);
        fprintf(o, ",\n  \"mpi_impl\": ");
        json_str(o, g.mpi_impl);
        fprintf(o, ", \"ranks\": %d, \"rank_files\": %u,\n", g.size, g.n);
        tool_deadlock_json(o, dir, g.single);
    }
    if (!loaded) {
        fprintf(o, "  \"failure_summary\": null,\n  \"failures\": [],\n  \"other_ranks\": [],\n");
        return -1;
    }
    const struct an_diag_rank *rs = g.ranks;
    const struct an_diag_rank *f0 = g.first >= 0 ? &rs[g.first] : NULL;
    fprintf(o, "  \"failure_summary\": {\"failed\": %u, \"killed_after_first\": %u, \"ended_by_abort\": %u, "
               "\"vanished\": %u, \"first_rank\": ",
            g.nfailed - g.ncollateral, g.ncollateral - g.nby_abort, g.nby_abort, g.nvanished);
    if (f0 && f0->t_fail != INT64_MAX) fprintf(o, "%d, \"first_s\": %.6f", f0->rank, f0->t_fail / 1e9);
    else if (f0) fprintf(o, "%d, \"first_s\": null", f0->rank);
    else fprintf(o, "null, \"first_s\": null");
    fprintf(o, ", \"signalled_from_outside\": %s, \"unreadable_files\": [", g.outside ? "true" : "false");
    for (unsigned i = 0; i < g.nskipped; i++) {
        if (i) fprintf(o, ", ");
        json_str(o, g.skipped[i]);
    }
    fprintf(o, "], \"ranks_without_file\": [");
    unsigned k = 0;
    for (unsigned m = 0; m < g.nnofile; m++)
        for (int r = g.nofile[m].first; r <= g.nofile[m].last; r++) fprintf(o, "%s%d", k++ ? ", " : "", r);
    fprintf(o, "],\n                      \"text\": ");
    j_text(o, t_summary, &g, 0);
    fprintf(o, "},\n  \"failures\": [");
    for (unsigned j = 0; j < g.norder; j++) {
        int i = g.order[j];
        const struct an_diag_rank *r = &rs[i];
        fprintf(o, "%s\n    {", j ? "," : "");
        j_rank_id(o, r);
        fprintf(o, ", \"first\": %s, \"killed_after_first\": %s, \"ended_by_abort\": %s, \"time_s\": ",
                i == g.first ? "true" : "false", r->collateral && !r->by_abort ? "true" : "false",
                r->by_abort ? "true" : "false");
        if (r->t_fail == INT64_MAX) fprintf(o, "null");
        else fprintf(o, "%.6f", r->t_fail / 1e9);
        fprintf(o, ", \"time_is_last_activity\": %s, \"seen_gone_s\": ", r->t_after ? "true" : "false");
        if (r->stamped && r->t_gone != INT64_MAX) fprintf(o, "%.6f", r->t_gone / 1e9);
        else fprintf(o, "null");
        fprintf(o, ", \"after_finalize\": %s,\n      ", r->state == ML_STATE_FINALIZED ? "true" : "false");
        j_record(o, r);
        fprintf(o, ",\n      \"state\": ");
        j_state(o, r);
        fprintf(o, ",\n      \"text\": ");
        j_text(o, t_failed, &g, i);
        fputc('}', o);
    }
    fprintf(o, "],\n  \"other_ranks\": [");
    k = 0;
    for (unsigned i = 0; i < g.n; i++) {
        const struct an_diag_rank *r = &rs[i];
        if (r->end == AN_DIAG_FAILED) continue;
        fprintf(o, "%s\n    {", k++ ? "," : "");
        j_rank_id(o, r);
        fprintf(o, ", \"status\": \"%s\", \"exit_status\": ", other_status(r));
        if (r->end == AN_DIAG_FINALIZED) fprintf(o, "%d", r->exit_status);
        else fprintf(o, "null");
        fprintf(o, ", \"seen_gone_s\": ");
        if (r->stamped && r->t_gone != INT64_MAX) fprintf(o, "%.6f", r->t_gone / 1e9);
        else fprintf(o, "null");
        fprintf(o, ", \"went_on_after\": ");
        if (r->rec.fl.kind != ML_FAIL_NONE && r->rec.fl.kind != ML_FAIL_VANISHED) {
            fprintf(o, "{");
            j_record(o, r);
            fprintf(o, "}");
        } else {
            fprintf(o, "null");
        }
        fprintf(o, ",\n      \"state\": ");
        j_state(o, r);
        fprintf(o, ",\n      \"text\": ");
        j_text(o, t_other, &g, (int)i);
        fputc('}', o);
    }
    fprintf(o, "]%s\n", whole ? "\n}" : ",");
    return g.nfailed || g.nvanished ? 1 : 0;
}

/* ---- for `mpilens run`: leftovers after the launcher ---------------------- */

int diag_status(const char *dir, int *failed, int *alive)
{
    int nfailed = 0, *pids;
    unsigned npids;
    if (an_diag_status(dir, &nfailed, &pids, &npids) != 0) {
        if (failed) *failed = 0;
        if (alive) *alive = 0;
        return -1;
    }
    free(pids);
    if (failed) *failed = nfailed;
    if (alive) *alive = (int)npids;
    return 0;
}

int diag_signal_leftovers(const char *dir, int sig)
{
    int nfailed, *pids;
    unsigned npids;
    if (sig <= 0 || an_diag_status(dir, &nfailed, &pids, &npids) != 0) return -1;
    int n = 0;
    for (unsigned i = 0; i < npids; i++)
        if (kill((pid_t)pids[i], sig) == 0) n++;
    free(pids);
    return n;
}

/* ---- for `mpilens run`: errors the program went on after ------------------ */

int diag_notes(const char *dir, FILE *out)
{
    struct an_diag g;
    if (load(dir, &g) != 0) return -1;
    int n = 0;
    for (unsigned i = 0; i < g.n; i++) {
        const struct an_diag_rank *r = &g.ranks[i];
        const struct an_diag_record *rec = &r->rec;
        const struct ml_failure *fl = &rec->fl;
        if (!(fl->flags & ML_FAILF_SOFT) || r->state == ML_STATE_RUNNING) continue;
        if (fl->kind == ML_FAIL_MPI_ERROR) {
            int cl = (int)strcspn(fl->message, ":\n");
            fprintf(out, "mpilens: rank %d: %.*s returned to the program", r->rank, cl,
                    fl->message[0] ? fl->message : "MPI error");
            if (fl->routine != 0xffff) fprintf(out, " by %s at %s", rec->routine, rec->site);
            fprintf(out, " (it went on)\n");
            n++;
        } else if (fl->kind == ML_FAIL_SIGNAL && (fl->flags & ML_FAILF_HANDLER)) {
            fprintf(out, "mpilens: rank %d: signal %s (%s) handled by the program's own handler, which returned",
                    r->rank, rec->signal_name, rec->code_name);
            if (rec->where) fprintf(out, ", at %s", rec->where);
            fprintf(out, " (it went on)\n");
            n++;
        }
    }
    an_diag_free(&g);
    return n;
}
