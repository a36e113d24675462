#!/usr/bin/env bash
# Clock alignment and repair.  A recorded run of tests/progs/p2p_patterns.c
# (Open MPI, else MPICH) is given a clock error: rank 1's measured offsets
# are moved 5 ms into the past, so its receives seem to end before their
# sends began.  The report must repair that (largest correction about 5 ms,
# repair converged), and the Perfetto export must then show every receive
# ending after its send began; the unit test of analysis/align.c checks the
# interpolation itself.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
MPILENS=${MPILENS:-$root/build/bin/mpilens}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
CC=${CC:-gcc}
"$CC" -std=gnu11 -D_GNU_SOURCE -O1 -Wall -I"$root/format" -I"$root/analysis" -o "$tmp/test_align" \
    "$root/tests/unit/test_align.c" "$root"/analysis/*.c "$root/format/reader.c" -lz -lm || { echo "FAIL: build test_align"; exit 1; }
"$tmp/test_align" || { echo "FAIL: test_align"; exit 1; }
"$CC" -O1 -o "$tmp/patch" "$root/tests/progs/rankfile_patch.c" || { echo "FAIL: build rankfile_patch"; exit 1; }

if command -v mpicc.openmpi >/dev/null && [ -f "$root/build/lib/mpilens/libmpilens-openmpi.so" ]; then
    impl=openmpi; run=(mpirun.openmpi --oversubscribe)
elif command -v mpicc.mpich >/dev/null && [ -f "$root/build/lib/mpilens/libmpilens-mpich.so" ]; then
    impl=mpich; run=(mpirun.mpich)
else
    echo "FAIL: no MPI runtime built"; exit 1
fi
mpicc.$impl -g -O1 -w -o "$tmp/pp" "$root/tests/progs/p2p_patterns.c" || { echo "FAIL: build"; exit 1; }
MPILENS_DIR=$tmp/run LD_PRELOAD=$root/build/lib/mpilens/libmpilens-$impl.so timeout 120 "${run[@]}" -n 4 "$tmp/pp" \
    >"$tmp/out" 2>&1 || { echo "FAIL: program failed"; cat "$tmp/out"; exit 1; }
"$MPILENS" report --json "$tmp/run" >"$tmp/before.json" || { echo "FAIL: report"; exit 1; }
"$tmp/patch" "$tmp/run/rank-00001.mlt" init_offset=-5000000 final_offset=-5000000 || exit 1
"$MPILENS" report --json "$tmp/run" >"$tmp/after.json" || { echo "FAIL: report after skew"; exit 1; }
"$MPILENS" report "$tmp/run" >"$tmp/after.txt" || exit 1
"$MPILENS" export -q --format=perfetto "$tmp/run" -o "$tmp/trace.json" 2>/dev/null || { echo "FAIL: export"; exit 1; }
python3 - "$tmp/before.json" "$tmp/after.json" "$tmp/trace.json" <<'PY'
import json, sys
from collections import defaultdict
before, after, tr = (json.load(open(p)) for p in sys.argv[1:4])
bad = []
cb, ca = before['clock'], after['clock']
if cb['largest_correction_ns'] > 100000:
    bad.append(f'unskewed run already needs a {cb["largest_correction_ns"]} ns correction')
x = ca['largest_correction_ns']
# the skew plus what the unskewed run already needed (the measured offset's
# own error): repairs only add what is missing, never more
lim = 5000000 + cb['largest_correction_ns']
if not (1000000 <= x <= lim): bad.append(f'largest correction {x} ns, want about 5 ms (<= {lim} ns)')
if ca['largest_correction_rank'] != 1: bad.append(f'correction on rank {ca["largest_correction_rank"]}, want 1')
if not ca['converged']: bad.append('repair did not converge')
if ca['repaired_messages'] == 0: bad.append('no message repaired')
if after['messages']['matched'] != before['messages']['matched']: bad.append('matching changed with the clocks')
# in the export every receive ends after its send began
sl = defaultdict(list)
fl = defaultdict(dict)
for e in tr['traceEvents']:
    if e['ph'] == 'X': sl[(e['pid'], e['tid'])].append((float(e['ts']), float(e['dur'])))
    if e['ph'] in 's f': fl[e['id']][e['ph']] = e
def slice_of(e):
    for t, d in sl[(e['pid'], e['tid'])]:
        if t - 1e-6 <= float(e['ts']) <= t + d + 1e-6: return t, d   # an arrow ends on a slice's edge
late = 0
for f in fl.values():
    (s0, sd), (r0, rd) = slice_of(f['s']), slice_of(f['f'])
    if r0 + rd < s0 - 0.0005: late += 1
if late: bad.append(f'{late} receives still end before their send began')
for b in bad: print('FAIL clock:', b)
if not bad: print(f'ok clock: 5 ms skew on rank 1 repaired, largest correction {x/1e6:.3f} ms, '
                  f'{ca["repaired_messages"]} messages moved, every receive after its send')
sys.exit(1 if bad else 0)
PY
rc=$?
grep -q 'largest correction' "$tmp/after.txt" || { echo "FAIL: text report does not state the largest correction"; rc=1; }
# one sample only (died before MPI_Finalize): still aligned, said so
"$tmp/patch" "$tmp/run/rank-00002.mlt" final_valid=0 || exit 1
"$MPILENS" report "$tmp/run" >"$tmp/one.txt" 2>&1 || { echo "FAIL: report with one clock sample"; rc=1; }
grep -q '1 with the MPI_Init offset only' "$tmp/one.txt" || { echo "FAIL: one-sample rank not reported"; rc=1; }
exit $rc
