/*
 * tool.h — the verbs of the mpilens command (one file each) and what they
 * share.  Every verb returns the process exit status: 0 success, 1 failure,
 * 2 usage error.
 */
#ifndef ML_TOOL_H
#define ML_TOOL_H

#include <stdint.h>

#include "reader.h"

int cmd_run(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* Directory holding the mpilens executable. */
const char *mpilens_self_dir(void);

/* MPI's special ranks differ between implementations: name them. */
const char *tool_peer_name(const struct mlr_file *f, int32_t peer);
/* Seconds of an event on the common time line of the run (rank 0's clock
 * at MPI_Init as the origin, clocks aligned by the MPI_Init offsets). */
int64_t tool_aligned_ns(const struct mlr_file *f, int64_t local_ns);

#endif
