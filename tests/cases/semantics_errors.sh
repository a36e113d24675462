# Error classes under MPI_ERRORS_RETURN, truncation, MPI_ERR_IN_STATUS, user error handlers and error codes.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_errors.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_errors
