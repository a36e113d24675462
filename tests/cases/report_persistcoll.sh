# report_persistcoll: persistent collectives (tests/programs/rep_pcoll.c, 3
# ranks, through mpilens run): one blocking MPI_Allreduce, MPI_Bcast and
# MPI_Barrier, then MPI_Allreduce_init, MPI_Bcast_init, MPI_Barrier_init
# (Open MPI 4.1: MPIX_*_init) started 5 times (MPI_Start, MPI_Startall;
# completed by MPI_Wait/Waitall and MPI_Test loops), the last rank
# computing 300 ms before one MPI_Start.  Each start is one collective
# operation, the init none: report --json has 6 instances each of
# MPI_Allreduce, MPI_Bcast and MPI_Barrier (plus the final MPI_Reduce, 19
# in all, none mismatched or incomplete) with 6 times the bytes of the
# blocking one; the starts' rows carry 5 times those bytes, the inits' 0;
# each rank 19 collective calls in the matrix; the late start shows as a
# collective wait state of the other ranks in MPI_Wait (at least 100 ms of
# the 300, in all); otf2-print: per rank 6 ALLREDUCE, 6 BCAST, 6 BARRIER
# and 1 REDUCE collective ends, the persistent ones with the blocking
# one's bytes.  Before the fix each init counted as the one instance (of
# MPI_Allreduce_init ...) with its bytes once, and nothing waited.
# timeout: 120
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_pcoll) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 3 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: rep_pcoll failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^SKIP' "$d/out" && { note "$impl: skipped: $(cat "$d/out")"; continue; }
    grep -q '^rep_pcoll: done' "$d/out" || { soft_fail "$impl: rep_pcoll: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$impl: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    "$MPILENS" export --format=otf2 -o "$d/tr" "$d/run" >/dev/null 2>"$d/exp.err" ||
        { soft_fail "$impl: export --format=otf2 failed: $(head -c 300 "$d/exp.err")"; continue; }
    command -v otf2-print >/dev/null || { fail "otf2-print missing (setup.sh deps installs otf2-tools)"; continue; }
    otf2-print "$d/tr.otf2" >"$d/otf2.txt" 2>"$d/otf2.err" ||
        { soft_fail "$impl: otf2-print failed: $(head -c 300 "$d/otf2.err")"; continue; }
    r=$(python3 - "$d" <<'PY'
import json, re, sys, collections
d = sys.argv[1]
rep = json.load(open(f'{d}/rep.json'))
bad = []
n = 3
rb = {x['routine']: x['bytes'] for x in rep['routines']}
rc = {x['routine']: x['calls'] for x in rep['routines']}
inits = [k for k in rc if re.match(r'MPIX?_(Allreduce|Bcast|Barrier)_init$', k)]
if len(inits) != 3: bad.append(f'init routines {inits}')
for k in inits:
    if rc[k] != n or rb[k] != 0: bad.append(f'{k}: {rc[k]} calls, {rb[k]} bytes, want {n} calls, 0 bytes')
one = {k: rb.get('MPI_' + k, -1) for k in ('Allreduce', 'Bcast', 'Barrier')}
if one['Allreduce'] <= 0 or one['Bcast'] <= 0 or one['Barrier'] != 0: bad.append(f'blocking bytes {one}')
if rb.get('MPI_Start') != 5 * one['Allreduce']: bad.append(f'MPI_Start {rb.get("MPI_Start")} bytes, want {5 * one["Allreduce"]}')
if rb.get('MPI_Startall') != 5 * one['Bcast']: bad.append(f'MPI_Startall {rb.get("MPI_Startall")} bytes, want {5 * one["Bcast"]}')
c = rep['collectives']
got = (c['instances'], c['calls'], c['incomplete'], c['mismatched'])
if got != (19, 19 * n, 0, 0): bad.append(f'collectives (instances, calls, incomplete, mismatched) {got}, want (19, {19 * n}, 0, 0)')
by = {x['routine']: (x['instances'], x['bytes']) for x in c['by_routine']}
want = {'MPI_' + k: (6, 6 * one[k]) for k in one}
want['MPI_Reduce'] = (1, by.get('MPI_Reduce', (0, 0))[1])
if by != want: bad.append(f'instances by routine {by}, want {want}')
mc = sorted((x['rank'], x['calls']) for x in rep['matrix']['collectives'])
if mc != [(r, 19) for r in range(n)]: bad.append(f'matrix collective calls {mc}')
cw = rep['wait_states']['collective']
late = sum(cw['by_rank'][r] for r in range(n - 1))
if late < 100_000_000: bad.append(f'collective wait of ranks 0-{n - 2}: {late} ns, want at least 100 ms of the late start')
sites = [s for s in cw['by_site'] if s['routine'] == 'MPI_Wait' and s['rank'] < n - 1]
if not sites: bad.append(f'no collective wait in MPI_Wait: {cw["by_site"][:4]}')
ends = collections.Counter()
bytes_ = collections.defaultdict(set)
for l in open(f'{d}/otf2.txt'):
    m = re.match(r'MPI_COLLECTIVE_END\s+(\d+)\s+\d+\s+Operation: (\w+),.*Sent: (\d+), Received: (\d+)', l)
    if m:
        ends[(int(m[1]), m[2])] += 1
        bytes_[(int(m[1]), m[2])].add((int(m[3]), int(m[4])))
want = {(r, op): k for r in range(n) for op, k in (('ALLREDUCE', 6), ('BCAST', 6), ('BARRIER', 6), ('REDUCE', 1))}
if dict(ends) != want: bad.append(f'otf2 collective ends {sorted(ends.items())}')
for key, s in bytes_.items():
    if len(s) != 1: bad.append(f'otf2 {key}: persistent and blocking bytes differ {s}')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl: $r"
    rm -rf "$d/run" "$d/tr" "$d/tr.otf2" "$d/tr.def"
done
