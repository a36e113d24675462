/*
 * common.c — small things several verbs need.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "diag.h"
#include "json_out.h"
#include "tool.h"

const char *tool_peer_name(const struct mlr_file *f, int32_t peer)
{
    int mpich = strncmp(mlr_header(f)->mpi_impl, "mpich", 5) == 0;
    if (peer == ML_PEER_NONE) return "";
    if (peer == ML_PEER_CANCELLED) return "CANCELLED";   /* a completion's status: MPI_Cancel worked */
    if (peer == (mpich ? -2 : -1)) return "ANY_SOURCE";
    if (peer == (mpich ? -1 : -2)) return "PROC_NULL";
    if (peer == (mpich ? -3 : -4)) return "ROOT";
    return NULL;
}

int64_t tool_aligned_ns(const struct mlr_file *f, int64_t local_ns)
{
    const struct ml_header *h = mlr_header(f);
    if (h->sync_init.valid) return local_ns + h->sync_init.offset_ns;
    return local_ns;
}

void tool_deadlock_json(FILE *o, const char *dir, int skip)
{
    char when[64];
    char *v = skip ? NULL : an_deadlock_verdict(dir, when, sizeof when);
    fprintf(o, "  \"deadlock\": ");
    if (!v) {
        fprintf(o, "null,\n");
        return;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/deadlock.txt", dir);
    fprintf(o, "{\"file\": ");
    json_str(o, path);
    fprintf(o, ", \"written\": ");
    json_str(o, when);
    fprintf(o, ", \"text\": ");
    json_str(o, v);
    fprintf(o, "},\n");
    free(v);
}

/* getopt_long's complaint, in mpilens's words (opterr = 0 before the loop):
 * one line prefixed "mpilens VERB:", with a hint. */
void tool_bad_option(const char *verb, int argc, char **argv)
{
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (optopt > ' ' && optopt < 127 && (arg[0] != '-' || arg[1] == '-' || !strchr(arg + 1, optopt)))
        fprintf(stderr, "mpilens %s: unknown option '-%c'; try 'mpilens %s --help'\n", verb, optopt, verb);
    else
        fprintf(stderr, "mpilens %s: unknown option, or one missing its value: '%s'; try 'mpilens %s --help'\n",
                verb, arg, verb);
}

void tool_slice_log(const char *verb, const struct an_run *run, int rank, int size)
{
    char line[4096];
    size_t o = (size_t)snprintf(line, sizeof line, "mpilens %s: process %d of %d read", verb, rank, size);
    for (unsigned i = 0; i < run->n && o < sizeof line; i++) {
        const char *f = strrchr(mlr_path(run->ranks[i].f), '/');
        o += (size_t)snprintf(line + o, sizeof line - o, " %s", f ? f + 1 : mlr_path(run->ranks[i].f));
    }
    fprintf(stderr, "%s\n", line);
}

void tool_diag_slice_log(const char *verb, const struct an_run *run, int rank, int size)
{
    if (!run->slice) return;
    char line[4096];
    size_t o = (size_t)snprintf(line, sizeof line, "mpilens %s: diagnosis: process %d of %d read", verb, rank, size);
    for (unsigned i = 0; i < run->slice->nfiles && o < sizeof line; i++) {
        const char *f = strrchr(run->slice->files[i], '/');
        o += (size_t)snprintf(line + o, sizeof line - o, " %s", f ? f + 1 : run->slice->files[i]);
    }
    fprintf(stderr, "%s\n", line);
}
