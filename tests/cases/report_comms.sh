# report_comms: communicators with equal members are told apart
# (tests/programs/rep_comms.c): two MPI_Comm_idup of the world, two
# MPI_Comm_create_group of ranks 0-1, two MPI_Comm_create_from_group (MPICH,
# MPI-4), each pair carrying same-tag messages received in the opposite
# order; and a duplicate of the world after create_group, after a split with
# MPI_UNDEFINED and an MPI_Comm_create with non-members is still one
# communicator.  On both MPIs, 2 and 4 ranks: matched messages, bytes and
# collective instances equal the program's count, no finding.
# timeout: 200
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_comms) || continue
    for n in 2 4; do
        d=$TEST_TMP/$impl-$n
        mkdir -p "$d"
        (cd "$d" && rt_mpi $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl -n $n: rep_comms failed: $(head -c 300 "$d/err")"; continue; }
        expect=$(grep '^EXPECT' "$d/out") || { soft_fail "$impl -n $n: no EXPECT line"; continue; }
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl -n $n: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$expect" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = dict(kv.split('=') for kv in sys.argv[2].split()[1:])
m, c = rep['messages'], rep['collectives']
checks = [
    ('matched', m['matched'], int(exp['messages'])),
    ('bytes', m['bytes'], int(exp['bytes'])),
    ('unmatched_sends', m['unmatched_sends'], 0),
    ('unmatched_receives', m['unmatched_receives'], 0),
    ('pending_receives', m['pending_receives'], 0),
    ('collective instances', c['instances'], int(exp['collectives'])),
    ('incomplete collectives', c['incomplete'], 0),
    ('findings', len(rep['findings']), 0),
]
bad = ['%s: got %s, want %s' % x for x in checks if x[1] != x[2]]
bad += ['finding: ' + f['text'] for f in rep['findings'][:3]]
print('; '.join(bad))
PY
)
        [ -z "$r" ] || soft_fail "$impl -n $n: $r"
        note "$impl -n $n: $expect"
    done
done
