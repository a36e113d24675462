/*
 * failsafe.c — failure capture: whatever way a process dies, the rank file
 * says how (header field `failure`, format/mlformat.h), and everything it
 * recorded before is already in the file (the mapping is MAP_SHARED).
 *
 *  - Fatal signals (SEGV BUS FPE ILL ABRT TERM INT HUP QUIT PIPE XCPU): one
 *    handler of ours (SA_SIGINFO | SA_ONSTACK, on a per-thread alternate stack
 *    set up in the thread's first MPI call, so stack overflows are caught too)
 *    records signal, code, address, the MPI call in progress and a backtrace,
 *    then does what the program asked for: calls the program's handler with
 *    the program's flags, or restores the default action and re-sends the
 *    signal to itself with its original siginfo.  `sigaction`, `signal`,
 *    `bsd_signal` and `sysv_signal` are interposed: whatever the program (or
 *    its MPI library) installs for these signals is kept in a table and
 *    chained to, and queries return it; our handler stays in the kernel.
 *  - exit without MPI_Finalize: `on_exit` (glibc) gives the status for both
 *    exit() and a return from main; the interposed `exit` adds the place it
 *    was called from; `_exit`, `_Exit` and `quick_exit` (no exit handlers run)
 *    are interposed too.  The record is soft until the runtime's destructor
 *    (after every atexit handler) confirms that MPI_Finalize was not called.
 *  - MPI errors: every call that returns an error is recorded (soft: the
 *    program gets the code and may go on).  MPI_ERRORS_ARE_FATAL never
 *    returns, so where the program has it (MPI_COMM_WORLD, MPI_COMM_SELF, new
 *    windows, files when asked), a stand-in handler of ours records the error
 *    and then runs the library's own fatal handler.  The program never sees
 *    the stand-in: MPI_*_get_errhandler returns MPI_ERRORS_ARE_FATAL, and
 *    MPI_*_set_errhandler(MPI_ERRORS_ARE_FATAL) installs the stand-in.
 *  - MPI_Abort: recorded with its code and call site before it runs.
 *  - Durability against the node going down: a thread fdatasync()s the rank
 *    file every MPILENS_SYNC_INTERVAL seconds (default 10; 0 disables).
 *
 * Nothing here is on the per-call hot path: MPI errors come in through
 * ml_result_record, which the hot path calls only when a call failed.
 */
#include "rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

extern int __sigaction(int, const struct sigaction *, struct sigaction *);

static struct ml_header *fh;          /* the rank file's header, NULL until recording */
static struct ml_live *flives;
static int ffd = -1;
static int sync_interval = 10;
static int mpi_inited;                /* MPI_Init returned (runtime view) */
static int exit_seen;                 /* exit() or on_exit saw the exit status */
static uint16_t rid_none = 0xffff;

static __thread int in_handler __attribute__((tls_model("initial-exec")));

/* ---- the failure record -------------------------------------------------- */

static int fail_owner;                /* tid writing the record, 0 if none */

/* A child made by fork() shares the mapping: it must not write the parent's
 * failure. */
static int mine(void)
{
    return fh && getpid() == fh->pid;
}

static int my_tid(void)
{
    return (int)syscall(SYS_gettid);
}

/* Take the record for writing.  Fails (0) when this thread already holds it
 * (a signal interrupted our own writing) or another thread holds it too long. */
static int fail_lock(void)
{
    int me = my_tid();
    for (long i = 0; i < 20000000; i++) {
        int z = 0;
        if (__atomic_compare_exchange_n(&fail_owner, &z, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
        if (z == me) return 0;
        if ((i & 1023) == 1023) syscall(SYS_sched_yield);
    }
    return 0;
}

static void fail_unlock(void)
{
    __atomic_store_n(&fail_owner, 0, __ATOMIC_RELEASE);
}

/* A record may be written when there is none or the one there is soft. */
static int replaceable(const struct ml_failure *f)
{
    uint32_t k = __atomic_load_n(&f->kind, __ATOMIC_ACQUIRE);
    return k == ML_FAIL_NONE || (f->flags & ML_FAILF_SOFT);
}

/* Clear the record for rewriting (lock held). */
static struct ml_failure *fail_begin(void)
{
    struct ml_failure *f = &fh->failure;
    __atomic_store_n(&f->kind, ML_FAIL_NONE, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    f->signo = 0;
    f->code = 0;
    f->errclass = -1;
    f->addr = 0;
    f->ticks = ml_now();
    f->routine = rid_none;
    f->flags = 0;
    f->site = 0;
    f->nframes = 0;
    f->tid = (uint32_t)my_tid();
    f->message[0] = 0;
    return f;
}

static void fail_end(struct ml_failure *f, uint32_t kind)
{
    __atomic_store_n(&f->kind, kind, __ATOMIC_RELEASE);
}

static void put_msg(struct ml_failure *f, const char *a, const char *b)
{
    size_t n = 0, cap = sizeof f->message - 1;
    for (const char *s = a; s && *s && n < cap; s++) f->message[n++] = *s;
    for (const char *s = b; s && *s && n < cap; s++) f->message[n++] = *s;
    f->message[n] = 0;
}

static void put_num(char *buf, size_t cap, long v)
{
    char t[24];
    int n = 0, neg = v < 0;
    unsigned long u = neg ? -(unsigned long)v : (unsigned long)v;
    do t[n++] = (char)('0' + u % 10); while ((u /= 10) && n < 22);
    size_t k = 0;
    if (neg && k < cap - 1) buf[k++] = '-';
    while (n && k < cap - 1) buf[k++] = t[--n];
    buf[k] = 0;
}

/* The live slot that says what this process was doing: the calling thread's,
 * or, for a thread that never called MPI, the first MPI thread's. */
static const struct ml_live *live_of_me(int *other)
{
    *other = 0;
    if (ml_th.live) return ml_th.live;
    if (flives && fh && fh->nthreads > 0) {
        *other = 1;
        return &flives[0];
    }
    return NULL;
}

static void fill_call(struct ml_failure *f, int signal_ctx)
{
    int other;
    const struct ml_live *l = live_of_me(&other);
    if (!l) return;
    uint64_t ts = __atomic_load_n(&l->t_start, __ATOMIC_ACQUIRE);
    uint64_t te = __atomic_load_n(&l->t_end, __ATOMIC_ACQUIRE);
    if (ts > te) {                    /* inside an MPI call */
        f->routine = l->routine;
        f->site = l->site;
    }
    if (other && signal_ctx) f->flags |= ML_FAILF_OTHER_THREAD;
}

/* Own code: frames inside the runtime are dropped from backtraces. */
static uintptr_t own_lo, own_hi;

static int own(uintptr_t a)
{
    return a >= own_lo && a < own_hi;
}

int ml_fs_own(uintptr_t a)
{
    return own(a);
}

/* Linked into the program from the archive (libmpilens-<mpi>.a), the
 * runtime's code is the section mpilens_text of the program (Makefile); as a
 * shared library these are null and the runtime is its own mapping. */
extern const char __start_mpilens_text[] __attribute__((weak, visibility("hidden")));
extern const char __stop_mpilens_text[] __attribute__((weak, visibility("hidden")));

static void find_own_text(void)
{
    if (__start_mpilens_text && (uintptr_t)__stop_mpilens_text > (uintptr_t)__start_mpilens_text) {
        own_lo = (uintptr_t)__start_mpilens_text;
        own_hi = (uintptr_t)__stop_mpilens_text;
        return;
    }
    Dl_info di;
    if (!dladdr((void *)&find_own_text, &di) || !di.dli_fbase) return;
    FILE *m = fopen("/proc/self/maps", "r");
    if (!m) return;
    char line[4352];
    while (fgets(line, sizeof line, m)) {
        unsigned long s, e;
        char perm[8];
        if (sscanf(line, "%lx-%lx %7s", &s, &e, perm) != 3 || perm[2] != 'x') continue;
        if ((uintptr_t)&find_own_text >= s && (uintptr_t)&find_own_text < e) {
            own_lo = s;
            own_hi = e;
            break;
        }
    }
    fclose(m);
}

/* Backtrace from here, runtime frames dropped. */
static void fill_frames(struct ml_failure *f)
{
    void *b[64];
    int n = backtrace(b, 64), k = 0;
    for (int i = 0; i < n && k < 32; i++) {
        if (own((uintptr_t)b[i])) continue;
        f->frames[k++] = (uint64_t)(uintptr_t)b[i];
    }
    f->nframes = (uint32_t)k;
}

/* ---- signals -------------------------------------------------------------- */

static const int managed_list[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM,
                                   SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGXCPU};
#define NSIGS 65
static unsigned char managed[NSIGS];
static struct sigaction prog[NSIGS];  /* what the program installed (its view) */
static int sig_lock;                  /* protects prog[] and the kernel state */
static int sigs_active;               /* our handlers are in place */
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

static int rsa(int sig, const struct sigaction *a, struct sigaction *o)
{
    if (!real_sigaction) {
        real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
        if (!real_sigaction) real_sigaction = __sigaction;
    }
    return real_sigaction(sig, a, o);
}

static int sync_fault(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

static void slock(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, old);
    for (long i = 0; __atomic_exchange_n(&sig_lock, 1, __ATOMIC_ACQUIRE); i++)
        if ((i & 255) == 255) syscall(SYS_sched_yield);
}

static void sunlock(const sigset_t *old)
{
    __atomic_store_n(&sig_lock, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void handler(int sig, siginfo_t *si, void *ucv);

/* Put the kernel disposition in line with prog[sig] (lock held): ours,
 * except where the program ignores an asynchronous signal. */
static void kernel_set(int sig)
{
    const struct sigaction *p = &prog[sig];
    if (p->sa_handler == SIG_IGN && !sync_fault(sig)) {
        struct sigaction ign;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        rsa(sig, &ign, NULL);
        return;
    }
    struct sigaction k;
    memset(&k, 0, sizeof k);
    k.sa_sigaction = handler;
    k.sa_flags = SA_SIGINFO | SA_ONSTACK;
    if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        k.sa_flags |= p->sa_flags & (SA_RESTART | SA_NODEFER);
        k.sa_mask = p->sa_mask;
    } else {
        sigemptyset(&k.sa_mask);
    }
    rsa(sig, &k, NULL);
}

static void prog_get(int sig, struct sigaction *out)
{
    for (long i = 0; __atomic_exchange_n(&sig_lock, 1, __ATOMIC_ACQUIRE); i++)
        if (i > 1000000) break;     /* never wait forever in a signal handler */
    *out = prog[sig];
    __atomic_store_n(&sig_lock, 0, __ATOMIC_RELEASE);
}

/* Default action from now on, and the signal sent again to this thread
 * with its original siginfo: it is delivered when our handler returns. */
static void die_default(int sig, siginfo_t *si)
{
    struct sigaction d;
    memset(&d, 0, sizeof d);
    d.sa_handler = SIG_DFL;
    sigemptyset(&d.sa_mask);
    rsa(sig, &d, NULL);
    pid_t pid = getpid();
    int tid = my_tid();
    if (!si || syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, si) != 0) syscall(SYS_tgkill, pid, tid, sig);
}

static void record_signal(int sig, siginfo_t *si, void *ucv, int handled)
{
    if (!mine() || !fail_lock()) return;
    struct ml_failure *f = &fh->failure;
    int self = si && si->si_code <= 0 && si->si_pid == getpid();
    if (__atomic_load_n(&f->kind, __ATOMIC_ACQUIRE) == ML_FAIL_SIGNAL && (f->flags & ML_FAILF_SOFT) &&
        f->signo == sig && self) {
        /* the program's handler sent the same signal again (it re-raises):
         * the first record is the one with the facts; it is final now */
        f->flags &= (uint16_t)~ML_FAILF_SOFT;
        fail_unlock();
        return;
    }
    if (!replaceable(f)) {
        fail_unlock();
        return;
    }
    f = fail_begin();
    f->signo = sig;
    if (si) {
        f->code = si->si_code;
        if (si->si_code <= 0) {
            f->addr = (uint64_t)si->si_pid;
            f->flags |= ML_FAILF_SENDER;
        } else if (sync_fault(sig)) {
            f->addr = (uint64_t)(uintptr_t)si->si_addr;
        }
    }
    if (handled) f->flags |= ML_FAILF_HANDLER;
    fill_call(f, 1);
    uintptr_t pc = 0, sp = 0;
    if (ucv) {
        const ucontext_t *uc = ucv;
#if defined(__x86_64__)
        pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
        sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
        pc = (uintptr_t)uc->uc_mcontext.pc;
        sp = (uintptr_t)uc->uc_mcontext.sp;
#endif
    }
    if (sig == SIGSEGV && si && sp) {
        uintptr_t a = (uintptr_t)si->si_addr;
        if (a + 65536 > sp && a < sp + 65536) {
            f->flags |= ML_FAILF_STACK;
            put_msg(f, "stack overflow", NULL);
        }
    }
    if (pc) {
        f->frames[0] = (uint64_t)pc + 1;
        f->nframes = 1;
    }
    /* the facts are complete: publish them before the backtrace, which
     * walks a possibly damaged stack */
    fail_end(f, ML_FAIL_SIGNAL);
    void *b[64];
    int n = backtrace(b, 64), i = 0;
    if (pc) {
        while (i < n && (uintptr_t)b[i] != pc) i++;
        if (i < n) i++;             /* frames after the interrupted one */
        else i = n;                 /* the unwinder did not get through the signal frame */
    }
    unsigned k = f->nframes;
    for (; i < n && k < 32; i++) f->frames[k++] = (uint64_t)(uintptr_t)b[i];
    __atomic_store_n(&f->nframes, k, __ATOMIC_RELEASE);
    fail_unlock();
    if (sync_interval > 0) msync(fh, ML_HEADER_SIZE, MS_SYNC);
}

/* The program's handler returned: the program goes on. */
static void soften(int sig)
{
    if (!mine() || !fail_lock()) return;
    struct ml_failure *f = &fh->failure;
    if (__atomic_load_n(&f->kind, __ATOMIC_ACQUIRE) == ML_FAIL_SIGNAL && f->signo == sig &&
        (f->flags & ML_FAILF_HANDLER) && f->tid == (uint32_t)my_tid())
        f->flags |= ML_FAILF_SOFT;
    fail_unlock();
}

static void handler(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    struct sigaction p;
    prog_get(sig, &p);
    int kernel_fault = si && si->si_code > 0 && sync_fault(sig);
    int dfl = p.sa_handler == SIG_DFL || (p.sa_handler == SIG_IGN && kernel_fault);
    if (p.sa_handler == SIG_IGN && !dfl) {
        errno = saved;
        return;
    }
    if (in_handler) {                 /* a fault while we were recording */
        die_default(sig, si);
        errno = saved;
        return;
    }
    in_handler = 1;
    record_signal(sig, si, ucv, !dfl);
    in_handler = 0;
    if (dfl) {
        die_default(sig, si);
        errno = saved;
        return;
    }
    if (p.sa_flags & SA_RESETHAND) {
        sigset_t old;
        slock(&old);
        memset(&prog[sig], 0, sizeof prog[sig]);
        prog[sig].sa_handler = SIG_DFL;
        sigemptyset(&prog[sig].sa_mask);
        kernel_set(sig);
        sunlock(&old);
    }
    errno = saved;
    if (p.sa_flags & SA_SIGINFO) p.sa_sigaction(sig, si, ucv);
    else p.sa_handler(sig);
    saved = errno;
    soften(sig);
    errno = saved;
}

static void signals_install(void)
{
    sigset_t old;
    slock(&old);
    for (size_t i = 0; i < sizeof managed_list / sizeof *managed_list; i++) {
        int s = managed_list[i];
        if (rsa(s, NULL, &prog[s]) != 0) continue;
        managed[s] = 1;
        kernel_set(s);
    }
    __atomic_store_n(&sigs_active, 1, __ATOMIC_RELEASE);
    sunlock(&old);
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (sig <= 0 || sig >= NSIGS || !__atomic_load_n(&sigs_active, __ATOMIC_ACQUIRE) || !managed[sig])
        return rsa(sig, act, old);
    sigset_t m;
    slock(&m);
    if (old) *old = prog[sig];
    if (act) {
        prog[sig] = *act;
        kernel_set(sig);
    }
    sunlock(&m);
    return 0;
}

/* signal() and bsd_signal(): BSD semantics (handler stays, calls restart);
 * sysv_signal(): one-shot, not blocked while it runs. */
static sighandler_t set_handler(int sig, sighandler_t h, int flags)
{
    struct sigaction a, o;
    if (h == SIG_ERR || sig <= 0 || sig >= NSIGS) {
        errno = EINVAL;
        return SIG_ERR;
    }
    memset(&a, 0, sizeof a);
    a.sa_handler = h;
    a.sa_flags = flags;
    sigemptyset(&a.sa_mask);
    if (!(flags & SA_NODEFER)) sigaddset(&a.sa_mask, sig);
    if (sigaction(sig, &a, &o) < 0) return SIG_ERR;
    return o.sa_handler;
}

sighandler_t signal(int sig, sighandler_t h)
{
    return set_handler(sig, h, SA_RESTART);
}

sighandler_t bsd_signal(int sig, sighandler_t h)
{
    return set_handler(sig, h, SA_RESTART);
}

sighandler_t sysv_signal(int sig, sighandler_t h)
{
    return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}

/* ---- alternate signal stacks ----------------------------------------------- */

#define ALT_SIZE (256 * 1024)
static pthread_key_t alt_key;
static int alt_key_ok;

static void alt_free(void *p)
{
    stack_t ss, cur;
    memset(&ss, 0, sizeof ss);
    ss.ss_flags = SS_DISABLE;
    if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)p + 4096) sigaltstack(&ss, NULL);
    munmap(p, ALT_SIZE + 4096);
}

static pthread_once_t alt_once = PTHREAD_ONCE_INIT;

static void alt_key_init(void)
{
    if (pthread_key_create(&alt_key, alt_free) == 0) alt_key_ok = 1;
}

/* An alternate stack for this thread, unless it has one. */
static void alt_setup(void)
{
    pthread_once(&alt_once, alt_key_init);
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) return;
    char *p = mmap(NULL, ALT_SIZE + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return;
    mprotect(p, 4096, PROT_NONE);     /* guard page below */
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = p + 4096;
    ss.ss_size = ALT_SIZE;
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(p, ALT_SIZE + 4096);
        return;
    }
    if (alt_key_ok) pthread_setspecific(alt_key, p);
}

/* The thread's first MPI call. */
void ml_fs_thread_start(void)
{
    if (fh) alt_setup();
}

/* Every thread the program (or a library) creates gets its alternate stack
 * when it starts, so a stack overflow in a thread that never calls MPI is
 * caught too.  pthread_create is interposed; the thread's start routine runs
 * behind a trampoline that sets the stack up first. */
struct thread_start {
    void *(*fn)(void *);
    void *arg;
    int claim;               /* started by the program outside MPI calls */
    int slot;                /* its live slot, reserved by the creator, or -1 */
};
/* Set while the runtime starts a thread of its own. */
__thread int ml_own_thread;

static void *thread_trampoline(void *p)
{
    struct thread_start ts = *(struct thread_start *)p;
    free(p);
    if (!ml_disabled) alt_setup();
    if (ts.claim && !ml_disabled) ml_thread_claim(ts.slot);
    void *r = ts.fn(ts.arg);
    if (ts.claim) ml_thread_unclaim();
    return r;
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real) {
        real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
        if (!real) return EAGAIN;
    }
    struct thread_start *ts = ml_disabled ? NULL : malloc(sizeof *ts);
    if (!ts) return real(t, attr, fn, arg);
    ts->fn = fn;
    ts->arg = arg;
    /* not the runtime's own, not the MPI library's (started inside an MPI call) */
    ts->claim = !ml_own_thread && !(ml_th.chunk && ml_th.ok != 1);
    int slot = ts->slot = ts->claim ? ml_thread_reserve() : -1;
    int rc = real(t, attr, thread_trampoline, ts);
    if (rc != 0) free(ts);
    else ml_thread_reserved(slot, *t);
    return rc;
}

/* pthread_join: the live slot says whom the thread waits for (rt.c,
 * ml_join_begin), so the deadlock check does not take it for computing. */
int pthread_join(pthread_t t, void **ret)
{
    static int (*real)(pthread_t, void **);
    if (!real) {
        real = (int (*)(pthread_t, void **))dlsym(RTLD_NEXT, "pthread_join");
        if (!real) return EINVAL;
    }
    int shown = ml_disabled ? 0 : ml_join_begin(t, __builtin_return_address(0));
    int rc = real(t, ret);
    if (shown) ml_join_end();
    return rc;
}

/* ---- exit ----------------------------------------------------------------- */

static int finalized(void)
{
    return fh && __atomic_load_n(&fh->state, __ATOMIC_ACQUIRE) == ML_STATE_FINALIZED;
}

/* kind EXIT, soft until the destructor (or final for _exit). */
static void record_exit(int status, int flags, const char *what, int soft)
{
    if (!mine()) return;
    fh->exit_status = status;
    if (!mpi_inited || finalized() || !fail_lock()) return;
    struct ml_failure *f = &fh->failure;
    if (replaceable(f)) {
        f = fail_begin();
        f->code = status;
        f->flags |= (uint16_t)(flags | (soft ? ML_FAILF_SOFT : 0));
        fill_call(f, 0);
        fill_frames(f);
        char num[24];
        put_num(num, sizeof num, status);
        put_msg(f, what, num);
        fail_end(f, ML_FAIL_EXIT);
    }
    fail_unlock();
}

typedef void exit_fn(int);
static exit_fn *real_exit, *real_quick_exit;

void exit(int status)
{
    if (fh && !exit_seen) {
        exit_seen = 1;
        record_exit(status, 0, "exit() called with status ", 1);
    }
    if (!real_exit) real_exit = (exit_fn *)dlsym(RTLD_NEXT, "exit");
    real_exit(status);
    for (;;) syscall(SYS_exit_group, status);
}

static void on_exit_cb(int status, void *arg)
{
    (void)arg;
    if (!mine()) return;
    fh->exit_status = status;
    if (exit_seen) return;
    exit_seen = 1;
    record_exit(status, ML_FAILF_MAIN, "main returned ", 1);
}

void _exit(int status)
{
    record_exit(status, ML_FAILF_UNDER_EXIT, "_exit() called with status ", 0);
    for (;;) syscall(SYS_exit_group, status);
}

void _Exit(int status)
{
    record_exit(status, ML_FAILF_UNDER_EXIT, "_Exit() called with status ", 0);
    for (;;) syscall(SYS_exit_group, status);
}

void quick_exit(int status)
{
    record_exit(status, ML_FAILF_UNDER_EXIT, "quick_exit() called with status ", 0);
    if (!real_quick_exit) real_quick_exit = (exit_fn *)dlsym(RTLD_NEXT, "quick_exit");
    real_quick_exit(status);
    for (;;) syscall(SYS_exit_group, status);
}

/* The runtime's destructor, after every atexit handler of the program. */
void ml_fs_at_exit(void)
{
    if (!mine() || !fail_lock()) return;
    struct ml_failure *f = &fh->failure;
    uint32_t k = __atomic_load_n(&f->kind, __ATOMIC_ACQUIRE);
    if (finalized()) {
        /* MPI_Finalize ran in an exit handler: exiting is fine after all */
        if (k == ML_FAIL_EXIT && (f->flags & ML_FAILF_SOFT)) __atomic_store_n(&f->kind, ML_FAIL_NONE, __ATOMIC_RELEASE);
    } else if (mpi_inited) {
        if (k == ML_FAIL_EXIT) {
            f->flags &= (uint16_t)~ML_FAILF_SOFT;
        } else if (k == ML_FAIL_NONE || (f->flags & ML_FAILF_SOFT)) {
            f = fail_begin();
            f->flags |= ML_FAILF_NOSTATUS;
            fill_call(f, 0);
            put_msg(f, "exited without MPI_Finalize, status unknown", NULL);
            fail_end(f, ML_FAIL_EXIT);
        }
    }
    fail_unlock();
    if (sync_interval > 0 && ffd >= 0) fdatasync(ffd);
}

/* ---- MPI errors ----------------------------------------------------------- */

static const struct { int cls; const char *name; } classes[] = {
#define C(x) {x, #x},
    C(MPI_ERR_BUFFER) C(MPI_ERR_COUNT) C(MPI_ERR_TYPE) C(MPI_ERR_TAG) C(MPI_ERR_COMM)
    C(MPI_ERR_RANK) C(MPI_ERR_REQUEST) C(MPI_ERR_ROOT) C(MPI_ERR_GROUP) C(MPI_ERR_OP)
    C(MPI_ERR_TOPOLOGY) C(MPI_ERR_DIMS) C(MPI_ERR_ARG) C(MPI_ERR_UNKNOWN) C(MPI_ERR_TRUNCATE)
    C(MPI_ERR_OTHER) C(MPI_ERR_INTERN) C(MPI_ERR_IN_STATUS) C(MPI_ERR_PENDING) C(MPI_ERR_KEYVAL)
    C(MPI_ERR_NO_MEM) C(MPI_ERR_BASE) C(MPI_ERR_INFO_KEY) C(MPI_ERR_INFO_VALUE)
    C(MPI_ERR_INFO_NOKEY) C(MPI_ERR_SPAWN) C(MPI_ERR_PORT) C(MPI_ERR_SERVICE) C(MPI_ERR_NAME)
    C(MPI_ERR_WIN) C(MPI_ERR_SIZE) C(MPI_ERR_DISP) C(MPI_ERR_INFO) C(MPI_ERR_LOCKTYPE)
    C(MPI_ERR_ASSERT) C(MPI_ERR_RMA_CONFLICT) C(MPI_ERR_RMA_SYNC) C(MPI_ERR_RMA_RANGE)
    C(MPI_ERR_RMA_ATTACH) C(MPI_ERR_RMA_SHARED) C(MPI_ERR_RMA_FLAVOR) C(MPI_ERR_FILE)
    C(MPI_ERR_NOT_SAME) C(MPI_ERR_AMODE) C(MPI_ERR_UNSUPPORTED_DATAREP)
    C(MPI_ERR_UNSUPPORTED_OPERATION) C(MPI_ERR_NO_SUCH_FILE) C(MPI_ERR_FILE_EXISTS)
    C(MPI_ERR_BAD_FILE) C(MPI_ERR_ACCESS) C(MPI_ERR_NO_SPACE) C(MPI_ERR_QUOTA)
    C(MPI_ERR_READ_ONLY) C(MPI_ERR_FILE_IN_USE) C(MPI_ERR_DUP_DATAREP) C(MPI_ERR_CONVERSION)
    C(MPI_ERR_IO)
#undef C
};

/* "MPI_ERR_RANK: <the library's error string>" */
static void error_text(struct ml_failure *f, int code)
{
    int cls = -1, len = 0, ini = 0, fin = 0;
    char s[MPI_MAX_ERROR_STRING + 1] = "";
    PMPI_Initialized(&ini);
    PMPI_Finalized(&fin);
    if (ini && !fin) {
        if (PMPI_Error_class(code, &cls) != MPI_SUCCESS) cls = -1;
        if (PMPI_Error_string(code, s, &len) != MPI_SUCCESS) s[0] = 0;
        s[MPI_MAX_ERROR_STRING] = 0;
    }
    f->errclass = cls;
    const char *name = "MPI error class ";
    char num[24] = "";
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
        if (classes[i].cls == cls) name = classes[i].name;
    if (!strncmp(name, "MPI error class ", 16)) put_num(num, sizeof num, cls);
    size_t nl = strlen(name);
    if (!strncmp(s, name, nl) && (s[nl] == ':' || s[nl] == 0)) {
        put_msg(f, s, NULL);          /* Open MPI: the string starts with the class */
        return;
    }
    char head[64];
    snprintf(head, sizeof head, "%s%s: ", name, num);
    put_msg(f, head, s);
}

/* A call returned an error (from ml_result_record, off the hot path). */
void ml_fs_mpi_error(struct ml_call *c, int err)
{
    if (!fh || err == MPI_SUCCESS || in_handler || !mine()) return;
    if (!replaceable(&fh->failure)) return;
    if (!fail_lock()) return;
    if (replaceable(&fh->failure)) {
        struct ml_failure *f = fail_begin();
        f->code = err;
        f->flags |= ML_FAILF_SOFT;
        f->routine = c->routine;
        f->site = c->site;
        error_text(f, err);
        fill_frames(f);
        fail_end(f, ML_FAIL_MPI_ERROR);
    }
    fail_unlock();
}

/* MPI_ERRORS_ARE_FATAL: record, then the library's own fatal handler. */
static void record_fatal(int code)
{
    if (!mine() || !fail_lock()) return;
    if (replaceable(&fh->failure)) {
        struct ml_failure *f = fail_begin();
        f->code = code;
        f->flags |= ML_FAILF_FATAL;
        if (ml_th.live && ml_th.ok != 1) fill_call(f, 0);   /* inside a wrapper */
        in_handler = 1;
        error_text(f, code);
        in_handler = 0;
        fill_frames(f);
        fail_end(f, ML_FAIL_MPI_ERROR);
    }
    fail_unlock();
    if (sync_interval > 0) msync(fh, ML_HEADER_SIZE, MS_SYNC);
}

static MPI_Errhandler eh_comm = MPI_ERRHANDLER_NULL, eh_win = MPI_ERRHANDLER_NULL,
                      eh_file = MPI_ERRHANDLER_NULL;
static MPI_Comm fatal_holder = MPI_COMM_NULL;  /* keeps MPI_ERRORS_ARE_FATAL, for references to it */

#ifdef OPEN_MPI
/* Open MPI passes the routine's name after the code, and its fatal handlers
 * print it: hand it on so the output is the same as without us. */
#define FATAL_NAME(ap, code) const char *name_ = va_arg(ap, const char *)
#define CALL_OMPI(sym, T, obj, code)                                             \
    do {                                                                         \
        void (*fn_)(T *, int *, ...) = (void (*)(T *, int *, ...))dlsym(RTLD_DEFAULT, sym); \
        if (fn_) fn_(obj, code, name_, NULL);                                    \
    } while (0)
#else
#define FATAL_NAME(ap, code) (void)0
#define CALL_OMPI(sym, T, obj, code) (void)0
#endif

static void fatal_comm(MPI_Comm *comm, int *code, ...)
{
    va_list ap;
    va_start(ap, code);
    FATAL_NAME(ap, code);
    va_end(ap);
    record_fatal(*code);
    CALL_OMPI("ompi_mpi_errors_are_fatal_comm_handler", MPI_Comm, comm, code);
    /* not Open MPI (or its handler returned): the real one, through MPI */
    PMPI_Comm_set_errhandler(*comm, MPI_ERRORS_ARE_FATAL);
    PMPI_Comm_call_errhandler(*comm, *code);
    PMPI_Comm_set_errhandler(*comm, eh_comm);
}

static void fatal_win(MPI_Win *win, int *code, ...)
{
    va_list ap;
    va_start(ap, code);
    FATAL_NAME(ap, code);
    va_end(ap);
    record_fatal(*code);
    CALL_OMPI("ompi_mpi_errors_are_fatal_win_handler", MPI_Win, win, code);
    PMPI_Win_set_errhandler(*win, MPI_ERRORS_ARE_FATAL);
    PMPI_Win_call_errhandler(*win, *code);
    PMPI_Win_set_errhandler(*win, eh_win);
}

static void fatal_file(MPI_File *file, int *code, ...)
{
    va_list ap;
    va_start(ap, code);
    FATAL_NAME(ap, code);
    va_end(ap);
    record_fatal(*code);
    CALL_OMPI("ompi_mpi_errors_are_fatal_file_handler", MPI_File, file, code);
    PMPI_File_set_errhandler(*file, MPI_ERRORS_ARE_FATAL);
    PMPI_File_call_errhandler(*file, *code);
    PMPI_File_set_errhandler(*file, eh_file);
}

/* What the program passes to MPI_*_set_errhandler: our stand-in for
 * MPI_ERRORS_ARE_FATAL.  kind: 0 communicator, 1 window, 2 file. */
MPI_Errhandler ml_fs_eh_in(MPI_Errhandler e, int kind)
{
    if (e != MPI_ERRORS_ARE_FATAL) return e;
    MPI_Errhandler o = kind == 0 ? eh_comm : kind == 1 ? eh_win : eh_file;
    return o == MPI_ERRHANDLER_NULL ? e : o;
}

static int is_ours(MPI_Errhandler e)
{
    return e != MPI_ERRHANDLER_NULL && (e == eh_comm || e == eh_win || e == eh_file);
}

/* A reference to MPI_ERRORS_ARE_FATAL, counted like the one MPI hands out.
 * Its holder, a duplicate of MPI_COMM_SELF, is made the first time the
 * program asks for an error handler that is ours, not at MPI_Init: a
 * communicator the runtime keeps from the start changes the context ids
 * and handles of every communicator the program makes (Open MPI takes the
 * lowest free ones), so the program would not see what it sees without
 * the runtime. */
static MPI_Errhandler fatal_ref(void)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static int tried;
    MPI_Errhandler r = MPI_ERRORS_ARE_FATAL;
    if (!__atomic_load_n(&tried, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&mu);
        if (!tried && mpi_inited) {
            if (PMPI_Comm_dup(MPI_COMM_SELF, &fatal_holder) == MPI_SUCCESS)
                PMPI_Comm_set_errhandler(fatal_holder, MPI_ERRORS_ARE_FATAL);
            else
                fatal_holder = MPI_COMM_NULL;
            __atomic_store_n(&tried, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&mu);
    }
    if (fatal_holder != MPI_COMM_NULL && PMPI_Comm_get_errhandler(fatal_holder, &r) != MPI_SUCCESS)
        r = MPI_ERRORS_ARE_FATAL;
    return r;
}

/* What MPI_*_get_errhandler returns to the program. */
void ml_fs_eh_out(MPI_Errhandler *e)
{
    if (!e || !is_ours(*e)) return;
    MPI_Errhandler t = *e;
    PMPI_Errhandler_free(&t);
    *e = fatal_ref();
}

/* Fortran handles (Open MPI's Fortran bindings call PMPI_ directly). */
static __thread MPI_Fint eh_in_f_tmp;

void *ml_fs_eh_in_f(void *eh, int kind)
{
    if (!eh || eh_comm == MPI_ERRHANDLER_NULL) return eh;
    MPI_Errhandler e = PMPI_Errhandler_f2c(*(MPI_Fint *)eh);
    MPI_Errhandler o = ml_fs_eh_in(e, kind);
    if (o == e) return eh;
    eh_in_f_tmp = PMPI_Errhandler_c2f(o);
    return &eh_in_f_tmp;
}

void ml_fs_eh_out_f(void *eh)
{
    if (!eh || eh_comm == MPI_ERRHANDLER_NULL) return;
    MPI_Errhandler e = PMPI_Errhandler_f2c(*(MPI_Fint *)eh);
    if (!is_ours(e)) return;
    ml_fs_eh_out(&e);
    *(MPI_Fint *)eh = PMPI_Errhandler_c2f(e);
}

/* A new window: its default handler is MPI_ERRORS_ARE_FATAL. */
void ml_fs_win_created(MPI_Win w)
{
    if (eh_win == MPI_ERRHANDLER_NULL || w == MPI_WIN_NULL) return;
    MPI_Errhandler e;
    if (PMPI_Win_get_errhandler(w, &e) != MPI_SUCCESS) return;
    if (e == MPI_ERRORS_ARE_FATAL) PMPI_Win_set_errhandler(w, eh_win);
    PMPI_Errhandler_free(&e);
}

void ml_fs_win_created_f(void *w)
{
    if (w && eh_win != MPI_ERRHANDLER_NULL) ml_fs_win_created(PMPI_Win_f2c(*(MPI_Fint *)w));
}

static void take_over(MPI_Comm c)
{
    MPI_Errhandler e;
    if (PMPI_Comm_get_errhandler(c, &e) != MPI_SUCCESS) return;
    if (e == MPI_ERRORS_ARE_FATAL) PMPI_Comm_set_errhandler(c, eh_comm);
    PMPI_Errhandler_free(&e);
}

/* ---- the program's own error handlers ------------------------------------ */

/* MPI_{Comm,Win,File}_create_errhandler get a trampoline of ours instead of
 * the program's function: it records the error (class, message, the call in
 * progress) before the program's handler runs, so that the error is known
 * even when that handler never returns (MPI_Abort, exit).  The trampoline
 * finds the program's function by the handler attached to the object. */
#define EH_MAX 256
static struct {
    MPI_Errhandler eh;
    void (*fn)(void);
} eh_user[EH_MAX];
static int eh_user_n;
static pthread_mutex_t eh_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread void (*eh_pending)(void);
static __thread int in_user_handler;

static void (*eh_lookup(MPI_Errhandler e))(void)
{
    void (*fn)(void) = NULL;
    pthread_mutex_lock(&eh_lock);
    for (int i = eh_user_n - 1; i >= 0 && !fn; i--)
        if (eh_user[i].eh == e) fn = eh_user[i].fn;
    pthread_mutex_unlock(&eh_lock);
    return fn;
}

static void record_user_handler(int code)
{
    if (!fh || in_handler || !mine() || !replaceable(&fh->failure) || !fail_lock()) return;
    if (replaceable(&fh->failure)) {
        struct ml_failure *f = fail_begin();
        f->code = code;
        f->flags |= ML_FAILF_SOFT;
        if (ml_th.live && ml_th.ok != 1) fill_call(f, 0);   /* inside a wrapper */
        in_handler = 1;
        error_text(f, code);
        in_handler = 0;
        fill_frames(f);
        fail_end(f, ML_FAIL_MPI_ERROR);
    }
    fail_unlock();
}

/* Open MPI passes two more arguments (the routine's name and NULL): they are
 * read and passed on, so the program's handler sees what it would see. */
#define EH_TRAMPOLINE(name, T, getter)                                            \
    static void name(T *obj, int *code, ...)                                      \
    {                                                                             \
        va_list ap;                                                               \
        va_start(ap, code);                                                       \
        void *x1 = va_arg(ap, void *), *x2 = va_arg(ap, void *);                  \
        va_end(ap);                                                               \
        MPI_Errhandler e = MPI_ERRHANDLER_NULL;                                   \
        void (*fn)(void) = NULL;                                                  \
        if (getter(*obj, &e) == MPI_SUCCESS) {                                    \
            fn = eh_lookup(e);                                                    \
            PMPI_Errhandler_free(&e);                                             \
        }                                                                         \
        record_user_handler(*code);                                               \
        if (!fn) return;                                                          \
        in_user_handler++;                                                        \
        ((void (*)(T *, int *, ...))fn)(obj, code, x1, x2);                       \
        in_user_handler--;                                                        \
    }
EH_TRAMPOLINE(tramp_comm, MPI_Comm, PMPI_Comm_get_errhandler)
EH_TRAMPOLINE(tramp_win, MPI_Win, PMPI_Win_get_errhandler)
EH_TRAMPOLINE(tramp_file, MPI_File, PMPI_File_get_errhandler)

/* The function argument of MPI_*_create_errhandler (kind: 0 communicator,
 * 1 window, 2 file): our trampoline; ml_fs_eh_created then registers it. */
void *ml_fs_eh_fn(void *fn, int kind)
{
    eh_pending = (void (*)(void))fn;
    if (!fn || ml_disabled || eh_user_n >= EH_MAX) {
        eh_pending = NULL;
        return fn;
    }
    return kind == 0 ? (void *)tramp_comm : kind == 1 ? (void *)tramp_win : (void *)tramp_file;
}

void ml_fs_eh_created(int ret, MPI_Errhandler *e)
{
    void (*fn)(void) = eh_pending;
    eh_pending = NULL;
    if (!fn || ret != MPI_SUCCESS || !e) return;
    pthread_mutex_lock(&eh_lock);
    if (eh_user_n < EH_MAX) {
        eh_user[eh_user_n].eh = *e;
        eh_user[eh_user_n].fn = fn;
        eh_user_n++;
    }
    pthread_mutex_unlock(&eh_lock);
}

/* ---- MPI_Abort ----------------------------------------------------------- */

static void record_abort(int code, uint16_t routine, uint32_t site, int flags)
{
    if (!mine() || !fail_lock()) return;
    if (replaceable(&fh->failure)) {
        /* called by the program's error handler: keep the error it handled */
        char prev[sizeof fh->failure.message] = "";
        int prev_class = -1;
        if (in_user_handler && fh->failure.kind == ML_FAIL_MPI_ERROR) {
            memcpy(prev, fh->failure.message, sizeof prev);
            prev[sizeof prev - 1] = 0;
            prev_class = fh->failure.errclass;
        }
        struct ml_failure *f = fail_begin();
        f->code = code;
        f->routine = routine;
        f->site = site;
        f->flags |= (uint16_t)flags;
        f->errclass = prev_class;
        fill_frames(f);
        char num[24];
        put_num(num, sizeof num, code);
        put_msg(f, "MPI_Abort called with error code ", num);
        if (prev[0]) {
            put_msg(f, f->message, " by the program's error handler for MPI error ");
            put_msg(f, f->message, prev);
        }
        fail_end(f, ML_FAIL_ABORT);
    }
    fail_unlock();
    if (sync_interval > 0) msync(fh, ML_HEADER_SIZE, MS_SYNC);
}

void ml_fs_abort(struct ml_call *c, int code)
{
    record_abort(code, (uint16_t)(c->routine & ~ML_ROUTINE_FORTRAN), c->site, 0);
}

/* MPI_Abort called inside another wrapper (an error handler, a callback):
 * the wrapper does not record it as a call, but the failure is recorded. */
void ml_fs_abort_nested(int code, void *ret_addr, uint16_t routine)
{
    struct ml_thread *th = &ml_th;
    if (!fh || !th->chunk) return;
    record_abort(code, routine, ml_site(th, ret_addr), ML_FAILF_NESTED);
}

/* ---- durability: periodic sync -------------------------------------------- */

static void *sync_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec ts = {sync_interval, 0};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        fdatasync(ffd);
    }
    return NULL;
}

static void sync_start(void)
{
    pthread_attr_t a;
    pthread_t t;
    sigset_t all, old;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 64 * 1024);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  /* the program's signals are not ours */
    ml_own_thread = 1;
    pthread_create(&t, &a, sync_main, NULL);
    ml_own_thread = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
}

/* ---- entry points from rt.c ------------------------------------------------ */

/* The rank file exists (first MPI call of the process). */
void ml_fs_process_init(struct ml_header *h, struct ml_live *lives, int fd)
{
    const char *e = getenv("MPILENS_SYNC_INTERVAL");
    if (e && *e) sync_interval = atoi(e) < 0 ? 0 : atoi(e);
    find_own_text();
    {   /* load the unwinder now, not in a signal handler */
        void *b[4];
        backtrace(b, 4);
    }
    pthread_once(&alt_once, alt_key_init);
    ffd = fd;
    flives = lives;
    h->failure.routine = rid_none;
    __atomic_store_n(&fh, h, __ATOMIC_RELEASE);
    on_exit(on_exit_cb, NULL);
    e = getenv("MPILENS_SIGNALS");
    if (!(e && *e == '0')) signals_install();
    if (sync_interval > 0) sync_start();
}

void ml_fs_after_init(void)
{
    if (!fh) return;
    mpi_inited = 1;
    if (PMPI_Comm_create_errhandler(fatal_comm, &eh_comm) != MPI_SUCCESS) eh_comm = MPI_ERRHANDLER_NULL;
    if (PMPI_Win_create_errhandler(fatal_win, &eh_win) != MPI_SUCCESS) eh_win = MPI_ERRHANDLER_NULL;
    if (PMPI_File_create_errhandler(fatal_file, &eh_file) != MPI_SUCCESS) eh_file = MPI_ERRHANDLER_NULL;
    if (eh_comm != MPI_ERRHANDLER_NULL) {
        take_over(MPI_COMM_WORLD);
        take_over(MPI_COMM_SELF);
    }
    if (eh_file != MPI_ERRHANDLER_NULL) {
        MPI_Errhandler f;
        if (PMPI_File_get_errhandler(MPI_FILE_NULL, &f) == MPI_SUCCESS) {
            if (f == MPI_ERRORS_ARE_FATAL) PMPI_File_set_errhandler(MPI_FILE_NULL, eh_file);
            PMPI_Errhandler_free(&f);
        }
    }
}

void ml_fs_before_finalize(void)
{
    if (fatal_holder != MPI_COMM_NULL) PMPI_Comm_free(&fatal_holder);
}
