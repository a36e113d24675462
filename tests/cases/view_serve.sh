#!/usr/bin/env bash
# mpilens view --serve: view_phases.c on 4 ranks (Open MPI and MPICH) served
# on 127.0.0.1; the URL it prints (http://127.0.0.1:PORT/TOKEN/) gives the
# page (200, its Content-Security-Policy allows connections to 'self' only),
# another token 403, another path under the token 404; the data endpoint
# returns, for ranks 1-2 over the whole run, the number of messages
# `mpilens export` has between ranks 1 and 2, and for the time window
# [0, T] (T in the widest gap between send starts) the number of export's
# messages sent before T; the served page loads in headless Chromium with
# stats() equal to report --json; SIGINT stops the server with exit status
# 0.  --max-size 0.01 on the same run stops `mpilens view` with a one-line
# error naming --serve and writes no file.
# timeout: 240
source "$ROOT/tests/browser/lib.sh"
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
    if "$MPILENS" view -q --max-size 0.01 "$d/run" -o "$d/big.html" 2>"$d/big.err"; then
        soft_fail "$impl: --max-size 0.01 wrote a page"
    fi
    { [ ! -e "$d/big.html" ] && [ "$(wc -l <"$d/big.err")" = 1 ] && grep -q -- '--serve' "$d/big.err"; } ||
        soft_fail "$impl: --max-size: file left or message not one line naming --serve: $(cat "$d/big.err")"
    # the server, its URL read from its first line
    "$MPILENS" view --serve -q "$d/run" >"$d/url" 2>"$d/serve.err" &
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
    [ "$(code "${url}etc/passwd")" = 404 ] || soft_fail "$impl: an unknown path is not 404"
    [ "$(code "${url}data?from=x")" = 400 ] || soft_fail "$impl: a bad query is not 400"
    curl -s --compressed "${url}data?ranks=1-2" >"$d/w12.json" || soft_fail "$impl: data ranks=1-2 failed"
    T=$(python3 - "$d/export.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
ts = sorted(e["ts"] for e in ev if e.get("ph") == "s")
gaps = sorted((ts[i + 1] - ts[i], i) for i in range(len(ts) - 1))
g, i = gaps[-1]
print(int((ts[i] + ts[i + 1]) / 2 * 1000), i + 1, g)
PY
)
    set -- $T
    curl -s --compressed "${url}data?from=0&to=$1" >"$d/wT.json" || soft_fail "$impl: data from=0&to=$1 failed"
    v=$(python3 - "$d/export.json" "$d/w12.json" "$d/wT.json" "$2" "$3" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
w12 = json.load(open(sys.argv[2])); wT = json.load(open(sys.argv[3]))
before, gap = int(sys.argv[4]), float(sys.argv[5])
s = {e["id"]: e["pid"] for e in ev if e.get("ph") == "s"}
f = {e["id"]: e["pid"] for e in ev if e.get("ph") == "f"}
want12 = sum(1 for k in s if s[k] in (1, 2) and f.get(k) in (1, 2))
bad = []
if want12 == 0: bad.append("no messages between ranks 1 and 2 in the export")
if w12["messages"] != want12 or len(w12["m"]) != want12: bad.append("ranks 1-2: %s messages, export has %s" % (w12["messages"], want12))
if any(not (1 <= m[0] <= 2 and 1 <= m[1] <= 2) for m in w12["m"]): bad.append("ranks 1-2: a message outside")
if gap < 2: bad.append("no gap of 2 us between sends (%.1f us)" % gap)
if wT["messages"] != before: bad.append("[0, T]: %s messages, export has %s sent before T" % (wT["messages"], before))
if w12["calls"] == 0 or any(c[0] not in (1, 2) for c in w12["c"]): bad.append("ranks 1-2: calls %s" % w12["calls"])
print("; ".join(bad) if bad else "ok")
PY
)
    [ "$v" = ok ] || soft_fail "$impl: $v"
    shots=$ROOT/build/tests/logs/view_serve-$impl
    rm -rf "$shots"
    check_page "$url" "$shots" quick >"$d/check.json" 2>"$d/check.err" ||
        soft_fail "$impl: the browser check failed: $(head -c 400 "$d/check.json" "$d/check.err")"
    v=$(python3 - "$d/check.json" "$d/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2]))
want = {"ranks": rep["run"]["ranks"], "messages": rep["messages"]["matched"], "bytes": rep["messages"]["bytes"]}
bad = []
if d.get("errors"): bad.append("console errors %s" % d["errors"][:3])
if d.get("requests"): bad.append("requests outside the server %s" % d["requests"][:3])
if d.get("stats") != want: bad.append("stats %s, report %s" % (d.get("stats"), want))
print("; ".join(bad) if bad else "ok")
PY
)
    [ "$v" = ok ] || soft_fail "$impl: served page: $v"
    kill -INT $spid
    wait $spid
    rc=$?
    [ $rc = 0 ] || soft_fail "$impl: SIGINT: exit status $rc, want 0"
    note "$impl: $url; ranks 1-2: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["messages"])' "$d/w12.json") messages; [0, $1 ns]: $2"
done
