# A request handle freed by one thread's MPI_Wait and given to another
# thread's MPI_Irecv that started before that MPI_Wait (tests/progs/
# thread_reuse.c; tests/progs/hold_irecv.c, preloaded after the runtime,
# holds the MPI_Irecv inside the call until the MPI_Wait returned: the
# interleaving a lock inside MPI makes now and then, here in every round).
# Both MPIs: the report counts every receive once, all of them matched, and
# the OTF2 export shows as many receives (MPI_IRECV), every request opened
# and closed once.  Before the matcher kept both requests of a handle
# apart (analysis/match.c, req_open/req_at), each such round lost a receive
# in the report and closed the wrong request in the export.  A second half
# holds the MPI_Irecv that starts first while the other thread's MPI_Irecv
# takes the handle and its MPI_Wait frees it (the held call, first in the
# stream, gets the handle second: its request is the younger one); before
# req_at ordered the two by the end of the calls that made them, the report
# counted 120 of the 160 receives on both MPIs (seen in CI as report_export's
# threads case, 199 of 200 receives, now and then).
need_mpilens
for impl in openmpi mpich; do
    have_impl "$impl" || continue
    need_runtime "$impl"
    cc=mpicc.$impl
    "$cc" -g -O1 -w -o "$TEST_TMP/tr-$impl" "$ROOT/tests/progs/thread_reuse.c" -lpthread -ldl ||
        { soft_fail "$impl: build thread_reuse"; continue; }
    "$cc" -shared -fPIC -w -o "$TEST_TMP/hold-$impl.so" "$ROOT/tests/progs/hold_irecv.c" -ldl ||
        { soft_fail "$impl: build hold_irecv"; continue; }
    dir=$TEST_TMP/run-$impl
    rt=$(runtime_of "$impl")
    case $impl in
    openmpi) timeout 60 mpirun.openmpi --oversubscribe -x LD_PRELOAD="$rt:$TEST_TMP/hold-$impl.so" \
                 -x MPILENS_DIR="$dir" -n 2 "$TEST_TMP/tr-$impl" >"$TEST_TMP/out-$impl" 2>&1 ;;
    mpich) timeout 60 mpirun.mpich -genv LD_PRELOAD "$rt:$TEST_TMP/hold-$impl.so" -genv MPILENS_DIR "$dir" \
               -n 2 "$TEST_TMP/tr-$impl" >"$TEST_TMP/out-$impl" 2>&1 ;;
    esac || { soft_fail "$impl: the program failed: $(tail -3 "$TEST_TMP/out-$impl")"; continue; }
    if grep -q '^SKIP' "$TEST_TMP/out-$impl"; then note "skip $impl: $(cat "$TEST_TMP/out-$impl")"; continue; fi
    expect=$(grep '^EXPECT' "$TEST_TMP/out-$impl")
    [ -n "$expect" ] || { soft_fail "$impl: no EXPECT line: $(tail -3 "$TEST_TMP/out-$impl")"; continue; }
    "$MPILENS" report --json "$dir" >"$TEST_TMP/rep-$impl.json" || { soft_fail "$impl: report"; continue; }
    otf=
    if command -v otf2-print >/dev/null; then
        "$MPILENS" export -q --format=otf2 "$dir" -o "$TEST_TMP/otf2-$impl/trace" 2>"$TEST_TMP/err" ||
            { soft_fail "$impl: otf2 export: $(cat "$TEST_TMP/err")"; continue; }
        otf2-print "$TEST_TMP/otf2-$impl/trace.otf2" >"$TEST_TMP/otf2-$impl.txt" 2>/dev/null ||
            { soft_fail "$impl: otf2-print failed"; continue; }
        otf=$TEST_TMP/otf2-$impl.txt
    else
        soft_fail "$impl: otf2-print missing (setup.sh deps installs otf2-tools)"
    fi
    python3 - "$TEST_TMP/rep-$impl.json" "$expect" "$impl" "$otf" <<'PY' || soft_fail "$impl: see above"
import json, re, sys
from collections import Counter
rep = json.load(open(sys.argv[1]))
want = dict(kv.split('=') for kv in sys.argv[2].split()[1:])
impl, otf = sys.argv[3], sys.argv[4]
n, reused = int(want['receives']), int(want['reused'])
m = rep['messages']
bad = []
if reused < n // 4:
    bad.append(f'the handle was reused in {reused} rounds only: the case is not produced')
if m['receives'] != n: bad.append(f'report: {m["receives"]} receives, the program made {n}')
if m['matched'] != n: bad.append(f'report: {m["matched"]} messages matched, the program sent {n}')
if otf:
    c, opened, closed = Counter(), {}, 0
    for l in open(otf):
        f = l.split()
        if not f: continue
        c[f[0]] += 1
        q = re.search(r'Request: (\d+)', l)
        if not q or len(f) < 2 or not f[1].isdigit(): continue
        key = (int(f[1]) & 0xffffffff, int(q.group(1)))   # location: thread << 32 | rank
        if f[0] == 'MPI_IRECV_REQUEST':
            if key in opened: bad.append(f'otf2: request {key} opened twice')
            opened[key] = 1
        elif f[0] == 'MPI_IRECV':
            if opened.pop(key, None) is None: bad.append(f'otf2: MPI_IRECV closes {key}, not open')
    if c['MPI_IRECV'] + c['MPI_RECV'] != n: bad.append(f'otf2: {c["MPI_IRECV"] + c["MPI_RECV"]} receives, want {n}')
    if opened: bad.append(f'otf2: {len(opened)} requests never closed')
for b in bad[:8]: print(f'{impl}: {b}')
print(f'# {impl}: {n} receives, handle reused in {reused} rounds', file=sys.stderr)
sys.exit(1 if bad else 0)
PY
done
