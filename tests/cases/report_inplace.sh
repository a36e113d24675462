# report_inplace: the gather and scatter collectives with MPI_IN_PLACE, the
# count and type MPI then ignores holding 999 MPI_DOUBLE
# (tests/programs/rep_inplace.c, 4 ranks, both MPIs, through mpilens run).
# What MPI ignores is not counted: with MPI_IN_PLACE a rank's own block is
# the other side's (as for MPI_Alltoallv in place).  (Off the root the
# record keeps a gather's receive and a scatter's send arguments as passed,
# dump --help's 'as passed': here the same as the root's.)
# By hand, per call (recorded bytes/rbytes; sent/received by role as
# docs/REPORT.md says: Allgather sends its block and receives 4, Alltoall 4
# and 4, Gather's root receives 4 blocks, Scatter's root sends 4):
#   1 Allgather 2 ints:     every rank 8/8;        sent 8, received 32
#   2 Allgatherv {1,2,3,4}: rank r 4(r+1)/40;      sent 4(r+1), received 40
#   3 Alltoall 2 ints:      every rank 8/8;        sent 32, received 32
#   4 Gather root 1, 3 ints: root 12/12 (sent 12, received 48); others 12/12 (12, 0)
#   5 Gatherv root 3:       root 16/40 (16, 40); rank r 4(r+1)/0 (4(r+1), 0)
#   6 Scatter root 2, 3 ints: root 12/12 (48, 12); others 12/12 (0, 12)
#   7 Scatterv root 0:      root 40/4 (40, 4); rank r 0/4(r+1) (0, 4(r+1))
# per rank (sent, received), report --json matrix.collectives and the OTF2
# export's MPI_COLLECTIVE_END Sent/Received summed per rank:
#   rank 0: 8+4+32+12+4+0+40 = 100,  32+40+32+0+0+12+4 = 120
#   rank 1: 8+8+32+12+8+0+0 = 68,    32+40+32+48+0+12+8 = 172
#   rank 2: 8+12+32+12+12+48+0 = 124, 32+40+32+0+0+12+12 = 128
#   rank 3: 8+16+32+12+16+0+0 = 84,  32+40+32+0+40+12+16 = 172
# report routines[].bytes (recorded bytes + rbytes over the ranks):
#   Allgather 64, Allgatherv 40+160 = 200, Alltoall 64, Gather 4x24 = 96,
#   Gatherv 56+4+8+12 = 80, Scatter 4x24 = 96, Scatterv 44+8+12+16 = 80.
# Before the fix the runtime recorded the ignored count and type: every
# in-place call's send side (the Scatters' root's receive side) as 999
# doubles, 7992 bytes (report: MPI_Allgather 32000 bytes; rank 1 'sent'
# 55952 bytes in the collectives, OTF2 the same; both MPIs).
#
# The same calls from Fortran (tests/programs/rep_inplace_f.f90, use mpi),
# then MPI_Iallgather, MPI_Ialltoall, MPI_Igather (root 1) and MPI_Iscatter
# (root 2) in place with the same arguments: recorded as their blocking
# forms (8/8, 8/8, 12/12, 12/12 on every rank; routines[].bytes 64, 64, 96,
# 96); per rank they add (sent, received) Iallgather (8, 32), Ialltoall
# (32, 32), Igather root (12, 48) others (12, 0), Iscatter root (48, 12)
# others (0, 12):
#   rank 0: 100+8+32+12+0 = 152,  120+32+32+0+12 = 196
#   rank 1: 68+8+32+12+0 = 120,   172+32+32+48+12 = 296
#   rank 2: 124+8+32+12+48 = 224, 128+32+32+0+12 = 204
#   rank 3: 84+8+32+12+0 = 136,   172+32+32+0+12 = 248
# 11 instances.  MPICH's binding calls the C routines (the C wrapper
# records them); Open MPI's calls PMPI_ (the Fortran wrapper records them).
# Before the fix Open MPI's Fortran calls recorded the ignored 999
# doubles (7992 bytes) as the send side of every Allgather(v), Alltoall and
# Gather(v) root and the receive side of the Scatter(v) root, blocking and
# nonblocking (the v-variants too: only MPI_Alltoallv/w were handled).
need_mpilens
for impl in openmpi mpich; do
  have_impl $impl || continue
  need_runtime $impl
  for pn in rep_inplace rep_inplace_f_f90; do
    p=$(prog $impl $pn) || continue
    d=$TEST_TMP/$impl-$pn
    fort=0
    [ $pn = rep_inplace ] || fort=1
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 4 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl $pn: failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^rep_inplace: done' "$d/out" || { soft_fail "$impl $pn: rep_inplace: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$impl $pn: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    "$MPILENS" dump --no-header "$d/run" >"$d/dump" 2>"$d/dump.err" || { soft_fail "$impl $pn: dump failed"; continue; }
    "$MPILENS" export --format=otf2 -o "$d/tr" "$d/run" >/dev/null 2>"$d/exp.err" ||
        { soft_fail "$impl $pn: export --format=otf2 failed: $(head -c 300 "$d/exp.err")"; continue; }
    command -v otf2-print >/dev/null || { fail "otf2-print missing (setup.sh deps installs otf2-tools)"; continue; }
    otf2-print "$d/tr.otf2" >"$d/otf2.txt" 2>"$d/otf2.err" || { soft_fail "$impl $pn: otf2-print failed"; continue; }
    r=$(python3 - "$d" $fort <<'PY'
import json, re, sys
d = sys.argv[1]
fort = sys.argv[2] == '1'
bad = []
rec = {  # routine -> per rank (bytes, rbytes) recorded
    'MPI_Allgather': [(8, 8)] * 4,
    'MPI_Allgatherv': [(4 * (r + 1), 40) for r in range(4)],
    'MPI_Alltoall': [(8, 8)] * 4,
    'MPI_Gather': [(12, 12)] * 4,
    'MPI_Gatherv': [(4, 0), (8, 0), (12, 0), (16, 40)],
    'MPI_Scatter': [(12, 12)] * 4,
    'MPI_Scatterv': [(40, 4), (0, 8), (0, 12), (0, 16)],
}
if fort:
    rec.update({'MPI_Iallgather': [(8, 8)] * 4, 'MPI_Ialltoall': [(8, 8)] * 4, 'MPI_Igather': [(12, 12)] * 4,
                'MPI_Iscatter': [(12, 12)] * 4})
got = {}
for l in open(f'{d}/dump'):
    f = l.split()
    if len(f) > 4 and f[4] in rec:
        kv = dict(x.split('=', 1) for x in f[6:] if '=' in x)
        got.setdefault(f[4], {})[int(f[0])] = (int(kv.get('bytes', -1)), int(kv.get('rbytes', -1)))
for n, w in rec.items():
    g = [got.get(n, {}).get(r) for r in range(4)]
    if g != w: bad.append(f'dump {n}: {g}, want {w}')
rep = json.load(open(f'{d}/rep.json'))
rb = {x['routine']: x['bytes'] for x in rep['routines']}
for n, w in (('MPI_Allgather', 64), ('MPI_Allgatherv', 200), ('MPI_Alltoall', 64), ('MPI_Gather', 96),
             ('MPI_Gatherv', 80), ('MPI_Scatter', 96), ('MPI_Scatterv', 80)) + \
            ((('MPI_Iallgather', 64), ('MPI_Ialltoall', 64), ('MPI_Igather', 96), ('MPI_Iscatter', 96)) if fort else ()):
    if rb.get(n) != w: bad.append(f'report: {n} {rb.get(n)} bytes, want {w}')
want = {0: (100, 120), 1: (68, 172), 2: (124, 128), 3: (84, 172)}
if fort: want = {0: (152, 196), 1: (120, 296), 2: (224, 204), 3: (136, 248)}
coll = {c['rank']: (c['sent'], c['received']) for c in rep['matrix']['collectives']}
if coll != want: bad.append(f'report: collectives sent/received per rank {coll}, want {want}')
ninst = 11 if fort else 7
if rep['collectives']['instances'] != ninst:
    bad.append(f"{rep['collectives']['instances']} collective instances, want {ninst}")
ends = {}
for l in open(f'{d}/otf2.txt'):
    m = re.match(r'MPI_COLLECTIVE_END\s+(\d+)\s+\d+\s.*Sent: (\d+), Received: (\d+)', l)
    if m:
        s = ends.setdefault(int(m[1]), [0, 0])
        s[0] += int(m[2])
        s[1] += int(m[3])
ends = {r: tuple(v) for r, v in ends.items()}
if ends != want: bad.append(f'otf2: collectives sent/received per rank {ends}, want {want}')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl $pn: $r"
  done
done
