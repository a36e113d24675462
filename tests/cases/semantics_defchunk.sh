# Communicators and datatypes defined 20000 times each (tests/programs/
# sem_defchunk.c), so definitions fall where the recording chunk is full: the
# program ends with the same output as without the runtime (it used to wait
# forever on the runtime's own lock there), both MPIs, 2 ranks; the report
# pairs every MPI_Sendrecv on its duplicate with nothing unmatched and no
# communicator unknown.
# timeout: 240
SIZES=2 same_everywhere sem_defchunk
need_mpilens
for d in "$TEST_TMP"/*-sem_defchunk; do
    [ -d "$d/run" ] || continue
    if ! "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err"; then
        soft_fail "$(basename "$d"): mpilens report failed: $(head -c 300 "$d/rep.err")"
        continue
    fi
    r=$(python3 - "$d/rep.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
m = rep['messages']
bad = [f'{k}: {m[k]}, want {v}' for k, v in (('matched', 40000), ('unmatched_sends', 0), ('unmatched_receives', 0))
       if m[k] != v]
bad += ['finding: ' + f['text'] for f in rep['findings'][:3]]
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$(basename "$d"): $r"
done
