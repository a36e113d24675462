# report_spawn: a job whose processes start more with MPI_Comm_spawn
# (tests/programs/rep_spawn.c: 2 ranks spawn 3, messages and a barrier on
# the inter-communicator, one message on MPI_COMM_WORLD), through
# `mpilens run -- mpirun`.  mpilens records the launched job only: each
# spawned process says once on stderr that it is not recorded and leaves no
# rank file (before: the spawned rank 2 wrote rank-00002.mlt, a file of
# "another job" in the run directory, and ranks 0-1 of the children said
# 'File exists'); the report reads 2 ranks with no input problem, matches the
# MPI_COMM_WORLD message, and names the calls on the inter-communicator as
# reaching processes outside the job (kind outside_communicator), not as
# naming a communicator the file does not hold (unknown_communicator).
# MPICH's hydra here refuses MPI_Comm_spawn without mpilens too: that MPI
# is skipped when the plain run fails.
# timeout: 200
need_mpilens
ran=0
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_spawn) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    if ! (cd "$d" && run_mpi $impl 2 "$p" 3) >"$d/plain.out" 2>"$d/plain.err"; then
        note "$impl: MPI_Comm_spawn fails without mpilens ($(grep -m1 -i -E 'error|spawn' "$d/plain.err")): skipped"
        continue
    fi
    ran=$((ran + 1))
    case $impl in
    openmpi) launch=(mpirun.openmpi --oversubscribe -n 2) ;;
    mpich) launch=(mpirun.mpich -n 2) ;;
    esac
    (cd "$d" && timeout -k 5 90 "$MPILENS" run -q --monitor=off -o "$d/run" -- "${launch[@]}" "$p" 3) \
        >"$d/ml.out" 2>"$d/ml.err"
    rc=$?
    assert_eq 0 "$rc" "$impl: mpilens run exit status (stderr: $(head -c 400 "$d/ml.err"))"
    assert_eq "$(sort "$d/plain.out")" "$(sort "$d/ml.out")" "$impl: the program's output"
    assert_eq 3 "$(grep -c 'started by MPI_Comm_spawn: not recorded' "$d/ml.err")" \
        "$impl: spawned processes saying they are not recorded (stderr: $(head -c 400 "$d/ml.err"))"
    assert_not_contains "$(cat "$d/ml.err")" "File exists" "$impl: stderr"
    assert_eq "rank-00000.mlt rank-00001.mlt" "$(cd "$d/run" && echo *.mlt)" "$impl: rank files"
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$impl: report failed: $(head -c 300 "$d/rep.err")"; continue; }
    r=$(python3 - "$d/rep.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
bad = []
if rep['run']['ranks_read'] != 2: bad.append('ranks read %s' % rep['run']['ranks_read'])
if rep['input_problems']: bad.append('input problems: %s' % rep['input_problems'])
m = rep['messages']
if (m['matched'], m['bytes']) != (1, 4): bad.append('matched %s (%s B), want 1 (4 B)' % (m['matched'], m['bytes']))
kinds = sorted(set(f['kind'] for f in rep['findings']))
if kinds != ['outside_communicator']: bad.append('finding kinds %s' % kinds)
# rank 0: 3 MPI_Send and the barrier; rank 1: 3 MPI_Recv and the barrier
calls = {(f['rank'], f['routine']): f['count'] for f in rep['findings']}
want = {(0, 'MPI_Send'): 3, (0, 'MPI_Barrier'): 1, (1, 'MPI_Recv'): 3, (1, 'MPI_Barrier'): 1}
if calls != want: bad.append('calls named %s, want %s' % (calls, want))
for f in rep['findings']:
    if 'MPI_Comm_spawn' not in f['text']: bad.append('text does not name MPI_Comm_spawn: ' + f['text'])
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl: $r"
    "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>&1 || soft_fail "$impl: text report failed"
    assert_contains "$(tr -s " \n" "  " <"$d/rep.txt")" "reaches processes outside the job (from MPI_Comm_spawn)" "$impl: text report"
done
[ $ran -gt 0 ] || fail "MPI_Comm_spawn worked with no MPI here"
