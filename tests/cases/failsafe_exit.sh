#!/usr/bin/env bash
# Fail-safe: a rank that calls exit(3) or returns 4 from main without
# MPI_Finalize, on rank 1 and rank 0, Open MPI and MPICH: all its calls are
# recorded, and mpilens report gives the exit status, how (exit() called /
# main returned) and failsafe.c:LINE (of exit(), or of the last MPI call).
# timeout: 120
. "$(dirname "$0")/../failsafe_lib.sh"
fs_setup
fs_matrix exit return
fs_done
