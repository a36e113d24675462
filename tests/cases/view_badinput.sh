#!/usr/bin/env bash
# mpilens view on bad input: the page still opens (no console error, no
# request) and its note says what it shows and what is missing, for a run
# with no messages (ok_ibarrier, 2 ranks), a run of 1 rank, a run cut
# short by a crash (failsafe segv on rank 1: "The run failed", the
# diagnosis in the summary), a deadlocked run stopped by mpilens run (the
# note says so, the summary holds the live monitor's verdict), a run whose rank 1 file is truncated (the
# problem named), an empty run (rank files cut after their header: no
# call recorded); an existing output file is never overwritten (exit 1,
# content unchanged); a directory that is not a run gets one line
# "mpilens view: ..." and exit 1, and writes nothing.  Each run served
# (`mpilens view --serve`) opens the same way: no console error, no request
# outside the server, the same note.  Open MPI and MPICH.
# timeout: 300
source "$ROOT/tests/browser/lib.sh"
need_mpilens
need_browser

page_says() {  # what dir expected-note-text...: view the run, open the page, check its note
    local what=$1 dir=$2; shift 2
    local out=$TEST_TMP/$what
    mkdir -p "$out"
    "$MPILENS" view -q "$dir" -o "$out/page.html" 2>"$out/view.err" ||
        { soft_fail "$what: mpilens view failed: $(head -c 300 "$out/view.err")"; return; }
    check_page "$out/page.html" "$out/shots" quick >"$out/check.json" 2>"$out/check.err" ||
        { soft_fail "$what: the browser check failed: $(head -c 300 "$out/check.json" "$out/check.err")"; return; }
    local v
    v=$(python3 - "$out/check.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if d.get("errors"): bad.append("console errors %s" % d["errors"][:3])
if d.get("requests"): bad.append("requests %s" % d["requests"][:3])
if not d.get("ready"): bad.append("page not ready: %r" % d.get("notes"))
for want in sys.argv[2:]:
    if want not in (d.get("notes") or "") + (d.get("summary") or ""): bad.append("note %r lacks %r" % (d.get("notes"), want))
print("; ".join(bad) if bad else "ok")
PY
)
    [ "$v" = ok ] && note "$what: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["notes"][:200])' "$out/check.json")" ||
        soft_fail "$what: $v"
    # served: the same page from the overview
    "$MPILENS" view --serve -q "$dir" >"$out/url" 2>"$out/serve.err" &
    local spid=$! url
    for _ in $(seq 300); do [ -s "$out/url" ] || ! kill -0 $spid 2>/dev/null && break; sleep 0.1; done
    url=$(head -1 "$out/url")
    case $url in http://127.0.0.1:*/) ;;
        *) soft_fail "$what: --serve printed no URL: $(head -c 300 "$out/serve.err")"; kill $spid 2>/dev/null; wait $spid; return ;; esac
    check_page "$url" "$out/served" quick >"$out/served.json" 2>"$out/served.err" ||
        soft_fail "$what: served: the browser check failed: $(head -c 300 "$out/served.json" "$out/served.err")"
    kill -INT $spid
    wait $spid
    v=$(python3 - "$out/served.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if d.get("errors"): bad.append("console errors %s" % d["errors"][:3])
if d.get("requests"): bad.append("requests %s" % d["requests"][:3])
if not d.get("ready"): bad.append("page not ready: %r" % d.get("notes"))
for want in sys.argv[2:] + ["Served by mpilens view --serve"]:
    if want not in (d.get("notes") or "") + (d.get("summary") or ""): bad.append("note %r lacks %r" % (d.get("notes"), want))
print("; ".join(bad) if bad else "ok")
PY
)
    [ "$v" = ok ] || soft_fail "$what: served: $v"
}

for impl in openmpi mpich; do
    have_impl "$impl" || continue
    need_runtime "$impl"
    d=$TEST_TMP/runs-$impl
    mkdir -p "$d"
    p=$(prog "$impl" ok_ibarrier) && (cd "$d" && mpilens_run "$impl" "$d/nomsg" 2 "$p") >/dev/null 2>&1
    page_says "$impl-no-messages" "$d/nomsg" "No point-to-point message was matched" "Shows 2 of 2 ranks"
    p=$(prog "$impl" view_phases) && (cd "$d" && mpilens_run "$impl" "$d/one" 1 "$p") >/dev/null 2>&1
    page_says "$impl-one-rank" "$d/one" "One rank only" "Shows 1 of 1 rank"
    p=$(prog "$impl" failsafe) && (cd "$d" && mpilens_run "$impl" "$d/crash" 2 "$p" segv 1) >/dev/null 2>&1
    page_says "$impl-crash" "$d/crash" "The run failed" "rank 1: "
    p=$(prog "$impl" deadlock_recvrecv) &&
        (cd "$d" && "$MPILENS" run -q --mpi="$impl" --deadlock-timeout=2 -n 2 -o "$d/dead" "$p") >/dev/null 2>&1
    page_says "$impl-deadlock" "$d/dead" "The run deadlocked: no progress for" "Deadlock found by the live monitor" \
        "rank 0: MPI_Recv from 1 tag 7 at deadlock_recvrecv.c:" "cycle: rank 0 -> rank 1 -> rank 0"
    p=$(prog "$impl" view_phases) && (cd "$d" && mpilens_run "$impl" "$d/cut" 4 "$p") >/dev/null 2>&1
    f=$d/cut/rank-00001.mlt
    [ -s "$f" ] && truncate -s $(($(stat -c %s "$f") / 2)) "$f"
    page_says "$impl-truncated" "$d/cut" "rank-00001.mlt"
done

# an empty run: rank files that end after their header (no event)
d=$TEST_TMP/runs-openmpi
if [ -d "$d/nomsg" ]; then
    mkdir -p "$d/empty"
    for f in "$d/nomsg"/rank-*.mlt; do head -c 8192 "$f" >"$d/empty/$(basename "$f")"; done
    page_says empty "$d/empty" "no MPI call was recorded"
fi

# an existing output file is never overwritten
echo "precious" >"$TEST_TMP/exists.html"
"$MPILENS" view -q "$TEST_TMP/runs-openmpi/one" -o "$TEST_TMP/exists.html" 2>"$TEST_TMP/exists.err"
rc=$?
assert_eq 1 "$rc" "exit status with an existing output file"
assert_eq precious "$(cat "$TEST_TMP/exists.html")" "the existing file's content"
assert_contains "$(cat "$TEST_TMP/exists.err")" "never overwritten" "stderr with an existing output file"

# a directory that is not a run: one line, exit 1, no page
mkdir -p "$TEST_TMP/notarun"
echo hello >"$TEST_TMP/notarun/file.txt"
(cd "$TEST_TMP" && "$MPILENS" view notarun -o bad.html) >"$TEST_TMP/bad.out" 2>"$TEST_TMP/bad.err"
rc=$?
assert_eq 1 "$rc" "exit status on a non-run directory"
assert_eq 1 "$(wc -l <"$TEST_TMP/bad.err")" "lines on stderr for a non-run directory"
assert_contains "$(cat "$TEST_TMP/bad.err")" "mpilens view: " "stderr for a non-run directory"
[ -e "$TEST_TMP/bad.html" ] && soft_fail "a page was written for a non-run directory"
"$MPILENS" view --help | grep -q "usage: mpilens view" || soft_fail "mpilens view --help"
true
