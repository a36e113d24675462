#!/usr/bin/env bash
# mpilens export on a recorded run of tests/progs/p2p_patterns.c (Open MPI
# and MPICH):
#  - perfetto: valid JSON; one process track per rank; within every thread
#    track the slices are in time order and do not overlap; every flow has
#    exactly one start and one end, each inside a slice of its own track;
#    one flow per matched message; every receive ends after its send began;
#  - otf2: otf2-print reads the archive and shows as many ENTER/LEAVE as the
#    report has calls, MPI_SEND+MPI_ISEND as sends (+ cancelled sends),
#    MPI_RECV+MPI_IRECV as receives, MPI_COLLECTIVE_END as collective calls;
#    requests pair up: per rank and request id every MPI_ISEND is closed once
#    by MPI_ISEND_COMPLETE (or MPI_REQUEST_CANCELLED), every
#    MPI_IRECV_REQUEST once by MPI_IRECV or MPI_REQUEST_CANCELLED, nothing
#    closes what was not opened, ISEND == ISEND_COMPLETE + cancelled sends,
#    IRECV_REQUEST == IRECV + cancelled receives, REQUEST_CANCELLED == the
#    report's cancelled requests (p2p_patterns: persistent sends freed
#    inactive, a send freed active, Isend to MPI_PROC_NULL, a cancelled
#    receive; tests/programs/rep_cancel.c: cancelled receives of every kind,
#    a cancelled persistent receive, a send MPICH may cancel);
#    otf2-print missing is a failure (setup.sh installs otf2-tools);
#  - -q: nothing on stderr (no 'wrote' line; without -q there is one); an
#    unknown option (--bogus, -z): one line 'mpilens export: unknown option
#    ...; try 'mpilens export --help'', exit 2, nothing written;
#  - threads (tests/progs/threads.c): one Perfetto track and one OTF2 location
#    per thread, every message an arrow;
#  - an existing output is never overwritten.
# timeout: 300
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
MPILENS=${MPILENS:-$root/build/bin/mpilens}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail=0
ran=0

check_perfetto() {  # json report.json impl
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
from collections import defaultdict
tr = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
impl = sys.argv[3]
bad = []
ev = tr['traceEvents']
slices = defaultdict(list)
flows = defaultdict(dict)
procs = set()
for e in ev:
    ph = e['ph']
    if ph == 'M' and e['name'] == 'process_name': procs.add(e['pid'])
    if ph == 'X': slices[(e['pid'], e['tid'])].append((float(e['ts']), float(e['dur']), e['name']))
    if ph in ('s', 'f'):
        if ph in flows[e['id']]: bad.append(f'flow {e["id"]} has two "{ph}" events')
        flows[e['id']][ph] = e
if len(procs) != rep['run']['ranks_read']: bad.append(f'{len(procs)} process tracks for {rep["run"]["ranks_read"]} ranks')
nslices = sum(len(v) for v in slices.values())
if nslices != rep['run']['events']: bad.append(f'{nslices} slices, report has {rep["run"]["events"]} calls')
for track, sl in slices.items():
    for (t0, d0, n0), (t1, d1, n1) in zip(sl, sl[1:]):
        if t1 < t0: bad.append(f'track {track}: {n1} at {t1} before {n0} at {t0}'); break
        if t0 + d0 > t1 + 1e-9: bad.append(f'track {track}: {n0} ({t0}+{d0}) overlaps {n1} at {t1}'); break
def inside(e):
    for t0, d, n in slices.get((e['pid'], e['tid']), []):
        if t0 - 1e-6 <= float(e['ts']) <= t0 + d + 1e-6: return (t0, d)
    return None
for fid, f in flows.items():
    if set(f) != {'s', 'f'}: bad.append(f'flow {fid} lacks an end: {sorted(f)}'); continue
    s, r = inside(f['s']), inside(f['f'])
    if not s: bad.append(f'flow {fid} starts outside any slice of its track')
    if not r: bad.append(f'flow {fid} ends outside any slice of its track')
    if s and r and r[0] + r[1] < s[0] - 1e-6: bad.append(f'flow {fid}: the receive ends before the send began')
if len(flows) != rep['messages']['matched']: bad.append(f'{len(flows)} flows, report matched {rep["messages"]["matched"]}')
for b in bad[:10]: print(f'FAIL {impl} perfetto: {b}')
sys.exit(1 if bad else 0)
PY
}

check_otf2() {  # archive.otf2 report.json impl [RECORD=N: at least N of them]...
    otf2-print "$1" >"$tmp/otf2.txt" 2>"$tmp/otf2.err" || { echo "FAIL $3 otf2: otf2-print failed: $(head -5 "$tmp/otf2.err")"; return 1; }
    python3 - "$tmp/otf2.txt" "${@:2}" <<'PY'
import json, re, sys
from collections import Counter
c = Counter()
rep = json.load(open(sys.argv[2]))
impl = sys.argv[3]
m = rep['messages']
bad = []
# requests: opened and closed per rank (location >> 16) and request id
opened, closes = {}, Counter()
for l in open(sys.argv[1]):
    f = l.split()
    if not f: continue
    c[f[0]] += 1
    q = re.search(r'Request: (\d+)', l)
    if not q or len(f) < 2 or not f[1].isdigit(): continue
    key = (int(f[1]) >> 16, int(q.group(1)))
    if f[0] in ('MPI_ISEND', 'MPI_IRECV_REQUEST'):
        if key in opened: bad.append(f'rank {key[0]} request {key[1]}: opened twice without a close')
        opened[key] = f[0]
    elif f[0] in ('MPI_ISEND_COMPLETE', 'MPI_IRECV', 'MPI_REQUEST_CANCELLED'):
        o = opened.pop(key, None)
        if o is None: bad.append(f'rank {key[0]} request {key[1]}: {f[0]} closes nothing open')
        elif f[0] == 'MPI_ISEND_COMPLETE' and o != 'MPI_ISEND' or f[0] == 'MPI_IRECV' and o != 'MPI_IRECV_REQUEST':
            bad.append(f'rank {key[0]} request {key[1]}: {f[0]} closes {o}')
        else: closes[(o, f[0])] += 1
bad += [f'rank {k[0]} request {k[1]}: {v} never closed' for k, v in list(opened.items())[:5]]
checks = [
    ('ENTER', c['ENTER'], rep['run']['events']),
    ('LEAVE', c['LEAVE'], rep['run']['events']),
    ('MPI_SEND+MPI_ISEND', c['MPI_SEND'] + c['MPI_ISEND'], m['sends'] + m['cancelled_sends']),
    ('MPI_RECV+MPI_IRECV', c['MPI_RECV'] + c['MPI_IRECV'], m['receives']),
    ('MPI_COLLECTIVE_END', c['MPI_COLLECTIVE_END'], rep['collectives']['calls']),
    ('MPI_COLLECTIVE_BEGIN', c['MPI_COLLECTIVE_BEGIN'], rep['collectives']['calls']),
    ('MPI_ISEND', c['MPI_ISEND'], c['MPI_ISEND_COMPLETE'] + closes[('MPI_ISEND', 'MPI_REQUEST_CANCELLED')]),
    ('MPI_IRECV_REQUEST', c['MPI_IRECV_REQUEST'], c['MPI_IRECV'] + closes[('MPI_IRECV_REQUEST', 'MPI_REQUEST_CANCELLED')]),
    ('MPI_REQUEST_CANCELLED of sends', closes[('MPI_ISEND', 'MPI_REQUEST_CANCELLED')], m['cancelled_sends']),
    ('MPI_REQUEST_CANCELLED of receives', closes[('MPI_IRECV_REQUEST', 'MPI_REQUEST_CANCELLED')],
     m['cancelled_receives']),
]
want = [a for a in sys.argv[4:]]
for w in want:   # name=N: at least N such records (the program has them)
    n, v = w.split('=')
    checks.append((n + ' (at least)', min(c[n], int(v)), int(v)))
bad += [f'{n}: otf2-print shows {g}, report has {w}' for n, g, w in checks if g != w]
for b in bad: print(f'FAIL {impl} otf2: {b}')
sys.exit(1 if bad else 0)
PY
}

run_impl() {  # impl mpicc mpirun-command...
    local impl=$1 cc=$2; shift 2
    local rt=$root/build/lib/mpilens/libmpilens-$impl.so
    if ! command -v "$cc" >/dev/null || [ ! -f "$rt" ]; then echo "skip $impl: $cc or $rt missing"; return; fi
    ran=$((ran + 1))
    "$cc" -g -O1 -w -o "$tmp/pp-$impl" "$root/tests/progs/p2p_patterns.c" || { echo "FAIL $impl: build"; fail=1; return; }
    local dir=$tmp/run-$impl
    MPILENS_DIR=$dir LD_PRELOAD=$rt timeout 120 "$@" -n 4 "$tmp/pp-$impl" >"$tmp/out-$impl" 2>&1 || {
        echo "FAIL $impl: the program failed"; cat "$tmp/out-$impl"; fail=1; return; }
    "$MPILENS" report --json "$dir" >"$tmp/rep-$impl.json" || { echo "FAIL $impl: report"; fail=1; return; }
    "$MPILENS" export -q --format=perfetto "$dir" -o "$tmp/$impl.json" 2>"$tmp/err" || {
        echo "FAIL $impl: perfetto export: $(cat "$tmp/err")"; fail=1; return; }
    [ -s "$tmp/err" ] && { echo "FAIL $impl: export -q wrote to stderr: $(head -c 300 "$tmp/err")"; fail=1; }
    "$MPILENS" export --format=perfetto "$dir" -o "$tmp/loud-$impl.json" 2>"$tmp/err" &&
        grep -q "^mpilens export: wrote $tmp/loud-$impl.json" "$tmp/err" ||
        { echo "FAIL $impl: export without -q does not say 'wrote': $(head -c 300 "$tmp/err")"; fail=1; }
    local o st
    for o in --bogus -z; do
        "$MPILENS" export "$o" --format=perfetto "$dir" -o "$tmp/bad-$impl.json" >"$tmp/out" 2>"$tmp/err"; st=$?
        [ $st -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
            grep -q "^mpilens export: unknown option.*$o.*; try 'mpilens export --help'\$" "$tmp/err" &&
            [ ! -e "$tmp/bad-$impl.json" ] ||
            { echo "FAIL $impl: export $o: exit $st, stderr: $(head -c 300 "$tmp/err")"; fail=1; }
    done
    check_perfetto "$tmp/$impl.json" "$tmp/rep-$impl.json" "$impl" || fail=1
    if "$MPILENS" export -q --format=perfetto "$dir" -o "$tmp/$impl.json" 2>/dev/null; then
        echo "FAIL $impl: export overwrote an existing file"; fail=1
    fi
    if command -v otf2-print >/dev/null; then
        "$MPILENS" export -q --format=otf2 "$dir" -o "$tmp/otf2-$impl/trace" 2>"$tmp/err" || {
            echo "FAIL $impl: otf2 export: $(cat "$tmp/err")"; fail=1; return; }
        [ -s "$tmp/err" ] && { echo "FAIL $impl: otf2 export -q wrote to stderr: $(head -c 300 "$tmp/err")"; fail=1; }
        # 4 ranks: each cancels one receive; persistent sends freed inactive
        check_otf2 "$tmp/otf2-$impl/trace.otf2" "$tmp/rep-$impl.json" "$impl" MPI_REQUEST_CANCELLED=4 || fail=1
    else
        echo "FAIL $impl otf2: otf2-print missing (setup.sh deps installs otf2-tools)"; fail=1; return
    fi
    [ $fail -eq 0 ] && echo "ok $impl: perfetto and otf2 exports agree with the report"
}

# cancelled requests (tests/programs/rep_cancel.c): every kind of cancelled
# receive closes its MPI_IRECV_REQUEST with MPI_REQUEST_CANCELLED
run_cancel() {  # impl mpicc mpirun-command...
    local impl=$1 cc=$2; shift 2
    local rt=$root/build/lib/mpilens/libmpilens-$impl.so
    if ! command -v "$cc" >/dev/null || [ ! -f "$rt" ]; then return; fi
    command -v otf2-print >/dev/null || return   # run_impl failed already
    "$cc" -g -O1 -w -o "$tmp/rc-$impl" "$root/tests/programs/rep_cancel.c" || { echo "FAIL $impl: build rep_cancel"; fail=1; return; }
    local dir=$tmp/rc-run-$impl
    MPILENS_DIR=$dir LD_PRELOAD=$rt timeout 120 "$@" -n 2 "$tmp/rc-$impl" >"$tmp/rc-out" 2>&1 || {
        echo "FAIL $impl rep_cancel: the program failed"; cat "$tmp/rc-out"; fail=1; return; }
    "$MPILENS" report --json "$dir" >"$tmp/rc-$impl.json" || { echo "FAIL $impl rep_cancel: report"; fail=1; return; }
    "$MPILENS" export -q --format=otf2 "$dir" -o "$tmp/rc-otf2-$impl/trace" 2>"$tmp/err" || {
        echo "FAIL $impl rep_cancel: otf2 export: $(cat "$tmp/err")"; fail=1; return; }
    # rank 1 cancels 4 receives (one of them persistent)
    check_otf2 "$tmp/rc-otf2-$impl/trace.otf2" "$tmp/rc-$impl.json" "$impl rep_cancel" MPI_REQUEST_CANCELLED=4 ||
        { fail=1; return; }
    echo "ok $impl rep_cancel: every request the OTF2 archive opens is closed once"
}

# threads: each thread its own track (Perfetto) and location (OTF2)
run_threads() {  # impl mpicc mpirun-command...
    local impl=$1 cc=$2; shift 2
    local rt=$root/build/lib/mpilens/libmpilens-$impl.so
    if ! command -v "$cc" >/dev/null || [ ! -f "$rt" ]; then return; fi
    "$cc" -g -O1 -w -o "$tmp/thr-$impl" "$root/tests/progs/threads.c" -lpthread || { echo "FAIL $impl: build threads"; fail=1; return; }
    local dir=$tmp/thr-run-$impl
    MPILENS_DIR=$dir LD_PRELOAD=$rt timeout 120 "$@" -n 2 "$tmp/thr-$impl" >"$tmp/thr-out" 2>&1 || {
        echo "FAIL $impl threads: the program failed"; cat "$tmp/thr-out"; fail=1; return; }
    if grep -q '^SKIP' "$tmp/thr-out"; then echo "skip $impl threads: $(cat "$tmp/thr-out")"; return; fi
    "$MPILENS" report --json "$dir" >"$tmp/thr-$impl.json" || { echo "FAIL $impl threads: report"; fail=1; return; }
    "$MPILENS" export -q --format=perfetto "$dir" -o "$tmp/thr-$impl.trace.json" 2>/dev/null || {
        echo "FAIL $impl threads: export"; fail=1; return; }
    check_perfetto "$tmp/thr-$impl.trace.json" "$tmp/thr-$impl.json" "$impl threads" || { fail=1; return; }
    python3 - "$tmp/thr-$impl.trace.json" "$(grep '^EXPECT' "$tmp/thr-out")" "$impl" <<'PY' || { fail=1; return; }
import json, sys
from collections import defaultdict
tr = json.load(open(sys.argv[1]))
want = int(sys.argv[2].split()[1].split('=')[1])
tracks = defaultdict(set)
for e in tr['traceEvents']:
    if e['ph'] == 'X': tracks[e['pid']].add(e['tid'])
flows = sum(1 for e in tr['traceEvents'] if e['ph'] == 's')
bad = []
if any(len(t) < 3 for t in tracks.values()): bad.append(f'thread tracks per rank: {dict(tracks)}, want 3 each')
if flows != want: bad.append(f'{flows} flows, the program sent {want} messages')
for b in bad: print(f'FAIL {sys.argv[3]} threads:', b)
sys.exit(1 if bad else 0)
PY
    if command -v otf2-print >/dev/null; then
        "$MPILENS" export -q --format=otf2 "$dir" -o "$tmp/thr-otf2-$impl/trace" 2>/dev/null || {
            echo "FAIL $impl threads: otf2 export"; fail=1; return; }
        check_otf2 "$tmp/thr-otf2-$impl/trace.otf2" "$tmp/thr-$impl.json" "$impl threads" || { fail=1; return; }
    fi
    echo "ok $impl threads: one track per thread, every message an arrow"
}

run_impl openmpi mpicc.openmpi mpirun.openmpi --oversubscribe
run_impl mpich mpicc.mpich mpirun.mpich
run_cancel openmpi mpicc.openmpi mpirun.openmpi --oversubscribe
run_cancel mpich mpicc.mpich mpirun.mpich
run_threads openmpi mpicc.openmpi mpirun.openmpi --oversubscribe
run_threads mpich mpicc.mpich mpirun.mpich
[ $ran -gt 0 ] || { echo "FAIL: no MPI to test with"; exit 1; }
exit $fail
