# report_critpath_lammps: the critical path of a real program, LAMMPS
# (Debian's lmp) on the bundled 3d Lennard-Jones melt, 4 ranks through
# `mpilens run`: the path's run time lies between the largest rank's time
# and the wall time of the run; communication + computation on it = its run
# time; waiting + useful time = each rank's time; every partner found
# (complete, nothing undecided); the path is a chain of segments in time
# order whose hops name MPI routines.
# timeout: 300
lmp=$(command -v lmp) || fail "lmp not installed (Debian package lammps)"
ex=
for f in /usr/share/lammps/examples/melt/in.melt /usr/share/doc/lammps/examples/melt/in.melt; do
    [ -f "$f" ] && { ex=$f; break; }
done
[ -n "$ex" ] || fail "in.melt not found (Debian package lammps-examples)"
impl=$(mpi_of "$lmp")
[ "$impl" != unknown ] || fail "cannot tell which MPI $lmp links"
need_runtime "$impl"
need_mpilens
cp "$ex" "$TEST_TMP/in.melt"
(cd "$TEST_TMP" && "$MPILENS" run -q -n 4 -o "$TEST_TMP/run" "$lmp" -in in.melt) >"$TEST_TMP/rt.out" 2>"$TEST_TMP/rt.err" ||
    fail "mpilens run lmp failed: $(head -c 300 "$TEST_TMP/rt.err")"
"$MPILENS" report --json -q "$TEST_TMP/run" >"$TEST_TMP/rep.json" 2>"$TEST_TMP/rep.err" ||
    fail "report failed: $(head -c 300 "$TEST_TMP/rep.err")"
r=$(python3 - "$TEST_TMP/rep.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
cp, ws = rep['critical_path'], rep['wait_states']
bad = []
rt = cp['measures']['runtime']['path']
wall = cp['window']['to_ns'] - cp['window']['from_ns']
ranks = ws['ranks']
tmax = max(x['time_ns'] for x in ranks)
# give or take 50 us: the ranks' clocks are aligned to a fraction of that, not exactly
if not (tmax - 50000 <= rt <= wall + 50000): bad.append('run time on the path %d not between the largest rank time %d and the wall time %d' % (rt, tmax, wall))
if rt != cp['runtime_split']['comm_ns'] + cp['runtime_split']['comp_ns']: bad.append('comm + comp != run time on the path')
for x in ranks:
    w = sum(ws[k]['by_rank'][x['rank']] for k in ('late_sender', 'late_receiver', 'collective', 'completion'))
    if x['useful_ns'] + w != x['time_ns']: bad.append('rank %d: useful %d + waiting %d != %d' % (x['rank'], x['useful_ns'], w, x['time_ns']))
    if not x['finished']: bad.append('rank %d not finished' % x['rank'])
if not cp['complete'] or cp['undecided_calls']: bad.append('not complete: %d undecided' % cp['undecided_calls'])
segs = cp['segments']
if len(segs) < 2: bad.append('%d segments' % len(segs))
# in time order (give or take the clock alignment's error between ranks: 1 ms), hops named
for a, b in zip(segs, segs[1:]):
    if a['from_ns'] > b['from_ns'] + 1000000 or not a['what'].startswith('MPI_'): bad.append('segment order/what: %s then %s' % (a, b)); break
for m, v in cp['measures'].items():
    if v['volumetric'] > v['per_process'] + 1: bad.append('%s: volumetric above per process' % m)
print('; '.join(bad))
print('path %d ns, largest rank %d ns, wall %d ns, %d segments' % (rt, tmax, wall, len(segs)), file=sys.stderr)
PY
)
[ -z "$r" ] || soft_fail "$r"
