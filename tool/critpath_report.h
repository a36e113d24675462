/*
 * critpath_report.h — the critical path and wait states in `mpilens report`
 * (critpath_report.c), for profile_report.c to call.
 */
#ifndef ML_CRITPATH_REPORT_H
#define ML_CRITPATH_REPORT_H

#include <stdio.h>

#include "critpath.h"

/* The cost model used for the bandwidth and latency costs, and where its
 * alpha and beta came from ("default", "flags", a calibration file). */
struct cp_cost {
    const struct an_cp_opts *opts;
    const char *source;
};

/* The text section ("Critical path", "Wait states"). */
void cp_text(FILE *o, const struct an_run *run, const struct an_cp_result *r, int all, const struct cp_cost *cost);
/* The members "critical_path" and "wait_states" of report --json, each line
 * indented by 2, followed by a comma. */
void cp_json(FILE *o, const struct an_run *run, const struct an_cp_result *r, const struct cp_cost *cost);
/* A segment in words, as report --json gives it: what the path leaves by
 * ("MPI_Send -> rank 1 MPI_Recv", "end") into what, its call site (""
 * at the end) into where. */
void cp_seg_words(const struct an_run *run, const struct an_cp_segment *s, char *what, size_t wn, char *where,
                  size_t sn);

#endif
