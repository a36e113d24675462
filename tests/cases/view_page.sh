#!/usr/bin/env bash
# mpilens view: the page of view_phases.c on 4 ranks (four phases of
# point-to-point traffic) opens from file:// in headless Chromium with the
# network off: no console error, no request leaving the page;
# window.mpilens.stats() equals report --json's run.ranks, messages.matched
# and messages.bytes; at "fit all" one line is drawn per message; zooming
# in changes the time scale; clicking the first message shows its send's
# file:line (the MPI_Isend line of view_phases.c); every message names its
# send and receive calls in the page's data (meta msg_no_send and
# msg_no_recv 0); searching MPI_Isend or
# that file:line finds the 12 MPI_Isend calls; moving the network-load
# slider to two places gives line widths equal to the bytes per pair sent
# in each interval (computed here from `mpilens export`'s slices) divided
# by the bytes per pixel, and the two differ.  Open MPI and MPICH.
# Screenshots of the four views: build/tests/logs/view_page-<mpi>/.
# timeout: 240
source "$ROOT/tests/browser/lib.sh"
need_mpilens
need_browser
src=$ROOT/tests/programs/view_phases.c
send_line=$(grep -n 'the send line' "$src" | cut -d: -f1)
for impl in openmpi mpich; do
    have_impl "$impl" || { note "skip $impl: not installed"; continue; }
    need_runtime "$impl"
    p=$(prog "$impl" view_phases) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run "$impl" "$d/run" 4 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: view_phases failed: $(head -c 300 "$d/err")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/report.json" || { soft_fail "$impl: report --json failed"; continue; }
    "$MPILENS" export -q "$d/run" -o "$d/export.json" || { soft_fail "$impl: export failed"; continue; }
    "$MPILENS" view -q "$d/run" -o "$d/page.html" 2>"$d/view.err" ||
        { soft_fail "$impl: mpilens view failed: $(head -c 300 "$d/view.err")"; continue; }
    shots=$ROOT/build/tests/logs/view_page-$impl
    rm -rf "$shots"
    SEARCH="MPI_Isend,view_phases.c:$send_line" check_page "$d/page.html" "$shots" >"$d/check.json" 2>"$d/check.err" ||
        { soft_fail "$impl: the browser check failed: $(head -c 400 "$d/check.json" "$d/check.err")"; continue; }
    verdict=$(python3 - "$d/check.json" "$d/report.json" "$d/export.json" "$send_line" "$d/page.html" <<'PY'
import json, re, sys
page = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2])); exp = json.load(open(sys.argv[3]))
line = sys.argv[4]
bad = []
# every message names its send and receive calls (none carries its own times)
named = re.search(rb'"msg_no_send":(\d+),"msg_no_recv":(\d+)', open(sys.argv[5], 'rb').read())
if not named or named.groups() != (b"0", b"0"): bad.append("messages not naming their calls: %s" % (named and named.groups(),))
if page.get("errors"): bad.append("console errors: %s" % page["errors"][:3])
if page.get("requests"): bad.append("requests left the page: %s" % page["requests"][:3])
st = page.get("stats") or {}
want = {"ranks": rep["run"]["ranks"], "messages": rep["messages"]["matched"], "bytes": rep["messages"]["bytes"]}
if st != want: bad.append("stats %s, report says %s" % (st, want))
if want["messages"] != 12: bad.append("report matched %s messages, the program sends 12" % want["messages"])
if page["drawn"]["lines"] != want["messages"]: bad.append("%s message lines drawn at fit all, %s messages" % (page["drawn"]["lines"], want["messages"]))
b, a = page["scale_before"], page["scale_after"]
if not (a["t1"] - a["t0"] < (b["t1"] - b["t0"]) / 4 and a["labels"] != b["labels"]): bad.append("zooming in left the scale %s -> %s" % (b["labels"], a["labels"]))
c = page.get("clicked") or {}
if "view_phases.c:%s" % line not in c.get("details", ""): bad.append("clicking message 0 showed %r, not view_phases.c:%s" % (c.get("details"), line))
if page.get("search") != [["MPI_Isend", "12 calls found"], ["view_phases.c:" + line, "12 calls found"]]:
    bad.append("search found %s, expected 12 MPI_Isend calls" % page.get("search"))
# the bytes per rank pair of the sends that started in each interval, from export's slices
def ns(x):  # microseconds with 3 decimals, exactly
    s = ("%.3f" % x)
    return int(s.replace(".", ""))
sends = [(ns(e["ts"]), e["pid"], e["args"]["peer"], e["args"]["bytes"]) for e in exp["traceEvents"]
         if e.get("ph") == "X" and e.get("name") == "MPI_Isend"]
if len(sends) != 12: bad.append("export has %d MPI_Isend slices" % len(sends))
seen = []
for ld in page["loads"]:
    lo, hi = ld["interval"]["a"], ld["interval"]["b"]
    want = {}
    for t, s, d, by in sends:
        if lo <= t < hi: want[(min(s, d), max(s, d))] = want.get((min(s, d), max(s, d)), 0) + by
    got = {(l["a"], l["b"]): l["value"] for l in ld["lines"]}
    if got != want: bad.append("slider %s [%d, %d) ns: pairs %s, expected %s" % (ld["slider"], lo, hi, got, want))
    for l in ld["lines"]:
        if abs(l["width"] - l["value"] / ld["per_pixel"]) > 1e-9: bad.append("line %s-%s width %s for %s bytes at %s per pixel" % (l["a"], l["b"], l["width"], l["value"], ld["per_pixel"]))
    seen.append(sorted(got.items()))
if not seen[0] or not seen[1] or seen[0] == seen[1]: bad.append("the two slider positions drew %s and %s" % seen)
print("; ".join(bad) if bad else "ok")
PY
)
    [ "$verdict" = ok ] || soft_fail "$impl: $verdict"
    for v in timeline load matrix summary; do assert_file "$shots/$v.png" "$impl: screenshot of $v"; done
    note "$impl: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["stats"], d["drawn"], [len(l["lines"]) for l in d["loads"]])' "$d/check.json")"
done
