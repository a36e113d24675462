# report_fortran_nb: Fortran nonblocking, persistent, Sendrecv and matched-probe
# messages are all paired (tests/programs/rep_nb.f90 with use mpi,
# rep_nb_f08.f90 with mpi_f08, rep_nb_mpifh.f90 with mpif.h): wildcard
# MPI_Irecv + MPI_Waitall (statuses and MPI_STATUSES_IGNORE), Isend/Issend/
# Ibsend/Irecv pairs completed by every Wait/Test routine, Sendrecv(_replace)
# with wildcards, persistent requests (Startall, Start, Cancel,
# Request_free), MPI_PROC_NULL, Mprobe/Improbe + Mrecv, a cancelled wildcard
# receive, a sub-communicator.  Open MPI's Fortran bindings (and MPICH's
# mpi_f08 for routines without a buffer) call PMPI_ directly, so the
# runtime's Fortran wrappers record requests and statuses themselves.
# On both MPIs, 3 ranks: matched messages and bytes equal the program's
# count, nothing unmatched, pending or unresolved, no finding, the cancelled
# receives counted; every call recorded once (exact counts of the routines
# whose number of calls the program fixes), from Fortran, at its .f90 site.
# timeout: 300
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    for name in rep_nb_f90 rep_nb_f08_f90 rep_nb_mpifh_f90; do
        p=$(prog $impl $name) || continue
        n=3
        d=$TEST_TMP/$impl-$name
        mkdir -p "$d"
        (cd "$d" && rt_mpi $impl "$d/run" $n "$p") >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl $name: failed: $(head -c 300 "$d/err")"; continue; }
        expect=$(grep '^ *EXPECT' "$d/out") || { soft_fail "$impl $name: no EXPECT line"; continue; }
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl $name: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        "$MPILENS" dump "$d/run" >"$d/dump" 2>"$d/dump.err" ||
            { soft_fail "$impl $name: dump failed: $(head -c 300 "$d/dump.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$expect" "$d/dump" "$n" "${name%_f90}.f90" <<'PY'
import json, sys, collections
rep = json.load(open(sys.argv[1]))
exp = dict(kv.split('=') for kv in sys.argv[2].split()[1:])
n, src = int(sys.argv[4]), sys.argv[5]
m = rep['messages']
checks = [
    ('matched', m['matched'], int(exp['messages'])),
    ('bytes', m['bytes'], int(exp['bytes'])),
    ('sends', m['sends'], int(exp['messages'])),
    ('receives', m['receives'], int(exp['messages'])),
    ('unmatched_sends', m['unmatched_sends'], 0),
    ('unmatched_receives', m['unmatched_receives'], 0),
    ('pending_receives', m['pending_receives'], 0),
    ('unresolved_receives', m['unresolved_receives'], 0),
    ('cancelled_receives', m['cancelled_receives'], int(exp['cancelled'])),
    ('findings', len(rep['findings']), 0),
]
bad = ['%s: got %s, want %s' % c for c in checks if c[1] != c[2]]
bad += ['finding: ' + f['text'] for f in rep['findings'][:3]]
# the dump: calls per rank and routine, every one from Fortran at the program's source
calls = collections.Counter()
notf = collections.Counter()
nosite = collections.Counter()
for line in open(sys.argv[3]):
    f = line.split()
    if len(f) < 6 or f[0].startswith('#') or not f[4].startswith('MPI_'):
        continue
    rank, routine = int(f[0]), f[4]
    calls[rank, routine] += 1
    if ' lang=fortran' not in line:
        notf[routine] += 1
    if not f[5].startswith(src + ':') and routine != 'MPI_Finalize':
        nosite[routine] += 1
want = {'MPI_Sendrecv': 4, 'MPI_Sendrecv_replace': 2, 'MPI_Startall': 4, 'MPI_Start': 3,
        'MPI_Request_free': 4, 'MPI_Cancel': 2, 'MPI_Mprobe': 1, 'MPI_Mrecv': 2, 'MPI_Send_init': 1,
        'MPI_Ssend_init': 1, 'MPI_Recv_init': 2, 'MPI_Ibsend': 1, 'MPI_Waitany': 3}
for r in range(n):
    w = dict(want)
    w['MPI_Irecv'] = 12 + (4 * (n - 1) if r == 0 else 0)
    w['MPI_Isend'] = 13 if r == 0 else 15
    w['MPI_Issend'] = 0 if r == 0 else 1
    w['MPI_Waitall'] = 8 if r == 0 else 7
    for k, v in w.items():
        if calls[r, k] != v:
            bad.append('rank %d: %d %s recorded, want %d' % (r, calls[r, k], k, v))
for k, v in notf.items():
    bad.append('%d %s not recorded as lang=fortran' % (v, k))
for k, v in nosite.items():
    bad.append('%d %s not at a %s site' % (v, k, src))
print('; '.join(bad[:12]))
PY
)
        [ -z "$r" ] || soft_fail "$impl $name: $r"
        note "$impl $name: $expect"
    done
done
