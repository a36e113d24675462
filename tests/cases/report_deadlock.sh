# report_deadlock: the deadlock verdict of the live monitor (mpilens top
# --deadlock-timeout --stop writes DIR/deadlock.txt) is in `mpilens report`
# (text: right after the failure summary; --json: "deadlock" with file,
# written and text; null without a verdict) and at the end of `mpilens dump`
# as '#' lines.  tests/programs/deadlock_recvrecv.c on Open MPI and MPICH.
# timeout: 200
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl deadlock_recvrecv) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && rt_mpi $impl "$d/run" 2 "$p") >"$d/job.out" 2>&1 &
    job=$!
    timeout 60 "$MPILENS" top "$d/run" --deadlock-timeout 2 --stop --launcher $job --width 200 >"$d/top.out" 2>&1
    rc=$?
    wait $job 2>/dev/null
    [ $rc = 3 ] || { soft_fail "$impl: top exit $rc, want 3: $(tail -5 "$d/top.out" | tr '\n' ' ')"; continue; }
    v=$d/run/deadlock.txt
    [ -s "$v" ] || { soft_fail "$impl: no deadlock.txt"; continue; }
    cycle=$(grep -m1 'cycle:' "$v" | sed 's/^ *//')
    [ -n "$cycle" ] || { soft_fail "$impl: verdict without a cycle line"; continue; }
    # text report: the verdict after the summary line, before the ranks
    "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>&1
    grep -q "^DEADLOCK found by the live monitor ($d/run/deadlock.txt, 20" "$d/rep.txt" ||
        soft_fail "$impl: text report lacks the verdict heading"
    grep -qF -- "$cycle" "$d/rep.txt" || soft_fail "$impl: text report lacks '$cycle'"
    lv=$(grep -n '^DEADLOCK found' "$d/rep.txt" | head -1 | cut -d: -f1)
    lr=$(grep -n '^rank [0-9]' "$d/rep.txt" | head -1 | cut -d: -f1)
    [ -n "$lv" ] && [ -n "$lr" ] && [ "$lv" -lt "$lr" ] || soft_fail "$impl: verdict not before the ranks ($lv, $lr)"
    lm=$(grep -n '^Messages$' "$d/rep.txt" | head -1 | cut -d: -f1)
    [ -n "$lm" ] && [ "$lv" -lt "$lm" ] || soft_fail "$impl: verdict not before the profile"
    # the failure summary: both ranks were stopped together by the detector,
    # neither failed first (it said "2 ranks failed; first failure: rank N",
    # N the rank the stop reached first, and listed that one as "FAILED,
    # first failure"); the ranks by number
    s2=$(sed -n 2p "$d/rep.txt")
    echo "$s2" | grep -Eq '^2 ranks stopped together as deadlocked by the live monitor at [0-9.]+ s \(none failed by itself\)$' ||
        soft_fail "$impl: failure summary '$s2'"
    ! grep -q 'first failure' "$d/rep.txt" || soft_fail "$impl: a first failure named: $(grep -m1 'first failure' "$d/rep.txt")"
    [ "$(grep -E '^rank [0-9]+ \(pid' "$d/rep.txt" | cut -d' ' -f2 | tr '\n' ' ')" = "0 1 " ] ||
        soft_fail "$impl: failed ranks not in rank order: $(grep -E '^rank [0-9]+ \(pid' "$d/rep.txt" | cut -c1-40 | tr '\n' '|')"
    # JSON
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" || soft_fail "$impl: json report failed"
    r=$(python3 - "$d/rep.json" "$cycle" "$v" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
dl = rep.get('deadlock')
bad = []
if not isinstance(dl, dict): bad.append('deadlock is %r' % (dl,))
else:
    if sys.argv[2] not in dl['text']: bad.append('text lacks the cycle')
    if dl['file'] != sys.argv[3]: bad.append('file %r' % dl['file'])
    if not dl['written'].startswith('20'): bad.append('written %r' % dl['written'])
    if dl['text'].startswith('mpilens deadlock verdict'): bad.append('text keeps the heading line')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl: json: $r"
    # dump: the verdict as the last lines, all comments
    "$MPILENS" dump "$d/run" >"$d/dump.txt" 2>/dev/null
    lvd=$(grep -n '^# deadlock verdict of the live monitor' "$d/dump.txt" | cut -d: -f1)
    [ -n "$lvd" ] || { soft_fail "$impl: dump lacks the verdict"; continue; }
    tail -n +"$lvd" "$d/dump.txt" | grep -v '^#' | head -1 | grep -q . && soft_fail "$impl: non-comment line after the verdict in the dump"
    tail -n +"$lvd" "$d/dump.txt" | grep -qF -- "$cycle" || soft_fail "$impl: dump verdict lacks the cycle"
    # without a verdict: null, and no heading
    cp -r "$d/run" "$d/run2" && rm -f "$d/run2/deadlock.txt"
    "$MPILENS" report --json -q "$d/run2" | python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["deadlock"] is not None)' ||
        soft_fail "$impl: deadlock not null without deadlock.txt"
    "$MPILENS" report -q "$d/run2" | grep -q '^DEADLOCK' && soft_fail "$impl: verdict heading without deadlock.txt"
    note "$impl: $cycle"
done
