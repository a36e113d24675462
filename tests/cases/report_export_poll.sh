# report_export_poll: a poll loop in the exports (tests/programs/poll_repeat.c
# test: rank 0 calls MPI_Test on a posted receive until rank 1, which sleeps
# 1.5 s after MPI_Init, sends; Open MPI and MPICH).  The runtime keeps the
# run of unsuccessful MPI_Test calls as one record and a REPEAT.
# By hand: rank 0 is inside its MPI_Test loop from its first call until the
# message arrives, about 1.5 s (at least 1 s, whatever the skew of the two
# ranks' MPI_Init); the Perfetto slice of the run goes from the first call's
# start to the last one's end (docs/REPORT.md), and the OTF2 archive must say
# the same: for each rank and call, an ENTER/LEAVE pair at exactly the
# Perfetto slice's start and end (both in ns from the run's first call), so
# rank 0's MPI_Test time is at least 1 s in both.  The OTF2 pair ended with
# the first call (about 1 us): Vampir showed the loop as application time.
# timeout: 120
need_mpilens
command -v otf2-print >/dev/null || fail "otf2-print missing (./setup.sh deps installs otf2-tools)"
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl poll_repeat) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    mpilens_run $impl "$d/run" 2 "$p" test >"$d/out" 2>&1 ||
        { soft_fail "$impl: poll_repeat failed: $(head -c 300 "$d/out")"; continue; }
    "$MPILENS" export -q --format=otf2 "$d/run" -o "$d/otf2/t" 2>"$d/err" ||
        { soft_fail "$impl: otf2 export: $(head -c 300 "$d/err")"; continue; }
    "$MPILENS" export -q --format=perfetto "$d/run" -o "$d/t.json" 2>"$d/err" ||
        { soft_fail "$impl: perfetto export: $(head -c 300 "$d/err")"; continue; }
    otf2-print "$d/otf2/t.otf2" >"$d/evts.txt" 2>&1 || { soft_fail "$impl: otf2-print failed"; continue; }
    r=$(python3 - "$d/evts.txt" "$d/t.json" <<'PY'
import json, sys
from collections import defaultdict
bad = []
otf2, start = defaultdict(list), {}
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) > 3 and f[0] in ('ENTER', 'LEAVE') and f[1].isdigit():
        loc, ts, name = int(f[1]), int(f[2]), l.split('"')[1]
        if f[0] == 'ENTER': start[loc] = ts
        else: otf2[loc].append((start.pop(loc), ts, name))
ns = lambda v: round(float(v) * 1000)
pf = defaultdict(list)
for e in json.load(open(sys.argv[2]))['traceEvents']:
    if e['ph'] == 'X' and e['tid'] == 0: pf[e['pid']].append((ns(e['ts']), ns(e['ts']) + ns(e['dur']), e['name']))
for rank in (0, 1):
    a, b = sorted(otf2[rank]), sorted(pf[rank])
    if a != b:
        diff = [(x, y) for x, y in zip(a, b) if x != y][:2]
        bad.append(f'rank {rank}: {len(a)} OTF2 calls, {len(b)} Perfetto slices, differing: {diff}')
for name, got in (('otf2', otf2[0]), ('perfetto', pf[0])):
    t = sum(t1 - t0 for t0, t1, n in got if n == 'MPI_Test')
    if t < 1e9: bad.append(f'{name}: rank 0 in MPI_Test {t / 1e9:.6f} s, want at least 1 s')
print('; '.join(bad))
PY
)
    [ -z "$r" ] && note "$impl: the MPI_Test loop is one call of about 1.5 s in both exports" || soft_fail "$impl: $r"
done
