/*
 * mpilens.c — the command: a table of verbs, one file each (tool/<verb>.c).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static const struct verb {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} verbs[] = {
    {"run", cmd_run, "run an MPI program with every MPI call recorded"},
    {"report", cmd_report, "summarise a run: failures, profile, messages, findings"},
    {"export", cmd_export, "write a run as a Perfetto/Chrome trace or an OTF2 archive"},
    {"view", cmd_view, "write a run as one interactive HTML page (timeline, load, matrix, summary)"},
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
        fprintf(out, "  %-8s %s\n", verbs[i].name, verbs[i].help);
    fprintf(out, "\n'mpilens <command> --help' describes a command.\n"
                 "example: mpilens run -n 4 ./app && mpilens dump mpilens-app-*/\n");
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

int main(int argc, char **argv)
{
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
        if (!strcmp(argv[1], verbs[i].name)) return verbs[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "mpilens: unknown command '%s'; try 'mpilens --help'\n", argv[1]);
    return 2;
}
