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

/* The working state of one rank while the diagnosis is made. */
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

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* ---- the diagnosis ------------------------------------------------------- */

/* Which ranks failed, which first, which were killed after it. */
static void classify(struct rk *rs, unsigned n, int64_t origin, struct an_diag *d)
{
    unsigned nfailed = 0, nvanished = 0;
    for (unsigned i = 0; i < n; i++) {
        struct rk *r = &rs[i];
        r->t_fail = INT64_MAX;
        int st = r->h->state;
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
            r->failed = 1;            /* left without MPI_Finalize, no record */
        } else if (st == ML_STATE_RUNNING && r->alive == 0) {
            r->vanished = 1;
        }
        if (!r->stamped) r->t_gone = INT64_MAX;
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
    d->nfailed = nfailed;
    d->nvanished = nvanished;
    for (unsigned i = 0; i < n; i++) {
        d->ncollateral += rs[i].collateral;
        d->nexternal += rs[i].failed && is_external_kill(&rs[i]);
    }
    /* failed ranks: the first one, then by time */
    d->order = malloc(sizeof(int) * (n ? n : 1));
    if (d->order) {
        if (first >= 0) d->order[d->norder++] = first;
        for (unsigned i = 0; i < n; i++)
            if (rs[i].failed && (int)i != first) d->order[d->norder++] = (int)i;
        sort_rs = rs;
        if (d->norder > 1) qsort(d->order + (first >= 0), d->norder - (first >= 0), sizeof *d->order, by_time);
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

static void record_free(struct an_diag_record *o)
{
    free(o->site);
    free(o->where);
    for (unsigned i = 0; i < o->nframes; i++) free(o->frames[i]);
    free(o->frames);
}

void an_diag_free(struct an_diag *d)
{
    for (unsigned i = 0; i < d->n; i++) {
        struct an_diag_rank *r = &d->ranks[i];
        record_free(&r->rec);
        for (unsigned k = 0; k < r->nthreads; k++) free(r->threads[k].site);
        free(r->threads);
        mlr_close(d->files[i]);
    }
    free(d->ranks);
    free(d->files);
    for (unsigned i = 0; i < d->nskipped; i++) free(d->skipped[i]);
    free(d->skipped);
    free(d->skipped_rank);
    free(d->order);
    free(d->nofile);
    free(d->verdict);
    memset(d, 0, sizeof *d);
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
        struct mlr_file *f;
        int e = mlr_open(files[i], &f);
        if (e) {
            if (d->single) continue;
            char **p = realloc(d->skipped, (d->nskipped + 1) * sizeof *p);
            if (!p) continue;
            d->skipped = p;
            int *sr = realloc(d->skipped_rank, (d->nskipped + 1) * sizeof *sr);
            if (!sr) continue;
            d->skipped_rank = sr;
            const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
            int rk = -1;
            sr[d->nskipped] = sscanf(base, "rank-%d.mlt", &rk) == 1 ? rk : -1;
            size_t l = strlen(files[i]) + strlen(mlr_strerror(e)) + 16;
            if ((p[d->nskipped] = malloc(l))) snprintf(p[d->nskipped++], l, "%s: %s; skipped", files[i], mlr_strerror(e));
            continue;
        }
        struct rk *r = &rs[n++];
        r->f = f;
        r->h = mlr_header(f);
        r->rank = mlr_rank(f);
        load_failure(r);
        if (r->h->size > d->size) d->size = r->h->size;
        int64_t o = aligned_ns(f, r->h->anchor0_ns);
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
    classify(rs, n, origin, d);
    int oom = !d->order;

    for (unsigned i = 0; i < n; i++) {
        const struct rk *r = &rs[i];
        struct an_diag_rank *o = &d->ranks[i];
        o->rank = r->rank;
        o->pid = (int)r->h->pid;
        o->host = mlr_host(r->f);
        o->state = r->h->state;
        o->exit_status = r->h->exit_status;
        o->end = r->failed                             ? AN_DIAG_FAILED
                 : r->vanished                         ? AN_DIAG_VANISHED
                 : r->h->state == ML_STATE_FINALIZED ? AN_DIAG_FINALIZED
                 : r->alive == 1                       ? AN_DIAG_RUNNING
                                                       : AN_DIAG_UNKNOWN;
        o->collateral = r->collateral;
        o->vfirst = r->vfirst;
        o->stamped = r->stamped;
        o->t_gone = r->t_gone;
        o->t_fail = r->t_fail;
        o->t_after = r->t_after;
        o->alive = r->alive;
        if (fill_record(r, site, addr, &o->rec) != 0 || fill_threads(r, origin, site, o) != 0) oom = 1;
        d->nfinalized += r->h->state == ML_STATE_FINALIZED;
        d->nrunning += r->h->state == ML_STATE_RUNNING;
        /* a non-zero exit status after MPI_Finalize (an uncaught Python
         * exception under mpi4py, exit(1) after the end of MPI) */
        if (r->h->state == ML_STATE_FINALIZED && r->h->exit_status != 0 && d->nbad_exit++ == 0) {
            d->bad_rank = r->rank;
            d->bad_status = r->h->exit_status;
        }
    }
    snprintf(d->mpi_impl, sizeof d->mpi_impl, "%.*s", (int)sizeof rs[0].h->mpi_impl, rs[0].h->mpi_impl);
    /* world ranks without a file: the gaps between those with one */
    if (d->size > 0 && !d->single) {
        int *have = malloc(sizeof(int) * n);
        unsigned nh = 0;
        for (unsigned i = 0; have && i < n; i++)
            if (rs[i].rank >= 0 && rs[i].rank < d->size) have[nh++] = rs[i].rank;
        if (have) qsort(have, nh, sizeof *have, int_cmp);
        d->nofile = have ? malloc(sizeof *d->nofile * (nh + 1)) : NULL;
        int next = 0;                 /* the lowest rank not yet accounted for */
        for (unsigned i = 0; d->nofile && i <= nh; i++) {
            int upto = i < nh ? have[i] : d->size;
            if (upto > next) d->nofile[d->nnofile++] = (struct an_diag_span){next, upto - 1};
            if (i < nh && have[i] + 1 > next) next = have[i] + 1;
        }
        if (!d->nofile) oom = 1;
        free(have);
    }
    free(rs);
    if (oom) {
        an_diag_free(d);
        return -1;
    }
    /* the live monitor's verdict (mpilens top), when it found a deadlock */
    if (!d->single) d->verdict = an_deadlock_verdict(dir, d->verdict_when, sizeof d->verdict_when);
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
