#!/usr/bin/env bash
# mpilens report pairs every message of tests/progs/p2p_patterns.c (blocking,
# every send mode, nonblocking with Waitall/Waitany/Waitsome/Test, wildcards
# whose completion order differs from their posting order, persistent
# requests, Sendrecv(_replace), probes, MPI_PROC_NULL, sub-communicators):
# the number of messages, their bytes and the collective instances equal the
# program's own count, nothing is unmatched, on Open MPI and MPICH; the text
# report fits 100 columns.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
MPILENS=${MPILENS:-$root/build/bin/mpilens}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail=0
ran=0

run_impl() {  # impl mpicc mpirun-command...
    local impl=$1 cc=$2; shift 2
    local rt=$root/build/lib/mpilens/libmpilens-$impl.so
    if ! command -v "$cc" >/dev/null || [ ! -f "$rt" ]; then
        echo "skip $impl: $cc or $rt missing"
        return
    fi
    ran=$((ran + 1))
    "$cc" -g -O1 -w -o "$tmp/pp-$impl" "$root/tests/progs/p2p_patterns.c" || { echo "FAIL $impl: build"; fail=1; return; }
    local dir=$tmp/run-$impl
    if ! MPILENS_DIR=$dir LD_PRELOAD=$rt timeout 120 "$@" -n 4 "$tmp/pp-$impl" >"$tmp/out-$impl" 2>&1; then
        echo "FAIL $impl: the program failed:"; cat "$tmp/out-$impl"; fail=1; return
    fi
    local expect
    expect=$(grep '^EXPECT' "$tmp/out-$impl") || { echo "FAIL $impl: no EXPECT line"; fail=1; return; }
    "$MPILENS" report --json "$dir" >"$tmp/rep-$impl.json" 2>"$tmp/err-$impl" || {
        echo "FAIL $impl: report failed: $(cat "$tmp/err-$impl")"; fail=1; return; }
    if ! python3 - "$tmp/rep-$impl.json" "$expect" "$impl" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = dict(kv.split('=') for kv in sys.argv[2].split()[1:])
m, c, impl = rep['messages'], rep['collectives'], sys.argv[3]
checks = [
    ('matched messages', m['matched'], int(exp['messages'])),
    ('matched bytes', m['bytes'], int(exp['bytes'])),
    ('sends', m['sends'], int(exp['messages'])),
    ('receives', m['receives'], int(exp['messages'])),
    ('unmatched sends', m['unmatched_sends'], 0),
    ('unmatched receives', m['unmatched_receives'], 0),
    ('pending receives', m['pending_receives'], 0),
    ('unresolved receives', m['unresolved_receives'], 0),
    ('collective instances', c['instances'], int(exp['collectives'])),
    ('incomplete collectives', c['incomplete'], 0),
    ('findings', len(rep['findings']), 0),
    ('ranks read', rep['run']['ranks_read'], 4),
    ('input problems', len(rep['input_problems']), 0),
]
bad = [f'{n}: got {g}, want {w}' for n, g, w in checks if g != w]
# per-routine sums agree with the totals
calls = sum(r['calls'] for r in rep['routines'])
if calls != rep['run']['calls']: bad.append(f'routine calls {calls} != run calls {rep["run"]["calls"]}')
scalls = sum(s['calls'] for s in rep['sites'])
if scalls != calls: bad.append(f'call-site calls {scalls} != routine calls {calls}')
sizes = sum(b['messages'] for b in rep['message_sizes'])
if sizes != m['matched']: bad.append(f'size histogram {sizes} != matched {m["matched"]}')
if not any(s['site'].startswith('p2p_patterns.c:') for s in rep['sites']): bad.append('no call site named p2p_patterns.c:N')
for b in bad: print(f'FAIL {impl}: {b}')
for f in rep['findings']: print(f'  finding: {f["text"]}')
sys.exit(1 if bad else 0)
PY
    then fail=1; return; fi
    "$MPILENS" report "$dir" >"$tmp/rep-$impl.txt" 2>&1 || { echo "FAIL $impl: text report failed"; fail=1; return; }
    local wide
    wide=$(awk 'length($0) > 100' "$tmp/rep-$impl.txt" | head -3)
    if [ -n "$wide" ]; then echo "FAIL $impl: text report wider than 100 columns:"; echo "$wide"; fail=1; return; fi
    grep -q 'unmatched: 0 sends' "$tmp/rep-$impl.txt" || { echo "FAIL $impl: text report lacks 'unmatched: 0 sends'"; fail=1; return; }
    echo "ok $impl: $expect matched exactly"
}

run_impl openmpi mpicc.openmpi mpirun.openmpi --oversubscribe
run_impl mpich mpicc.mpich mpirun.mpich
[ $ran -gt 0 ] || { echo "FAIL: no MPI to test with"; exit 1; }
exit $fail
