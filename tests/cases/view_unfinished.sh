#!/usr/bin/env bash
# mpilens view on a run stopped in the middle of calls: the call each rank
# was in when its records stop is drawn as what it is, and the critical
# path does not run through it.  deadlock_coll_missing (3 ranks, stopped by
# mpilens run, exit 86): ranks 0 and 1 block in MPI_Allreduce, rank 2 in
# MPI_Recv.  On the page (window.mpilens.calls()) each rank's last call is
# that routine, of kind "collective" (ranks 0, 1) or "point-to-point"
# (rank 2), and lasts until the records stop (about 2 s, the deadlock
# timeout); before, all
# three were "other" (grey), the record of a call in progress having no
# type.  The critical path (window.mpilens.criticalPath(), as
# report --json) ends where the rank it ends on began to wait: no segment
# reaches past the start of that rank's blocked call (before, the last
# segment ran to the end of the records, a band over the whole blocked
# call for a path of about a millisecond).  Open MPI and MPICH.
# timeout: 200
source "$ROOT/tests/browser/lib.sh"
need_mpilens
need_browser
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl deadlock_coll_missing) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 3 --deadlock-timeout=2 "$p") >"$d/out" 2>"$d/err"
    rc=$?
    [ $rc = 86 ] || { soft_fail "$impl: the deadlock run exited $rc, not 86: $(head -c 300 "$d/err")"; continue; }
    "$MPILENS" view -q "$d/run" -o "$d/page.html" 2>"$d/view.err" ||
        { soft_fail "$impl: mpilens view failed: $(head -c 300 "$d/view.err")"; continue; }
    timeout 100 node "$ROOT/tests/browser/page_calls.js" "$d/page.html" >"$d/calls.json" 2>"$d/calls.err" ||
        { soft_fail "$impl: the browser failed: $(head -c 300 "$d/calls.json" "$d/calls.err")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" || soft_fail "$impl: report --json failed"
    r=$(python3 - "$d/calls.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if d["errors"]: bad.append("errors %s" % d["errors"][:3])
want = {0: ("MPI_Allreduce", "collective"), 1: ("MPI_Allreduce", "collective"), 2: ("MPI_Recv", "point-to-point")}
last = {}
for c in d["calls"]:
    if c["rank"] not in last or c["t0"] >= last[c["rank"]]["t0"]: last[c["rank"]] = c
for rk, (name, kind) in want.items():
    c = last.get(rk)
    if not c: bad.append("rank %d: no call" % rk); continue
    if c["name"] != name or c["kind"] != kind:
        bad.append("rank %d: last call %s (%s), not %s (%s)" % (rk, c["name"], c["kind"], name, kind))
    if c["dur"] < 1.5e9: bad.append("rank %d: its blocked %s lasts only %d ns" % (rk, c["name"], c["dur"]))
cp = d["critical_path"]
if not cp["segments"]: bad.append("no critical path")
for s in cp["segments"]:
    c = last.get(s["rank"])
    if c and s["to"] > c["t0"] + 1000:
        bad.append("a path segment on rank %d runs to %d ns, past the start of its blocked %s at %d ns" % (s["rank"], s["to"], c["name"], c["t0"]))
print("; ".join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl: $r"
    # the report's path ends there too: run time on it well under the 2 s the ranks blocked
    rt=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["critical_path"]["measures"]["runtime"]["path"])' "$d/rep.json")
    [ "${rt:-0}" -lt 1000000000 ] || soft_fail "$impl: the run-time path is $rt ns: it runs through the blocked calls"
done
