#!/usr/bin/env bash
# A real application: LAMMPS (Debian's lmp, Open MPI) on the melt example,
# 4 ranks.  The report pairs every one of its messages (Irecv/Send/Wait halo
# exchange, Sendrecv, collectives on MPI_COMM_WORLD and a Cartesian
# communicator): 0 unmatched, every collective complete, no finding.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
MPILENS=${MPILENS:-$root/build/bin/mpilens}
rt=$root/build/lib/mpilens/libmpilens-openmpi.so
melt=/usr/share/lammps/examples/melt/in.melt
for need in lmp mpirun.openmpi; do
    command -v $need >/dev/null || { echo "FAIL: $need missing (Debian packages lammps, openmpi-bin)"; exit 1; }
done
[ -f "$melt" ] || { echo "FAIL: $melt missing (Debian package lammps-examples)"; exit 1; }
[ -f "$rt" ] || { echo "FAIL: $rt not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# 100 steps instead of 250: the same communication pattern, shorter
sed 's/^run[[:space:]].*/run 100/' "$melt" >"$tmp/in.melt"
cd "$tmp" || exit 1
if ! MPILENS_DIR=$tmp/trace LD_PRELOAD=$rt timeout 300 mpirun.openmpi --oversubscribe -n 4 lmp -in in.melt -log none \
        >"$tmp/out" 2>&1; then
    echo "FAIL: lmp failed:"; tail -20 "$tmp/out"; exit 1
fi
"$MPILENS" report --json "$tmp/trace" >"$tmp/rep.json" 2>"$tmp/err" || { echo "FAIL: report: $(cat "$tmp/err")"; exit 1; }
python3 - "$tmp/rep.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
m, c = rep['messages'], rep['collectives']
bad = []
if m['matched'] < 1000: bad.append(f'only {m["matched"]} messages matched')
for k in ('unmatched_sends', 'unmatched_receives', 'pending_receives', 'unresolved_receives'):
    if m[k]: bad.append(f'{k}: {m[k]}')
if m['sends'] != m['matched'] or m['receives'] != m['matched']:
    bad.append(f'sends {m["sends"]}, receives {m["receives"]}, matched {m["matched"]}')
if c['incomplete'] or c['mismatched'] or c['instances'] == 0: bad.append(f'collectives: {c}')
if rep['findings']: bad.append('findings: ' + '; '.join(f['text'] for f in rep['findings'][:5]))
if rep['run']['ranks_read'] != 4: bad.append(f'ranks read: {rep["run"]["ranks_read"]}')
for b in bad: print('FAIL lammps:', b)
if not bad: print(f'ok lammps: {m["matched"]} messages ({m["bytes"]} bytes) matched, 0 unmatched, '
                  f'{c["instances"]} collective instances complete')
sys.exit(1 if bad else 0)
PY
