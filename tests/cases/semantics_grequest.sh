# Generalized requests: statuses from the query function, MPI_ERR_IN_STATUS, callbacks.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_grequest.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_grequest
