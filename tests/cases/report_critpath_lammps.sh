# report_critpath_lammps: the critical path of a real program, LAMMPS
# (Debian's lmp) on the bundled 3d Lennard-Jones melt, 4 ranks through
# `mpilens run`: the path's run time lies between the largest rank's time
# and the wall time of the run; communication + computation on it = its run
# time; waiting + useful time = each rank's time; every partner found
# (complete, nothing undecided); the path is a chain of segments in time
# order whose hops name MPI routines.  The text (--critical-path, default
# width): every line within 100 columns; the window named for what it is
# (MPI_Init to MPI_Finalize, also in the JSON); a line saying that each
# measure has its own path; LAMMPS's long C++ call sites fitted, never cut
# mid-name: each code region shows both its call sites with their function's
# own name and offset whole, each "leaves by" cell its hop whole, each waiting
# row a whole MPI routine name.  --from/--to name the window so.
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
"$MPILENS" report --critical-path -q "$TEST_TMP/run" >"$TEST_TMP/cp.txt" 2>"$TEST_TMP/cp.err" ||
    fail "report --critical-path failed: $(head -c 300 "$TEST_TMP/cp.err")"
r=$(python3 - "$TEST_TMP/rep.json" "$TEST_TMP/cp.txt" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
cp, ws = rep['critical_path'], rep['wait_states']
text = open(sys.argv[2]).read()
lines = text.split('\n')
bad = []
for l in lines:
    if len(l) > 100: bad.append('line of %d columns: %r' % (len(l), l))
if cp['window'].get('from') != 'MPI_Init' or cp['window'].get('to') != 'MPI_Finalize':
    bad.append('JSON window from/to: %s' % cp['window'])
if '(the whole run: MPI_Init to MPI_Finalize)' not in text: bad.append('window not named the whole run, MPI_Init to MPI_Finalize')
if 'each measure is taken along its own longest path' not in text: bad.append('no line saying each measure has its own path')
def own(site):   # a call site's function name and offset (or file:line): what fitting keeps
    m = re.match(r'^(.*?)(\+0x[0-9a-f]+)?(\([^()]*\))?$', site)
    head, off = m.group(1), m.group(2) or ''
    if ':' in head and '(' not in head and re.search(r':\d+$', head): return head.split('/')[-1], ''
    name = re.sub(r'\(.*$', '', head).split('::')[-1]
    return name, off
# code regions: the rows under their heading, up to the next heading
i = next(k for k, l in enumerate(lines) if 'by code region' in l)
rows = []
for l in lines[i + 1:]:
    if not l.startswith('    '): break
    rows.append(l)
regions = [x['region'] for x in cp['measures']['runtime']['by_region']]
if not rows or not regions: bad.append('no code regions')
for l in rows:
    if l.rstrip().endswith('->'): continue   # a region that did not fit: its first site on a line of its own
    cell = re.sub(r'\s+\S+ \S+\s+\S+%$', '', l.strip())
    if ' -> ' not in cell: bad.append('region cut: %r' % l); continue
    a, b = cell.split(' -> ', 1)
    ok = False
    for g in regions:
        ga, gb = g.split(' -> ', 1)
        (na, oa), (nb, ob) = own(ga), own(gb)
        if na in a and oa in a and nb in b and ob in b: ok = True; break
    if not ok: bad.append('region row matches no region with its names whole: %r' % l)
# longest segments: the hop whole
segs = {s['what'] for s in cp['segments']}
sites = {s['site'] for s in cp['segments'] if s['site']}
i = next(k for k, l in enumerate(lines) if 'leaves by' in l)
def site_whole(t):
    for g in sites:
        n, o = own(g)
        if n in t and o in t: return True
    return False
for l in lines[i + 1:]:
    if not l.startswith('    ') or 'path time per rank' in l: break
    if l.strip().startswith('at '):   # a call site below its row
        if not site_whole(l.strip()[3:]): bad.append('call site cut: %r' % l)
        continue
    m = re.match(r'^\s+\d+\s+\S+ \S+\s+\S+ \S+\s+\S+ \S+\s+(.*)$', l)
    if not m: bad.append('segment row %r' % l); continue
    what = re.sub(r' at .*$', '', m.group(1))
    if what not in segs: bad.append('hop %r is not a whole segment name' % what)
    if ' at ' in m.group(1) and not site_whole(m.group(1).split(' at ', 1)[1]): bad.append('call site cut: %r' % l)
# where ranks waited: whole routine names
routines = {x['routine'] for k in ('late_sender', 'late_receiver', 'collective', 'completion') for x in ws[k]['by_site']}
i = next((k for k, l in enumerate(lines) if l.strip() == 'where ranks waited:'), None)
if i is None: bad.append('no waiting table')
else:
    for l in lines[i + 2:]:
        m = re.match(r'^    (late sender|late receiver|collective|completion)\s+\d+\s+.*?\s(MPI_\S+)\s+-?\d+\s', l)
        if not m: continue
        if m.group(2) not in routines: bad.append('routine %r cut' % m.group(2))
print('; '.join(bad[:6]))
PY
)
[ -z "$r" ] || soft_fail "text: $r"
# a window from the command line is named so
# a window inside the run whatever its length (0.6 s to 2 s depending on the machine): its second quarter to third
read -r wf wt <<EOF2
$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["critical_path"]["window"]; d=(w["to_ns"]-w["from_ns"])/1e9; print("%.3f %.3f" % (d*0.25, d*0.75))' "$TEST_TMP/rep.json")
EOF2
"$MPILENS" report --critical-path -q --from "$wf" --to "$wt" "$TEST_TMP/run" >"$TEST_TMP/cpw.txt" 2>"$TEST_TMP/cpw.err" ||
    fail "report --from --to failed: $(head -c 300 "$TEST_TMP/cpw.err")"
grep -q "(--from to --to)" "$TEST_TMP/cpw.txt" || soft_fail "--from/--to window named $(grep -A1 '^  window' "$TEST_TMP/cpw.txt")"
w=$("$MPILENS" report --json -q --from "$wf" "$TEST_TMP/run" | python3 -c 'import json,sys; w=json.load(sys.stdin)["critical_path"]["window"]; print(w.get("from"), w.get("to"))')
[ "$w" = "--from MPI_Finalize" ] || soft_fail "--from window: from/to $w, want --from MPI_Finalize"
