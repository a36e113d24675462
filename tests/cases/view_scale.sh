#!/usr/bin/env bash
# mpilens view on a synthetic run of 2048 ranks (bench/gen_ranks.c, a halo
# exchange, every message matched): the page opens without console error;
# stats() equals report --json; the timeline's rows are summarised (a row
# stands for several ranks, and the canvas says how many) and every message
# of the run is represented at "fit all" (drawn, or merged into the line of
# its rank pair on the same pixels); showing ranks 0-15 (the ranks box)
# gives one row per rank. A summarised row says what its ranks do: at fit
# all, window.mpilens.rowSummary(0) covers ranks 0..N-1 and their time in MPI
# calls equals report --json's mpi_ns + init_ns + finalize_ns of those ranks;
# hovering on the row names its ranks and shares; the messages between
# summarised rows are counted as drawn aggregated.  The matrix, a cell per
# group of ranks: hovering on a cell names its ranks (it said "NaN") and its
# bytes, report's for those rank pairs.
# timeout: 300
source "$ROOT/tests/browser/lib.sh"
need_mpilens
need_browser
cc -O2 -o "$TEST_TMP/gen_ranks" "$ROOT/bench/gen_ranks.c" || fail "cannot build bench/gen_ranks.c"
"$TEST_TMP/gen_ranks" "$TEST_TMP/run" 2048 250000 >/dev/null || fail "gen_ranks failed"
"$MPILENS" report --json -q "$TEST_TMP/run" >"$TEST_TMP/report.json" || fail "report --json failed"
"$MPILENS" view -q "$TEST_TMP/run" -o "$TEST_TMP/page.html" || fail "mpilens view failed"
shots=$ROOT/build/tests/logs/view_scale
check_page "$TEST_TMP/page.html" "$shots" quick >"$TEST_TMP/check.json" 2>"$TEST_TMP/check.err" ||
    fail "the browser check failed: $(head -c 400 "$TEST_TMP/check.json" "$TEST_TMP/check.err")"
v=$(python3 - "$TEST_TMP/check.json" "$TEST_TMP/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2]))
bad = []
if d.get("errors"): bad.append("console errors %s" % d["errors"][:3])
want = {"ranks": rep["run"]["ranks"], "messages": rep["messages"]["matched"], "bytes": rep["messages"]["bytes"]}
if d.get("stats") != want: bad.append("stats %s, report %s" % (d.get("stats"), want))
if want["ranks"] != 2048 or want["messages"] < 10000: bad.append("the synthetic run is not what the test expects: %s" % want)
if d["drawn"]["represented"] != want["messages"]: bad.append("%s messages represented at fit all of %s" % (d["drawn"]["represented"], want["messages"]))
if d["scale_fit"]["group"] <= 1 or "ranks" not in d["axis_note"]: bad.append("rows not summarised: group %s, note %r" % (d["scale_fit"]["group"], d["axis_note"]))
rs = d.get("row_summary")
if not rs: bad.append("no rowSummary(0) for a summarised row")
else:
    a, b = rs["ranks"]
    if [a, b] != [0, d["scale_fit"]["group"] - 1]: bad.append("row 0 stands for ranks %s, group %s" % (rs["ranks"], d["scale_fit"]["group"]))
    want_ns = sum(x["mpi_ns"] + x["init_ns"] + x["finalize_ns"] for x in rep["ranks"][a:b + 1])
    if abs(rs["mpi_ns"] - want_ns) > 1e-6 * want_ns + 1: bad.append("row 0: %s ns in MPI, report says %s" % (rs["mpi_ns"], want_ns))
    sh = rs["shares"]
    if abs(sum(sh.values()) - 1) > 1e-6 or sh["wait/test"] <= 0 or sh["computation"] <= 0: bad.append("row 0 shares %s" % sh)
    hv = d.get("row_hover") or ""
    if not hv.startswith("ranks %d-%d (%d ranks summarised)" % (a, b, b - a + 1)) or "%" not in hv: bad.append("hover on row 0: %r" % hv[:200])
if d["drawn"]["aggregated"] != want["messages"] or "messages drawn between rows of ranks" not in d["axis_note"]:
    bad.append("aggregated messages %s of %s, note %r" % (d["drawn"]["aggregated"], want["messages"], d["axis_note"]))
# the matrix groups ranks into cells: the hover names the cell's ranks and
# its bytes, the report's for those rank pairs
import re
mh = d.get("matrix_hover") or ""
m = re.match(r"ranks (\d+)-(\d+) → ranks (\d+)-(\d+): ([\d,]+) bytes;", mh)
if not m: bad.append("matrix hover %r" % mh[:160])
else:
    a0, a1, b0, b1, got = [int(x.replace(",", "")) for x in m.groups()]
    cell = sum(x["bytes"] for x in rep["matrix"]["pairs"] if a0 <= x["src"] <= a1 and b0 <= x["dst"] <= b1)
    if a1 - a0 != b1 - b0 or a1 <= a0 or got != cell: bad.append("matrix hover %r; report: %d bytes" % (mh[:160], cell))
sr = d["scale_ranks"]
if sr["ranks"] != [0, 16] or sr["group"] != 1: bad.append("ranks 0-15 shown as %s, %s ranks per row" % (sr["ranks"], sr["group"]))
print("; ".join(bad) if bad else "ok")
PY
)
[ "$v" = ok ] || soft_fail "$v"
note "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["stats"], d["drawn"], d["axis_note"])' "$TEST_TMP/check.json")"
