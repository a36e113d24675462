# MPI_Abort(comm, 7) on a sub-communicator: tests/programs/abort_sub.c, 4
# ranks, rank 3 aborts its half {2,3} of an MPI_Comm_split after 1 s while
# ranks 0-2 wait in an MPI_Barrier on MPI_COMM_WORLD; Open MPI and MPICH,
# under mpilens run. What is true: one rank failed, rank 3, by MPI_Abort
# with code 7 at abort_sub.c:L_ABORT; the others were ended because of it.
# Open MPI's mpirun kills the others with SIGTERM; MPICH makes rank 2 (the
# other member of the aborted communicator) exit(7) from inside its
# MPI_Barrier (mpiexec reports it ending with status 7; without mpilens
# too) and mpiexec SIGKILLs ranks 0-1. The report counted that exit(7) as
# a second failure of its own ("2 ranks failed", rank 2 'FAILED ... exited
# with status 7 ... (from an error handler or callback?)'): the diagnosis
# must say 1 rank failed, and rank 2, when it exited so, was ended by the
# MPI after rank 3's MPI_Abort.
# timeout: 120
need_mpilens
src=$ROOT/tests/programs/abort_sub.c
LA=$(line_of "$src" L_ABORT)
LB=$(line_of "$src" L_BARRIER)
for impl in openmpi mpich; do
    have_impl "$impl" || continue
    need_runtime "$impl"
    p=$(prog "$impl" abort_sub) || continue
    d=$TEST_TMP/$impl
    timeout -k 5 60 "$MPILENS" run -q --mpi="$impl" -n 4 -o "$d" --grace 2 "$p" >"$d.out" 2>&1
    rc=$?
    note "$impl: mpilens run exit $rc"
    [ "$rc" != 0 ] && [ "$rc" != 124 ] || soft_fail "$impl: mpilens run exit $rc, want the launcher's failure status"
    "$MPILENS" report --failures "$d" >"$d.rep" 2>&1
    sed 's/^/    | /' "$d.rep" >&2
    rep=$(cat "$d.rep")
    assert_contains "$(sed -n 2p "$d.rep")" "1 rank failed" "$impl: the summary line"
    assert_contains "$rep" "rank 3 (pid" "$impl: the report"
    b3=$(awk '/^rank 3 \(pid/ { on = 1 } on && /^$/ { exit } on' "$d.rep")
    assert_contains "$b3" "FAILED, first failure" "$impl: rank 3"
    assert_contains "$b3" "MPI_Abort called with error code 7" "$impl: rank 3"
    assert_contains "$b3" "MPI_Abort called at abort_sub.c:$LA" "$impl: rank 3"
    for r in 0 1 2; do
        b=$(awk -v r="$r" '$1 == "rank" && $2 == r && $3 == "(pid" { on = 1 } on && /^$/ { exit } on' "$d.rep")
        case $b in
        *"FAILED, first failure"*) soft_fail "$impl: rank $r called the first failure: $b" ;;
        *"exited with status 7"*)
            assert_contains "$b" "ended by the MPI after the first failure's MPI_Abort" "$impl: rank $r (exit 7 in MPI)"
            assert_contains "$b" "inside MPI_Barrier called at abort_sub.c:$LB: the MPI ended it" "$impl: rank $r (exit 7 in MPI)" ;;
        esac
    done
    # JSON: the same counts
    "$MPILENS" report --json "$d" 2>/dev/null >"$d.json"
    python3 - "$d.json" "$impl" <<'PY' || soft_fail "$impl: report --json failure_summary"
import json, sys
j = json.load(open(sys.argv[1]))
s = j["failure_summary"]
ok = s["failed"] == 1 and s["first_rank"] == 3
for f in j["failures"]:
    if f.get("ended_by_abort") and f["rank"] == 3: ok = False
print(sys.argv[2], "failure_summary:", {k: s[k] for k in ("failed", "killed_after_first", "ended_by_abort", "vanished", "first_rank")}, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
done
