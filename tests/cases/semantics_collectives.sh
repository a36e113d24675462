# Collectives, user-defined operations, communicators, groups, topologies, inter-communicators, attribute callbacks.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_coll.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_coll
