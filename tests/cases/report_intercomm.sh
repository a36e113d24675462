# report_intercomm: an inter-communicator (tests/programs/rep_icc.c: the
# world's two halves joined by MPI_Intercomm_create, the high half in
# reverse order), through mpilens run on both MPIs, 4 and 6 ranks.
# report --json: every message crossing it is matched, matrix.pairs names
# the world ranks that really sent and received; matrix.collectives gives
# each rank the bytes its buffers moved by MPI's rules for
# inter-communicators (MPI_ROOT gives or takes the remote group's data, the
# rest of the root's group passes MPI_PROC_NULL and moves nothing, the
# remote group's members are the non-roots; MPI_Bcast, Reduce, Gather,
# Scatter, Allreduce, Allgather, Alltoall, Barrier).  export --format=otf2:
# otf2-print names the same world ranks for each MPI_SEND's and MPI_ISEND's
# receiver and each MPI_RECV's and MPI_IRECV's sender, and the world rank of the root of each rooted
# collective; export (Perfetto): the root's own calls say root "ROOT"
# (before: "-4 (in comm)" under Open MPI), the rest of its group
# "PROC_NULL", the remote group the root's world rank.
# timeout: 200
need_mpilens
command -v otf2-print >/dev/null || fail "otf2-print missing (setup.sh deps installs otf2-tools)"
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_icc) || continue
    for n in 4 6; do
        d=$TEST_TMP/$impl-$n
        mkdir -p "$d"
        (cd "$d" && mpilens_run $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl -n $n: rep_icc failed: $(head -c 300 "$d/err")"; continue; }
        grep -q '^EXPECT coll=' "$d/out" || { soft_fail "$impl -n $n: no EXPECT line: $(head -c 200 "$d/out")"; continue; }
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl -n $n: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        "$MPILENS" export -q --format=otf2 -o "$d/tr" "$d/run" 2>"$d/exp.err" ||
            { soft_fail "$impl -n $n: export --format=otf2 failed: $(head -c 300 "$d/exp.err")"; continue; }
        "$MPILENS" export -q -o "$d/pf.json" "$d/run" 2>"$d/pf.err" ||
            { soft_fail "$impl -n $n: export (Perfetto) failed: $(head -c 300 "$d/pf.err")"; continue; }
        otf2-print "$d/tr.otf2" >"$d/otf2.txt" 2>"$d/otf2.err" ||
            { soft_fail "$impl -n $n: otf2-print failed: $(head -c 300 "$d/otf2.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$d/out" "$d/otf2.txt" $n "$d/pf.json" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
exp = dict(l.split()[1].split('=', 1) for l in open(sys.argv[2]) if l.startswith('EXPECT'))
otf, n = open(sys.argv[3]).read().splitlines(), int(sys.argv[4])
bad = []
pairs = {}
for x in exp['pairs'].split(','):
    s, t, m, b = map(int, x.split(':'))
    pairs[(s, t)] = (m, b)
m = rep['messages']
for k, want in (('matched', sum(m for m, _ in pairs.values())), ('bytes', sum(b for _, b in pairs.values())),
                ('unmatched_sends', 0), ('unmatched_receives', 0), ('pending_receives', 0)):
    if m[k] != want: bad.append(f'messages.{k} {m[k]}, want {want}')
got = {(p['src'], p['dst']): (p['messages'], p['bytes']) for p in rep['matrix']['pairs']}
if got != pairs: bad.append(f'matrix pairs {sorted(got.items())}, want {sorted(pairs.items())}')
coll = {c['rank']: (c['sent'], c['received']) for c in rep['matrix']['collectives']}
want = {}
for x in exp['coll'].split(','):
    r, s, q = map(int, x.split(':'))
    want[r] = (s, q)
if coll != want: bad.append(f'collective bytes by rank (sent, received) {sorted(coll.items())}, want {sorted(want.items())}')
if rep['collectives']['incomplete'] or rep['findings']:
    bad.append(f"findings {[f['text'] for f in rep['findings']][:3]}")
# otf2-print: "MPI_SEND  <loc>  <time>  Receiver: k ("rank W thread 0" <W>), ..."
ws, wr = {}, {}
for l in otf:
    f = re.match(r'MPI_(I?)(SEND|RECV)\s+(\d+)\s+\d+\s+(?:Receiver|Sender): \d+ \("rank (\d+) thread', l)
    if f:
        k = (f[1] + f[2], int(f[3]), int(f[4])) if f[2] == 'SEND' else (f[1] + f[2], int(f[4]), int(f[3]))
        (ws if f[2] == 'SEND' else wr)[k] = (ws if f[2] == 'SEND' else wr).get(k, 0) + 1
want_s = {(kind, s, t): 1 for s, t in pairs for kind in ('SEND', 'ISEND')}
want_r = {(kind, s, t): 1 for s, t in pairs for kind in ('RECV', 'IRECV')}
if ws != want_s: bad.append(f'otf2 MPI_(I)SEND sender->receiver {sorted(ws)}, want {sorted(want_s)}')
if wr != want_r: bad.append(f'otf2 MPI_(I)RECV sender->receiver {sorted(wr)}, want {sorted(want_r)}')
# roots: MPI_Bcast and MPI_Reduce at world rank 1 (the low half's rank 1), Gather and Scatter at world n-1
roots = {}
for l in otf:
    f = re.match(r'MPI_COLLECTIVE_END\s+(\d+)\s+\d+\s+Operation: (\w+), .*Root: (?:\d+ \("rank (\d+) thread|(NONE))', l)
    if f and f[2] in ('BCAST', 'REDUCE', 'GATHER', 'SCATTER') and '(inter,' in l:
        roots.setdefault(f[2], set()).add(int(f[3]) if f[3] else None)
wroot = {'BCAST': {1, None}, 'REDUCE': {1, None}, 'GATHER': {n - 1, None}, 'SCATTER': {n - 1, None}}
if roots != wroot: bad.append(f'otf2 roots {roots}, want {wroot} (None: a member of the root group passing MPI_PROC_NULL)')
# Perfetto: each rank's root argument of the rooted collectives across the inter-communicator
pf = json.load(open(sys.argv[5]))
pf = pf['traceEvents'] if isinstance(pf, dict) else pf
h = n // 2
got = {}
for e in pf:
    a = e.get('args') or {}
    if e.get('ph') == 'X' and e.get('name') in ('MPI_Bcast', 'MPI_Reduce', 'MPI_Gather', 'MPI_Scatter') \
            and '(inter,' in str(a.get('comm')):
        got[(e['name'], e['pid'])] = a.get('root')
want = {}
for name, root, group in (('MPI_Bcast', 1, range(h)), ('MPI_Reduce', 1, range(h)),
                          ('MPI_Gather', n - 1, range(h, n)), ('MPI_Scatter', n - 1, range(h, n))):
    for w in range(n):
        want[(name, w)] = 'ROOT' if w == root else 'PROC_NULL' if w in group else root
if got != want: bad.append(f'perfetto roots {sorted(set(got.items()) - set(want.items()))}, want {sorted(set(want.items()) - set(got.items()))}')
print('; '.join(bad))
PY
)
        [ -z "$r" ] || soft_fail "$impl -n $n: $r"
        rm -rf "$d/run" "$d/tr" "$d/tr.otf2" "$d/tr.def" "$d/pf.json"
    done
done
