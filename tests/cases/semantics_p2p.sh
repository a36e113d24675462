# Point-to-point: values, statuses, counts, Test/Iprobe flags, Waitany/Waitsome/Testany/Testsome indices, Sendrecv(_replace), Ssend, Rsend, Probe, Mprobe, cancel.
# Identical output and exit status with and without the runtime
# (tests/programs/sem_p2p.c), Open MPI and MPICH, 2 and 4 ranks; rank files written.
same_everywhere sem_p2p
