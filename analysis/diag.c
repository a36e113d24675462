/*
 * diag.c — the failure diagnosis of a run directory (diag.h): which ranks
 * failed, how (the failure record each runtime wrote: signal and its code,
 * exit status, MPI error, abort code, deadlock), where (the program's frame
 * in the backtrace; the MPI call and its call site) and when (ns since the
 * start of the run); which one failed first; which were killed from outside
 * after it; which vanished without a record (SIGKILL, the OOM killer, a lost
 * node); what the others were doing (their live slots).  Prints nothing:
 * tool/diag.c writes the model as text and JSON.
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

#include "diag.h"
#include "exchange.h"

/* The working state of one rank while the diagnosis is made. */
struct rk {
    struct mlr_file *f;
    const struct ml_header *h;
    struct ml_failure fl;     /* copy; kind NONE when there is none */
    int rank;
    int failed;               /* 1: counts as a failure of the job */
    int collateral;           /* killed from outside after another rank failed */
    int by_abort;             /* ... or ended by the MPI after the first one's MPI_Abort */
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
    int pid, state;           /* from the header (h is NULL where a slice sent the rank) */
};

/* The common time line of the diagnosis: each clock moved by its MPI_Init
 * offset to rank 0 (wrapping, never overflowing, on damaged files). */
static int64_t aligned_ns(const struct mlr_file *f, int64_t local_ns)
{
    const struct ml_header *h = mlr_header(f);
    if (h->sync_init.valid) return an_wadd(local_ns, h->sync_init.offset_ns);
    return local_ns;
}

static int64_t since(const struct mlr_file *f, uint64_t ticks, int64_t origin)
{
    return an_wsub(aligned_ns(f, mlr_ticks_to_ns(f, ticks)), origin);
}

static void sig_name(int s, char *buf, size_t n)
{
    static const char *nm[] = {"0", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
                               "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM",
                               "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN",
                               "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
                               "SIGIO", "SIGPWR", "SIGSYS"};
    if (s > 0 && s < (int)(sizeof nm / sizeof *nm)) snprintf(buf, n, "%s", nm[s]);
    else snprintf(buf, n, "signal %d", s);
}

/* si_code: its name into buf, and its meaning (Linux values). */
static const char *code_name(int sig, int code, char *buf, size_t n)
{
    const char *name = NULL, *what = "";
    switch (code) {
    case 0: what = "sent by kill()"; name = "SI_USER"; break;
    case 0x80: what = "sent by the kernel"; name = "SI_KERNEL"; break;
    case -1: what = "sent by sigqueue()"; name = "SI_QUEUE"; break;
    case -2: name = "SI_TIMER"; break;
    case -3: name = "SI_MESGQ"; break;
    case -4: name = "SI_ASYNCIO"; break;
    case -5: name = "SI_SIGIO"; break;
    case -6: what = "sent by tkill()/raise()"; name = "SI_TKILL"; break;
    }
    if (!name && sig == SIGSEGV) switch (code) {
        case 1: what = "address not mapped to object"; name = "SEGV_MAPERR"; break;
        case 2: what = "invalid permissions for mapped object"; name = "SEGV_ACCERR"; break;
        case 3: what = "failed address bound checks"; name = "SEGV_BNDERR"; break;
        case 4: what = "access denied by memory protection keys"; name = "SEGV_PKUERR"; break;
        }
    if (!name && sig == SIGBUS) switch (code) {
        case 1: what = "invalid address alignment"; name = "BUS_ADRALN"; break;
        case 2: what = "nonexistent physical address"; name = "BUS_ADRERR"; break;
        case 3: what = "object-specific hardware error"; name = "BUS_OBJERR"; break;
        case 4: what = "hardware memory error, action required"; name = "BUS_MCEERR_AR"; break;
        case 5: what = "hardware memory error, action optional"; name = "BUS_MCEERR_AO"; break;
        }
    if (!name && sig == SIGFPE) switch (code) {
        case 1: what = "integer divide by zero"; name = "FPE_INTDIV"; break;
        case 2: what = "integer overflow"; name = "FPE_INTOVF"; break;
        case 3: what = "floating-point divide by zero"; name = "FPE_FLTDIV"; break;
        case 4: what = "floating-point overflow"; name = "FPE_FLTOVF"; break;
        case 5: what = "floating-point underflow"; name = "FPE_FLTUND"; break;
        case 6: what = "floating-point inexact result"; name = "FPE_FLTRES"; break;
        case 7: what = "floating-point invalid operation"; name = "FPE_FLTINV"; break;
        case 8: what = "subscript out of range"; name = "FPE_FLTSUB"; break;
        }
    if (!name && sig == SIGILL) switch (code) {
        case 1: what = "illegal opcode"; name = "ILL_ILLOPC"; break;
        case 2: what = "illegal operand"; name = "ILL_ILLOPN"; break;
        case 3: what = "illegal addressing mode"; name = "ILL_ILLADR"; break;
        case 4: what = "illegal trap"; name = "ILL_ILLTRP"; break;
        case 5: what = "privileged opcode"; name = "ILL_PRVOPC"; break;
        case 6: what = "privileged register"; name = "ILL_PRVREG"; break;
        case 7: what = "coprocessor error"; name = "ILL_COPROC"; break;
        case 8: what = "internal stack error"; name = "ILL_BADSTK"; break;
        }
    if (name) snprintf(buf, n, "%s", name);
    else snprintf(buf, n, "code %d", code);
    return what;
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

static const char *name_addr(an_addr_namer addr, const struct mlr_file *f, uint64_t a, char *buf, size_t n)
{
    if (addr) return addr(f, a, buf, n);
    snprintf(buf, n, "0x%" PRIx64, a);
    return buf;
}

static const char *name_site(an_site_namer site, const struct mlr_file *f, uint32_t s, char *buf, size_t n)
{
    if (site) return site(f, s, buf, n);
    snprintf(buf, n, "?");
    return buf;
}

/* The innermost frame in the program's own code with file:line, else in
 * its code at all (function+offset), else the innermost with file:line
 * anywhere, or NULL. */
static const char *where_frame(const struct rk *r, an_addr_namer addr, char *buf, size_t n)
{
    unsigned nf = r->fl.nframes > 32 ? 32 : r->fl.nframes;
    for (int pass = 0; pass < 3; pass++)
        for (unsigned i = 0; i < nf; i++) {
            uint64_t a = r->fl.frames[i];
            if (!a || runtime_frame(r->f, a) || (pass < 2 && system_frame(r->f, a))) continue;
            if (pass == 1 && !module_of(r->f, a)) continue;
            name_addr(addr, r->f, a, buf, n);
            if (pass == 1 || has_line(buf)) return buf;
        }
    return NULL;
}

/* The last moment the live slots show the process doing something (a call
 * starting or ending), and whether a thread was inside an MPI call. */
static void last_activity(struct rk *r, int64_t origin)
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
    r->t_last = last ? since(r->f, last, origin) : INT64_MIN;
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
        (an_wsub(a->t_gone, b->t_gone) > VANISH_TIE_NS || an_wsub(b->t_gone, a->t_gone) > VANISH_TIE_NS))
        return a->t_gone < b->t_gone;
    if (a->in_mpi != b->in_mpi) return !a->in_mpi;
    if (a->t_last != b->t_last) return a->t_last < b->t_last;
    return a->rank < b->rank;
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

static int is_external_kill(const struct rk *r)
{
    const struct ml_failure *fl = &r->fl;
    return fl->kind == ML_FAIL_SIGNAL && (fl->flags & ML_FAILF_SENDER) && (int64_t)fl->addr != r->pid &&
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

static int by_rank(const void *a, const void *b)
{
    return sort_rs[*(const int *)a].rank - sort_rs[*(const int *)b].rank;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* ---- the diagnosis ------------------------------------------------------- */

/* How rank r ended, from its own file alone: failed, vanished, when. */
static void classify_rank(struct rk *r, int64_t origin)
{
    r->t_fail = INT64_MAX;
    int st = r->state;
    r->alive = st == ML_STATE_RUNNING ? process_alive(r) : 0;
    last_activity(r, origin);
    if (r->fl.kind == ML_FAIL_VANISHED) {
        /* written by mpilens run: the process ended without a record */
        r->vanished = 1;
        r->stamped = 1;
        r->look = (uint32_t)r->fl.code;
        r->t_gone = r->fl.ticks ? since(r->f, r->fl.ticks, origin) : INT64_MAX;
    } else if (r->fl.kind != ML_FAIL_NONE) {
        int soft = (r->fl.flags & ML_FAILF_SOFT) != 0;
        /* a soft record counts when the process did not get to
         * MPI_Finalize and is gone */
        r->failed = !soft || (st != ML_STATE_FINALIZED && r->alive != 1);
        if (r->failed && r->fl.ticks) r->t_fail = since(r->f, r->fl.ticks, origin);
    } else if (st == ML_STATE_EXITED) {
        r->failed = 1;                /* left without MPI_Finalize, no record */
    } else if (st == ML_STATE_RUNNING && r->alive == 0) {
        r->vanished = 1;
    }
    if (!r->stamped) r->t_gone = INT64_MAX;
}

/* Which ranks failed, which first, which were killed after it: from the
 * ranks' own verdicts (classify_rank), without their files. */
static void classify_job(struct rk *rs, unsigned n, struct an_diag *d)
{
    unsigned nfailed = 0, nvanished = 0;
    for (unsigned i = 0; i < n; i++) {
        nfailed += rs[i].failed;
        nvanished += rs[i].vanished;
    }
    /* the first failure: the earliest one not caused from outside (a stop
     * by the deadlock detector is caused from outside too: a rank that
     * vanished before it, SIGKILLed, is what the others waited for) */
    int first = -1;
    for (unsigned i = 0; i < n; i++) {
        struct rk *r = &rs[i];
        if (!r->failed || r->t_fail == INT64_MAX || is_external_kill(r) || r->fl.kind == ML_FAIL_DEADLOCK) continue;
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
            if (rs[i].failed && (is_external_kill(&rs[i]) || rs[i].fl.kind == ML_FAIL_DEADLOCK) &&
                rs[i].t_fail < t_ext)
                t_ext = rs[i].t_fail;
        int best = -1;
        for (unsigned i = 0; i < n; i++) {
            struct rk *r = &rs[i];
            if (!r->vanished) continue;
            /* seen gone after mpilens run was told to stop the job: gone in
             * that stop (MPICH's mpiexec SIGKILLs the ranks left when the
             * first one dies of the stop's SIGTERM, often before their
             * handler ran), not the cause of it */
            if (r->stamped && (r->fl.flags & ML_FAILF_STOPPING)) continue;
            if (t_ext != INT64_MAX && r->t_last != INT64_MIN && r->t_last > t_ext) continue;
            if (t_ext != INT64_MAX && r->stamped && r->t_gone != INT64_MAX &&
                r->t_gone > an_sadd(t_ext, VANISH_SLACK_NS))
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
    d->first = first;
    d->outside = first >= 0 && is_external_kill(&rs[first]);  /* nothing failed by itself */
    for (unsigned i = 0; i < n; i++)
        if (rs[i].failed && (int)i != first && is_external_kill(&rs[i]) && first >= 0 && !d->outside)
            rs[i].collateral = 1;
    /* MPICH ends the other members of the communicator given to MPI_Abort
     * with exit(code) from inside the MPI call they were in (Open MPI kills
     * them from outside): an exit with the abort's code, in MPI, after it,
     * is the MPI ending that rank, not a failure of its own */
    if (first >= 0 && !d->outside && rs[first].fl.kind == ML_FAIL_ABORT)
        for (unsigned i = 0; i < n; i++) {
            struct rk *r = &rs[i];
            if (!r->failed || (int)i == first || r->collateral || r->fl.kind != ML_FAIL_EXIT ||
                r->fl.routine == 0xffff || r->fl.code != rs[first].fl.code || r->t_fail == INT64_MAX ||
                rs[first].t_fail == INT64_MAX || r->t_fail < rs[first].t_fail)
                continue;
            r->collateral = 1;
            r->by_abort = 1;
        }
    d->nfailed = nfailed;
    d->nvanished = nvanished;
    for (unsigned i = 0; i < n; i++) {
        d->ncollateral += rs[i].collateral;
        d->nby_abort += rs[i].by_abort;
        d->nexternal += rs[i].failed && is_external_kill(&rs[i]);
    }
    /* every failure a stop by the deadlock detector: stopped together,
     * none first (their times differ by the order the stop went through
     * the ranks) */
    unsigned ndl = 0;
    for (unsigned i = 0; i < n; i++) ndl += rs[i].failed && rs[i].fl.kind == ML_FAIL_DEADLOCK;
    if (nfailed && ndl == nfailed) {
        d->all_deadlocked = 1;
        first = d->first = -1;
    }
    /* failed ranks: the first one, then by time (all deadlocked: by rank) */
    d->order = malloc(sizeof(int) * (n ? n : 1));
    if (d->order) {
        if (first >= 0) d->order[d->norder++] = first;
        for (unsigned i = 0; i < n; i++)
            if (rs[i].failed && (int)i != first) d->order[d->norder++] = (int)i;
        sort_rs = rs;
        if (d->norder > 1)
            qsort(d->order + (first >= 0), d->norder - (first >= 0), sizeof *d->order,
                  d->all_deadlocked ? by_rank : by_time);
    }
}

/* The record of r and what it names; -1 when out of memory. */
static int fill_record(const struct rk *r, an_site_namer site, an_addr_namer addr, struct an_diag_record *o)
{
    const struct ml_failure *fl = &r->fl;
    char b[600];
    memcpy(&o->fl, fl, sizeof o->fl);
    o->external_kill = is_external_kill(r);
    if (fl->kind == ML_FAIL_NONE || fl->kind == ML_FAIL_VANISHED) return 0;   /* nothing it names */
    if (fl->kind == ML_FAIL_SIGNAL) {
        sig_name(fl->signo, o->signal_name, sizeof o->signal_name);
        o->code_text = code_name(fl->signo, fl->code, o->code_name, sizeof o->code_name);
    } else {
        o->code_text = "";
    }
    o->routine = mlr_routine_name(r->f, fl->routine);
    o->site = strdup(name_site(site, r->f, fl->site, b, sizeof b));
    if (!o->site) return -1;
    const char *w = where_frame(r, addr, b, sizeof b);
    if (w && !(o->where = strdup(w))) return -1;
    unsigned nf = fl->nframes > 32 ? 32 : fl->nframes;
    o->frames = calloc(nf ? nf : 1, sizeof *o->frames);
    if (!o->frames) return -1;
    for (unsigned i = 0; i < nf; i++) {
        uint64_t a = fl->frames[i];
        if (!a || runtime_frame(r->f, a)) continue;
        if (!(o->frames[o->nframes] = strdup(name_addr(addr, r->f, a, b, sizeof b)))) return -1;
        o->nframes++;
    }
    return 0;
}

/* What each thread was doing, from the live slots; -1 when out of memory. */
static int fill_threads(const struct rk *r, int64_t origin, an_site_namer site, struct an_diag_rank *o)
{
    unsigned nt = mlr_nthreads(r->f);
    char b[600];
    o->nslots = nt;
    o->threads = calloc(nt ? nt : 1, sizeof *o->threads);
    if (!o->threads) return -1;
    for (unsigned i = 0; i < nt; i++) {
        struct ml_live l;
        if (mlr_live(r->f, i, &l) != 0 || !l.used) continue;
        struct an_diag_thread *t = &o->threads[o->nthreads];
        if (!(t->site = strdup(name_site(site, r->f, l.site, b, sizeof b)))) return -1;
        o->nthreads++;
        t->slot = i;
        t->tid = l.tid;
        t->doing = l.t_start > l.t_end ? AN_DIAG_IN_MPI : l.t_end ? AN_DIAG_COMPUTING : AN_DIAG_FIRST_CALL;
        t->routine = mlr_routine_name(r->f, l.routine);
        t->has_start = l.t_start != 0;
        t->has_end = l.t_end != 0;
        if (t->has_start) t->start = since(r->f, l.t_start, origin);
        if (t->has_end) t->end = since(r->f, l.t_end, origin);
    }
    return 0;
}

static void record_free(struct an_diag_record *o, int owned)
{
    if (owned) {
        free(o->site);
        free(o->where);
        for (unsigned i = 0; i < o->nframes; i++) free(o->frames[i]);
    }
    free(o->frames);
}

void an_diag_free(struct an_diag *d)
{
    int owned = !d->blob;             /* strings point into the blob of a sliced diagnosis */
    for (unsigned i = 0; i < d->n; i++) {
        struct an_diag_rank *r = &d->ranks[i];
        record_free(&r->rec, owned);
        for (unsigned k = 0; owned && k < r->nthreads; k++) free(r->threads[k].site);
        free(r->threads);
        if (d->files) mlr_close(d->files[i]);
    }
    free(d->ranks);
    free(d->files);
    for (unsigned i = 0; i < d->nskipped; i++) free(d->skipped[i]);
    free(d->skipped);
    free(d->skipped_rank);
    free(d->order);
    free(d->nofile);
    free(d->verdict);
    free(d->blob);
    memset(d, 0, sizeof *d);
}

/* Opens path as r: 0, or the reader's error. */
static int rk_open(struct rk *r, const char *path)
{
    memset(r, 0, sizeof *r);
    int e = mlr_open(path, &r->f);
    if (e) return e;
    r->h = mlr_header(r->f);
    r->rank = mlr_rank(r->f);
    r->pid = (int)r->h->pid;
    r->state = r->h->state;
    load_failure(r);
    return 0;
}

/* line ("FILE: why; skipped", malloc'd) and the rank the file's name says
 * (rank-N.mlt, else -1) added to the files that could not be read. */
static void skip_push(struct an_diag *d, char *line, int rk)
{
    char **p = line ? realloc(d->skipped, (d->nskipped + 1) * sizeof *p) : NULL;
    int *sr = p ? realloc(d->skipped_rank, (d->nskipped + 1) * sizeof *sr) : NULL;
    if (p) d->skipped = p;
    if (sr) d->skipped_rank = sr;
    if (!p || !sr) {
        free(line);
        return;
    }
    p[d->nskipped] = line;
    sr[d->nskipped++] = rk;
}

static void skip_add(struct an_diag *d, const char *path, const char *why, int rk)
{
    size_t l = strlen(path) + strlen(why) + 16;
    char *line = malloc(l);
    if (line) snprintf(line, l, "%s: %s; skipped", path, why);
    skip_push(d, line, rk);
}

static int name_rank(const char *path)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int rk = -1;
    return sscanf(base, "rank-%d.mlt", &rk) == 1 ? rk : -1;
}

/* What rank r's own file says (classify_rank done), its names resolved;
 * -1 when out of memory. */
static int rank_fill(const struct rk *r, int64_t origin, an_site_namer site, an_addr_namer addr,
                     struct an_diag_rank *o)
{
    o->rank = r->rank;
    o->pid = r->pid;
    o->host = mlr_host(r->f);
    o->state = r->state;
    o->exit_status = r->h->exit_status;
    o->stamped = r->stamped;
    o->t_gone = r->t_gone;
    o->alive = r->alive;
    return fill_record(r, site, addr, &o->rec) != 0 || fill_threads(r, origin, site, o) != 0 ? -1 : 0;
}

/* How rank r ended in the job (classify_job done), counted in d. */
static void rank_judge(const struct rk *r, struct an_diag_rank *o, struct an_diag *d)
{
    o->end = r->failed                       ? AN_DIAG_FAILED
             : r->vanished                   ? AN_DIAG_VANISHED
             : r->state == ML_STATE_FINALIZED ? AN_DIAG_FINALIZED
             : r->alive == 1                 ? AN_DIAG_RUNNING
                                             : AN_DIAG_UNKNOWN;
    o->collateral = r->collateral;
    o->by_abort = r->by_abort;
    o->vfirst = r->vfirst;
    o->t_fail = r->t_fail;
    o->t_after = r->t_after;
    d->nfinalized += r->state == ML_STATE_FINALIZED;
    d->nrunning += r->state == ML_STATE_RUNNING;
    /* a non-zero exit status after MPI_Finalize (an uncaught Python
     * exception under mpi4py, exit(1) after the end of MPI) */
    if (r->state == ML_STATE_FINALIZED && o->exit_status != 0 && d->nbad_exit++ == 0) {
        d->bad_rank = r->rank;
        d->bad_status = o->exit_status;
    }
}

/* World ranks without a file: the gaps between those with one; -1 when
 * out of memory. */
static int find_nofile(struct an_diag *d)
{
    unsigned n = d->n;
    int *have = malloc(sizeof(int) * (n ? n : 1));
    unsigned nh = 0;
    for (unsigned i = 0; have && i < n; i++)
        if (d->ranks[i].rank >= 0 && d->ranks[i].rank < d->size) have[nh++] = d->ranks[i].rank;
    if (have) qsort(have, nh, sizeof *have, int_cmp);
    d->nofile = have ? malloc(sizeof *d->nofile * (nh + 1)) : NULL;
    int next = 0;                     /* the lowest rank not yet accounted for */
    for (unsigned i = 0; d->nofile && i <= nh; i++) {
        int upto = i < nh ? have[i] : d->size;
        if (upto > next) d->nofile[d->nnofile++] = (struct an_diag_span){next, upto - 1};
        if (i < nh && have[i] + 1 > next) next = have[i] + 1;
    }
    free(have);
    return d->nofile ? 0 : -1;
}

int an_diag_load(const char *dir, an_site_namer site, an_addr_namer addr, struct an_diag *d)
{
    memset(d, 0, sizeof *d);
    d->first = -1;
    d->bad_rank = -1;
    struct mlr_dir md;
    int err = mlr_dir_scan(dir, &md);
    char *one = (char *)dir;
    char **files;
    unsigned nfiles;
    if (err == MLR_EDIR) {            /* one rank file */
        d->single = 1;
        files = &one;
        nfiles = 1;
    } else if (err) {
        return -1;                    /* the caller says what is wrong */
    } else {
        files = md.files;
        nfiles = md.n;
    }
    struct rk *rs = calloc(nfiles ? nfiles : 1, sizeof *rs);
    unsigned n = 0;
    int64_t origin = INT64_MAX;
    for (unsigned i = 0; rs && i < nfiles; i++) {
        int e = rk_open(&rs[n], files[i]);
        if (e) {
            if (!d->single) skip_add(d, files[i], mlr_strerror(e), name_rank(files[i]));
            continue;
        }
        struct rk *r = &rs[n++];
        if (r->h->size > d->size) d->size = r->h->size;
        int64_t o = aligned_ns(r->f, r->h->anchor0_ns);
        if (o < origin) origin = o;
    }
    if (err == 0) mlr_dir_free(&md);
    d->files = calloc(n ? n : 1, sizeof *d->files);
    d->ranks = calloc(n ? n : 1, sizeof *d->ranks);
    if (!rs || n == 0 || !d->files || !d->ranks) {
        for (unsigned i = 0; i < n; i++) mlr_close(rs[i].f);
        free(rs);
        an_diag_free(d);
        return -1;
    }
    d->n = n;
    for (unsigned i = 0; i < n; i++) d->files[i] = rs[i].f;
    for (unsigned i = 0; i < n; i++) classify_rank(&rs[i], origin);
    classify_job(rs, n, d);
    int oom = !d->order;
    for (unsigned i = 0; i < n; i++) {
        if (rank_fill(&rs[i], origin, site, addr, &d->ranks[i])) oom = 1;
        rank_judge(&rs[i], &d->ranks[i], d);
    }
    snprintf(d->mpi_impl, sizeof d->mpi_impl, "%.*s", (int)sizeof rs[0].h->mpi_impl, rs[0].h->mpi_impl);
    if (d->size > 0 && !d->single && find_nofile(d)) oom = 1;
    free(rs);
    if (oom) {
        an_diag_free(d);
        return -1;
    }
    /* the live monitor's verdict (mpilens top), when it found a deadlock */
    if (!d->single) d->verdict = an_deadlock_verdict(dir, d->verdict_when, sizeof d->verdict_when);
    return 0;
}

/* ---- in slices: each process its own files, process 0 the job ---------- */

/* what a process sends process 0: an an_buf */
static void put(struct an_buf *b, const void *v, size_t len) { an_buf_put(b, v, len); }

static void put_str(struct an_buf *b, const char *s)   /* a flag byte, then s and its NUL */
{
    uint8_t has = s != NULL;
    put(b, &has, 1);
    if (s) put(b, s, strlen(s) + 1);
}

struct rbuf {
    char *p, *end;
    int bad;
};

static void get(struct rbuf *b, void *v, size_t len)
{
    if (b->bad || (size_t)(b->end - b->p) < len) {
        b->bad = 1;
        memset(v, 0, len);
        return;
    }
    memcpy(v, b->p, len);
    b->p += len;
}

static char *get_str(struct rbuf *b)   /* points into the buffer */
{
    uint8_t has = 0;
    get(b, &has, 1);
    if (!has || b->bad) return NULL;
    char *s = b->p, *z = memchr(s, 0, (size_t)(b->end - s));
    if (!z) {
        b->bad = 1;
        return NULL;
    }
    b->p = z + 1;
    return s;
}

struct wrank {                        /* a rank's verdict and what it names, fixed part */
    int32_t rank, pid, state, exit_status, alive, stamped, failed, vanished, in_mpi, external_kill;
    uint32_t look, nslots, nthreads, nframes, hasfl;
    int64_t t_fail, t_gone, t_last;
    char signal_name[24], code_name[24];
};

struct wthread {
    uint64_t tid;
    int64_t start, end;
    uint32_t slot, doing, has_start, has_end;
};

static void pack_rank(struct an_buf *b, const struct rk *r, const struct an_diag_rank *o)
{
    static const struct ml_failure zero;
    struct wrank w;
    memset(&w, 0, sizeof w);
    w.rank = r->rank;
    w.pid = r->pid;
    w.state = r->state;
    w.exit_status = o->exit_status;
    w.alive = r->alive;
    w.stamped = r->stamped;
    w.failed = r->failed;
    w.vanished = r->vanished;
    w.in_mpi = r->in_mpi;
    w.external_kill = o->rec.external_kill;
    w.look = r->look;
    w.nslots = o->nslots;
    w.nthreads = o->nthreads;
    w.nframes = o->rec.nframes;
    w.hasfl = memcmp(&r->fl, &zero, sizeof zero) != 0;   /* most ranks have none */
    w.t_fail = r->t_fail;
    w.t_gone = r->t_gone;
    w.t_last = r->t_last;
    memcpy(w.signal_name, o->rec.signal_name, sizeof w.signal_name);
    memcpy(w.code_name, o->rec.code_name, sizeof w.code_name);
    put(b, &w, sizeof w);
    if (w.hasfl) put(b, &r->fl, sizeof r->fl);
    put_str(b, o->host);
    put_str(b, o->rec.routine);
    put_str(b, o->rec.site);
    put_str(b, o->rec.where);
    put_str(b, o->rec.code_text);
    for (unsigned i = 0; i < o->rec.nframes; i++) put_str(b, o->rec.frames[i]);
    for (unsigned i = 0; i < o->nthreads; i++) {
        const struct an_diag_thread *t = &o->threads[i];
        struct wthread wt = {t->tid, t->start, t->end, t->slot, (uint32_t)t->doing, (uint32_t)t->has_start,
                             (uint32_t)t->has_end};
        put(b, &wt, sizeof wt);
        put_str(b, t->routine);
        put_str(b, t->site);
    }
}

/* The inverse of pack_rank; -1 when the block is bad or out of memory. */
static int unpack_rank(struct rbuf *b, struct rk *r, struct an_diag_rank *o)
{
    struct wrank w;
    get(b, &w, sizeof w);
    if (b->bad || w.nframes > 32 || w.nthreads > w.nslots || w.nthreads > (size_t)(b->end - b->p)) return -1;
    memset(r, 0, sizeof *r);
    r->rank = o->rank = w.rank;
    r->pid = o->pid = w.pid;
    r->state = o->state = w.state;
    o->exit_status = w.exit_status;
    r->alive = o->alive = w.alive;
    r->stamped = o->stamped = w.stamped;
    r->failed = w.failed;
    r->vanished = w.vanished;
    r->in_mpi = w.in_mpi;
    r->look = w.look;
    r->t_fail = w.t_fail;
    r->t_gone = o->t_gone = w.t_gone;
    r->t_last = w.t_last;
    if (w.hasfl) get(b, &r->fl, sizeof r->fl);
    memcpy(&o->rec.fl, &r->fl, sizeof r->fl);
    o->rec.external_kill = w.external_kill;
    memcpy(o->rec.signal_name, w.signal_name, sizeof w.signal_name);
    memcpy(o->rec.code_name, w.code_name, sizeof w.code_name);
    o->rec.signal_name[sizeof o->rec.signal_name - 1] = 0;
    o->rec.code_name[sizeof o->rec.code_name - 1] = 0;
    o->host = get_str(b);
    o->rec.routine = get_str(b);
    o->rec.site = get_str(b);
    o->rec.where = get_str(b);
    o->rec.code_text = get_str(b);
    if (!o->host) o->host = "";
    if (w.nframes && !(o->rec.frames = calloc(w.nframes, sizeof *o->rec.frames))) return -1;
    o->rec.nframes = w.nframes;
    for (unsigned i = 0; i < w.nframes; i++)
        if (!(o->rec.frames[i] = get_str(b))) o->rec.frames[i] = "";
    o->nslots = w.nslots;
    o->threads = calloc(w.nthreads ? w.nthreads : 1, sizeof *o->threads);
    if (!o->threads) return -1;
    o->nthreads = w.nthreads;
    for (unsigned i = 0; i < w.nthreads; i++) {
        struct an_diag_thread *t = &o->threads[i];
        struct wthread wt;
        get(b, &wt, sizeof wt);
        t->tid = wt.tid;
        t->start = wt.start;
        t->end = wt.end;
        t->slot = wt.slot;
        t->doing = (enum an_diag_doing)wt.doing;
        t->has_start = (int)wt.has_start;
        t->has_end = (int)wt.has_end;
        t->routine = get_str(b);
        t->site = get_str(b);
        if (!t->routine) t->routine = "";
        if (!t->site) t->site = "";
    }
    return b->bad ? -1 : 0;
}

int an_diag_load_slice(const struct an_run *run, an_site_namer site, an_addr_namer addr, struct an_diag *d)
{
    const struct an_slice *sl = run->slice;
    struct an_xch *x = sl->x;
    int P = x->size;
    memset(d, 0, sizeof *d);
    d->first = -1;
    d->bad_rank = -1;
    d->single = sl->single;
    /* this process's files, as an_diag_load opens them */
    struct rk *rs = calloc(sl->nfiles + 1, sizeof *rs);
    if (!rs) x->fail(x, "mpilens report: out of memory");
    unsigned n = 0;
    int64_t v[2] = {INT64_MAX, 0};    /* the origin, the world size */
    for (unsigned i = 0; i < sl->nfiles; i++) {
        int e = rk_open(&rs[n], sl->files[i]);
        if (e) {
            if (!d->single) skip_add(d, sl->files[i], mlr_strerror(e), name_rank(sl->files[i]));
            continue;
        }
        struct rk *r = &rs[n++];
        if (r->h->size > v[1]) v[1] = r->h->size;
        int64_t o = aligned_ns(r->f, r->h->anchor0_ns);
        if (o < v[0]) v[0] = o;
    }
    x->reduce_i64(x, v, 1, AN_XCH_MIN);
    x->reduce_i64(x, v + 1, 1, AN_XCH_MAX);
    int64_t origin = v[0];
    d->size = (int)v[1];
    /* each rank judged and named here, sent to process 0 */
    struct an_buf b = {0};
    uint32_t hd[2] = {n, d->nskipped};
    char impl[33] = "";
    if (n) snprintf(impl, sizeof impl, "%.*s", (int)sizeof rs[0].h->mpi_impl, rs[0].h->mpi_impl);
    put(&b, hd, sizeof hd);
    put(&b, impl, sizeof impl);
    for (unsigned i = 0; i < d->nskipped; i++) {
        int32_t k = d->skipped_rank[i];
        put(&b, &k, sizeof k);
        put_str(&b, d->skipped[i]);
    }
    for (unsigned i = 0; i < n; i++) {
        struct an_diag_rank o;
        memset(&o, 0, sizeof o);
        classify_rank(&rs[i], origin);
        if (rank_fill(&rs[i], origin, site, addr, &o)) b.oom = 1;
        pack_rank(&b, &rs[i], &o);
        record_free(&o.rec, 1);
        for (unsigned k = 0; k < o.nthreads; k++) free(o.threads[k].site);
        free(o.threads);
        mlr_close(rs[i].f);
    }
    an_diag_free(d);
    free(rs);
    if (b.oom) x->fail(x, "mpilens report: out of memory");
    void *all = NULL;
    size_t *lens = calloc((size_t)P, sizeof *lens);
    if (!lens || x->gather(x, b.p, b.n, &all, lens)) x->fail(x, "mpilens report: the exchange failed");
    free(b.p);
    if (x->rank != 0) {
        free(lens);
        return 1;
    }

    /* process 0: the job from every process's ranks, in file order */
    d->first = -1;
    d->bad_rank = -1;
    d->single = sl->single;
    d->size = (int)v[1];
    d->blob = all;
    unsigned total = 0;
    int bad = 0;
    char *q = all;
    for (int p = 0; p < P; p++) {     /* the ranks in all, to size the arrays */
        uint32_t h2[2] = {0, 0};
        if (lens[p] >= sizeof h2) memcpy(h2, q, sizeof h2);
        else bad = 1;
        total += h2[0];
        q += lens[p];
    }
    rs = calloc(total + 1, sizeof *rs);
    d->ranks = calloc(total + 1, sizeof *d->ranks);
    if (!rs || !d->ranks) x->fail(x, "mpilens report: out of memory");
    q = all;
    for (int p = 0; p < P && !bad; p++) {
        struct rbuf rb = {q, q + lens[p], 0};
        uint32_t h2[2];
        char im[33];
        get(&rb, h2, sizeof h2);
        get(&rb, im, sizeof im);
        im[32] = 0;
        if (h2[0] && d->n == 0) snprintf(d->mpi_impl, sizeof d->mpi_impl, "%s", im);
        for (uint32_t i = 0; i < h2[1] && !rb.bad; i++) {
            int32_t k;
            get(&rb, &k, sizeof k);
            const char *s = get_str(&rb);
            if (s) skip_push(d, strdup(s), k);
        }
        for (uint32_t i = 0; i < h2[0] && !bad; i++) {
            if (d->n >= total || unpack_rank(&rb, &rs[d->n], &d->ranks[d->n])) bad = 1;
            else d->n++;
        }
        if (rb.bad || rb.p != rb.end) bad = 1;
        q += lens[p];
    }
    free(lens);
    if (bad) x->fail(x, "mpilens report: the processes of the analysis disagree (bad exchange)");
    if (d->n == 0) {
        free(rs);
        an_diag_free(d);
        return -1;
    }
    classify_job(rs, d->n, d);
    int oom = !d->order;
    for (unsigned i = 0; i < d->n; i++) rank_judge(&rs[i], &d->ranks[i], d);
    if (d->size > 0 && !d->single && find_nofile(d)) oom = 1;
    free(rs);
    if (oom) x->fail(x, "mpilens report: out of memory");
    if (!d->single) d->verdict = an_deadlock_verdict(run->dir, d->verdict_when, sizeof d->verdict_when);
    return 0;
}
/* ---- for `mpilens run`: the ranks still alive ---------------------------- */

int an_diag_status(const char *dir, int *failed, int **pids, unsigned *npids)
{
    struct mlr_dir md;
    int err = mlr_dir_scan(dir, &md);
    char *one = (char *)dir;
    char **files = &one;
    unsigned nf = 1;
    *failed = 0;
    *pids = NULL;
    *npids = 0;
    if (err == 0) {
        files = md.files;
        nf = md.n;
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
        if (r.fl.kind != ML_FAIL_NONE && !(r.fl.flags & ML_FAILF_SOFT)) (*failed)++;
        if (r.h->state == ML_STATE_RUNNING && process_alive(&r) == 1) {
            int *p = realloc(*pids, (*npids + 1) * sizeof *p);
            if (p) {
                *pids = p;
                p[(*npids)++] = (int)r.h->pid;
            }
        }
        mlr_close(r.f);
    }
    if (err == 0) mlr_dir_free(&md);
    return 0;
}

/* ---- the live monitor's verdict ------------------------------------------ */

/* DIR/deadlock.txt, written by the live monitor (live/live.c write_verdict):
 * a first line "mpilens deadlock verdict for DIR at TIME", then the verdict.
 * The file is untrusted like any input: at most 64 KiB are read, and bytes
 * other than printable ASCII, UTF-8, tab and newline become '?'. */
char *an_deadlock_verdict(const char *dir, char *when, size_t when_len)
{
    char path[4096];
    if (when_len) when[0] = 0;
    if (snprintf(path, sizeof path, "%s/deadlock.txt", dir) >= (int)sizeof path) return NULL;
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    enum { MAX = 64 * 1024 };
    char *buf = malloc(MAX + 2);
    size_t n = buf ? fread(buf, 1, MAX, f) : 0;
    fclose(f);
    if (!buf) return NULL;
    if (n == 0) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == 0 || (c < 32 && c != '\n' && c != '\t') || c == 127) buf[i] = '?';
    }
    char *body = buf;
    static const char head[] = "mpilens deadlock verdict for ";
    if (strncmp(buf, head, sizeof head - 1) == 0) {
        char *nl = strchr(buf, '\n');
        char *end = nl ? nl : buf + n;
        /* the time stamp: after the last " at " of the first line */
        char *at = NULL;
        for (char *p = buf; p + 4 <= end; p++)
            if (memcmp(p, " at ", 4) == 0) at = p + 4;
        if (at && when_len) {
            size_t l = (size_t)(end - at);
            if (l >= when_len) l = when_len - 1;
            memcpy(when, at, l);
            when[l] = 0;
        }
        body = nl ? nl + 1 : buf + n;
    }
    size_t bl = strlen(body);
    while (bl && (body[bl - 1] == '\n' || body[bl - 1] == ' ')) body[--bl] = 0;
    if (bl == 0) {
        free(buf);
        return NULL;
    }
    memmove(buf, body, bl + 1);
    return buf;
}
