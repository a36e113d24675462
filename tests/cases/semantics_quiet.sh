# The runtime sends nothing on the program's communicators
# (tests/programs/sem_quiet.c): MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) on
# MPI_COMM_WORLD and on a duplicate, right after MPI_Init, in the middle and
# after a barrier right before MPI_Finalize, finds nothing; the same output
# with and without the runtime, both MPIs, 2 and 4 ranks; also with every
# rank a node of its own (MPILENS_NODE_SIZE=1: every rank takes clock samples
# with rank 0 at MPI_Init and MPI_Finalize) and through `mpilens run`.
for impl in openmpi mpich; do
    for n in 2 4; do
        same_with_runtime "$impl" $n sem_quiet
    done
    MPILENS_NODE_SIZE=1 same_with_runtime "$impl" 4 sem_quiet
    RT_VIA=mpilens same_with_runtime "$impl" 4 sem_quiet
    grep -q 'flag=1' "$LAST_RUN/plain.out" && soft_fail "$impl: the plain run saw a message: $(grep -m1 flag=1 "$LAST_RUN/plain.out")"
done
exit 0
