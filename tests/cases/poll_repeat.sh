# poll_repeat: a rank polling in a tight loop (tests/programs/poll_repeat.c:
# MPI_Iprobe, or MPI_Test on a posted receive, or a busy wait on MPI_Wtime, for 1.5 s) costs a few records,
# not one per call: runs of equal unsuccessful polls (and of MPI_Wtime) are one record plus a
# REPEAT (docs/FORMAT.md).  On both MPIs: rank 0's file takes under 1.5 MiB of disk
# (header and tables take about 0.8 MiB, one 256 KiB chunk of records; one
# record per poll made it hundreds of MB),
# mpilens dump shows repeat=, and mpilens report counts as many calls of the
# routine as the program made (it prints its own count).  The polls' REPEAT
# holds their time inside the calls (dump: inside=): the report's time of the
# routine is the first calls' plus that, not an estimate; MPI_Wtime's REPEAT
# (16 bytes) does not hold it: its time is marked as an estimate ('~', JSON
# estimated_calls = the repeats).
# timeout: 200
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl poll_repeat) || continue
    for mode in iprobe test wtime; do
        d=$TEST_TMP/$impl-$mode
        mkdir -p "$d"
        (cd "$d" && rt_mpi $impl "$d/run" 2 "$p" $mode) >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl $mode: failed: $(head -c 300 "$d/err")"; continue; }
        line=$(grep '^POLLS' "$d/out") || { soft_fail "$impl $mode: no POLLS line"; continue; }
        routine=$(sed 's/.*routine=\([^ ]*\).*/\1/' <<<"$line")
        calls=$(sed 's/.*calls=\([0-9]*\).*/\1/' <<<"$line")
        [ "$calls" -gt 1000 ] || soft_fail "$impl $mode: only $calls polls (the loop should spin 1.5 s)"
        f=$(ls "$d"/run/*rank0* 2>/dev/null | head -1)
        [ -n "$f" ] || f=$(ls -S "$d"/run/* | head -1)
        # disk blocks: the file keeps the size of the ready chunks the runtime
        # punched out at exit (holes; docs/FORMAT.md)
        size=$(($(stat -c '%b * %B' "$f")))
        assert_le "$size" 1572864 "$impl $mode: size of $f after $calls polls"
        "$MPILENS" dump "$d/run" >"$d/dump.txt" 2>"$d/dump.err" ||
            { soft_fail "$impl $mode: dump failed: $(head -c 300 "$d/dump.err")"; continue; }
        # the polls in the dump: one line per run, 1 + repeat calls each
        n=$(awk -v r="$routine" '$1 == 0 && $5 == r { c = 1; for (i = 7; i <= NF; i++) if ($i ~ /^repeat=/) c += substr($i, 8); n += c } END { print n + 0 }' "$d/dump.txt")
        [ "$n" = "$calls" ] || soft_fail "$impl $mode: dump shows $n $routine calls (with repeat=), the program made $calls"
        grep -q " repeat=[0-9]* until=[0-9.]*" "$d/dump.txt" || soft_fail "$impl $mode: no repeat= in the dump"
        bad=$(awk '/ repeat=/ { for (i = 7; i <= NF; i++) if ($i ~ /^until=/ && substr($i, 7) + 0 < $4 + 0) { print; exit } }' "$d/dump.txt")
        [ -z "$bad" ] || soft_fail "$impl $mode: repeats ending before the first call: $bad"
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl $mode: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$routine" "$calls" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
want = int(sys.argv[3])
def walk(o, path=''):
    if isinstance(o, dict):
        if o.get('routine') == sys.argv[2] or o.get('name') == sys.argv[2]:
            yield path, o
        for k, v in o.items():
            yield from walk(v, path + '/' + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            yield from walk(v, path + '/%d' % i)
got = [(p, o.get('calls')) for p, o in walk(rep) if 'calls' in o]
per_routine = [c for p, c in got if p.startswith('/routines/')]
# rank 1 makes none of these calls: the routine's total is rank 0's polls
ok = per_routine == [want]
print(('ok ' if ok else 'BAD ') + json.dumps(got))
PY
)
        note "$impl $mode: $calls polls, rank 0 file $size bytes; report: ${r:0:300}"
        [ "${r:0:3}" = "ok " ] || soft_fail "$impl $mode: report's $routine calls are not the program's $calls: ${r:0:300}"
        # the polls' repeats carry their time inside the calls (inside=); MPI_Wtime's do not:
        # their time is an estimate, marked '~' in the text and counted in JSON
        if [ $mode != wtime ]; then
            grep -q " repeat=[0-9]* until=[0-9.]* inside=[0-9.]*" "$d/dump.txt" ||
                soft_fail "$impl $mode: the polls' repeats carry no time inside the calls (inside=)"
        fi
        est=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(x.get("estimated_calls", 0) for x in r["routines"] if x["routine"] == sys.argv[2]))' "$d/rep.json" "$routine")
        reps=$(awk -v r="$routine" '$1 == 0 && $5 == r { k = 0; for (i = 7; i <= NF; i++) { if ($i ~ /^repeat=/) k = substr($i, 8); if ($i ~ /^inside=/) k = 0 } n += k } END { print n + 0 }' "$d/dump.txt")
        [ "$est" = "$reps" ] || soft_fail "$impl $mode: estimated_calls $est, the dump's repeats without inside= $reps"
        # the routine's time: each recorded call's duration plus its repeats' time inside the calls
        # (the dump prints nanoseconds: a few of rounding per line)
        if [ $mode != wtime ]; then
            r=$(python3 - "$d/rep.json" "$d/dump.txt" "$routine" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
got = sum(x['total_ns'] for x in rep['routines'] if x['routine'] == sys.argv[3])
want, lines = 0.0, 0
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) < 5 or f[0] != '0' or f[4] != sys.argv[3]: continue
    want += (float(f[3]) - float(f[2])) * 1e9
    lines += 1
    for x in f[6:]:
        if x.startswith('inside='): want += float(x[7:]) * 1e9
if abs(got - want) > 4 * lines + 1e-6 * want: print('report %d ns, the dump %d ns' % (got, want))
PY
)
            [ -z "$r" ] || soft_fail "$impl $mode: $routine's time: $r"
        fi
        "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>&1
        if [ $mode = wtime ]; then
            grep -Eq "^  $routine +[0-9.]+[kMG]?\*? +~[0-9]" "$d/rep.txt" || soft_fail "$impl $mode: $routine's time not marked as an estimate (~)"
            grep -q '^  ~ an estimate: ' "$d/rep.txt" || soft_fail "$impl $mode: no note on the estimate"
        else
            grep -Eq "^  $routine +[0-9.]+[kMG]?\*? +[0-9]" "$d/rep.txt" || soft_fail "$impl $mode: $routine's time marked as an estimate"
        fi
        # the shortest and longest call of a run of repeats: a copy of this
        # run whose REPEAT says 1 repeat (dt) that spent half the run's span
        # inside MPI_Test (as a poll descheduled inside the MPI would): the
        # routine's 1 + 1 + 1 calls are the first poll (d0, about 1 us), that
        # repeat (S/2, about 0.75 s) and the test that completed; so max_ns >=
        # S/2 and mean_ns <= max_ns, min_ns <= d0.  Before, the longest was the
        # first call's: max about 1 us under a mean of 0.25 s.
        [ $mode = test ] || continue
        rm -rf "$d/patched"
        cp -r "$d/run" "$d/patched"
        f=$(ls "$d"/patched/rank-00000.mlt)
        python3 - "$f" <<'PY' >"$d/patch.txt" || { soft_fail "$impl $mode: cannot patch the REPEAT: $(cat "$d/patch.txt")"; continue; }
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
# REPEAT records (docs/FORMAT.md: type 21, words 3: ml_rec then the u64 time inside)
c = [i for i in range(0, len(b) - 24, 8) if b[i] == 21 and b[i + 1] == 3]
if len(c) != 1: print('%d REPEAT records of 24 bytes, want 1' % len(c)); sys.exit(1)
i = c[0]
dur = struct.unpack_from('<I', b, i + 12)[0]
struct.pack_into('<I', b, i + 8, 1)              # dt: 1 repeat
struct.pack_into('<Q', b, i + 16, dur // 2)      # its time inside: half the span
open(sys.argv[1], 'wb').write(b)
PY
        line=$("$MPILENS" dump "$d/patched" --rank 0 | grep -m1 " repeat=")
        ins=$(sed -n 's/.* inside=\([0-9.]*\).*/\1/p' <<<"$line")
        grep -q " repeat=1 until=" <<<"$line" && [ -n "$ins" ] ||
            { soft_fail "$impl $mode: the patched REPEAT reads as: $line"; continue; }
        "$MPILENS" report --json -q --no-critical-path "$d/patched" >"$d/patched.json" 2>&1 ||
            { soft_fail "$impl $mode: report on the patched copy failed: $(head -c 300 "$d/patched.json")"; continue; }
        r=$(python3 - "$d/patched.json" "$routine" "$ins" "$line" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
rt, ins, f = sys.argv[2], float(sys.argv[3]) * 1e9, sys.argv[4].split()
d0 = (float(f[3]) - float(f[2])) * 1e9
bad = []
rows = [('routine', x) for x in rep['routines'] if x['routine'] == rt]
rows += [('site ' + x['site'], x) for x in rep['sites'] if x['routine'] == rt]
rows += [('site %s rank %d' % (x['site'], y['rank']), y) for x in rep['sites'] if x['routine'] == rt for y in x['per_rank']]
for what, x in rows:
    if x['calls'] != 3: bad.append('%s: %d calls, want 3' % (what, x['calls']))
    if x['max_ns'] < ins - 2: bad.append('%s: max %d ns, but one repeat spent %.0f ns inside' % (what, x['max_ns'], ins))
    if x['mean_ns'] > x['max_ns']: bad.append('%s: mean %d ns above max %d ns' % (what, x['mean_ns'], x['max_ns']))
    if 'min_ns' in x and x['min_ns'] > d0 + 2: bad.append('%s: min %d ns, the first poll took %.0f' % (what, x['min_ns'], d0))
if not rows: bad.append('no %s in the report' % rt)
print('; '.join(bad))
PY
)
        [ -z "$r" ] || soft_fail "$impl $mode (patched REPEAT): $r"
    done
done
