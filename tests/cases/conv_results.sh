# conv_results: routines whose return value is not an MPI error code
# (MPI_Comm_c2f, MPI_Type_c2f, MPI_Op_c2f, MPI_Group_c2f and the rest of the
# *_c2f/*_f2c family, MPI_Wtime, MPI_Wtick, MPI_Aint_add/diff) are not taken
# for errors: `mpilens run` prints no "returned to the program", `mpilens
# report` no error, and `mpilens dump` no result= on them
# (tests/programs/conv_calls.c, both MPIs; Open MPI's c2f are functions,
# MPICH's mostly macros).
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl conv_calls) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 2 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: run failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^CONV ok' "$d/out" || soft_fail "$impl: program says $(head -1 "$d/out")"
    grep -q 'returned to the program' "$d/err" "$d/out" &&
        soft_fail "$impl: $(grep -h 'returned to the program' "$d/err" "$d/out" | head -1)"
    "$MPILENS" dump "$d/run" >"$d/dump.txt" 2>/dev/null || { soft_fail "$impl: dump failed"; continue; }
    n=$(grep -cE ' MPI_[A-Za-z]+_(c2f|f2c) ' "$d/dump.txt")
    [ $impl = mpich ] || [ "$n" -ge 8 ] || soft_fail "$impl: only $n conversion calls in the dump"
    bad=$(grep -E ' MPI_([A-Za-z]+_(c2f|f2c)|Wtime|Wtick|Aint_add|Aint_diff) .*result=' "$d/dump.txt" | head -1)
    [ -z "$bad" ] || soft_fail "$impl: dump: $bad"
    "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>&1
    grep -Eq 'MPI_ERR_|returned to the program' "$d/rep.txt" &&
        soft_fail "$impl: report: $(grep -Em1 'MPI_ERR_|returned to the program' "$d/rep.txt")"
    note "$impl: $n conversion calls"
done
