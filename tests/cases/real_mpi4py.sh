# A Python MPI program (Debian's python3-mpi4py, which loads Open MPI at
# import time) under `mpilens run`: the same output as without it, every
# rank recorded, the buffer messages (ring Sendrecv, wildcard Irecv +
# Waitall) matched with their exact bytes, 0 unmatched, no finding.
# timeout: 240
py=/usr/bin/python3
"$py" -c 'import mpi4py' 2>/dev/null || fail "python3-mpi4py not installed"
need_runtime openmpi
need_mpilens
script=$ROOT/tests/programs/m4p_ring.py
cd "$TEST_TMP" || fail "no TEST_TMP"
n=3
run_openmpi $n "$py" "$script" >plain.out 2>plain.err || fail "plain run failed: $(tail -3 plain.err)"
"$MPILENS" run --monitor=off -n $n -o trace "$py" "$script" >ml.out 2>ml.err ||
    fail "mpilens run failed: $(tail -3 ml.err)"
grep -q "with openmpi" ml.err || fail "mpilens run did not pick Open MPI: $(head -2 ml.err)"
# mpi4py converts handles (MPI_Comm_c2f, MPI_Op_c2f, ...): their results are not errors
grep -q "returned to the program" ml.err && fail "a conversion taken for an error: $(grep -m1 'returned to the program' ml.err)"
cp plain.out a; cp ml.out b
cmp -s a b || fail "output differs with the runtime: $(diff a b | head -5)"
grep -q "got \[100, 200\]" plain.out || fail "unexpected program output: $(cat plain.out)"
"$MPILENS" report --json trace >rep.json 2>rep.err || fail "report: $(cat rep.err)"
python3 - rep.json $n <<'PY' || fail "report check failed"
import json, sys
rep = json.load(open(sys.argv[1])); n = int(sys.argv[2])
m = rep['messages']
bad = []
if rep['run']['ranks_read'] != n: bad.append(f"ranks read {rep['run']['ranks_read']}")
# at least the ring (n) and the gather (n-1); mpi4py's pickled collectives
# add their own
if m['matched'] < 2 * n - 1: bad.append(f"only {m['matched']} matched")
for k in ('unmatched_sends', 'unmatched_receives', 'pending_receives', 'unresolved_receives'):
    if m[k]: bad.append(f'{k}: {m[k]}')
if rep['findings']: bad.append('findings: ' + '; '.join(f['text'] for f in rep['findings'][:3]))
for b in bad: print('FAIL mpi4py:', b)
sys.exit(1 if bad else 0)
PY
# the ring's buffer messages: one 80-byte MPI_Sendrecv send per rank
"$MPILENS" dump trace >dump.txt || fail "dump failed"
k=$(grep -c "MPI_Sendrecv .*tag=5 bytes=80 type=MPI_DOUBLE" dump.txt)
assert_eq "$k" "$n" "MPI_Sendrecv records with 80 bytes"
k=$(grep -c "MPI_Irecv " dump.txt)
assert_eq "$k" "$((n - 1))" "MPI_Irecv records on rank 0"
# call sites are the lines of the Python program (runtime/python.c), not
# mpi4py's extension module: the ring's MPI_Sendrecv at its line on every
# rank, MPI_Init_thread (made while mpi4py is imported) at the import
L=$(grep -n "^c.Sendrecv(" "$script" | cut -d: -f1)
k=$(grep -c "MPI_Sendrecv m4p_ring.py:$L " dump.txt)
assert_eq "$k" "$n" "MPI_Sendrecv records at m4p_ring.py:$L"
L=$(grep -n "^from mpi4py import MPI" "$script" | cut -d: -f1)
k=$(grep -c "MPI_Init_thread m4p_ring.py:$L\$" dump.txt)
assert_eq "$k" "$n" "MPI_Init_thread records at m4p_ring.py:$L"
grep -q "MPI_Sendrecv MPI\." dump.txt && fail "a buffer call still at mpi4py's address: $(grep -m1 'MPI_Sendrecv MPI\.' dump.txt)"
# a deadlock of a Python program: the live verdict and the report's
# diagnosis name the line of the receive, inside a function
dl=$ROOT/tests/programs/m4p_deadlock.py
L=$(grep -n "# L_RECV" "$dl" | cut -d: -f1)
"$MPILENS" run --deadlock-timeout=2 -n 2 -o dltrace "$py" "$dl" >dl.out 2>dl.err
rc=$?
assert_eq "$rc" 86 "mpilens run exit status on the deadlock"
grep -q "rank 0: MPI_Mprobe from 1 tag 3 at m4p_deadlock.py:$L " dltrace/deadlock.txt ||
    fail "the verdict does not name m4p_deadlock.py:$L: $(head -4 dltrace/deadlock.txt)"
"$MPILENS" report dltrace >dlrep.txt 2>&1 || fail "report of the deadlock failed: $(tail -2 dlrep.txt)"
grep -q "blocked in MPI_Mprobe called at m4p_deadlock.py:$L\$" dlrep.txt ||
    fail "the diagnosis does not name m4p_deadlock.py:$L: $(grep -m2 'blocked in' dlrep.txt)"
