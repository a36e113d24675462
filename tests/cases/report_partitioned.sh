# report_partitioned: MPI 4.0 partitioned messages (tests/programs/rep_part.c,
# MPICH: MPI_Psend_init/MPI_Precv_init, MPI_Start, MPI_Pready,
# MPI_Parrived, MPI_Wait), through mpilens run, 2 and 4 ranks: each start
# is one message of every partition (4 x 25 doubles = 800 bytes), matched
# send to receive: report --json messages and matrix equal the program's
# count, nothing unmatched or pending, no finding.  Open MPI 4.1 has no
# partitioned communication: the program says SKIP there.
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_part) || continue
    for n in 2 4; do
        d=$TEST_TMP/$impl-$n
        mkdir -p "$d"
        (cd "$d" && mpilens_run $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl -n $n: rep_part failed: $(head -c 300 "$d/err")"; continue; }
        grep -q '^SKIP' "$d/out" && { note "$impl: no partitioned communication"; break; }
        expect=$(grep '^EXPECT' "$d/out") || { soft_fail "$impl -n $n: no EXPECT line: $(head -c 200 "$d/out")"; continue; }
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl -n $n: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$expect" $n <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = dict(kv.split('=') for kv in sys.argv[2].split()[1:])
n = int(sys.argv[3])
m = rep['messages']
checks = [('matched', m['matched'], int(exp['messages'])), ('bytes', m['bytes'], int(exp['bytes'])),
          ('unmatched_sends', m['unmatched_sends'], 0), ('unmatched_receives', m['unmatched_receives'], 0),
          ('pending_receives', m['pending_receives'], 0), ('findings', len(rep['findings']), 0)]
bad = ['%s: got %s, want %s' % x for x in checks if x[1] != x[2]]
got = {(p['src'], p['dst']): (p['messages'], p['bytes']) for p in rep['matrix']['pairs']}
want = {}
for r in range(0, n, 2):
    want[(r, r + 1)] = (3, 3 * 800)
    want[(r + 1, r)] = (1, 16)
if got != want: bad.append(f'matrix pairs {sorted(got.items())}, want {sorted(want.items())}')
bad += ['finding: ' + f['text'] for f in rep['findings'][:3]]
print('; '.join(bad))
PY
)
        [ -z "$r" ] || soft_fail "$impl -n $n: $r"
        rm -rf "$d/run"
    done
done
