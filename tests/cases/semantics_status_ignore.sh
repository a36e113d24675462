# MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE in every call taking a status.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_ignore.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_ignore
