/*
 * common.c — small things several verbs need.
 */
#include <stdio.h>
#include <string.h>

#include "tool.h"

const char *tool_peer_name(const struct mlr_file *f, int32_t peer)
{
    int mpich = strncmp(mlr_header(f)->mpi_impl, "mpich", 5) == 0;
    if (peer == ML_PEER_NONE) return "";
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
