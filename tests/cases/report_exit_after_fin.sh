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
# With another rank failing after that (tests/programs/exit_after_fin.c abort:
# rank 1 calls abort() 1 s after MPI_Finalize, or Open MPI's mpirun stops it
# for rank 0's status), rank 0's status is still in the summary and in its
# own line, never "finalized normally" (it was, next to a failed rank).
for impl in openmpi mpich; do
    have_impl $impl || continue
    p=$(prog $impl exit_after_fin) || continue
    d=$TEST_TMP/$impl-abort
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 2 "$p" abort) >"$d/out" 2>"$d/err"
    check_rank_files "$d/run" 2 "$impl abort" || continue
    "$MPILENS" report --failures "$d/run" >"$d/rep.txt" 2>&1
    grep -q '^rank 1 (pid [0-9]* on .*): FAILED' "$d/rep.txt" || soft_fail "$impl abort: rank 1 not failed: $(sed -n 2p "$d/rep.txt")"
    sed -n 2p "$d/rep.txt" | grep -q '1 rank exited with a non-zero status after MPI_Finalize (rank 0: 3)' ||
        soft_fail "$impl abort: summary without rank 0's status: $(sed -n 2p "$d/rep.txt")"
    grep -q 'finalized normally' "$d/rep.txt" && soft_fail "$impl abort: $(grep -m1 'finalized normally' "$d/rep.txt")"
    grep -q '^rank 0 (pid [0-9]* on .*): finalized, then exited with status 3' "$d/rep.txt" ||
        soft_fail "$impl abort: no line on rank 0's exit status: $(grep -m1 '^rank 0' "$d/rep.txt")"
    "$MPILENS" report --json -q "$d/run" | python3 -c '
import json, sys
o = [r for r in json.load(sys.stdin)["other_ranks"] if r["rank"] == 0]
sys.exit(not o or o[0].get("exit_status") != 3)' || soft_fail "$impl abort: JSON other_ranks: rank 0 without exit_status 3"
done
