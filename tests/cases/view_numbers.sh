#!/usr/bin/env bash
# mpilens view says what mpilens report says, on view_odd.c (a ring of
# MPI_Sendrecv, sends and receives on MPI_PROC_NULL, MPI_ANY_SOURCE
# receives, MPI_Isend/MPI_Irecv with MPI_Waitall, MPI_Allreduce):
# - 4 ranks: the page's counts equal report --json's; its routine table
#   gives each routine report's calls, and as time% report's share of the
#   MPI time without MPI_Init and MPI_Finalize ("-" for those two, which lie
#   outside the application time); before, the page divided by the MPI time
#   with them (MPI_Allreduce 7% on the page, 37% in the report);
# - the same run without rank 2's file: report, report --json and the page
#   do not say "every rank called MPI_Finalize" (nothing says rank 2 did)
#   but that a rank had no file, and the page's box is not the green "ok";
# - the summary's bar per rank: its computation is report's app_ns - mpi_ns,
#   its MPI parts sum to report's mpi_ns + init_ns + finalize_ns, on these
#   runs and on ok_testpoll (2 ranks, rank 0 polls with computation between
#   the polls: a run of repeated polls counts the profile's estimate; before,
#   its span from the first poll to the last, 4.0 s of MPI_Test against
#   report's 36 ms);
# - the page's note says as many MPI calls as report (run.calls): on the
#   poll run, whose repeated polls are one box each, it said the boxes
#   (records), not the calls;
# - 1 rank (the ring goes to itself: 10 messages): the page's note does not
#   say "there is no traffic between ranks" but that its 10 messages went to
#   itself;
# - the critical path (run4 and poll): the page's segments, as drawn on the
#   timeline (window.mpilens.criticalPath()), are report --json's
#   critical_path.segments (count, ranks, to_rank, times within 1 us once
#   moved to the page's time base, its origin_ns), its value and end rank
#   report's runtime path, the summary's line says that value, and the
#   widest band paints its row (half its pixels pink with the overlay on, under a
#   tenth off: a message line may cross it);
#   before, the page had no critical path; with --no-critical-path it has
#   none (null in its meta).
# Open MPI and MPICH.
# timeout: 240
source "$ROOT/tests/browser/lib.sh"
need_mpilens
need_browser
for impl in openmpi mpich; do
    have_impl "$impl" || { note "skip $impl: not installed"; continue; }
    need_runtime "$impl"
    p=$(prog "$impl" view_odd) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    for n in 4 1; do
        (cd "$d" && mpilens_run "$impl" "$d/run$n" $n "$p") >"$d/out$n" 2>"$d/err$n" ||
            { soft_fail "$impl: view_odd on $n ranks failed: $(head -c 300 "$d/err$n")"; continue 2; }
    done
    # rank 0 polls MPI_Test, then MPI_Iprobe, computing between the polls
    q=$(prog "$impl" ok_testpoll) && (cd "$d" && mpilens_run "$impl" "$d/poll" 2 "$q") >"$d/outp" 2>"$d/errp" ||
        { soft_fail "$impl: ok_testpoll failed: $(head -c 300 "$d/errp")"; continue; }
    # the run of 4 without rank 2's file
    mkdir -p "$d/lost"
    cp "$d/run4"/rank-0000[013].mlt "$d/lost/"
    for r in run4 run1 lost poll; do
        "$MPILENS" report --json -q --no-critical-path "$d/$r" >"$d/$r.json" 2>"$d/$r.json.err" ||
            { soft_fail "$impl $r: report --json failed: $(head -c 300 "$d/$r.json.err")"; continue 2; }
        "$MPILENS" report -q --no-critical-path "$d/$r" >"$d/$r.txt" 2>&1
        case $r in run4 | poll)
            "$MPILENS" report --json -q "$d/$r" >"$d/$r.cp.json" 2>"$d/$r.cp.err" ||
                { soft_fail "$impl $r: report --json failed: $(head -c 300 "$d/$r.cp.err")"; continue 2; } ;;
        esac
        "$MPILENS" view -q "$d/$r" -o "$d/$r.html" 2>"$d/$r.view.err" ||
            { soft_fail "$impl $r: mpilens view failed: $(head -c 300 "$d/$r.view.err")"; continue 2; }
        check_page "$d/$r.html" "$d/shots-$r" quick >"$d/$r.check.json" 2>"$d/$r.check.err" ||
            { soft_fail "$impl $r: the browser check failed: $(head -c 400 "$d/$r.check.json" "$d/$r.check.err")"; continue 2; }
    done
    # --no-critical-path: the page holds none
    "$MPILENS" view -q --no-critical-path "$d/run4" -o "$d/nocp.html" 2>"$d/nocp.err" &&
        grep -q '"critical_path":null' "$d/nocp.html" && ! grep -q '"segments_total"' "$d/nocp.html" ||
        soft_fail "$impl: view --no-critical-path: $(head -c 300 "$d/nocp.err")"
    v=$(python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
bad = []
def load(r): return json.load(open("%s/%s.check.json" % (d, r))), json.load(open("%s/%s.json" % (d, r)))
for r in ("run4", "run1", "lost", "poll"):
    page, rep = load(r)
    if page.get("errors"): bad.append("%s: console errors %s" % (r, page["errors"][:3]))
    want = {"ranks": rep["run"]["ranks"], "messages": rep["messages"]["matched"], "bytes": rep["messages"]["bytes"]}
    if page.get("stats") != want: bad.append("%s: stats %s, report %s" % (r, page.get("stats"), want))
    # the note's MPI calls: report's (a run of equal polls counts 1 + repeat calls)
    m = __import__("re").search(r"Shows \d+ of \d+ ranks?, ([\d,]+) MPI calls", page.get("notes", ""))
    if not m or int(m.group(1).replace(",", "")) != rep["run"]["calls"]:
        bad.append("%s: the note says %r, report %d MPI calls" % (r, page.get("notes", "")[:120], rep["run"]["calls"]))
    if r == "poll" and rep["run"]["calls"] <= rep["run"]["events"]:
        bad.append("poll: report counts %d calls in %d records: rank 0's polls made no run of repeats" % (rep["run"]["calls"], rep["run"]["events"]))
    # the routine table: calls and time% as the report's
    routines = {x["routine"]: x for x in rep["routines"]}
    inside = sum(x["total_ns"] for x in rep["routines"] if x["routine"] not in ("MPI_Init", "MPI_Finalize"))
    # the time per rank: computation = app - MPI, the routines' parts = MPI, MPI_Init, MPI_Finalize
    bars = page.get("rank_bars") or {}
    if bars.get("group") != 1 or len(bars.get("rows", [])) != rep["run"]["ranks"]: bad.append("%s: rank bars %s" % (r, bars))
    else:
        for x in rep["ranks"]:
            row = bars["rows"][x["rank"]]
            comp, mpi = row[0], sum(row[1:])
            want = x["mpi_ns"] + x["init_ns"] + x["finalize_ns"]
            if abs(comp - max(0, x["app_ns"] - x["mpi_ns"])) > 1 or abs(mpi - want) > 1e-6 * want + 1:
                bad.append("%s: rank %d's bar: %.0f ns computing, %.0f ns in MPI; report: %d, %d" %
                           (r, x["rank"], comp, mpi, x["app_ns"] - x["mpi_ns"], want))
    rows = page.get("routines") or []
    if not rows: bad.append("%s: no routine table" % r)
    for name, calls, _, share, _ in rows:
        x = routines.get(name)
        if not x: bad.append("%s: routine %s not in the report" % (r, name)); continue
        if int(calls.replace(",", "")) != x["calls"]: bad.append("%s: %s calls %s, report %d" % (r, name, calls, x["calls"]))
        if name in ("MPI_Init", "MPI_Finalize"): ok, want = share == "-", "-"
        else:   # one decimal of the same share (a tie may round either way)
            want = 100.0 * x["total_ns"] / inside
            try: ok = abs(float(share) - want) <= 0.05 + 1e-9
            except ValueError: ok = False
            want = "%.2f" % want
        if not ok: bad.append("%s: %s time%% %s on the page, %s in the report" % (r, name, share, want))
# the critical path: the page's as report's
import re
def meta(r):
    t = open("%s/%s.html" % (d, r), encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="mpilens-meta">(.*?)</script>', t, re.S)
    return json.loads(m.group(1).replace("<\\/", "</"))
def unit(u): return {"ns": 1, "ms": 1e6, "s": 1e9}.get(u, 1e3)   # else µs
for r in ("run4", "poll"):
    page = json.load(open("%s/%s.check.json" % (d, r)))
    rep = json.load(open("%s/%s.cp.json" % (d, r)))["critical_path"]
    origin = meta(r)["origin_ns"]
    cp = page.get("critical_path")
    if not cp: bad.append("%s: the page has no critical path (window.mpilens.criticalPath)" % r); continue
    want, got = rep["segments"], cp["segments"]
    if not want: bad.append("%s: report has no critical-path segment" % r)
    if len(got) != len(want) or cp["total"] != len(want):
        bad.append("%s: %d segments drawn (%s in the page), report has %d" % (r, len(got), cp["total"], len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        if (g["rank"], g["to_rank"], g["what"], g["site"]) != (w["rank"], w["to_rank"], w["what"], w["site"]) or \
           abs(g["from"] - (w["from_ns"] - origin)) > 1000 or abs(g["to"] - (w["to_ns"] - origin)) > 1000:
            bad.append("%s: segment %d drawn %s, report %s (origin %d)" % (r, i, {k: g[k] for k in ("rank", "from", "to", "to_rank", "what")}, w, origin))
            break
    rt = rep["measures"]["runtime"]
    if cp["runtime_ns"] != rt["path"] or cp["end_rank"] != rt["end_rank"] or \
       (cp["comm_ns"], cp["comp_ns"]) != (rep["runtime_split"]["comm_ns"], rep["runtime_split"]["comp_ns"]):
        bad.append("%s: page's path %s ns (rank %s), report %d ns (rank %d)" % (r, cp["runtime_ns"], cp["end_rank"], rt["path"], rt["end_rank"]))
    m = re.match(r"critical path: ([0-9.]+) (\S+) of run time \(.* communication, .* computation\), ends on rank (\d+)", page.get("cp_line") or "")
    if not m or abs(float(m.group(1)) * unit(m.group(2)) - rt["path"]) > 0.001 * rt["path"] + 1 or int(m.group(3)) != rt["end_rank"]:
        bad.append("%s: the summary says %r; report's path %d ns ending on rank %d" % (r, page.get("cp_line"), rt["path"], rt["end_rank"]))
    px = cp.get("pixels")
    if not px: bad.append("%s: no critical-path band on screen at fit all" % r)
    elif not (px["on"]["pink"] >= 0.5 * px["on"]["n"] and px["off"]["pink"] < 0.1 * px["off"]["n"] and px["on"]["sum"] != px["off"]["sum"]) or cp.get("hidden_segments") != 0:
        bad.append("%s: the band at %s paints %d of %d pixels on, %d off (%s segments when hidden)" %
                   (r, px["box"], px["on"]["pink"], px["on"]["n"], px["off"]["pink"], cp.get("hidden_segments")))
page, rep = load("run4")
if rep["messages"]["matched"] != 55 or rep["messages"]["proc_null"] != 40:
    bad.append("run4: report matched %d messages (%d on MPI_PROC_NULL); the program sends 55 (and 40 on MPI_PROC_NULL)" %
               (rep["messages"]["matched"], rep["messages"]["proc_null"]))
# one rank: its messages went to itself
page, rep = load("run1")
if rep["messages"]["matched"] != 10: bad.append("run1: report matched %d messages, want 10" % rep["messages"]["matched"])
if "no traffic between ranks" in page.get("notes", "") or "10 matched messages went to itself" not in page.get("notes", ""):
    bad.append("run1: the note says %r" % page.get("notes"))
# a rank without a file: nobody says every rank finalized
page, rep = load("lost")
text = open("%s/lost.txt" % d).read()
fs = rep["failure_summary"]["text"]
for what, t in (("report", text), ("report --json", fs), ("the page", page.get("summary", ""))):
    if "every rank called MPI_Finalize" in t: bad.append("lost: %s says every rank called MPI_Finalize" % what)
if "1 rank had no rank file" not in fs: bad.append("lost: report --json's summary: %r" % fs)
boxes = page.get("diag_boxes") or []
if not boxes or boxes[0][0] == "ok" or "1 rank had no rank file" not in boxes[0][1]:
    bad.append("lost: the page's diagnosis box %s" % boxes[:1])
print("; ".join(bad) if bad else "ok")
PY
)
    [ "$v" = ok ] || soft_fail "$impl: $v"
    note "$impl: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d.get("critical_path") or {}; print(d["stats"], d["routines"][:3], "critical path", c.get("runtime_ns"), "ns,", len(c.get("segments", [])), "segments")' "$d/run4.check.json")"
done
