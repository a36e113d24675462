#!/usr/bin/env bash
# Fail-safe: a rank killed by a signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
# SIGABRT from a failed assert, stack overflow (also in a thread that never
# calls MPI), SIGTERM, SIGINT, SIGKILL), on
# rank 1 and on rank 0, Open MPI and MPICH, run by mpilens run: every call it
# made before is in its rank file (mpilens dump); mpilens run exits non-zero,
# leaves no rank process, and prints the diagnosis, which mpilens report
# gives again: the summary names the rank as the first failure, its
# paragraph the signal and its code, failsafe.c:LINE and when, the other
# rank's paragraph its state.  SIGKILL leaves no record: the rank that
# vanished first is the first failure, "killed (SIGKILL or the OOM killer)"
# with its last MPI call, also when the SIGKILL comes from outside (the test
# kills the rank's pid, standing in for the OOM killer).  On rank 1 the exit
# status and output are also compared with a run without mpilens.
# `report --json --failures` (and for SIGSEGV the whole `report --json`)
# says the same: python3 checks rank, signal name and code, address and
# failsafe.c:LINE (tests/failsafe_lib.sh, fs_check_json).
# timeout: 420
. "$(dirname "$0")/../failsafe_lib.sh"
fs_setup
fs_matrix segv bus fpe ill abrt stack tstack term int kill
for impl in $FS_IMPLS_OK; do
    for rank in ${FS_RANKS:-1 0}; do fs_case "$impl" killme "$rank"; done
done
fs_done
