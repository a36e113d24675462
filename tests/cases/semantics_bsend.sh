# User buffers of MPI_Buffer_attach: Bsend/Ibsend, detach returns the buffer, MPI_ERR_BUFFER.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_bsend.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_bsend
