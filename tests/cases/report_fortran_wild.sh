# report_fortran_wild: Fortran wildcard receives are resolved (MPI_Recv with
# MPI_ANY_SOURCE and MPI_ANY_TAG, with a status and with MPI_STATUS_IGNORE;
# tests/programs/rep_wild.f90 with use mpi, rep_wild_f08.f90 with mpi_f08).
# Open MPI's Fortran bindings call PMPI_Recv directly, so the runtime's
# Fortran wrapper records the actual source and tag from the Fortran status.
# On both MPIs, 3 ranks: matched messages and bytes equal the program's
# count, nothing unmatched, pending or unresolved, no finding.
# timeout: 200
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    for name in rep_wild_f90 rep_wild_f08_f90; do
        p=$(prog $impl $name) || continue
        n=3
        d=$TEST_TMP/$impl-$name
        mkdir -p "$d"
        (cd "$d" && rt_mpi $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl $name: failed: $(head -c 300 "$d/err")"; continue; }
        expect=$(grep '^ *EXPECT' "$d/out") || { soft_fail "$impl $name: no EXPECT line"; continue; }
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl $name: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$expect" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = dict(kv.split('=') for kv in sys.argv[2].split()[1:])
m = rep['messages']
checks = [
    ('matched', m['matched'], int(exp['messages'])),
    ('bytes', m['bytes'], int(exp['bytes'])),
    ('receives', m['receives'], int(exp['messages'])),
    ('unmatched_sends', m['unmatched_sends'], 0),
    ('unmatched_receives', m['unmatched_receives'], 0),
    ('pending_receives', m['pending_receives'], 0),
    ('unresolved_receives', m['unresolved_receives'], 0),
    ('findings', len(rep['findings']), 0),
]
bad = ['%s: got %s, want %s' % c for c in checks if c[1] != c[2]]
bad += ['finding: ' + f['text'] for f in rep['findings'][:3]]
print('; '.join(bad))
PY
)
        [ -z "$r" ] || soft_fail "$impl $name: $r"
        # every MPI_Recv was recorded from Fortran
        nf=$("$MPILENS" dump "$d/run" | awk '$5 == "MPI_Recv" && / lang=fortran/' | wc -l)
        [ "$nf" -gt 0 ] || soft_fail "$impl $name: no Fortran MPI_Recv in the dump"
        note "$impl $name: $expect, $nf Fortran MPI_Recv"
    done
done
