# dump_commname: names a program gives its communicators with
# MPI_Comm_set_name (tests/programs/rep_commname.c, dl_commname.c), 4 ranks
# (3 for the deadlock), both MPIs, through mpilens run.
# rep_commname splits the world by parity (even world ranks 0,2 name theirs
# "even", odd ranks 1,3 "odd ranks"), an MPI_Allreduce on it before and
# after the name is set; a duplicate of the world named "solver comm" with
# an MPI_Barrier; an unnamed duplicate with an MPI_Barrier.  So:
#   dump: on rank r both MPI_Allreduce lines say comm=even#I (r even) or
#     comm=odd_ranks#I (r odd: the space as '_', one token), the first
#     MPI_Barrier comm=solver_comm#I, the second comm=MPI_Comm_dup#I (as
#     before), and the header line of the communicator starts
#     '# rank r comm even#I: created by MPI_Comm_split' (odd_ranks#I);
#   export --format=otf2, otf2-print -G: one COMM definition each named
#     "comm N 'even' (2 ranks: 0,2)", "comm N 'odd ranks' (2 ranks: 1,3)",
#     "comm N 'solver comm' (4 ranks: 0-3)", and one "comm N (4 ranks: 0-3)";
#   the deadlock verdict of dl_commname (ranks 0-1 in MPI_Barrier on the
#     3-rank duplicate named "solver comm", rank 2 in MPI_Recv on it) names
#     it: "MPI_Barrier on comm #1 'solver comm' (3 ranks)".
# Before: names were not recorded (dump: odd/even comm=MPI_Comm_split#I,
# OTF2 "comm N (2 ranks: 0,2)", the verdict "comm #1 (3 ranks)").
# timeout: 200
need_mpilens
command -v otf2-print >/dev/null || fail "otf2-print missing (setup.sh deps installs otf2-tools)"
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_commname) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 4 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: rep_commname failed: $(head -c 300 "$d/err")"; continue; }
    grep -q '^rep_commname: done' "$d/out" || { soft_fail "$impl: rep_commname: $(head -c 200 "$d/out")"; continue; }
    "$MPILENS" dump "$d/run" >"$d/dump" 2>"$d/dump.err" || { soft_fail "$impl: dump failed"; continue; }
    "$MPILENS" export --format=otf2 -o "$d/tr" "$d/run" >/dev/null 2>"$d/exp.err" ||
        { soft_fail "$impl: export --format=otf2 failed: $(head -c 300 "$d/exp.err")"; continue; }
    otf2-print -G "$d/tr.otf2" >"$d/defs.txt" 2>"$d/otf2.err" || { soft_fail "$impl: otf2-print -G failed"; continue; }
    r=$(python3 - "$d" <<'PY'
import re, sys
d = sys.argv[1]
bad = []
seen = {}
for l in open(f'{d}/dump'):
    f = l.split()
    if l.startswith('# rank ') and ' comm ' in l and 'created by MPI_Comm_split' in l:
        r = int(f[2])
        want = 'even#' if r % 2 == 0 else 'odd_ranks#'
        if not f[4].startswith(want): bad.append(f'rank {r} header: {l.strip()[:100]}')
        seen[r, 'hdr'] = 1
        continue
    if l.startswith('#') or len(f) < 7: continue
    r, name, site = int(f[0]), f[4], f[5]
    kv = dict(x.split('=', 1) for x in f[6:] if '=' in x)
    if name == 'MPI_Allreduce':
        want = 'even' if r % 2 == 0 else 'odd_ranks'
    elif name == 'MPI_Barrier':
        want = 'solver_comm' if site.endswith(':27') else 'MPI_Comm_dup'
    else:
        continue
    seen[r, name] = seen.get((r, name), 0) + 1
    if not re.fullmatch(re.escape(want) + r'#\d+', kv.get('comm', '')):
        bad.append(f'rank {r} {name} at {site}: comm={kv.get("comm")}, want {want}#I')
for r in range(4):
    for k, n in (('hdr', 1), ('MPI_Allreduce', 2), ('MPI_Barrier', 2)):
        if seen.get((r, k), 0) != n: bad.append(f'rank {r}: {seen.get((r, k), 0)} {k} lines, want {n}')
names = re.findall(r'^COMM\s+\d+\s+Name: "([^"]*)"', open(f'{d}/defs.txt').read(), re.M)
for w in (r"comm \d+ 'even' \(2 ranks: 0,2\)", r"comm \d+ 'odd ranks' \(2 ranks: 1,3\)",
          r"comm \d+ 'solver comm' \(4 ranks: 0-3\)", r"comm \d+ \(4 ranks: 0-3\)"):
    k = sum(bool(re.fullmatch(w, n)) for n in names)
    if k != 1: bad.append(f'otf2: {k} COMM definitions named /{w}/ (names: {names})')
print('; '.join(bad[:5]))
PY
)
    [ -z "$r" ] || soft_fail "$impl: $r"
    p=$(prog $impl dl_commname) || continue
    (cd "$d" && timeout -k 5 60 "$MPILENS" run --mpi=$impl -n 3 -o "$d/dl" --deadlock-timeout 1 --monitor off "$p") \
        >"$d/dl.out" 2>"$d/dl.err"
    rc=$?
    [ $rc = 86 ] || { soft_fail "$impl: dl_commname: exit status $rc, want 86 (deadlock)"; continue; }
    v=$(cat "$d/dl/deadlock.txt" 2>/dev/null)
    assert_contains "$v" "rank 0: MPI_Barrier on comm #1 'solver comm' (3 ranks)" "$impl: deadlock.txt"
    assert_contains "$v" "rank 2: MPI_Recv from 0 tag 5 on comm #1 'solver comm' (3 ranks)" "$impl: deadlock.txt"
done
