# report_rma: one-sided calls record their target, datatype and origin
# bytes (tests/programs/rep_rma.c, and the same from Fortran, rep_rma.f90;
# 3 ranks, both MPIs, through mpilens run).  The window is made on a
# communicator in reverse rank order: the target is a window rank, shown as
# the world rank it is.  The program prints each rank's calls (target's
# world rank, count x type size of the origin); the recording (dump:
# target= bytes= type= comm= per call), report --json (routines[].bytes,
# sites[].bytes) and the Perfetto export (category rma, target, bytes)
# must say the same, and the one-sided calls are no
# point-to-point messages: exactly the program's one MPI_Send is matched
# (report messages, the OTF2 export's MPI_SEND events).
# Before: the runtime recorded these calls with no target, type or bytes
# (dump showed none, report counted 0 bytes).  Open MPI's Fortran binding
# calls PMPI_ itself: its calls are recorded by the Fortran wrapper.
need_mpilens
for impl in openmpi mpich; do
for name in rep_rma rep_rma_f90; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl $name) || continue
    d=$TEST_TMP/$impl/$name
    what="$impl $name"
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 3 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$what: rep_rma failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^rep_rma: done' "$d/out" || { soft_fail "$what: rep_rma: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$what: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    for r in 0 1 2; do
        "$MPILENS" dump "$d/run/rank-0000$r.mlt" >"$d/dump$r" 2>"$d/dump.err" ||
            { soft_fail "$what: dump of rank $r failed: $(head -c 300 "$d/dump.err")"; continue 2; }
    done
    "$MPILENS" export --format=otf2 -o "$d/tr" "$d/run" >/dev/null 2>"$d/exp.err" ||
        { soft_fail "$what: export --format=otf2 failed: $(head -c 300 "$d/exp.err")"; continue; }
    "$MPILENS" export --format=perfetto -o "$d/tr.json" "$d/run" >/dev/null 2>"$d/exp.err" ||
        { soft_fail "$what: export --format=perfetto failed: $(head -c 300 "$d/exp.err")"; continue; }
    command -v otf2-print >/dev/null || { fail "otf2-print missing (setup.sh deps installs otf2-tools)"; continue; }
    otf2-print "$d/tr.otf2" >"$d/otf2.txt" 2>"$d/otf2.err" || { soft_fail "$what: otf2-print failed: $(head -c 300 "$d/otf2.err")"; continue; }
    r=$(python3 - "$d" <<'PY'
import json, re, sys
d = sys.argv[1]
bad = []
want = {}                                   # rank -> [(routine, target world rank, bytes)] in call order
for l in open(f'{d}/out'):
    m = re.match(r'expect (\d+) (\S+) (\d+) (\d+)$', l)
    if m: want.setdefault(int(m[1]), []).append((m[2], int(m[3]), int(m[4])))
if sorted(want) != [0, 1, 2] or any(len(v) != 8 for v in want.values()):
    print(f'the program printed {sum(len(v) for v in want.values())} expect lines'); sys.exit(0)
names = {w[0] for w in want[0]}
for r in range(3):
    got = []
    for l in open(f'{d}/dump{r}'):
        f = l.split()
        if len(f) > 4 and f[4].upper() in {n.upper() for n in names}:
            kv = dict(x.split('=', 1) for x in f[6:] if '=' in x)
            if 'type' not in kv or 'comm' not in kv: bad.append(f'rank {r}: no type or comm: {l.strip()}')
            got.append((next(n for n in names if n.upper() == f[4].upper()),
                        int(kv.get('target', -1)), int(kv.get('bytes', -1))))
    if got != want[r]: bad.append(f'rank {r} recorded {got}, want {want[r]}')
rep = json.load(open(f'{d}/rep.json'))
rb = {x['routine'].upper(): x['bytes'] for x in rep['routines']}
for n in sorted(names):
    w = sum(b for r in range(3) for (m, t, b) in want[r] if m == n)
    if rb.get(n.upper()) != w: bad.append(f'report: {n} {rb.get(n.upper())} bytes, want {w}')
    s = sum(x['bytes'] for x in rep['sites'] if x['routine'].upper() == n.upper())
    if s != w: bad.append(f'report: {n} sites {s} bytes, want {w}')
m = rep['messages']
g = (m['matched'], m['bytes'], m['sends'], m['unmatched_sends'], m['unmatched_receives'])
if g != (1, 16, 1, 0, 0): bad.append(f'report messages (matched, bytes, sends, unmatched sends, receives) {g}, want (1, 16, 1, 0, 0)')
sends = sum(1 for l in open(f'{d}/otf2.txt') if l.startswith('MPI_SEND '))
if sends != 1: bad.append(f'otf2: {sends} MPI_SEND events, want 1')
# the Perfetto export: category rma, the target as world rank, the origin bytes
ev = json.load(open(f'{d}/tr.json'))
ev = ev['traceEvents'] if isinstance(ev, dict) else ev
got = sorted((e['pid'], e['name'].upper(), e['args'].get('target'), e['args'].get('bytes'))
             for e in ev if e.get('cat') == 'rma')
w = sorted((r, m.upper(), t, b) for r in range(3) for (m, t, b) in want[r])
if got != w: bad.append(f'perfetto: rma slices {got[:4]}..., want {w[:4]}...')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$what: $r"
done
done
