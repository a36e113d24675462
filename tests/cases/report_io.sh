# report_io: the MPI_File read/write family records count x type size as its
# bytes (explicit offsets, individual and shared pointers, _all/_ordered,
# split collective _begin, nonblocking i-variants at their start, a derived
# type); the report's I/O section gives per file (the name given to
# MPI_File_open, and the open's call site) and rank the reads, writes and
# their bytes, the routine table the bytes per routine, the Perfetto export the same bytes
# on its io slices (tests/programs/rep_io.c).
# Both MPIs, 2 and 3 ranks, exact figures from the program's own counts.
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_io) || continue
    for n in 2 3; do
        d=$TEST_TMP/$impl-$n
        mkdir -p "$d"
        (cd "$d" && rt_mpi $impl "$d/run" $n "$p" "$d") >"$d/out" 2>"$d/err" ||
            { soft_fail "$impl -n $n: failed: $(head -c 300 "$d/err")"; continue; }
        "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
            { soft_fail "$impl -n $n: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
        "$MPILENS" report -q "$d/run" >"$d/rep.txt" 2>"$d/rep.err" ||
            { soft_fail "$impl -n $n: report failed: $(head -c 300 "$d/rep.err")"; continue; }
        r=$(python3 - "$d/rep.json" "$n" "$d" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
np = int(sys.argv[2])
bad = []
io = rep.get('io')
if io is None:
    print('no "io" in the JSON report'); sys.exit()
files = {}
for e in io:
    if not e['opened_at'].startswith('rep_io.c:'):
        bad.append('%s opened at %s, want rep_io.c:LINE' % (e['file'], e['opened_at']))
    files.setdefault(e['file'], {})[e['rank']] = e
a, b = sys.argv[3] + '/rep_io_a.dat', sys.argv[3] + '/rep_io_b.dat'
if sorted(files) != [a, b]:
    print('files: got %s, want %s' % (sorted(files), [a, b])); sys.exit()
for r in range(np):
    n = r + 1
    want_a = dict(opens=1, writes=5, written_bytes=40 * n + 16 + 12 + n + 2, reads=4, read_bytes=20 + 32 + 4 * n + 8)
    want_b = dict(opens=1, writes=2, written_bytes=7 + 24, reads=0, read_bytes=0)
    for f, want in ((a, want_a), (b, want_b)):
        got = files[f].get(r)
        if not got:
            bad.append('%s rank %d: missing' % (f, r)); continue
        for k, v in want.items():
            if got[k] != v:
                bad.append('%s rank %d %s: got %s, want %s' % (f, r, k, got[k], v))
ro = {x['routine']: x['bytes'] for x in rep['routines']}
tri = np * (np + 1) // 2   # sum of n over the ranks
for name, want in (('MPI_File_write_at', 40 * tri), ('MPI_File_write_at_all', 16 * np + 24 * np),
                   ('MPI_File_iwrite_at', 12 * np), ('MPI_File_write_ordered', tri),
                   ('MPI_File_write_shared', 2 * np), ('MPI_File_read_at', 20 * np),
                   ('MPI_File_read_at_all_begin', 32 * np), ('MPI_File_iread_at', 4 * tri),
                   ('MPI_File_read', 8 * np), ('MPI_File_write_all', 7 * np),
                   ('MPI_File_read_at_all_end', 0), ('MPI_File_open', 0)):
    if ro.get(name) != want:
        bad.append('routine %s bytes: got %s, want %s' % (name, ro.get(name), want))
print('; '.join(bad[:6]))
PY
)
        [ -z "$r" ] || soft_fail "$impl -n $n: $r"
        # the Perfetto export carries the same bytes on the io slices
        "$MPILENS" export -q --format=perfetto "$d/run" -o "$d/trace.json" 2>"$d/exp.err" ||
            { soft_fail "$impl -n $n: export failed: $(head -c 300 "$d/exp.err")"; continue; }
        r=$(python3 - "$d/trace.json" "$d/rep.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t['traceEvents'] if isinstance(t, dict) else t
got = sum(e.get('args', {}).get('bytes', 0) for e in ev if e.get('cat') == 'io')
want = sum(x['read_bytes'] + x['written_bytes'] for x in json.load(open(sys.argv[2]))['io'])
if got != want or not want:
    print('perfetto io bytes %s, report %s' % (got, want))
PY
)
        [ -z "$r" ] || soft_fail "$impl -n $n: $r"
        grep -q '^-* *I/O' "$d/rep.txt" || grep -q 'I/O (MPI_File' "$d/rep.txt" ||
            soft_fail "$impl -n $n: no I/O section in the text report"
        grep -Eq '^  [^ ]*/rep_io_a\.dat +rep_io\.c:[0-9]+ +0 +4 +' "$d/rep.txt" ||
            soft_fail "$impl -n $n: no 'rep_io_a.dat rep_io.c:LINE 0 4' row in the I/O section: $(grep -A4 'I/O' "$d/rep.txt" | head -5)"
    done
done
