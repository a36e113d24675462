/*
 * run.c — `mpilens run`: launch an MPI program with the runtime preloaded.
 *
 *   mpilens run [-n N] [-o DIR] [--mpi=openmpi|mpich] ./app [args]
 *   mpilens run [-o DIR] [--mpi=...] -- <launcher command ...>
 *
 * It checks everything it can before creating anything: the program exists,
 * is executable and is dynamically linked against an MPI it has a runtime
 * for (or has the runtime archive linked into it); the run directory does
 * not exist yet and its parent is writable.  Only then does it create the
 * directory (0700) and start the launcher with LD_PRELOAD (not for a
 * program with the runtime linked in), MPILENS_DIR and MPILENS_JOBID in its
 * environment.
 *
 * While the launcher runs, the live monitor (live.c) watches the run
 * directory: the table of what every rank does (redrawn at the bottom of a
 * terminal, periodic snapshots, or nothing), and the deadlock check, which
 * by default stops the job (exit status RUN_EXIT_DEADLOCK).  Once per
 * refresh it also checks for failed ranks (diag.c): when a rank failed and
 * others still run after the grace period, mpilens stops them.  When the
 * launcher has ended, ranks still alive get the grace period, then SIGTERM,
 * then SIGKILL; the failure diagnosis is printed when the job failed.
 * Otherwise the exit status is the launcher's (128 + signal number if it was
 * killed).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gelf.h>

#include "live.h"
#include "remote.h"
#include "stream.h"
#include "symbols.h"
#include "tool.h"

#define ERR(...) (fprintf(stderr, "mpilens run: " __VA_ARGS__), fputc('\n', stderr))

/* Exit status of mpilens run when it stopped a deadlocked job. */
#define RUN_EXIT_DEADLOCK 86

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens run [options] PROGRAM [ARGS...]\n"
            "       mpilens run [options] -- LAUNCHER [LAUNCHER ARGS...]\n\n"
            "Runs an MPI program with every MPI call recorded into a run directory\n"
            "(one file per rank). Without --, mpilens starts the launcher of the MPI the\n"
            "program is linked against (mpirun.openmpi or mpiexec.mpich); after --, it\n"
            "runs your launcher command (mpirun, mpiexec, srun, ...) as given.\n\n"
            "While the job runs, a table shows what every rank does (MPI routine, peer,\n"
            "file:line, since when); ranks in the same state are grouped. When no rank\n"
            "makes progress for the deadlock timeout and none can, the deadlock is named\n"
            "(who waits for whom, where), written to DIR/deadlock.txt and the job stopped.\n\n"
            "  -n, -np N              number of ranks (default 2)\n"
            "  -o DIR                 run directory (default: mpilens-<program>-<id>); must\n"
            "                         not exist\n"
            "  -k, --stack-depth N    call sites N frames deep, 1 to %d (default 1): a site is\n"
            "                         the chain of N return addresses from the program's call\n"
            "                         of the MPI routine outwards, so calls of one routine\n"
            "                         reached from different callers are different sites\n"
            "                         (mpiP's -k); costs a stack unwind per call\n"
            "      --mpi=NAME         openmpi or mpich, when it cannot be told from the\n"
            "                         program\n"
            "      --monitor=MODE     auto: the table redrawn at the bottom of the terminal,\n"
            "                         none when stderr is not a terminal (default);\n"
            "                         snapshots: a plain table every interval; off: no table\n"
            "      --interval=S       seconds between refreshes (default 1)\n"
            "      --sort=size|age    group order: largest first (default), or longest\n"
            "                         waiting\n"
            "      --deadlock-timeout=S  seconds without progress before the deadlock check\n"
            "                         (default 10; 0 turns the check off)\n"
            "      --deadlock-report  on a deadlock, report it but do not stop the job\n"
            "      --grace=S          when a rank failed (or the launcher ended) and other\n"
            "                         ranks still run after S seconds, stop them: SIGTERM,\n"
            "                         then SIGKILL 3 s later (default 10)\n"
            "      --listen=[ADDR:]PORT  the live view across nodes: the first rank of each\n"
            "                         node starts an agent (mpilens agent) that streams its\n"
            "                         node's state here over TCP, authenticated by a secret\n"
            "                         drawn for this job; listen on ADDR (default 127.0.0.1,\n"
            "                         give an address the nodes reach) and PORT (0: any)\n"
            "      --pager-cpus=LIST  run each rank's pager thread (it prepares the next\n"
            "                         chunks of the rank file) on these CPUs, like 3 or\n"
            "                         2-3,7: a core the job leaves free; default: the CPUs\n"
            "                         the rank's process started with\n"
            "  -q, --quiet            no table, no messages, no warnings: only mpilens's own\n"
            "                         errors and the diagnosis of a job that failed\n"
            "  -h, --help             this text\n\n"
            "Exit status: the program's (the launcher's; 128+N when it was killed by signal\n"
            "N); %d when mpilens stopped a deadlocked job; 1 when the launcher says 0\n"
            "although ranks failed; 130 after Ctrl+C, 143 after SIGTERM to mpilens run (a\n"
            "time limit, timeout): the job is stopped and its trace kept. Afterwards:\n"
            "mpilens report DIR, mpilens dump DIR, mpilens top DIR (the last state).\n",
            ML_MAX_DEPTH, RUN_EXIT_DEADLOCK);
}

static pid_t child = -1;

/* SIGINT (Ctrl+C): the user stops the job; SIGTERM/SIGHUP: someone else does
 * (a batch system's time limit, timeout(1)).  Either way the job is stopped,
 * the trace kept, and mpilens run says so in one line (no failure
 * diagnosis: nothing failed by itself). */
static volatile sig_atomic_t interrupted, terminated;
static struct timespec stopped_at;   /* wall clock of the first such signal */

/* SIGTERM, SIGHUP: to the launcher as well. */
static void on_term(int sig)
{
    if (!terminated && !interrupted) clock_gettime(CLOCK_REALTIME, &stopped_at);
    if (!terminated) terminated = sig;
    pidwatch_stopping();
    if (child > 0) kill(child, sig);
}

/* Ctrl+C reaches the launcher through the terminal (same process group);
 * a SIGINT sent to mpilens alone (kill, not the terminal) is passed on. */
static void on_int(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (!terminated && !interrupted) clock_gettime(CLOCK_REALTIME, &stopped_at);
    interrupted = 1;
    pidwatch_stopping();
    if (child > 0 && si && si->si_code == SI_USER && si->si_pid != getpid()) kill(child, sig);
}

/* Has the program debug information (a .debug_info or .debug_line section)?
 * 1 yes, 0 no, -1 cannot tell. */
static int has_debug_info(const char *exe)
{
    int fd = open(exe, O_RDONLY | O_CLOEXEC), found = 0;
    if (fd < 0) return -1;
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    size_t shstr;
    if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstr) != 0) {
        if (e) elf_end(e);
        close(fd);
        return -1;
    }
    for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstr, sh.sh_name) : NULL;
        if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".debug_line") || !strcmp(name, ".gnu_debuglink") ||
                     !strcmp(name, ".gnu_debugaltlink")))
            found = 1;
    }
    elf_end(e);
    close(fd);
    return found;
}

/* PATH lookup; returns 0 and the full path in out if an executable file. */
static int find_exe(const char *name, char *out, size_t n)
{
    if (strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = strdup(path), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, n, "%s/%s", *d ? d : ".", name);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0) {
            free(copy);
            return 0;
        }
    }
    free(copy);
    return -1;
}

enum link_kind { LINK_ERROR, LINK_OPENMPI, LINK_MPICH, LINK_NO_MPI, LINK_STATIC, LINK_SCRIPT, LINK_OTHER_MPI };

/* In ldd's output, the first library named libmpi*.so* or libmpich*.so*
 * (not our own libmpilens-*): its name into out. */
static int other_mpi_lib(const char *ldd, char *out, size_t n)
{
    for (const char *l = ldd; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        const char *p = l, *end = l + len;
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        const char *q = p;
        while (q < end && *q != ' ' && *q != '\t') q++;
        const char *b = p;  /* base name: ldd may print a path */
        for (const char *x = p; x < q; x++)
            if (*x == '/') b = x + 1;
        size_t bl = (size_t)(q - b);
        if (bl > 6 && !strncmp(b, "libmpi", 6) && strncmp(b, "libmpilens", 10) && memmem(b, bl, ".so", 3)) {
            snprintf(out, n, "%.*s", (int)(bl < 200 ? bl : 200), b);
            return 1;
        }
        l = e ? e + 1 : end;
    }
    return 0;
}

/* What MPI does the program link?  Asks the dynamic loader (ldd).  For an
 * MPI mpilens has no runtime for, its library's name goes into other. */
static enum link_kind program_mpi(const char *exe, char *other, size_t nother)
{
    char head[2] = {0};
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return LINK_ERROR;
    ssize_t got = read(fd, head, 2);
    close(fd);
    if (got == 2 && head[0] == '#' && head[1] == '!') return LINK_SCRIPT;
    int p[2];
    if (pipe(p) != 0) return LINK_ERROR;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2);
        close(p[0]);
        execlp("ldd", "ldd", exe, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    char buf[65536];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof buf - 1 && (r = read(p[0], buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)r;
    buf[len] = 0;
    close(p[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (strstr(buf, "libmpi.so.40")) return LINK_OPENMPI;
    if (strstr(buf, "libmpich.so") || strstr(buf, "libmpi.so.12")) return LINK_MPICH;
    if (other_mpi_lib(buf, other, nother)) return LINK_OTHER_MPI;
    if (strstr(buf, "not a dynamic executable") || strstr(buf, "statically linked")) return LINK_STATIC;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return LINK_STATIC;
    return LINK_NO_MPI;
}

/* The runtime linked into the program (the archive libmpilens-<mpi>.a):
 * its marker string (runtime/rt.c) names the MPI; NULL if none. */
static const char *linked_runtime(const char *exe)
{
    static const char *const impls[] = {"openmpi", "mpich"};
    char pat[2][64];
    for (int i = 0; i < 2; i++)  /* built here, so that mpilens itself holds no marker */
        snprintf(pat[i], sizeof pat[i], "%cmpilens-runtime-%s:%s%c", 1, "linked", impls[i], 1);
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    const char *found = NULL;
    static char buf[1 << 20];
    size_t keep = 0;
    ssize_t r;
    while (!found && (r = read(fd, buf + keep, sizeof buf - keep)) > 0) {
        size_t len = keep + (size_t)r;
        for (int i = 0; i < 2 && !found; i++)
            if (memmem(buf, len, pat[i], strlen(pat[i]))) found = impls[i];
        keep = len < 64 ? len : 64;  /* a marker across two reads */
        memmove(buf, buf + len - keep, keep);
    }
    close(fd);
    return found;
}

/* A program with MPI linked into it (statically): it defines PMPI_Init. */
static int defines_mpi(const char *exe)
{
    int fd = open(exe, O_RDONLY | O_CLOEXEC), found = 0;
    if (fd < 0) return 0;
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    for (Elf_Scn *scn = NULL; e && !found && (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; i < n && !found; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF) continue;
            const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
            if (name && (!strcmp(name, "PMPI_Init") || !strcmp(name, "MPI_Init"))) found = 1;
        }
    }
    if (e) elf_end(e);
    close(fd);
    return found;
}

/* The MPI a launcher belongs to, from where it really lives. */
static const char *launcher_mpi(const char *launcher)
{
    char path[PATH_MAX], real[PATH_MAX];
    if (find_exe(launcher, path, sizeof path) != 0 || !realpath(path, real)) return NULL;
    if (strstr(real, "openmpi") || strstr(real, "orterun") || strstr(real, "prterun")) return "openmpi";
    if (strstr(real, "mpich") || strstr(real, "hydra")) return "mpich";
    return NULL;
}

static int is_interpreter(const char *exe)
{
    const char *b = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    return !strncmp(b, "python", 6) || !strncmp(b, "perl", 4) || !strncmp(b, "ruby", 4) ||
           !strncmp(b, "julia", 5) || !strncmp(b, "R", 2);
}

static int seconds(const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0) || v > 1e6) {
        ERR("%s wants a number of seconds (0.5, 2, ...), not '%s'", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int launcher_exited(pid_t p)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)p, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == p;
}

/* Ranks of this host still alive after a failure get SIGTERM, then SIGKILL. */
static void stop_leftovers(const char *dir, int quiet)
{
    int n = diag_signal_leftovers(dir, SIGTERM), alive = 0;
    if (n <= 0) return;
    if (!quiet) fprintf(stderr, "mpilens: %d rank process%s still running: SIGTERM\n", n, n == 1 ? "" : "es");
    for (int i = 0; i < 30; i++) {
        sleep_s(0.1);
        if (diag_status(dir, NULL, &alive) == 0 && alive == 0) return;
    }
    n = diag_signal_leftovers(dir, SIGKILL);
    if (n > 0 && !quiet) fprintf(stderr, "mpilens: %d rank process%s still running: SIGKILL\n", n, n == 1 ? "" : "es");
}

/* Called by the live monitor once per refresh: a rank failed and others
 * still run after the grace period -> stop them (and the launcher when it
 * does not end then). */
struct fail_watch {
    const char *dir;
    double grace, since, last;
    int quiet, stopped;
};

static int fail_tick(void *arg)
{
    struct fail_watch *fw = arg;
    if (interrupted || terminated) return 0;   /* being stopped anyway */
    double t = now_s();
    if (t - fw->last < 1.0) return 0;
    fw->last = t;
    int failed = 0, alive = 0;
    if (diag_status(fw->dir, &failed, &alive) != 0 || failed == 0 || alive == 0) {
        fw->since = 0;
        return 0;
    }
    if (fw->since == 0) fw->since = t;
    if (t - fw->since < fw->grace) return 0;
    if (!fw->quiet)
        fprintf(stderr, "mpilens: %d rank%s failed and %d still run%s after %.0f s: stopping the job\n", failed,
                failed == 1 ? "" : "s", alive, alive == 1 ? "s" : "", fw->grace);
    stop_leftovers(fw->dir, fw->quiet);
    fw->stopped = 1;
    return 1;
}

static int count_rank_files(const char *dir)
{
    struct mlr_dir d;
    if (mlr_dir_scan(dir, &d) != MLR_OK) return 0;
    int n = (int)d.n;
    mlr_dir_free(&d);
    return n;
}

/* A list of CPU numbers like 3 or 2-3,7 (what --pager-cpus takes; the
 * runtime reads it from MPILENS_PAGER_CPUS). */
static int cpu_list_ok(const char *s)
{
    if (!*s) return 0;
    for (;;) {
        char *e;
        if (!isdigit((unsigned char)*s)) return 0;
        long a = strtol(s, &e, 10), b = a;
        if (*e == '-') {
            if (!isdigit((unsigned char)e[1])) return 0;
            b = strtol(e + 1, &e, 10);
        }
        if (a > b || b >= 1024) return 0;
        if (!*e) return 1;
        if (*e != ',' || !e[1]) return 0;
        s = e + 1;
    }
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"np", required_argument, 0, 'n'},
        {"mpi", required_argument, 0, 'm'},
        {"stack-depth", required_argument, 0, 'k'},
        {"quiet", no_argument, 0, 'q'},
        {"monitor", required_argument, 0, 'M'},
        {"interval", required_argument, 0, 'I'},
        {"sort", required_argument, 0, 'S'},
        {"deadlock-timeout", required_argument, 0, 'D'},
        {"deadlock-report", no_argument, 0, 'R'},
        {"grace", required_argument, 0, 'G'},
        {"listen", required_argument, 0, 'L'},
        {"pager-cpus", required_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    long nranks = 2, depth = 1;
    const char *outdir = NULL, *mpi = NULL, *listen_on = NULL, *pager_cpus = NULL;
    int quiet = 0, c;
    struct live_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.stop = 1;
    lo.display = LIVE_SHOW_AUTO;
    double v, grace = 10;
    /* -np is the mpirun spelling: accept it as --np */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "-np")) argv[i] = "--np";
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+n:o:k:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'n': {
            char *end;
            nranks = strtol(optarg, &end, 10);
            if (*end || nranks < 1 || nranks > 1000000) {
                ERR("-n wants a number of ranks (1, 2, ...), not '%s'", optarg);
                return 2;
            }
            break;
        }
        case 'o': outdir = optarg; break;
        case 'k': {
            char *end;
            depth = strtol(optarg, &end, 10);
            if (!*optarg || *end || depth < 1 || depth > ML_MAX_DEPTH) {
                ERR("-k (--stack-depth) wants a number of frames from 1 to %d, not '%s'", ML_MAX_DEPTH, optarg);
                return 2;
            }
            break;
        }
        case 'm':
            if (strcmp(optarg, "openmpi") && strcmp(optarg, "mpich")) {
                ERR("unknown MPI '%s': use --mpi=openmpi or --mpi=mpich", optarg);
                return 2;
            }
            mpi = optarg;
            break;
        case 'P':
            if (!cpu_list_ok(optarg)) {
                ERR("--pager-cpus wants a list of CPUs like 3 or 2-3,7, not '%s'", optarg);
                return 2;
            }
            pager_cpus = optarg;
            break;
        case 'q': quiet = 1; break;
        case 'M':
            if (!strcmp(optarg, "auto")) lo.display = LIVE_SHOW_AUTO;
            else if (!strcmp(optarg, "snapshots")) lo.display = LIVE_SHOW_SNAPSHOTS;
            else if (!strcmp(optarg, "off")) lo.display = LIVE_SHOW_NONE;
            else {
                ERR("--monitor is auto, snapshots or off, not '%s'", optarg);
                return 2;
            }
            break;
        case 'I':
        case 'D':
        case 'G':
            if (seconds(c == 'I' ? "--interval" : c == 'D' ? "--deadlock-timeout" : "--grace", optarg, &v))
                return 2;
            if (c == 'I') lo.interval = v < 0.05 ? 0.05 : v;
            else if (c == 'D') lo.deadlock_timeout = v > 0 ? v : -1;
            else grace = v;
            break;
        case 'S':
            if (!strcmp(optarg, "size")) lo.sort = LIVE_SORT_SIZE;
            else if (!strcmp(optarg, "age")) lo.sort = LIVE_SORT_AGE;
            else {
                ERR("--sort is size or age, not '%s'", optarg);
                return 2;
            }
            break;
        case 'R':
            lo.stop = 0;
            lo.keep = 1;
            break;
        case 'L': listen_on = optarg; break;
        case 'h': help(stdout); return 0;
        default:
            tool_bad_option("run", argc, argv);
            return 2;
        }
    }
    int dashdash = optind > 1 && !strcmp(argv[optind - 1], "--");
    if (optind >= argc) {
        if (dashdash) ERR("nothing after '--': give the launcher command, e.g. -- mpirun -n 4 ./app");
        else ERR("which program? e.g. mpilens run -n 4 ./app");
        return 2;
    }
    char **cmd = argv + optind;
    int ncmd = argc - optind;

    /* the program: the first argument (direct), or found in the launcher command */
    char prog[PATH_MAX] = "", found[PATH_MAX];
    const char *from_launcher = NULL;
    if (!dashdash) {
        if (find_exe(cmd[0], prog, sizeof prog) != 0) {
            ERR("%s: no such program in PATH", cmd[0]);
            return 2;
        }
    } else {
        for (int i = 1; i < ncmd; i++) {
            struct stat st;
            if (cmd[i][0] == '-') continue;
            if (find_exe(cmd[i], found, sizeof found) == 0 && stat(found, &st) == 0 &&
                S_ISREG(st.st_mode) && access(found, X_OK) == 0) {
                snprintf(prog, sizeof prog, "%s", found);
                break;
            }
        }
        from_launcher = launcher_mpi(cmd[0]);
        if (find_exe(cmd[0], found, sizeof found) != 0) {
            ERR("%s: no such launcher in PATH", cmd[0]);
            return 2;
        }
    }
    if (prog[0]) {
        struct stat st;
        if (stat(prog, &st) != 0) {
            ERR("%s: no such program (%s)", prog, strerror(errno));
            return 2;
        }
        if (!S_ISREG(st.st_mode) || access(prog, X_OK) != 0) {
            ERR("%s is not an executable file (chmod +x, or give the right path)", prog);
            return 2;
        }
    } else if (!dashdash) {
        return 2;
    }
    /* the runtime linked into the program: no preloading */
    const char *linked = prog[0] ? linked_runtime(prog) : NULL;
    if (linked && !mpi) mpi = linked;
    if (!linked && prog[0] && (mpi || from_launcher)) {
        char other[256] = "";
        enum link_kind k = program_mpi(prog, other, sizeof other);
        const char *has = k == LINK_OPENMPI ? "openmpi" : k == LINK_MPICH ? "mpich" : NULL;
        const char *has_name = k == LINK_OPENMPI ? "Open MPI (libmpi.so.40)" : "MPICH";
        /* --mpi naming the other MPI than the one the program loads: the
         * runtime would call that MPI with the wrong handles (a crash in
         * MPI_Init, lmp of Debian under --mpi=mpich) */
        if (has && mpi && strcmp(has, mpi)) {
            ERR("%s is linked against %s, not %s: --mpi=%s cannot record it (say --mpi=%s, or leave "
                "--mpi out)", prog, has_name, !strcmp(mpi, "mpich") ? "MPICH" : "Open MPI", mpi, has);
            return 2;
        }
        /* the other MPI's launcher: every process would be an MPI job of
         * its own, all of them rank 0 of 1, writing one rank file */
        if (has && from_launcher && strcmp(has, from_launcher)) {
            ERR("%s is linked against %s but %s is %s launcher: every process would be a job of one rank "
                "(use %s)", prog, has_name, cmd[0], !strcmp(from_launcher, "mpich") ? "MPICH's" : "Open MPI's",
                !strcmp(has, "mpich") ? "mpiexec.mpich" : "mpirun.openmpi");
            return 2;
        }
    }
    if (!mpi) {
        char other[256] = "";
        enum link_kind k = prog[0] ? program_mpi(prog, other, sizeof other) : LINK_SCRIPT;
        switch (k) {
        case LINK_OPENMPI: mpi = "openmpi"; break;
        case LINK_MPICH: mpi = "mpich"; break;
        case LINK_OTHER_MPI:
            ERR("%s is linked against %s, an MPI mpilens has no runtime for (known: Open MPI, MPICH); "
                "use --mpi=openmpi|mpich if it is one of them", prog, other);
            return 2;
        case LINK_STATIC:
            ERR("%s is statically linked (or not an ELF program): preloading cannot work; link the "
                "runtime archive into it before the MPI library (see README, 'Linking the runtime explicitly')",
                prog);
            return 2;
        case LINK_SCRIPT:
        case LINK_NO_MPI:
            if (k == LINK_SCRIPT || is_interpreter(prog)) {
                /* an interpreter loads MPI itself (python3 + mpi4py): the launcher's MPI */
                mpi = dashdash ? from_launcher : launcher_mpi("mpirun");
                if (!mpi) {
                    ERR("cannot tell which MPI %s will load: say --mpi=openmpi or --mpi=mpich",
                        prog[0] ? prog : cmd[0]);
                    return 2;
                }
                break;
            }
            if (defines_mpi(prog))
                ERR("%s has MPI linked into it (statically): preloading cannot reach its MPI calls; link "
                    "the runtime archive before the MPI library (see README, 'Linking the runtime explicitly')",
                    prog);
            else
                ERR("%s is not linked against MPI (no libmpi/libmpich): is it an MPI program?", prog);
            return 2;
        default:
            ERR("%s: cannot read it", prog);
            return 2;
        }
    }

    char rt[PATH_MAX];
    snprintf(rt, sizeof rt, "%s/../lib/mpilens/libmpilens-%s.so", mpilens_self_dir(), mpi);
    if (!linked && access(rt, R_OK) != 0) {
        ERR("no runtime for %s (%s missing): was mpilens built with %s installed?", mpi, rt, mpi);
        return 2;
    }
    char rtreal[PATH_MAX];
    if (realpath(rt, rtreal)) snprintf(rt, sizeof rt, "%s", rtreal);

    /* the stream listener: before anything is created, so that a wrong
     * address fails early */
    struct rsrv *rs = NULL;
    char secret_hex[2 * MS_SECRET_LEN + 1] = "", stream_addr[320] = "";
    if (listen_on) {
        uint8_t secret[MS_SECRET_LEN];
        char err[512], host[256];
        int port;
        if (ms_parse_addr(listen_on, 1, host, sizeof host, &port, err, sizeof err) != 0) {
            ERR("--listen: %s", err);
            return 2;
        }
        if (ms_secret_new(secret, secret_hex) != 0) {
            ERR("cannot draw a random secret for the stream: %s", strerror(errno));
            return 1;
        }
        rs = rs_listen(listen_on, secret, stderr, "mpilens", err, sizeof err);
        memset(secret, 0, sizeof secret);
        if (!rs) {
            ERR("--listen: %s", err);
            return 2;
        }
        /* what the agents connect to: the address, or this host's name for a wildcard */
        if (!strcmp(host, "0.0.0.0") || !strcmp(host, "::") || !host[0]) {
            if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "localhost");
        }
        snprintf(stream_addr, sizeof stream_addr, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, rs_port(rs));
    }

    /* the run directory */
    char dir[PATH_MAX];
    if (outdir) {
        snprintf(dir, sizeof dir, "%s", outdir);
    } else {
        const char *base = prog[0] ? prog : cmd[0];
        const char *b = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
        snprintf(dir, sizeof dir, "mpilens-%s-%d", b, (int)getpid());
    }
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dir[--dl] = 0;
    struct stat st;
    if (lstat(dir, &st) == 0) {
        ERR("%s already exists: choose another directory with -o (run directories are never overwritten)", dir);
        rs_free(rs);
        return 2;
    }
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    const char *pd = dirname(parent);
    struct stat pst;
    if (stat(pd, &pst) != 0) {
        ERR("cannot create %s: %s does not exist (%s); create it, or choose another directory with -o",
            dir, pd, strerror(errno));
        rs_free(rs);
        return 2;
    }
    if (!S_ISDIR(pst.st_mode)) {
        ERR("cannot create %s: %s is not a directory; choose another directory with -o", dir, pd);
        rs_free(rs);
        return 2;
    }
    if (access(pd, W_OK | X_OK) != 0) {
        ERR("cannot create %s: %s is not writable (%s); choose another directory with -o", dir, pd,
            strerror(errno));
        rs_free(rs);
        return 2;
    }
    if (mkdir(dir, 0700) != 0) {
        /* root passes access() where mkdir still fails: /proc, an immutable
         * directory (EPERM), a read-only file system (EROFS) */
        if (errno == ENOENT)
            ERR("cannot create %s: %s takes no new directories; choose another directory with -o", dir, pd);
        else
            ERR("cannot create %s: %s is not writable (%s); choose another directory with -o", dir, pd,
                strerror(errno));
        rs_free(rs);
        return 2;
    }
    char absdir[PATH_MAX];
    if (!realpath(dir, absdir)) snprintf(absdir, sizeof absdir, "%s", dir);

    /* environment */
    char *pre = NULL;
    if (!linked) {
        const char *old = getenv("LD_PRELOAD");
        pre = malloc(strlen(rt) + (old ? strlen(old) : 0) + 2);
        sprintf(pre, "%s%s%s", rt, old && *old ? ":" : "", old && *old ? old : "");
        setenv("LD_PRELOAD", pre, 1);
    }
    setenv("MPILENS_DIR", absdir, 1);
    char job[64];
    struct timeval tv;
    gettimeofday(&tv, NULL);
    snprintf(job, sizeof job, "%llu",
             (unsigned long long)tv.tv_sec * 1000000ull + (unsigned long long)tv.tv_usec);
    setenv("MPILENS_JOBID", job, 1);
    char dbuf[16];
    snprintf(dbuf, sizeof dbuf, "%ld", depth);
    setenv("MPILENS_STACK_DEPTH", dbuf, 1);
    if (pager_cpus) setenv("MPILENS_PAGER_CPUS", pager_cpus, 1);
    if (rs) {
        char self[PATH_MAX], iv[32];
        ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
        self[l > 0 ? l : 0] = 0;
        snprintf(iv, sizeof iv, "%g", lo.interval > 0 ? lo.interval : 1.0);
        setenv("MPILENS_STREAM", stream_addr, 1);
        setenv("MPILENS_SECRET", secret_hex, 1);
        setenv("MPILENS_TOOL", self, 1);
        setenv("MPILENS_STREAM_INTERVAL", iv, 1);
        lo.remote = rs;
    }

    /* the command */
    char **av = calloc((size_t)ncmd + 32, sizeof *av);
    int k = 0;
    char nbuf[32];
    if (dashdash) {
        for (int i = 0; i < ncmd; i++) av[k++] = cmd[i];
    } else if (!strcmp(mpi, "openmpi")) {
        av[k++] = "mpirun.openmpi";
        if (find_exe("mpirun.openmpi", found, sizeof found) != 0) av[0] = "mpirun";
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (nranks > cores) av[k++] = "--oversubscribe";
        if (geteuid() == 0 && !getenv("OMPI_ALLOW_RUN_AS_ROOT")) av[k++] = "--allow-run-as-root";
        if (getenv("LD_PRELOAD")) {  /* not set for a program the runtime is linked into */
            av[k++] = "-x"; av[k++] = "LD_PRELOAD";
        }
        av[k++] = "-x"; av[k++] = "MPILENS_DIR";
        av[k++] = "-x"; av[k++] = "MPILENS_JOBID";
        av[k++] = "-x"; av[k++] = "MPILENS_STACK_DEPTH";
        if (getenv("MPILENS_PAGER_CPUS")) {
            av[k++] = "-x"; av[k++] = "MPILENS_PAGER_CPUS";
        }
        if (rs) {
            av[k++] = "-x"; av[k++] = "MPILENS_STREAM";
            av[k++] = "-x"; av[k++] = "MPILENS_SECRET";
            av[k++] = "-x"; av[k++] = "MPILENS_TOOL";
            av[k++] = "-x"; av[k++] = "MPILENS_STREAM_INTERVAL";
            if (getenv("MPILENS_NODE_SIZE")) {
                av[k++] = "-x"; av[k++] = "MPILENS_NODE_SIZE";
            }
        }
        snprintf(nbuf, sizeof nbuf, "%ld", nranks);
        av[k++] = "-n"; av[k++] = nbuf;
        av[k++] = prog;
        for (int i = 1; i < ncmd; i++) av[k++] = cmd[i];
    } else {
        av[k++] = "mpiexec.mpich";
        if (find_exe("mpiexec.mpich", found, sizeof found) != 0) av[0] = "mpiexec";
        snprintf(nbuf, sizeof nbuf, "%ld", nranks);
        av[k++] = "-n"; av[k++] = nbuf;
        av[k++] = prog;
        for (int i = 1; i < ncmd; i++) av[k++] = cmd[i];
    }
    av[k] = NULL;

    struct sigaction sa = {0};
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_sigaction = on_int;
    sa.sa_flags = SA_RESTART | SA_SIGINFO;
    sigaction(SIGINT, &sa, NULL);
    signal(SIGQUIT, SIG_IGN);

    if (!quiet) fprintf(stderr, "mpilens: recording %s ranks of %s with %s%s into %s/\n",
                        dashdash ? "the" : nbuf, prog[0] ? prog : cmd[0], mpi,
                        linked ? " (its own runtime, linked in)" : "", dir);
    /* without -g, call sites are addresses: say it once, here */
    if (!quiet && prog[0] && !is_interpreter(prog) && has_debug_info(prog) == 0)
        fprintf(stderr, "mpilens: %s has no debug information (built without -g): call sites will show as "
                        "function+offset, not file:line\n", prog);
    if (!quiet && rs)
        fprintf(stderr, "mpilens: live view from node agents streaming to %s (authenticated, not encrypted)\n",
                stream_addr);
    child = fork();
    if (child < 0) {
        ERR("cannot start %s: %s", av[0], strerror(errno));
        rmdir(dir);
        return 1;
    }
    if (child == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        execvp(av[0], av);
        fprintf(stderr, "mpilens run: cannot start %s: %s\n", av[0], strerror(errno));
        _exit(127);
    }
    /* rank processes that end without a record of their own get one (when) */
    struct pidwatch *pw = pidwatch_start(absdir);
    /* the live monitor, until the launcher ends (or a deadlock stops it) */
    struct fail_watch fw = {absdir, grace, 0, 0, quiet, 0};
    if (quiet) lo.display = LIVE_SHOW_NONE;
    else if (lo.display == LIVE_SHOW_AUTO && !isatty(2)) lo.display = LIVE_SHOW_NONE;
    lo.out = stderr;
    lo.name = "mpilens run";
    lo.launcher = child;
    lo.quiet_end = lo.display == LIVE_SHOW_NONE;
    lo.tick = fail_tick;
    lo.tick_arg = &fw;
    int lrc = live_watch(absdir, &lo);
    if (fw.stopped) {
        /* the ranks were stopped after a failure: the launcher should end now */
        for (int i = 0; i < 50 && !launcher_exited(child); i++) sleep_s(0.1);
        if (!launcher_exited(child)) kill(child, SIGTERM);
        for (int i = 0; i < 30 && !launcher_exited(child); i++) sleep_s(0.1);
        if (!launcher_exited(child)) kill(child, SIGKILL);
    }

    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    child = -1;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;

    /* the launcher ended: ranks it left behind get the grace period (none
     * when the job was interrupted or terminated: they are stopped now) */
    int failed = 0, alive = 0;
    int stopping = interrupted || terminated;
    if (diag_status(absdir, &failed, &alive) == 0 && alive > 0) {
        double t0 = now_s();
        while (!stopping && alive > 0 && now_s() - t0 < grace) {
            sleep_s(0.2);
            if (diag_status(absdir, &failed, &alive) != 0) break;
            stopping = interrupted || terminated;
        }
        if (alive > 0) {
            if (!quiet && !stopping)
                fprintf(stderr, "mpilens: the launcher ended, %d rank%s still run%s after %.0f s\n", alive,
                        alive == 1 ? "" : "s", alive == 1 ? "s" : "", grace);
            stop_leftovers(absdir, quiet || stopping);
        }
    }
    pidwatch_stop(pw, 1.0);
    diag_status(absdir, &failed, &alive);

    int n = count_rank_files(dir);
    if (stopping) {
        /* asked for from outside: one line, the trace kept, 128 + signal */
        int sig = interrupted ? SIGINT : terminated;
        char when[32] = "";
        struct tm tm;
        time_t ts = stopped_at.tv_sec;
        if (localtime_r(&ts, &tm)) strftime(when, sizeof when, "%H:%M:%S", &tm);
        if (n == 0) rmdir(dir);
        if (sig == SIGINT)
            fprintf(stderr, "mpilens: interrupted (Ctrl+C) at %s: the job was stopped; ", when);
        else
            fprintf(stderr, "mpilens: terminated from outside (%s to mpilens run at %s): the job was stopped; ",
                    sig == SIGHUP ? "SIGHUP" : "SIGTERM", when);
        if (n > 0) fprintf(stderr, "%d rank file%s in %s/ (see: mpilens report %s)\n", n, n == 1 ? "" : "s", dir, dir);
        else fprintf(stderr, "no rank file was written\n");
        rs_free(rs);
        lf_global_cleanup();
        sym_cleanup();
        free(av);
        free(pre);
        return 128 + sig;
    }
    if (n == 0) {
        /* a program that never called MPI (a test that skips itself): its
         * exit status stands */
        rmdir(dir);
        if (!quiet || rc != 0)
            fprintf(stderr, "mpilens run: warning: no rank files were written (the program never called MPI, or the "
                            "launcher dropped LD_PRELOAD: see README, 'Recording without mpilens run'); exit "
                            "status %d\n", rc);
        free(av);
        free(pre);
        return rc;
    }
    /* a launcher that says 0 although ranks failed: the exit status must
     * still tell */
    if (rc == 0 && failed > 0 && !(lrc == LIVE_EXIT_DEADLOCK && lo.stop)) {
        rc = 1;
        if (!quiet) fprintf(stderr, "mpilens: the launcher exited with status 0 but ranks failed: exit status 1\n");
    }
    if (lrc == LIVE_EXIT_DEADLOCK && lo.stop) {
        rc = RUN_EXIT_DEADLOCK;
    } else if (rc != 0 || failed > 0) {
        fputc('\n', stderr);
        diag_print(absdir, stderr);
    } else if (!quiet) {
        diag_notes(absdir, stderr);   /* MPI errors the program went on after */
    }
    rs_free(rs);      /* closes the streams: the agents end */
    lf_global_cleanup();
    sym_cleanup();
    if (!quiet) {
        if (lrc == LIVE_EXIT_DEADLOCK && lo.stop)
            fprintf(stderr, "mpilens: deadlock: job stopped, exit status %d; ", rc);
        else if (WIFSIGNALED(status))
            fprintf(stderr, "mpilens: launcher killed by signal %d; ", WTERMSIG(status));
        else
            fprintf(stderr, "mpilens: exit status %d; ", rc);
        fprintf(stderr, "%d rank file%s in %s/ (see: mpilens report %s)\n", n, n == 1 ? "" : "s", dir, dir);
    }
    free(av);
    free(pre);
    return rc;
}
