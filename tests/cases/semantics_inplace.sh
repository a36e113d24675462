# MPI_IN_PLACE in every collective that takes it, blocking and nonblocking, world and split communicators.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_inplace.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_inplace
