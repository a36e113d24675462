# MPI_BOTTOM with struct and hindexed datatypes of absolute addresses.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_bottom.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_bottom
