# Persistent requests: Send/Recv/Ssend/Rsend/Bsend_init, Start/Startall over iterations, inactive requests.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_persist.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_persist
