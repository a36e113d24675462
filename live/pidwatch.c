/*
 * pidwatch.c — for `mpilens run`: a thread that watches the processes of the
 * ranks on this host and notes when one ends without any record of its own
 * (SIGKILL, the OOM killer: nothing runs in the process).  It writes a
 * failure record of kind ML_FAIL_VANISHED into the rank file with the time
 * it saw the process gone and the number of the look (ranks seen gone in
 * the same look share it: their order is unknown), so that the diagnosis
 * can tell which rank went first even when the launcher then SIGKILLs the
 * others (MPICH) and none of them wrote anything.
 *
 * One pidfd per rank process (pidfd_open, Linux 5.3; without it /proc is
 * looked at every 50 ms), polled together; the run directory is scanned
 * for new rank files every 200 ms while its mtime moves.  A process counts
 * as this rank's only while /proc/PID/exe is the executable of the header.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mlformat.h"
#include "tool.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

struct pw_rank {
    int fd;        /* rank file, read-write */
    int pfd;       /* pidfd, or -1 (then /proc is polled) */
    pid_t pid;
    dev_t dev;
    ino_t ino;
    int done;
};

struct pidwatch {
    char dir[PATH_MAX];
    char host[64];
    pthread_t th;
    volatile int stop;
    struct pw_rank *r;
    unsigned n, cap;
    uint32_t look;
    struct timespec dir_mtime;
    int64_t last_scan;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int read_header(int fd, struct ml_header *h)
{
    if (pread(fd, h, sizeof *h, 0) != (ssize_t)sizeof *h) return -1;
    if (memcmp(h->magic, ML_MAGIC, 8) != 0 || h->version != ML_VERSION || h->pid <= 0) return -1;
    return 0;
}

/* The process pid runs the executable exe (not a zombie). */
static int runs(pid_t pid, const char *exe)
{
    char p[64], x[PATH_MAX];
    snprintf(p, sizeof p, "/proc/%d/exe", (int)pid);
    ssize_t n = readlink(p, x, sizeof x - 1);
    if (n <= 0) return 0;
    x[n] = 0;
    if (strncmp(x, exe, 511) != 0) return 0;
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    char b[512];
    n = fd >= 0 ? read(fd, b, sizeof b - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) return 0;
    b[n] = 0;
    const char *c = strrchr(b, ')');
    return !(c && c[1] == ' ' && (c[2] == 'Z' || c[2] == 'X' || c[2] == 'x'));
}

static volatile sig_atomic_t stopping;

void pidwatch_stopping(void)
{
    stopping = 1;
}

/* The process of r ended: when it left no record, write ours. */
static void stamp(struct pidwatch *w, struct pw_rank *r, int64_t t, uint32_t look)
{
    struct ml_header h;
    r->done = 1;
    if (read_header(r->fd, &h) != 0 || h.state != ML_STATE_RUNNING || h.failure.kind != ML_FAIL_NONE) return;
    uint64_t ticks = (uint64_t)t;
    if (h.clock_kind == 1) {
        double rate = 0;
        if (h.anchor1_ticks > h.anchor0_ticks && h.anchor1_ns > h.anchor0_ns)
            rate = (double)(h.anchor1_ticks - h.anchor0_ticks) / (double)(h.anchor1_ns - h.anchor0_ns);
        if (!(rate > 0)) return;
        ticks = h.anchor0_ticks + (uint64_t)(int64_t)((double)(t - h.anchor0_ns) * rate);
    }
    struct ml_failure x;
    memset(&x, 0, sizeof x);
    x.errclass = -1;
    x.code = (int32_t)look;
    x.ticks = ticks;
    x.routine = 0xffff;
    if (stopping) x.flags |= ML_FAILF_STOPPING;
    snprintf(x.message, sizeof x.message, "no record of its own: mpilens run saw the process gone");
    /* fields first, kind last (mlformat.h) */
    off_t base = (off_t)offsetof(struct ml_header, failure);
    if (pwrite(r->fd, (char *)&x + 4, sizeof x - 4, base + 4) == (ssize_t)(sizeof x - 4)) {
        uint32_t k = ML_FAIL_VANISHED;
        if (pwrite(r->fd, &k, 4, base) != 4) {
        }
    }
    (void)w;
}

static void add_file(struct pidwatch *w, int dfd, const char *name)
{
    struct stat st;
    if (fstatat(dfd, name, &st, 0) != 0 || !S_ISREG(st.st_mode)) return;
    for (unsigned i = 0; i < w->n; i++)
        if (w->r[i].dev == st.st_dev && w->r[i].ino == st.st_ino) return;
    int fd = openat(dfd, name, O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    struct ml_header h;
    if (read_header(fd, &h) != 0 || strncmp(h.host, w->host, sizeof h.host) != 0) {
        close(fd);                    /* not ready yet, or another host's */
        return;
    }
    if (w->n == w->cap) {
        unsigned cap = w->cap ? w->cap * 2 : 16;
        struct pw_rank *nr = realloc(w->r, cap * sizeof *nr);
        if (!nr) {
            close(fd);
            return;
        }
        w->r = nr;
        w->cap = cap;
    }
    struct pw_rank *r = &w->r[w->n++];
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->pid = h.pid;
    r->dev = st.st_dev;
    r->ino = st.st_ino;
    r->pfd = (int)syscall(SYS_pidfd_open, (pid_t)h.pid, 0);
    char exe[513];
    memcpy(exe, h.exe, 512);
    exe[512] = 0;
    /* a pid already gone (or taken by another program) is gone now */
    if (h.state != ML_STATE_RUNNING) {
        r->done = 1;
    } else if (!runs(h.pid, exe)) {
        stamp(w, r, now_ns(), ++w->look);
    }
    if (r->done && r->pfd >= 0) {
        close(r->pfd);
        r->pfd = -1;
    }
}

static void scan(struct pidwatch *w)
{
    struct stat st;
    if (stat(w->dir, &st) != 0) return;
    if (st.st_mtim.tv_sec == w->dir_mtime.tv_sec && st.st_mtim.tv_nsec == w->dir_mtime.tv_nsec &&
        now_ns() - w->last_scan < 2000000000) {
        /* unchanged; still look now and then: a header may have been
         * incomplete at the last scan */
        return;
    }
    w->dir_mtime = st.st_mtim;
    w->last_scan = now_ns();
    DIR *d = opendir(w->dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".mlt") != 0) continue;
        add_file(w, dirfd(d), e->d_name);
    }
    closedir(d);
}

/* One look: wait up to ms for a process to end; stamp those that did. */
static void look(struct pidwatch *w, int ms)
{
    struct pollfd *p = calloc(w->n ? w->n : 1, sizeof *p);
    unsigned *idx = calloc(w->n ? w->n : 1, sizeof *idx);
    unsigned np = 0, nproc = 0;
    for (unsigned i = 0; p && idx && i < w->n; i++) {
        if (w->r[i].done) continue;
        if (w->r[i].pfd < 0) {
            nproc++;
            continue;
        }
        p[np].fd = w->r[i].pfd;
        p[np].events = POLLIN;
        idx[np++] = i;
    }
    if (nproc && ms > 50) ms = 50;
    int k = p && idx ? poll(p, np, ms) : -1;
    if (k < 0 && ms > 0 && (!p || !idx || errno != EINTR)) {
        struct timespec ts = {0, (long)ms * 1000000};
        nanosleep(&ts, NULL);
    }
    int64_t t = now_ns();
    uint32_t lk = w->look + 1;
    int any = 0;
    for (unsigned j = 0; k > 0 && j < np; j++) {
        if (!(p[j].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        struct pw_rank *r = &w->r[idx[j]];
        stamp(w, r, t, lk);
        close(r->pfd);
        r->pfd = -1;
        any = 1;
    }
    for (unsigned i = 0; nproc && i < w->n; i++) {
        struct pw_rank *r = &w->r[i];
        if (r->done || r->pfd >= 0) continue;
        if (kill(r->pid, 0) == 0 || errno != ESRCH) {
            char path[64], b[512];
            snprintf(path, sizeof path, "/proc/%d/stat", (int)r->pid);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            ssize_t n = fd >= 0 ? read(fd, b, sizeof b - 1) : -1;
            if (fd >= 0) close(fd);
            if (n > 0) {
                b[n] = 0;
                const char *c = strrchr(b, ')');
                if (!(c && c[1] == ' ' && (c[2] == 'Z' || c[2] == 'X'))) continue;
            }
        }
        stamp(w, r, t, lk);
        any = 1;
    }
    if (any) w->look = lk;
    free(p);
    free(idx);
}

static void *watch_main(void *arg)
{
    struct pidwatch *w = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);   /* signals are for the main thread */
    int64_t next_scan = 0;
    while (!w->stop) {
        if (now_ns() >= next_scan) {
            scan(w);
            next_scan = now_ns() + 200000000;
        }
        look(w, 100);
    }
    return NULL;
}

struct pidwatch *pidwatch_start(const char *dir)
{
    struct pidwatch *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    snprintf(w->dir, sizeof w->dir, "%s", dir);
    gethostname(w->host, sizeof w->host - 1);
    /* two descriptors per rank of this host */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (pthread_create(&w->th, NULL, watch_main, w) != 0) {
        free(w);
        return NULL;
    }
    return w;
}

void pidwatch_stop(struct pidwatch *w, double wait_s)
{
    if (!w) return;
    w->stop = 1;
    pthread_join(w->th, NULL);
    /* a last look: files not seen yet, processes just signalled */
    w->last_scan = 0;
    scan(w);
    int64_t until = now_ns() + (int64_t)(wait_s * 1e9);
    for (;;) {
        int left = 0;
        for (unsigned i = 0; i < w->n; i++) left += !w->r[i].done;
        if (!left) break;
        int64_t ms = (until - now_ns()) / 1000000;
        look(w, ms > 0 ? (ms > 100 ? 100 : (int)ms) : 0);
        if (ms <= 0) break;
    }
    for (unsigned i = 0; i < w->n; i++) {
        if (w->r[i].pfd >= 0) close(w->r[i].pfd);
        close(w->r[i].fd);
    }
    free(w->r);
    free(w);
}
