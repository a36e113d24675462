# report_vbytes: bytes of the collectives with count arrays and of the
# neighbourhood collectives (tests/programs/rep_vbytes.c, and the same
# v-collectives from Fortran, rep_vbytes.f90; 4 ranks, both MPIs, through
# mpilens run).  The program prints what each rank's buffers send
# and receive per call, worked out from its own arguments; the recording
# (dump: bytes= rbytes= per call), report --json (routines[].bytes,
# sites[].bytes, matrix.collectives per rank) and the OTF2 export
# (MPI_COLLECTIVE_END Sent/Received per rank, otf2-print) must say the same.
# Before the fix the runtime recorded 0 for every count array: MPI_Alltoallv
# 0 bytes, MPI_Gatherv's root received 0, MPI_Scatterv's root sent 0,
# MPI_Reduce_scatter 0, a neighbourhood collective one block instead of one
# per neighbour.  A non-periodic Cartesian neighbourhood's MPI_PROC_NULL
# neighbours counted as blocks moved (the end ranks of a line sent and
# received twice what they did).  Open MPI's Fortran binding calls PMPI_ itself: its calls
# are recorded by the Fortran wrapper, which recorded the scalar counts only.
need_mpilens
for impl in openmpi mpich; do
for name in rep_vbytes rep_vbytes_f90; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl $name) || continue
    d=$TEST_TMP/$impl/$name
    what="$impl $name"
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 4 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$what: rep_vbytes failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^rep_vbytes: done' "$d/out" || { soft_fail "$what: rep_vbytes: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$what: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    for r in 0 1 2 3; do
        "$MPILENS" dump "$d/run/rank-0000$r.mlt" >"$d/dump$r" 2>"$d/dump.err" ||
            { soft_fail "$what: dump of rank $r failed: $(head -c 300 "$d/dump.err")"; continue 2; }
    done
    "$MPILENS" export --format=otf2 -o "$d/tr" "$d/run" >/dev/null 2>"$d/exp.err" ||
        { soft_fail "$what: export --format=otf2 failed: $(head -c 300 "$d/exp.err")"; continue; }
    command -v otf2-print >/dev/null || { fail "otf2-print missing (setup.sh deps installs otf2-tools)"; continue; }
    otf2-print "$d/tr.otf2" >"$d/otf2.txt" 2>"$d/otf2.err" || { soft_fail "$what: otf2-print failed: $(head -c 300 "$d/otf2.err")"; continue; }
    r=$(python3 - "$d" "$name" <<'PY'
import json, re, sys
d = sys.argv[1]
# the program's closing MPI_Gather to rank 0 of its expectations: 2 x 12 longs (C), 2 x 7 INTEGER*8 (Fortran)
nr, closing = (7, 112) if sys.argv[2].endswith('_f90') else (12, 192)
bad = []
want = {}                                   # rank -> [(routine, sent, received)] in call order
for l in open(f'{d}/out'):
    m = re.match(r'expect (\d+) (\S+) (\d+) (\d+)$', l)
    if m: want.setdefault(int(m[1]), []).append((m[2].replace('(in_place)', ''), int(m[3]), int(m[4])))
if sorted(want) != [0, 1, 2, 3] or any(len(v) != nr for v in want.values()):
    print(f'the program printed {sum(len(v) for v in want.values())} expect lines'); sys.exit(0)
names = {w[0] for w in want[0]}
# the recording: the routines' records in call order
for r in range(4):
    got = []
    for l in open(f'{d}/dump{r}'):
        f = l.split()
        if len(f) > 4 and f[4] in names:
            kv = dict(x.split('=', 1) for x in f[6:] if '=' in x)
            got.append((f[4], int(kv.get('bytes', -1)), int(kv.get('rbytes', -1))))
    if got != want[r]: bad.append(f'rank {r} recorded {got}, want {want[r]}')
rep = json.load(open(f'{d}/rep.json'))
rb = {x['routine']: x['bytes'] for x in rep['routines']}
for n in sorted(names):
    w = sum(s + q for r in range(4) for (m, s, q) in want[r] if m == n)
    if rb.get(n) != w: bad.append(f'report: {n} {rb.get(n)} bytes, want {w}')
alltoallv = sorted(x['bytes'] for x in rep['sites'] if x['routine'] == 'MPI_Alltoallv')
w = sorted(sum(s + q for r in range(4) for (m, s, q) in [want[r][k]]) for k in range(nr) if want[0][k][0] == 'MPI_Alltoallv')
if alltoallv != w: bad.append(f'report: MPI_Alltoallv sites {alltoallv} bytes, want {w}')
# matrix.collectives: these calls and the program's closing MPI_Gather to rank 0
coll = {c['rank']: (c['sent'], c['received']) for c in rep['matrix']['collectives']}
for r in range(4):
    w = (sum(s for _, s, _ in want[r]) + closing, sum(q for _, _, q in want[r]) + (4 * closing if r == 0 else 0))
    if coll.get(r) != w: bad.append(f'report: rank {r} collectives sent/received {coll.get(r)}, want {w}')
# OTF2: per location, the collective ends in order, the closing MPI_Gather left out
ends = {}
for l in open(f'{d}/otf2.txt'):
    m = re.match(r'MPI_COLLECTIVE_END\s+(\d+)\s+\d+\s.*Sent: (\d+), Received: (\d+)', l)
    if m: ends.setdefault(int(m[1]), []).append((int(m[2]), int(m[3])))
for r in range(4):
    w = [(s, q) for _, s, q in want[r]]
    g = [x for x in ends.get(r, []) if x != (0, 0)][:len(w)]
    if g != w: bad.append(f'otf2 rank {r}: collective ends {g}, want {w}')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$what: $r"
done
done
