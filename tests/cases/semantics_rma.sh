# One-sided communication results and window errors.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_rma.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_rma
