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
        note "$impl -n $n: $expect"
    done
done
