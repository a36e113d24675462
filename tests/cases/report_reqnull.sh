# report_reqnull: MPI_REQUEST_NULL among the requests of MPI_Waitall,
# MPI_Testall, MPI_Waitany and alone in MPI_Wait, MPI_Test and MPI_Waitall
# (tests/programs/rep_reqnull.c, 2 ranks, both MPIs, through mpilens run).
# A null request completes nothing (MPI gives it an empty status: Open MPI
# source MPI_ANY_SOURCE, MPICH whatever): by hand, 3 messages of 16 bytes
# matched, 48 bytes; every completion the dump lists is one of rank 1's 3
# MPI_Irecv requests, each once (done= holds 3 entries in all, each
# HANDLE/0/TAG/16 with tags 1, 2, 3 in that order), and report --json has 0
# untracked_completions.  Before: each null request was recorded as a
# completed request ('done=0xN/ANY_SOURCE/-1/0 peer=ANY_SOURCE tag=-1
# bytes=0'), 12 untracked completions on both MPIs (the null requests in
# the lists and alone; HPCC's RandomAccess had 32 on Open MPI).
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_reqnull) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 2 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: rep_reqnull failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^rep_reqnull: done' "$d/out" || { soft_fail "$impl: rep_reqnull: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$impl: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    "$MPILENS" dump --no-header "$d/run" >"$d/dump" 2>"$d/dump.err" || { soft_fail "$impl: dump failed"; continue; }
    r=$(python3 - "$d" <<'PY'
import json, re, sys
d = sys.argv[1]
bad = []
m = json.load(open(f'{d}/rep.json'))['messages']
for k, w in (('matched', 3), ('bytes', 48), ('unmatched_sends', 0), ('unmatched_receives', 0),
             ('untracked_completions', 0)):
    if m[k] != w: bad.append(f'{k}: got {m[k]}, want {w}')
irecv, done = [], []
for l in open(f'{d}/dump'):
    f = l.split()
    for x in f[6:]:
        if x.startswith('req=') and f[4] == 'MPI_Irecv': irecv.append(x[4:])
        if x.startswith('done='): done += [(f[0], e) for e in x[5:].split(',')]
want = [('1', f'{h}/0/{t}/16') for h, t in zip(irecv, (1, 2, 3))]
if done != want: bad.append(f'completions {done[:6]}, want {want}')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl: $r"
done
