# report_export_comm: the exports on a reordered sub-communicator
# (tests/programs/exp_split.c, 4 ranks, Open MPI and MPICH), every record
# against what the program did, derived by hand:
#   MPI_Comm_split(world, color = w % 2, key = 4 - w): communicators
#   {world 2, world 0} and {world 3, world 1}, in that rank order, so world
#   rank w is rank s = (w < 2 ? 1 : 0) of its communicator, and its partner
#   p = w ^ 2 (the other member) is rank 1 - s.
#  - otf2 definitions: a COMM whose COMM_GROUP lists world 2 then world 0,
#    one listing world 3 then world 1 (order = rank order in the comm);
#    otf2-print -G reads them without a warning: the program's first
#    collective is on MPI_COMM_SELF, numbered before MPI_COMM_WORLD, and its
#    COMM named MPI_COMM_WORLD, defined after it, as its parent ('invalid
#    parent Comm/InterComm'; a reader resolves only references to what it
#    has read);
#  - otf2 events, peers and roots as ranks IN the communicator (OTF2's
#    convention, not world ranks):
#      MPI_SEND at s = 0 (w 2, 3): Receiver 1, Tag 7, Length 3*4 = 12;
#      MPI_RECV at s = 1 (w 0, 1): Sender 0, Tag 7, Length 12;
#      MPI_ISEND at s = 1: Receiver 0, Tag 9, Length 5*4 = 20;
#      MPI_IRECV at s = 0 (posted with MPI_ANY_SOURCE, MPI_ANY_TAG): Sender
#        1, Tag 9 (the actual ones), 20;
#      MPI_Bcast of 2 ints, root rank 1: Root 1; the root (s = 1) Sent 8
#        Received 0, the other Sent 0 Received 8;
#      MPI_Reduce of 4 ints, root rank 0: Root 0; both Sent 16, the root
#        (s = 0) Received 16, the other 0;
#      the MPI_Sendrecv ring on MPI_COMM_WORLD: MPI_SEND Receiver (w+1)%4,
#        MPI_RECV Sender (w+3)%4, Tag 3, Length 8;
#  - perfetto: the same calls' args, peers and roots as world ranks
#    (MPI_Send peer = p, MPI_Recv peer = p, the MPI_Irecv as posted: peer
#    ANY_SOURCE, tag ANY_TAG (it said -1), MPI_Bcast root = the world rank
#    of comm rank 1 = w % 2, MPI_Reduce root = 2 + w % 2), and the
#    collectives' "sent"/"received" by role as in OTF2 (these were missing:
#    only the buffers as passed, "bytes":8,"rbytes":0, on a non-root of
#    MPI_Bcast, which received 8 and sent nothing); one arrow per message
#    (2 on the subs' Send, 2 Isend, 4 in the ring: 8 messages);
#  - perfetto --ranks: the summary says what the cut kept of what (it said
#    '... on 4 ranks', the run's rank count, and the kept counts alone).
# timeout: 120
need_mpilens
command -v otf2-print >/dev/null || fail "otf2-print missing (./setup.sh deps installs otf2-tools)"
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl exp_split) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    mpilens_run $impl "$d/run" 4 "$p" >"$d/out" 2>&1 ||
        { soft_fail "$impl: exp_split failed: $(head -c 300 "$d/out")"; continue; }
    "$MPILENS" export -q --format=otf2 "$d/run" -o "$d/otf2/t" 2>"$d/err" ||
        { soft_fail "$impl: otf2 export: $(head -c 300 "$d/err")"; continue; }
    "$MPILENS" export -q --format=perfetto "$d/run" -o "$d/t.json" 2>"$d/err" ||
        { soft_fail "$impl: perfetto export: $(head -c 300 "$d/err")"; continue; }
    otf2-print -G "$d/otf2/t.otf2" >"$d/defs.txt" 2>"$d/defs.err" || { soft_fail "$impl: otf2-print -G failed"; continue; }
    [ -s "$d/defs.err" ] && soft_fail "$impl: otf2-print -G warns: $(head -c 300 "$d/defs.err")"
    grep -q 'Name: "comm 0 (1 rank: 0)"' "$d/defs.txt" ||
        note "$impl: MPI_COMM_SELF is not communicator 0 here: the parent check tests nothing"

    otf2-print "$d/otf2/t.otf2" >"$d/evts.txt" 2>&1 || { soft_fail "$impl: otf2-print failed"; continue; }
    r=$(python3 - "$d/defs.txt" "$d/evts.txt" "$d/t.json" <<'PY'
import json, re, sys
from collections import defaultdict
bad = []
# definitions: the sub-communicators' groups in rank order
groups = {}
for l in open(sys.argv[1]):
    m = re.match(r'GROUP\s+(\d+)\s+.*Type: COMM_GROUP.*?\d+ Members: (.*)', l)
    if m: groups[int(m.group(1))] = [int(x) for x in re.findall(r'"rank (\d+) thread 0"', m.group(2))]
comm_members = {}
for l in open(sys.argv[1]):
    m = re.match(r'COMM\s+(\d+)\s+Name: "([^"]*)".*Group: "[^"]*" <(\d+)>', l)
    if m: comm_members[m.group(2)] = groups.get(int(m.group(3)))
subs = sorted(v for k, v in comm_members.items() if '(2 ranks: ' in k)
if subs != [[2, 0], [3, 1]]: bad.append(f'otf2 sub-communicator groups {subs}, want [[2, 0], [3, 1]]')
# events, per world rank (location = rank: one thread)
ev = defaultdict(list)
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) > 3 and f[0].startswith('MPI_') and f[1].isdigit():
        ev[int(f[1])].append((f[0], ' '.join(f[3:])))
def field(s, k):
    m = re.search(k + r': (\w+)', s)
    return m.group(1) if m else None
for w in range(4):
    s = 1 if w < 2 else 0
    sub = [(n, a) for n, a in ev[w] if '(2 ranks: ' in a]
    world = [(n, a) for n, a in ev[w] if 'MPI_COMM_WORLD' in a]
    want = []
    if s == 0: want += [('MPI_SEND', 'Receiver', 1, 7, 12), ('MPI_IRECV', 'Sender', 1, 9, 20)]
    else: want += [('MPI_RECV', 'Sender', 0, 7, 12), ('MPI_ISEND', 'Receiver', 0, 9, 20)]
    got = [(n, k, int(field(a, k)), int(field(a, 'Tag')), int(field(a, 'Length')))
           for n, a in sub for k in ('Receiver', 'Sender') if field(a, k) is not None]
    if sorted(got) != sorted(want): bad.append(f'otf2 world rank {w}: sub-communicator messages {got}, want {want}')
    coll = {field(a, 'Operation'): (field(a, 'Root'), int(field(a, 'Sent')), int(field(a, 'Received')))
            for n, a in sub if n == 'MPI_COLLECTIVE_END'}
    wantc = {'BCAST': ('1', 8, 0) if s == 1 else ('1', 0, 8), 'REDUCE': ('0', 16, 16) if s == 0 else ('0', 16, 0)}
    if coll != wantc: bad.append(f'otf2 world rank {w}: collectives {coll}, want {wantc}')
    got = sorted((n, int(field(a, 'Receiver') or field(a, 'Sender')), int(field(a, 'Tag')), int(field(a, 'Length')))
                 for n, a in world)
    wantw = sorted([('MPI_SEND', (w + 1) % 4, 3, 8), ('MPI_RECV', (w + 3) % 4, 3, 8)])
    if got != wantw: bad.append(f'otf2 world rank {w}: ring {got}, want {wantw}')
# perfetto
tr = json.load(open(sys.argv[3]))['traceEvents']
for w in range(4):
    s, p = (1 if w < 2 else 0), w ^ 2
    a = {e['name']: e['args'] for e in tr if e['ph'] == 'X' and e['pid'] == w}
    want = {
        'MPI_Send' if s == 0 else 'MPI_Recv': {'peer': p, 'tag': 7, 'bytes': 12},
        'MPI_Isend' if s == 1 else 'MPI_Irecv': {'peer': p if s == 1 else 'ANY_SOURCE', 'tag': 9 if s == 1 else 'ANY_TAG',
                                                 'bytes': 20},
        'MPI_Bcast': {'root': w % 2, 'sent': 8 if s == 1 else 0, 'received': 0 if s == 1 else 8},
        'MPI_Reduce': {'root': 2 + w % 2, 'sent': 16, 'received': 16 if s == 0 else 0},
        'MPI_Sendrecv': {'dest': (w + 1) % 4, 'source': (w + 3) % 4, 'sendtag': 3, 'sendbytes': 8, 'recvbytes': 8},
    }
    for name, kv in want.items():
        got = {k: a.get(name, {}).get(k) for k in kv}
        if got != kv: bad.append(f'perfetto world rank {w} {name}: {got}, want {kv}')
flows = sum(1 for e in tr if e['ph'] == 's')
if flows != 8: bad.append(f'perfetto: {flows} arrows, want 8')
print('; '.join(bad[:8]))
PY
)
    [ -z "$r" ] && note "$impl: otf2 and perfetto records as derived" || soft_fail "$impl: $r"
    # a cut says what it kept: --ranks 1,3 keeps the calls of world ranks 1
    # and 3 (counted in the whole export) of all of them, and the messages
    # with both ends there: the Send 3 -> 1 and the Isend 1 -> 3 of their
    # communicator (the ring's go 1 -> 2 and 3 -> 0): 2 of 8
    want=$(python3 - "$d/t.json" <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph'] == 'X']
k = sum(1 for e in ev if e['pid'] in (1, 3))
print(f'mpilens export: kept {k} of {len(ev)} calls, 2 of 8 messages (flow arrows): 2 of 4 ranks, from 0 s to the end')
PY
)
    "$MPILENS" export --format=perfetto "$d/run" -o "$d/cut.json" --ranks 1,3 2>"$d/cut.err" ||
        { soft_fail "$impl: export --ranks 1,3: $(head -c 300 "$d/cut.err")"; continue; }
    assert_eq "$want" "$(head -1 "$d/cut.err")" "$impl: export --ranks 1,3 summary"
    # -o - is standard output for the JSON; an OTF2 archive (several files)
    # cannot go there: one line, exit 1, nothing written (it wrote ./-.otf2,
    # ./-.def and ./-/ and said 'wrote ./-.otf2')
    mkdir -p "$d/dash"
    (cd "$d/dash" && "$MPILENS" export --format=otf2 "$d/run" -o - >"$d/dash.out" 2>"$d/dash.err")
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$d/dash.err")" = 1 ] && grep -q '^mpilens export: .*standard output' "$d/dash.err" &&
        [ ! -s "$d/dash.out" ] && [ -z "$(ls -A "$d/dash")" ] ||
        soft_fail "$impl: export --format=otf2 -o -: exit $rc, stderr $(head -c 200 "$d/dash.err"), left: $(ls -A "$d/dash")"
done
