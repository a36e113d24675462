# report_matrix: the communication matrix and the per-rank call-site
# statistics of mpilens report (tests/programs/rep_matrix.c, 4 ranks, both
# MPIs).  --json: matrix.pairs is exactly the program's traffic (rank r sends
# r+1 messages of (r+1)*100 bytes to r+1 mod 4, rank 0 one of 7 bytes to
# 2), matrix.collectives gives each rank its bytes by role (MPI_Bcast of 40
# bytes from root 1, MPI_Allreduce of 24); every call site has one per_rank
# row per calling rank, rank r's MPI_Send site r+1 calls, min <= mean <= max,
# rank_min/rank_mean/rank_max/rank_cv agree with the rows, app/mpi_percent
# with the ranks' app_ns/mpi_ns (null for MPI_Init and MPI_Finalize).  The text report shows the grid (from 0 to
# 1: 100 B), the pair list and the per-rank call-site table.
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_matrix) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && rt_mpi $impl "$d/run" 4 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: rep_matrix failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^rep_matrix: done' "$d/out" || { soft_fail "$impl: rep_matrix: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$impl: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>"$d/rep.err" ||
        { soft_fail "$impl: report failed: $(head -c 300 "$d/rep.err")"; continue; }
    r=$(python3 - "$d/rep.json" "$d/rep.txt" <<'PY'
import json, math, re, sys
rep = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
bad = []
mx = rep.get('matrix')
if mx is None:
    print('no "matrix" in report --json'); sys.exit(0)
got = {(p['src'], p['dst']): (p['messages'], p['bytes']) for p in mx['pairs']}
want = {(r, (r + 1) % 4): (r + 1, (r + 1) * (r + 1) * 100) for r in range(4)}
want[(0, 2)] = (1, 7)
if got != want: bad.append(f'matrix pairs {sorted(got.items())}, want {sorted(want.items())}')
coll = {c['rank']: (c['sent'], c['received']) for c in mx['collectives']}
wantc = {r: (40 + 24, 24) if r == 1 else (24, 40 + 24) for r in range(4)}
if coll != wantc: bad.append(f'collective bytes by rank {coll}, want {wantc}')
ranks = {r['rank']: r for r in rep['ranks']}
app_all = sum(r['app_ns'] for r in rep['ranks'])
mpi_all = sum(r['mpi_ns'] for r in rep['ranks'])
close = lambda a, b: abs(a - b) <= 1e-4 * max(1.0, abs(b))
sends = None
for s in rep['sites']:
    rows = s['per_rank']
    if len(rows) != s['ranks'] or len({x['rank'] for x in rows}) != len(rows):
        bad.append(f'{s["site"]} {s["routine"]}: {len(rows)} per_rank rows for {s["ranks"]} ranks'); continue
    if sum(x['calls'] for x in rows) != s['calls']: bad.append(f'{s["site"]}: per_rank calls do not add up')
    t = [x['total_ns'] for x in rows]
    mean = sum(t) / len(t)
    sd = math.sqrt(sum((v - mean) ** 2 for v in t) / len(t))
    if s['rank_min_ns'] != min(t) or s['rank_max_ns'] != max(t) or abs(s['rank_mean_ns'] - mean) > 1:
        bad.append(f'{s["site"]} {s["routine"]}: rank min/mean/max {s["rank_min_ns"]}/{s["rank_mean_ns"]}/{s["rank_max_ns"]}, rows say {min(t)}/{mean}/{max(t)}')
    if mean > 0 and abs(s['rank_cv'] - sd / mean) > 1e-4: bad.append(f'{s["site"]}: rank_cv {s["rank_cv"]}, rows say {sd / mean}')
    outside = s['routine'] in ('MPI_Init', 'MPI_Init_thread', 'MPI_Finalize')   # outside the application time: null
    if outside:
        if [s['app_percent'], s['mpi_percent']] + [v for x in rows for v in (x['app_percent'], x['mpi_percent'])] != [None] * (2 + 2 * len(rows)):
            bad.append(f'{s["routine"]}: app/mpi_percent {s["app_percent"]}/{s["mpi_percent"]}, want null')
        continue
    if app_all and not close(s['app_percent'], 100 * s['total_ns'] / app_all): bad.append(f'{s["site"]}: app_percent {s["app_percent"]}')
    if mpi_all and not close(s['mpi_percent'], 100 * s['total_ns'] / mpi_all): bad.append(f'{s["site"]}: mpi_percent {s["mpi_percent"]}')
    for x in rows:
        if not (x['min_ns'] <= x['mean_ns'] <= x['max_ns']): bad.append(f'{s["site"]} rank {x["rank"]}: min/mean/max {x["min_ns"]}/{x["mean_ns"]}/{x["max_ns"]}')
        rk = ranks[x['rank']]
        if rk['app_ns'] and not close(x['app_percent'], 100 * x['total_ns'] / rk['app_ns']): bad.append(f'{s["site"]} rank {x["rank"]}: app_percent {x["app_percent"]}')
        if rk['mpi_ns'] and not close(x['mpi_percent'], 100 * x['total_ns'] / rk['mpi_ns']): bad.append(f'{s["site"]} rank {x["rank"]}: mpi_percent {x["mpi_percent"]}')
    if s['routine'] == 'MPI_Send' and s['ranks'] == 4: sends = {x['rank']: x['calls'] for x in rows}
if sends != {r: r + 1 for r in range(4)}: bad.append(f'the ring MPI_Send site: calls per rank {sends}, want {{0: 1, 1: 2, 2: 3, 3: 4}}')
if not re.search(r'^  from 0 +- +100 B +7 B +- *$', txt, re.M): bad.append('text: no grid row "from 0  -  100 B  7 B  -"')
if not re.search(r'^  3 > 0 +4 +1\.6 KiB *$', txt, re.M): bad.append('text: no pair row "3 > 0  4  1.6 KiB"')
if 'Call sites per rank' not in txt: bad.append('text: no "Call sites per rank" table')
print('; '.join(bad[:6]))
PY
) || r="checker failed"
    [ -z "$r" ] || soft_fail "$impl: $r"
done
