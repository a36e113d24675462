# How failing programs end is the same with and without the runtime (exit
# status, standard output): the program's own signal handlers, SIGSEGV,
# abort(), an MPI error under MPI_ERRORS_ARE_FATAL, exit without
# MPI_Finalize, atexit handlers (tests/programs/sem_fault.c), both MPIs.
# timeout: 300
# MPICH's "BAD TERMINATION" banner names a pid and the status of the first
# process hydra saw end: the failing one or one it killed (a race, also
# without the runtime); mpirun's own exit status is compared as it is.
NORMALIZE='s/PID [0-9]+/PID N/g; s/EXIT CODE: [0-9]+/EXIT CODE: N/' 
for impl in openmpi mpich; do
    same_with_runtime "$impl" 2 sem_fault handler
    same_with_runtime "$impl" 2 sem_fault atexit
    for mode in segv segv-own abort fatal exit3; do
        SAME_TRIES=3 EXPECT_RC=any same_with_runtime "$impl" 2 sem_fault "$mode"
    done
done
