# tests/lib.sh — helpers for the test cases; tests/run loads it into the bash
# process of every case (tests/cases/*.sh).
#
# Environment set by tests/run:
#   ROOT        repository root            BUILD       build/tests (test programs: $BUILD/<impl>/<name>)
#   MPILENS     build/bin/mpilens          RT_OPENMPI, RT_MPICH   the runtimes
#   TEST_NAME   this case                  TEST_TMP    a fresh scratch directory for it
#   TEST_REASONS  file collecting the failure reasons (non-empty = FAIL)
#
# A case fails when it calls fail (stops it) or soft_fail (goes on), or exits
# non-zero, or runs past its time limit.

set -u

# ---- verdicts -------------------------------------------------------------
fail() {  # message: record it and stop this case
    echo "$*" >>"$TEST_REASONS"
    echo "FAIL: $*" >&2
    exit 1
}
soft_fail() {  # message: record it and go on
    echo "$*" >>"$TEST_REASONS"
    echo "FAIL: $*" >&2
    return 1
}
note() { echo "# $*" >&2; }

assert_eq() {  # expected actual [what]
    [ "$1" = "$2" ] || soft_fail "${3:-value}: expected '$1', got '$2'"
}
assert_contains() {  # haystack needle [what]
    case $1 in
    *"$2"*) return 0 ;;
    esac
    soft_fail "${3:-output} does not contain '$2'"
}
assert_not_contains() {  # haystack needle [what]
    case $1 in
    *"$2"*) soft_fail "${3:-output} contains '$2'" ;;
    esac
    return 0
}
assert_file() {  # path [what]
    [ -s "$1" ] || soft_fail "${2:-file} $1 is missing or empty"
}
assert_le() {  # a b [what]: a <= b
    [ "$1" -le "$2" ] || soft_fail "${3:-value}: $1 > $2"
}

# ---- programs ---------------------------------------------------------------
have_impl() {  # impl: its compiler and launcher exist
    command -v "mpicc.$1" >/dev/null && command -v "mpirun.$1" >/dev/null
}
prog() {  # impl name: path of a test program built by tests/run
    local p=$BUILD/$1/$2
    if [ ! -x "$p" ]; then
        soft_fail "test program $1/$2 was not built (see build/tests/logs/build-$1.log)"
        return 1
    fi
    echo "$p"
}
runtime_of() {  # impl: path of its runtime
    case $1 in
    openmpi) echo "$RT_OPENMPI" ;;
    mpich) echo "$RT_MPICH" ;;
    esac
}
need_runtime() {  # impl
    local rt; rt=$(runtime_of "$1")
    [ -f "$rt" ] || fail "runtime $rt is not built (run make)"
}
need_mpilens() {
    [ -x "$MPILENS" ] || fail "build/bin/mpilens is missing"
}

# ---- launching ----------------------------------------------------------------
# run_mpi IMPL N prog args...          plain run
# rt_mpi IMPL DIR N prog args...       the same under the runtime, recording into DIR
# mpilens_run IMPL DIR N prog args...  the same through `mpilens run -q --mpi=IMPL -n N -o DIR`
#                                      (the launcher mpilens picks; no table, no messages)
# Output goes to the caller's stdout/stderr; the exit status is mpirun's.
run_mpi() {
    local impl=$1 n=$2; shift 2
    case $impl in
    openmpi) mpirun.openmpi --oversubscribe -n "$n" "$@" ;;
    mpich) mpirun.mpich -n "$n" "$@" ;;
    *) echo "run_mpi: unknown MPI $impl" >&2; return 99 ;;
    esac
}
rt_mpi() {
    local impl=$1 dir=$2 n=$3; shift 3
    local rt; rt=$(runtime_of "$impl")
    case $impl in
    openmpi) mpirun.openmpi --oversubscribe -x LD_PRELOAD="$rt" -x MPILENS_DIR="$dir" -n "$n" "$@" ;;
    mpich) mpirun.mpich -genv LD_PRELOAD "$rt" -genv MPILENS_DIR "$dir" -n "$n" "$@" ;;
    *) echo "rt_mpi: unknown MPI $impl" >&2; return 99 ;;
    esac
}
mpilens_run() {
    local impl=$1 dir=$2 n=$3; shift 3
    need_mpilens
    "$MPILENS" run -q --mpi="$impl" -n "$n" -o "$dir" "$@"
}
run_openmpi() { run_mpi openmpi "$@"; }
run_mpich() { run_mpi mpich "$@"; }
rt_openmpi() { rt_mpi openmpi "$@"; }
rt_mpich() { rt_mpi mpich "$@"; }

# check_rank_files DIR N [what]: rank-00000.mlt ... rank-(N-1).mlt exist, non-empty
check_rank_files() {
    local dir=$1 n=$2 what=${3:-$1} r f ok=0
    for ((r = 0; r < n; r++)); do
        f=$(printf '%s/rank-%05d.mlt' "$dir" "$r")
        [ -s "$f" ] || { soft_fail "$what: $(basename "$f") was not written"; ok=1; }
    done
    return $ok
}

# ---- comparing runs with and without the runtime --------------------------------
# same_with_runtime IMPL N NAME [args...]
# Runs test program NAME plainly and under the runtime; stdout (after the sed -E
# script $NORMALIZE, if set) and exit status must be identical (EXPECT_RC: the
# plain run's expected status, default 0, "any" for any), the plain run must succeed and print something, the runtime
# must add nothing to stderr when the plain run wrote nothing there, and the run
# directory must hold one rank file per rank.  Leaves the runs in
# $TEST_TMP/<impl>-<N>-<NAME>[-k]/ (plain.out, plain.err, rt.out, rt.err, run/)
# and their directory in $LAST_RUN.  SAME_TRIES=N (default 1) runs the pair up
# to N times and passes if one pair agrees: for endings where the launcher
# itself races (MPICH's hydra reports the first process it sees end, the
# failing one or one it killed, also without the runtime); a difference the
# runtime makes shows in every pair.
LAST_RUN=
same_with_runtime() {
    local tries=${SAME_TRIES:-1} t saved=$TEST_REASONS rc=1
    for ((t = 1; t <= tries; t++)); do
        if [ $t -lt $tries ]; then
            TEST_REASONS=$saved.try
            : >"$TEST_REASONS"
        else
            TEST_REASONS=$saved
        fi
        same_with_runtime_once "$@" && { rc=0; break; }
        [ $t -lt $tries ] && note "$*: pair $t differs ($(head -c 200 "$TEST_REASONS" | tr '\n' ' ')); again"
    done
    TEST_REASONS=$saved
    rm -f "$saved.try"
    return $rc
}
same_with_runtime_once() {
    local impl=$1 n=$2 name=$3; shift 3
    local p; p=$(prog "$impl" "$name") || return 1
    need_runtime "$impl"
    local d=$TEST_TMP/$impl-$n-$name k=1
    while [ -e "$d" ]; do k=$((k + 1)); d=$TEST_TMP/$impl-$n-$name-$k; done
    mkdir -p "$d"
    LAST_RUN=$d
    local what="$impl -n $n $name${*:+ $*}"
    local rc0 rc1
    (cd "$d" && run_mpi "$impl" "$n" "$p" "$@") >"$d/plain.out" 2>"$d/plain.err"
    rc0=$?
    if [ "${RT_VIA:-}" = mpilens ]; then
        (cd "$d" && mpilens_run "$impl" "$d/run" "$n" "$p" "$@") >"$d/rt.out" 2>"$d/rt.err"
    else
        (cd "$d" && rt_mpi "$impl" "$d/run" "$n" "$p" "$@") >"$d/rt.out" 2>"$d/rt.err"
    fi
    rc1=$?
    local bad=0
    if [ $rc0 -ne 0 ] && [ "${EXPECT_RC:-0}" != any ] && [ $rc0 -ne "${EXPECT_RC:-0}" ]; then
        soft_fail "$what: exit status $rc0 without the runtime (expected ${EXPECT_RC:-0}): $(head -c 300 "$d/plain.err" | tr '\n' ' ')"
        bad=1
    fi
    if [ $rc0 -ne $rc1 ]; then
        soft_fail "$what: exit status $rc0 without the runtime, $rc1 with it: $(grep -a . "$d/rt.err" | head -3 | tr '\n' ' ' | head -c 300)"
        bad=1
    fi
    # OUT_MAY_BE_LOST=1: the MPI may drop what the program printed (output
    # written just before an MPI_Abort is lost when the launcher tears the
    # job down first: MPICH's hydra under load, without the runtime too);
    # NORMALIZE then takes those lines out of both outputs
    if [ ! -s "$d/plain.out" ] && [ -z "${OUT_MAY_BE_LOST:-}" ]; then
        soft_fail "$what: the program printed nothing"
        bad=1
    fi
    if [ -n "${NORMALIZE:-}" ]; then  # launcher messages with pids and the like
        sed -E "$NORMALIZE" "$d/plain.out" >"$d/plain.cmp"
        sed -E "$NORMALIZE" "$d/rt.out" >"$d/rt.cmp"
    else
        cp "$d/plain.out" "$d/plain.cmp"
        cp "$d/rt.out" "$d/rt.cmp"
    fi
    if ! cmp -s "$d/plain.cmp" "$d/rt.cmp"; then
        local first
        first=$(diff "$d/plain.cmp" "$d/rt.cmp" | grep -a '^[<>]' | head -4 | tr '\n' ' ')
        soft_fail "$what: output differs with the runtime: ${first:0:400}"
        bad=1
    fi
    # STDERR_IGNORE: lines the MPI itself prints some times and not others
    # (MPICH's "Abort(3) on node 1 ..." is lost now and then, the aborting
    # process killed before its stderr is forwarded: 1 run in 12 here)
    if [ ! -s "$d/plain.err" ] && grep -a -q -v -E "${STDERR_IGNORE:-^\$^}" "$d/rt.err" 2>/dev/null; then
        soft_fail "$what: stderr only with the runtime: $(head -3 "$d/rt.err" | tr '\n' ' ' | head -c 300)"
        bad=1
    fi
    check_rank_files "$d/run" "$n" "$what" || bad=1
    note "$what: exit $rc0/$rc1, $(wc -l <"$d/plain.out") lines, $([ $bad = 0 ] && echo same || echo DIFFERENT) ($d)"
    return $bad
}

# Both MPIs, 2 and 4 ranks (or the sizes in $SIZES).
same_everywhere() {  # NAME [args...]
    local impl n
    for impl in openmpi mpich; do
        for n in ${SIZES:-2 4}; do
            same_with_runtime "$impl" "$n" "$@"
        done
    done
}

# ---- dump --------------------------------------------------------------------------
# dump_events DIR [dump args]: the event lines of `mpilens dump` (no '#' lines)
dump_events() {
    need_mpilens
    local dir=$1; shift
    "$MPILENS" dump "$dir" "$@" | grep -av '^#'
    return "${PIPESTATUS[0]}"
}
# run_events DIR: `mpilens dump DIR` into $TEST_TMP/dump.txt, its event lines
# into $TEST_TMP/events.txt, and a note with their count per routine
run_events() {
    "$MPILENS" dump "$1" >"$TEST_TMP/dump.txt" 2>"$TEST_TMP/dump.err" ||
        soft_fail "mpilens dump failed: $(head -c 300 "$TEST_TMP/dump.err")"
    grep -av '^#' "$TEST_TMP/dump.txt" >"$TEST_TMP/events.txt"
    note "$(wc -l <"$TEST_TMP/events.txt") events: $(awk '{ c[$5]++ } END { for (f in c) printf "%s %d, ", f, c[f] }' "$TEST_TMP/events.txt")"
}
# once_per_rank FILE N ROUTINE...: each of ranks 0..N-1 made each ROUTINE once
once_per_rank() {
    local file=$1 n=$2 r f; shift 2
    for ((r = 0; r < n; r++)); do
        for f in "$@"; do
            assert_eq 1 "$(count_calls "$file" $r $f)" "rank $r: $f events"
        done
    done
}
# count_calls FILE RANK ROUTINE: events of ROUTINE by RANK in a saved dump
count_calls() {
    awk -v r="$2" -v f="$3" '$1 == r && $5 == f { n++ } END { print n + 0 }' "$1"
}
# line_of FILE MARKER: line number of the first line of FILE containing MARKER
line_of() {
    grep -n -F -- "$2" "$1" | head -1 | cut -d: -f1
}

# check_ring_dump DIR N SOURCE LAPS fortran|c
# For the ring programs (tests/programs/ring*): every rank recorded exactly
# LAPS MPI_Send and LAPS MPI_Recv (each call once), one each of MPI_Init,
# MPI_Comm_rank, MPI_Comm_size, MPI_Finalize; the Send/Recv call sites are
# SOURCE:<line of its "site:send0"/"site:sendN"... marker>; with fortran every event says lang=fortran,
# with c none does.
check_ring_dump() {
    local dir=$1 n=$2 src=$3 laps=$4 lang=$5
    local base; base=$(basename "$src")
    local what="$base -n $n"
    need_mpilens
    local out=$dir/../dump.txt
    if ! "$MPILENS" dump "$dir" >"$out" 2>"$out.err"; then
        soft_fail "$what: mpilens dump failed: $(head -c 300 "$out.err")"
        return 1
    fi
    local l_send0 l_recv0 l_send l_recv
    l_send0=$(line_of "$src" "site:send0")
    l_recv0=$(line_of "$src" "site:recv0")
    l_send=$(line_of "$src" "site:sendN")
    l_recv=$(line_of "$src" "site:recvN")
    local r routine want got sites expect_send expect_recv
    for ((r = 0; r < n; r++)); do
        for routine in MPI_Send MPI_Recv; do
            got=$(count_calls "$out" "$r" "$routine")
            [ "$got" = "$laps" ] || soft_fail "$what: rank $r recorded $got $routine, expected $laps"
        done
        for routine in MPI_Init MPI_Comm_rank MPI_Comm_size MPI_Finalize; do
            got=$(count_calls "$out" "$r" "$routine")
            [ "$got" = 1 ] || soft_fail "$what: rank $r recorded $got $routine, expected 1"
        done
        if [ "$r" = 0 ]; then expect_send=$l_send0 expect_recv=$l_recv0; else expect_send=$l_send expect_recv=$l_recv; fi
        sites=$(awk -v r="$r" '$1 == r && $5 == "MPI_Send" { print $6 }' "$out" | sort -u | tr '\n' ' ')
        [[ $sites =~ ^(.*/)?$base:$expect_send\ $ ]] ||
            soft_fail "$what: rank $r MPI_Send sites '$sites', expected $base:$expect_send"
        sites=$(awk -v r="$r" '$1 == r && $5 == "MPI_Recv" { print $6 }' "$out" | sort -u | tr '\n' ' ')
        [[ $sites =~ ^(.*/)?$base:$expect_recv\ $ ]] ||
            soft_fail "$what: rank $r MPI_Recv sites '$sites', expected $base:$expect_recv"
        local all f
        all=$(awk -v r="$r" '$1 == r' "$out" | wc -l)
        f=$(awk -v r="$r" '$1 == r && / lang=fortran( |$)/' "$out" | wc -l)
        if [ "$lang" = fortran ]; then
            [ "$f" = "$all" ] || soft_fail "$what: rank $r: $f of $all events say lang=fortran"
        else
            [ "$f" = 0 ] || soft_fail "$what: rank $r: $f events say lang=fortran in a C++ program"
        fi
        [ "$all" -gt 0 ] || soft_fail "$what: rank $r: no events in the dump"
    done
}

# ring_test NAME SOURCE fortran|c: the ring program NAME through `mpilens run`
# on both MPIs, 3 ranks: same output as a plain mpirun, then check_ring_dump.
ring_test() {
    local name=$1 src=$ROOT/tests/programs/$2 lang=$3 impl
    local laps; laps=$(grep -E -m1 'laps *= *[0-9]+' "$src" | sed -E 's/.*laps *= *([0-9]+).*/\1/')
    for impl in openmpi mpich; do
        if RT_VIA=mpilens same_with_runtime "$impl" 3 "$name" || [ -d "$LAST_RUN/run" ]; then
            check_ring_dump "$LAST_RUN/run" 3 "$src" "$laps" "$lang"
        fi
    done
}

# kill_tree PID: SIGKILL PID and all its descendants (children first found
# through /proc/<pid>/task/*/children).
kill_tree() {
    local pid=$1 c t
    for t in /proc/"$pid"/task/*/children; do
        [ -r "$t" ] || continue
        for c in $(cat "$t" 2>/dev/null); do kill_tree "$c"; done
    done
    kill -KILL "$pid" 2>/dev/null
}
# wait_for_file PATH SECONDS: 0 once PATH exists and is non-empty
wait_for_file() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        [ -s "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
# wait_pid PID SECONDS: wait for a child; 0 if it ended in time (its status in WAIT_RC)
WAIT_RC=
wait_pid() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        if ! kill -0 "$1" 2>/dev/null; then
            wait "$1"
            WAIT_RC=$?
            return 0
        fi
        sleep 0.1
    done
    return 1
}

# mpi_of BINARY: openmpi or mpich, from the MPI library it links
mpi_of() {
    local libs; libs=$(ldd "$1" 2>/dev/null)
    case $libs in
    *libmpich*) echo mpich ;;
    *libmpi.so*) echo openmpi ;;
    *) echo unknown ;;
    esac
}
# count_events DIR: number of event lines in mpilens dump DIR
count_events() {
    "$MPILENS" dump "$1" 2>/dev/null | grep -avc '^#'
}
