# report_unfinished: a call still in progress when a rank stops or dies is
# in the trace.  tests/programs/deadlock_coll_missing.c (3 ranks: 0 and 1 in
# MPI_Allreduce, 2 in MPI_Recv from 0 tag 11) stopped by `mpilens run
# --deadlock-timeout` (exit 86), both MPIs:
#   dump      the three calls, marked unfinished, with what they wait for
#   report    counted (calls marked '*', "3 unfinished"), with their time so
#             far (seconds); findings: the receive never matched, the
#             MPI_Allreduce rank 2 never reached
#   --json    unfinished_calls, per routine/site/rank "unfinished", findings;
#             time_share as the rank table's MPI %: MPI_Init apart (0)
#   exports   perfetto slices with "unfinished": true and their routine's
#             category (collective, p2p); OTF2: the ENTER of
#             each carries the attribute mpilens:unfinished
# timeout: 200
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl deadlock_coll_missing) || continue
    src=$ROOT/tests/programs/deadlock_coll_missing.c
    la=$(grep -n L_ALLREDUCE "$src" | cut -d: -f1)
    ls=$(grep -n L_SKIP "$src" | cut -d: -f1)
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 3 --deadlock-timeout=2 "$p") >"$d/out" 2>"$d/err"
    rc=$?
    [ $rc = 86 ] || { soft_fail "$impl: mpilens run exit $rc, want 86: $(tail -3 "$d/err" | tr '\n' ' ')"; continue; }
    # dump
    "$MPILENS" dump "$d/run" >"$d/dump.txt" 2>/dev/null || { soft_fail "$impl: dump failed"; continue; }
    for r in 0 1; do
        grep -Eq "^$r 0 [0-9.]+ [0-9.]+ MPI_Allreduce deadlock_coll_missing.c:$la unfinished comm=MPI_COMM_WORLD( |$)" "$d/dump.txt" ||
            soft_fail "$impl: dump lacks rank $r's unfinished MPI_Allreduce at line $la"
    done
    grep -Eq "^2 0 [0-9.]+ [0-9.]+ MPI_Recv deadlock_coll_missing.c:$ls unfinished comm=MPI_COMM_WORLD peer=0 tag=11( |$)" "$d/dump.txt" ||
        soft_fail "$impl: dump lacks rank 2's unfinished MPI_Recv from 0 tag 11"
    n=$(grep -c ' unfinished' "$d/dump.txt")
    [ "$n" = 3 ] || soft_fail "$impl: $n unfinished calls in the dump, want 3"
    # each lasts at least the deadlock timeout (2 s): end - start
    short=$(awk '/ unfinished/ && $4 - $3 < 1.5 { print }' "$d/dump.txt" | head -1)
    [ -z "$short" ] || soft_fail "$impl: unfinished call shorter than the 2 s it waited: $short"
    # text report
    "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>&1
    grep -q 'MPI calls, 3 unfinished' "$d/rep.txt" || soft_fail "$impl: report header lacks '3 unfinished'"
    grep -Eq '^  MPI_Allreduce +[0-9]+\*' "$d/rep.txt" || soft_fail "$impl: routine MPI_Allreduce not marked unfinished"
    grep -q '^  \* 3 unfinished calls' "$d/rep.txt" || soft_fail "$impl: no note on the unfinished calls"
    sed -n '/^Findings/,$p' "$d/rep.txt" | tr '\n' ' ' | tr -s ' ' >"$d/findings.txt"
    grep -q 'receive on rank 2 from rank 0, tag 11, MPI_COMM_WORLD: posted by MPI_Recv at deadlock_coll_missing.c:[0-9]*, never completed nor matched' "$d/findings.txt" ||
        soft_fail "$impl: findings lack the receive never matched: $(head -c 400 "$d/findings.txt")"
    grep -q 'MPI_Allreduce on MPI_COMM_WORLD: collective #[0-9]* was called by 2 of 3 ranks (rank 2 did not)' "$d/findings.txt" ||
        soft_fail "$impl: findings lack the incomplete MPI_Allreduce"
    grep -q 'none: every message matched' "$d/rep.txt" && soft_fail "$impl: findings say none"
    grep -Eq '^  MPI_Init +3 .* - +[0-9.]+%$' "$d/rep.txt" || soft_fail "$impl: MPI_Init not apart (time% -)"
    # JSON
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" || { soft_fail "$impl: json report failed"; continue; }
    r=$(python3 - "$d/rep.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
bad = []
if rep['run'].get('unfinished_calls') != 3: bad.append('unfinished_calls %r' % rep['run'].get('unfinished_calls'))
ro = {x['routine']: x for x in rep['routines']}
if ro.get('MPI_Allreduce', {}).get('unfinished') != 2: bad.append('MPI_Allreduce unfinished %r' % ro.get('MPI_Allreduce'))
if ro.get('MPI_Recv', {}).get('unfinished') != 1: bad.append('MPI_Recv unfinished %r' % ro.get('MPI_Recv'))
if ro.get('MPI_Recv', {}).get('total_ns', 0) < 1.5e9: bad.append('MPI_Recv time %r' % ro.get('MPI_Recv'))
rk = {x['rank']: x for x in rep['ranks']}
if [rk[i]['unfinished'] for i in range(3)] != [1, 1, 1]: bad.append('ranks %r' % rep['ranks'])
if sum(s.get('unfinished', 0) for s in rep['sites']) != 3: bad.append('sites')
# time%: shares of the MPI time of the application window, as the rank table's MPI %
# (MPI_Init apart, share 0); the ranks' MPI time is the routines' time but MPI_Init's
init = ro.get('MPI_Init', {})
if init.get('time_share') != 0: bad.append('MPI_Init time_share %r' % init.get('time_share'))
share = sum(x['time_share'] for x in rep['routines'])
if abs(share - 1) > 0.001: bad.append('time_share sums to %.4f' % share)
rmpi = sum(x['mpi_ns'] for x in rep['ranks'])
tmpi = sum(x['total_ns'] for x in rep['routines'] if x['routine'] not in ('MPI_Init', 'MPI_Finalize'))
if abs(rmpi - tmpi) > 0.001 * tmpi: bad.append('ranks MPI time %d, routines %d' % (rmpi, tmpi))
kinds = {(f['kind'], f['rank'], f['routine']) for f in rep['findings']}
if ('pending_receive', 2, 'MPI_Recv') not in kinds: bad.append('no pending_receive: %r' % kinds)
if ('collective_incomplete', 2, 'MPI_Allreduce') not in kinds: bad.append('no collective_incomplete: %r' % kinds)
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl: json: $r"
    # exports
    "$MPILENS" export -q --format=perfetto "$d/run" -o "$d/trace.json" 2>"$d/exp.err" ||
        { soft_fail "$impl: perfetto export failed: $(head -2 "$d/exp.err")"; continue; }
    r=$(python3 - "$d/trace.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t['traceEvents'] if isinstance(t, dict) else t
u = sorted((e['pid'], e['name'], e['cat']) for e in ev if e.get('ph') == 'X' and e.get('args', {}).get('unfinished'))
# the category their routine has (before: "mpi", the live slot's record having no type)
want = [(0, 'MPI_Allreduce', 'collective'), (1, 'MPI_Allreduce', 'collective'), (2, 'MPI_Recv', 'p2p')]
print('' if u == want else 'unfinished slices %r' % u)
PY
)
    [ -z "$r" ] || soft_fail "$impl: perfetto: $r"
    if command -v otf2-print >/dev/null; then
        "$MPILENS" export -q --format=otf2 "$d/run" -o "$d/otf2/trace" 2>"$d/exp.err" ||
            { soft_fail "$impl: otf2 export failed: $(head -2 "$d/exp.err")"; continue; }
        otf2-print "$d/otf2/trace.otf2" >"$d/otf2.txt" 2>&1 || { soft_fail "$impl: otf2-print failed"; continue; }
        n=$(grep -A1 '^ENTER' "$d/otf2.txt" | grep -c 'mpilens:unfinished')
        [ "$n" = 3 ] || soft_fail "$impl: otf2: $n ENTER with mpilens:unfinished, want 3"
    fi
    note "$impl: $(grep -m1 'MPI calls' "$d/rep.txt" | sed 's/^ *//')"
done
