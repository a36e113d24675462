#!/usr/bin/env bash
# Fail-safe, MPI side: MPI_Abort, an MPI error under MPI_ERRORS_ARE_FATAL,
# under MPI_ERRORS_RETURN and under an error handler of the program's own
# (which still runs; the program goes on and finalizes), and a program error
# handler that calls MPI_Abort; rank 1 and rank 0, Open MPI and MPICH.  The
# report gives the abort code or the MPI error class, the routine and
# failsafe.c:LINE.  On rank 1 the exit status and the program's own output
# (what its handlers saw, return codes, MPI_Comm_get_errhandler) must be the
# same as without the runtime.
# timeout: 200
. "$(dirname "$0")/../failsafe_lib.sh"
fs_setup
fs_matrix abort fatal errret errhandler handlerabort
fs_done
