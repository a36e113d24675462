# report_critpath_badinput: the critical path of incomplete runs says what
# it could not decide and invents no path.  A deadlocked run (tests/programs/
# deadlock_recvrecv.c, stopped by `mpilens run`, exit 86): both ranks
# unfinished, complete false, the path up to where the records stop; the
# receives blocked until the run was stopped are late-sender waiting (each
# rank for the other), not communication on the path.  A
# pipeline (cp_analytic) whose rank 2 file is removed: the text names the
# missing file, the calls that waited for rank 2 are undecided, no segment
# of the path is on rank 2.  A collective rank 2 never enters
# (deadlock_coll_missing, 3 ranks): the others' unfinished MPI_Allreduce
# waits for rank 2.  Bad options: a clear error, exit 2.  Both MPIs.
# timeout: 240
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl deadlock_recvrecv) || continue
    d=$TEST_TMP/$impl-dl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 2 "$p") >"$d/out" 2>"$d/err"
    rc=$?
    [ $rc = 86 ] || { soft_fail "$impl: deadlock run exited $rc, not 86: $(head -c 300 "$d/err")"; continue; }
    "$MPILENS" report --critical-path "$d/run" >"$d/rep.txt" 2>&1 || soft_fail "$impl: report --critical-path failed"
    assert_contains "$(cat "$d/rep.txt")" "2 ranks never reached MPI_Finalize" "$impl deadlock text"
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" || soft_fail "$impl: report --json failed"
    r=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["critical_path"]
bad = []
if c["complete"] is not False: bad.append("complete is %s" % c["complete"])
if c["unfinished_ranks"] != 2: bad.append("unfinished_ranks %d" % c["unfinished_ranks"])
if not c["segments"]: bad.append("no path at all")
# each rank blocks in MPI_Recv from the other until the run is stopped: that
# time is waiting (late sender, for the other rank), not communication on a path
w = json.load(open(sys.argv[1]))["wait_states"]
for rk in w["ranks"]:
    if rk["useful_ns"] > rk["time_ns"] / 2: bad.append("rank %d: useful %d of %d ns" % (rk["rank"], rk["useful_ns"], rk["time_ns"]))
ls = w["late_sender"]
for k in (0, 1):
    if ls["by_rank"][k] < w["ranks"][k]["time_ns"] / 2: bad.append("rank %d late sender %d ns" % (k, ls["by_rank"][k]))
    if not any(s["rank"] == k and s["peer"] == 1 - k and s["routine"] == "MPI_Recv" for s in ls["by_site"]):
        bad.append("rank %d not shown waiting in MPI_Recv for rank %d" % (k, 1 - k))
rt = c["measures"]["runtime"]["path"]
if rt > w["ranks"][0]["time_ns"] / 2: bad.append("runtime path %d ns runs through the blocked receives" % rt)
print("; ".join(bad))' "$d/rep.json")
    [ -z "$r" ] || soft_fail "$impl deadlock: $r"

    # a collective a rank never enters (deadlock_coll_missing: rank 2 waits in
    # MPI_Recv while ranks 0 and 1 wait in MPI_Allreduce): the unfinished
    # Allreduce waits for rank 2, the member that never came, in the JSON
    # ("peer": 2) and in the text's "for" column (before: -1)
    p=$(prog $impl deadlock_coll_missing) || continue
    d=$TEST_TMP/$impl-collmiss
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 3 "$p") >"$d/out" 2>"$d/err"
    rc=$?
    if [ $rc = 86 ]; then
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" || soft_fail "$impl: report --json failed"
        r=$(python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["wait_states"]["collective"]
bad = []
for k in (0, 1):
    s = [x for x in w["by_site"] if x["rank"] == k and x["routine"] == "MPI_Allreduce"]
    if not s: bad.append("rank %d: no collective wait in MPI_Allreduce" % k)
    elif s[0]["peer"] != 2: bad.append("rank %d waits in MPI_Allreduce for %d, not rank 2" % (k, s[0]["peer"]))
    elif s[0]["time_ns"] < 1e9: bad.append("rank %d waits only %d ns" % (k, s[0]["time_ns"]))
print("; ".join(bad))' "$d/rep.json")
        [ -z "$r" ] || soft_fail "$impl coll missing: $r"
        "$MPILENS" report --critical-path "$d/run" >"$d/rep.txt" 2>&1
        n=$(grep -cE '^ +collective +[01] +deadlock_coll_missing.c:[0-9]+ +MPI_Allreduce +2 ' "$d/rep.txt")
        assert_eq 2 "$n" "$impl: text rows of ranks 0 and 1 waiting in MPI_Allreduce for rank 2"
        grep -qE 'MPI_[A-Za-z_]+ +-1 ' "$d/rep.txt" && soft_fail "$impl: the text shows a peer -1"
    else
        soft_fail "$impl: deadlock_coll_missing run exited $rc, not 86: $(head -c 300 "$d/err")"
    fi

    p=$(prog $impl cp_analytic) || continue
    d=$TEST_TMP/$impl-miss
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 4 "$p" pipeline) >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: pipeline run failed: $(head -c 300 "$d/err")"; continue; }
    rm -f "$d/run/rank-00002.mlt"
    "$MPILENS" report --critical-path "$d/run" >"$d/rep.txt" 2>&1 || soft_fail "$impl: report with a missing rank failed"
    assert_contains "$(cat "$d/rep.txt")" "1 of 4 rank files missing" "$impl missing rank text"
    assert_contains "$(cat "$d/rep.txt")" "waited for a partner the trace does not show" "$impl missing rank text"
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" || soft_fail "$impl: report --json failed"
    r=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["critical_path"]
bad = []
if c["complete"] is not False: bad.append("complete is %s" % c["complete"])
if c["undecided_calls"] < 1: bad.append("nothing undecided")
if any(s["rank"] == 2 for s in c["segments"]): bad.append("a path through the missing rank 2")
print("; ".join(bad))' "$d/rep.json")
    [ -z "$r" ] || soft_fail "$impl missing rank: $r"
    for bad in "--from 5 --to 1" "--alpha x" "--beta -1" "--cost-model fancy" "--eager many"; do
        # shellcheck disable=SC2086
        "$MPILENS" report $bad "$d/run" >"$d/bad.out" 2>"$d/bad.err"
        rc=$?
        assert_eq 2 "$rc" "exit status of report $bad"
        assert_contains "$(cat "$d/bad.err")" "mpilens report:" "error of report $bad"
    done
done
