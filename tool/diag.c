/*
 * diag.c — the failure diagnosis of a run directory (diag_print): for every
 * rank that failed, how (signal and its code, exit status, MPI error class
 * and message, abort code, deadlock), where (file:line from the backtrace;
 * the MPI call and its call site), and when (seconds since the start of the
 * run); for every other rank, what it was doing (which MPI call since when,
 * or computing) from its live slots; ranks whose process vanished without a
 * record (SIGKILL, the OOM killer, a lost node) are flagged as such.
 *
 * Reads only the rank files (header field `failure`, live slots); never the
 * events, so it costs the same on any size of trace.
 */
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_out.h"
#include "symbols.h"
#include "tool.h"

struct rk {
    struct mlr_file *f;
    const struct ml_header *h;
    struct ml_failure fl;     /* copy; kind NONE when there is none */
    int rank;
    int failed;               /* 1: counts as a failure of the job */
    int collateral;           /* killed from outside after another rank failed */
    int vanished;             /* state RUNNING, no record, process gone */
    int alive;                /* process still there */
    int64_t t_fail;           /* ns since origin, INT64_MAX if unknown */
    int t_after;              /* t_fail is only a lower bound (last activity) */
    int vfirst;               /* vanished, and taken as the first failure */
    int stamped;              /* vanished, seen gone by mpilens run (ML_FAIL_VANISHED) */
    uint32_t look;            /* its look number */
    int64_t t_gone;           /* when it was seen gone, ns since origin */
    int64_t t_last;           /* last activity in the live slots, INT64_MIN if none */
    int in_mpi;               /* some thread was inside an MPI call */
};

static int64_t origin;

static double secs(const struct rk *r, uint64_t ticks)
{
    return (double)(tool_aligned_ns(r->f, mlr_ticks_to_ns(r->f, ticks)) - origin) / 1e9;
}

static const char *sig_name(int s)
{
    static const char *n[] = {"0", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
                              "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM",
                              "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN",
                              "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
                              "SIGIO", "SIGPWR", "SIGSYS"};
    static char buf[32];
    if (s > 0 && s < (int)(sizeof n / sizeof *n)) return n[s];
    snprintf(buf, sizeof buf, "signal %d", s);
    return buf;
}

/* si_code: name and meaning (Linux values). */
static const char *code_name(int sig, int code, const char **what)
{
    *what = "";
    switch (code) {
    case 0: *what = "sent by kill()"; return "SI_USER";
    case 0x80: *what = "sent by the kernel"; return "SI_KERNEL";
    case -1: *what = "sent by sigqueue()"; return "SI_QUEUE";
    case -2: return "SI_TIMER";
    case -3: return "SI_MESGQ";
    case -4: return "SI_ASYNCIO";
    case -5: return "SI_SIGIO";
    case -6: *what = "sent by tkill()/raise()"; return "SI_TKILL";
    }
    if (sig == SIGSEGV) switch (code) {
        case 1: *what = "address not mapped to object"; return "SEGV_MAPERR";
        case 2: *what = "invalid permissions for mapped object"; return "SEGV_ACCERR";
        case 3: *what = "failed address bound checks"; return "SEGV_BNDERR";
        case 4: *what = "access denied by memory protection keys"; return "SEGV_PKUERR";
        }
    if (sig == SIGBUS) switch (code) {
        case 1: *what = "invalid address alignment"; return "BUS_ADRALN";
        case 2: *what = "nonexistent physical address"; return "BUS_ADRERR";
        case 3: *what = "object-specific hardware error"; return "BUS_OBJERR";
        case 4: *what = "hardware memory error, action required"; return "BUS_MCEERR_AR";
        case 5: *what = "hardware memory error, action optional"; return "BUS_MCEERR_AO";
        }
    if (sig == SIGFPE) switch (code) {
        case 1: *what = "integer divide by zero"; return "FPE_INTDIV";
        case 2: *what = "integer overflow"; return "FPE_INTOVF";
        case 3: *what = "floating-point divide by zero"; return "FPE_FLTDIV";
        case 4: *what = "floating-point overflow"; return "FPE_FLTOVF";
        case 5: *what = "floating-point underflow"; return "FPE_FLTUND";
        case 6: *what = "floating-point inexact result"; return "FPE_FLTRES";
        case 7: *what = "floating-point invalid operation"; return "FPE_FLTINV";
        case 8: *what = "subscript out of range"; return "FPE_FLTSUB";
        }
    if (sig == SIGILL) switch (code) {
        case 1: *what = "illegal opcode"; return "ILL_ILLOPC";
        case 2: *what = "illegal operand"; return "ILL_ILLOPN";
        case 3: *what = "illegal addressing mode"; return "ILL_ILLADR";
        case 4: *what = "illegal trap"; return "ILL_ILLTRP";
        case 5: *what = "privileged opcode"; return "ILL_PRVOPC";
        case 6: *what = "privileged register"; return "ILL_PRVREG";
        case 7: *what = "coprocessor error"; return "ILL_COPROC";
        case 8: *what = "internal stack error"; return "ILL_BADSTK";
        }
    static char buf[32];
    snprintf(buf, sizeof buf, "code %d", code);
    return buf;
}

static const struct ml_module *module_of(const struct mlr_file *f, uint64_t a)
{
    for (unsigned i = 0; i < mlr_nmodules(f); i++) {
        const struct ml_module *m = mlr_module(f, i);
        if (a >= m->start && a < m->end) return m;
    }
    return NULL;
}

static int runtime_frame(const struct mlr_file *f, uint64_t a)
{
    const struct ml_module *m = module_of(f, a);
    return m && strstr(m->path, "/libmpilens-") != NULL;
}

/* "file.c:42" (line information), not "func+0x1a(lib.so)" or "lib.so+0x..." */
static int has_line(const char *s)
{
    const char *c = strrchr(s, ':');
    if (!c || !c[1] || strstr(s, "+0x") || strchr(s, '(')) return 0;
    for (const char *p = c + 1; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return 1;
}

/* Installed by the system (libc, the MPI library, ...), not the program's. */
static int system_frame(const struct mlr_file *f, uint64_t a)
{
    const struct ml_module *m = module_of(f, a);
    if (!m) return 0;
    static const char *dirs[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/", 0};
    for (int i = 0; dirs[i]; i++)
        if (!strncmp(m->path, dirs[i], strlen(dirs[i]))) return 1;
    return 0;
}

/* The innermost frame in the program's own code with file:line, else in
 * its code at all (function+offset), else the innermost with file:line
 * anywhere, or NULL. */
static const char *where_frame(const struct rk *r, char *buf, size_t n)
{
    unsigned nf = r->fl.nframes > 32 ? 32 : r->fl.nframes;
    for (int pass = 0; pass < 3; pass++)
        for (unsigned i = 0; i < nf; i++) {
            uint64_t a = r->fl.frames[i];
            if (!a || runtime_frame(r->f, a) || (pass < 2 && system_frame(r->f, a))) continue;
            if (pass == 1 && !module_of(r->f, a)) continue;
            sym_addr(r->f, a, buf, n);
            if (pass == 1 || has_line(buf)) return buf;
        }
    return NULL;
}

static void print_backtrace(FILE *o, const struct rk *r)
{
    unsigned nf = r->fl.nframes > 32 ? 32 : r->fl.nframes, k = 0, rep = 0;
    char b[600], prev[600] = "";
    for (unsigned i = 0; i <= nf; i++) {
        if (i < nf) {
            uint64_t a = r->fl.frames[i];
            if (!a || runtime_frame(r->f, a)) continue;
            sym_addr(r->f, a, b, sizeof b);
            if (k && !strcmp(b, prev)) {  /* deep recursion: one line */
                rep++;
                continue;
            }
        }
        if (rep) fprintf(o, "         ... %u more times %s\n", rep, prev);
        rep = 0;
        if (i == nf) break;
        if (k == 0) fprintf(o, "    backtrace:\n");
        fprintf(o, "      #%u %s\n", k++, b);
        snprintf(prev, sizeof prev, "%s", b);
    }
}

static const char *routine(const struct rk *r, uint16_t id)
{
    return mlr_routine_name(r->f, id);
}

static const char *site(const struct rk *r, uint32_t s, char *buf, size_t n)
{
    return sym_site(r->f, s, buf, n);
}

/* The last moment the live slots show the process doing something (a call
 * starting or ending), and whether a thread was inside an MPI call. */
static void last_activity(struct rk *r)
{
    unsigned nt = mlr_nthreads(r->f);
    uint64_t last = 0;
    r->in_mpi = 0;
    for (unsigned i = 0; i < nt; i++) {
        struct ml_live l;
        if (mlr_live(r->f, i, &l) != 0 || !l.used) continue;
        uint64_t e = l.t_end > l.t_idle ? l.t_end : l.t_idle;
        if (l.t_start > e) r->in_mpi = 1;
        if (l.t_start > last) last = l.t_start;
        if (e > last) last = e;
    }
    r->t_last = last ? tool_aligned_ns(r->f, mlr_ticks_to_ns(r->f, last)) - origin : INT64_MIN;
}

/* Of two ranks that vanished without a record, did a go before b?  Seen
 * gone by mpilens run more than VANISH_TIE_NS earlier; else the one that was
 * not waiting inside MPI (a rank waiting for one that vanished is the one
 * the launcher kills after it); else the earlier last activity.  The tie
 * window: mpilens run sees a process gone when its teardown ends, and the
 * teardown of a killed process (its mappings, its threads) can take longer
 * than the launcher's reaction plus the teardown of the rank it kills next
 * (seen with MPICH: the rank killed by the launcher seen gone 25 us before
 * the one that killed itself). */
#define VANISH_TIE_NS 100000000
static int vanished_before(const struct rk *a, const struct rk *b)
{
    if (a->stamped != b->stamped) return a->stamped;
    if (a->stamped && a->look != b->look && a->t_gone != INT64_MAX && b->t_gone != INT64_MAX &&
        (a->t_gone - b->t_gone > VANISH_TIE_NS || b->t_gone - a->t_gone > VANISH_TIE_NS))
        return a->t_gone < b->t_gone;
    if (a->in_mpi != b->in_mpi) return !a->in_mpi;
    if (a->t_last != b->t_last) return a->t_last < b->t_last;
    return a->rank < b->rank;
}

/* What each thread was doing, from the live slots: "in MPI_X at f:l since
 * T s" or "computing; last MPI call ...".  `at` is the moment to measure
 * durations to (the failure), or < 0. */
static void print_state(FILE *o, const struct rk *r, double at, const char *prefix)
{
    unsigned nt = mlr_nthreads(r->f), shown = 0;
    char b[600];
    for (unsigned i = 0; i < nt; i++) {
        struct ml_live l;
        if (mlr_live(r->f, i, &l) != 0 || !l.used) continue;
        char th[32] = "";
        if (nt > 1) snprintf(th, sizeof th, "thread %u: ", i);
        if (l.t_start > l.t_end) {
            double s = secs(r, l.t_start);
            fprintf(o, "    %s%sin %s called at %s since %.3f s", prefix, th, routine(r, l.routine),
                    site(r, l.site, b, sizeof b), s);
            if (at >= 0 && at >= s) fprintf(o, " (%.3f s)", at - s);
            fputc('\n', o);
        } else if (l.t_end) {
            double e = secs(r, l.t_end);
            fprintf(o, "    %s%scomputing (not in MPI); last MPI call %s at %s ended at %.3f s", prefix, th,
                    routine(r, l.routine), site(r, l.site, b, sizeof b), e);
            if (at >= 0 && at >= e) fprintf(o, " (%.3f s before)", at - e);
            fputc('\n', o);
        } else {
            fprintf(o, "    %s%sin its first MPI call, %s, called at %s\n", prefix, th, routine(r, l.routine),
                    site(r, l.site, b, sizeof b));
        }
        shown++;
    }
    if (!shown) fprintf(o, "    %sno MPI call recorded\n", prefix);
}

/* Is the process still there?  -1: cannot tell (other host). */
static int process_alive(const struct rk *r)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    if (strcmp(host, mlr_host(r->f)) != 0) return -1;
    char p[64], exe[PATH_MAX];
    snprintf(p, sizeof p, "/proc/%d/exe", (int)r->h->pid);
    ssize_t n = readlink(p, exe, sizeof exe - 1);
    if (n <= 0) return 0;             /* gone, or a zombie */
    exe[n] = 0;
    if (strcmp(exe, mlr_exe(r->f)) != 0) return 0;
    snprintf(p, sizeof p, "/proc/%d/stat", (int)r->h->pid);
    FILE *st = fopen(p, "r");
    char line[512] = "";
    if (st) {
        if (!fgets(line, sizeof line, st)) line[0] = 0;
        fclose(st);
    }
    const char *c = strrchr(line, ')');
    if (c && (c[2] == 'Z' || c[2] == 'X' || c[2] == 'x')) return 0;   /* exiting or dead */
    return 1;
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

static void print_cause(FILE *o, const struct rk *r, int brief)
{
    const struct ml_failure *fl = &r->fl;
    char b[600], w[600];
    const char *what;
    switch (fl->kind) {
    case ML_FAIL_SIGNAL: {
        const char *cn = code_name(fl->signo, fl->code, &what);
        fprintf(o, "signal %s (%s%s%s)", sig_name(fl->signo), cn, *what ? ": " : "", what);
        if (fl->flags & ML_FAILF_SENDER) {
            if ((int64_t)fl->addr == r->h->pid) fprintf(o, " sent by the process itself");
            else fprintf(o, " sent by pid %" PRIu64, fl->addr);
        } else if (fl->signo == SIGSEGV || fl->signo == SIGBUS || fl->signo == SIGFPE || fl->signo == SIGILL) {
            fprintf(o, " at address 0x%" PRIx64, fl->addr);
        }
        if (fl->flags & ML_FAILF_STACK) fprintf(o, " -- stack overflow");
        fputc('\n', o);
        if (fl->flags & ML_FAILF_HANDLER)
            fprintf(o, "    a handler of the program (or of its libraries) ran for it%s\n",
                    (fl->flags & ML_FAILF_SOFT) ? " and returned" : "");
        if (mlr_nthreads(r->f) > 1)
            for (unsigned i = 0; i < mlr_nthreads(r->f); i++) {
                struct ml_live l;
                if (mlr_live(r->f, i, &l) == 0 && l.used && l.tid == fl->tid)
                    fprintf(o, "    in thread %u (tid %u)\n", i, fl->tid);
            }
        if (fl->flags & ML_FAILF_OTHER_THREAD)
            fprintf(o, "    it arrived in a thread that never called MPI (tid %u)\n", fl->tid);
        const char *wf = brief ? NULL : where_frame(r, w, sizeof w);
        if (wf) fprintf(o, "    where: %s\n", wf);
        if (fl->routine != 0xffff && !brief)
            fprintf(o, "    inside %s called at %s\n", routine(r, fl->routine), site(r, fl->site, b, sizeof b));
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
        if (!(fl->flags & ML_FAILF_MAIN)) {
            const char *wf = where_frame(r, w, sizeof w);
            if (wf) fprintf(o, "    where: %s\n", wf);
        }
        if (fl->routine != 0xffff)
            fprintf(o, "    inside %s called at %s (from an error handler or callback?)\n", routine(r, fl->routine),
                    site(r, fl->site, b, sizeof b));
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
        if (fl->routine != 0xffff)
            fprintf(o, "    where: %s called at %s\n", routine(r, fl->routine), site(r, fl->site, b, sizeof b));
        else {
            const char *wf = where_frame(r, w, sizeof w);
            if (wf) fprintf(o, "    where: %s\n", wf);
        }
        break;
    }
    case ML_FAIL_ABORT:
        fprintf(o, "MPI_Abort called with error code %d\n", fl->code);
        fprintf(o, "    where: %s called at %s\n", routine(r, fl->routine), site(r, fl->site, b, sizeof b));
        if (fl->flags & ML_FAILF_NESTED) fprintf(o, "    called inside another MPI call (an error handler or callback)\n");
        {
            static const char eh[] = " by the program's error handler for MPI error ";
            const char *m = strstr(fl->message, eh);
            if (m) fprintf(o, "    called by the program's error handler for: MPI error %.*s\n",
                           (int)strcspn(m + sizeof eh - 1, "\n"), m + sizeof eh - 1);
        }
        break;
    case ML_FAIL_DEADLOCK:
        fprintf(o, "stopped by the deadlock detector%s%s\n", fl->message[0] ? ": " : "", fl->message);
        if (fl->routine != 0xffff)
            fprintf(o, "    blocked in %s called at %s\n", routine(r, fl->routine), site(r, fl->site, b, sizeof b));
        break;
    default:
        fprintf(o, "failure of unknown kind %u\n", fl->kind);
    }
    if (fl->kind != ML_FAIL_MPI_ERROR && fl->kind != ML_FAIL_DEADLOCK && fl->message[0] &&
        fl->kind != ML_FAIL_EXIT && fl->kind != ML_FAIL_ABORT && !(fl->flags & ML_FAILF_STACK))
        fprintf(o, "    note: %s\n", fl->message);
}

static int is_external_kill(const struct rk *r)
{
    const struct ml_failure *fl = &r->fl;
    return fl->kind == ML_FAIL_SIGNAL && (fl->flags & ML_FAILF_SENDER) && (int64_t)fl->addr != r->h->pid &&
           (fl->signo == SIGTERM || fl->signo == SIGINT || fl->signo == SIGHUP || fl->signo == SIGKILL ||
            fl->signo == SIGQUIT);
}

static void load_failure(struct rk *r)
{
    memcpy(&r->fl, &r->h->failure, sizeof r->fl);
    r->fl.message[sizeof r->fl.message - 1] = 0;
    if (r->fl.nframes > 32) r->fl.nframes = 32;
}

static const struct rk *sort_rs;

static int by_time(const void *a, const void *b)
{
    const struct rk *x = &sort_rs[*(const int *)a], *y = &sort_rs[*(const int *)b];
    if (x->t_fail != y->t_fail) return x->t_fail < y->t_fail ? -1 : 1;
    return x->rank - y->rank;
}

/* "0-3,5,7-9" */
static void print_ranges(FILE *o, const int *v, unsigned n)
{
    for (unsigned i = 0; i < n;) {
        unsigned j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1) j++;
        fprintf(o, "%s%d", i ? "," : "", v[i]);
        if (j > i) fprintf(o, "-%d", v[j]);
        i = j + 1;
    }
}

static int int_cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* ---- the diagnosis, once for the text and the JSON ------------------------- */

struct diag {
    const char *dir;
    struct mlr_dir d;
    char *single;                 /* dir is one rank file */
    char **skipped;               /* "FILE: why; skipped" */
    int *skipped_rank;            /* the rank its name says (rank-N.mlt), or -1 */
    unsigned nskipped;
    struct rk *rs;
    unsigned n;
    int size;                     /* world size from the headers */
    unsigned nfailed, nvanished, ncol, next;
    int first;                    /* index in rs of the first failure, -1 */
    int outside;                  /* the first one was signalled from outside: nothing failed by itself */
    int *order;                   /* failed ranks: the first, then by time */
    unsigned no;
};

static void diag_free(struct diag *g)
{
    for (unsigned i = 0; i < g->n; i++) mlr_close(g->rs[i].f);
    free(g->rs);
    for (unsigned i = 0; i < g->nskipped; i++) free(g->skipped[i]);
    free(g->skipped);
    free(g->skipped_rank);
    free(g->order);
    if (g->single) free(g->single);
    else mlr_dir_free(&g->d);
}

/* Reads and classifies; 0, or -1 when dir has no readable rank file. */
static int diag_load(const char *dir, struct diag *g)
{
    memset(g, 0, sizeof *g);
    g->dir = dir;
    g->first = -1;
    int err = mlr_dir_scan(dir, &g->d);
    char **files;
    unsigned nfiles;
    if (err == MLR_EDIR) {            /* one rank file */
        g->single = strdup(dir);
        if (!g->single) return -1;
        files = &g->single;
        nfiles = 1;
    } else if (err) {
        return -1;                    /* the caller says what is wrong */
    } else {
        files = g->d.files;
        nfiles = g->d.n;
    }
    g->rs = calloc(nfiles ? nfiles : 1, sizeof *g->rs);
    origin = INT64_MAX;
    for (unsigned i = 0; g->rs && i < nfiles; i++) {
        struct mlr_file *f;
        int e = mlr_open(files[i], &f);
        if (e) {
            if (g->single) continue;
            char **p = realloc(g->skipped, (g->nskipped + 1) * sizeof *p);
            if (!p) continue;
            g->skipped = p;
            int *sr = realloc(g->skipped_rank, (g->nskipped + 1) * sizeof *sr);
            if (!sr) continue;
            g->skipped_rank = sr;
            const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
            int rk = -1;
            sr[g->nskipped] = sscanf(base, "rank-%d.mlt", &rk) == 1 ? rk : -1;
            size_t l = strlen(files[i]) + strlen(mlr_strerror(e)) + 16;
            if ((p[g->nskipped] = malloc(l))) snprintf(p[g->nskipped++], l, "%s: %s; skipped", files[i], mlr_strerror(e));
            continue;
        }
        struct rk *r = &g->rs[g->n++];
        r->f = f;
        r->h = mlr_header(f);
        r->rank = mlr_rank(f);
        load_failure(r);
        if (r->h->size > g->size) g->size = r->h->size;
        int64_t o = tool_aligned_ns(f, r->h->anchor0_ns);
        if (o < origin) origin = o;
    }
    if (!g->rs || g->n == 0) {
        diag_free(g);
        return -1;
    }
    struct rk *rs = g->rs;
    unsigned n = g->n;
    /* classify */
    unsigned nfailed = 0, nvanished = 0;
    for (unsigned i = 0; i < n; i++) {
        struct rk *r = &rs[i];
        r->t_fail = INT64_MAX;
        int st = r->h->state;
        r->alive = st == ML_STATE_RUNNING ? process_alive(r) : 0;
        last_activity(r);
        if (r->fl.kind == ML_FAIL_VANISHED) {
            /* written by mpilens run: the process ended without a record */
            r->vanished = 1;
            r->stamped = 1;
            r->look = (uint32_t)r->fl.code;
            r->t_gone = r->fl.ticks ? tool_aligned_ns(r->f, mlr_ticks_to_ns(r->f, r->fl.ticks)) - origin : INT64_MAX;
        } else if (r->fl.kind != ML_FAIL_NONE) {
            int soft = (r->fl.flags & ML_FAILF_SOFT) != 0;
            /* a soft record counts when the process did not get to
             * MPI_Finalize and is gone */
            r->failed = !soft || (st != ML_STATE_FINALIZED && r->alive != 1);
            if (r->failed && r->fl.ticks)
                r->t_fail = tool_aligned_ns(r->f, mlr_ticks_to_ns(r->f, r->fl.ticks)) - origin;
        } else if (st == ML_STATE_EXITED) {
            r->failed = 1;            /* left without MPI_Finalize, no record */
        } else if (st == ML_STATE_RUNNING && r->alive == 0) {
            r->vanished = 1;
        }
        nfailed += r->failed;
        nvanished += r->vanished;
    }
    /* the first failure: the earliest one not caused from outside */
    int first = -1;
    for (unsigned i = 0; i < n; i++) {
        struct rk *r = &rs[i];
        if (!r->failed || r->t_fail == INT64_MAX || is_external_kill(r)) continue;
        if (first < 0 || r->t_fail < rs[first].t_fail) first = (int)i;
    }
    /* Nothing failed by itself, only signals from outside (the launcher
     * tearing the job down) or nothing at all: a rank that vanished before
     * those signals (SIGKILL, the OOM killer: it could write nothing) is the
     * first failure.  Before: its last activity precedes the first of them,
     * and, when mpilens run saw it gone, it saw that no later than
     * VANISH_SLACK_NS after them (the watcher may wake late). */
    if (first < 0) {
#define VANISH_SLACK_NS 500000000
        int64_t t_ext = INT64_MAX;
        for (unsigned i = 0; i < n; i++)
            if (rs[i].failed && is_external_kill(&rs[i]) && rs[i].t_fail < t_ext) t_ext = rs[i].t_fail;
        int best = -1;
        for (unsigned i = 0; i < n; i++) {
            struct rk *r = &rs[i];
            if (!r->vanished) continue;
            if (t_ext != INT64_MAX && r->t_last != INT64_MIN && r->t_last > t_ext) continue;
            if (t_ext != INT64_MAX && r->stamped && r->t_gone != INT64_MAX && r->t_gone > t_ext + VANISH_SLACK_NS)
                continue;
            if (best < 0 || vanished_before(r, &rs[best])) best = (int)i;
        }
        if (best >= 0) {
            struct rk *r = &rs[best];
            r->vanished = 0;
            r->failed = 1;
            r->vfirst = 1;
            nvanished--;
            nfailed++;
            if (r->stamped && r->t_gone != INT64_MAX) {
                r->t_fail = r->t_gone;
            } else if (r->t_last != INT64_MIN) {
                r->t_fail = r->t_last;
                r->t_after = 1;
            }
            first = best;
        }
    }
    if (first < 0)                    /* only signals from outside */
        for (unsigned i = 0; i < n; i++) {
            struct rk *r = &rs[i];
            if (!r->failed || r->t_fail == INT64_MAX) continue;
            if (first < 0 || r->t_fail < rs[first].t_fail) first = (int)i;
        }
    g->first = first;
    g->outside = first >= 0 && is_external_kill(&rs[first]);  /* nothing failed by itself */
    for (unsigned i = 0; i < n; i++)
        if (rs[i].failed && (int)i != first && is_external_kill(&rs[i]) && first >= 0 && !g->outside)
            rs[i].collateral = 1;
    g->nfailed = nfailed;
    g->nvanished = nvanished;
    for (unsigned i = 0; i < n; i++) {
        g->ncol += rs[i].collateral;
        g->next += rs[i].failed && is_external_kill(&rs[i]);
    }
    /* failed ranks: the first one, then by time */
    g->order = malloc(sizeof(int) * n);
    if (g->order) {
        if (first >= 0) g->order[g->no++] = first;
        for (unsigned i = 0; i < n; i++)
            if (rs[i].failed && (int)i != first) g->order[g->no++] = (int)i;
        sort_rs = rs;
        if (g->no > 1) qsort(g->order + (first >= 0), g->no - (first >= 0), sizeof *g->order, by_time);
    }
    return 0;
}

/* The summary line, without its newline. */
static void print_summary(FILE *out, const struct diag *g)
{
    const struct rk *rs = g->rs;
    int first = g->first;
    if (g->nfailed == 0 && g->nvanished == 0) {
        unsigned fin = 0, run = 0;
        for (unsigned i = 0; i < g->n; i++) {
            fin += rs[i].h->state == ML_STATE_FINALIZED;
            run += rs[i].h->state == ML_STATE_RUNNING;
        }
        /* a non-zero exit status after MPI_Finalize (an uncaught Python
         * exception under mpi4py, exit(1) after the end of MPI) */
        unsigned bad = 0;
        int brank = -1, bstatus = 0;
        for (unsigned i = 0; i < g->n; i++)
            if (rs[i].h->state == ML_STATE_FINALIZED && rs[i].h->exit_status != 0 && bad++ == 0) {
                brank = rs[i].rank;
                bstatus = rs[i].h->exit_status;
            }
        if (bad)
            fprintf(out, "FAILED after MPI_Finalize: %u rank%s exited with a non-zero status (rank %d: %d)%s", bad,
                    bad == 1 ? "" : "s", brank, bstatus, fin == g->n ? "" : "; others still running");
        else if (g->nskipped)
            fprintf(out, "no failure recorded in the %u readable rank file%s, but %u rank file%s unreadable: "
                         "what %s did is unknown",
                    g->n, g->n == 1 ? "" : "s", g->nskipped, g->nskipped == 1 ? " is" : "s are",
                    g->nskipped == 1 ? "its rank" : "their ranks");
        else if (fin == g->n) fprintf(out, "no failure: every rank called MPI_Finalize");
        else fprintf(out, "no failure recorded; %u rank%s still running", run, run == 1 ? "" : "s");
        return;
    }
    if (g->outside && g->next == g->nfailed)
        fprintf(out, "%u rank%s stopped by signals from another process (launcher, batch system, user)", g->nfailed,
                g->nfailed == 1 ? "" : "s");
    else
        fprintf(out, "%u rank%s failed", g->nfailed - g->ncol, g->nfailed - g->ncol == 1 ? "" : "s");
    if (g->ncol) fprintf(out, ", %u killed from outside after that", g->ncol);
    if (g->nvanished) fprintf(out, ", %u vanished without a record", g->nvanished);
    if (first >= 0 && rs[first].t_fail == INT64_MAX)
        fprintf(out, "; first %s: rank %d", g->outside ? "signalled" : "failure", rs[first].rank);
    else if (first >= 0)
        fprintf(out, "; first %s: rank %d %s %.3f s", g->outside ? "signalled" : "failure", rs[first].rank,
                rs[first].t_after ? "gone after" : "at", rs[first].t_fail / 1e9);
}

/* The paragraph on failed rank rs[i], from its "rank N (...)" line on. */
static void print_failed(FILE *out, const struct diag *g, int i)
{
    const struct rk *r = &g->rs[i];
    const struct rk *f0 = g->first >= 0 ? &g->rs[g->first] : NULL;
    double at = r->t_fail == INT64_MAX ? -1 : r->t_fail / 1e9;
    fprintf(out, "rank %d (pid %d on %s): FAILED%s", r->rank, (int)r->h->pid, mlr_host(r->f),
            i == g->first  ? (g->outside ? ", signalled first" : ", first failure")
            : r->collateral ? ", killed after the first failure"
                            : "");
    if (at >= 0) fprintf(out, r->t_after ? ", gone after %.3f s (its last activity)" : " at %.3f s", at);
    if (r->h->state == ML_STATE_FINALIZED) fprintf(out, ", after MPI_Finalize");
    if (at >= 0 && f0 && i != g->first && f0->t_fail != INT64_MAX)
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
    if (r->fl.kind == ML_FAIL_NONE) fprintf(out, "exited without calling MPI_Finalize (no record of how)\n");
    else print_cause(out, r, r->collateral);
    /* a rank killed from outside after another failed: what it was
     * doing is the point, not where the signal found it */
    if (!r->collateral && (r->fl.kind == ML_FAIL_SIGNAL || r->fl.kind == ML_FAIL_ABORT ||
                           (r->fl.kind == ML_FAIL_EXIT && !(r->fl.flags & ML_FAILF_MAIN))))
        print_backtrace(out, r);
    if (r->fl.kind == ML_FAIL_ABORT && !(r->fl.flags & ML_FAILF_NESTED))
        return;                       /* its state is: in MPI_Abort */
    print_state(out, r, at, "state: ");
}

/* "finalized normally" for ranks not shown one by one */
static int finalized_clean(const struct rk *r)
{
    return !r->failed && r->h->state == ML_STATE_FINALIZED && r->fl.kind == ML_FAIL_NONE;
}

static const char *other_status(const struct rk *r)
{
    if (r->vanished) return "vanished";
    if (r->h->state == ML_STATE_FINALIZED) return "finalized";
    if (r->alive == 1) return "running";
    return "unknown";
}

/* The paragraph on a rank that did not fail (and did not just finalize). */
static void print_other(FILE *out, const struct diag *g, const struct rk *r)
{
    const struct rk *f0 = g->first >= 0 ? &g->rs[g->first] : NULL;
    fprintf(out, "rank %d (pid %d on %s): ", r->rank, (int)r->h->pid, mlr_host(r->f));
    if (r->vanished) {
        fprintf(out, "VANISHED without a record: process gone, no MPI_Finalize, no failure recorded\n"
                     "    likely killed by SIGKILL (the launcher, the OOM killer, a time limit) or its node failed\n");
        if (r->stamped && r->t_gone != INT64_MAX) {
            fprintf(out, "    seen gone by mpilens run at %.3f s", r->t_gone / 1e9);
            if (f0 && f0->t_fail != INT64_MAX)
                fprintf(out, " (%+.3f s after rank %d)", (r->t_gone - f0->t_fail) / 1e9, f0->rank);
            fputc('\n', out);
        }
        if (f0) fprintf(out, "    after the first failure: probably stopped by the launcher\n");
        print_state(out, r, -1, "last state: ");
    } else if (r->h->state == ML_STATE_FINALIZED) {
        fprintf(out, "finalized normally\n");
    } else if (r->alive == 1) {
        fprintf(out, "still running\n");
        print_state(out, r, -1, "state: ");
    } else {
        fprintf(out, "no MPI_Finalize; cannot tell from this host whether the process is alive\n");
        print_state(out, r, -1, "state: ");
    }
    if (r->fl.kind != ML_FAIL_NONE && r->fl.kind != ML_FAIL_VANISHED) {
        fprintf(out, "    note: went on after ");
        print_cause(out, r, 0);
    }
}

int diag_print(const char *dir, FILE *out)
{
    struct diag g;
    if (diag_load(dir, &g) != 0) return -1;
    struct rk *rs = g.rs;
    unsigned n = g.n;
    for (unsigned i = 0; i < g.nskipped; i++) fprintf(out, "%s\n", g.skipped[i]);
    fprintf(out, "== failure diagnosis: %s (%u rank file%s%s%s) ==\n", dir, n, n == 1 ? "" : "s",
            rs[0].h->mpi_impl[0] ? ", " : "", rs[0].h->mpi_impl);
    print_summary(out, &g);
    fputc('\n', out);

    /* the live monitor's verdict (mpilens top), when it found a deadlock */
    if (!g.single) {
        char when[64];
        char *v = tool_deadlock_verdict(dir, when, sizeof when);
        if (v) {
            fprintf(out, "\nDEADLOCK found by the live monitor (%s/deadlock.txt%s%s):\n", dir, when[0] ? ", " : "",
                    when);
            /* each line indented by 2, wrapped at spaces to 100 columns */
            for (char *p = v, *nl; p && *p; p = nl ? nl + 1 : NULL) {
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
            free(v);
        }
    }

    for (unsigned k = 0; k < g.no; k++) {
        fputc('\n', out);
        print_failed(out, &g, g.order[k]);
    }
    /* the others; ranks that finalized cleanly in one line */
    int *fin = malloc(sizeof(int) * n);
    unsigned nfin = 0;
    for (unsigned i = 0; fin && i < n; i++)
        if (finalized_clean(&rs[i])) fin[nfin++] = rs[i].rank;
    if (nfin && (g.nfailed || g.nvanished || nfin < n)) {
        qsort(fin, nfin, sizeof *fin, int_cmp);
        fprintf(out, "\nrank%s ", nfin == 1 ? "" : "s");
        print_ranges(out, fin, nfin);
        fprintf(out, ": finalized normally\n");
    }
    free(fin);
    for (unsigned i = 0; i < n; i++) {
        if (rs[i].failed || finalized_clean(&rs[i])) continue;
        fputc('\n', out);
        print_other(out, &g, &rs[i]);
    }
    /* ranks without a file */
    if (g.size > 0 && !g.single) {
        char *have = calloc((size_t)g.size, 1);
        for (unsigned i = 0; have && i < n; i++)
            if (rs[i].rank >= 0 && rs[i].rank < g.size) have[rs[i].rank] = 1;
        for (int k = 0; have && k < g.size; k++) {
            if (have[k]) continue;
            unsigned j = 0;
            while (j < g.nskipped && g.skipped_rank[j] != k) j++;
            if (j < g.nskipped)
                fprintf(out, "\nrank %d: its rank file is UNREADABLE (%.*s): what it did is unknown\n", k,
                        (int)(strlen(g.skipped[j]) - strlen("; skipped")), g.skipped[j]);
            else
                fprintf(out, "\nrank %d: no rank file (it died before its first MPI call, or wrote elsewhere)\n", k);
        }
        free(have);
    }
    int rc = g.nfailed || g.nvanished || g.nskipped ? 1 : 0;
    diag_free(&g);
    return rc;
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
    const struct diag *d = g;
    print_other(m, d, &d->rs[i]);
}
static void t_summary(FILE *m, const void *g, int i) { (void)i; print_summary(m, g); }
static void t_cause(FILE *m, const void *r, int brief)
{
    const struct rk *k = r;
    if (k->vfirst || k->fl.kind == ML_FAIL_VANISHED)
        fprintf(m, "killed (SIGKILL or the OOM killer): no record\n");
    else if (k->fl.kind == ML_FAIL_NONE) fprintf(m, "exited without calling MPI_Finalize (no record of how)\n");
    else print_cause(m, k, brief);
}

static void j_secs(FILE *o, double s)
{
    if (s < -1e15 || s > 1e15 || s != s) fprintf(o, "null");
    else fprintf(o, "%.6f", s);
}

/* Per thread with a call: what it was doing (the live slots). */
static void j_state(FILE *o, const struct rk *r)
{
    unsigned nt = mlr_nthreads(r->f), k = 0;
    char b[600];
    fputc('[', o);
    for (unsigned i = 0; i < nt; i++) {
        struct ml_live l;
        if (mlr_live(r->f, i, &l) != 0 || !l.used) continue;
        const char *st = l.t_start > l.t_end ? "in_mpi" : l.t_end ? "computing" : "first_call";
        fprintf(o, "%s{\"thread\": %u, \"tid\": %" PRIu64 ", \"state\": \"%s\", \"routine\": ", k++ ? ", " : "", i,
                l.tid, st);
        json_str(o, routine(r, l.routine));
        fprintf(o, ", \"site\": ");
        json_str(o, site(r, l.site, b, sizeof b));
        fprintf(o, ", \"start_s\": ");
        if (l.t_start) j_secs(o, secs(r, l.t_start));
        else fprintf(o, "null");
        fprintf(o, ", \"end_s\": ");
        if (l.t_end) j_secs(o, secs(r, l.t_end));
        else fprintf(o, "null");
        fputc('}', o);
    }
    fputc(']', o);
}

static void j_rank_id(FILE *o, const struct rk *r)
{
    fprintf(o, "\"rank\": %d, \"pid\": %d, \"host\": ", r->rank, (int)r->h->pid);
    json_str(o, mlr_host(r->f));
}

static const char *kind_name(const struct rk *r)
{
    if (r->vfirst) return "killed_no_record";
    switch (r->fl.kind) {
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
static void j_record(FILE *o, const struct rk *r)
{
    struct ml_failure none;
    const struct ml_failure *fl = &r->fl;
    if (r->vfirst || fl->kind == ML_FAIL_VANISHED) {   /* no record of its own: nothing but the kind */
        memset(&none, 0, sizeof none);
        none.routine = 0xffff;
        fl = &none;
    }
    char b[600], w[600];
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
        const char *what;
        const char *cn = code_name(fl->signo, fl->code, &what);
        fprintf(o, "{\"number\": %d, \"name\": ", fl->signo);
        json_str(o, sig_name(fl->signo));
        fprintf(o, ", \"code\": %d, \"code_name\": ", fl->code);
        json_str(o, cn);
        fprintf(o, ", \"code_text\": ");
        json_str(o, what);
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
    } else if (fl->kind == ML_FAIL_NONE && r->failed && !r->vfirst) {
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
        wf = where_frame(r, w, sizeof w);
    else if (fl->kind != ML_FAIL_NONE && fl->routine != 0xffff)
        wf = site(r, fl->site, w, sizeof w);
    else if (fl->kind == ML_FAIL_MPI_ERROR)
        wf = where_frame(r, w, sizeof w);
    fprintf(o, ",\n      \"where\": ");
    if (wf) json_str(o, wf);
    else fprintf(o, "null");
    fprintf(o, ", \"call\": ");
    if (fl->kind != ML_FAIL_NONE && fl->routine != 0xffff) {
        fprintf(o, "{\"routine\": ");
        json_str(o, routine(r, fl->routine));
        fprintf(o, ", \"site\": ");
        json_str(o, site(r, fl->site, b, sizeof b));
        fputc('}', o);
    } else {
        fprintf(o, "null");
    }
    fprintf(o, ",\n      \"backtrace\": [");
    unsigned nf = fl->kind == ML_FAIL_NONE ? 0 : fl->nframes > 32 ? 32 : fl->nframes, k = 0;
    for (unsigned i = 0; i < nf; i++) {
        uint64_t a = fl->frames[i];
        if (!a || runtime_frame(r->f, a)) continue;
        sym_addr(r->f, a, b, sizeof b);
        if (k++) fprintf(o, ", ");
        json_str(o, b);
    }
    fputc(']', o);
}

int diag_json(const char *dir, FILE *o, int whole)
{
    struct diag g;
    int loaded = diag_load(dir, &g) == 0;
    if (!loaded && whole) return -1;
    if (whole) {
        fprintf(o, "{\n  \"mpilens_report\": 1,\n  \"dir\": ");
        json_str(o, dir);
        fprintf(o, ",\n  \"mpi_impl\": ");
        json_str(o, g.rs[0].h->mpi_impl);
        fprintf(o, ", \"ranks\": %d, \"rank_files\": %u,\n", g.size, g.n);
        tool_deadlock_json(o, dir, g.single != NULL);
    }
    if (!loaded) {
        fprintf(o, "  \"failure_summary\": null,\n  \"failures\": [],\n  \"other_ranks\": [],\n");
        return -1;
    }
    const struct rk *rs = g.rs;
    const struct rk *f0 = g.first >= 0 ? &rs[g.first] : NULL;
    fprintf(o, "  \"failure_summary\": {\"failed\": %u, \"killed_after_first\": %u, \"vanished\": %u, "
               "\"first_rank\": ",
            g.nfailed - g.ncol, g.ncol, g.nvanished);
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
    if (g.size > 0 && !g.single) {
        char *have = calloc((size_t)g.size, 1);
        for (unsigned i = 0; have && i < g.n; i++)
            if (rs[i].rank >= 0 && rs[i].rank < g.size) have[rs[i].rank] = 1;
        for (int r = 0; have && r < g.size; r++)
            if (!have[r]) fprintf(o, "%s%d", k++ ? ", " : "", r);
        free(have);
    }
    fprintf(o, "],\n                      \"text\": ");
    j_text(o, t_summary, &g, 0);
    fprintf(o, "},\n  \"failures\": [");
    for (unsigned j = 0; j < g.no; j++) {
        int i = g.order[j];
        const struct rk *r = &rs[i];
        fprintf(o, "%s\n    {", j ? "," : "");
        j_rank_id(o, r);
        fprintf(o, ", \"first\": %s, \"killed_after_first\": %s, \"time_s\": ", i == g.first ? "true" : "false",
                r->collateral ? "true" : "false");
        if (r->t_fail == INT64_MAX) fprintf(o, "null");
        else fprintf(o, "%.6f", r->t_fail / 1e9);
        fprintf(o, ", \"time_is_last_activity\": %s, \"seen_gone_s\": ", r->t_after ? "true" : "false");
        if (r->stamped && r->t_gone != INT64_MAX) fprintf(o, "%.6f", r->t_gone / 1e9);
        else fprintf(o, "null");
        fprintf(o, ", \"after_finalize\": %s,\n      ", r->h->state == ML_STATE_FINALIZED ? "true" : "false");
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
        const struct rk *r = &rs[i];
        if (r->failed) continue;
        fprintf(o, "%s\n    {", k++ ? "," : "");
        j_rank_id(o, r);
        fprintf(o, ", \"status\": \"%s\", \"seen_gone_s\": ", other_status(r));
        if (r->stamped && r->t_gone != INT64_MAX) fprintf(o, "%.6f", r->t_gone / 1e9);
        else fprintf(o, "null");
        fprintf(o, ", \"went_on_after\": ");
        if (r->fl.kind != ML_FAIL_NONE && r->fl.kind != ML_FAIL_VANISHED) {
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
    int rc = g.nfailed || g.nvanished ? 1 : 0;
    diag_free(&g);
    return rc;
}

/* ---- for `mpilens run`: leftovers after the launcher ---------------------- */

/* Calls fn on every readable rank file of dir (or dir itself as one file). */
static int each_rank(const char *dir, void (*fn)(struct rk *, void *), void *arg)
{
    struct mlr_dir d;
    int err = mlr_dir_scan(dir, &d), n = 0;
    char *one = (char *)dir;
    char **files = &one;
    unsigned nf = 1;
    if (err == 0) {
        files = d.files;
        nf = d.n;
    } else if (err != MLR_EDIR) {
        return -1;
    }
    for (unsigned i = 0; i < nf; i++) {
        struct rk r;
        memset(&r, 0, sizeof r);
        if (mlr_open(files[i], &r.f) != 0) continue;
        r.h = mlr_header(r.f);
        r.rank = mlr_rank(r.f);
        load_failure(&r);
        fn(&r, arg);
        mlr_close(r.f);
        n++;
    }
    if (err == 0) mlr_dir_free(&d);
    return n;
}

struct status_acc {
    int failed, alive, sig, signalled;
};

static void status_one(struct rk *r, void *arg)
{
    struct status_acc *a = arg;
    if (r->fl.kind != ML_FAIL_NONE && !(r->fl.flags & ML_FAILF_SOFT)) a->failed++;
    if (r->h->state == ML_STATE_RUNNING && process_alive(r) == 1) {
        a->alive++;
        if (a->sig > 0 && kill((pid_t)r->h->pid, a->sig) == 0) a->signalled++;
    }
}

int diag_status(const char *dir, int *failed, int *alive)
{
    struct status_acc a = {0, 0, 0, 0};
    int n = each_rank(dir, status_one, &a);
    if (failed) *failed = a.failed;
    if (alive) *alive = a.alive;
    return n < 0 ? -1 : 0;
}

int diag_signal_leftovers(const char *dir, int sig)
{
    struct status_acc a = {0, 0, sig, 0};
    if (sig <= 0) return -1;
    int n = each_rank(dir, status_one, &a);
    return n < 0 ? -1 : a.signalled;
}

/* ---- for `mpilens run`: errors the program went on after ------------------ */

struct notes_acc {
    FILE *out;
    int n;
};

static void note_one(struct rk *r, void *arg)
{
    struct notes_acc *a = arg;
    const struct ml_failure *fl = &r->fl;
    char b[600];
    if (!(fl->flags & ML_FAILF_SOFT) || r->h->state == ML_STATE_RUNNING) return;
    if (fl->kind == ML_FAIL_MPI_ERROR) {
        int cl = (int)strcspn(fl->message, ":\n");
        fprintf(a->out, "mpilens: rank %d: %.*s returned to the program", r->rank, cl,
                fl->message[0] ? fl->message : "MPI error");
        if (fl->routine != 0xffff)
            fprintf(a->out, " by %s at %s", routine(r, fl->routine), site(r, fl->site, b, sizeof b));
        fprintf(a->out, " (it went on)\n");
        a->n++;
    } else if (fl->kind == ML_FAIL_SIGNAL && (fl->flags & ML_FAILF_HANDLER)) {
        const char *what;
        fprintf(a->out, "mpilens: rank %d: signal %s (%s) handled by the program's own handler, which returned",
                r->rank, sig_name(fl->signo), code_name(fl->signo, fl->code, &what));
        char w[600];
        const char *wf = where_frame(r, w, sizeof w);
        if (wf) fprintf(a->out, ", at %s", wf);
        fprintf(a->out, " (it went on)\n");
        a->n++;
    }
}

int diag_notes(const char *dir, FILE *out)
{
    struct notes_acc a = {out, 0};
    int n = each_rank(dir, note_one, &a);
    return n < 0 ? -1 : a.n;
}
