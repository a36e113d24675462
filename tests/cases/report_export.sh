#!/usr/bin/env bash
# mpilens export on a recorded run of tests/progs/p2p_patterns.c (Open MPI
# and MPICH):
#  - perfetto: valid JSON; one process track per rank; within every thread
#    track the slices are in time order and do not overlap; every flow has
#    exactly one start and one end, each inside a slice of its own track;
#    one flow per matched message; every receive ends after its send began;
#  - otf2: otf2-print reads the archive and shows as many ENTER/LEAVE as the
#    report has calls, MPI_SEND+MPI_ISEND as sends, MPI_RECV+MPI_IRECV as
#    receives, MPI_COLLECTIVE_END as collective calls;
#  - threads (tests/progs/threads.c): one Perfetto track and one OTF2 location
#    per thread, every message an arrow;
#  - an existing output is never overwritten.
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

check_otf2() {  # archive.otf2 report.json impl
    otf2-print "$1" >"$tmp/otf2.txt" 2>"$tmp/otf2.err" || { echo "FAIL $3 otf2: otf2-print failed: $(head -5 "$tmp/otf2.err")"; return 1; }
    python3 - "$tmp/otf2.txt" "$2" "$3" <<'PY'
import json, sys
from collections import Counter
c = Counter(l.split()[0] for l in open(sys.argv[1]) if l.strip())
rep = json.load(open(sys.argv[2]))
impl = sys.argv[3]
m = rep['messages']
checks = [
    ('ENTER', c['ENTER'], rep['run']['events']),
    ('LEAVE', c['LEAVE'], rep['run']['events']),
    ('MPI_SEND+MPI_ISEND', c['MPI_SEND'] + c['MPI_ISEND'], m['sends']),
    ('MPI_RECV+MPI_IRECV', c['MPI_RECV'] + c['MPI_IRECV'], m['receives']),
    ('MPI_COLLECTIVE_END', c['MPI_COLLECTIVE_END'], rep['collectives']['calls']),
    ('MPI_COLLECTIVE_BEGIN', c['MPI_COLLECTIVE_BEGIN'], rep['collectives']['calls']),
]
bad = [f'{n}: otf2-print shows {g}, report has {w}' for n, g, w in checks if g != w]
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
    check_perfetto "$tmp/$impl.json" "$tmp/rep-$impl.json" "$impl" || fail=1
    if "$MPILENS" export -q --format=perfetto "$dir" -o "$tmp/$impl.json" 2>/dev/null; then
        echo "FAIL $impl: export overwrote an existing file"; fail=1
    fi
    if command -v otf2-print >/dev/null; then
        "$MPILENS" export -q --format=otf2 "$dir" -o "$tmp/otf2-$impl/trace" 2>"$tmp/err" || {
            echo "FAIL $impl: otf2 export: $(cat "$tmp/err")"; fail=1; return; }
        check_otf2 "$tmp/otf2-$impl/trace.otf2" "$tmp/rep-$impl.json" "$impl" || fail=1
    else
        echo "skip $impl otf2: otf2-print missing"
    fi
    [ $fail -eq 0 ] && echo "ok $impl: perfetto and otf2 exports agree with the report"
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
run_threads openmpi mpicc.openmpi mpirun.openmpi --oversubscribe
run_threads mpich mpicc.mpich mpirun.mpich
[ $ran -gt 0 ] || { echo "FAIL: no MPI to test with"; exit 1; }
exit $fail
