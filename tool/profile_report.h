/*
 * profile_report.h — the profile part of `mpilens report` (profile_report.c),
 * for tool/report.c to call.
 */
#ifndef ML_PROFILE_REPORT_H
#define ML_PROFILE_REPORT_H

#include <stdio.h>

struct an_cp_opts;

struct report_opts {
    int json;      /* JSON (docs/REPORT.md) instead of text */
    int all;       /* every rank, routine, call site and finding, not the top ones */
    int progress;  /* progress line on stderr when it is a terminal */
    int critpath;  /* critical path and wait states: 0 no, 1 with the rest, 2 only them (text) */
    const struct an_cp_opts *cp;   /* its options (NULL: defaults) */
    const char *cost_source;       /* where its alpha and beta came from (NULL: defaults) */
};

/* Profile, messages and findings of run directory dir (or one rank file)
 * written to out.  Returns the exit status: 0, or 1 when nothing could be
 * read (the reason is on stderr). */
int report_profile(const char *dir, FILE *out, int json);
int report_profile_opts(const char *dir, FILE *out, const struct report_opts *opts);

/* The same, as one process of an analysis job of several (tool_xch,
 * docs/PARALLEL.md): each process reads its slice of the rank files,
 * process 0 writes the report (out is used there only), the failure
 * diagnosis first (text), made in slices (an_diag_load_slice).  Collective.
 * Returns the exit status, or -2 when the sliced result could differ from
 * the serial one (a note on stderr says why): then process 0 analyses the
 * run alone (report_profile_opts) and the others are done.  Without the
 * critical path (opts->critpath 0). */
int report_sliced(const char *dir, FILE *out, const struct report_opts *opts);

#endif
