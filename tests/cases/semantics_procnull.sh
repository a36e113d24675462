# MPI_PROC_NULL in every kind of point-to-point call and on the edges of a non-periodic topology.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_procnull.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_procnull
