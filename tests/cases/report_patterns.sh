#!/usr/bin/env bash
# mpilens report pairs every message of tests/progs/p2p_patterns.c (blocking,
# every send mode blocking, nonblocking and persistent (Irsend, Ibsend,
# Bsend_init, Rsend_init too), nonblocking with Waitall/Waitany/Waitsome/Test,
# wildcards whose completion order differs from their posting order,
# persistent requests, Sendrecv(_replace), probes, MPI_PROC_NULL, a cancelled
# receive, sub-communicators, nonblocking collectives (Ibcast, Iallreduce,
# Ibarrier), an inter-communicator (Intercomm_create, messages and a wildcard
# receive across it, a barrier on it, Intercomm_merge), Cartesian
# communicators (Cart_create, periodic and with MPI_PROC_NULL ends)):
# the number of messages, their bytes, the collective instances and the
# cancelled receives equal the program's own count, which on 4 ranks equals
# the count made by hand from the program (HAND below), nothing is
# unmatched, on Open MPI and MPICH; the text report fits 100 columns.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
MPILENS=${MPILENS:-$root/build/bin/mpilens}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail=0
ran=0

# p2p_patterns.c on 4 ranks, counted by hand (messages, bytes as sent):
#   blocking_modes        per rank 6 Send/Ssend (1+6+11+2+7+12 doubles), Bsend 7, Rsend 3
#                         doubles: 8 msgs, 392 B; x4 = 32, 1568; 1 barrier
#   nonblocking           per rank Isend/Issend/Isend 10+20+30 ints, 5+6, 9, 11, 4 (freed):
#                         8 msgs, 380 B; x4 = 32, 1520
#   wildcards             ranks 1-3 send (6+3r) ints in 3 msgs: 36 ints; rank 1 also 1+2
#                         ints: 11 msgs, 156 B
#   persistent            per rank 5 x (50+25 doubles) + 3 x 50 doubles: 13 msgs, 4200 B;
#                         x4 = 52, 16800
#   sendrecv_probe_null   per rank 8+2+1+3+5+6 longs: 6 msgs, 200 B; x4 = 24, 800
#                         (PROC_NULL: none; the cancelled receive: 1 per rank = 4)
#   subcomms              per rank 4 + 2 ints: 2 msgs, 24 B; x4 = 8, 96; 1 (dup) + 2 (halves)
#   collectives           6 instances on the world
#   more_send_modes       per rank Irsend 3, Ibsend 5, 2 x Bsend_init 7, 2 x Rsend_init 9
#                         ints: 6 msgs, 160 B; x4 = 24, 640; 3 barriers
#   nb_collectives        Ibcast, Iallreduce, Ibarrier on the world, Iallreduce on each
#                         half: 5 instances
#   intercomms            even->odd 2+3 ints, odd->even 3+3 ints, odd ranks -> even rank 0
#                         1+1 ints (wildcard), merged ring 4 x 1 int: 10 msgs, 68 B;
#                         barrier on the intercomm + allreduce on the merged: 2
#   cartesian             ring 4 x 3 doubles, line 3 x 2 doubles: 7 msgs, 144 B; 1 allreduce
#   main                  11 phase barriers + 1 reduce
# total: 200 messages, 21792 bytes, 1+3+6+3+5+2+1+12 = 33 collective instances;
# their calls: 29 instances of 4 ranks (the intercomm's barrier too) + 4 of the
# halves of 2 = 124; MPI_PROC_NULL: per rank Send, Recv, Irecv, both halves of
# a Sendrecv, Isend (24), and the line's two ends (2) = 26
HAND="messages=200 bytes=21792 collectives=33 cancelled_receives=4"
HAND_COLL_CALLS=124 HAND_PROC_NULL=26

run_impl() {  # impl mpicc mpirun-command...
    local impl=$1 cc=$2; shift 2
    local rt=$root/build/lib/mpilens/libmpilens-$impl.so
    if ! command -v "$cc" >/dev/null || [ ! -f "$rt" ]; then
        echo "skip $impl: $cc or $rt missing"
        return
    fi
    ran=$((ran + 1))
    "$cc" -g -O1 -w -o "$tmp/pp-$impl" "$root/tests/progs/p2p_patterns.c" || { echo "FAIL $impl: build"; fail=1; return; }
    local dir=$tmp/run-$impl
    if ! MPILENS_DIR=$dir LD_PRELOAD=$rt timeout 120 "$@" -n 4 "$tmp/pp-$impl" >"$tmp/out-$impl" 2>&1; then
        echo "FAIL $impl: the program failed:"; cat "$tmp/out-$impl"; fail=1; return
    fi
    local expect
    expect=$(grep '^EXPECT' "$tmp/out-$impl") || { echo "FAIL $impl: no EXPECT line"; fail=1; return; }
    [ "$expect" = "EXPECT $HAND" ] || { echo "FAIL $impl: the program counted '$expect', by hand: '$HAND'"; fail=1; return; }
    "$MPILENS" report --json "$dir" >"$tmp/rep-$impl.json" 2>"$tmp/err-$impl" || {
        echo "FAIL $impl: report failed: $(cat "$tmp/err-$impl")"; fail=1; return; }
    if ! python3 - "$tmp/rep-$impl.json" "$expect" "$impl" "$HAND_COLL_CALLS" "$HAND_PROC_NULL" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = dict(kv.split('=') for kv in sys.argv[2].split()[1:])
m, c, impl = rep['messages'], rep['collectives'], sys.argv[3]
checks = [
    ('matched messages', m['matched'], int(exp['messages'])),
    ('matched bytes', m['bytes'], int(exp['bytes'])),
    ('sends', m['sends'], int(exp['messages'])),
    ('receives', m['receives'], int(exp['messages'])),
    ('unmatched sends', m['unmatched_sends'], 0),
    ('unmatched receives', m['unmatched_receives'], 0),
    ('pending receives', m['pending_receives'], 0),
    ('cancelled receives', m['cancelled_receives'], int(exp['cancelled_receives'])),
    ('unresolved receives', m['unresolved_receives'], 0),
    ('collective instances', c['instances'], int(exp['collectives'])),
    ('incomplete collectives', c['incomplete'], 0),
    ('collective calls', c['calls'], int(sys.argv[4])),
    ('operations on MPI_PROC_NULL', m['proc_null'], int(sys.argv[5])),
    ('findings', len(rep['findings']), 0),
    ('ranks read', rep['run']['ranks_read'], 4),
    ('input problems', len(rep['input_problems']), 0),
]
bad = [f'{n}: got {g}, want {w}' for n, g, w in checks if g != w]
# per-routine sums agree with the totals
# point-to-point routines' bytes (every routine that is not a collective:
# the program has no one-sided or I/O call): each matched message counted
# once where it was sent and once where it was received, and nothing for
# MPI_PROC_NULL (its receives take nothing: status count 0).  Before: the
# receives from MPI_PROC_NULL (MPI_Recv, both MPI_Sendrecv halves' receive,
# the line's two ends) counted the count posted.
cnames = {b['routine'] for b in c['by_routine']}
p2p = sum(r['bytes'] for r in rep['routines'] if r['routine'] not in cnames)
if p2p != 2 * int(exp['bytes']): bad.append(f'point-to-point routines\' bytes {p2p}, want 2 x {exp["bytes"]}')
calls = sum(r['calls'] for r in rep['routines'])
if calls != rep['run']['calls']: bad.append(f'routine calls {calls} != run calls {rep["run"]["calls"]}')
scalls = sum(s['calls'] for s in rep['sites'])
if scalls != calls: bad.append(f'call-site calls {scalls} != routine calls {calls}')
sizes = sum(b['messages'] for b in rep['message_sizes'])
if sizes != m['matched']: bad.append(f'size histogram {sizes} != matched {m["matched"]}')
if not any(s['site'].startswith('p2p_patterns.c:') for s in rep['sites']): bad.append('no call site named p2p_patterns.c:N')
# the patterns are there (recorded under these names)
names = {r['routine'] for r in rep['routines']}
for want in ('MPI_Irsend', 'MPI_Ibsend', 'MPI_Bsend_init', 'MPI_Rsend_init', 'MPI_Ibcast', 'MPI_Iallreduce',
             'MPI_Ibarrier', 'MPI_Intercomm_create', 'MPI_Intercomm_merge', 'MPI_Cart_create', 'MPI_Cancel',
             'MPI_Request_free'):
    if want not in names: bad.append(f'no {want} in the routines')
colls = {b['routine']: b['instances'] for b in c['by_routine']}
for want, n in (('MPI_Ibcast', 1), ('MPI_Iallreduce', 3), ('MPI_Ibarrier', 1)):
    if colls.get(want) != n: bad.append(f'{want}: {colls.get(want)} instances, want {n}')
for b in bad: print(f'FAIL {impl}: {b}')
for f in rep['findings']: print(f'  finding: {f["text"]}')
sys.exit(1 if bad else 0)
PY
    then fail=1; return; fi
    "$MPILENS" report "$dir" >"$tmp/rep-$impl.txt" 2>&1 || { echo "FAIL $impl: text report failed"; fail=1; return; }
    local wide
    wide=$(awk 'length($0) > 100' "$tmp/rep-$impl.txt" | head -3)
    if [ -n "$wide" ]; then echo "FAIL $impl: text report wider than 100 columns:"; echo "$wide"; fail=1; return; fi
    grep -q 'unmatched: 0 sends' "$tmp/rep-$impl.txt" || { echo "FAIL $impl: text report lacks 'unmatched: 0 sends'"; fail=1; return; }
    echo "ok $impl: $expect matched exactly"
}

run_impl openmpi mpicc.openmpi mpirun.openmpi --oversubscribe
run_impl mpich mpicc.mpich mpirun.mpich
[ $ran -gt 0 ] || { echo "FAIL: no MPI to test with"; exit 1; }
exit $fail
