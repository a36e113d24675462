/*
 * mpilens.c — the command: a table of verbs, one file each (tool/<verb>.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exchange.h"
#include "tool.h"

struct an_xch *tool_xch;
int (*tool_otf2_parallel)(void *archive);

static const struct verb {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} verbs[] = {
    {"run", cmd_run, "run an MPI program with every MPI call recorded"},
    {"report", cmd_report, "summarise a run: failures, profile, messages, findings"},
    {"export", cmd_export, "write a run as a Perfetto/Chrome trace or an OTF2 archive"},
    {"view", cmd_view, "write a run as one HTML page: timeline, load, matrix, summary"},
    {"calibrate", cmd_calibrate, "measure message latency and bandwidth for the critical path's costs"},
    {"top", cmd_top, "live view of a run: what every rank does now; deadlock verdict"},
    {"dump", cmd_dump, "print every recorded event of a run directory"},
    {"agent", cmd_agent, "send this node's live state to a front end (top/run --listen)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: mpilens <command> [options] ...\n\n"
                 "Shows what the processes of an MPI program are doing.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
        fprintf(out, "  %-9s %s\n", verbs[i].name, verbs[i].help);
    fprintf(out, "\n'mpilens <command> --help' describes a command.\n"
                 "example: mpilens run -n 4 ./app && mpilens report mpilens-app-*/\n");
}

const char *mpilens_self_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        if (n <= 0) return ".";
        dir[n] = 0;
        char *s = strrchr(dir, '/');
        if (s) *s = 0;
    }
    return dir;
}

/* ---- started by mpirun as one of several processes ----------------------- */

void tool_strip_preload(void)
{
    const char *pre = getenv("LD_PRELOAD");
    if (!pre) return;
    char *keep = malloc(strlen(pre) + 1), *copy = strdup(pre);
    if (!keep || !copy) {
        free(keep);
        free(copy);
        return;
    }
    keep[0] = 0;
    for (char *save = NULL, *t = strtok_r(copy, " :", &save); t; t = strtok_r(NULL, " :", &save)) {
        if (strstr(t, "libmpilens")) continue;
        if (keep[0]) strcat(keep, ":");
        strcat(keep, t);
    }
    if (keep[0]) setenv("LD_PRELOAD", keep, 1);
    else unsetenv("LD_PRELOAD");
    free(keep);
    free(copy);
}

#ifndef ML_MPI_ENGINE
/* The verbs that split their work over the processes of an MPI job. */
static int parallel_verb(const char *v)
{
    return !strcmp(v, "report") || !strcmp(v, "export") || !strcmp(v, "view");
}

/* An MPI launcher sets these in every process it starts: Open MPI its own,
 * MPICH's hydra (and Slurm's PMI) PMI_SIZE. */
static int launched_as(const char **impl)
{
    const char *s = getenv("OMPI_COMM_WORLD_SIZE");
    *impl = "openmpi";
    if (!s) {
        s = getenv("PMI_SIZE");
        *impl = "mpich";
    }
    return s ? atoi(s) : 0;
}

/* Several processes of one MPI job: run as the parallel analysis of that
 * MPI (mpilens-mpi-<impl> next to this binary).  Returns only when it
 * cannot, with the exit status. */
static int dispatch_mpi(int argc, char **argv, const char *impl, int n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/mpilens-mpi-%s", mpilens_self_dir(), impl);
    if (access(path, X_OK) != 0) {
        fprintf(stderr, "mpilens %s: started by mpirun as %d processes, but the parallel analysis for %s "
                        "(%s) is not installed; run 'mpilens %s' without mpirun for the serial analysis\n",
                argv[1], n, impl, path, argv[1]);
        return 1;
    }
    tool_strip_preload();             /* the analysis is never recorded */
    setenv("MPILENS_DISABLE", "1", 1);
    argv[0] = path;
    execv(path, argv);
    fprintf(stderr, "mpilens %s: cannot start %s: ", argv[1], path);
    perror(NULL);
    return 1;
}

int main(int argc, char **argv)
{
    const char *impl;
    int n = launched_as(&impl);
    if (argc >= 2 && n > 1 && parallel_verb(argv[1])) return dispatch_mpi(argc, argv, impl, n);
    return mpilens_main(argc, argv);
}
#endif

int mpilens_main(int argc, char **argv)
{
    if (!tool_xch) tool_xch = an_xch_serial();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("mpilens 0.1 (rank-file format %d)\n", ML_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++)
        if (!strcmp(argv[1], verbs[i].name)) {
            int rc = verbs[i].fn(argc - 1, argv + 1);
            /* what went to standard output must have been written: a full
             * disk (mpilens report DIR >file) is an error, not a cut output
             * and exit status 0 (a closed pipe: the status alone) */
            errno = 0;
            if (fflush(stdout) != 0 || ferror(stdout)) {
                int e = errno;
                if (e != EPIPE)
                    fprintf(stderr, "mpilens %s: cannot write to standard output%s%s\n", argv[1], e ? ": " : "",
                            e ? strerror(e) : "");
                if (rc == 0) rc = 1;
            }
            return rc;
        }
    fprintf(stderr, "mpilens: unknown command '%s'; try 'mpilens --help'\n", argv[1]);
    return 2;
}
