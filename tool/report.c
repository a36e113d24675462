/*
 * report.c — `mpilens report DIR`: what happened in a recorded run.  For now
 * the failure diagnosis (diag.c): which rank failed, how, where and when,
 * and what every other rank was doing.
 */
#include <getopt.h>
#include <stdio.h>

#include "symbols.h"
#include "tool.h"

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens report DIR\n\n"
            "Reports on run directory DIR (or one rank file): for every rank that failed,\n"
            "how (signal, exit without MPI_Finalize, MPI error, MPI_Abort, deadlock), where\n"
            "(file:line, the MPI call and its call site) and when; for the other ranks,\n"
            "what they were doing; ranks that vanished without a record (SIGKILL, OOM).\n\n"
            "  -h, --help       this text\n");
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': help(stdout); return 0;
        default: help(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mpilens report: give one run directory, e.g. 'mpilens report mpilens-app-1234/'\n");
        return 2;
    }
    int rc = diag_print(argv[optind], stdout);
    sym_cleanup();
    return rc < 0 ? 1 : 0;
}
