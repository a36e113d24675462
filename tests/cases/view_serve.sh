#!/usr/bin/env bash
# mpilens view --serve: view_phases.c on 4 ranks (Open MPI and MPICH) served
# on 127.0.0.1 with --window-cap half the run's calls and messages, so the
# whole run is too busy to load and the page starts from the overview; the
# URL it prints (http://127.0.0.1:PORT/TOKEN/) gives the page (200, its
# Content-Security-Policy allows connections to 'self' only), another token
# or none 403 (the data too), another path under the token 404, a bad query
# 400; the data of the whole run answers "over", of the second phase's time
# the number of messages `mpilens export` has there.  In headless Chromium
# (tests/browser/check_served.js) the page holds no message at start and
# draws the overview standing for all of report --json's messages; dragged
# over the second phase it fetches that window, and then the message lines
# it draws equal export's messages overlapping the window it shows, and a
# message clicked there shows its file:line; the critical path drawn at
# "fit all" is report's (value, and per segment rank, to_rank, what).  SIGINT stops the server with
# exit status 0.  --max-size 0.01 on the same run stops `mpilens view` with
# a one-line error naming --serve and the page's size, exit status 2, and
# writes no file.
# Windows start at resume points of the overview's pass: served with one
# every 3 events (MPILENS_VIEW_MARK_EVERY), 80 windows of view_phases and
# of rep_cancel.c (wildcard, persistent and cancelled requests in flight at
# the marks), across the run and inside its traffic, answer byte for byte
# what a pass from the run's start answers (&replay=start), and those in
# view_phases from its second phase on read fewer events.
# timeout: 300
source "$ROOT/tests/browser/lib.sh"

# same_as_start IMPL RUN NAME LATE: the run served with a resume point every
# 3 events; windows across it (16 of an eighth of its span, 16 of a 64th)
# and where state is in flight (48 that start in the middle of a message or
# just after a call ended, from `mpilens export`, 2 ms wide), each asked as
# the page asks and with &replay=start: the same answer (its first line but
# the time taken and the events read, and the columns after it), never
# more events read; every window that starts at LATE ns or later (a time
# every call before it has ended by; 0: none) read fewer events.
same_as_start() {
    local impl=$1 run=$2 name=$3 late=$4 o=$TEST_TMP/$impl-$3 pid v
    "$MPILENS" export -q "$run" -o "$o.export.json" || { soft_fail "$impl: $name: export failed"; return; }
    MPILENS_VIEW_MARK_EVERY=3 "$MPILENS" view --serve -q "$run" >"$o.url" 2>"$o.err" &
    pid=$!
    for _ in $(seq 600); do [ -s "$o.url" ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.1; done
    v=$(python3 - "$(head -1 "$o.url")" "$late" "$o.export.json" <<'PY'
import json, re, sys, urllib.request
url, late = sys.argv[1], int(sys.argv[2])
ev = json.load(open(sys.argv[3]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
get = lambda u: urllib.request.urlopen(u, timeout=60).read()
span = int(re.search(rb'"last_ns":(\d+)', get(url)).group(1))
wins = [((span - w) * k // 15, w) for w in (span // 8, span // 64) for k in range(16)]
s = {e["id"]: e["ts"] * 1000 for e in ev if e.get("ph") == "s"}
f = {e["id"]: e["ts"] * 1000 for e in ev if e.get("ph") == "f"}
inside = sorted({int((s[k] + f[k]) / 2) for k in s if k in f} |
                {int((e["ts"] + e["dur"]) * 1000) + 1 for e in ev if e.get("ph") == "X" and e.get("dur")})
inside = [a for a in inside if 0 <= a < span]
wins += [(inside[i * len(inside) // 48], 2000000) for i in range(min(48, len(inside)))]
bad, msgs, calls, fewer = [], 0, 0, 0
for a, width in wins:
    q = "%sdata?from=%d&to=%d" % (url, a, a + width)
    got, ref = get(q), get(q + "&replay=start")
    hg, bg = got.split(b"\n", 1)
    hr, br = ref.split(b"\n", 1)
    hg, hr = json.loads(hg), json.loads(hr)
    rg, rr = hg.pop("read"), hr.pop("read")
    hg.pop("ms"), hr.pop("ms")
    if hg != hr or bg != br:
        short = lambda h, b: "%s calls %s messages %s colls, %d bytes" % (h.get("calls"), h.get("messages"), h.get("colls"), len(b))
        bad.append("[%d, %d]: %s from the marks, %s from the start" % (a, a + width, short(hg, bg), short(hr, br)))
    if rg > rr: bad.append("[%d, %d]: read %d events from a mark, %d from the start" % (a, a + width, rg, rr))
    if late and a >= late and rg >= rr:
        bad.append("[%d, %d] (late): read %d events from the marks, %d from the start" % (a, a + width, rg, rr))
    fewer += rg < rr
    msgs += hr.get("messages", 0)
    calls += hr.get("calls", 0)
if not msgs or not fewer: bad.append("nothing compared: %d messages in the windows, %d read fewer events" % (msgs, fewer))
print("; ".join(bad[:3]) if bad else "ok %d windows, %d calls %d messages compared, %d read fewer events" % (len(wins), calls, msgs, fewer))
PY
)
    kill -INT $pid
    wait $pid
    case $v in ok*) note "$impl $name: $v" ;; *) soft_fail "$impl: $name: windows from the resume points: ${v:-no answer $(head -c 300 "$o.err")}" ;; esac
}
need_mpilens
need_browser
command -v curl >/dev/null || { note "SKIP: curl missing"; exit 0; }
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
    # too big for one page: a one-line error naming --serve, no file
    "$MPILENS" view -q --max-size 0.01 "$d/run" -o "$d/big.html" 2>"$d/big.err"
    rc=$?
    [ $rc = 2 ] || soft_fail "$impl: --max-size 0.01: exit status $rc, want 2"
    { [ ! -e "$d/big.html" ] && [ "$(wc -l <"$d/big.err")" = 1 ] && grep -q -- '--serve' "$d/big.err"; } ||
        soft_fail "$impl: --max-size: file left or message not one line naming --serve: $(cat "$d/big.err")"
    # the run's calls + messages (the page's meta), the window of the second phase
    "$MPILENS" view -q "$d/run" -o "$d/page.html" || { soft_fail "$impl: view failed"; continue; }
    # the size it said is the page's (it said "0 MB" for a 0.3 MB page)
    python3 - "$d/big.err" "$d/page.html" <<'PY' || soft_fail "$impl: --max-size: $(cat "$d/big.err")"
import os, re, sys
m = re.search(r"the page would be ([0-9.]+) MB", open(sys.argv[1]).read())
sys.exit(0 if m and abs(float(m.group(1)) - os.path.getsize(sys.argv[2]) / 1e6) <= 0.005 else 1)
PY
    W=$(python3 - "$d/page.html" "$d/export.json" <<'PY'
import json, re, sys
m = json.loads(re.search(r'<script type="application/json" id="mpilens-meta">(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
ev = json.load(open(sys.argv[2]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
s = {e["id"]: e["ts"] * 1000 for e in ev if e.get("ph") == "s"}
f = {e["id"]: e["ts"] * 1000 for e in ev if e.get("ph") == "f"}
ms = sorted((s[k], f[k]) for k in s if k in f)
# phases of 4 messages (4 ranks), 30 ms apart: the window from between the
# first and second phases to between the second and third
a = (max(x[1] for x in ms[:4]) + ms[4][0]) / 2
b = (max(x[1] for x in ms[4:8]) + ms[8][0]) / 2
print((m["calls"] + m["messages"]) // 2, int(a), int(b), len(ms))
PY
) || { soft_fail "$impl: cannot read the page's meta or the export"; continue; }
    set -- $W
    cap=$1 wa=$2 wb=$3
    # the server, its URL read from its first line
    # (resume points every 3 events: the zoomed window starts at one)
    MPILENS_VIEW_MARK_EVERY=3 "$MPILENS" view --serve -q --window-cap "$cap" "$d/run" >"$d/url" 2>"$d/serve.err" &
    spid=$!
    for _ in $(seq 600); do [ -s "$d/url" ] || ! kill -0 $spid 2>/dev/null && break; sleep 0.1; done
    url=$(head -1 "$d/url")
    case $url in http://127.0.0.1:*/????????????????????????????????/) ;;
        *) soft_fail "$impl: no URL printed: '$url' $(head -c 300 "$d/serve.err")"; kill $spid; wait $spid; continue ;; esac
    base=${url%/*/}
    code() { curl -s -o "$d/body" -D "$d/head" -w '%{http_code}' "$@"; }
    [ "$(code "$url")" = 200 ] || soft_fail "$impl: the page is not 200"
    grep -q "connect-src 'self'" "$d/body" || soft_fail "$impl: the served page's CSP does not allow 'self'"
    [ "$(code "$base/00000000000000000000000000000000/")" = 403 ] || soft_fail "$impl: a wrong token is not 403"
    [ "$(code "$base/")" = 403 ] || soft_fail "$impl: no token is not 403"
    [ "$(code "$base/data?from=0&to=$wb")" = 403 ] || soft_fail "$impl: data without the token is not 403"
    [ "$(code "${url}etc/passwd")" = 404 ] || soft_fail "$impl: an unknown path is not 404"
    [ "$(code "${url}data?from=x")" = 400 ] || soft_fail "$impl: a bad query is not 400"
    curl -s "${url}data?from=0&to=999999999999" >"$d/all.bin" || soft_fail "$impl: data of the whole run failed"
    curl -s "${url}data?from=$wa&to=$wb" >"$d/win.bin" || soft_fail "$impl: data of [$wa, $wb] failed"
    v=$(python3 - "$d/export.json" "$d/all.bin" "$d/win.bin" "$wa" "$wb" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
a, b = int(sys.argv[4]), int(sys.argv[5])
s = {e["id"]: e["ts"] * 1000 for e in ev if e.get("ph") == "s"}
f = {e["id"]: e["ts"] * 1000 for e in ev if e.get("ph") == "f"}
want = sum(1 for k in s if k in f and s[k] <= b and f[k] >= a)
hdr = lambda p: json.loads(open(p, "rb").read().split(b"\n", 1)[0])
al, wi = hdr(sys.argv[2]), hdr(sys.argv[3])
bad = []
if not al["over"]: bad.append("the whole run is not over the cap: %s" % al)
if wi["over"] or wi["messages"] != want or want == 0: bad.append("[%d, %d]: %s messages, export has %d" % (a, b, wi.get("messages"), want))
print("; ".join(bad) if bad else "ok")
PY
)
    [ "$v" = ok ] || soft_fail "$impl: $v"
    shots=$ROOT/build/tests/logs/view_serve-$impl
    rm -rf "$shots"
    mkdir -p "$shots"
    timeout 100 node "$ROOT/tests/browser/check_served.js" "$url" "$wa" "$wb" "$shots" >"$d/check.json" 2>"$d/check.err" ||
        soft_fail "$impl: the browser check failed: $(head -c 400 "$d/check.json" "$d/check.err")"
    v=$(python3 - "$d/check.json" "$d/report.json" "$d/export.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2]))
ev = json.load(open(sys.argv[3]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
want = {"ranks": rep["run"]["ranks"], "messages": rep["messages"]["matched"], "bytes": rep["messages"]["bytes"]}
bad = []
if d.get("errors"): bad.append("console errors %s" % d["errors"][:3])
if d.get("requests"): bad.append("requests outside the server %s" % d["requests"][:3])
if d.get("stats") != want: bad.append("stats %s, report %s" % (d.get("stats"), want))
st, fit, z = d.get("start", {}), d.get("fit", {}), d.get("zoom", {})
if not st.get("served") or st.get("messages") != 0: bad.append("at start the page holds %s messages, not the overview only" % st.get("messages"))
if not fit.get("drawn", {}).get("summarised") or fit["drawn"].get("represented") != want["messages"]:
    bad.append("fit all: not the overview standing for %d messages: %s" % (want["messages"], fit.get("drawn")))
# the critical path is drawn on the served page too: report's segments and value
cp, rcp = d.get("critical_path"), rep["critical_path"]
if not cp or cp["runtime_ns"] != rcp["measures"]["runtime"]["path"] or \
   [(x["rank"], x["to_rank"], x["what"]) for x in cp["segments"]] != [(x["rank"], x["to_rank"], x["what"]) for x in rcp["segments"]] or \
   not any(x["box"] for x in cp["segments"]):
    bad.append("served page's critical path %s, report's %d ns over %d segments" %
               (cp and {k: cp[k] for k in ("runtime_ns", "total")}, rcp["measures"]["runtime"]["path"], len(rcp["segments"])))
if not (fit.get("detail", {}).get("over")): bad.append("fit all: the whole run was not refused as over the cap: %s" % fit.get("detail"))
if z:
    t0, t1 = z["scale"]["t0"], z["scale"]["t1"]
    s = {e["id"]: e["ts"] * 1000 for e in ev if e.get("ph") == "s"}
    f = {e["id"]: e["ts"] * 1000 for e in ev if e.get("ph") == "f"}
    n = sum(1 for k in s if k in f and s[k] <= t1 and f[k] >= t0)
    dr = z["drawn"]
    if n == 0: bad.append("no message in the zoomed window [%g, %g]" % (t0, t1))
    if dr.get("summarised") or dr.get("lines") != n or dr.get("represented") != n:
        bad.append("zoomed [%g, %g]: %s lines for %s messages, export has %d" % (t0, t1, dr.get("lines"), dr.get("represented"), n))
    if not (0 < z["detail"]["messages"] < want["messages"]): bad.append("zoomed: the page holds %s messages" % z["detail"]["messages"])
else:
    bad.append("no zoom: %s" % d.get("fatal", "")[:300])
c = d.get("clicked")
if not c or "view_phases.c:" not in c.get("details", ""): bad.append("clicked message: no file:line: %s" % c)
print("; ".join(bad) if bad else "ok")
PY
)
    [ "$v" = ok ] || soft_fail "$impl: served page: $v"
    kill -INT $spid
    wait $spid
    rc=$?
    [ $rc = 0 ] || soft_fail "$impl: SIGINT: exit status $rc, want 0"
    same_as_start "$impl" "$d/run" view_phases "$wa"
    if pc=$(prog "$impl" rep_cancel) &&
        (cd "$d" && mpilens_run "$impl" "$d/cancel" 4 "$pc") >"$d/cancel.out" 2>"$d/cancel.err"; then
        same_as_start "$impl" "$d/cancel" rep_cancel 0
    else
        soft_fail "$impl: rep_cancel failed: $(head -c 300 "$d/cancel.err")"
    fi
    note "$impl: $url; cap $cap; [$wa, $wb] ns: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["zoom"]["drawn"]["lines"], "lines of", d["stats"]["messages"], "messages; data requests", d["data_requests"])' "$d/check.json" 2>/dev/null)"
done
