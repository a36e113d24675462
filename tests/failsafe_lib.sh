# tests/failsafe_lib.sh — helpers of tests/cases/failsafe_*.sh (sourced).
#
# A case calls fs_setup, then fs_matrix MODE... or fs_run/fs_check_* itself,
# then fs_done (exit 0 when every check passed, 1 with the reasons).
# Test program: tests/programs/failsafe.c (fails as MODE says on rank RANK,
# after 9 known MPI calls per rank), built here with -O0 -g for each MPI,
# run by `mpilens run` (fs_launch), the plain runs it is compared with by
# the MPI's launcher.
# Environment: MPILENS (default build/bin/mpilens), FS_IMPLS (default
# "openmpi mpich", those installed), FS_RANKS (default "1 0"), FS_KEEP=1
# keeps the scratch directory.

FS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPILENS=${MPILENS:-$FS_ROOT/build/bin/mpilens}
FS_SRC=$FS_ROOT/tests/programs/failsafe.c
FS_FAILS=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset LD_PRELOAD MPILENS_DIR MPILENS_DISABLE

fs_fail() {
    echo "FAIL: $*"
    FS_FAILS=$((FS_FAILS + 1))
}

fs_setup() {
    [ -x "$MPILENS" ] || { echo "FAIL: $MPILENS is not built (run make)"; exit 1; }
    if [ -n "${TEST_TMP:-}" ]; then   # under tests/run: its scratch directory, kept
        FS_TMP=$TEST_TMP
    else
        FS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-failsafe.XXXXXX")
        [ "${FS_KEEP:-0}" = 1 ] || trap 'rm -rf "$FS_TMP"' EXIT
    fi
    local want=${FS_IMPLS:-openmpi mpich} impl
    FS_IMPLS_OK=
    for impl in $want; do
        command -v "mpicc.$impl" >/dev/null && command -v "mpirun.$impl" >/dev/null || continue
        local rt=$FS_ROOT/build/lib/mpilens/libmpilens-$impl.so
        [ -f "$rt" ] || { fs_fail "$impl: $rt is not built"; continue; }
        if ! "mpicc.$impl" -O0 -g -o "$FS_TMP/failsafe-$impl" "$FS_SRC" 2>"$FS_TMP/cc-$impl.log"; then
            fs_fail "$impl: cannot build failsafe.c: $(head -c 300 "$FS_TMP/cc-$impl.log")"
            continue
        fi
        FS_IMPLS_OK="$FS_IMPLS_OK $impl"
    done
    [ -n "$FS_IMPLS_OK" ] || { echo "FAIL: no MPI (mpicc.openmpi / mpicc.mpich) to test with"; exit 1; }
}

fs_line() {  # MARKER: its line number in failsafe.c
    grep -n -F -- "$1" "$FS_SRC" | head -1 | cut -d: -f1
}

# fs_launch IMPL DIR|- ARGS...: runs 2 ranks; under `mpilens run` (not -q:
# its notes on MPI errors the program went on after are checked) into
# DIR, or, with DIR "-", plainly with the MPI's own launcher; prints nothing
# itself; returns mpilens run's (or the launcher's) exit status.
fs_launch() {
    local impl=$1 dir=$2; shift 2
    local p=$FS_TMP/failsafe-$impl
    if [ "$dir" != - ]; then
        timeout -k 5 60 "$MPILENS" run --mpi="$impl" -n 2 -o "$dir" "$p" "$@"
        return
    fi
    case $impl in
    openmpi) timeout -k 5 60 mpirun.openmpi --oversubscribe -n 2 "$p" "$@" ;;
    mpich) timeout -k 5 60 mpirun.mpich -n 2 "$p" "$@" ;;
    esac
}

# fs_launch_mode IMPL DIR MODE RANK: fs_launch into DIR, output to DIR.out
# and DIR.err.  Mode killme: once rank RANK says it waits, the test sends
# it SIGKILL from outside (as the OOM killer would).
fs_launch_mode() {
    local impl=$1 d=$2 mode=$3 rank=$4
    if [ "$mode" != killme ]; then
        fs_launch "$impl" "$d" "$mode" "$rank" >"$d.out" 2>"$d.err"
        return
    fi
    : >"$d.out"
    fs_launch "$impl" "$d" "$mode" "$rank" >"$d.out" 2>"$d.err" &
    local bg=$! pid= i
    for i in $(seq 1 300); do
        pid=$(sed -n "s/^failsafe: rank $rank pid \([0-9]*\) waiting$/\1/p" "$d.out")
        [ -n "$pid" ] && break
        kill -0 $bg 2>/dev/null || break
        sleep 0.1
    done
    if [ -n "$pid" ]; then
        kill -KILL "$pid"
    else
        fs_fail "$impl killme on rank $rank: rank $rank never said it waits: $(tail -c 300 "$d.err" | tr '\n' '|')"
        kill $bg 2>/dev/null
    fi
    wait $bg
}

# fs_leftovers WHAT ARGS...: no process of the test program with these
# arguments is left (killed if one is).
fs_leftovers() {
    local what=$1 impl=$2; shift 2
    local pat="$FS_TMP/failsafe-$impl $*"
    if pgrep -f -- "$pat" >/dev/null; then
        fs_fail "$what: rank processes left running after mpilens run ended: $(pgrep -af -- "$pat" | head -3 | tr '\n' '|')"
        pkill -9 -f -- "$pat"
    fi
}

# The first 9 events of every rank are the known calls.  The failing rank
# completed all 9; the other one may have been stopped inside its 9th
# (MPI_Allreduce: the failing rank can leave it first), and then the live
# slot must say so.
fs_check_calls() {  # WHAT DIR VICTIM
    local what=$1 dir=$2 victim=${3:-} r got
    local want8="MPI_Init MPI_Comm_rank MPI_Comm_size MPI_Barrier MPI_Barrier MPI_Barrier MPI_Barrier MPI_Barrier"
    local want="$want8 MPI_Allreduce"
    "$MPILENS" dump "$dir" >"$dir.dump" 2>"$dir.dump.err" || { fs_fail "$what: mpilens dump failed: $(head -c 300 "$dir.dump.err")"; return; }
    for r in 0 1; do
        got=$(awk -v r=$r '!/^#/ && $1 == r && $2 == 0 { print $5 }' "$dir.dump" | head -9 | tr '\n' ' ' | sed 's/ $//')
        [ "$got" = "$want" ] && continue
        if [ "$r" != "$victim" ] && [ "$got" = "$want8" ] &&
            "$MPILENS" report --failures "$dir" 2>/dev/null | awk -v r=$r 'index($0, "rank " r " (") == 1 { on = 1 } on && /^$/ { exit } on { print }' |
            grep -q "in MPI_Allreduce called at failsafe.c:$(fs_line LAST:allreduce)"; then
            continue
        fi
        fs_fail "$what: rank $r: recorded calls '$got', expected '$want'"
    done
}

# The report's paragraph about rank R.
fs_block() {  # REPORTFILE RANK
    awk -v r="$2" 'index($0, "rank " r " (") == 1 { on = 1 } on && /^$/ { exit } on { print }' "$1"
}

fs_expect() {  # WHAT BLOCK NEEDLE...
    local what=$1 block=$2 n; shift 2
    for n in "$@"; do
        case $block in
        *"$n"*) ;;
        *) fs_fail "$what: the diagnosis of the rank does not say '$n'; it says: $(echo "$block" | head -12 | tr '\n' '|' | head -c 900)" ;;
        esac
    done
}

# Modes where the failing rank goes on and finalizes (mpilens run exits 0
# and prints a note instead of a diagnosis).
fs_soft() {
    case $1 in errret|errhandler|sighandled) return 0 ;; esac
    return 1
}

# What the report must say about the failing rank, per mode.
fs_expected() {  # MODE -> needles, one per line
    local L; L=$(fs_line "FAIL:$1")
    local last; last=$(fs_line "LAST:allreduce")
    case $1 in
    segv) printf '%s\n' FAILED "signal SIGSEGV (SEGV_MAPERR" "at address 0x0" "where: failsafe.c:$L" ;;
    bus) printf '%s\n' FAILED "signal SIGBUS (BUS_ADRERR" "where: failsafe.c:$L" ;;
    fpe) printf '%s\n' FAILED "signal SIGFPE (FPE_INTDIV" "where: failsafe.c:$L" ;;
    ill) printf '%s\n' FAILED "signal SIGILL (ILL_" "where: failsafe.c:$L" ;;
    abrt) printf '%s\n' FAILED "signal SIGABRT" "where: failsafe.c:$L" ;;
    stack) printf '%s\n' FAILED "signal SIGSEGV" "stack overflow" "where: failsafe.c:$L" ;;
    tstack) printf '%s\n' FAILED "signal SIGSEGV" "stack overflow" "where: failsafe.c:$(fs_line FAIL:stack)" ;;
    term) printf '%s\n' FAILED "signal SIGTERM (SI_USER" "sent by the process itself" "where: failsafe.c:$L" ;;
    int) printf '%s\n' FAILED "signal SIGINT (SI_USER" "where: failsafe.c:$L" ;;
    kill) printf '%s\n' FAILED "killed (SIGKILL or the OOM killer): no record" "last MPI call MPI_Allreduce at failsafe.c:$last" ;;
    killme) printf '%s\n' FAILED "killed (SIGKILL or the OOM killer): no record" "seen gone by mpilens run at" \
        "last MPI call MPI_Allreduce at failsafe.c:$last" ;;
    exit) printf '%s\n' FAILED "exited with status 3 without calling MPI_Finalize (exit() called)" "where: failsafe.c:$L" ;;
    return) printf '%s\n' FAILED "exited with status 4 without calling MPI_Finalize (main returned)" "last MPI call MPI_Allreduce at failsafe.c:$last" ;;
    abort) printf '%s\n' FAILED "MPI_Abort called with error code 3" "where: MPI_Abort called at failsafe.c:$L" ;;
    fatal) printf '%s\n' FAILED "MPI error MPI_ERR_RANK" "under MPI_ERRORS_ARE_FATAL" "where: MPI_Send called at failsafe.c:$L" ;;
    errret|errhandler) printf '%s\n' "finalized normally" "MPI error MPI_ERR_RANK" "returned to the program" "where: MPI_Send called at failsafe.c:$L" ;;
    handlerabort) printf '%s\n' FAILED "MPI_Abort called with error code 5" "where: MPI_Abort called at failsafe.c:$L" \
        "called by the program's error handler for: MPI error MPI_ERR_RANK" \
        "inside another MPI call" "in MPI_Send called at failsafe.c:$(fs_line SEND:err)" ;;
    sighandled) printf '%s\n' "finalized normally" "signal SIGTERM (SI_USER" "handler of the program" ;;
    segvhandler) printf '%s\n' FAILED "signal SIGSEGV (SEGV_MAPERR" "handler of the program" "where: failsafe.c:$L" ;;
    esac
}

# fs_diag_checks WHAT FILE MODE RANK: the diagnosis in FILE (report
# --failures, or what mpilens run printed) says what fs_expected wants about
# RANK; a failure's summary line names RANK as the first failure and its
# paragraph says when ("at N.NNN s"); the other rank's paragraph gives its
# state (in the barrier it waits in, still in the MPI_Allreduce, or just
# out of it: MPICH's launcher was seen to kill it in between).
fs_diag_checks() {
    local what=$1 f=$2 mode=$3 rank=$4 block needles=()
    block=$(fs_block "$f" "$rank")
    if [ -z "$block" ]; then
        fs_fail "$what: the diagnosis says nothing about rank $rank: $(head -c 600 "$f" | tr '\n' '|')"
        return
    fi
    mapfile -t needles < <(fs_expected "$mode")
    fs_expect "$what" "$block" "${needles[@]}"
    fs_soft "$mode" && return
    grep -q "; first failure: rank $rank at [0-9]*\.[0-9][0-9][0-9] s$" "$f" ||
        fs_fail "$what: the summary does not name rank $rank as the first failure: $(sed -n 2p "$f")"
    echo "$block" | head -1 | grep -q "FAILED, first failure at [0-9]*\.[0-9][0-9][0-9] s" ||
        fs_fail "$what: no 'FAILED, first failure at N.NNN s' for rank $rank: $(echo "$block" | head -1)"
    local other=$((1 - rank)) ob
    ob=$(fs_block "$f" "$other")
    case $ob in
    *"state: in MPI_Barrier called at failsafe.c:$(fs_line "/* WAIT:barrier */") since "*) ;;
    *"state: in MPI_Allreduce called at failsafe.c:$(fs_line LAST:allreduce) since "*) ;;
    *"state: computing (not in MPI); last MPI call MPI_Allreduce at failsafe.c:$(fs_line LAST:allreduce) ended at "*) ;;  # stopped between the two
    *) fs_fail "$what: the state of rank $other is not in the diagnosis: $(echo "$ob" | head -8 | tr '\n' '|')" ;;
    esac
}

# fs_hydra_code A B: MPICH's banner ("BAD TERMINATION ... EXIT CODE: N")
# names the first process, in rank order, whose exit status the proxy
# reported.  A rank that the proxy's own clean-up killed (SIGKILL) counts
# as 0 when the proxy reaps it after its output loop, but as 9 when its
# waitpid(WNOHANG) after an event reaps it first (hydra pmip.c), which
# depends on how the proxy is scheduled in the few microseconds after the
# kill (seen with and without a busy mpilens run beside it: 1-2 runs in 25
# on 2 cores).  So a banner code 9 on one side and another code on the
# other is the same ending: the 9 becomes the other side's code.
fs_hydra_code() {
    local ca cb
    ca=$(sed -n 's/^=   EXIT CODE: //p' "$1" | head -1)
    cb=$(sed -n 's/^=   EXIT CODE: //p' "$2" | head -1)
    [ -n "$ca" ] && [ -n "$cb" ] && [ "$ca" != "$cb" ] || return 0
    if [ "$ca" = 9 ]; then
        sed -i "s/^=   EXIT CODE: 9\$/=   EXIT CODE: $cb/" "$1"
    elif [ "$cb" = 9 ]; then
        sed -i "s/^=   EXIT CODE: 9\$/=   EXIT CODE: $ca/" "$2"
    fi
    return 0
}

# fs_case IMPL MODE RANK [compare]: one run under mpilens run; with compare,
# also a plain run, whose exit status and output must be the same.
fs_case() {
    local impl=$1 mode=$2 rank=$3 cmp=${4:-}
    local d=$FS_TMP/$impl-$mode-$rank what="$impl $mode on rank $3" rc rc0 t0=$SECONDS
    local attempt tries=1 same=1
    [ -n "$cmp" ] && tries=3
    # With compare, a plain run must end the same way (exit status, output).
    # The launcher's own reaction races with or without the runtime (MPICH's
    # mpirun sometimes reports the SIGKILL it sent to the other rank first;
    # a plain run under load was seen to exit 1 instead of 3), so a pair that
    # differs is run again, up to 3 times.
    for attempt in $(seq 1 $tries); do
        rm -rf "$d"
        fs_launch_mode "$impl" "$d" "$mode" "$rank"
        rc=$?
        [ $rc -eq 124 ] || [ $rc -eq 137 ] && [ $((SECONDS - t0)) -ge 59 ] && fs_fail "$what: timed out"
        fs_leftovers "$what" "$impl" "$mode" "$rank"
        [ -n "$cmp" ] || break
        sed -E 's/PID [0-9]+/PID N/g; s/[0-9a-fx]{4,}/N/g' "$d.out" >"$d.out.n"   # pids, addresses
        fs_launch "$impl" - "$mode" "$rank" >"$d.plain.out" 2>"$d.plain.err"
        rc0=$?
        sed -E 's/PID [0-9]+/PID N/g; s/[0-9a-fx]{4,}/N/g' "$d.plain.out" >"$d.plain.out.n"
        [ "$impl" = mpich ] && fs_hydra_code "$d.out.n" "$d.plain.out.n"
        same=0
        if [ $rc -eq $rc0 ] && cmp -s "$d.out.n" "$d.plain.out.n"; then
            same=1
            break
        fi
    done
    if [ $same = 0 ]; then
        [ $rc -eq $rc0 ] || fs_fail "$what: exit status $rc0 without mpilens, $rc with mpilens run"
        cmp -s "$d.out.n" "$d.plain.out.n" || fs_fail "$what: output differs under mpilens run: $(diff "$d.plain.out.n" "$d.out.n" | grep '^[<>]' | head -4 | tr '\n' '|')"
    fi
    fs_check_calls "$what" "$d" "$rank"
    # what mpilens run printed: the diagnosis of a failure, or for a program
    # that went on, one note on the rank and no diagnosis
    sed -n '/^== failure diagnosis: /,$p' "$d.err" >"$d.rundiag"
    if fs_soft "$mode"; then
        [ $rc -eq 0 ] || fs_fail "$what: mpilens run exit status $rc, the program went on and ended well"
        [ -s "$d.rundiag" ] && fs_fail "$what: mpilens run printed a failure diagnosis for a run that ended well"
        local note
        case $mode in
        sighandled) note="mpilens: rank $rank: signal SIGTERM (SI_USER) handled by the program's own handler, which returned, at failsafe.c:$(fs_line FAIL:$mode)" ;;
        *) note="mpilens: rank $rank: MPI_ERR_RANK returned to the program by MPI_Send at failsafe.c:$(fs_line FAIL:$mode) (it went on)" ;;
        esac
        grep -qF -- "$note" "$d.err" || fs_fail "$what: mpilens run did not say '$note': $(grep '^mpilens' "$d.err" | head -3 | tr '\n' '|')"
    else
        [ $rc -ne 0 ] || fs_fail "$what: mpilens run exit status 0 although rank $rank failed"
        if [ -s "$d.rundiag" ]; then
            fs_diag_checks "$what (mpilens run)" "$d.rundiag" "$mode" "$rank"
        else
            fs_fail "$what: mpilens run printed no failure diagnosis: $(tail -c 300 "$d.err" | tr '\n' '|')"
        fi
    fi
    "$MPILENS" report --failures "$d" >"$d.report" 2>&1 || fs_fail "$what: mpilens report failed: $(head -c 300 "$d.report")"
    fs_diag_checks "$what (report)" "$d.report" "$mode" "$rank"
    local needles=()
    mapfile -t needles < <(fs_expected "$mode")
    fs_check_json "$what" "$d" "$mode" "$rank" "${needles[@]}"
    echo "ok $what (exit $rc${rc0:+, plain $rc0}, $((SECONDS - t0)) s)"
}

# The JSON diagnosis (report --json --failures, and the "failures" of the
# whole report --json for segv) says what the text does: the rank's entry
# (in "failures", or "other_ranks" when it did not fail) has the same
# needles in its "text", and for some modes the fields themselves: rank,
# kind, signal name and code, address, file:line, exit status, abort code,
# MPI error class, the call.
fs_check_json() {  # WHAT DIR MODE RANK NEEDLE...
    local what=$1 d=$2 mode=$3 rank=$4 r; shift 4
    "$MPILENS" report --json --failures "$d" >"$d.report.json" 2>"$d.report.json.err" ||
        { fs_fail "$what: report --json --failures failed: $(head -c 300 "$d.report.json.err")"; return; }
    if [ "$mode" = segv ]; then
        "$MPILENS" report --json -q "$d" >"$d.full.json" 2>"$d.full.json.err" ||
            { fs_fail "$what: report --json failed: $(head -c 300 "$d.full.json.err")"; return; }
    fi
    r=$(python3 - "$d.report.json" "$mode" "$rank" "$(fs_line "FAIL:$mode")" "$d.full.json" "$@" <<'PY'
import json, os, sys
path, mode, rank, line, full = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
needles = sys.argv[6:]
try:
    rep = json.load(open(path))
except Exception as e:
    print(f'report --json --failures is not JSON: {e}'); sys.exit()
bad = []
docs = [('--failures', rep)]
if mode == 'segv':
    docs.append(('report --json', json.load(open(full))))
for name, doc in docs:
    fail = [f for f in doc['failures'] if f['rank'] == rank]
    other = [o for o in doc['other_ranks'] if o['rank'] == rank]
    ent = (fail or other or [None])[0]
    if ent is None:
        bad.append(f'{name}: rank {rank} is in neither failures nor other_ranks'); continue
    bad += [f'{name}: text of rank {rank} lacks {n!r}' for n in needles if n not in ent['text']]
    where = f'failsafe.c:{line}'
    want = {}
    if mode == 'segv':
        want = {'kind': 'signal', 'first': True, 'where': where}
        sig = (fail[0] if fail else {}).get('signal') or {}
        for k, v in (('name', 'SIGSEGV'), ('number', 11), ('code_name', 'SEGV_MAPERR'), ('address', '0x0')):
            if sig.get(k) != v: bad.append(f'{name}: signal.{k} is {sig.get(k)!r}, want {v!r}')
        if not fail or not fail[0]['backtrace'] or where not in fail[0]['backtrace'][0]:
            bad.append(f'{name}: backtrace does not start at {where}: {fail[0]["backtrace"][:3] if fail else None}')
        if not fail or not isinstance(fail[0]['time_s'], float) or doc['failure_summary']['first_rank'] != rank:
            bad.append(f'{name}: time_s / failure_summary.first_rank wrong')
    elif mode == 'exit':
        want = {'kind': 'exit', 'where': where, 'exit': {'status': 3, 'by': 'exit'}}
    elif mode == 'abort':
        want = {'kind': 'abort', 'abort_code': 3, 'where': where}
    elif mode == 'fatal':
        want = {'kind': 'mpi_error', 'where': where}
        e = (fail[0] if fail else {}).get('mpi_error') or {}
        if e.get('class') != 'MPI_ERR_RANK' or e.get('fatal') is not True: bad.append(f'{name}: mpi_error is {e}')
        if ((fail[0] if fail else {}).get('call') or {}).get('routine') != 'MPI_Send': bad.append(f'{name}: call is not MPI_Send')
    elif mode in ('kill', 'killme'):
        want = {'kind': 'killed_no_record', 'first': True, 'where': None, 'signal': None}
    if want and not fail: bad.append(f'{name}: rank {rank} is not in failures')
    for k, v in want.items():
        if fail and fail[0].get(k) != v: bad.append(f'{name}: {k} is {fail[0].get(k)!r}, want {v!r}')
print('; '.join(bad))
PY
)
    [ -z "$r" ] || fs_fail "$what: JSON: $r"
}

# fs_matrix MODE...: every MODE on each MPI, failing on rank 1 (compared with
# a plain run) and on rank 0.
fs_matrix() {
    local impl mode rank
    for impl in $FS_IMPLS_OK; do
        for mode in "$@"; do
            for rank in ${FS_RANKS:-1 0}; do
                fs_case "$impl" "$mode" "$rank" $([ "$rank" = 1 ] && echo compare)
            done
        done
    done
}

fs_done() {
    if [ "$FS_FAILS" -ne 0 ]; then
        echo "$FS_FAILS check(s) failed${FS_KEEP:+ (runs kept in $FS_TMP)}"
        exit 1
    fi
    exit 0
}
