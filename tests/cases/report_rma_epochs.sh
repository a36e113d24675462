# report_rma_epochs: the less common one-sided epochs and windows
# (tests/programs/rep_rma_epochs.c; 4 ranks, both MPIs, through mpilens run):
# post-start-complete-wait with MPI_Win_test polling, a fence epoch with an
# MPI_Put to MPI_PROC_NULL, MPI_Win_allocate_shared on a communicator in
# reverse rank order with MPI_Raccumulate / MPI_Rget_accumulate completed by
# MPI_Wait, MPI_Win_create_dynamic with attached memory.  The program prints
# every rank's one-sided calls (target's world rank, -1 for MPI_PROC_NULL;
# origin count x type size as passed; bytes moved: 0 to MPI_PROC_NULL).
# By hand, per rank: odd ranks 12 (Put 3 ints) + 16 (Get 2 doubles) in PSCW;
# every rank a Put of 4 ints to MPI_PROC_NULL (passed 16, moves 0), an
# Accumulate of 5 ints (20), a Put of 1 double (8), Raccumulate 2 doubles
# (16), Rget_accumulate 3 doubles (24), a Put of 2 longs (16).  So over 4
# ranks MPI_Put moves 2 x 12 + 4 x (0 + 8 + 16) = 120 B, MPI_Get 32,
# MPI_Accumulate 80, MPI_Raccumulate 64, MPI_Rget_accumulate 96.
# dump shows each call with its target (PROC_NULL) and the bytes passed;
# report --json counts the bytes moved per routine and per site (as for
# point-to-point, nothing to MPI_PROC_NULL); the MPI_Waits of the one-sided
# requests receive nothing (MPI_Wait 0 bytes, 0 receives: MPICH's status
# of such a request has count and source set); no messages, no findings;
# report --critical-path and export --format=perfetto succeed, the latter
# with one rma slice per call.
# Before: the report counted MPI_Put to MPI_PROC_NULL's 16 bytes (MPI_Put
# 184 B, not 120).
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_rma_epochs) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 4 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: rep_rma_epochs failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^rep_rma_epochs: done' "$d/out" || { soft_fail "$impl: rep_rma_epochs: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$impl: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    "$MPILENS" report --critical-path "$d/run" >"$d/cp.txt" 2>"$d/cp.err" ||
        { soft_fail "$impl: report --critical-path failed: $(head -c 300 "$d/cp.err")"; continue; }
    "$MPILENS" export --format=perfetto -o "$d/tr.json" "$d/run" >/dev/null 2>"$d/exp.err" ||
        { soft_fail "$impl: export --format=perfetto failed: $(head -c 300 "$d/exp.err")"; continue; }
    for r in 0 1 2 3; do
        "$MPILENS" dump "$d/run/rank-0000$r.mlt" >"$d/dump$r" 2>"$d/dump.err" ||
            { soft_fail "$impl: dump of rank $r failed: $(head -c 300 "$d/dump.err")"; continue 2; }
    done
    r=$(python3 - "$d" <<'PY'
import json, re, sys
d = sys.argv[1]
bad = []
want = {}            # rank -> [(routine, target, passed, moved)] in call order
for l in open(f'{d}/out'):
    m = re.match(r'expect (\d+) (\S+) (-?\d+) (\d+) (\d+)$', l)
    if m: want.setdefault(int(m[1]), []).append((m[2], int(m[3]), int(m[4]), int(m[5])))
if sorted(want) != [0, 1, 2, 3] or [len(want[r]) for r in range(4)] != [6, 8, 6, 8]:
    print(f'the program printed {[len(v) for v in want.values()]} expect lines'); sys.exit(0)
rma = {'MPI_Put', 'MPI_Get', 'MPI_Accumulate', 'MPI_Raccumulate', 'MPI_Rget_accumulate'}
for r in range(4):
    got = []
    for l in open(f'{d}/dump{r}'):
        f = l.split()
        if len(f) > 4 and f[4] in rma:
            kv = dict(x.split('=', 1) for x in f[6:] if '=' in x)
            t = kv.get('target', '?')
            got.append((f[4], -1 if t == 'PROC_NULL' else int(t) if t.isdigit() else t, int(kv.get('bytes', -1))))
    w = [(n, t, p) for (n, t, p, m) in want[r]]
    if got != w: bad.append(f'dump rank {r}: {got}, want {w}')
rep = json.load(open(f'{d}/rep.json'))
rb = {x['routine']: x['bytes'] for x in rep['routines']}
for n in sorted(rma):
    w = sum(m for r in range(4) for (x, t, p, m) in want[r] if x == n)
    if rb.get(n) != w: bad.append(f'report: {n} {rb.get(n)} bytes, want {w}')
    s = sum(x['bytes'] for x in rep['sites'] if x['routine'] == n)
    if s != w: bad.append(f'report: {n} sites {s} bytes, want {w}')
if rb.get('MPI_Wait') != 0: bad.append(f'report: MPI_Wait {rb.get("MPI_Wait")} bytes, want 0')
m = rep['messages']
g = (m['matched'], m['sends'], m['receives'], m['unmatched_sends'], m['unmatched_receives'], m['pending_receives'])
if g != (0, 0, 0, 0, 0, 0): bad.append(f'report messages (matched, sends, receives, unmatched sends, receives, pending) {g}, want all 0')
if rep['findings']: bad.append(f'report findings {[f["kind"] for f in rep["findings"]][:5]}, want none')
ev = json.load(open(f'{d}/tr.json'))
ev = ev['traceEvents'] if isinstance(ev, dict) else ev
n = sum(1 for e in ev if e.get('cat') == 'rma')
if n != 28: bad.append(f'perfetto: {n} rma slices, want 28')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl: $r"
    grep -q 'Critical path' "$d/cp.txt" || soft_fail "$impl: report --critical-path has no critical path section"
done
