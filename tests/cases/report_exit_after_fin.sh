# report_exit_after_fin: a rank that exits with a non-zero status after
# MPI_Finalize (tests/programs/exit_after_fin.c: rank 0 exits with 3; an
# uncaught Python exception under mpi4py does the same) is a failure in the
# report's summary, not "no failure"; both MPIs, through `mpilens run`.
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl exit_after_fin) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 2 "$p") >"$d/out" 2>"$d/err"
    check_rank_files "$d/run" 2 "$impl" || continue
    "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>&1
    grep -q 'no failure' "$d/rep.txt" && soft_fail "$impl: report says $(grep -m1 'no failure' "$d/rep.txt")"
    grep -q '^FAILED after MPI_Finalize: 1 rank exited with a non-zero status (rank 0: 3)' "$d/rep.txt" ||
        soft_fail "$impl: summary: $(sed -n 2p "$d/rep.txt")"
    "$MPILENS" report --json -q "$d/run" | python3 -c 'import json,sys; t=json.load(sys.stdin)["failure_summary"]["text"]; sys.exit("rank 0: 3" not in t)' ||
        soft_fail "$impl: JSON failure_summary text lacks it"
done
