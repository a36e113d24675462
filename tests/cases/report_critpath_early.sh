# report_critpath_early: collectives whose members may leave before the
# others came (tests/programs/cp_early.c derives each expected value): the
# neighbourhood collectives of a Cartesian line (MPI_Neighbor_allgather,
# MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall + MPI_Wait) with a late
# rank 0, which only its neighbour rank 1 waits for, and a rank whose
# window opens late beside it; MPI_Exscan and MPI_Scan with a late last
# rank, which the first rank needs not wait for; an inter-communicator's
# MPI_Bcast (MPI_ROOT / MPI_PROC_NULL roots) and MPI_Allreduce with a late
# rank 0 (before, an inter-communicator's collectives were local: no wait
# at all, the path through the waiting ranks' calls as communication,
# 0.1 ms of computation on it), and the same as MPI_Ibcast / MPI_Iallreduce
# and as persistent MPI_Bcast_init / MPI_Allreduce_init + MPI_Start, each
# followed by MPI_Wait, which waits as the blocking call would (local
# before on an inter-communicator: no wait); the bytes and costs of an
# MPI_Reduce_scatter_block (recorded as 0 bytes before).  On both MPIs through
# `mpilens run`.  Before: a member took every member's entry as a
# dependency (N x N), even one that came after its call had ended, so
# a rank that left early and computed after it was on a path through the
# late rank's computation too: 7·D of computation where the run lasted
# 4·D (Open MPI: nbr, nbr_a2a, inbr, exscan, scan; both: nbr_window).
# Times within 1% or 50 us of what the ranks measured.
# timeout: 300
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl cp_early) || continue
    for mode in nbr nbr_a2a inbr nbr_window exscan scan icc_bcast icc_allreduce icc_ibcast icc_iallreduce icc_pbcast icc_pallreduce rsb; do
        d=$TEST_TMP/$impl-$mode
        mkdir -p "$d"
        (cd "$d" && mpilens_run $impl "$d/run" 4 "$p" $mode) >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl $mode: run failed: $(head -c 300 "$d/err")"; continue; }
        "$MPILENS" report --json -q --alpha 1000 --beta 1 "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl $mode: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$d/out" "$mode" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
mode = sys.argv[3]
spin, mpi, other, tin, tw, tout = {}, {}, {}, {}, {}, {}
for m in re.finditer(r'EA rank=(\d+) spin_ns=(\d+) mpi_ns=(\d+) other_ns=(-?\d+) in=(\d+) wait=(\d+) out=(\d+)', open(sys.argv[2]).read()):
    r = int(m.group(1))
    spin[r], mpi[r], other[r] = int(m.group(2)), int(m.group(3)), max(0, int(m.group(4)))
    tin[r], tw[r], tout[r] = int(m.group(5)), int(m.group(6)), int(m.group(7))
if sorted(spin) != [0, 1, 2, 3]:
    print('EA lines for ranks %s' % sorted(spin)); sys.exit()
bad = []
cp, ws = rep['critical_path'], rep['wait_states']
M = cp['measures']
def tol(x): return max(0.01 * x, 50000)
def exact(what, got, want):
    if got != want: bad.append('%s: got %s, want %s' % (what, got, want))
trace_mpi = {x['rank']: x['comm_ns'] + x['wait_ns'] for x in ws['ranks']}
# what the ranks spent outside their spins (between calls, or inside their MPI brackets but
# outside the recorded calls): computation in the trace, at most this much more than the spins
extra = sum(other.values()) + sum(max(0, mpi[r] - trace_mpi.get(r, mpi[r])) for r in mpi)
def near_comp(what, got, want):
    if not (want - tol(want) <= got <= want + extra + tol(want)):
        bad.append('%s: got %d ns, want %d ns (+ up to %d ns outside the spins)' % (what, got, want, extra))
def beside(got, a, b):
    # two chains side by side: the path is at least as long as either (it is the longest chain), its
    # computation at most the longer spin (on a loaded machine the MPI calls take milliseconds too,
    # and a chain with less computation may be the longer one), never both spins
    if got > max(a, b) + extra + tol(max(a, b)):
        bad.append('computation on the run-time path %d ns: more than the longer of two spins side by side, '
                   '%d or %d ns (+ up to %d ns outside the spins)' % (got, a, b, extra))
    if rt < max(a, b) - tol(max(a, b)): bad.append('run time on the path %d ns < a spin of %d ns' % (rt, max(a, b)))
exact('complete', cp['complete'], True)
rt = M['runtime']['path']
exact('run time = comm + comp on its path', rt, cp['runtime_split']['comm_ns'] + cp['runtime_split']['comp_ns'])
W = cp['window']
if rt > W['to_ns'] - W['from_ns'] + 50000: bad.append('run time on the path %d longer than the window %d' % (rt, W['to_ns'] - W['from_ns']))
comp = cp['runtime_split']['comp_ns']
segs = cp['segments']
if mode in ('nbr', 'nbr_a2a', 'inbr', 'nbr_window'):
    # rank 0's spin (4·D) and rank 3's (nbr_window: rank 2's) 3·D lie on two chains side by side
    # (rank 3 is no neighbour of rank 0; nbr_window's rank 2 waited for rank 3, not for rank 0):
    # the path's computation is one of them, whichever chain is longer (on a loaded machine the
    # MPI calls along them take milliseconds too), never both
    beside(comp, spin[0], spin[2 if mode == 'nbr_window' else 3])
    # the path hops at the neighbourhood collective only between neighbours of the line
    for a, b in zip(segs, segs[1:]):
        if re.match(r'MPI_I?[Nn]eighbor_|MPI_Ineighbor_', a['what']) and abs(a['rank'] - b['rank']) != 1:
            bad.append('path hops from rank %d to rank %d by %s' % (a['rank'], b['rank'], a['what']))
    routine = 'MPI_Wait' if mode == 'inbr' else ('MPI_Neighbor_alltoall' if mode == 'nbr_a2a' else 'MPI_Neighbor_allgather')
    waits = {}
    for x in ws['collective']['by_site']:
        if x['routine'] == routine and x['time_ns'] > 0: waits.setdefault(x['rank'], []).append((x['peer'], x['time_ns']))
    slack = sum(max(0, mpi[r] - trace_mpi.get(r, mpi[r])) for r in mpi)
    # rank r waits from W(r) until the last of its neighbours came, for that one (one host: one
    # CLOCK_MONOTONIC); in nbr_window rank 2 waits for rank 3, whose window opened 6·D late, while
    # rank 0, no neighbour, came before
    for r in range(4):
        nb = [n for n in (r - 1, r + 1) if 0 <= n < 4]
        last = max(nb, key=lambda n: tin[n])
        want = max(0, tin[last] - tw[r])
        got = sum(t for _, t in waits.get(r, []))
        if abs(got - want) > tol(want) + slack:
            bad.append('rank %d: collective wait at %s %d ns, want %d ns for rank %d (+- %d)' % (r, routine, got, want, last, slack))
        for pr, t in waits.get(r, []):
            if pr not in nb and t > 50000: bad.append('rank %d waited %d ns for rank %d, no neighbour, at %s' % (r, t, pr, routine))
elif mode == 'rsb':
    # one MPI_Reduce_scatter_block on every chain: 2 doubles x 4 members sent (cp_early.c)
    exact('bytes on the path', M['bytes']['path'], 64)
    exact('bytes per process', M['bytes']['per_process'], 64)
    exact('bytes volumetric', M['bytes']['volumetric'], 64)
    exact('bandwidth cost on the path', M['bandwidth_cost']['path'], 48)
    exact('latency cost on the path', M['latency_cost']['path'], 4000)
    if rt < spin[3] - tol(spin[3]): bad.append('run time on the path %d ns < rank 3\'s spin %d ns' % (rt, spin[3]))
elif mode.startswith('icc_'):
    # the waiting ranks wait for rank 0 from their entry (blocking) or the start of the MPI_Wait
    # completing their request (nonblocking, persistent: wait = that mark) to rank 0's entry (its
    # call, MPI_Start) (one host: one CLOCK_MONOTONIC); in the broadcasts rank 2 (MPI_PROC_NULL)
    # takes no part; the calls that start a nonblocking or persistent one wait for nothing
    waits = {}
    call = {'icc_bcast': 'MPI_Bcast', 'icc_allreduce': 'MPI_Allreduce'}.get(mode, 'MPI_Wait')
    for x in ws['collective']['by_site']:
        if x['time_ns'] > 0 and x['routine'] != 'MPI_Barrier': waits.setdefault(x['rank'], []).append((x['peer'], x['time_ns']))
        if x['routine'] not in ('MPI_Barrier', call) and x['time_ns'] > 50000:
            bad.append('rank %d waited %d ns at %s' % (x['rank'], x['time_ns'], x['routine']))
    slack = sum(max(0, mpi[r] - trace_mpi.get(r, mpi[r])) for r in mpi)
    for r in (1, 2, 3):
        want = 0 if ('bcast' in mode and r == 2) else max(0, tin[0] - tw[r])
        got = sum(t for _, t in waits.get(r, []))
        if abs(got - want) > tol(want) + slack:
            bad.append('rank %d: collective wait %d ns, want %d ns for rank 0 (+- %d)' % (r, got, want, slack))
        for pr, t in waits.get(r, []):
            if pr != 0 and t > 50000: bad.append('rank %d waited %d ns for rank %d, not rank 0' % (r, t, pr))
    if rt < spin[0] - tol(spin[0]): bad.append('run time on the path %d ns < rank 0\'s spin %d ns' % (rt, spin[0]))
else:
    # rank 0 depended on rank 3 only if its call was still on when rank 3's began (the MPI's
    # algorithm: Open MPI lets it go at once, MPICH's recursive doubling holds it)
    waited = tout[0] > tin[3]
    if waited:
        # one chain through both spins: the path at least that long
        if rt < spin[3] + spin[0] - tol(spin[3] + spin[0]):
            bad.append('rank 0 waited for rank 3: run time on the path %d ns < both spins %d ns' % (rt, spin[3] + spin[0]))
    else:
        beside(comp, spin[3], spin[0])
    routine = 'MPI_Exscan' if mode == 'exscan' else 'MPI_Scan'
    if not waited:
        for x in ws['collective']['by_site']:
            if x['rank'] == 0 and x['routine'] == routine and x['time_ns'] > tout[0] - tin[0] + 50000:
                bad.append('rank 0 waited %d ns in a %s of %d ns' % (x['time_ns'], routine, tout[0] - tin[0]))
print('; '.join(bad))
PY
)
        [ -z "$r" ] || soft_fail "$impl $mode: $r"
        note "$impl $mode: path $(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['critical_path']; print(c['measures']['runtime']['path'], [(s['rank'], s['what']) for s in c['segments']])" "$d/rep.json")"
    done
done
