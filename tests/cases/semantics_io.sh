# MPI-IO statuses and errors.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_io.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_io
