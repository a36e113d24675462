# Programs an MPI program starts (system, popen) inherit LD_PRELOAD and
# MPILENS_DIR: same output and exit statuses with and without the runtime
# (tests/programs/sem_system.c), and the run directory holds nothing but the
# ranks' files.
for impl in openmpi mpich; do
    same_with_runtime "$impl" 2 sem_system
    [ -d "$LAST_RUN/run" ] || continue
    extra=$(ls "$LAST_RUN/run" | grep -Evx 'rank-0000[01]\.mlt' | tr '\n' ' ')
    [ -z "$extra" ] || soft_fail "$impl: files in the run directory besides the ranks': $extra"
done
