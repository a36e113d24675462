# MPI_ANY_SOURCE / MPI_ANY_TAG receives, probes, persistent and split-communicator receives with deterministic senders.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_wild.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_wild
