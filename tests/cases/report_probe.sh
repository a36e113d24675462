# report_probe: messages taken with MPI_Improbe + MPI_Mrecv/MPI_Imrecv (wildcard
# source and tag, MPI_STATUS_IGNORE, an Improbe that finds nothing, one on
# MPI_PROC_NULL), MPI_Mprobe + MPI_Mrecv, and MPI_Isendrecv /
# MPI_Isendrecv_replace with wildcard receive halves (where the library has
# them: MPICH; skipped on Open MPI 4.1) are paired (tests/programs/rep_probe.c).
# On both MPIs, 3 and 4 ranks: matched messages and bytes equal the
# program's count, nothing unmatched, pending or unresolved, no finding.
# Where the library completes an MPI_Isendrecv without the receive's status
# (MPICH 4.0.2; the program finds out and says status=0) a wildcard receive
# half cannot be resolved: then exactly those messages (wild=, wild_bytes=)
# are unresolved receives and unmatched sends, and everything else matches.
# dump: there, the completion of an MPI_Isendrecv(_replace) request shows
# its handle alone (done=0xH), not the status MPICH left (before: e.g.
# 'done=0xH/1/14/128 peer=1 tag=14 bytes=128' for a message of 12 bytes
# with tag 2); where the status is the receive's, HANDLE/peer/tag/bytes.
# timeout: 200
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_probe) || continue
    for n in 3 4; do
        d=$TEST_TMP/$impl-$n
        mkdir -p "$d"
        (cd "$d" && rt_mpi $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl -n $n: failed: $(head -c 300 "$d/err")"; continue; }
        expect=$(grep '^EXPECT' "$d/out") || { soft_fail "$impl -n $n: no EXPECT line"; continue; }
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl -n $n: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$expect" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = {k: int(v) for k, v in (kv.split('=') for kv in sys.argv[2].split()[1:])}
m = rep['messages']
lost = exp['wild'] if exp['isendrecv'] and not exp['status'] else 0
lost_bytes = exp['wild_bytes'] if lost else 0
checks = [
    ('matched', m['matched'], exp['messages'] - lost),
    ('bytes', m['bytes'], exp['bytes'] - lost_bytes),
    ('sends', m['sends'], exp['messages']),
    ('receives', m['receives'], exp['messages']),
    ('unmatched_sends', m['unmatched_sends'], lost),
    ('unmatched_send_bytes', m['unmatched_send_bytes'], lost_bytes),
    ('unresolved_receives', m['unresolved_receives'], lost),
    ('unmatched_receives', m['unmatched_receives'], 0),
    ('pending_receives', m['pending_receives'], 0),
    ('size_mismatch findings', sum(f['kind'] == 'size_mismatch' for f in rep['findings']), 0),
]
if not lost:
    checks.append(('findings', len(rep['findings']), 0))
else:
    kinds = sorted(set(f['kind'] for f in rep['findings']))
    checks.append(('finding kinds', kinds, ['unmatched_send', 'unresolved_receive']))
bad = ['%s: got %s, want %s' % c for c in checks if c[1] != c[2]]
if not lost:
    bad += ['finding: ' + f['text'] for f in rep['findings'][:3]]
print('; '.join(bad))
PY
)
        [ -z "$r" ] || soft_fail "$impl -n $n: $r"
        # MPI_Improbe that found a message carries it (req=), one that did not does not
        found=$("$MPILENS" dump "$d/run" | awk '$5 == "MPI_Improbe" && / req=/' | wc -l)
        [ "$found" -ge $((3 * n)) ] || soft_fail "$impl -n $n: $found MPI_Improbe records with a message, want >= $((3 * n))"
        "$MPILENS" dump --no-header "$d/run" >"$d/dump" 2>/dev/null || soft_fail "$impl -n $n: dump failed"
        r=$(python3 - "$d/dump" "$expect" <<'PY'
import sys
exp = {k: int(v) for k, v in (kv.split('=') for kv in sys.argv[2].split()[1:])}
made = {}     # (rank, handle) -> the routine that made the request last
bad, n = [], 0
for l in open(sys.argv[1]):
    f = l.split()
    kv = [x for x in f[6:] if '=' in x]
    for x in kv:
        if x.startswith('done='):
            for h in x[5:].split(','):
                if made.get((f[0], h.split('/')[0]), '').startswith('MPI_Isendrecv'):
                    n += 1
                    if (exp['status'] == 0) != ('/' not in h): bad.append(' '.join(f[4:])[:150])
    for x in kv:
        if x.startswith('req='): made[(f[0], x[4:])] = f[4]
if exp['isendrecv'] and not n: bad.append('no completion of an MPI_Isendrecv request')
print('; '.join(bad[:2]))
PY
)
        [ -z "$r" ] || soft_fail "$impl -n $n: dump: MPI_Isendrecv completions: $r"
        # messages taken by MPI_Mrecv/MPI_Imrecv on a communicator of reversed
        # ranks (rep_probe.c reversed_probes): every rank r receives from its
        # world left neighbour (r-1+n)%n, which is comm rank n-1-left there,
        # tags 720..725 of 3, 4, 5, 2 doubles and 1, 2 ints = 24, 32, 40, 16,
        # 4, 8 bytes.  The MPI_Imrecv lines (720, 721, 724, 725) and MPI_Mrecv
        # lines (722, 723) say comm, peer (world), tag and bytes; the four
        # Imrecv requests' completions done=H/SRC/TAG/BYTES the world source
        # (before: Open MPI '/?/' with 'peer=<comm rank>@comm', the request
        # unknown; MPICH the same after MPI_Mprobe; MPI_Mrecv/MPI_Imrecv lines
        # without any field)
        r=$(python3 - "$d/dump" $n <<'PY'
import sys
n = int(sys.argv[2])
size = {720: 24, 721: 32, 722: 40, 723: 16, 724: 4, 725: 8}
routine = {720: 'MPI_Imrecv', 721: 'MPI_Imrecv', 722: 'MPI_Mrecv', 723: 'MPI_Mrecv', 724: 'MPI_Imrecv',
           725: 'MPI_Imrecv'}
seen, done, bad = {}, {}, []
made = {}     # (rank, handle) -> the routine that made the request last
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) < 6: continue
    r = int(f[0])
    left = str((r - 1 + n) % n)
    kv = dict(x.split('=', 1) for x in f[6:] if '=' in x)
    if 'req' in kv: made[r, kv['req']] = f[4]
    if f[4] in ('MPI_Imrecv', 'MPI_Mrecv'):
        t = int(kv.get('tag', -1))
        if t in size:
            seen[r, t] = seen.get((r, t), 0) + 1
            want = (routine[t], left, str(size[t]))
            if (f[4], kv.get('peer'), kv.get('bytes')) != want or not kv.get('comm', '').startswith('MPI_Comm_split'):
                bad.append('rank %d: %s' % (r, ' '.join(f[4:])[:160]))
    for h in kv.get('done', '').split(','):
        p = h.split('/')
        # (not the sends': MPICH and Open MPI give the same handle to sends
        # that completed at once)
        if len(p) == 4 and p[2].isdigit() and int(p[2]) in size and made.get((r, p[0])) != 'MPI_Isend':
            t = int(p[2])
            done[r, t] = done.get((r, t), 0) + 1
            if (p[1], p[3]) != (left, str(size[t])): bad.append('rank %d: completion %s, want source %s' % (r, h, left))
for r in range(n):
    for t in size:
        if seen.get((r, t), 0) != 1:
            bad.append('rank %d: %d %s lines with tag %d, want 1' % (r, seen.get((r, t), 0), routine[t], t))
        if routine[t] == 'MPI_Imrecv' and done.get((r, t), 0) != 1:
            bad.append('rank %d: %d completions with tag %d, want 1' % (r, done.get((r, t), 0), t))
print('; '.join(bad[:4]))
PY
)
        [ -z "$r" ] || soft_fail "$impl -n $n: dump: MPI_Mrecv/MPI_Imrecv: $r"
        note "$impl -n $n: $expect"
    done
done
