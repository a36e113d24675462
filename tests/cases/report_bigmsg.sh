# report_bigmsg: messages above 2 GiB (tests/programs/rep_bigmsg.c, 2 ranks,
# both MPIs, through mpilens run): two messages of one element of a 2.5 GiB
# contiguous datatype, the first received by MPI_Irecv + MPI_Wait, the
# second by MPI_Recv.  report --json: 2 matched messages of 2684354560 bytes
# (what MPI_Get_elements_x said to the program), MPI_Send 5368709120 bytes,
# MPI_Wait and MPI_Recv 2684354560 each, matrix 0 -> 1 the same; otf2-print:
# the sends' and receives' lengths.  Before the fix the runtime took the
# type's size from MPI_Type_size (MPI_UNDEFINED above INT_MAX) and the
# received size from the status only up to INT_MAX: every figure was 0.
# The rank files hold 32-bit byte counts per message: above 4 GiB they
# saturate (docs/FORMAT.md).
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_bigmsg) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 2 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: rep_bigmsg failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^SKIP' "$d/out" && { note "$impl: $(cat "$d/out")"; continue; }
    grep -q '^rep_bigmsg: done' "$d/out" || { soft_fail "$impl: rep_bigmsg: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$impl: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    "$MPILENS" export --format=otf2 -o "$d/tr" "$d/run" >/dev/null 2>"$d/exp.err" ||
        { soft_fail "$impl: export --format=otf2 failed: $(head -c 300 "$d/exp.err")"; continue; }
    command -v otf2-print >/dev/null || { fail "otf2-print missing (setup.sh deps installs otf2-tools)"; continue; }
    otf2-print "$d/tr.otf2" >"$d/otf2.txt" 2>"$d/otf2.err" || { soft_fail "$impl: otf2-print failed: $(head -c 300 "$d/otf2.err")"; continue; }
    r=$(python3 - "$d" <<'PY'
import json, re, sys
d = sys.argv[1]
got = [int(l.split()[2]) for l in open(f'{d}/out') if l.startswith('got ')]
if len(got) != 2: print(f'the program printed {got}'); sys.exit(0)
n = got[0]
bad = []
if got != [n, n] or n != 5 << 29: bad.append(f'the program received {got}')
rep = json.load(open(f'{d}/rep.json'))
m = rep['messages']
if (m['matched'], m['bytes']) != (2, 2 * n): bad.append(f'messages {m["matched"]} of {m["bytes"]} bytes, want 2 of {2 * n}')
rb = {x['routine']: x['bytes'] for x in rep['routines']}
for k, w in (('MPI_Send', 2 * n), ('MPI_Wait', n), ('MPI_Recv', n)):
    if rb.get(k) != w: bad.append(f'{k} {rb.get(k)} bytes, want {w}')
pairs = [(x['src'], x['dst'], x['messages'], x['bytes']) for x in rep['matrix']['pairs']]
if pairs != [(0, 1, 2, 2 * n)]: bad.append(f'matrix {pairs}, want [(0, 1, 2, {2 * n})]')
lens = sorted((l.split()[0], int(re.search(r'Length: (\d+)', l)[1])) for l in open(f'{d}/otf2.txt')
              if re.match(r'MPI_(SEND|RECV|IRECV) ', l) and 'Length:' in l)
w = [('MPI_IRECV', n), ('MPI_RECV', n), ('MPI_SEND', n), ('MPI_SEND', n)]
if lens != w: bad.append(f'otf2-print lengths {lens}, want {w}')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || soft_fail "$impl: $r"
    rm -rf "$d/run" "$d/tr" "$d/tr.otf2" "$d/tr.def"
done
