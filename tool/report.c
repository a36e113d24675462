/*
 * report.c — `mpilens report DIR`: what a recorded run did.  This file is
 * the verb's front (options, output file); the failure diagnosis comes from
 * diag.c, the profile, messages and findings from profile_report.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "critpath.h"
#include "exchange.h"
#include "profile_report.h"
#include "symbols.h"
#include "tool.h"

static const char *opts_name(int c)
{
    return c == 1 ? "from" : c == 2 ? "to" : c == 3 ? "alpha" : "beta";
}

static void help(FILE *out)
{
    fprintf(out,
            "usage: mpilens report [--json] [--all] [--failures] [--critical-path]\n"
            "                      [--from S] [--to S] [cost options] [-o FILE] DIR\n\n"
            "Summarises run directory DIR (or one rank file).  First the failure diagnosis:\n"
            "for every rank that failed, how (signal, exit without MPI_Finalize, MPI error,\n"
            "MPI_Abort, deadlock), where (file:line, the MPI call and its call site) and\n"
            "when; what the other ranks were doing; ranks that vanished without a record\n"
            "(SIGKILL, OOM killer).  Then time, calls and bytes per MPI\n"
            "routine, call site and rank with the imbalance across ranks, messages matched\n"
            "send to receive, message sizes, collectives, and whatever did not match; the\n"
            "critical path (six measures along their longest paths) and the wait states.\n\n"
            "  --json           the same data as JSON (schema: docs/REPORT.md), the failure\n"
            "                   diagnosis included (\"failures\")\n"
            "  --all            every rank, routine, call site and finding (text)\n"
            "  --failures       only the failure diagnosis (reads no events: fast on any\n"
            "                   trace); with --json as one JSON object\n"
            "  --critical-path  only the critical path and wait states (text; JSON has all)\n"
            "  --no-critical-path  leave them out (faster)\n"
            "  --from S, --to S the critical path's window: seconds after the run's first\n"
            "                   call (default: the run); the other sections cover the\n"
            "                   whole run\n"
            "  --alpha NS       cost model: latency per message, ns (default: the calibration\n"
            "                   file of 'mpilens calibrate' if there is one, else 1000)\n"
            "  --beta NS        cost model: time per byte, ns (default: the calibration file,\n"
            "                   else 0.1, i.e. 10 GB/s)\n"
            "  --calibration F  alpha and beta from F (written by 'mpilens calibrate';\n"
            "                   default $MPILENS_CALIBRATION or\n"
            "                   ~/.config/mpilens/calibration, if present)\n"
            "  --cost-model M   standard (collectives by their usual algorithms) or simple\n"
            "                   (one message of its bytes per call); docs/CRITPATH.md\n"
            "  --eager BYTES    MPI_Send of at least this many bytes may wait for its\n"
            "                   receive (default 65536)\n"
            "  -o, --output F   write to F instead of standard output\n"
            "  -q, --quiet      no progress line\n"
            "  -h, --help       this text\n");
}

/* -o FILE could not be created (errno): one line saying why */
static void cannot_create(const char *outpath)
{
    int e = errno;
    fprintf(stderr, "mpilens report: cannot create %s: %s%s\n", outpath, strerror(e),
            e == EEXIST ? " (an existing file is never overwritten)" : "");
}

/* `mpirun -n P mpilens report --no-critical-path DIR`: every process reads
 * its slice (report_sliced), process 0 writes the report. */
static int report_job(const char *dir, const char *outpath, const struct report_opts *ro)
{
    struct an_xch *x = tool_xch;
    FILE *out = stdout;
    int64_t bad = 0;
    if (x->rank == 0 && outpath && strcmp(outpath, "-") != 0 && !(out = fopen(outpath, "wx"))) {
        cannot_create(outpath);
        out = stdout;
        bad = 1;
    }
    struct stat st;
    if (!bad && stat(dir, &st) != 0) {
        if (x->rank == 0)
            fprintf(stderr, "mpilens report: %s: does not exist (give the directory the run wrote, e.g. "
                            "mpilens-app-1234/)\n", dir);
        bad = 2;
    }
    x->reduce_i64(x, &bad, 1, AN_XCH_MAX);   /* every process stops, or none */
    int rc = 1;
    if (!bad) {
        rc = report_sliced(dir, out, ro);   /* the failure diagnosis first, made in slices too */
        if (rc == -2) {   /* not the serial result in slices: process 0 alone */
            if (x->rank != 0) return 0;
            rc = report_profile_opts(dir, out, ro);
        }
    }
    if (out != stdout) {
        /* ferror: a write that failed before (disk full), which fclose may not repeat */
        int werr = fflush(out) != 0 || ferror(out);
        if (fclose(out) != 0 || werr) {
            perror(outpath);
            rc = 1;
        }
        if (rc != 0 || bad == 2) unlink(outpath);   /* no half-written report left behind */
    }
    return rc;
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'},   {"all", no_argument, 0, 'a'}, {"output", required_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {"failures", no_argument, 0, 'F'},
        {"critical-path", no_argument, 0, 'C'}, {"no-critical-path", no_argument, 0, 'N'},
        {"from", required_argument, 0, 1}, {"to", required_argument, 0, 2}, {"alpha", required_argument, 0, 3},
        {"beta", required_argument, 0, 4}, {"cost-model", required_argument, 0, 5}, {"eager", required_argument, 0, 6},
        {"calibration", required_argument, 0, 7},
        {0, 0, 0, 0},
    };
    struct report_opts ro = {0, 0, 1, 1, NULL, NULL};
    struct an_cp_opts cpo;
    an_cp_opts_default(&cpo);
    ro.cp = &cpo;
    double from_s = -1, to_s = -1;
    char *end;
    const char *outpath = NULL;
    int c, failures_only = 0, alpha_set = 0, beta_set = 0, cp_only = 0, no_cp = 0;
    const char *calib = NULL;
    const char *profile_opt = NULL;   /* an option of the profile or the critical path: not for --failures */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j': ro.json = 1; break;
        case 'a': ro.all = 1, profile_opt = "--all"; break;
        case 'o': outpath = optarg; break;
        case 'q': ro.progress = 0; break;
        case 'F': failures_only = 1; break;
        case 'C': ro.critpath = 2, cp_only = 1; break;
        case 'N': ro.critpath = 0, no_cp = 1, profile_opt = "--no-critical-path"; break;
        case 1:
        case 2:
        case 3:
        case 4: {
            double v = strtod(optarg, &end);
            if (end == optarg || *end || !(v >= 0) || v > 1e9) {
                fprintf(stderr, "mpilens report: --%s wants a number >= 0, not '%s'\n", opts_name(c), optarg);
                return 2;
            }
            profile_opt = c == 1 ? "--from" : c == 2 ? "--to" : c == 3 ? "--alpha" : "--beta";
            if (c == 1) from_s = v;
            else if (c == 2) to_s = v;
            else if (c == 3) cpo.alpha_ns = v, alpha_set = 1;
            else cpo.beta_ns = v, beta_set = 1;
            break;
        }
        case 5:
            profile_opt = "--cost-model";
            if (strcmp(optarg, "simple") == 0) cpo.simple = 1;
            else if (strcmp(optarg, "standard") == 0) cpo.simple = 0;
            else {
                fprintf(stderr, "mpilens report: --cost-model is 'standard' or 'simple', not '%s'\n", optarg);
                return 2;
            }
            break;
        case 6: {
            unsigned long long v = strtoull(optarg, &end, 10);
            if (end == optarg || *end || optarg[0] == '-') {
                fprintf(stderr, "mpilens report: --eager wants a byte count, not '%s'\n", optarg);
                return 2;
            }
            cpo.eager = v;
            profile_opt = "--eager";
            break;
        }
        case 7: calib = optarg, profile_opt = "--calibration"; break;
        case 'h': help(stdout); return 0;
        default: tool_bad_option("report", argc, argv); return 2;
        }
    }
    /* options that contradict each other, or that the report asked for
     * would take and ignore */
    if (cp_only && no_cp) {
        fprintf(stderr, "mpilens report: --critical-path shows only the critical path, --no-critical-path leaves it "
                        "out; give one\n");
        return 2;
    }
    if (failures_only && profile_opt) {
        fprintf(stderr, "mpilens report: %s has no effect on --failures (the failure diagnosis alone); leave it out\n",
                profile_opt);
        return 2;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mpilens report: give one run directory, e.g. 'mpilens report mpilens-app-1234/'\n");
        return 2;
    }
    /* alpha and beta: flags, else a calibration file, else the defaults */
    char cpath[4096], cerr[4400], csrc[4200];
    if (calib) snprintf(cpath, sizeof cpath, "%s", calib);
    else calibrate_default_path(cpath, sizeof cpath);
    if (alpha_set && beta_set) ro.cost_source = "--alpha, --beta";
    else if (cpath[0] && (calib || (!failures_only && access(cpath, F_OK) == 0))) {
        double a, b;
        if (calibrate_read(cpath, &a, &b, cerr, sizeof cerr) == 0) {
            if (!alpha_set) cpo.alpha_ns = a;
            if (!beta_set) cpo.beta_ns = b;
            snprintf(csrc, sizeof csrc, "%s%s", alpha_set || beta_set ? "flags and " : "", cpath);
            ro.cost_source = csrc;
        } else if (calib) {           /* asked for: an error */
            fprintf(stderr, "mpilens report: %s\n", cerr);
            return 2;
        } else {                      /* found by default: the report goes on without it */
            fprintf(stderr, "mpilens report: warning: %s; the default costs are used\n", cerr);
            if (alpha_set || beta_set) ro.cost_source = "flags and defaults";
        }
    } else if (alpha_set || beta_set) ro.cost_source = "flags and defaults";
    if (from_s >= 0 && to_s >= 0 && to_s <= from_s) {
        fprintf(stderr, "mpilens report: --to must be later than --from\n");
        return 2;
    }
    if ((from_s >= 0 || to_s >= 0) && !ro.critpath) {
        fprintf(stderr, "mpilens report: --from and --to set the critical path's window, and --no-critical-path "
                        "leaves it out\n");
        return 2;
    }
    if ((from_s >= 0 || to_s >= 0) && ro.critpath) {   /* the window is the critical path's */
        /* seconds after the run's first call: resolved against the run's span */
        int64_t first = 0, last = 0;
        struct an_run run;
        int opened = an_run_open(argv[optind], &run) == 0;
        if (opened) an_run_span(&run, &first, &last);
        an_run_close(&run);
        if (to_s == 0) {
            fprintf(stderr, "mpilens report: --to 0 leaves an empty window; give seconds after the run's first call\n");
            return 2;
        }
        if (opened && from_s >= 0 && first + (int64_t)(from_s * 1e9) >= last) {
            fprintf(stderr, "mpilens report: --from %g s is past the run's end (its last call ends %.3f s after its first)\n",
                    from_s, (last - first) / 1e9);
            return 2;
        }
        cpo.window_set = 1;
        if (from_s >= 0) cpo.from_ns = first + (int64_t)(from_s * 1e9);
        if (to_s >= 0) cpo.to_ns = first + (int64_t)(to_s * 1e9);
    }
    if (ro.critpath == 2 && failures_only) {
        fprintf(stderr, "mpilens report: --critical-path and --failures are two different reports; give one\n");
        return 2;
    }
    if (tool_xch->size > 1) {
        /* started as an MPI job of several processes (docs/PARALLEL.md):
         * each process analyses its slice of the rank files, where the
         * sliced analysis gives the serial result; otherwise process 0
         * analyses every rank and the others only wait for the job's end */
        const char *why = failures_only ? NULL
                          : ro.critpath ? "the critical path across slices is not yet written (--no-critical-path "
                                          "leaves it out)"
                                        : NULL;
        if (!failures_only && !why) return report_job(argv[optind], outpath, &ro);
        if (tool_xch->rank != 0) return 0;
        if (why)
            fprintf(stderr, "mpilens report: note: %d analysis processes, but %s: process 0 analyses every rank "
                            "(docs/PARALLEL.md)\n", tool_xch->size, why);
    }
    FILE *out = stdout;
    if (outpath && strcmp(outpath, "-") != 0) {
        out = fopen(outpath, "wx");
        if (!out) {
            cannot_create(outpath);
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
    } else if (!ro.json && ro.critpath != 2) {
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
    int werr = out != stdout && (fflush(out) != 0 || ferror(out));   /* as in report_job */
    if (out != stdout && (fclose(out) != 0 || werr)) {
        perror(outpath);
        rc = 1;
    }
    if (rc != 0 && out != stdout) unlink(outpath); /* no half-written report left behind */
    return rc;
}
