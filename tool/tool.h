/*
 * tool.h — the verbs of the mpilens command (one file each) and what they
 * share.  Every verb returns the process exit status: 0 success, 1 failure,
 * 2 usage error.
 */
#ifndef ML_TOOL_H
#define ML_TOOL_H

#include <stdint.h>
#include <stdio.h>

#include "reader.h"

int cmd_run(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/* The calibration file of `mpilens calibrate` (tool/calibrate.c): its
 * default path into b (empty when there is no HOME), and its alpha (ns per
 * message) and beta (ns per byte); -1 with the reason in err. */
void calibrate_default_path(char *b, size_t n);
int calibrate_read(const char *path, double *alpha_ns, double *beta_ns, char *err, size_t nerr);

/* Failure diagnosis of run directory `dir` (or one rank file), to `out`
 * (tool/diag.c, which writes what analysis/diag.c finds): each failed rank
 * with how, where and when; what the other ranks were doing; ranks that
 * vanished without a record.  Returns 0 when no
 * rank failed or vanished, 1 when some did, -1 when dir cannot be read.
 * Resolves call sites through symbols.h: call sym_cleanup() when done. */
int diag_print(const char *dir, FILE *out);
/* The same diagnosis as JSON (docs/REPORT.md, "failures").  whole: one
 * object of its own (`report --json --failures`); else the members
 * "failure_summary", "failures" and "other_ranks", each on its own line
 * indented by 2 and followed by a comma, for report --json to embed.
 * Returns as diag_print; with whole, -1 writes nothing. */
int diag_json(const char *dir, FILE *out, int whole);
/* The same two from a diagnosis already made (an_diag_load, or
 * an_diag_load_slice at process 0 of a sliced report); g NULL: none could
 * be made (diag_json writes its empty members, diag_print_diag needs one). */
struct an_diag;
int diag_print_diag(const char *dir, const struct an_diag *g, FILE *out);
int diag_json_diag(const char *dir, const struct an_diag *g, FILE *out, int whole);
/* For `mpilens run` while or after the launcher runs: *failed = ranks with a
 * final failure record, *alive = ranks that have not finalized or exited
 * and whose process is still alive on this host (pid checked against the
 * executable).  Returns 0, or -1 when dir cannot be read. */
int diag_status(const char *dir, int *failed, int *alive);
/* Sends sig to every such live rank (same check: this host, pid still runs
 * the recorded executable); returns how many, or -1. */
int diag_signal_leftovers(const char *dir, int sig);
/* One line per rank that went on after an MPI error returned to it (or a
 * signal its own handler caught) and ended normally: "mpilens: rank 1:
 * MPI_ERR_RANK returned to the program by MPI_Send at f.c:12 (it went on)".
 * Returns how many lines, or -1. */
int diag_notes(const char *dir, FILE *out);
/* `mpilens run`: a thread that watches the processes of this host's ranks
 * and writes a record of kind ML_FAIL_VANISHED (when, look number) into the
 * file of a rank whose process ended without any record of its own
 * (tool/pidwatch.c).  Stop: a last look, waiting up to wait_s for processes
 * still alive. */
struct pidwatch;
struct pidwatch *pidwatch_start(const char *dir);
void pidwatch_stop(struct pidwatch *w, double wait_s);
/* mpilens run was told to stop the job: ranks seen gone from now on vanished
 * in that stop (ML_FAILF_STOPPING), not before it.  Async-signal-safe. */
void pidwatch_stopping(void);
int cmd_top(int argc, char **argv);
int cmd_agent(int argc, char **argv);

/* The processes this command runs as (analysis/exchange.h): the serial
 * exchange in the mpilens binary, MPI_COMM_WORLD in mpilens-mpi-<impl>
 * (tool/mpi/engine.c).  mpilens_main: the command, whichever main. */
struct an_xch;
extern struct an_xch *tool_xch;
int mpilens_main(int argc, char **argv);
/* In mpilens-mpi-<impl> built with libotf2: makes an OTF2_Archive (void *)
 * write in parallel over the job's processes (OTF2's MPI collectives); 0
 * or -1.  NULL in the mpilens binary. */
extern int (*tool_otf2_parallel)(void *archive);
/* LD_PRELOAD without any libmpilens runtime (the analysis is never recorded). */
void tool_strip_preload(void);

/* Directory holding the mpilens executable. */
const char *mpilens_self_dir(void);
/* The one line for an option getopt_long refused (set opterr = 0 first). */
void tool_bad_option(const char *verb, int argc, char **argv);
/* MPILENS_SLICE_LOG (tests): one stderr line naming the rank files this
 * process of a sliced analysis read ("mpilens VERB: process R of P read
 * rank-00000.mlt ..."). */
struct an_run;
void tool_slice_log(const char *verb, const struct an_run *run, int rank, int size);
/* The same for the rank files each process diagnosed (an_diag_load_slice). */
void tool_diag_slice_log(const char *verb, const struct an_run *run, int rank, int size);

/* MPI's special ranks differ between implementations: name them. */
const char *tool_peer_name(const struct mlr_file *f, int32_t peer);
/* Seconds of an event on the common time line of the run (rank 0's clock
 * at MPI_Init as the origin, clocks aligned by the MPI_Init offsets). */
int64_t tool_aligned_ns(const struct mlr_file *f, int64_t local_ns);
/* The JSON member `  "deadlock": {"file", "written", "text"},` of the
 * deadlock verdict `mpilens top` wrote to DIR/deadlock.txt
 * (an_deadlock_verdict, analysis/diag.h), or `null` when there is none (or
 * when skip is set). */
void tool_deadlock_json(FILE *o, const char *dir, int skip);

#endif
