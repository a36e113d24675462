# report_io_fortran: MPI-IO from Fortran is recorded under its own name
# (tests/programs/rep_io_f.f90 with the mpi module, rep_io_f08.f90 with
# mpi_f08; 2 ranks, both MPIs, through mpilens run).  Each rank calls, in
# order, MPI_File_open, _write_at (r + 1 integers), _write_at_all (3
# doubles), _read_at (2 integers), _close.  dump of every rank must show
# these five routines in this order and no handle conversion
# (MPI_File_f2c / MPI_File_c2f).  Under MPICH (its bindings call the C
# routines) the bytes are the program's: per rank written 4 (r + 1) + 24,
# read 8, so over 2 ranks MPI_File_write_at 4 + 8 = 12 B, _write_at_all 48,
# _read_at 16, and the I/O section has these per rank (the file named
# rep_io_f.dat for the mpi module; mpi_f08's open is recorded without its
# file: the row is "(unknown)"; the name as given, relative).  Open MPI's bindings call PMPI_: the
# calls are there, their bytes 0 (docs/REPORT.md).
# Before: under MPICH the Fortran binding's first C call, MPI_File_f2c
# (MPI_File_c2f for mpi_f08's open), took the call's record: dump showed
# MPI_File_f2c where MPI_File_write_at_all was called, and no bytes.
need_mpilens
for impl in openmpi mpich; do
for name in rep_io_f_f90 rep_io_f08_f90; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl $name) || continue
    d=$TEST_TMP/$impl/$name
    what="$impl $name"
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 2 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$what: failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^rep_io_f: done' "$d/out" || { soft_fail "$what: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$what: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    for r in 0 1; do
        "$MPILENS" dump "$d/run/rank-0000$r.mlt" >"$d/dump$r" 2>"$d/dump.err" ||
            { soft_fail "$what: dump of rank $r failed: $(head -c 300 "$d/dump.err")"; continue 2; }
    done
    r=$(python3 - "$d" "$impl" "$name" <<'PY'
import json, sys
d, impl, name = sys.argv[1:]
bad = []
want = ['MPI_File_open', 'MPI_File_write_at', 'MPI_File_write_at_all', 'MPI_File_read_at', 'MPI_File_close']
for r in range(2):
    got = [l.split()[4] for l in open(f'{d}/dump{r}') if len(l.split()) > 4 and l.split()[4].startswith('MPI_File')]
    if got != want: bad.append(f'dump rank {r}: {got}, want {want}')
rep = json.load(open(f'{d}/rep.json'))
rb = {x['routine']: (x['calls'], x['bytes']) for x in rep['routines']}
mpich = impl == 'mpich'
for n, b in (('MPI_File_write_at', 12), ('MPI_File_write_at_all', 48), ('MPI_File_read_at', 16)):
    w = (2, b if mpich else 0)
    if rb.get(n) != w: bad.append(f'report: {n} (calls, bytes) {rb.get(n)}, want {w}')
if mpich:
    fname = '(unknown)' if 'f08' in name else 'rep_io_f.dat'
    io = sorted((e['file'], e['rank'], e['writes'], e['written_bytes'], e['reads'], e['read_bytes']) for e in rep.get('io', []))
    w = [(fname, r, 2, 4 * (r + 1) + 24, 1, 8) for r in range(2)]
    if io != w: bad.append(f'report io {io}, want {w}')
if rep['findings']: bad.append(f'findings {[f["kind"] for f in rep["findings"]]}')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$what: $r"
done
done
