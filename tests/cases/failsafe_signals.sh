#!/usr/bin/env bash
# Fail-safe: a rank killed by a signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
# SIGABRT from a failed assert, stack overflow (also in a thread that never
# calls MPI), SIGTERM, SIGINT, SIGKILL), on
# rank 1 and on rank 0, Open MPI and MPICH: every call it made before is in
# its rank file (mpilens dump), and mpilens report names the rank, the signal
# and its code, and failsafe.c:LINE; SIGKILL leaves no record and is reported
# as a vanished rank with its last MPI call.  On rank 1 the exit status and
# output are also compared with a run without the runtime.  `report --json
# --failures` (and for SIGSEGV the whole `report --json`) says the same:
# python3 checks rank, signal name and code, address and failsafe.c:LINE
# (tests/failsafe_lib.sh, fs_check_json).
# timeout: 300
. "$(dirname "$0")/../failsafe_lib.sh"
fs_setup
fs_matrix segv bus fpe ill abrt stack tstack term int kill
fs_done
