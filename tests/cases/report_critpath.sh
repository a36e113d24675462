# report_critpath: the critical path and wait states of programs whose answer
# is known (tests/programs/cp_analytic.c derives each expected value): a
# pipeline hopping ranks at every message, a path switching ranks at a
# collective, an imbalanced Allreduce loop, nonblocking overlap, a
# synchronous send waiting for a late receiver, wildcard receives,
# MPI_PROC_NULL halos, a nonblocking collective whose MPI_Wait waits for
# a late member, and MPI_Probe / an MPI_Iprobe loop before a receive / an
# MPI_Improbe loop waiting for a late sender, and an MPI_Test loop on an MPI_Irecv waiting for it (a
# completion wait), and an MPI_Issend (or MPI_Start of an MPI_Ssend_init) whose MPI_Wait, or an
# MPI_Waitall over two of them, waits for a late blocking receiver; on both MPIs through `mpilens run`.  Times within 1%
# or 50 us of what the ranks measured (their spins), bytes and modelled
# costs exact (alpha 1000 ns, beta 1 ns/B), waiting + useful = each rank's
# time, run time on the path = communication + computation on it.  The
# window is named for what opened and closed it (MPI_Pcontrol), in the JSON
# and in the text, which fits 100 columns.
# timeout: 300
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl cp_analytic) || continue
    for spec in pipeline:4 switch:4 allreduce:4 overlap:2 ssend:2 wildcard:3 procnull:4 iallreduce:3 probe:3 iprobe:3 improbe:3 testloop:3 issend:2 pssend:2 issendall:3; do
        mode=${spec%:*} n=${spec#*:}
        d=$TEST_TMP/$impl-$mode
        mkdir -p "$d"
        # the modes where a rank waits for another's send: the program's timing holds only if
        # the waiting rank reached its wait well before the send began (rank 0 spins 3 D
        # first); on a loaded machine a rank can be descheduled longer than that (seen: rank 1
        # out of the Barrier 38 ms after rank 0 sent), and then there was nothing to wait for.
        # That is checked from the ranks' own marks, and such a run is made again (3 tries)
        ok=0 pre=
        for try in 1 2 3; do
            rm -rf "$d/run"
            (cd "$d" && mpilens_run $impl "$d/run" $n "$p" $mode) >"$d/out" 2>"$d/err" || break
            pre=$(python3 - "$d/out" "$mode" <<'PY'
import re, sys
t, mode = open(sys.argv[1]).read(), sys.argv[2]
nb = {int(m.group(1)): (int(m.group(2)), int(m.group(3))) for m in re.finditer(r'CP rank=(\d+) [^\n]*? nb=(\d+),(\d+)', t)}
# (sender, waiter): the sender's mark before its send, the waiter's before its wait
pairs = {'iallreduce': [(2, 0), (2, 1)], 'probe': [(0, 1)], 'iprobe': [(0, 1)], 'improbe': [(0, 1)],
         'testloop': [(0, 1)], 'issend': [(1, 0)], 'pssend': [(1, 0)], 'issendall': [(2, 0)]}.get(mode, [])
late = [w for s, w in pairs if s in nb and w in nb and nb[s][0] - nb[w][1] < 2000000]
print('rank %d reached its wait %.1f ms after the send began' % (late[0], (nb[pairs[0][0]][0] - nb[late[0]][1]) / -1e6) if late else 'ok')
PY
)
            [ "$pre" = ok ] && { ok=1; break; }
            note "$impl $mode try $try: $pre (the machine is loaded): run again"
        done
        [ $ok = 1 ] || { soft_fail "$impl $mode: run failed or never in order: $(head -c 300 "$d/err") ${pre:-}"; continue; }
        "$MPILENS" report --json -q --alpha 1000 --beta 1 "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl $mode: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$d/out" "$mode" "$n" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
mode, n = sys.argv[3], int(sys.argv[4])
spin, mpi, iters = {}, {}, {}
# the launcher may forward a line and its newline apart: find the fields, not lines
other = {}
for m in re.finditer(r'CP rank=(\d+) spin_ns=(\d+) mpi_ns=(\d+) other_ns=(-?\d+) iters=(\d+(?:,\d+){7})', open(sys.argv[2]).read()):
    r = int(m.group(1))
    spin[r], mpi[r], other[r] = int(m.group(2)), int(m.group(3)), max(0, int(m.group(4)))
    iters[r] = [int(x) for x in m.group(5).split(',')]
nb = {int(m.group(1)): (int(m.group(2)), int(m.group(3))) for m in re.finditer(r'CP rank=(\d+) [^\n]*? nb=(\d+),(\d+)', open(sys.argv[2]).read())}
bad = []
if sorted(spin) != list(range(n)):
    print('CP lines for ranks %s' % sorted(spin)); sys.exit()
cp, ws = rep['critical_path'], rep['wait_states']
M = cp['measures']
def tol(x): return max(0.01 * x, 50000)
def near(what, got, want):
    if abs(got - want) > tol(want): bad.append('%s: got %d ns, want %d ns' % (what, got, want))
# the MPI time the trace holds inside the window (useful + waiting in calls);
# the profile's mpi_ns covers the whole run (MPI_Init and MPI_Finalize too),
# which hid every gap between the ranks' brackets and their recorded calls
trace_mpi = {x['rank']: x['comm_ns'] + x['wait_ns'] for x in rep['wait_states']['ranks']}
def near_comp(what, got, want):
    # computation: the spins, plus at most what the ranks measured outside MPI besides them, and
    # what they saw inside their MPI brackets but outside the recorded calls (a rank preempted
    # just after a call's end was recorded: computation in the trace)
    extra = sum(other.values()) + sum(max(0, mpi[r] - trace_mpi.get(r, mpi[r])) for r in mpi)
    if not (want - tol(want) <= got <= want + extra + tol(want)):
        bad.append('%s: got %d ns, want %d ns (+ up to %d ns outside the spins)' % (what, got, want, extra))
def exact(what, got, want):
    if got != want: bad.append('%s: got %s, want %s' % (what, got, want))
exact('complete', cp['complete'], True)
exact('window source', cp['window']['source'], 'MPI_Pcontrol')
exact('window opened and closed by', (cp['window'].get('from'), cp['window'].get('to')), ('MPI_Pcontrol', 'MPI_Pcontrol'))
rt = M['runtime']['path']
exact('run time = comm + comp on its path', rt, cp['runtime_split']['comm_ns'] + cp['runtime_split']['comp_ns'])
ranks = {x['rank']: x for x in ws['ranks']}
for r, x in ranks.items():
    w = sum(ws[k]['by_rank'][r] for k in ('late_sender', 'late_receiver', 'collective', 'completion'))
    exact('rank %d: useful + waiting = its time' % r, x['useful_ns'] + w, x['time_ns'])
    # (a tight poll loop's time between its polls is waiting too: outside the program's brackets)
    lim = max(mpi[r], trace_mpi.get(r, 0)) if mode in ('iprobe', 'improbe', 'testloop') else mpi[r]
    if w > lim + 50000: bad.append('rank %d waited %d ns, more than its %d ns in MPI' % (r, w, lim))
tmax = max(x['time_ns'] for x in ranks.values())
wall = cp['window']['to_ns'] - cp['window']['from_ns']
umax = max(x['useful_ns'] for x in ranks.values())
if not (umax <= rt <= wall + 50000): bad.append('run time on the path %d not in [%d, %d]' % (rt, umax, wall))
# a rank's time can exceed the path only by waiting for a rank whose window had not opened yet
skew = max(x['start_ns'] for x in ranks.values()) - min(x['start_ns'] for x in ranks.values())
if rt < tmax - skew - tol(tmax): bad.append('run time on the path %d shorter than rank time %d less the window skew %d' % (rt, tmax, skew))
segs = [s['rank'] for s in cp['segments']]
W = cp['window']
for s in cp['segments']:   # a segment lies in the window, and is on the path at most its length
    if not (W['from_ns'] <= s['from_ns'] <= s['to_ns'] <= W['to_ns']) or s['on_path_ns'] > s['to_ns'] - s['from_ns']:
        bad.append('segment %s outside the window %s or on the path longer than it lasts' % (s, W))
comp = M['comp_time']['path']
def ends(seq):
    if segs[-len(seq):] != seq: bad.append('path ranks %s do not end with %s' % (segs, seq))
def through0(hop):
    # the path runs through rank 0's spin and, from the send, either stays on rank 0 or hops to rank 1
    # by the message: after the send began, each rank's calls take microseconds, and rank 1 may have
    # been off its CPU just then (a loaded machine): its waiting then ended before the send began, and
    # what it did after that lies beside the send, on no path
    if segs[-1:] == [0]: return
    ends([0, 1])
    hops = [a['what'] for a in cp['segments'] if a['rank'] == 0 and a['what'] != 'end']
    if not hops or hops[-1] != hop: bad.append('path leaves rank 0 by %s' % hops)
if mode == 'pipeline':
    near_comp('computation on the path', comp, sum(spin.values()))
    exact('bytes on the path', M['bytes']['path'], 6000)
    exact('latency cost on the path', M['latency_cost']['path'], 5000)
    exact('bandwidth cost on the path', M['bandwidth_cost']['path'], 6000)
    # which ranks the run-time path runs through depends on how late each left the Barrier (a loaded
    # machine may hold a rank there longer than a spin): it ends on rank 3, and every hop after the
    # Barrier is the message from rank r to r+1
    ends([3])
    for a, b in zip(cp['segments'], cp['segments'][1:]):
        if not a['what'].startswith('MPI_Barrier') and a['what'] != 'MPI_Send -> rank %d MPI_Recv' % (a['rank'] + 1):
            bad.append('hop %s from rank %d' % (a['what'], a['rank']))
    for x in ws['late_sender']['by_site']:
        if x['peer'] != x['rank'] - 1: bad.append('rank %d waited for rank %d' % (x['rank'], x['peer']))
elif mode == 'switch':
    near_comp('computation on the path', comp, spin[1] + spin[2])
    for x in ws['collective']['by_site']:
        if x['peer'] == x['rank'] or not 0 <= x['peer'] < n: bad.append('rank %d waited for rank %d' % (x['rank'], x['peer']))
    exact('by_routine has MPI_Allreduce', 'MPI_Allreduce' in M['comm_time']['by_routine'], True)
elif mode == 'allreduce':
    near_comp('computation on the path', comp, sum(max(iters[r][k] for r in range(n)) for k in range(8)))
    exact('bytes on the path', M['bytes']['path'], 64)
    exact('latency cost on the path', M['latency_cost']['path'], 16000)
    exact('bandwidth cost on the path', M['bandwidth_cost']['path'], 128)
    exact('bytes per process', M['bytes']['per_process'], 64)
    near_comp('computation per process', M['comp_time']['per_process'], max(spin.values()))
    near_comp('computation volumetric', M['comp_time']['volumetric'], sum(spin.values()) / n)
    if ws['collective']['total_ns'] <= 0: bad.append('no collective wait in an imbalanced loop')
elif mode == 'overlap':
    near_comp('computation on the path', comp, max(spin.values()))
    # the spin between Isend/Irecv and Wait is computation on the run-time path, not communication
    # (the run-time path goes through one of the two spins: the sender's MPI_Wait may wait for the
    # receiver in a way the trace does not show, docs/CRITPATH.md)
    if cp['runtime_split']['comp_ns'] < min(spin.values()) - tol(min(spin.values())):
        bad.append('computation on the run-time path %d < the spin %d' % (cp['runtime_split']['comp_ns'], min(spin.values())))
    if cp['runtime_split']['comm_ns'] > sum(mpi.values()) + 50000:
        bad.append('communication on the path %d > the MPI time measured %d' % (cp['runtime_split']['comm_ns'], sum(mpi.values())))
    exact('bytes on the path', M['bytes']['path'], 4000)
elif mode == 'ssend':
    near_comp('computation on the path', comp, spin[0] + spin[1])
    ends([1, 0])
    if ws['late_receiver']['by_rank'][0] <= 0: bad.append('rank 0: no late-receiver wait')
    exact('late receiver waits for', [s['peer'] for s in ws['late_receiver']['by_site']], [1])
    exact('path ends on', M['runtime']['end_rank'], 0)
elif mode == 'wildcard':
    near_comp('computation on the path', comp, max(spin[1], spin[2]) + spin[0])
    exact('bytes on the path', M['bytes']['path'], 20)
    # the run-time path comes to rank 0 with a sender's message (which one also depends on how
    # late each left the Barrier on a loaded machine; the computation above settles the spins)
    if segs[-1] != 0 or len(segs) < 2 or segs[-2] not in (1, 2) or not cp['segments'][-2]['what'].startswith('MPI_Send -> rank 0 MPI_Recv'):
        bad.append('path %s does not reach rank 0 by a message' % [(s['rank'], s['what']) for s in cp['segments']])
elif mode == 'procnull':
    near_comp('computation on the path', comp, max(spin.values()))
    exact('bytes on the path', M['bytes']['path'], 1024)
    exact('bytes per process', M['bytes']['per_process'], 1024)
    exact('bytes volumetric', M['bytes']['volumetric'], 768)
elif mode == 'iallreduce':
    near_comp('computation on the path', comp, spin[2])
    exact('bytes on the path', M['bytes']['path'], 8)
    exact('latency cost on the path', M['latency_cost']['path'], 4000)
    if 2 not in segs: bad.append('path %s does not go through rank 2' % segs)
    for a in cp['segments']:   # the path leaves rank 2 by its Iallreduce, taken by an MPI_Wait
        if a['rank'] == 2 and a['what'] != 'end' and not re.match(r'MPI_Iallreduce -> rank [01] MPI_Wait$', a['what']):
            bad.append('path leaves rank 2 by %s' % a['what'])
    # waiting at MPI_Wait: from the rank's own mark to rank 2's, give or take what the ranks spent
    # inside their MPI brackets but outside the recorded calls (where a recorded start may lie later)
    slack = sum(max(0, mpi[r] - trace_mpi.get(r, mpi[r])) for r in mpi)
    waits = {(x['rank'], x['peer']): x['time_ns'] for x in ws['collective']['by_site'] if x['routine'] == 'MPI_Wait'}
    for r in (0, 1):
        want = nb[2][0] - nb[r][1]
        got = waits.get((r, 2), 0)
        if abs(got - want) > tol(want) + slack:
            bad.append('rank %d: collective wait at MPI_Wait for rank 2 %d ns, want %d ns (+- %d)' % (r, got, want, slack))
    exact('MPI_Wait waits only for rank 2', sorted(k for k in waits if k[0] != 2 or waits[k] > 50000), [(0, 2), (1, 2)])
    exact('completion wait', ws['completion']['total_ns'], 0)
elif mode in ('probe', 'iprobe', 'improbe'):
    # MPI_Probe / the MPI_Iprobe loop waits for rank 0's send like a receive (late sender), and the
    # run-time path goes through rank 0's spin and the message to rank 1
    near_comp('computation on the path', comp, spin[0])
    # (MPI_Improbe's polls that found nothing wait as MPI_Iprobe's: before, they were local, their
    # 30 ms communication on a path of rank 1 alone, and no late-sender wait)
    pr = {'probe': 'MPI_Probe', 'iprobe': 'MPI_Iprobe', 'improbe': 'MPI_Improbe'}[mode]
    through0('MPI_Send -> rank 1 ' + pr)
    slack = sum(max(0, mpi[r] - trace_mpi.get(r, mpi[r])) for r in mpi)
    want = nb[0][0] - nb[1][1]
    waits = {(x['rank'], x['peer'], x['routine']): x['time_ns'] for x in ws['late_sender']['by_site']}
    got = waits.get((1, 0, pr), 0)
    if mode == 'probe' and abs(got - want) > tol(want) + slack:
        bad.append('rank 1: late sender at %s for rank 0 %d ns, want %d ns (+- %d)' % (pr, got, want, slack))
    # the loop's polls are a record and a repeat count that holds their time inside MPI; they
    # followed each other closely (a tight loop: under 5 us apart on average, even on a loaded
    # machine), so all its span is waiting, as for MPI_Probe
    if mode != 'probe' and abs(got - want) > tol(want) + slack:
        bad.append('rank 1: late sender at %s for rank 0 %d ns, want %d ns (+- %d)' % (pr, got, want, slack))
    exact('late sender only at %s' % pr, sorted(k for k in waits if waits[k] > 50000), [(1, 0, pr)])
    # rank 1 is on the path only for what it did after the send began: not its waiting
    on1 = [x['on_path_ns'] for x in cp['ranks'] if x['rank'] == 1][0]
    if on1 > ranks[1]['useful_ns'] + 50000: bad.append('rank 1 on the path %d ns, useful %d' % (on1, ranks[1]['useful_ns']))
elif mode == 'testloop':
    # the MPI_Test polls on the MPI_Irecv wait for rank 0's send (a completion wait, as MPI_Wait's
    # would be): the path goes through rank 0's spin and the message to rank 1's MPI_Test
    near_comp('computation on the path', comp, spin[0])
    through0('MPI_Send -> rank 1 MPI_Test')
    slack = sum(max(0, mpi[r] - trace_mpi.get(r, mpi[r])) for r in mpi)
    want = nb[0][0] - nb[1][1]
    waits = {(x['rank'], x['peer'], x['routine']): x['time_ns'] for x in ws['completion']['by_site']}
    got = waits.get((1, 0, 'MPI_Test'), 0)
    if abs(got - want) > tol(want) + slack:
        bad.append('rank 1: completion wait at MPI_Test for rank 0 %d ns, want %d ns (+- %d)' % (got, want, slack))
    exact('completion wait only at MPI_Test', sorted(k for k in waits if waits[k] > 50000), [(1, 0, 'MPI_Test')])
    exact('late sender', sorted((x['rank'], x['routine']) for x in ws['late_sender']['by_site'] if x['time_ns'] > 50000), [])
    on1 = [x['on_path_ns'] for x in cp['ranks'] if x['rank'] == 1][0]
    if on1 > ranks[1]['useful_ns'] + 50000: bad.append('rank 1 on the path %d ns, useful %d' % (on1, ranks[1]['useful_ns']))
elif mode in ('issend', 'pssend', 'issendall'):
    # the synchronous isend's completing call waits for the late receiver L (rank 1; rank 2 for the
    # Waitall) as an MPI_Ssend would: a late-receiver wait of rank 0 at that call, peer L, from rank
    # 0's mark before the call to L's before its MPI_Recv; the path: L's 3 D spin, its receive, the
    # hop to rank 0's completing call, rank 0's 2 D spin.  (Before, the call was local: no wait, the
    # path rank 0 alone, 2 D of computation and 3 D of "communication" in MPI_Wait.)
    late, call = (2, 'MPI_Waitall') if mode == 'issendall' else (1, 'MPI_Wait')
    near_comp('computation on the path', comp, spin[0] + spin[late])
    near_comp('computation on the run-time path', cp['runtime_split']['comp_ns'], spin[0] + spin[late])
    ends([late, 0])
    hops = [a['what'] for a in cp['segments'] if a['rank'] == late and a['what'] != 'end']
    if not hops or hops[-1] != 'MPI_Recv -> rank 0 ' + call: bad.append('path leaves rank %d by %s' % (late, hops))
    exact('path ends on', M['runtime']['end_rank'], 0)
    slack = sum(max(0, mpi[r] - trace_mpi.get(r, mpi[r])) for r in mpi)
    want = nb[late][0] - nb[0][1]
    waits = {(x['rank'], x['peer'], x['routine']): x['time_ns'] for x in ws['late_receiver']['by_site']}
    got = waits.get((0, late, call), 0)
    if abs(got - want) > tol(want) + slack:
        bad.append('rank 0: late receiver at %s for rank %d %d ns, want %d ns (+- %d)' % (call, late, got, want, slack))
    exact('late receiver only at %s' % call, sorted(k for k in waits if waits[k] > 50000), [(0, late, call)])
    exact('completion wait', [(x['rank'], x['routine']) for x in ws['completion']['by_site'] if x['time_ns'] > 50000], [])
    # communication on the path is time in calls less waiting: at most the MPI time the ranks
    # measured less rank 0's wait (the 3 D the call waited is on no path)
    if cp['runtime_split']['comm_ns'] > sum(mpi.values()) - got + 50000:
        bad.append('communication on the path %d ns > MPI time %d ns less the wait %d ns' %
                   (cp['runtime_split']['comm_ns'], sum(mpi.values()), got))
print('; '.join(bad))
PY
)
        [ -z "$r" ] || soft_fail "$impl $mode: $r"
        # the text names the window for what it is and fits 100 columns
        "$MPILENS" report --critical-path -q --alpha 1000 --beta 1 "$d/run" >"$d/cp.txt" 2>>"$d/rep.err" ||
            { soft_fail "$impl $mode: report --critical-path failed"; continue; }
        grep -q "(MPI_Pcontrol: a rank's first call to its second)" "$d/cp.txt" ||
            soft_fail "$impl $mode: window not named MPI_Pcontrol: $(grep -A1 '^  window' "$d/cp.txt" | head -c 300)"
        awk 'length($0) > 100 { print "line of " length($0) " columns: " $0; exit 1 }' "$d/cp.txt" >"$d/wide" ||
            soft_fail "$impl $mode: $(head -c 300 "$d/wide")"
        note "$impl $mode: path $(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['critical_path']; print(c['measures']['runtime']['path'], [s['rank'] for s in c['segments']])" "$d/rep.json")"
    done
done
