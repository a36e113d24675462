# mpilens run -o DIR -- <launcher> ...: any launcher after --, here each
# MPI's own mpirun; rank files land in DIR and the output is the program's.
# timeout: 120
need_mpilens
for impl in openmpi mpich; do
    p=$(prog "$impl" sem_wild) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && run_mpi "$impl" 2 "$p") >"$d/plain.out" 2>"$d/plain.err"
    case $impl in
    openmpi) launcher=(mpirun.openmpi --oversubscribe -n 2) ;;
    mpich) launcher=(mpirun.mpich -n 2) ;;
    esac
    (cd "$d" && timeout 100 "$MPILENS" run -o "$d/trace" -- "${launcher[@]}" "$p") >"$d/run.out" 2>"$d/run.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        soft_fail "$impl: mpilens run -o DIR -- ${launcher[*]} sem_wild: exit $rc: $(head -c 300 "$d/run.err" | tr '\n' ' ')"
        continue
    fi
    cmp -s "$d/plain.out" "$d/run.out" || soft_fail "$impl: output under mpilens run -- launcher differs"
    check_rank_files "$d/trace" 2 "$impl: mpilens run -- launcher"
done
