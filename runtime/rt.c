/*
 * rt.c — the runtime's slow paths: creating the rank file, handing out
 * chunks, call sites, communicator and datatype definitions, the clock
 * samples at MPI_Init and MPI_Finalize, and the records too large or too
 * rare for rt.h.  Nothing here runs on every call.
 *
 * Promise: the runtime never changes what the program sees from MPI.  It
 * calls PMPI_ only on arguments the program passed, on a private duplicate
 * of MPI_COMM_WORLD for its clock samples, and for one-time checks of the
 * library (requests.c) on a receive from MPI_PROC_NULL or a private
 * duplicate of MPI_COMM_SELF.
 */
#include "rt.h"
#include "rt_more.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <stdio.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

_Static_assert(sizeof(struct ml_header) <= ML_HEADER_SIZE, "header too large");
_Static_assert(sizeof(struct ml_live) == 64, "live slot is one cache line");
_Static_assert(sizeof(struct ml_chunk) == 64, "chunk header");
_Static_assert(sizeof(struct ml_rec) == 16, "record header");
_Static_assert(sizeof(struct ml_p2p) == 16, "p2p payload");
_Static_assert(sizeof(struct ml_done) == 24, "done entry");

extern const char *const ml_routine_names[];
extern const unsigned ml_nroutines;

__thread struct ml_thread ml_th __attribute__((tls_model("initial-exec")));
int ml_use_tsc = 1;
uint64_t ml_work_gap = UINT64_MAX;
uint64_t ml_sample_gap = UINT64_MAX;
static double ml_ns_per_tick = 1.0;         /* ns per tick of ml_now() */
uint32_t ml_comm_gen = 1;
uint32_t ml_type_gen = 1;
int ml_disabled;
/* 1: this process meant to record but could not (no run directory, no rank
 * file): it still takes part in the runtime's hidden collectives at
 * MPI_Init and MPI_Finalize, or the recorded ranks would wait for it. */
int ml_lost;
uint32_t ml_coll_seq[ML_COMM_NONE];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static char path[PATH_MAX];
static struct ml_header *hdr;          /* mapping of header and tables */
static size_t tables_len;
static uint64_t *sites;
static unsigned chain_depth = 1;       /* MPILENS_STACK_DEPTH (mpilens run -k): frames per site */
static uint64_t *chains;               /* chain table (mlformat.h), NULL when chain_depth is 1 */
static unsigned chains_used;           /* its entries taken (under lock); at 3/4 no more */
static int (*unw_trace)(void **, int); /* libunwind's unw_backtrace, where it is installed */
static struct ml_module *modules;
static struct ml_live *lives;
static int mpi_ready;                  /* between MPI_Init and MPI_Finalize */
static int init_done, final_done;
static int lost_exists;                 /* the rank file's name was taken (process_init) */
static int lost_inited, lost_finalized; /* an unrecorded process's hidden collectives (ml_lost_post) */
static void lost_init_sync(void);
static MPI_Comm priv = MPI_COMM_NULL;  /* private duplicate of MPI_COMM_WORLD, for a clock sync */
static MPI_Group world_group = MPI_GROUP_NULL;
static __thread struct ml_live own_live; /* when all live slots are taken */
/* The thread that owns each live slot (ml_join_begin finds a joined thread's
 * slot); valid while slot_owned[i]. */
static pthread_t slot_thread[ML_MAX_THREADS];
static uint8_t slot_owned[ML_MAX_THREADS];
static __thread char scratch[4096];      /* where records go when recording failed */

/* In a program the runtime is linked into (the archive), this string tells
 * `mpilens run` not to preload the runtime a second time (tool/run.c). */
__attribute__((used)) const char ml_linked_marker[] = "\001mpilens-runtime-linked:" ML_IMPL "\001";

static void warn(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n > (int)sizeof buf - 2) n = sizeof buf - 2;
    buf[n++] = '\n';
    if (write(2, "mpilens: ", 9) < 0 || write(2, buf, n) < 0) return;
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t ml_ticks_slow(void)
{
    return (uint64_t)mono_ns();
}

static int tsc_invariant(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[4096];
    int ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    }
    fclose(f);
    return ok;
}

static void copy_str(char *dst, size_t n, const char *src)
{
    size_t l = strlen(src);
    if (l >= n) l = n - 1;
    memcpy(dst, src, l);
    dst[l] = 0;
}

static int env_rank(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", 0};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return -1;
}

/* Executable mappings of /proc/self/maps, for resolving call sites later. */
static void modules_refresh(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f || !hdr) {
        if (f) fclose(f);
        return;
    }
    char line[4096 + 256];
    unsigned n = 0;
    while (n < ML_MAX_MODULES && fgets(line, sizeof line, f)) {
        unsigned long start, end, off;
        char perm[8];
        int pos = 0;
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %n", &start, &end, perm, &off, &pos) < 4) continue;
        if (perm[2] != 'x' || pos == 0) continue;
        char *p = line + pos;
        p[strcspn(p, "\n")] = 0;
        if (*p != '/' && *p != '[') continue;
        struct ml_module *m = &modules[n++];
        m->start = start;
        m->end = end;
        m->file_offset = off;
        copy_str(m->path, sizeof m->path, p);
    }
    fclose(f);
    /* the Python source files whose lines are sites (python.c) */
    n += ml_py_modules(modules + n, ML_MAX_MODULES - n);
    __atomic_store_n(&hdr->nmodules, n, __ATOMIC_RELEASE);
}

/* A Python source file got a module (python.c): into the table. */
void ml_py_modules_changed(unsigned n)
{
    static unsigned in_table;
    if (__atomic_load_n(&in_table, __ATOMIC_ACQUIRE) >= n) return;
    pthread_mutex_lock(&lock);
    if (in_table < n) {
        modules_refresh();
        __atomic_store_n(&in_table, n, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
}

/* The tick counter and CLOCK_MONOTONIC read together: a preemption between
 * the two reads would tie a tick count to a later time (under load here,
 * by up to milliseconds: a rate 500 ppm off over a 2 s run), so of four
 * reads bracketed by ticks the tightest is kept. */
static void tick_ns_pair(uint64_t *ticks, int64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 4; i++) {
        uint64_t a = ml_now();
        int64_t t = mono_ns();
        uint64_t b = ml_now();
        if (b >= a && b - a < best) {
            best = b - a;
            *ticks = a + (b - a) / 2;
            *ns = t;
        }
    }
    if (best == UINT64_MAX) {  /* ticks went backwards every time: take the last */
        *ticks = ml_now();
        *ns = mono_ns();
    }
}

static void anchor_refresh(void)
{
    if (!hdr) return;
    uint64_t ticks;
    int64_t ns;
    tick_ns_pair(&ticks, &ns);
    hdr->anchor1_ticks = ticks;
    hdr->anchor1_ns = ns;
}

static void run_dir(char *dir, size_t n)
{
    const char *d = getenv("MPILENS_DIR");
    if (d && *d) {
        copy_str(dir, n, d);
        return;
    }
    /* Linked explicitly or preloaded by hand: one directory per job, named
     * from what every rank of the job sees alike. */
    char exe[PATH_MAX] = "app";
    ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (l > 0) exe[l] = 0;
    const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    const char *job = getenv("SLURM_JOB_ID");
    if (!job) job = getenv("OMPI_MCA_ess_base_jobid");
    if (!job) job = getenv("PMI_JOBID");
    char pp[32];
    if (!job) {
        snprintf(pp, sizeof pp, "%d", (int)getppid());
        job = pp;
    }
    snprintf(dir, n, "mpilens-%s-%s", base, job);
}

/* After the MPI routines, the file's routine table names one pseudo-routine
 * that only live slots show (mlformat.h, ML_JOIN_NAME): id ml_nroutines. */
static size_t routines_bytes(void)
{
    size_t n = 4 + sizeof ML_JOIN_NAME;
    for (unsigned i = 0; i < ml_nroutines; i++) n += strlen(ml_routine_names[i]) + 1;
    return (n + 4095) & ~(size_t)4095;
}

static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

static char zeros[ML_CHUNK_SIZE];               /* pwrite source (bss: never written) */

/* The file's first len bytes, allocated on disk (and sized). */
static int file_alloc(off_t len)
{
    if (fallocate(fd, 0, 0, len) == 0) return 0;
    if (errno == ENOSPC) return -1;
    for (off_t done = 0; done < len;) {          /* fallocate not supported here */
        size_t n = (size_t)(len - done) < sizeof zeros ? (size_t)(len - done) : sizeof zeros;
        ssize_t w = pwrite(fd, zeros, n, done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        done += w;
    }
    return 0;
}

static void process_init(void)
{
    const char *e = getenv("MPILENS_DISABLE");
    if (e && *e && *e != '0') {
        ml_disabled = 1;
        return;
    }
    e = getenv("MPILENS_CLOCK");
    ml_use_tsc = !(e && strcmp(e, "monotonic") == 0) && tsc_invariant();
    e = getenv("MPILENS_STACK_DEPTH");
    if (e && *e) {
        char *end;
        long d = strtol(e, &end, 10);
        if (*end || d < 1 || d > ML_MAX_DEPTH)
            warn("MPILENS_STACK_DEPTH=%s is not 1 to %d: call sites are one frame deep", e, ML_MAX_DEPTH);
        else
            chain_depth = (unsigned)d;
    }
    if (chain_depth > 1) {
        /* libunwind, when installed, unwinds 10-15 times faster than libgcc
         * (its trace cache); loaded privately (RTLD_LOCAL: its backtrace and
         * _Unwind_Backtrace do not replace anyone's); MPILENS_UNWIND=libgcc
         * keeps libgcc's */
        e = getenv("MPILENS_UNWIND");
        void *h = e && strcmp(e, "libgcc") == 0 ? NULL : dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
        if (h) unw_trace = (int (*)(void **, int))dlsym(h, "unw_backtrace");
    }

    char dir[PATH_MAX];
    run_dir(dir, sizeof dir);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        warn("cannot create run directory %s: %s; this process is not recorded", dir, strerror(errno));
        ml_disabled = 1;
        ml_lost = 1;
        return;
    }
    int rank = env_rank();
    if (rank >= 0)
        snprintf(path, sizeof path, "%s/rank-%05d.mlt", dir, rank);
    else
        snprintf(path, sizeof path, "%s/pid-%d.mlt", dir, (int)getpid());
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        /* a name taken is said at MPI_Init, where a process that
         * MPI_Comm_spawn started (whose ranks repeat its parents') is known */
        if (errno == EEXIST) lost_exists = 1;
        else warn("cannot create %s: %s; this process is not recorded", path, strerror(errno));
        ml_disabled = 1;
        ml_lost = 1;
        return;
    }
    size_t rb = routines_bytes();
    uint64_t routines_off = ML_HEADER_SIZE;
    uint64_t modules_off = routines_off + rb;
    uint64_t sites_off = modules_off + (uint64_t)ML_MAX_MODULES * sizeof(struct ml_module);
    uint64_t live_off = sites_off + (uint64_t)ML_MAX_SITES * 8;
    uint64_t chains_off = live_off + (uint64_t)ML_MAX_THREADS * sizeof(struct ml_live);
    uint64_t chains_len = chain_depth > 1 ? (uint64_t)ML_MAX_CHAINS * chain_depth * 8 : 0;
    uint64_t chunks_off = (chains_off + chains_len + 4095) & ~4095ull;
    tables_len = chunks_off;
    void *m = MAP_FAILED;
    /* blocks allocated now (not a sparse ftruncate): a store to a table page
     * on a full disk would otherwise be a SIGBUS, any time later */
    if (file_alloc((off_t)chunks_off) == 0)
        m = mmap(NULL, tables_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        warn("cannot map %s: %s; this process is not recorded", path, strerror(errno));
        close(fd);
        unlink(path);
        fd = -1;
        ml_disabled = 1;
        ml_lost = 1;
        return;
    }
    hdr = m;
    sites = (uint64_t *)((char *)m + sites_off);
    modules = (struct ml_module *)((char *)m + modules_off);
    lives = (struct ml_live *)((char *)m + live_off);
    if (chain_depth > 1) chains = (uint64_t *)((char *)m + chains_off);

    char *names = (char *)m + routines_off;
    *(uint32_t *)names = ml_nroutines + 1;
    char *p = names + 4;
    for (unsigned i = 0; i < ml_nroutines; i++) {
        size_t l = strlen(ml_routine_names[i]) + 1;
        memcpy(p, ml_routine_names[i], l);
        p += l;
    }
    memcpy(p, ML_JOIN_NAME, sizeof ML_JOIN_NAME);
    hdr->version = ML_VERSION;
    hdr->header_size = ML_HEADER_SIZE;
    hdr->endian = 0x01020304;
    hdr->chunk_size = ML_CHUNK_SIZE;
    hdr->routines_off = routines_off;
    hdr->modules_off = modules_off;
    hdr->sites_off = sites_off;
    hdr->live_off = live_off;
    hdr->chunks_off = chunks_off;
    hdr->max_modules = ML_MAX_MODULES;
    hdr->max_sites = ML_MAX_SITES;
    hdr->max_threads = ML_MAX_THREADS;
    if (chains) {
        hdr->chains_off = chains_off;
        hdr->chain_depth = chain_depth;
        hdr->max_chains = ML_MAX_CHAINS;
    }
    hdr->nroutines = ml_nroutines + 1;
    hdr->rank = rank;
    hdr->size = -1;
    hdr->pid = (int32_t)getpid();
    hdr->state = ML_STATE_RUNNING;
    hdr->thread_level = -1;
    const char *job = getenv("MPILENS_JOBID");
    hdr->job_id = job ? strtoull(job, NULL, 10) : 0;
    gethostname(hdr->host, sizeof hdr->host - 1);
    copy_str(hdr->mpi_impl, sizeof hdr->mpi_impl, ML_IMPL);
    ssize_t l = readlink("/proc/self/exe", hdr->exe, sizeof hdr->exe - 1);
    if (l < 0) hdr->exe[0] = 0;
    int cfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (cfd >= 0) {
        if (read(cfd, hdr->cmdline, sizeof hdr->cmdline - 1) < 0) hdr->cmdline[0] = 0;
        close(cfd);
    }
    hdr->clock_kind = ml_use_tsc ? 1 : 2;
    /* Two anchors a few milliseconds apart give the tick rate even if the
     * process dies right away; later anchors refine it. */
    tick_ns_pair(&hdr->anchor0_ticks, &hdr->anchor0_ns);
    if (ml_use_tsc) {
        int64_t until = hdr->anchor0_ns + 2000000;
        while (mono_ns() < until) {
        }
    }
    anchor_refresh();
    if (!ml_use_tsc) {
        ml_work_gap = ML_WORK_GAP_NS;            /* ticks are ns */
        ml_sample_gap = ML_SAMPLE_GAP_NS;
    } else if (hdr->anchor1_ns > hdr->anchor0_ns && hdr->anchor1_ticks > hdr->anchor0_ticks) {
        double per_ns = (double)(hdr->anchor1_ticks - hdr->anchor0_ticks) / (double)(hdr->anchor1_ns - hdr->anchor0_ns);
        ml_work_gap = (uint64_t)(per_ns * ML_WORK_GAP_NS);
        ml_sample_gap = (uint64_t)(per_ns * ML_SAMPLE_GAP_NS);
        ml_ns_per_tick = 1.0 / per_ns;
    }
    modules_refresh();
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy(hdr->magic, ML_MAGIC, 8);
    ml_fs_process_init(hdr, lives, fd);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* ---- chunks ----------------------------------------------------------------
 * A chunk costs page-cache pages, and the first store to a page of a shared
 * file mapping costs a fault.  On ext4 a write fault on a hole (ftruncate'd
 * file) goes through the filesystem's page_mkwrite and costs about 5 us per
 * 4 KiB page: 320 us per 256 KiB chunk, 20-40 ns per record if paid on the
 * hot path.  Preparing a chunk costs instead about 50 us when it is
 *   - preallocated on disk ahead (fallocate, FALLOCATE_AHEAD chunks at a
 *     time, KEEP_SIZE: the file grows only with the chunks written),
 *   - written with zeros by pwrite (page-cache pages and disk blocks taken
 *     in bulk, so a full disk says ENOSPC here and never later as a SIGBUS
 *     on a store; this also extends the file),
 *   - mapped, and every page mapped writable at once (MADV_POPULATE_WRITE;
 *     MAP_POPULATE maps shared pages read-only, so stores would still fault).
 *
 * The pager thread does that for POOL_START chunks ahead, and for twice as
 * many each time a writer found the pool empty (up to POOL: 8 MiB), so a
 * rank that writes fast, or whose pager gets a core late, has more ahead.  A thread whose chunk
 * is full takes a ready one from pool_slot[] by an atomic exchange and
 * leaves its old one in retired_slot[] for the pager to unmap: no lock, no
 * system call.  The pager is not woken by the writers (a futex wake that
 * finds it asleep on an idle core cost the writer ~20 us here, a virtual
 * machine's wake-up of a halted CPU, at one chunk change in four); it wakes
 * on its own clock, as often as the chunks go: its sleep (PAGER_MIN_NS to
 * PAGER_MAX_NS) halves when the writers took more than half the pool
 * meanwhile, doubles when they took none, grows by half when they took
 * less than a quarter.  A writer wakes it only when the pool is down to its
 * last chunk (a burst after a quiet spell); the sleep is then cut to a
 * quarter.
 * Ready chunks have a zero magic until taken, which readers skip.
 *
 * The file never shrinks while the process lives (no ftruncate after
 * creation): every chunk any mapping may still store to stays inside the
 * file, whatever the order of exit, the pager and other threads.  Cutting
 * the unused chunks off at exit (as before) killed with SIGBUS a child
 * forked by the program that held copies of them (tests/cases/pager_fork).
 * Instead the chunks nobody took and the blocks preallocated past the end
 * are given back with FALLOC_FL_PUNCH_HOLE (size kept; a hole reads as
 * zeros, so as unused chunks).  A forked child stops recording (atfork):
 * its copies of the thread's chunk and of the pool are the parent's.
 *
 * When the pool is empty: without the pager (MPILENS_PAGER=0, or before it
 * started) a thread prepares its chunk itself; with it, the thread also
 * does, unless the disk is full or the pager has been stuck in one chunk for
 * STUCK_NS asleep in the kernel (state D: a stalled file system; not merely
 * without a CPU on a loaded machine): then the thread records into `scratch`,
 * never a system call, and its records there are dropped and counted
 * (hdr->dropped, from hdr->dropped_since): the program never stops in a
 * recording call.  Recording resumes when the pager has chunks again; a
 * thread whose own preparation failed tries again after RETRY_NS. */

#define POOL 32                    /* slots; the pool holds pool_want of them */
#define POOL_START 8               /* chunks ready at first (2 MiB) */
#define POOL_LOW 1                 /* a writer that leaves this few wakes the pager */
#define PAGER_MIN_NS 100000        /* the pager's clock: 0.1 ms .. */
#define PAGER_MAX_NS 20000000      /* .. 20 ms between wakes */
#define RETIRED_MAX 64
#define FALLOCATE_AHEAD 8
#define STUCK_NS 200000000         /* 200 ms in one chunk: the file system stalls */
#define RETRY_NS 100000000         /* a full disk is tried again this often */
static struct ml_chunk *pool_slot[POOL];          /* ready chunks, NULL: empty slot */
static uint32_t pool_idx[POOL];                   /* their indexes (set before the slot) */
static int pool_n;                                /* non-NULL slots (about) */
static int pool_want = POOL_START;                /* slots the pager fills: doubled, up to
                                                     POOL, each time a writer found none */
static struct ml_chunk *retired_slot[RETIRED_MAX]; /* full chunks the pager unmaps */
static int retired_n;
static int pager_started, pager_stop, pager_sleeping;
static uint32_t pager_word;                       /* futex the pager sleeps on */
static int64_t pager_busy_since;                  /* mono ns the pager's chunk began, 0: idle */
static int pager_tid;
static int disk_full;                             /* the last preparation failed */
static int64_t self_retry_at;                     /* without pager: no try before (mono ns) */
static uint32_t next_idx;                         /* chunks reserved so far */
static off_t falloc_end;                          /* preallocated up to here */
static int falloc_ok = 1;
static int forked_child;                          /* this process is a fork of the recorded one */
static uint32_t stretch_us;                       /* tests: MPILENS_PAGER_STRETCH_US */

static off_t chunk_off(uint32_t idx)
{
    return (off_t)(hdr->chunks_off + (uint64_t)idx * ML_CHUNK_SIZE);
}

/* Tests widen the pager's windows with MPILENS_PAGER_STRETCH_US. */
static void stretch(void)
{
    if (stretch_us) usleep(stretch_us);
}

/* Make chunk idx of the file ready: allocated, in the page cache, mapped
 * with every page writable.  No lock needed (the index is reserved). */
static struct ml_chunk *chunk_prepare(uint32_t idx)
{
    off_t off = chunk_off(idx);
    if (__atomic_load_n(&falloc_ok, __ATOMIC_RELAXED) &&
        off + ML_CHUNK_SIZE > __atomic_load_n(&falloc_end, __ATOMIC_RELAXED)) {
        off_t len = (off_t)FALLOCATE_AHEAD * ML_CHUNK_SIZE;
        if (fallocate(fd, FALLOC_FL_KEEP_SIZE, off, len) == 0) {
            off_t e = __atomic_load_n(&falloc_end, __ATOMIC_RELAXED);
            while (e < off + len &&
                   !__atomic_compare_exchange_n(&falloc_end, &e, off + len, 0, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED)) {
            }
        } else if (errno != ENOSPC) {
            __atomic_store_n(&falloc_ok, 0, __ATOMIC_RELAXED);   /* not supported here */
        }
    }
    stretch();
    for (size_t done = 0; done < ML_CHUNK_SIZE;) {
        ssize_t w = pwrite(fd, zeros + done, ML_CHUNK_SIZE - done, off + (off_t)done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return NULL;                  /* disk full: no chunk rather than SIGBUS later */
        done += (size_t)w;
    }
    stretch();
    char *m = mmap(NULL, ML_CHUNK_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
    if (m == MAP_FAILED) return NULL;
    if (madvise(m, ML_CHUNK_SIZE, MADV_POPULATE_WRITE) != 0) {
        if (errno != EINVAL) {               /* not an old kernel: never touch the pages */
            munmap(m, ML_CHUNK_SIZE);
            return NULL;
        }
        for (size_t i = 0; i < ML_CHUNK_SIZE; i += 4096) ((volatile char *)m)[i] = 0;
    }
    stretch();
    return (struct ml_chunk *)m;
}

/* Chunk idx exists in the file now: readers may look at it. */
static void chunk_publish(uint32_t idx)
{
    uint32_t n = __atomic_load_n(&hdr->nchunks, __ATOMIC_RELAXED);
    while (idx + 1 > n &&
           !__atomic_compare_exchange_n(&hdr->nchunks, &n, idx + 1, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
}

/* Give the blocks of chunks [idx, idx + n) back; the size stays. */
static void chunk_punch(uint32_t idx, uint32_t n)
{
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, chunk_off(idx), (off_t)n * ML_CHUNK_SIZE) != 0) {
    }
}

static void futex_wake(uint32_t *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void pager_wake(void)
{
    __atomic_add_fetch(&pager_word, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&pager_sleeping, __ATOMIC_SEQ_CST)) futex_wake(&pager_word);
}

/* Unmap the full chunks the writers left; 1 if there were any. */
static int retired_drain(void)
{
    int n = 0;
    if (__atomic_load_n(&retired_n, __ATOMIC_RELAXED) <= 0) return 0;
    for (int i = 0; i < RETIRED_MAX; i++) {
        struct ml_chunk *c = __atomic_exchange_n(&retired_slot[i], NULL, __ATOMIC_ACQ_REL);
        if (!c) continue;
        __atomic_sub_fetch(&retired_n, 1, __ATOMIC_RELAXED);
        stretch();
        munmap(c, ML_CHUNK_SIZE);
        n = 1;
    }
    return n;
}

/* MPILENS_PAGER_CPUS (mpilens run --pager-cpus): the CPUs the pager runs
 * on, a list like 3 or 2-3,7.  Without it the pager keeps the CPUs of the
 * process when it started: Open MPI binds a rank to its core in MPI_Init,
 * which binds the calling thread only, after the pager started.  0: parsed,
 * -1: no such list. */
static int pager_cpus_parse(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    if (!*s) return -1;
    while (*s) {
        char *e;
        if (*s < '0' || *s > '9') return -1;
        unsigned long a = strtoul(s, &e, 10), b = a;
        if (*e == '-') {
            if (e[1] < '0' || e[1] > '9') return -1;
            b = strtoul(e + 1, &e, 10);
        }
        if (a > b || b >= CPU_SETSIZE) return -1;
        for (unsigned long c = a; c <= b; c++) CPU_SET(c, set);
        if (*e == ',' && e[1]) e++;
        else if (*e) return -1;
        s = e;
    }
    return 0;
}

/* The pager takes no lock: slots go from NULL to a chunk only here, and
 * from a chunk to NULL only by an exchange in chunk_next. */
static void *pager(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "mpilens-pager", 0, 0, 0);     /* as top -H and ps -L show it */
    const char *cpus = getenv("MPILENS_PAGER_CPUS");
    if (cpus && *cpus) {
        cpu_set_t set;
        if (pager_cpus_parse(cpus, &set) != 0)
            warn("MPILENS_PAGER_CPUS='%s' is not a list of CPUs like 3 or 2-3,7: the pager stays on the CPUs "
                 "it started on", cpus);
        else if (sched_setaffinity(0, sizeof set, &set) != 0)
            warn("cannot move the pager to CPUs %s (%s): it stays on the CPUs it started on", cpus, strerror(errno));
    }
    /* Below the program's threads (nice 10, this thread only): woken on a
     * core the program keeps busy it does not preempt it for a whole refill
     * of the pool (it did at nice 0: 0.3-0.5 ms stalls), yet gets a share
     * large enough to keep up there (at nice 19 it did not, and the writers
     * prepared their own chunks).  Not SCHED_IDLE: it could starve. */
    __atomic_store_n(&pager_tid, (int)syscall(SYS_gettid), __ATOMIC_RELAXED);
    if (setpriority(PRIO_PROCESS, (id_t)pager_tid, 10) != 0) {
    }
    uint32_t idx = UINT32_MAX;                    /* reserved, not yet prepared */
    int64_t interval = PAGER_MIN_NS;              /* sleep between wakes */
    unsigned made = 0;                            /* chunks put in the pool since then */
    uint32_t slept = __atomic_load_n(&pager_word, __ATOMIC_SEQ_CST);   /* at the last sleep */
    while (!__atomic_load_n(&pager_stop, __ATOMIC_ACQUIRE) && !ml_disabled) {
        uint32_t seen = __atomic_load_n(&pager_word, __ATOMIC_SEQ_CST);
        int worked = retired_drain();
        int want = __atomic_load_n(&pool_want, __ATOMIC_RELAXED);
        for (int i = 0; i < want && !__atomic_load_n(&pager_stop, __ATOMIC_ACQUIRE); i++) {
            if (__atomic_load_n(&pool_slot[i], __ATOMIC_ACQUIRE)) continue;
            retired_drain();         /* between chunks too: a pager that never fills the
                                      * pool (no free core) would leave the writers to unmap */
            if (idx == UINT32_MAX) idx = __atomic_fetch_add(&next_idx, 1, __ATOMIC_RELAXED);
            __atomic_store_n(&pager_busy_since, mono_ns(), __ATOMIC_RELAXED);
            struct ml_chunk *c = chunk_prepare(idx);
            __atomic_store_n(&pager_busy_since, 0, __ATOMIC_RELAXED);
            if (!c) {                              /* full disk: try again later, same chunk */
                __atomic_store_n(&disk_full, 1, __ATOMIC_RELAXED);
                worked = 0;
                break;
            }
            __atomic_store_n(&disk_full, 0, __ATOMIC_RELAXED);
            if (__atomic_load_n(&pager_stop, __ATOMIC_ACQUIRE)) {   /* the process is exiting */
                munmap(c, ML_CHUNK_SIZE);
                chunk_punch(idx, 1);
                idx = UINT32_MAX;
                break;
            }
            chunk_publish(idx);
            pool_idx[i] = idx;
            idx = UINT32_MAX;
            __atomic_store_n(&pool_slot[i], c, __ATOMIC_RELEASE);
            __atomic_add_fetch(&pool_n, 1, __ATOMIC_RELAXED);
            made++;
            worked = 1;
        }
        if (worked) continue;
        /* the pool is full: sleep, or until a writer wakes us (pager_word
         * moved).  How long: so that the writers take between a quarter
         * and half of the pool meanwhile (what they took in the last sleep
         * says whether it was too long or too short) */
        if (seen != slept)
            interval /= 4;                        /* a writer found the pool run down */
        else if (made > (unsigned)want / 2)
            interval /= 2;
        else if (made == 0)
            interval *= 2;
        else if (made < (unsigned)want / 4)
            interval += interval / 2;
        if (interval < PAGER_MIN_NS) interval = PAGER_MIN_NS;
        if (interval > PAGER_MAX_NS) interval = PAGER_MAX_NS;
        if (__atomic_load_n(&disk_full, __ATOMIC_RELAXED)) interval = RETRY_NS;
        slept = seen;
        __atomic_store_n(&pager_sleeping, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&pager_word, __ATOMIC_SEQ_CST) == seen && !__atomic_load_n(&pager_stop, __ATOMIC_ACQUIRE)) {
            struct timespec ts = {(time_t)(interval / 1000000000), (long)(interval % 1000000000)};
            syscall(SYS_futex, &pager_word, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
        }
        __atomic_store_n(&pager_sleeping, 0, __ATOMIC_SEQ_CST);
        made = 0;
    }
    return NULL;
}

static void pager_start(void)
{
    static int tried;
    if (__atomic_exchange_n(&tried, 1, __ATOMIC_ACQ_REL) || forked_child) return;
    const char *e = getenv("MPILENS_PAGER");
    if (e && *e == '0') return;
    e = getenv("MPILENS_PAGER_STRETCH_US");
    if (e) stretch_us = (uint32_t)strtoul(e, NULL, 10);
    pthread_attr_t a;
    pthread_t t;
    sigset_t all, old;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 64 * 1024);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);  /* the program's signals are not ours */
    ml_own_thread = 1;
    if (pthread_create(&t, &a, pager, NULL) == 0) __atomic_store_n(&pager_started, 1, __ATOMIC_RELEASE);
    ml_own_thread = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
}

/* The pager has been in one chunk for STUCK_NS and sleeps in the kernel
 * (state D: waiting for the file system), not merely waiting for a CPU. */
static int pager_stalled(void)
{
    int64_t busy = __atomic_load_n(&pager_busy_since, __ATOMIC_RELAXED);
    if (!busy || mono_ns() - busy < STUCK_NS) return 0;
    char p[64], buf[256];
    snprintf(p, sizeof p, "/proc/self/task/%d/stat", __atomic_load_n(&pager_tid, __ATOMIC_RELAXED));
    int f = open(p, O_RDONLY | O_CLOEXEC);
    if (f < 0) return 0;
    ssize_t n = read(f, buf, sizeof buf - 1);
    close(f);
    if (n <= 0) return 0;
    buf[n] = 0;
    const char *e = strrchr(buf, ')');
    return e && e[1] == ' ' && e[2] == 'D';
}

/* A ready chunk from the pool, or NULL. */
static struct ml_chunk *pool_take(void)
{
    if (__atomic_load_n(&pool_n, __ATOMIC_RELAXED) <= 0) return NULL;
    for (int i = 0; i < POOL; i++) {
        if (!__atomic_load_n(&pool_slot[i], __ATOMIC_RELAXED)) continue;
        struct ml_chunk *c = __atomic_exchange_n(&pool_slot[i], NULL, __ATOMIC_ACQ_REL);
        if (c) {
            __atomic_sub_fetch(&pool_n, 1, __ATOMIC_RELAXED);
            return c;
        }
    }
    return NULL;
}

/* Records a thread wrote into scratch (dropped): calls, runs counted in full. */
static void drop_count(struct ml_thread *th)
{
    const char *p = scratch + sizeof(struct ml_chunk), *end = th->cur;
    uint64_t n = 0;
    while (p + sizeof(struct ml_rec) <= end) {
        const struct ml_rec *r = (const struct ml_rec *)p;
        size_t l = r->words ? (size_t)r->words * 8 : r->dur;
        if (l < sizeof *r || l > (size_t)(end - p)) break;
        if (r->type >= ML_REC_CALL && r->type <= ML_REC_COMPLETE) n++;
        else if (r->type == ML_REC_REPEAT) n += r->dt;
        p += l;
    }
    if (n && hdr && !forked_child) __atomic_add_fetch(&hdr->dropped, n, __ATOMIC_RELAXED);
}

/* A new chunk for this thread; its records' times count from `base`. */
static void chunk_next(struct ml_thread *th, uint64_t base)
{
    struct ml_chunk *ch = NULL;
    int was_scratch = (char *)th->chunk == scratch;
    struct ml_chunk *old = th->chunk && !was_scratch ? th->chunk : NULL;
    /* a run of polls never spans chunks: its records are in the old one,
     * which may be unmapped and its addresses reused by a later chunk */
    th->idle_rec = th->idle_rep = NULL;
    th->idle_next = NULL;
    if (was_scratch) drop_count(th);
    if (fd >= 0 && !ml_disabled && !forked_child) {
        int started = __atomic_load_n(&pager_started, __ATOMIC_ACQUIRE);
        ch = pool_take();
        if (!ch) {
            /* no pager, or it fell behind: prepare one here, unless the disk
             * is full or the file system stalls (then drop the records);
             * and have the pager keep more ahead from now on */
            int skip = 0;
            int want = __atomic_load_n(&pool_want, __ATOMIC_RELAXED);
            if (started && want < POOL) __atomic_store_n(&pool_want, want * 2 < POOL ? want * 2 : POOL, __ATOMIC_RELAXED);
            if (started && (__atomic_load_n(&disk_full, __ATOMIC_RELAXED) || pager_stalled()))
                skip = 1;
            else if (__atomic_load_n(&self_retry_at, __ATOMIC_RELAXED) &&
                     mono_ns() < __atomic_load_n(&self_retry_at, __ATOMIC_RELAXED))
                skip = 1;
            if (!skip) {
                uint32_t idx = __atomic_fetch_add(&next_idx, 1, __ATOMIC_RELAXED);
                ch = chunk_prepare(idx);
                if (ch) {
                    chunk_publish(idx);
                    __atomic_store_n(&self_retry_at, 0, __ATOMIC_RELAXED);
                } else {
                    chunk_punch(idx, 1);           /* whatever pwrite got before it failed */
                    __atomic_store_n(&self_retry_at, mono_ns() + RETRY_NS, __ATOMIC_RELAXED);
                }
            }
        }
        if (ch) {
            ch->thread = th->index;
            ch->tid = th->live->tid;
            ch->seq = th->chunk_seq++;
            ch->committed = 0;
            ch->base_ticks = base;
            __atomic_store_n(&ch->magic, ML_CHUNK_MAGIC, __ATOMIC_RELEASE);
            if (!started) pager_start();
        } else if (!was_scratch) {
            uint64_t z = 0;
            if (__atomic_compare_exchange_n(&hdr->dropped_since, &z, base, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                warn("cannot extend %s: %s; records are dropped (and counted) until it can", path,
                     errno ? strerror(errno) : "file system stalled");
        }
        /* the pager keeps its own clock; only a pool run down (a burst
         * after a quiet spell) wakes it.  (A full disk: it tries again on
         * its own clock.) */
        if (started && __atomic_load_n(&pool_n, __ATOMIC_RELAXED) <= POOL_LOW &&
            !__atomic_load_n(&disk_full, __ATOMIC_RELAXED))
            pager_wake();
    }
    if (old) {
        int put = 0;
        if (__atomic_load_n(&pager_started, __ATOMIC_ACQUIRE) && !forked_child)
            for (int i = 0; i < RETIRED_MAX && !put; i++)
                if (!__atomic_load_n(&retired_slot[i], __ATOMIC_RELAXED)) {
                    struct ml_chunk *z = NULL;
                    put = __atomic_compare_exchange_n(&retired_slot[i], &z, old, 0, __ATOMIC_ACQ_REL,
                                                      __ATOMIC_RELAXED);
                }
        if (put) {
            if (__atomic_add_fetch(&retired_n, 1, __ATOMIC_RELAXED) >= RETIRED_MAX / 2) pager_wake();
        } else if (!forked_child) {
            munmap(old, ML_CHUNK_SIZE);
        }
    }
    if (ch) anchor_refresh();
    if (!ch) {                       /* keep the hot path branch-free: write into scratch */
        ch = (struct ml_chunk *)scratch;
        th->chunk = ch;
        th->cur = (char *)(ch + 1);
        th->end = scratch + sizeof scratch;
        th->last = base;
        return;
    }
    th->chunk = ch;
    th->cur = (char *)(ch + 1);
    th->end = (char *)ch + ML_CHUNK_SIZE;
    th->last = base;
}

/* At exit: stop the pager, give back the blocks of the chunks nobody took
 * and of the preallocation past them.  The file keeps its size, so no
 * mapping of it (another thread's chunk, one the pager is preparing, a
 * forked child's copies) can ever store past its end. */
static void pool_trim(void)
{
    __atomic_store_n(&pager_stop, 1, __ATOMIC_RELEASE);
    pager_wake();
    if (fd < 0) return;
    for (int i = 0; i < POOL; i++) {
        struct ml_chunk *c = __atomic_exchange_n(&pool_slot[i], NULL, __ATOMIC_ACQ_REL);
        if (!c) continue;
        __atomic_sub_fetch(&pool_n, 1, __ATOMIC_RELAXED);
        munmap(c, ML_CHUNK_SIZE);
        chunk_punch(pool_idx[i], 1);
    }
    /* chunks from here on are never used: the preallocation ends below */
    uint32_t e = __atomic_fetch_add(&next_idx, FALLOCATE_AHEAD, __ATOMIC_RELAXED);
    off_t fe = __atomic_load_n(&falloc_end, __ATOMIC_RELAXED);
    if (fe > chunk_off(e)) {
        /* ext4 punches nothing past the end of the file: grow it over the
         * preallocation first (fallocate never shrinks a file), then punch */
        if (fallocate(fd, 0, chunk_off(e), fe - chunk_off(e)) != 0) {
        }
        chunk_punch(e, FALLOCATE_AHEAD);
    }
}

/* fork(): the child's copies of the tables, of its thread's chunk and of the
 * pool map the parent's file.  The child records into scratch (dropped, not
 * counted) and keeps private copies of the tables; no lock is held. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
    forked_child = 1;
    pager_started = 0;
    for (int i = 0; i < POOL; i++) pool_slot[i] = NULL;
    pool_n = 0;
    if (hdr) {
        void *tmp = mmap(NULL, tables_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (tmp != MAP_FAILED) {
            memcpy(tmp, hdr, tables_len);
            if (mmap(hdr, tables_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
                MAP_FAILED)
                memcpy(hdr, tmp, tables_len);
            munmap(tmp, tables_len);
        }
    }
    struct ml_thread *th = &ml_th;
    if (th->chunk) {
        th->idle_rec = th->idle_rep = NULL;
        th->idle_next = NULL;
        th->chunk = (struct ml_chunk *)scratch;
        th->cur = scratch + sizeof(struct ml_chunk);
        th->end = scratch + sizeof scratch;
    }
    pthread_mutex_unlock(&lock);
}

/* ml_enter when th->ok is not 1: the thread's first call, a call nested in
 * another wrapper (not recorded), or a C call inside a Fortran wrapper
 * (recorded with the Fortran call site, exactly once). */
int ml_enter_slow(struct ml_call *c, uint16_t routine, void *ret_addr)
{
    struct ml_thread *th = &ml_th;
    if (th->chunk == NULL) {
        if (ml_disabled) return 0;
        ml_thread_start(th);
        if (th->ok != 1) return 0;
        return ml_enter(c, routine, ret_addr);
    }
    if (!th->fort_pending || th->ok != -1) return 0;
    th->fort_pending = 0;
    th->fort_taken = 1;
    c->th = th;
    c->routine = routine | ML_ROUTINE_FORTRAN;
    c->site = th->fort_site;
    th->ok = -2;                     /* the Fortran wrapper is still active: ml_leave makes it -1 */
    c->t0 = ml_now();
    return 1;
}

void ml_thread_start(struct ml_thread *th)
{
    pthread_once(&once, process_init);
    if (ml_disabled) return;
    static int py_tried;
    if (!__atomic_exchange_n(&py_tried, 1, __ATOMIC_ACQ_REL))
        ml_py_setup(chain_depth > 1);   /* mpi4py's first call: MPI_Init's site is a line too */
    if (!th->live) {             /* (else claimed when the thread started) */
        uint32_t i = __atomic_fetch_add(&hdr->nthreads, 1, __ATOMIC_RELAXED);
        if (i < ML_MAX_THREADS) {
            th->live = &lives[i];
            slot_thread[i] = pthread_self();
            __atomic_store_n(&slot_owned[i], 1, __ATOMIC_RELEASE);
        } else {
            th->live = &own_live;
            __atomic_fetch_sub(&hdr->nthreads, 1, __ATOMIC_RELAXED);
        }
        th->index = i;
        th->live->tid = (uint64_t)syscall(SYS_gettid);
    }
    th->live->used = 1;
    chunk_next(th, ml_now());
    if (!ml_disabled) th->ok = 1;
    ml_fs_thread_start();
}

/* A live slot for a thread the program is about to start (failsafe.c,
 * pthread_create): its index, or -1.  The creator reserves it, so that the
 * slot of the new thread is known (ml_thread_reserved) before anyone can
 * join it, even if the thread has not run yet. */
int ml_thread_reserve(void)
{
    if (!hdr || ml_disabled) return -1;
    uint32_t i = __atomic_fetch_add(&hdr->nthreads, 1, __ATOMIC_RELAXED);
    if (i >= ML_MAX_THREADS) {
        __atomic_fetch_sub(&hdr->nthreads, 1, __ATOMIC_RELAXED);
        return -1;
    }
    return (int)i;           /* not `used` until the thread claims it */
}

void ml_thread_reserved(int slot, pthread_t t)
{
    if (slot < 0 || slot >= ML_MAX_THREADS) return;
    slot_thread[slot] = t;
    __atomic_store_n(&slot_owned[slot], 1, __ATOMIC_RELEASE);
}

/* A thread the program started outside MPI calls (failsafe.c, pthread_create)
 * takes its live slot (reserved by its creator, or else a new one, -1) when
 * it starts: used, no call yet (t_start 0), so the live monitor knows the
 * process has a thread outside MPI (computing) before its first MPI call.
 * Its first call keeps the slot. */
void ml_thread_claim(int slot)
{
    struct ml_thread *th = &ml_th;
    if (!hdr || ml_disabled || th->live) return;
    uint32_t i = (uint32_t)slot;
    if (slot < 0) {
        i = __atomic_fetch_add(&hdr->nthreads, 1, __ATOMIC_RELAXED);
        if (i >= ML_MAX_THREADS) {
            __atomic_fetch_sub(&hdr->nthreads, 1, __ATOMIC_RELAXED);
            return;
        }
    }
    th->live = &lives[i];
    th->index = i;
    th->live->tid = (uint64_t)syscall(SYS_gettid);
    slot_thread[i] = pthread_self();
    __atomic_store_n(&slot_owned[i], 1, __ATOMIC_RELEASE);
    __atomic_store_n(&th->live->used, 1, __ATOMIC_RELEASE);
}

/* Such a thread ends without having called MPI: its slot says nothing. */
void ml_thread_unclaim(void)
{
    struct ml_thread *th = &ml_th;
    if (th->live && th->live != &own_live && th->index < ML_MAX_THREADS)
        __atomic_store_n(&slot_owned[th->index], 0, __ATOMIC_RELEASE);   /* it ends */
    if (th->live && th->live != &own_live && !th->chunk) __atomic_store_n(&th->live->used, 0, __ATOMIC_RELEASE);
}

/* pthread_join by the program (failsafe.c), outside MPI calls: the live slot
 * shows the pseudo-routine ML_JOIN_NAME, peer the joined thread's live slot
 * (ML_PEER_NONE: it has none), so the deadlock check knows the thread waits
 * for that one rather than computes.  Returns 1 if the slot was set: then
 * ml_join_end when the join returns (t_end: the wait ended, progress). */
int ml_join_begin(pthread_t t, void *ret_addr)
{
    struct ml_thread *th = &ml_th;
    if (!hdr || ml_disabled || !th->live || th->live == &own_live || (th->chunk && th->ok != 1)) return 0;
    int32_t j = ML_PEER_NONE;
    uint32_t n = __atomic_load_n(&hdr->nthreads, __ATOMIC_ACQUIRE);
    if (n > ML_MAX_THREADS) n = ML_MAX_THREADS;
    for (uint32_t i = n; i-- > 0;)          /* newest first: a reused pthread_t is the newer thread */
        if (__atomic_load_n(&slot_owned[i], __ATOMIC_ACQUIRE) && pthread_equal(slot_thread[i], t)) {
            j = (int32_t)i;
            break;
        }
    struct ml_live *l = th->live;
    uint32_t s = l->seq;
    l->seq = s + 1;                          /* odd: being written (rt.h, ml_live_publish) */
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->routine = (uint16_t)ml_nroutines;
    l->site = ml_site(th, ret_addr);
    l->peer = j;
    l->tag = 0;
    l->comm = ML_COMM_NONE;
    l->aux = 0;
    l->t_start = ml_now();
    __atomic_signal_fence(__ATOMIC_RELEASE);
    l->seq = s + 2;
    return 1;
}

void ml_join_end(void)
{
    struct ml_thread *th = &ml_th;
    if (th->live) __atomic_store_n(&th->live->t_end, ml_now(), __ATOMIC_RELEASE);
}

void ml_time_record(struct ml_thread *th, uint64_t t0, unsigned words)
{
    th->idle_next = NULL;   /* a TIME record ends a run of idle calls (rt.h ml_rec_end_idle) */
    if (th->cur + words * 8 + 48 > th->end) {
        chunk_next(th, t0);
        return;
    }
    struct ml_rec *r = (struct ml_rec *)th->cur;
    memset(r, 0, sizeof *r);
    r->type = ML_REC_TIME;
    r->words = 2;
    r->dt = (uint32_t)t0;
    r->dur = (uint32_t)(t0 >> 32);
    th->cur += 16;
    th->last = t0;
}

void ml_longdur_record(struct ml_call *c)
{
    struct ml_rec *r = (struct ml_rec *)c->th->cur;
    uint64_t d = c->t1 - c->t0;
    memset(r, 0, sizeof *r);
    r->type = ML_REC_LONGDUR;
    r->words = 2;
    r->dt = (uint32_t)d;
    r->dur = (uint32_t)(d >> 32);
    c->th->cur += 16;
}

void ml_result_record(struct ml_call *c, int err)
{
    struct ml_rec *r = (struct ml_rec *)c->th->cur;
    memset(r, 0, sizeof *r);
    r->type = ML_REC_RESULT;
    r->words = 2;
    r->dt = (uint32_t)err;
    c->th->cur += 16;
    ml_fs_mpi_error(c, err);
}

/* ---- call chains (mpilens run -k N, N > 1) ---------------------------------
 * A site is then the chain of up to chain_depth return addresses, from the
 * program's call of the MPI routine (addr, the wrapper's return address)
 * outwards.  The stack is unwound (libunwind's unw_backtrace where it is
 * installed, else libgcc's _Unwind_Backtrace; both from the unwind tables)
 * on every call: the runtime's own frames (this function, the wrapper, a
 * Fortran wrapper) are skipped up to addr.  The chain is
 * looked up without a lock in the file's site table, hashed over all its
 * frames; the table is shared by the threads and read-mostly.  A new chain
 * is entered under the lock: its chain entry first, then (release) its site
 * table entry, so a reader, or a thread probing, that sees the site sees the
 * whole chain.  The per-thread address cache of rt.h is never filled in this
 * mode: every call comes here, and the one-frame hot path is unchanged. */

struct unwind_walk {
    uintptr_t want;            /* the program's return address: the chain starts there */
    uint64_t *fr;
    unsigned n, max, skipped;
};

static _Unwind_Reason_Code unwind_step(struct _Unwind_Context *ctx, void *arg)
{
    struct unwind_walk *u = arg;
    uintptr_t ip = _Unwind_GetIP(ctx);
    if (!ip) return _URC_END_OF_STACK;
    if (u->n == 0 && ip != u->want)              /* still in the runtime's frames */
        return ++u->skipped > 32 ? _URC_END_OF_STACK : _URC_NO_REASON;
    u->fr[u->n++] = ip;
    return u->n >= u->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}

/* The chain into fr (chain_depth entries, zero-filled): libunwind's trace
 * of the runtime's frames (at most RT_FRAMES) and the chain, or libgcc's
 * unwinder frame by frame. */
#define RT_FRAMES 8
static void chain_unwind(uintptr_t addr, uint64_t *fr)
{
    if (unw_trace) {
        void *b[RT_FRAMES + ML_MAX_DEPTH];
        int n = unw_trace(b, RT_FRAMES + (int)chain_depth);
        for (int i = 0; i < n && i < RT_FRAMES; i++)
            if ((uintptr_t)b[i] == addr) {
                for (unsigned k = 0; k < chain_depth && i + (int)k < n; k++) fr[k] = (uintptr_t)b[i + k];
                return;
            }
        return;
    }
    struct unwind_walk u = {addr, fr, 0, chain_depth, 0};
    _Unwind_Backtrace(unwind_step, &u);
}

static __attribute__((noinline)) uint32_t chain_site(uintptr_t addr)
{
    uint64_t fr[ML_MAX_DEPTH] = {0};
    chain_unwind(addr, fr);
    if (fr[0] == 0) fr[0] = addr;                /* not found on the stack: one frame */
    for (unsigned i = 1; i < chain_depth; i++)   /* the runtime's thread start (failsafe.c) ends it */
        if (fr[i] && ml_fs_own((uintptr_t)fr[i])) {
            memset(&fr[i], 0, (chain_depth - i) * 8);
            break;
        }
    uint64_t h = 0;
    for (unsigned i = 0; i < chain_depth; i++) h = (h ^ fr[i]) * 0x9E3779B97F4A7C15ull;
    unsigned mask = ML_MAX_CHAINS - 1, start = (unsigned)(h >> 40);
    size_t len = chain_depth * 8;
    for (unsigned i = 0; i <= mask; i++) {       /* without the lock: the chain known already */
        unsigned slot = (start + i) & mask;
        uint64_t v = __atomic_load_n(&sites[slot], __ATOMIC_ACQUIRE);
        if (v == 0) break;
        if (v == fr[0] && memcmp(&chains[(size_t)slot * chain_depth], fr, len) == 0) return slot + 1;
    }
    uint32_t id = 0;
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i <= mask; i++) {
        unsigned slot = (start + i) & mask;
        uint64_t v = __atomic_load_n(&sites[slot], __ATOMIC_ACQUIRE);
        if (v == fr[0] && memcmp(&chains[(size_t)slot * chain_depth], fr, len) == 0) {
            id = slot + 1;
            break;
        }
        if (v != 0) continue;
        if (chains_used >= ML_MAX_CHAINS / 4 * 3) break;   /* full enough: site 0 (unknown) */
        memcpy(&chains[(size_t)slot * chain_depth], fr, len);
        /* a module loaded since the last look (dlopen) */
        unsigned n = __atomic_load_n(&hdr->nmodules, __ATOMIC_ACQUIRE);
        for (unsigned f = 0; f < chain_depth && fr[f]; f++) {
            unsigned k;
            for (k = 0; k < n; k++)
                if (fr[f] >= modules[k].start && fr[f] < modules[k].end) break;
            if (k == n) {
                modules_refresh();
                break;
            }
        }
        __atomic_store_n(&sites[slot], fr[0], __ATOMIC_RELEASE);
        chains_used++;
        id = slot + 1;
        break;
    }
    pthread_mutex_unlock(&lock);
    return id;
}

uint32_t ml_site_slow(struct ml_thread *th, uintptr_t addr)
{
    if (!sites) return 0;
    if (chains) return chain_site(addr);
    int cache = 1;
    if (addr - ml_py_lo < __atomic_load_n(&ml_py_len, __ATOMIC_ACQUIRE)) {
        /* mpi4py's code: the Python line that called it, cached as its own
         * address; mpi4py's address itself never is (python.c) */
        uintptr_t p = ml_py_addr(th);
        if (p) {
            unsigned c = (unsigned)((p >> 2) ^ (p >> 9)) & (ML_SITE_CACHE - 1);
            if (th->sites[c].addr == p) return th->sites[c].id;
            addr = p;
        } else {
            cache = 0;
        }
    }
    uint32_t id = 0;
    uint64_t h = ((uint64_t)addr * 0x9E3779B97F4A7C15ull) >> 48;
    for (unsigned i = 0; i < ML_MAX_SITES; i++) {
        unsigned slot = (unsigned)(h + i) & (ML_MAX_SITES - 1);
        uint64_t v = __atomic_load_n(&sites[slot], __ATOMIC_ACQUIRE);
        if (v == addr) {
            id = slot + 1;
            break;
        }
        if (v == 0) {
            uint64_t zero = 0;
            if (__atomic_compare_exchange_n(&sites[slot], &zero, (uint64_t)addr, 0,
                                            __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
                id = slot + 1;
                /* a module loaded since the last look (dlopen) */
                unsigned n = __atomic_load_n(&hdr->nmodules, __ATOMIC_ACQUIRE), k;
                for (k = 0; k < n; k++)
                    if (addr >= modules[k].start && addr < modules[k].end) break;
                if (k == n) {
                    pthread_mutex_lock(&lock);
                    modules_refresh();
                    pthread_mutex_unlock(&lock);
                }
                break;
            }
            if (zero == addr) {
                id = slot + 1;
                break;
            }
        }
    }
    if (!cache) return id;
    unsigned c = (unsigned)((addr >> 2) ^ (addr >> 9)) & (ML_SITE_CACHE - 1);
    th->sites[c].addr = addr;
    th->sites[c].id = id;
    return id;
}

/* ---- communicators and datatypes ---------------------------------------
 * Process-wide open-addressing tables from handle value to definition
 * index.  Readers look up without a lock; insertion takes the lock and
 * publishes the handle last.  A freed handle becomes a tombstone, so a
 * handle value reused by MPI gets a fresh definition. */

#define TAB_SIZE 4096
#define TOMB (~0ull)

struct tab_entry {
    uint64_t handle;
    uint16_t index;
    int64_t size;        /* datatypes: MPI_Type_size_x */
    uint64_t gid;        /* communicators: global id */
    uint32_t created;    /* communicators: children created so far */
};
static struct tab_entry comms[TAB_SIZE], types[TAB_SIZE];

static unsigned tab_hash(uint64_t h)
{
    return (unsigned)((h * 0x9E3779B97F4A7C15ull) >> 52);
}

static struct tab_entry *tab_find(struct tab_entry *t, uint64_t h)
{
    unsigned s = tab_hash(h);
    for (unsigned i = 0; i < TAB_SIZE; i++) {
        struct tab_entry *e = &t[(s + i) & (TAB_SIZE - 1)];
        uint64_t v = __atomic_load_n(&e->handle, __ATOMIC_ACQUIRE);
        if (v == h) return e;
        if (v == 0) return NULL;
    }
    return NULL;
}

static struct tab_entry *tab_slot(struct tab_entry *t, uint64_t h)
{
    unsigned s = tab_hash(h);
    for (unsigned i = 0; i < TAB_SIZE; i++) {
        struct tab_entry *e = &t[(s + i) & (TAB_SIZE - 1)];
        if (e->handle == 0 || e->handle == TOMB || e->handle == h) return e;
    }
    return NULL;
}

static void tab_forget(struct tab_entry *t, uint64_t h)
{
    pthread_mutex_lock(&lock);
    struct tab_entry *e = tab_find(t, h);
    if (e) __atomic_store_n(&e->handle, TOMB, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

static uint64_t pending_take(uint64_t handle);
static uint64_t parent_next(uint16_t parent);

void ml_comm_forget(uint64_t handle)
{
    pthread_mutex_lock(&lock);
    pending_take(handle);
    pthread_mutex_unlock(&lock);
    tab_forget(comms, handle);
    __atomic_fetch_add(&ml_comm_gen, 1, __ATOMIC_RELEASE);
}

void ml_type_forget(uint64_t handle)
{
    tab_forget(types, handle);
    __atomic_fetch_add(&ml_type_gen, 1, __ATOMIC_RELEASE);
}

/* Room for a definition record of `payload` bytes in the calling thread's
 * chunk, taken before `lock`: changing chunks takes the lock, which every
 * caller of def_record holds (changing chunks there waited forever on the
 * thread's own lock whenever a definition fell at the end of a chunk).  Only
 * this thread writes its chunk, so the room stays until the record. */
static void def_room(size_t payload)
{
    struct ml_thread *th = &ml_th;
    if (!th->chunk) return;
    size_t len = (sizeof(struct ml_rec) + payload + 7) & ~(size_t)7;
    if (len > ML_CHUNK_SIZE - sizeof(struct ml_chunk) - 64) return;
    if (th->cur + len + 48 > th->end) chunk_next(th, th->last);
}

/* The in-neighbours of this process in comm's virtual topology (those a
 * neighbourhood collective receives from), as ranks of comm in the order
 * the standard gives them (Cartesian: per dimension the negative then the
 * positive direction, MPI_PROC_NULL left out; graph: MPI_Graph_neighbors;
 * distributed graph: the sources).  Writes at most max into out (NULL:
 * counts only); returns their number, -1 when comm has no topology. */
#define ML_TOPO_MAX 4096
static int topo_sources(MPI_Comm comm, int32_t *out, int max)
{
    int t = MPI_UNDEFINED, n = 0, k = 0;
    if (!mpi_ready || comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &t) != MPI_SUCCESS) return -1;
    if (t == MPI_CART) {
        if (PMPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return -1;
        for (int d = 0; d < n; d++) {
            int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
            if (PMPI_Cart_shift(comm, d, 1, &src, &dst) != MPI_SUCCESS) return -1;
            if (src != MPI_PROC_NULL && k < max) {
                if (out) out[k] = src;
                k++;
            }
            if (dst != MPI_PROC_NULL && k < max) {
                if (out) out[k] = dst;
                k++;
            }
        }
        return k;
    }
    if (t != MPI_GRAPH && t != MPI_DIST_GRAPH) return -1;
    int me = 0, in = 0, outn = 0, w = 0;
    if (t == MPI_GRAPH) {
        if (PMPI_Comm_rank(comm, &me) != MPI_SUCCESS || PMPI_Graph_neighbors_count(comm, me, &in) != MPI_SUCCESS)
            return -1;
    } else if (PMPI_Dist_graph_neighbors_count(comm, &in, &outn, &w) != MPI_SUCCESS) {
        return -1;
    }
    if (in <= 0) return 0;
    if (in > max) return -1;
    if (!out) return in;
    int *a = malloc(sizeof(int) * (size_t)in), *b = NULL;
    if (!a) return -1;
    int rc;
    if (t == MPI_GRAPH) {
        rc = PMPI_Graph_neighbors(comm, me, in, a);
    } else {
        /* (room for the weights too: a weighted graph writes them) */
        size_t o = (size_t)(outn > 0 ? outn : 1);
        b = malloc(sizeof(int) * (2 * o + (size_t)in));
        rc = b ? PMPI_Dist_graph_neighbors(comm, in, a, b + 2 * o, outn, b, b + o) : MPI_ERR_OTHER;
    }
    for (int i = 0; rc == MPI_SUCCESS && i < in; i++) out[i] = a[i];
    free(a);
    free(b);
    return rc == MPI_SUCCESS ? in : -1;
}

/* def_room for the definition of comm (comm_define's payload). */
static void def_room_comm(MPI_Comm comm)
{
    if (!mpi_ready || !hdr || comm == MPI_COMM_NULL) return;
    int inter = 0, size = 0, rsize = 0;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_size(comm, &size);
    if (inter) PMPI_Comm_remote_size(comm, &rsize);
    int n = !inter && comm == MPI_COMM_WORLD ? 0 : size + rsize;
    int nt = inter ? -1 : topo_sources(comm, NULL, ML_TOPO_MAX);
    if (nt >= 0) n += 1 + nt;
    def_room(sizeof(struct ml_comm_def) + 4 * (size_t)(n > 0 ? n : 0));
}

/* Append a definition record (words == 0, length in bytes in dur); lock
 * held, so it never changes chunks: the caller made room (def_room). */
static void *def_record(uint8_t type, size_t payload)
{
    struct ml_thread *th = &ml_th;
    if (!th->chunk) return NULL;
    size_t len = (sizeof(struct ml_rec) + payload + 7) & ~(size_t)7;
    if (len > ML_CHUNK_SIZE - sizeof(struct ml_chunk) - 64) return NULL;
    if (th->cur + len + 48 > th->end) return NULL;
    struct ml_rec *r = (struct ml_rec *)th->cur;
    memset(r, 0, len);
    r->type = type;
    r->words = 0;
    r->dur = (uint32_t)len;
    return r;
}

static void def_commit(void *rec)
{
    struct ml_thread *th = &ml_th;
    th->cur = (char *)rec + ((struct ml_rec *)rec)->dur;
    __atomic_store_n(&th->chunk->committed, (uint32_t)(th->cur - (char *)(th->chunk + 1)),
                     __ATOMIC_RELEASE);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* MPI_Comm_set_name succeeded: the name the library now holds for comm
 * (a COMM_NAME definition; the call is rare, no table). */
void ml_comm_named(MPI_Comm comm)
{
    if (!mpi_ready || !hdr || comm == MPI_COMM_NULL) return;
    uint16_t ci = ml_comm_index(comm);
    char name[MPI_MAX_OBJECT_NAME + 1] = "";
    int len = 0;
    if (ci == ML_COMM_NONE || PMPI_Comm_get_name(comm, name, &len) != MPI_SUCCESS) return;
    def_room(sizeof(struct ml_comm_name));
    pthread_mutex_lock(&lock);
    struct ml_rec *r = def_record(ML_REC_COMM_NAME, sizeof(struct ml_comm_name));
    if (r) {
        struct ml_comm_name *d = (struct ml_comm_name *)(r + 1);
        d->index = ci;
        copy_str(d->name, sizeof d->name, name);
        def_commit(r);
    }
    pthread_mutex_unlock(&lock);
}

void ml_comm_named_f(void *comm)
{
    if (comm && mpi_ready) ml_comm_named(PMPI_Comm_f2c(*(MPI_Fint *)comm));
}

/* Define a communicator (lock held).  gid == 0: derive it from the members. */
static struct tab_entry *comm_define(MPI_Comm comm, uint64_t gid)
{
    if (!mpi_ready || !hdr) return NULL;
    struct tab_entry *e = tab_slot(comms, ML_HANDLE(comm));
    if (!e || hdr->ncomms >= ML_COMM_NONE) return NULL;
    int inter = 0, size = 0, rsize = 0;
    PMPI_Comm_test_inter(comm, &inter);
    PMPI_Comm_size(comm, &size);
    if (inter) PMPI_Comm_remote_size(comm, &rsize);
    int world = !inter && comm == MPI_COMM_WORLD;
    int n = world ? 0 : size + rsize;
    int nt = inter ? -1 : topo_sources(comm, NULL, ML_TOPO_MAX);
    struct ml_rec *r = def_record(ML_REC_COMM, sizeof(struct ml_comm_def) + 4 * (size_t)(n + (nt >= 0 ? 1 + nt : 0)));
    if (!r) return NULL;
    struct ml_comm_def *d = (struct ml_comm_def *)(r + 1);
    int32_t *members = (int32_t *)(d + 1);
    if (n) {
        int *in = malloc(sizeof(int) * (size_t)(size > rsize ? size : rsize));
        MPI_Group g;
        if (in && PMPI_Comm_group(comm, &g) == MPI_SUCCESS) {
            for (int i = 0; i < size; i++) in[i] = i;
            PMPI_Group_translate_ranks(g, size, in, world_group, members);
            PMPI_Group_free(&g);
        }
        if (in && rsize && PMPI_Comm_remote_group(comm, &g) == MPI_SUCCESS) {
            for (int i = 0; i < rsize; i++) in[i] = i;
            PMPI_Group_translate_ranks(g, rsize, in, world_group, members + size);
            PMPI_Group_free(&g);
        }
        free(in);
    }
    if (inter) {
        /* the two sides of an inter-communicator come from different
         * parents: name it by its two groups, in an order both sides agree on */
        uint64_t a = mix(0x696e746c, (uint64_t)size), b = mix(0x696e746c, (uint64_t)rsize);
        for (int i = 0; i < size; i++) a = mix(a, (uint64_t)(uint32_t)members[i]);
        for (int i = 0; i < rsize; i++) b = mix(b, (uint64_t)(uint32_t)members[size + i]);
        gid = a < b ? mix(a, b) : mix(b, a);
    } else if (gid == 0) {
        gid = world ? 1 : mix(0x636f6d6d, (uint64_t)size);
        for (int i = 0; i < n; i++) gid = mix(gid, (uint64_t)(uint32_t)members[i]);
    }
    d->index = hdr->ncomms++;
    d->size = (uint32_t)size;
    d->remote_size = (uint32_t)rsize;
    d->flags = (inter ? 1u : 0u) | (world ? 2u : 0u);
    if (nt >= 0) {
        /* after the members: the in-neighbours (u32 count, comm ranks) */
        int32_t *tp = members + n;
        int got = topo_sources(comm, tp + 1, nt);
        if (got >= 0 && got <= nt) {
            tp[0] = got;
            d->flags |= 4u;
        }
    }
    d->handle = ML_HANDLE(comm);
    d->global_id = gid;
    def_commit(r);
    e->index = (uint16_t)d->index;
    e->gid = gid;
    e->created = 0;
    __atomic_store_n(&e->handle, ML_HANDLE(comm), __ATOMIC_RELEASE);
    return e;
}

/* Slow path of ml_comm_index: the table, then a definition; fills the
 * calling thread's one-entry cache. */
uint16_t ml_comm_lookup(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) return ML_COMM_NONE;
    uint32_t gen = __atomic_load_n(&ml_comm_gen, __ATOMIC_ACQUIRE);
    struct tab_entry *e = tab_find(comms, ML_HANDLE(comm));
    if (!e) {
        def_room_comm(comm);
        pthread_mutex_lock(&lock);
        e = tab_find(comms, ML_HANDLE(comm));
        if (!e) e = comm_define(comm, pending_take(ML_HANDLE(comm)));
        pthread_mutex_unlock(&lock);
    }
    if (!e) return ML_COMM_NONE;
    struct ml_thread *th = &ml_th;
    th->comm_handle = ML_HANDLE(comm);
    th->comm_index = e->index;
    th->comm_gen = gen;
    return e->index;
}

/* A routine returned a new communicator: its global id comes from its parent
 * and the parent's creation count, the same on every member. */
void ml_comm_created(MPI_Comm comm, uint16_t parent)
{
    def_room_comm(comm);
    pthread_mutex_lock(&lock);
    /* count the creation on the parent even when this rank gets
     * MPI_COMM_NULL (MPI_Comm_split with MPI_UNDEFINED): the parent's other
     * members count it too */
    uint64_t gid = parent_next(parent);
    if (comm == MPI_COMM_NULL) {
        pthread_mutex_unlock(&lock);
        return;
    }
    struct tab_entry *old = tab_find(comms, ML_HANDLE(comm));
    if (old) {
        __atomic_store_n(&old->handle, TOMB, __ATOMIC_RELEASE);
        __atomic_fetch_add(&ml_comm_gen, 1, __ATOMIC_RELEASE);
    }
    pending_take(ML_HANDLE(comm));
    comm_define(comm, gid);
    pthread_mutex_unlock(&lock);
}

/* Communicators whose global id is known before their handle may be used:
 * MPI_Comm_idup's result (usable only once the request completes), defined
 * at its first use.  Few at a time; a full table falls back to the members. */
#define PENDING_MAX 64
static struct { uint64_t handle, gid; } pending[PENDING_MAX];

static uint64_t pending_take(uint64_t handle)
{
    for (unsigned i = 0; i < PENDING_MAX; i++)
        if (pending[i].handle == handle) {
            uint64_t g = pending[i].gid;
            pending[i].handle = pending[i].gid = 0;
            return g;
        }
    return 0;
}

/* The creation count of a parent (lock held): the same on every member,
 * since all members create communicators from it in the same order. */
static uint64_t parent_next(uint16_t parent)
{
    for (unsigned i = 0; i < TAB_SIZE; i++)
        if (comms[i].handle != 0 && comms[i].handle != TOMB && comms[i].index == parent)
            return mix(comms[i].gid, ++comms[i].created);
    return mix(0x6e6577, parent);
}

/* MPI_Comm_idup(_with_info): collective on the parent like MPI_Comm_dup, so
 * it takes the parent's next creation count; the new handle is defined with
 * that id when it is first used (after the request completed). */
void ml_comm_idup(MPI_Comm comm, uint16_t parent)
{
    pthread_mutex_lock(&lock);
    uint64_t gid = parent_next(parent);
    if (comm != MPI_COMM_NULL && ML_HANDLE(comm) != 0) {
        unsigned i;
        for (i = 0; i < PENDING_MAX && pending[i].handle != 0 && pending[i].handle != ML_HANDLE(comm); i++) {
        }
        if (i < PENDING_MAX) {
            pending[i].handle = ML_HANDLE(comm);
            pending[i].gid = gid;
        }
    }
    pthread_mutex_unlock(&lock);
}

uint64_t ml_str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* MPI_Intercomm_create at its local leader: the world rank of the remote
 * leader (rank remote of peer) plus 1, for the live slot (the deadlock
 * verdict checks that the two leaders name each other); 0 on the other
 * members (the argument means nothing there) or when it is not a valid
 * rank of an intra-communicator peer (MPI reports that error itself). */
uint32_t ml_icc_remote(MPI_Comm local, int leader, MPI_Comm peer, int remote)
{
    int me = -1, inter = 1, size = 0, out = MPI_UNDEFINED;
    if (local == MPI_COMM_NULL || peer == MPI_COMM_NULL || world_group == MPI_GROUP_NULL) return 0;
    if (PMPI_Comm_rank(local, &me) != MPI_SUCCESS || me != leader) return 0;
    if (PMPI_Comm_test_inter(peer, &inter) != MPI_SUCCESS || inter) return 0;
    if (PMPI_Comm_size(peer, &size) != MPI_SUCCESS || remote < 0 || remote >= size) return 0;
    MPI_Group g;
    if (PMPI_Comm_group(peer, &g) != MPI_SUCCESS) return 0;
    if (PMPI_Group_translate_ranks(g, 1, &remote, world_group, &out) != MPI_SUCCESS) out = MPI_UNDEFINED;
    PMPI_Group_free(&g);
    return out >= 0 && out != MPI_UNDEFINED ? (uint32_t)out + 1 : 0;
}

/* MPI_Comm_create_group (collective over the group only, not the parent)
 * and MPI_Comm_create_from_group (no parent): the id comes from the
 * parent's id, the tag and the group's members, plus how many communicators
 * this process made so far from the same three: every member counts the
 * same ones, since each creation is collective over exactly those members.
 * The parent's own creation count is left alone (its other members do not
 * take part). */
#define GROUPKEYS 256
static struct { uint64_t key; uint32_t n; } groupkeys[GROUPKEYS];

void ml_comm_from_group(MPI_Comm comm, uint16_t parent, MPI_Group group, uint64_t tag)
{
    if (comm == MPI_COMM_NULL || !mpi_ready) return;
    def_room_comm(comm);
    pthread_mutex_lock(&lock);
    uint64_t key = mix(0x67727570, tag);
    if (parent != ML_COMM_NONE) {
        for (unsigned i = 0; i < TAB_SIZE; i++)
            if (comms[i].handle != 0 && comms[i].handle != TOMB && comms[i].index == parent) {
                key = mix(key, comms[i].gid);
                break;
            }
    }
    int n = 0;
    if (group != MPI_GROUP_NULL && PMPI_Group_size(group, &n) == MPI_SUCCESS && n > 0) {
        int *in = malloc(sizeof(int) * 2 * (size_t)n);
        if (in) {
            for (int i = 0; i < n; i++) in[i] = i;
            if (PMPI_Group_translate_ranks(group, n, in, world_group, in + n) == MPI_SUCCESS)
                for (int i = 0; i < n; i++) key = mix(key, (uint64_t)(uint32_t)in[n + i]);
            free(in);
        }
    }
    uint32_t count = 0;
    for (unsigned i = 0; i < GROUPKEYS; i++) {
        unsigned s = (unsigned)(key + i) & (GROUPKEYS - 1);
        if (groupkeys[s].key == key || groupkeys[s].n == 0) {
            groupkeys[s].key = key;
            count = ++groupkeys[s].n;
            break;
        }
    }
    struct tab_entry *old = tab_find(comms, ML_HANDLE(comm));
    if (old) {
        __atomic_store_n(&old->handle, TOMB, __ATOMIC_RELEASE);
        __atomic_fetch_add(&ml_comm_gen, 1, __ATOMIC_RELEASE);
    }
    pending_take(ML_HANDLE(comm));
    comm_define(comm, mix(key, count) | 1);
    pthread_mutex_unlock(&lock);
}

/* ---- windows and files: the communicator behind them ---------------------
 * A collective on a window or a file (MPI_Win_fence, MPI_Win_free,
 * MPI_File_write_all, MPI_File_close, ...) names no communicator; for the
 * deadlock check it publishes the one the window or file was created on and
 * takes that communicator's next collective number, so its instances match
 * across ranks like any collective's.  Handle -> communicator definition,
 * set by MPI_Win_create/allocate/allocate_shared/create_dynamic and
 * MPI_File_open, dropped by MPI_Win_free and MPI_File_close: only those
 * calls pay for it (readers look up without a lock, like the comm table).
 * A handle not in it (table full, created before recording) publishes no
 * communicator: the check does not judge that call. */
#define OBJ_SIZE 1024
static struct { uint64_t handle; uint16_t comm; uint8_t kind; } objs[OBJ_SIZE];

static unsigned obj_hash(uint64_t h, int kind)
{
    return (unsigned)(((h ^ (uint64_t)kind) * 0x9E3779B97F4A7C15ull) >> 54) & (OBJ_SIZE - 1);
}

static int obj_find(uint64_t h, int kind)
{
    unsigned s = obj_hash(h, kind);
    for (unsigned i = 0; i < OBJ_SIZE; i++) {
        unsigned j = (s + i) & (OBJ_SIZE - 1);
        uint64_t v = __atomic_load_n(&objs[j].handle, __ATOMIC_ACQUIRE);
        if (v == h && objs[j].kind == kind) return (int)j;
        if (v == 0) return -1;
    }
    return -1;
}

void ml_obj_created(uint64_t h, int kind, uint16_t comm)
{
    if (h == 0 || h == TOMB || comm == ML_COMM_NONE) return;
    pthread_mutex_lock(&lock);
    int j = obj_find(h, kind);
    if (j >= 0) {
        __atomic_store_n(&objs[j].comm, comm, __ATOMIC_RELAXED);   /* a handle value reused */
    } else {
        unsigned s = obj_hash(h, kind);
        for (unsigned i = 0; i < OBJ_SIZE; i++) {
            unsigned k = (s + i) & (OBJ_SIZE - 1);
            if (objs[k].handle == 0 || objs[k].handle == TOMB) {
                objs[k].comm = comm;
                objs[k].kind = (uint8_t)kind;
                __atomic_store_n(&objs[k].handle, h, __ATOMIC_RELEASE);
                break;
            }
        }
    }
    pthread_mutex_unlock(&lock);
}

uint16_t ml_obj_comm(uint64_t h, int kind)
{
    if (h == 0) return ML_COMM_NONE;
    int j = obj_find(h, kind);
    return j < 0 ? ML_COMM_NONE : __atomic_load_n(&objs[j].comm, __ATOMIC_RELAXED);
}

void ml_obj_forget(uint64_t h, int kind)
{
    if (h == 0) return;
    pthread_mutex_lock(&lock);
    int j = obj_find(h, kind);
    if (j >= 0) __atomic_store_n(&objs[j].handle, TOMB, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

/* Fortran handles (MPI_Fint, or an mpi_f08 type whose first member is one). */
static uint64_t obj_f2c(void *o, int kind)
{
    if (!o || !mpi_ready) return 0;
    MPI_Fint f = *(MPI_Fint *)o;
    return kind == ML_OBJ_WIN ? ML_HANDLE(PMPI_Win_f2c(f)) : ML_HANDLE(PMPI_File_f2c(f));
}

void ml_obj_created_f(void *o, int kind, void *comm)
{
    if (!o || !comm || !mpi_ready) return;
    ml_obj_created(obj_f2c(o, kind), kind, ml_comm_index(PMPI_Comm_f2c(*(MPI_Fint *)comm)));
}

/* A Fortran entry of a collective on a window or file: its communicator in
 * the live slot, with no collective number (as ml_fortran_live for the
 * Fortran collectives on a communicator: when the binding goes on to the C
 * MPI_ symbol (MPICH), its wrapper publishes the number).  MPI_Win_free and
 * MPI_File_close (forget): the handle is kept for ml_obj_fortran_post. */
static __thread uint64_t fobj_handle;
static __thread int fobj_kind;

void ml_obj_fortran_live(struct ml_call *c, void *o, int kind, int forget)
{
    uint64_t h = obj_f2c(o, kind);
    if (forget) {
        fobj_handle = h;
        fobj_kind = kind;
    }
    uint16_t ci = ml_obj_comm(h, kind);
    if (ci != ML_COMM_NONE) ml_live_wait_aux(c, ML_PEER_NONE, ML_PEER_NONE, ci, 0);
}

void ml_obj_fortran_post(void *ierr)
{
    uint64_t h = fobj_handle;
    fobj_handle = 0;
    if (h && (!ierr || *(MPI_Fint *)ierr == MPI_SUCCESS)) ml_obj_forget(h, fobj_kind);
}

/* The calling thread's one-entry cache (rt.h ml_type_cached); gen was read
 * before the table, so a type freed meanwhile invalidates the entry. */
static uint16_t type_cache(struct tab_entry *e, uint64_t h, uint32_t gen, int64_t *size)
{
    struct ml_thread *th = &ml_th;
    th->type_handle = h;
    th->type_index = e->index;
    th->type_size = e->size;
    th->type_gen = gen;
    *size = e->size;
    return e->index;
}

uint16_t ml_type_index(MPI_Datatype type, int64_t *size)
{
    uint32_t gen = __atomic_load_n(&ml_type_gen, __ATOMIC_ACQUIRE);
    struct tab_entry *e = tab_find(types, ML_HANDLE(type));
    if (ML_LIKELY(e != NULL)) return type_cache(e, ML_HANDLE(type), gen, size);
    *size = 0;
    if (!mpi_ready || !hdr) return ML_TYPE_NONE;
    def_room(sizeof(struct ml_type_def));
    pthread_mutex_lock(&lock);
    e = tab_find(types, ML_HANDLE(type));
    if (!e && hdr->ntypes < ML_TYPE_NONE && (e = tab_slot(types, ML_HANDLE(type)))) {
        int len = 0;
        MPI_Count sz = 0;
        struct ml_rec *r = def_record(ML_REC_TYPE, sizeof(struct ml_type_def));
        if (r && PMPI_Type_size_x(type, &sz) == MPI_SUCCESS) {
            struct ml_type_def *d = (struct ml_type_def *)(r + 1);
            char name[MPI_MAX_OBJECT_NAME] = "";
            PMPI_Type_get_name(type, name, &len);
            /* Open MPI names what MPI_Type_dup and MPI_Type_create_resized
             * return "Dup " + the old name ("Dup MPI_DOUBLE" for a double
             * resized to 32 bytes): no name the program gave, and a wrong one */
            int ni = 0, na = 0, nd = 0, comb = MPI_COMBINER_NAMED;
            if (strncmp(name, "Dup ", 4) == 0 && PMPI_Type_get_envelope(type, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
                comb != MPI_COMBINER_NAMED)
                name[0] = 0;
            d->index = hdr->ntypes++;
            d->size = sz > INT_MAX ? MPI_UNDEFINED : (int32_t)sz;   /* as MPI_Type_size says */
            d->handle = ML_HANDLE(type);
            copy_str(d->name, sizeof d->name, name);
            def_commit(r);
            e->index = (uint16_t)d->index;
            e->size = sz;
            __atomic_store_n(&e->handle, ML_HANDLE(type), __ATOMIC_RELEASE);
        } else {
            e = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    if (!e) return ML_TYPE_NONE;
    return type_cache(e, ML_HANDLE(type), gen, size);
}

/* ---- records with variable parts ---------------------------------------- */

uint64_t *ml_req_save(int n, const MPI_Request *reqs, uint64_t *buf)
{
    if (n <= 0 || !reqs) return NULL;
    uint64_t *q = n <= ML_REQ_STACK ? buf : malloc(sizeof(uint64_t) * (size_t)n);
    if (!q) return buf;
    for (int i = 0; i < n; i++) q[i] = ML_HANDLE(reqs[i]);
    return q;
}

MPI_Status *ml_status_buf(int n, MPI_Status *buf)
{
    if (n <= ML_REQ_STACK) return buf;
    MPI_Status *s = malloc(sizeof(MPI_Status) * (size_t)n);
    return s ? s : MPI_STATUSES_IGNORE;
}

/* idx_kind: 0 = requests 0..n-1 completed; 1 = *idx is the one index;
 * 2 = idx[0..n-1] are the indices.  total: requests passed to the call.
 * Anything out of range (a failed call, a bad argument) records nothing. */
void ml_rec_done(struct ml_call *c, int ret, int n, const uint64_t *reqs, const MPI_Status *st,
                 const int *idx, int idx_kind, int total)
{
    if (n < 0 || !reqs || n > total) n = 0;
    if (idx_kind && ret != MPI_SUCCESS && ret != MPI_ERR_IN_STATUS) n = 0;
    if (st == MPI_STATUSES_IGNORE) st = NULL;
    /* MPI_REQUEST_NULL in the list completes nothing (MPI gives it an empty
     * status, and a Wait or Test on it returns at once): not recorded; a
     * call that had no other is one that completed nothing */
    const uint64_t null_h = ML_HANDLE(MPI_REQUEST_NULL);
    int live = 0;
    for (int j = 0; j < n && !live; j++) {
        int i = idx_kind == 0 ? j : idx_kind == 1 ? idx[0] : idx[j];
        live = i >= 0 && i < total && reqs[i] != null_h;
    }
    if (!live) n = 0;
    uint8_t type = ML_REC_COMPLETE;
    int k = 0;
    do {
        int m = n - k > ML_DONE_MAX ? ML_DONE_MAX : n - k;
        struct ml_rec *r = ml_rec_begin(c, type, 3 + 3 * (unsigned)m);
        if (type == ML_REC_COMPLETE_MORE) r->dt = r->dur = 0;
        uint32_t *cnt = (uint32_t *)(r + 1);
        struct ml_done *d = (struct ml_done *)(cnt + 2);
        int w = 0;
        for (int j = 0; j < m; j++, k++) {
            int i = idx_kind == 0 ? k : idx_kind == 1 ? idx[0] : idx[k];
            if (i < 0 || i >= total || reqs[i] == null_h) continue;
            struct ml_done *e = &d[w++];
            e->index = i;
            e->request = reqs[i];
            e->source = ML_PEER_NONE;
            e->tag = ML_PEER_NONE;
            e->bytes = 0;
            if (st && (ret == MPI_SUCCESS || ret == MPI_ERR_IN_STATUS)) {
                const MPI_Status *s = idx_kind == 0 ? &st[i] : idx_kind == 1 ? &st[0] : &st[k];
                int64_t b = ml_status_bytes(s);
                e->source = s->MPI_SOURCE;
                e->tag = s->MPI_TAG;
                if (b > 0) e->bytes = (uint32_t)b;
                /* MPI_Cancel succeeded: the request completed without a message */
                if (ml_status_cancelled(s)) {
                    e->source = ML_PEER_CANCELLED;
                    e->bytes = 0;
                }
            }
        }
        cnt[0] = (uint32_t)w;
        cnt[1] = 0;
        /* completing nothing (an unsuccessful test) is not progress */
        if (n == 0) ml_rec_end_idle(c, r, ret);
        else ml_rec_end(c, r, type == ML_REC_COMPLETE ? ret : MPI_SUCCESS);
        type = ML_REC_COMPLETE_MORE;
    } while (k < n);
}

void ml_rec_sendrecv(struct ml_call *c, uint16_t comm, MPI_Datatype st, int dest, int stag,
                     int64_t scount, int source, MPI_Datatype rt, int64_t rcount, int rtag,
                     MPI_Status *status, int ret)
{
    int64_t ssize = 0, rsize = 0;
    uint16_t sti = ml_type_index(st, &ssize);
    uint16_t rti = ml_type_index(rt, &rsize);
    uint32_t rbytes = ml_bytes(rcount, rsize);
    if (ret == MPI_SUCCESS && source != MPI_PROC_NULL && status != MPI_STATUS_IGNORE) {
        int64_t n = ml_status_bytes(status);
        source = status->MPI_SOURCE;
        rtag = status->MPI_TAG;
        if (n >= 0) rbytes = (uint32_t)n;
    } else if (ret == MPI_SUCCESS && source == MPI_PROC_NULL) {
        rbytes = 0;   /* nothing received (its status: count 0) */
    }
    struct ml_rec *r = ml_rec_begin(c, ML_REC_SENDRECV, 6);
    struct ml_p2p *p = (struct ml_p2p *)(r + 1);
    p[0] = (struct ml_p2p){comm, sti, dest, stag, ml_bytes(scount, ssize)};
    p[1] = (struct ml_p2p){comm, rti, source, rtag, rbytes};
    ml_rec_end(c, r, ret);
}

void ml_rec_coll(struct ml_call *c, uint16_t comm, int root, MPI_Datatype st, int64_t scount,
                 MPI_Datatype rt, int64_t rcount, uint64_t req, int ret)
{
    (void)req;
    int64_t ssize = 0, rsize = 0;
    uint16_t sti = st == MPI_DATATYPE_NULL ? ML_TYPE_NONE : ml_type_index(st, &ssize);
    if (rt != MPI_DATATYPE_NULL) ml_type_index(rt, &rsize);
    struct ml_rec *r = ml_rec_begin(c, ML_REC_COLL, 4);
    struct ml_coll *p = (struct ml_coll *)(r + 1);
    p->comm = comm;
    p->dtype = sti;
    p->root = root;
    p->bytes = ml_bytes(scount, ssize);
    p->rbytes = ml_bytes(rcount, rsize);
    ml_rec_end(c, r, ret);
}

/* A Cartesian communicator's neighbourhood: 2 x ndims blocks, for each
 * dimension the process in the negative direction, then the positive one;
 * beyond a non-periodic border it is MPI_PROC_NULL, whose block moves
 * nothing.  Returns the number of blocks (-1: not Cartesian) and in *live
 * the blocks with a process (all of them past 64 blocks). */
static int cart_live(MPI_Comm comm, uint64_t *live)
{
    int t = MPI_UNDEFINED, n = 0;
    if (PMPI_Topo_test(comm, &t) != MPI_SUCCESS || t != MPI_CART || PMPI_Cartdim_get(comm, &n) != MPI_SUCCESS)
        return -1;
    *live = ~(uint64_t)0;
    for (int d = 0; d < n && 2 * d + 1 < 64; d++) {
        int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
        if (PMPI_Cart_shift(comm, d, 1, &src, &dst) != MPI_SUCCESS) continue;
        if (src == MPI_PROC_NULL) *live &= ~((uint64_t)1 << (2 * d));
        if (dst == MPI_PROC_NULL) *live &= ~((uint64_t)1 << (2 * d + 1));
    }
    return 2 * n;
}

int ml_coll_peers(MPI_Comm comm, int recv)
{
    uint64_t live;
    if (comm == MPI_COMM_NULL || !mpi_ready) return 0;
    int n = cart_live(comm, &live);
    if (n < 0) return ml_coll_blocks(comm, 1, recv);
    int k = 0;
    for (int i = 0; i < n; i++) k += i >= 64 || (live >> i & 1);
    return k;
}

int ml_coll_blocks(MPI_Comm comm, int nbr, int recv)
{
    int n = 0, t = MPI_UNDEFINED, inter = 0;
    if (comm == MPI_COMM_NULL) return 0;
    if (nbr == 1 && PMPI_Topo_test(comm, &t) == MPI_SUCCESS) {
        if (t == MPI_CART) {
            if (PMPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return 0;
            return 2 * n;
        }
        if (t == MPI_GRAPH) {
            int me = 0;
            if (PMPI_Comm_rank(comm, &me) != MPI_SUCCESS || PMPI_Graph_neighbors_count(comm, me, &n) != MPI_SUCCESS)
                return 0;
            return n;
        }
        if (t == MPI_DIST_GRAPH) {
            int in = 0, out = 0, w = 0;
            if (PMPI_Dist_graph_neighbors_count(comm, &in, &out, &w) != MPI_SUCCESS) return 0;
            return recv ? in : out;
        }
        return 0;
    }
    if (nbr != 2 && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter)
        return PMPI_Comm_remote_size(comm, &n) == MPI_SUCCESS ? n : 0;
    return PMPI_Comm_size(comm, &n) == MPI_SUCCESS ? n : 0;
}

int64_t ml_coll_sum(MPI_Comm comm, const void *counts, int c64, int nbr, int recv)
{
    if (!counts || !mpi_ready) return 0;
    int n = ml_coll_blocks(comm, nbr, recv);
    uint64_t live = ~(uint64_t)0;
    if (nbr == 1) cart_live(comm, &live);
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        if (i >= 64 || (live >> i & 1)) s += c64 ? (int64_t)((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
    return s;
}

int64_t ml_coll_wbytes(MPI_Comm comm, const void *counts, int c64, const MPI_Datatype *types, int nbr,
                       int recv)
{
    if (!counts || !types || !mpi_ready) return 0;
    int n = ml_coll_blocks(comm, nbr, recv);
    uint64_t live = ~(uint64_t)0;
    if (nbr == 1) cart_live(comm, &live);
    int64_t s = 0;
    for (int i = 0; i < n; i++) {
        int64_t k = c64 ? (int64_t)((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
        int64_t size = 0;
        if (k > 0 && types[i] != MPI_DATATYPE_NULL && (i >= 64 || (live >> i & 1))) {
            ml_type_index(types[i], &size);
            s += k * size;
        }
    }
    return s;
}

int64_t ml_coll_mine(MPI_Comm comm, const void *counts, int c64)
{
    int me = -1;
    if (!counts || !mpi_ready || comm == MPI_COMM_NULL || PMPI_Comm_rank(comm, &me) != MPI_SUCCESS || me < 0)
        return 0;
    return c64 ? (int64_t)((const MPI_Count *)counts)[me] : ((const int *)counts)[me];
}

int ml_coll_isroot(MPI_Comm comm, int root)
{
    int me = -1, inter = 0;
    if (root == MPI_ROOT) return 1;
    if (!mpi_ready || comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return 0;
    return PMPI_Comm_rank(comm, &me) == MPI_SUCCESS && me == root;
}

void ml_rec_io(struct ml_call *c, uint64_t fh, MPI_Datatype dt, int64_t count, unsigned flags,
               const char *name, int ret)
{
    int64_t size = 0;
    uint16_t ti = dt == MPI_DATATYPE_NULL ? ML_TYPE_NONE : ml_type_index(dt, &size);
    size_t nl = name ? strlen(name) : 0;
    if (nl > ML_IO_NAME_MAX - 1) {
        name += nl - (ML_IO_NAME_MAX - 1);
        nl = ML_IO_NAME_MAX - 1;
    }
    unsigned nw = name ? (unsigned)(nl + 8) / 8 : 0;   /* with its NUL, padded */
    struct ml_rec *r = ml_rec_begin(c, ML_REC_IO, 5 + nw);
    if (nw) {
        char *t = (char *)r + 40;
        memset(t, 0, nw * 8);
        memcpy(t, name, nl);
    }
    struct ml_io *p = (struct ml_io *)(r + 1);
    p->file = fh;
    p->bytes = count > 0 && size > 0 ? (uint64_t)count * (uint64_t)size : 0;
    p->dtype = ti;
    p->flags = (uint16_t)flags;
    p->pad = 0;
    ml_rec_end(c, r, ret);
}

void ml_rec_coll_req(struct ml_call *c, uint16_t comm, int root, MPI_Datatype st, int64_t scount,
                     MPI_Datatype rt, int64_t rcount, uint64_t req, uint64_t seq, int ret)
{
    if (!req) {
        ml_rec_coll(c, comm, root, st, scount, rt, rcount, req, ret);
        return;
    }
    int64_t ssize = 0, rsize = 0;
    uint16_t sti = st == MPI_DATATYPE_NULL ? ML_TYPE_NONE : ml_type_index(st, &ssize);
    if (rt != MPI_DATATYPE_NULL) ml_type_index(rt, &rsize);
    struct ml_rec *r = ml_rec_begin(c, ML_REC_COLL, 6);
    struct ml_coll *p = (struct ml_coll *)(r + 1);
    p->comm = comm;
    p->dtype = sti;
    p->root = root;
    p->bytes = ml_bytes(scount, ssize);
    p->rbytes = ml_bytes(rcount, rsize);
    uint64_t *x = (uint64_t *)(p + 1);
    x[0] = req;
    x[1] = seq;
    ml_rec_end(c, r, ret);
}

/* ---- Fortran ------------------------------------------------------------ */

/* Before the Fortran binding runs: the live slot says what the call waits
 * for (peer, tag, communicator), as a C wrapper's does.  A binding that
 * calls the C routine (MPICH) publishes it again, with the collective's
 * number; one that calls PMPI_ itself (Open MPI) leaves this: collectives
 * without a number (0: matched by routine). */
void ml_fortran_live(struct ml_call *c, void *comm, void *peer, void *tag)
{
    if (!comm || !mpi_ready) return;
    uint16_t ci = ml_comm_index(PMPI_Comm_f2c(*(MPI_Fint *)comm));
    ml_live_wait_aux(c, peer ? *(MPI_Fint *)peer : ML_PEER_NONE, tag ? *(MPI_Fint *)tag : ML_PEER_NONE, ci, 0);
}

void ml_fortran_live_sr(struct ml_call *c, void *comm, void *dest, void *stag, void *source, void *rtag)
{
    if (!comm || !mpi_ready) return;
    uint16_t ci = ml_comm_index(PMPI_Comm_f2c(*(MPI_Fint *)comm));
    uint32_t src = source ? (uint32_t)*(MPI_Fint *)source : (uint32_t)ML_PEER_NONE;
    uint32_t tag = rtag ? (uint32_t)*(MPI_Fint *)rtag : (uint32_t)ML_PEER_NONE;
    ml_live_wait_aux(c, dest ? *(MPI_Fint *)dest : ML_PEER_NONE, stag ? *(MPI_Fint *)stag : ML_PEER_NONE, ci,
                     src | (uint64_t)tag << 32);
}

void *ml_real(const char *sym)
{
    void *p = dlsym(RTLD_NEXT, sym);
    if (!p) {
        warn("%s: no definition after the mpilens runtime (%s)", sym, dlerror());
        abort();
    }
    return p;
}

/* Fortran receives (MPI_Recv): the status the Fortran call fills, and its
 * error argument.  Set by ml_fstatus_pre before the call, read by
 * ml_fortran_record after it (only when the binding called PMPI_ itself),
 * cleared by ml_fstatus_post either way. */
static __thread void *fort_status, *fort_ierr;
static __thread MPI_Fint fort_status_buf[32];   /* larger than any MPI_STATUS_SIZE */

/* The status argument to pass on: the program's, or ours where it passes
 * MPI_STATUS_IGNORE (so that the actual source and tag are known). */
void *ml_fstatus_pre(void *status, void *ierr)
{
    if (!status) return status;
    int ignored = status == (void *)MPI_F_STATUS_IGNORE;
#ifdef MPICH_VERSION
    ignored |= status == (void *)MPI_F08_STATUS_IGNORE;
#endif
    void *use = ignored ? (void *)fort_status_buf : status;
    fort_status = use;
    fort_ierr = ierr;
    return use;
}

void ml_fstatus_post(void)
{
    fort_status = fort_ierr = NULL;
}

int ml_mpi_ready(void)
{
    return mpi_ready;
}

/* The Fortran binding called PMPI_ itself: record from the Fortran arguments
 * (handles are MPI_Fint, or mpi_f08 derived types whose first member is).
 * A receive's actual source, tag and size come from the Fortran status
 * (MPI_Status_f2c knows where MPI_SOURCE and MPI_TAG are: Fortran indices 1
 * and 2 in Open MPI, 3 and 4 in MPICH; mpi_f08's status has the same layout
 * in both). */
/* A Fortran collective's receive count and type (its wrapper's PRE hook,
 * genwrap.py), for the record ml_fortran_record makes of the same call (t0
 * tells: a call a nested C wrapper recorded leaves them behind). */
static __thread void *fort_rcount, *fort_rtype;
static __thread uint64_t fort_recv_t0;

void ml_fortran_recv(struct ml_call *c, void *rcount, void *rtype)
{
    fort_rcount = rcount;
    fort_rtype = rtype;
    fort_recv_t0 = c->t0;
}

static __thread struct {
    void *sbuf, *scounts, *stypes, *rcounts, *rtypes, *rtype;
    int kind;
    uint64_t t0;
} fort_v;

void ml_fortran_vcoll(struct ml_call *c, void *sbuf, void *scounts, void *stypes, void *rcounts,
                      void *rtypes, void *rtype, int kind)
{
    fort_v.sbuf = sbuf, fort_v.scounts = scounts, fort_v.stypes = stypes;
    fort_v.rcounts = rcounts, fort_v.rtypes = rtypes, fort_v.rtype = rtype;
    fort_v.kind = kind;
    fort_v.t0 = c->t0;
}

/* Open MPI's Fortran MPI_IN_PLACE: the address of its sentinel common block
 * (the program's copy where the executable has one: the first in the global
 * scope, as the binding's own reference resolves).  NULL elsewhere (MPICH's
 * binding calls the C routine, whose wrapper records the call). */
static void *fortran_in_place(void)
{
    static void *p;
    static int looked;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        p = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    return p;
}

/* The gather and scatter family (their nonblocking forms too) with
 * MPI_IN_PLACE, as the C wrappers record them (genwrap.py in_place_counts):
 * the side MPI ignores is the rank's own block of the other side.  Set by
 * the Fortran wrapper's PRE hook; kind 1: the send side may be in place
 * (MPI_Allgather(v), MPI_Alltoall, MPI_Gather(v)), counts the receive
 * counts of a v-variant; kind 2: the receive side (MPI_Scatter(v) at the
 * root), counts the send counts of MPI_Scatterv. */
static __thread struct {
    void *sbuf, *rbuf, *counts;
    int kind;
    uint64_t t0;
} fort_ip;

void ml_fortran_inplace(struct ml_call *c, void *sbuf, void *rbuf, void *counts, int kind)
{
    fort_ip.sbuf = sbuf, fort_ip.rbuf = rbuf, fort_ip.counts = counts;
    fort_ip.kind = kind;
    fort_ip.t0 = c->t0;
}

static void fortran_inplace_counts(MPI_Comm comm, MPI_Datatype *st, int64_t *sn, MPI_Datatype *rt, int64_t *rn)
{
    void *ip = fortran_in_place();
    if (!ip) return;
    if (fort_ip.kind == 1 && fort_ip.sbuf == ip) {
        *sn = fort_ip.counts ? ml_coll_mine(comm, fort_ip.counts, 0) : *rn;
        *st = *rt;
    } else if (fort_ip.kind == 2 && fort_ip.rbuf == ip) {
        *rn = fort_ip.counts ? ml_coll_mine(comm, fort_ip.counts, 0) : *sn;
        *rt = *st;
    }
}

/* Fortran handles to C, for ml_coll_wbytes (at most ML_FV_MAX blocks). */
#define ML_FV_MAX 4096
static const MPI_Datatype *fort_types(const void *ft, MPI_Comm comm, int recv, MPI_Datatype *buf)
{
    int n = ml_coll_blocks(comm, 0, recv);
    if (!ft || n <= 0 || n > ML_FV_MAX) return NULL;
    for (int i = 0; i < n; i++) buf[i] = PMPI_Type_f2c(((const MPI_Fint *)ft)[i]);
    return buf;
}

/* What the collective's arrays add up to, as ml_rec_coll's counts of *st and *rt. */
static void fortran_vcounts(MPI_Comm comm, int root, MPI_Datatype *st, int64_t *sn, MPI_Datatype *rt,
                            int64_t *rn)
{
    static __thread MPI_Datatype tb[ML_FV_MAX];
    void *in_place = fortran_in_place();
    int rootonly = root != ML_PEER_NONE, isroot = rootonly && ml_coll_isroot(comm, root);
    if (fort_v.rtype) *rt = PMPI_Type_f2c(*(MPI_Fint *)fort_v.rtype);
    if (fort_v.kind == 2) {   /* MPI_Reduce_scatter_block: recvcount per member, as from C */
        int n = fort_v.rcounts ? *(const MPI_Fint *)fort_v.rcounts : 0;
        *sn = (int64_t)n * ml_coll_blocks(comm, 0, 0);
        *rn = n;
        *rt = *st;
        return;
    }
    if (fort_v.kind == 1) {   /* MPI_Reduce_scatter */
        *sn = ml_coll_sum(comm, fort_v.rcounts, 0, 2, 0);
        *rn = ml_coll_mine(comm, fort_v.rcounts, 0);
        *rt = *st;
        return;
    }
    if (fort_v.rcounts && (!rootonly || isroot)) {
        if (fort_v.rtypes) {
            *rn = ml_coll_wbytes(comm, fort_v.rcounts, 0, fort_types(fort_v.rtypes, comm, 1, tb), 0, 1);
            *rt = MPI_BYTE;
        } else {
            *rn = ml_coll_sum(comm, fort_v.rcounts, 0, 0, 1);
        }
    } else if (fort_v.rcounts) {
        *rn = 0;
    }
    if (!fort_v.scounts) return;
    if (rootonly) {
        *sn = isroot ? ml_coll_sum(comm, fort_v.scounts, 0, 0, 0) : 0;
    } else if (in_place && fort_v.sbuf == in_place) {   /* the send side is the receive side */
        *sn = *rn;
        *st = *rt;
    } else if (fort_v.stypes) {
        *sn = ml_coll_wbytes(comm, fort_v.scounts, 0, fort_types(fort_v.stypes, comm, 0, tb), 0, 0);
        *st = MPI_BYTE;
    } else {
        *sn = ml_coll_sum(comm, fort_v.scounts, 0, 0, 0);
    }
}

void ml_fortran_record(struct ml_call *c, void *comm, void *peer, void *tag, void *count,
                       void *dtype)
{
    uint16_t ci = ML_COMM_NONE;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    void *fst = fort_status, *ferr = fort_ierr;
    fort_status = fort_ierr = NULL;
    if (mpi_ready) {
        if (comm) ci = ml_comm_index(PMPI_Comm_f2c(*(MPI_Fint *)comm));
        if (dtype) dt = PMPI_Type_f2c(*(MPI_Fint *)dtype);
    }
    int n = count ? *(MPI_Fint *)count : 0;
    int pr = peer ? *(MPI_Fint *)peer : ML_PEER_NONE;
    if (tag && peer && comm) {
        MPI_Status s;
        if (fst && mpi_ready && pr != MPI_PROC_NULL && (!ferr || *(MPI_Fint *)ferr == MPI_SUCCESS) &&
            PMPI_Status_f2c((MPI_Fint *)fst, &s) == MPI_SUCCESS) {
            int64_t size = 0;
            int b = 0;
            uint16_t t = dt == MPI_DATATYPE_NULL ? ML_TYPE_NONE : ml_type_index(dt, &size);
            uint32_t bytes = ml_bytes(n, size);
            if (PMPI_Get_count(&s, MPI_BYTE, &b) == MPI_SUCCESS && b != MPI_UNDEFINED) bytes = (uint32_t)b;
            ml_rec_p2p_raw(c, ci, t, s.MPI_SOURCE, s.MPI_TAG, bytes, 0, MPI_SUCCESS, 0, 0);
        } else {
            ml_rec_p2p(c, ci, dt, pr, *(MPI_Fint *)tag, n, 0, MPI_SUCCESS, 0);
        }
    } else if (comm) {
        MPI_Datatype rdt = MPI_DATATYPE_NULL;
        int rn = 0;
        if (fort_rtype && fort_recv_t0 == c->t0 && mpi_ready) {
            rdt = PMPI_Type_f2c(*(MPI_Fint *)fort_rtype);
            if (fort_rcount) rn = *(MPI_Fint *)fort_rcount;
        }
        int64_t sn = n, rn64 = rn;
        if (fort_v.t0 == c->t0 && mpi_ready && (!ferr || *(MPI_Fint *)ferr == MPI_SUCCESS))
            fortran_vcounts(PMPI_Comm_f2c(*(MPI_Fint *)comm), pr, &dt, &sn, &rdt, &rn64);
        fort_v.t0 = 0;
        if (fort_ip.t0 == c->t0 && mpi_ready && (!ferr || *(MPI_Fint *)ferr == MPI_SUCCESS))
            fortran_inplace_counts(PMPI_Comm_f2c(*(MPI_Fint *)comm), &dt, &sn, &rdt, &rn64);
        fort_ip.t0 = 0;
        ml_rec_coll(c, ci, pr, dt, sn, rdt, rn64, 0, MPI_SUCCESS);
    } else {
        ml_rec_call(c, MPI_SUCCESS);
    }
}

/* ---- MPI_Init, MPI_Finalize, MPI_Abort ----------------------------------- */

/* The job streams its live state to a front end (mpilens run --listen sets
 * MPILENS_STREAM=host:port, MPILENS_SECRET and MPILENS_TOOL): the first rank
 * of each node starts one `mpilens agent` for the ranks of its node.  The
 * members come from the node communicator's group (local calls, no
 * messages).  posix_spawn (no fork of the MPI process), in a session of its
 * own, every signal at its default, stdin from /dev/null, output to
 * DIR/agent-RANK.log, no descriptor of ours; its environment holds only the
 * secret (no LD_PRELOAD).  The agent forks once more and its first process
 * exits at once, reaped here: the agent is never a child of the program (a
 * program waiting for all its children never waits for it), and a rank
 * killed, even by SIGKILL, does not take it along. */
static void stream_agent(MPI_Comm node)
{
    const char *stream = getenv("MPILENS_STREAM"), *tool = getenv("MPILENS_TOOL");
    const char *secret = getenv("MPILENS_SECRET"), *iv = getenv("MPILENS_STREAM_INTERVAL");
    int nn = 0, me = 0;
    if (!stream || !*stream) return;
    PMPI_Comm_rank(node, &me);
    if (me != 0) return;
    if (!tool || !*tool || !secret) {
        warn("MPILENS_STREAM is set but not MPILENS_TOOL and MPILENS_SECRET: no agent for this node");
        return;
    }
    MPI_Group ng = MPI_GROUP_NULL, pg = MPI_GROUP_NULL;
    PMPI_Comm_size(node, &nn);
    int *a = malloc((size_t)nn * 2 * sizeof *a);
    size_t cap = (size_t)nn * 24 + 16;
    char *list = malloc(cap);
    if (!a || !list || PMPI_Comm_group(node, &ng) != MPI_SUCCESS || PMPI_Comm_group(priv, &pg) != MPI_SUCCESS) {
        free(a);
        free(list);
        if (ng != MPI_GROUP_NULL) PMPI_Group_free(&ng);
        return;
    }
    for (int i = 0; i < nn; i++) a[i] = i;
    PMPI_Group_translate_ranks(ng, nn, a, pg, a + nn);
    PMPI_Group_free(&ng);
    PMPI_Group_free(&pg);
    int *w = a + nn;
    for (int i = 1; i < nn; i++)                /* sort (node members are usually in order) */
        for (int j = i; j > 0 && w[j - 1] > w[j]; j--) {
            int t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
        }
    size_t o = 0;
    list[0] = 0;
    for (int i = 0; i < nn;) {
        int j = i;
        while (j + 1 < nn && w[j + 1] == w[j] + 1) j++;
        o += (size_t)snprintf(list + o, cap - o, j > i ? "%s%d-%d" : "%s%d", o ? "," : "", w[i], w[j]);
        i = j + 1;
    }
    char dir[PATH_MAX], log[PATH_MAX + 32], env_secret[160], ivs[32];
    copy_str(dir, sizeof dir, path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    snprintf(log, sizeof log, "%s/agent-%d.log", dir, w[0]);
    snprintf(env_secret, sizeof env_secret, "MPILENS_SECRET=%s", secret);
    snprintf(ivs, sizeof ivs, "%s", iv && *iv ? iv : "1");
    char *argv[] = {(char *)tool, "agent", "--detach", "--connect", (char *)stream, "--ranks", list,
                    "--interval", ivs, dir, NULL};
    char *envp[] = {env_secret, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, tool, &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        warn("cannot start the node agent %s: %s", tool, strerror(rc));
    } else {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    free(a);
    free(list);
}

/* This node's clock against rank 0's: rank 0 ping-pongs with the first rank
 * of every other node on the private communicator and keeps the exchange
 * with the smallest round trip.  At MPI_Init, the node's first rank also
 * starts the node agent when the job streams. */
static void clock_sync(struct ml_clock_sync *out, int at_init)
{
    enum { ROUNDS = 16, TAG = 4242 };
    int wrank = 0, nrank = 0, lrank = -1, nleaders = 0;
    int64_t res[2] = {0, 0};                   /* offset, rtt */
    MPI_Comm node = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
    PMPI_Comm_rank(priv, &wrank);
    /* MPILENS_NODE_SIZE=k makes groups of k consecutive ranks act as nodes,
     * to test the cross-node path on one machine. */
    const char *ns = getenv("MPILENS_NODE_SIZE");
    if (ns && atoi(ns) > 0) {
        if (PMPI_Comm_split(priv, wrank / atoi(ns), wrank, &node) != MPI_SUCCESS) return;
    } else if (PMPI_Comm_split_type(priv, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS) {
        return;
    }
    PMPI_Comm_rank(node, &nrank);
    if (at_init) stream_agent(node);
    PMPI_Comm_split(priv, nrank == 0 ? 0 : MPI_UNDEFINED, wrank, &leaders);
    if (leaders != MPI_COMM_NULL) {
        PMPI_Comm_rank(leaders, &lrank);
        PMPI_Comm_size(leaders, &nleaders);
        if (lrank == 0) {
            for (int peer = 1; peer < nleaders; peer++) {
                int64_t best = INT64_MAX, off = 0;
                for (int k = 0; k < ROUNDS; k++) {
                    int64_t t0 = mono_ns(), t1 = 0;
                    PMPI_Send(&t0, 1, MPI_INT64_T, peer, TAG, leaders);
                    PMPI_Recv(&t1, 1, MPI_INT64_T, peer, TAG, leaders, MPI_STATUS_IGNORE);
                    int64_t t2 = mono_ns();
                    if (t2 - t0 < best) {
                        best = t2 - t0;
                        off = t0 + (t2 - t0) / 2 - t1;
                    }
                }
                int64_t r[2] = {off, best};
                PMPI_Send(r, 2, MPI_INT64_T, peer, TAG, leaders);
            }
        } else {
            for (int k = 0; k < ROUNDS; k++) {
                int64_t t;
                PMPI_Recv(&t, 1, MPI_INT64_T, 0, TAG, leaders, MPI_STATUS_IGNORE);
                t = mono_ns();
                PMPI_Send(&t, 1, MPI_INT64_T, 0, TAG, leaders);
            }
            PMPI_Recv(res, 2, MPI_INT64_T, 0, TAG, leaders, MPI_STATUS_IGNORE);
        }
        PMPI_Comm_free(&leaders);
    }
    PMPI_Bcast(res, 2, MPI_INT64_T, 0, node);
    PMPI_Comm_free(&node);
    tick_ns_pair(&out->ticks, &out->mono_ns);
    out->offset_ns = res[0];
    out->rtt_ns = res[1];
    out->valid = 1;
}

/* A process that MPI_Comm_spawn (or _multiple) started: its MPI_COMM_WORLD
 * is not the job's, its ranks repeat those of the job, so it is not
 * recorded (docs/REPORT.md, "What the runtime does not record"). */
static int spawned_note(void)
{
    MPI_Comm parent = MPI_COMM_NULL;
    int rank = -1;
    if (PMPI_Comm_get_parent(&parent) != MPI_SUCCESS || parent == MPI_COMM_NULL) return 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    warn("process %d, rank %d of an MPI_COMM_WORLD started by MPI_Comm_spawn: not recorded (mpilens "
         "records the processes of the launched job, not those they spawn)",
         (int)getpid(), rank);
    return 1;
}

void ml_after_init(int provided)
{
    int flag = 0;
    if (init_done || !hdr || PMPI_Initialized(&flag) != MPI_SUCCESS || !flag) return;
    init_done = 1;
    if (spawned_note()) {
        /* its file goes; from here on it is an unrecorded process, with the
         * hidden collectives of the others of its world (all spawned) */
        unlink(path);
        ml_disabled = 1;
        ml_lost = 1;
        lost_init_sync();
        return;
    }
    int rank = 0, size = 0, len = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (hdr->rank != rank) {             /* file was named before the rank was known */
        char np[PATH_MAX];
        char *slash = strrchr(path, '/');
        snprintf(np, sizeof np, "%.*s/rank-%05d.mlt", (int)(slash - path), path, rank);
        if (rename(path, np) == 0) copy_str(path, sizeof path, np);
    }
    hdr->rank = rank;
    hdr->size = size;
    if (provided >= 0) hdr->thread_level = provided;
    else if (provided == -2) PMPI_Query_thread(&hdr->thread_level);
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    PMPI_Get_library_version(v, &len);
    copy_str(hdr->mpi_version, sizeof hdr->mpi_version, v);
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    mpi_ready = 1;
    /* The private communicator lives only during the sync (here and at
     * MPI_Finalize): the program's communicators then get the context ids
     * and handles they get without the runtime (Open MPI takes the lowest
     * free ones).  One kept all along is suspected in a hang of Open MPI's
     * MPI_Dist_graph_create (treematch, issue 12). */
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &priv) == MPI_SUCCESS) {
        PMPI_Comm_set_errhandler(priv, MPI_ERRORS_RETURN);
        clock_sync(&hdr->sync_init, 1);
        PMPI_Comm_free(&priv);
    }
    ml_py_setup(chain_depth > 1);   /* a Python program: the lines of its calls */
    pthread_mutex_lock(&lock);
    modules_refresh();
    pthread_mutex_unlock(&lock);
    anchor_refresh();
    ml_fs_after_init();
}

/* An unrecorded process (ml_lost) in MPI_Init and MPI_Finalize: the same
 * collectives as the recorded ones (ml_after_init, ml_before_finalize), the
 * results thrown away.  rid is the wrapper's routine; others are ignored. */
static int rid_is(int rid, const char *name)
{
    return rid >= 0 && (unsigned)rid < ml_nroutines && strcmp(ml_routine_names[rid], name) == 0;
}

void ml_lost_post(int rid)
{
    int flag = 0;
    if (!ml_lost || lost_inited || !(rid_is(rid, "MPI_Init") || rid_is(rid, "MPI_Init_thread"))) return;
    if (PMPI_Initialized(&flag) != MPI_SUCCESS || !flag) return;
    if (lost_exists && !spawned_note())
        warn("cannot create %s: File exists; this process is not recorded", path);
    lost_init_sync();
}

static void lost_init_sync(void)
{
    lost_inited = 1;
    struct ml_clock_sync dummy;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &priv) == MPI_SUCCESS) {
        PMPI_Comm_set_errhandler(priv, MPI_ERRORS_RETURN);
        clock_sync(&dummy, 1);
        PMPI_Comm_free(&priv);
    }
}

void ml_lost_pre(int rid)
{
    if (!ml_lost || !lost_inited || lost_finalized || !rid_is(rid, "MPI_Finalize")) return;
    lost_finalized = 1;
    struct ml_clock_sync dummy;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &priv) == MPI_SUCCESS) {
        PMPI_Comm_set_errhandler(priv, MPI_ERRORS_RETURN);
        clock_sync(&dummy, 0);
        PMPI_Comm_free(&priv);
    }
}

void ml_before_finalize(void)
{
    if (!init_done || final_done) return;
    final_done = 1;
    ml_fs_before_finalize();
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &priv) == MPI_SUCCESS) {
        PMPI_Comm_set_errhandler(priv, MPI_ERRORS_RETURN);
        clock_sync(&hdr->sync_final, 0);
        PMPI_Comm_free(&priv);
    }
    if (world_group != MPI_GROUP_NULL) PMPI_Group_free(&world_group);
    mpi_ready = 0;
}

void ml_after_finalize(void)
{
    if (!hdr) return;
    hdr->state = ML_STATE_FINALIZED;
    anchor_refresh();
}

void ml_before_abort(struct ml_call *c, MPI_Comm comm, int code)
{
    (void)comm;
    ml_fs_abort(c, code);
    /* MPI_Abort does not return: record the call now, code as its result. */
    c->t1 = ml_now();
    struct ml_rec *r = ml_rec_begin(c, ML_REC_CALL, 2);
    ml_rec_end(c, r, code == MPI_SUCCESS ? -1 : code);
    anchor_refresh();
}

void ml_before_abort_f(struct ml_call *c, void *comm, void *code)
{
    ml_before_abort(c, MPI_COMM_NULL, code ? *(MPI_Fint *)code : -1);
    (void)comm;
    c->th->fort_pending = 0;
    c->th->fort_taken = 1;
}

/* ---- work between polls -------------------------------------------------
 * A poll that starts more than ML_WORK_GAP_NS after the thread's previous
 * call ended counts as work between polls (struct ml_live.work): the thread
 * computes, or waits for something outside MPI, and the deadlock check
 * leaves it alone.  But a thread that only polls, on a machine with more
 * runnable threads than cores, also sees such gaps: it was preempted.  The
 * thread's own scheduler counters tell the two apart: over the gap it either
 * used the CPU (work), or blocked of its own accord (a voluntary switch:
 * sleep, I/O, a lock; counted as work, as before), or neither (it sat on a
 * run queue: no work).  The counters come from the thread's CPU clock and
 * getrusage(RUSAGE_THREAD) (voluntary switches), two system calls, taken at
 * the end of a poll at most every ML_SAMPLE_GAP_NS (ml_poll_sample) and at a
 * gap: polling threads only, never the hot path of other calls.  The sample
 * is older than the gap by up to 2 x ML_SAMPLE_GAP_NS of polling, and the
 * poll that ends the gap is measured with it: their length is taken off the
 * CPU time; what remains above ML_WORK_CPU_NS is work.
 * Without a usable sample (first gap, or the last sample was taken before
 * other calls) the gap counts as work: no deadlock is ever claimed on a
 * guess. */
#define ML_WORK_CPU_NS 2000000    /* 2 ms of CPU in a gap: computing */

/* The thread's CPU time from its CPU clock, which includes the slice it is
 * running now: getrusage's lags by up to a scheduler tick (measured here: 1
 * to 4 ms), which made a polling thread that was preempted look as if it had
 * computed in the gap, and delayed deadlock verdicts under load. */
static int sched_now(int64_t *cpu_ns, long *nvcsw)
{
    struct rusage ru;
    struct timespec ts;
    if (getrusage(RUSAGE_THREAD, &ru) != 0 || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
    *cpu_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    *nvcsw = ru.ru_nvcsw;
    return 0;
}

void ml_poll_sample(struct ml_thread *th, uint64_t now)
{
    if (sched_now(&th->sched_cpu_ns, &th->sched_nvcsw) == 0) th->sched_tick = now;
    else th->sched_tick = 0;
}

void ml_poll_gap(struct ml_thread *th, uint64_t prev, uint64_t t0, uint64_t now)
{
    int64_t cpu;
    long nv;
    int work = 1;
    if (sched_now(&cpu, &nv) == 0) {
        /* The sample must be from the polling just before the gap.  The CPU
         * time since then less what the polling before the gap and the poll
         * after it can have used (at most their length) is what the thread
         * used outside MPI in the gap, at least. */
        if (th->sched_tick && th->sched_tick <= prev && prev - th->sched_tick <= 2 * ml_sample_gap &&
            nv == th->sched_nvcsw && t0 <= now) {
            double busy = (double)((prev - th->sched_tick) + (now - t0)) * ml_ns_per_tick;
            if ((double)(cpu - th->sched_cpu_ns) - busy < ML_WORK_CPU_NS) work = 0;
        }
        th->sched_tick = now;
        th->sched_cpu_ns = cpu;
        th->sched_nvcsw = nv;
    } else {
        th->sched_tick = 0;
    }
    if (work) __atomic_store_n(&th->live->work, (uint8_t)(th->live->work + 1), __ATOMIC_RELAXED);
}

__attribute__((destructor)) static void ml_exit(void)
{
    /* a child forked by the program shares the mapping: the file is not its own */
    if (!hdr || hdr->pid != (int32_t)getpid()) return;
    ml_fs_at_exit();
    pool_trim();
    if ((char *)ml_th.chunk == scratch) {      /* this thread's last dropped records */
        drop_count(&ml_th);
        ml_th.cur = scratch + sizeof(struct ml_chunk);
    }
    if (hdr->state != ML_STATE_FINALIZED) hdr->state = ML_STATE_EXITED;
    anchor_refresh();
}
