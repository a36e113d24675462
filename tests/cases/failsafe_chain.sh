#!/usr/bin/env bash
# Fail-safe leaves the program's own signal handlers working: a SIGTERM
# handler installed before MPI_Init (sigaction, SA_SIGINFO) still runs, a
# query returns it, and the program goes on to MPI_Finalize; a SIGSEGV
# handler installed with signal() after MPI_Init still runs (and calls
# _exit(7)); MPI's own handlers still print.  Exit status and output are the
# same with and without the runtime; the report names the signal.  Also: a
# run where nobody fails reports no failure, with the periodic sync on
# (MPILENS_SYNC_INTERVAL=1) and off (0).
# timeout: 120
. "$(dirname "$0")/../failsafe_lib.sh"
fs_setup
FS_RANKS=1 fs_matrix sighandled segvhandler segv
for impl in $FS_IMPLS_OK; do
    # MPI's own SIGSEGV handler (Open MPI's backtrace, UCX's under MPICH) still runs
    d=$FS_TMP/$impl-segv-1
    case $impl in
    openmpi) grep -q "Process received signal" "$d.plain.err" && ! grep -q "Process received signal" "$d.err" &&
        fs_fail "$impl: Open MPI's own SIGSEGV handler did not run under the runtime" ;;
    mpich) grep -q "Caught signal 11" "$d.plain.err" && ! grep -q "Caught signal 11" "$d.err" &&
        fs_fail "$impl: UCX's own SIGSEGV handler did not run under the runtime" ;;
    esac
    for iv in 1 0; do
        d=$FS_TMP/$impl-none-$iv
        MPILENS_SYNC_INTERVAL=$iv fs_launch "$impl" "$d" none 1 >"$d.out" 2>"$d.err" ||
            fs_fail "$impl: clean run failed with MPILENS_SYNC_INTERVAL=$iv: $(head -c 300 "$d.err")"
        "$MPILENS" report --failures "$d" >"$d.report" 2>&1
        grep -q "no failure: every rank called MPI_Finalize" "$d.report" ||
            fs_fail "$impl: clean run (MPILENS_SYNC_INTERVAL=$iv) reported as: $(head -c 400 "$d.report" | tr '\n' '|')"
        fs_check_calls "$impl clean run" "$d" none
    done
    echo "ok $impl: clean runs"
done
fs_done
