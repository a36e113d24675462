# report_stack: call sites deeper than one frame (mpilens run -k N, mpiP's
# -k), both MPIs, 2 ranks, through `mpilens run`.  tests/programs/
# stack_callers.c calls MPI_Barrier and MPI_Allreduce from helper(), which
# f() (6 rounds in all) and g() (10) call.  With -k 2, report --json has two
# sites per routine, "stack" [helper's line, f's line] with 12 calls and
# [helper's line, g's line] with 20 ("site" the innermost frame), the text
# report shows "helper line < caller line", dump a stack= field on each
# call; with the default (-k 1) one site per routine, 32 calls, no stack=
# field; with -k 8 the chains reach main (4 call lines of main: 4 sites);
# -k 2 with libgcc's unwinder (MPILENS_UNWIND=libgcc) as with libunwind's;
# -k 3 on tests/programs/ok_thread.c: the MPI_Send of the thread the program
# starts has a one-frame chain (it ends at the runtime's pthread_create
# trampoline), and no chain holds a frame of the runtime.
# The Fortran twin (stack_callers_f.f90, `use mpi`): -k 2 gives the same two
# sites at the Fortran lines (the runtime's Fortran wrapper and the MPI's
# binding frames skipped).  Bad depths (0, x, 99, 9, empty) are one line and
# exit 2, no run directory.  Lines come from the @ markers of the sources.
# timeout: 240
need_mpilens
src=$ROOT/tests/programs/stack_callers.c
fsrc=$ROOT/tests/programs/stack_callers_f.f90
mark() { grep -n "@$1\b" "$2" | head -1 | cut -d: -f1; }
LB=$(mark helper_barrier "$src") LA=$(mark helper_allreduce "$src") LF=$(mark f "$src") LG=$(mark g "$src")
FB=$(mark fhelper "$fsrc") FF=$(mark ff "$fsrc") FG=$(mark fg "$fsrc")
TW=$(grep -n 'MPI_Send(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);' "$ROOT/tests/programs/ok_thread.c" | head -1 | cut -d: -f1)
[ -n "$LB" ] && [ -n "$LA" ] && [ -n "$LF" ] && [ -n "$LG" ] && [ -n "$FB" ] && [ -n "$FF" ] && [ -n "$FG" ] && [ -n "$TW" ] ||
    fail "markers not found in the sources"

# check_json JSON FILE ROUTINE WANT: WANT is "stack|calls;stack|calls" with
# stack frames ','-separated; the sites of ROUTINE must be exactly those
check_json() {
    python3 - "$@" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
routine, want = sys.argv[2], sys.argv[3]
w = {}
for item in want.split(';'):
    st, calls = item.split('|')
    w[tuple(st.split(','))] = int(calls)
got = {}
for s in rep['sites']:
    if s['routine'] != routine: continue
    st = tuple(s.get('stack', []))
    if not st or s['site'] != st[0]:
        print(f'{routine}: site {s["site"]!r} is not the first frame of stack {list(st)}'); sys.exit(0)
    got[st] = got.get(st, 0) + s['calls']
if got != w: print(f'{routine} sites {sorted(got.items())}, want {sorted(w.items())}')
PY
}

for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl stack_callers) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    b=stack_callers.c
    # -k 2 (and --stack-depth=2 spelled out)
    (cd "$d" && mpilens_run $impl "$d/k2" 2 -k 2 "$p") >"$d/out2" 2>"$d/err2" ||
        { soft_fail "$impl: mpilens run -k 2 failed: $(head -c 300 "$d/err2")"; continue; }
    grep -q '^stack_callers: done' "$d/out2" || soft_fail "$impl -k 2: program output $(head -c 200 "$d/out2")"
    "$MPILENS" report --json -q "$d/k2" >"$d/k2.json" 2>"$d/rep.err" ||
        { soft_fail "$impl: report --json failed: $(head -c 300 "$d/rep.err")"; continue; }
    r=$(check_json "$d/k2.json" MPI_Barrier "$b:$LB,$b:$LF|12;$b:$LB,$b:$LG|20")
    [ -z "$r" ] || soft_fail "$impl -k 2: $r"
    r=$(check_json "$d/k2.json" MPI_Allreduce "$b:$LA,$b:$LF|12;$b:$LA,$b:$LG|20")
    [ -z "$r" ] || soft_fail "$impl -k 2: $r"
    "$MPILENS" report -q "$d/k2" >"$d/k2.txt" 2>"$d/rep.err" || soft_fail "$impl: report failed: $(head -c 300 "$d/rep.err")"
    assert_contains "$(cat "$d/k2.txt")" "$b:$LB < $b:$LF" "$impl -k 2 text report"
    assert_contains "$(cat "$d/k2.txt")" "$b:$LB < $b:$LG" "$impl -k 2 text report"
    grep "$b:" "$d/k2.txt" | awk 'length > 100 { print "line longer than 100 columns: " $0; exit }' | grep . &&
        soft_fail "$impl -k 2: a call-site line of the text report is wider than 100 columns"
    "$MPILENS" dump --no-header "$d/k2" >"$d/k2.dump" 2>"$d/dump.err" || soft_fail "$impl: dump failed"
    n_f=$(grep -c " MPI_Barrier $b:$LB .*stack=$b:$LB;$b:$LF\$" "$d/k2.dump")
    n_g=$(grep -c " MPI_Barrier $b:$LB .*stack=$b:$LB;$b:$LG\$" "$d/k2.dump")
    assert_eq "12 20" "$n_f $n_g" "$impl -k 2: dump MPI_Barrier lines with stack= through f and g"

    # libgcc's unwinder (the runtime's own where libunwind is not installed): the same sites
    (cd "$d" && MPILENS_UNWIND=libgcc mpilens_run $impl "$d/g2" 2 -k 2 "$p") >"$d/outg" 2>"$d/errg" ||
        { soft_fail "$impl: MPILENS_UNWIND=libgcc mpilens run -k 2 failed: $(head -c 300 "$d/errg")"; continue; }
    "$MPILENS" report --json -q "$d/g2" >"$d/g2.json" 2>"$d/rep.err" || soft_fail "$impl: report --json (libgcc) failed"
    r=$(check_json "$d/g2.json" MPI_Barrier "$b:$LB,$b:$LF|12;$b:$LB,$b:$LG|20")
    [ -z "$r" ] || soft_fail "$impl -k 2, MPILENS_UNWIND=libgcc: $r"

    # default: one frame, one site
    (cd "$d" && mpilens_run $impl "$d/k1" 2 "$p") >"$d/out1" 2>"$d/err1" ||
        { soft_fail "$impl: mpilens run failed: $(head -c 300 "$d/err1")"; continue; }
    "$MPILENS" report --json -q "$d/k1" >"$d/k1.json" 2>"$d/rep.err" || soft_fail "$impl: report --json (k1) failed"
    r=$(check_json "$d/k1.json" MPI_Barrier "$b:$LB|32")
    [ -z "$r" ] || soft_fail "$impl -k 1: $r"
    "$MPILENS" dump --no-header "$d/k1" >"$d/k1.dump" 2>/dev/null || soft_fail "$impl: dump (k1) failed"
    grep -q 'stack=' "$d/k1.dump" && soft_fail "$impl -k 1: dump has a stack= field"
    assert_eq 32 "$(grep -c " MPI_Barrier $b:$LB " "$d/k1.dump")" "$impl -k 1: dump MPI_Barrier lines"

    # -k 8: the chains reach main, whose four calls make four sites
    (cd "$d" && mpilens_run $impl "$d/k8" 2 --stack-depth=8 "$p") >"$d/out8" 2>"$d/err8" ||
        { soft_fail "$impl: mpilens run --stack-depth=8 failed: $(head -c 300 "$d/err8")"; continue; }
    "$MPILENS" report --json -q "$d/k8" >"$d/k8.json" 2>"$d/rep.err" || soft_fail "$impl: report --json (k8) failed"
    r=$(python3 - "$d/k8.json" "$b:$LB" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
s = [x for x in rep['sites'] if x['routine'] == 'MPI_Barrier']
main = {x['stack'][2] for x in s if len(x['stack']) > 2 and x['stack'][2].startswith('stack_callers.c:')}
if len(s) != 4 or sum(x['calls'] for x in s) != 32 or len(main) != 4 or any(x['site'] != sys.argv[2] for x in s):
    print('MPI_Barrier sites: ' + '; '.join(f'{x["stack"]} x{x["calls"]}' for x in s))
PY
)
    [ -z "$r" ] || soft_fail "$impl -k 8: want 4 chains through 4 lines of main, 32 calls: $r"

    # a thread the program started: its chain ends at the thread's start (the
    # runtime's pthread_create trampoline is no part of it); no frame of the
    # runtime anywhere
    pt=$(prog $impl ok_thread) || continue
    (cd "$d" && mpilens_run $impl "$d/t3" 2 -k 3 "$pt") >"$d/outt" 2>"$d/errt" ||
        { soft_fail "$impl: mpilens run -k 3 ok_thread failed: $(head -c 300 "$d/errt")"; continue; }
    "$MPILENS" report --json -q "$d/t3" >"$d/t3.json" 2>"$d/rep.err" || soft_fail "$impl: report --json (threads) failed"
    r=$(python3 - "$d/t3.json" "ok_thread.c:$TW" <<'PY'
import json, re, sys
rep = json.load(open(sys.argv[1]))
bad = [s['stack'] for s in rep['sites'] if any(re.match(r'(rt|failsafe|requests|wrap-\w+)\.c:', f) for f in s['stack'])]
w = [s['stack'] for s in rep['sites'] if s['site'] == sys.argv[2]]
if bad or w != [[sys.argv[2]]]: print(f'runtime frames in {bad}; the worker thread\'s MPI_Send: {w}')
PY
)
    [ -z "$r" ] || soft_fail "$impl -k 3, threads: $r"

    # Fortran: the binding's frames are not part of the chain
    pf=$(prog $impl stack_callers_f_f90) || continue
    (cd "$d" && mpilens_run $impl "$d/f2" 2 -k 2 "$pf") >"$d/outf" 2>"$d/errf" ||
        { soft_fail "$impl: mpilens run -k 2 (Fortran) failed: $(head -c 300 "$d/errf")"; continue; }
    "$MPILENS" report --json -q "$d/f2" >"$d/f2.json" 2>"$d/rep.err" || soft_fail "$impl: report --json (Fortran) failed"
    fb=stack_callers_f.f90
    r=$(check_json "$d/f2.json" MPI_Barrier "$fb:$FB,$fb:$FF|12;$fb:$FB,$fb:$FG|20")
    [ -z "$r" ] || soft_fail "$impl Fortran -k 2: $r"
    "$MPILENS" dump --no-header "$d/f2" >"$d/f2.dump" 2>/dev/null || soft_fail "$impl: dump (Fortran) failed"
    assert_eq 32 "$(grep -cE " MPI_Barrier $fb:$FB .*lang=fortran stack=$fb:$FB;$fb:($FF|$FG)\$" "$d/f2.dump")" \
        "$impl Fortran -k 2: dump MPI_Barrier lines, lang=fortran, with their chain"
done

# bad depths: one line, exit 2, no run directory
pb=$BUILD/mpich/stack_callers
[ -x "$pb" ] || pb=$BUILD/openmpi/stack_callers
[ -x "$pb" ] || fail "stack_callers was not built"
for k in 0 x 99 9 -1 ''; do
    "$MPILENS" run -q -n 1 -o "$TEST_TMP/bad" -k "$k" "$pb" >"$TEST_TMP/bo" 2>"$TEST_TMP/be"
    rc=$?
    assert_eq 2 "$rc" "exit status of -k '$k'"
    assert_eq 1 "$(wc -l <"$TEST_TMP/be")" "lines on stderr for -k '$k'"
    assert_contains "$(cat "$TEST_TMP/be")" "mpilens run: -k (--stack-depth) wants a number of frames from 1 to 8" "-k '$k'"
    [ -e "$TEST_TMP/bad" ] && soft_fail "-k '$k' left a run directory"
done
"$MPILENS" run -q -n 1 -o "$TEST_TMP/bad" --stack-depth=abc "$pb" >/dev/null 2>"$TEST_TMP/be"
assert_eq 2 "$?" "exit status of --stack-depth=abc"
assert_contains "$("$MPILENS" run --help)" "-k, --stack-depth N" "mpilens run --help"
exit 0
