# report_cancel: requests cancelled with MPI_Cancel (tests/programs/rep_cancel.c)
# count as cancelled, not as pending or unmatched: on Open MPI and MPICH, 2
# and 4 ranks, the report's matched messages, bytes, cancelled receives and
# sends and MPI_Cancel calls equal the program's own count (from
# MPI_Test_cancelled), with no finding.  dump: every completion whose
# status says cancelled shows it as peer CANCELLED (done=0x../CANCELLED/..,
# and peer=CANCELLED for a call completing one request): as many such
# completions as the program counted cancelled receives and sends (each
# cancelled request is completed once); no peer is a comm rank the dump
# could not name.  Before: the runtime's marker leaked out, 'done=0x../?/-1/0
# peer=-32769@comm' (on Open MPI; the same in HPCC's RandomAccess).
# timeout: 200
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_cancel) || continue
    for n in 2 4; do
        d=$TEST_TMP/$impl-$n
        mkdir -p "$d"
        (cd "$d" && rt_mpi $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl -n $n: rep_cancel failed: $(head -c 300 "$d/err")"; continue; }
        expect=$(grep '^EXPECT' "$d/out") || { soft_fail "$impl -n $n: no EXPECT line"; continue; }
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl -n $n: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>&1 || soft_fail "$impl -n $n: text report failed"
        r=$(python3 - "$d/rep.json" "$expect" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = dict(kv.split('=') for kv in sys.argv[2].split()[1:])
m = rep['messages']
checks = [
    ('matched', m['matched'], int(exp['messages'])),
    ('bytes', m['bytes'], int(exp['bytes'])),
    ('sends', m['sends'], int(exp['messages'])),
    ('receives', m['receives'], int(exp['messages'])),
    ('cancelled_receives', m['cancelled_receives'], int(exp['cancelled_receives'])),
    ('cancelled_sends', m['cancelled_sends'], int(exp['cancelled_sends'])),
    ('cancels', m['cancels'], int(exp['cancels'])),
    ('unmatched_sends', m['unmatched_sends'], 0),
    ('unmatched_receives', m['unmatched_receives'], 0),
    ('pending_receives', m['pending_receives'], 0),
    ('unresolved_receives', m['unresolved_receives'], 0),
    ('findings', len(rep['findings']), 0),
    ('incomplete collectives', rep['collectives']['incomplete'], 0),
]
bad = ['%s: got %s, want %s' % c for c in checks if c[1] != c[2]]
bad += ['finding: ' + f['text'] for f in rep['findings'][:3]]
print('; '.join(bad))
PY
)
        [ -z "$r" ] || soft_fail "$impl -n $n: $r"
        grep -q "cancelled (no message): $(sed -E 's/.*cancelled_receives=([0-9]+).*/\1/' <<<"$expect") receive" "$d/rep.txt" ||
            soft_fail "$impl -n $n: text report lacks the cancelled line"
        "$MPILENS" dump --no-header "$d/run" >"$d/dump.txt" 2>"$d/dump.err" || soft_fail "$impl -n $n: dump failed"
        want=$(sed -E 's/.*cancelled_receives=([0-9]+) cancelled_sends=([0-9]+).*/\1 + \2/' <<<"$expect")
        got=$(grep -o 'done=[^ ]*' "$d/dump.txt" | tr ',' '\n' | grep -c '/CANCELLED/')
        assert_eq "$((want))" "$got" "$impl -n $n: dump's completions with peer CANCELLED"
        bad=$(grep -E '@comm|/\?/|-32769' "$d/dump.txt" | head -2)
        [ -z "$bad" ] || soft_fail "$impl -n $n: dump: ${bad:0:300}"
        note "$impl -n $n: $expect"
    done
done
