/*
 * report.c — `mpilens report DIR`: what a recorded run did.  This file is
 * the verb's front (options, output file); the failure diagnosis comes from
 * diag.c, the profile, messages and findings from profile_report.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exchange.h"
#include "profile_report.h"
#include "symbols.h"
#include "tool.h"

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens report [--json] [--all] [--failures] [-o FILE] DIR\n\n"
            "Summarises run directory DIR (or one rank file).  First the failure diagnosis:\n"
            "for every rank that failed, how (signal, exit without MPI_Finalize, MPI error,\n"
            "MPI_Abort, deadlock), where (file:line, the MPI call and its call site) and\n"
            "when; what the other ranks were doing; ranks that vanished without a record\n"
            "(SIGKILL, OOM killer).  Then time, calls and bytes per MPI\n"
            "routine, call site and rank with the imbalance across ranks, messages matched\n"
            "send to receive, message sizes, collectives, and whatever did not match.\n\n"
            "  --json           the same data as JSON (schema: docs/REPORT.md), the failure\n"
            "                   diagnosis included (\"failures\")\n"
            "  --all            every rank, routine, call site and finding (text)\n"
            "  --failures       only the failure diagnosis (reads no events: fast on any trace);\n"
            "                   with --json as one JSON object\n"
            "  -o, --output F   write to F instead of standard output\n"
            "  -q, --quiet      no progress line\n"
            "  -h, --help       this text\n");
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'},   {"all", no_argument, 0, 'a'}, {"output", required_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {"failures", no_argument, 0, 'F'},
        {0, 0, 0, 0},
    };
    struct report_opts ro = {0, 0, 1};
    const char *outpath = NULL;
    int c, failures_only = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j': ro.json = 1; break;
        case 'a': ro.all = 1; break;
        case 'o': outpath = optarg; break;
        case 'q': ro.progress = 0; break;
        case 'F': failures_only = 1; break;
        case 'h': help(stdout); return 0;
        default: help(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mpilens report: give one run directory, e.g. 'mpilens report mpilens-app-1234/'\n");
        return 2;
    }
    if (tool_xch->size > 1) {
        /* started as an MPI job of several processes (docs/PARALLEL.md): the
         * analysis of slices of ranks is not written yet, so process 0 does
         * the serial analysis and the others only wait for the job's end */
        if (tool_xch->rank != 0) return 0;
        if (ro.progress)
            fprintf(stderr, "mpilens report: note: %d analysis processes, but the sliced analysis is not yet "
                            "written: process 0 analyses every rank (docs/PARALLEL.md)\n", tool_xch->size);
    }
    FILE *out = stdout;
    if (outpath && strcmp(outpath, "-") != 0) {
        out = fopen(outpath, "wx");
        if (!out) {
            perror(outpath);
            fprintf(stderr, "mpilens report: cannot create %s (an existing file is never overwritten)\n", outpath);
            return 1;
        }
    }
    int rc = 0;
    struct stat st;
    if (stat(argv[optind], &st) != 0) {
        fprintf(stderr, "mpilens report: %s: does not exist (give the directory the run wrote, e.g. mpilens-app-1234/)\n",
                argv[optind]);
        if (out != stdout) {
            fclose(out);
            unlink(outpath);
        }
        return 1;
    }
    if (ro.json && failures_only) {   /* the diagnosis alone, as one JSON object */
        if (diag_json(argv[optind], out, 1) < 0) {
            rc = 1;
            fprintf(stderr, "mpilens report: %s: no readable rank file\n", argv[optind]);
        }
        sym_cleanup();
    } else if (!ro.json) {
        int d = diag_print(argv[optind], out);
        sym_cleanup();
        if (d < 0) {
            rc = 1;
            if (failures_only)
                fprintf(stderr, "mpilens report: %s: no readable rank file\n", argv[optind]);
        }
        if (!failures_only && d >= 0) fputc('\n', out);
    }
    if (!failures_only) rc = report_profile_opts(argv[optind], out, &ro);
    if (out != stdout && fclose(out) != 0) {
        perror(outpath);
        rc = 1;
    }
    if (rc != 0 && out != stdout) unlink(outpath); /* no half-written report left behind */
    return rc;
}
