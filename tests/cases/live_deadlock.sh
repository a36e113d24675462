#!/usr/bin/env bash
# mpilens top --deadlock-timeout 2 --stop on deadlocked programs, both MPIs:
# each verdict names the right ranks, routines and file:line, is written to
# DIR/deadlock.txt (ending with a newline, each thing said once: a
# collective mismatch is one line, not one per side), the job is stopped
# and top exits 3.
#   tests/cases/live_deadlock.sh [case ...]     (default: all)
# timeout: 400
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
M=${MPILENS:-$root/build/bin/mpilens}
P=$root/tests/programs
t=$(mktemp -d); [ -n "${KEEP:-}" ] || trap 'rm -rf "$t"' EXIT; [ -n "${KEEP:-}" ] && echo "keeping $t"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail=0
bad() { echo "FAIL $*"; fail=1; }
line() { grep -n "$2" "$P/$1.c" | head -1 | cut -d: -f1; }   # line of a marker

# case: program, ranks, then extended regexps the verdict must match
run_case() {
    local impl=$1 prog=$2 n=$3; shift 3
    local dir=$t/$impl-$prog${TAG:-} exe=$t/$prog-$impl
    local lib=$root/build/lib/mpilens/libmpilens-$impl.so
    [ -x "$exe" ] || mpicc.$impl -g -O0 -w -o "$exe" "$P/$prog.c" || { bad "$impl $prog: compile"; return; }
    if [ $impl = openmpi ]; then
        MPILENS_DIR=$dir LD_PRELOAD=$lib timeout 90 mpirun.openmpi --oversubscribe -n $n "$exe" >"$t/job.out" 2>&1 &
    else
        MPILENS_DIR=$dir LD_PRELOAD=$lib timeout 90 mpirun.mpich -n $n "$exe" >"$t/job.out" 2>&1 &
    fi
    local job=$!
    timeout 60 "$M" top "$dir" --deadlock-timeout 2 --stop --launcher $job --width 200 >"$t/top.out" 2>&1
    local rc=$?
    wait $job 2>/dev/null
    if [ $rc -ne 3 ]; then
        bad "$impl $prog: top exit $rc, want 3"; sed 's/^/    /' "$t/top.out" | tail -30; return
    fi
    [ -s "$dir/deadlock.txt" ] || { bad "$impl $prog: no $dir/deadlock.txt"; return; }
    local v=$dir/deadlock.txt ok=1
    for re in "$@"; do
        grep -Eq -- "$re" "$v" || { bad "$impl $prog: verdict lacks /$re/"; ok=0; }
    done
    # each thing said once (a mismatch is one story, not one per side), and
    # the file ends with a newline
    [ "$(grep -c 'never arrive' "$v")" -le 1 ] || { bad "$impl $prog: 'never arrives' said $(grep -c 'never arrive' "$v") times"; ok=0; }
    [ "$(grep -c 'mismatched collectives' "$v")" -le 1 ] || { bad "$impl $prog: 'mismatched collectives' said $(grep -c 'mismatched collectives' "$v") times"; ok=0; }
    [ "$(tail -c 1 "$v" | od -An -tx1 | tr -d ' ')" = 0a ] || { bad "$impl $prog: $v does not end with a newline"; ok=0; }
    if pgrep -f "$exe" >/dev/null; then bad "$impl $prog: ranks still running after --stop"; pkill -9 -f "$exe"; ok=0; fi
    grep -q "stopped the job" "$t/top.out" || { bad "$impl $prog: job not stopped"; ok=0; }
    if [ $ok = 0 ]; then sed 's/^/    /' "$v"; else echo "ok $impl $prog"; fi
}

cases=${*:-recvrecv ssend coll_missing coll_mismatch wildcard wildcard12 waitall testpoll rank0}
for impl in openmpi mpich; do
    command -v mpicc.$impl >/dev/null || continue
    for c in $cases; do
        case $c in
        recvrecv) L=$(line deadlock_recvrecv L_RECV)
            run_case $impl deadlock_recvrecv 2 \
                "^  rank 0: MPI_Recv from 1 tag 7 at deadlock_recvrecv.c:$L" \
                "^  rank 1: MPI_Recv from 0 tag 7 at deadlock_recvrecv.c:$L" \
                "cycle: rank (0 -> rank 1 -> rank 0|1 -> rank 0 -> rank 1)" ;;
        ssend) L=$(line deadlock_ssend L_SSEND)
            run_case $impl deadlock_ssend 2 \
                "^  rank 0: MPI_Ssend to 1 tag 3 at deadlock_ssend.c:$L" \
                "^  rank 1: MPI_Ssend to 0 tag 3 at deadlock_ssend.c:$L" \
                "cycle: rank (0 -> rank 1 -> rank 0|1 -> rank 0 -> rank 1)" ;;
        coll_missing) L=$(line deadlock_coll_missing L_ALLREDUCE); S=$(line deadlock_coll_missing L_SKIP)
            run_case $impl deadlock_coll_missing 3 \
                "^  rank 0: MPI_Allreduce on MPI_COMM_WORLD at deadlock_coll_missing.c:$L" \
                "^  rank 1: MPI_Allreduce on MPI_COMM_WORLD at deadlock_coll_missing.c:$L" \
                "collective MPI_Allreduce on MPI_COMM_WORLD at deadlock_coll_missing.c:$L.*ranks 0-1 in it; rank 2 never arrives: rank 2 in MPI_Recv from 0 tag 11 at deadlock_coll_missing.c:$S" ;;
        coll_mismatch) B=$(line deadlock_coll_mismatch L_BARRIER); C=$(line deadlock_coll_mismatch L_BCAST)
            run_case $impl deadlock_coll_mismatch 2 \
                "^  rank 0: MPI_Barrier on MPI_COMM_WORLD at deadlock_coll_mismatch.c:$B" \
                "^  rank 1: MPI_Bcast root 0 on MPI_COMM_WORLD at deadlock_coll_mismatch.c:$C" \
                "mismatched collectives: rank [01] is in MPI_(Barrier|Bcast).*rank [01] in MPI_(Barrier|Bcast).*collective #2" ;;
        wildcard) L=$(line deadlock_wildcard L_ANY); B=$(line deadlock_wildcard L_BARRIER)
            run_case $impl deadlock_wildcard 3 \
                "^  rank 0: MPI_Recv from any source tag 5 at deadlock_wildcard.c:$L" \
                "^  rank 1: MPI_Barrier on MPI_COMM_WORLD at deadlock_wildcard.c:$B" \
                "^  rank 2: MPI_Barrier on MPI_COMM_WORLD at deadlock_wildcard.c:$B" \
                "waits for any of ranks 1-2: .*no rank will ever send to it" \
                "collective MPI_Barrier on MPI_COMM_WORLD at deadlock_wildcard.c:$B.*ranks 1-2 in it; rank 0 never arrives: rank 0 in MPI_Recv from any source tag 5 at deadlock_wildcard.c:$L" ;;
        waitall) L=$(line deadlock_waitall L_WAITALL); I=$(line deadlock_waitall L_IRECV); B=$(line deadlock_waitall L_BARRIER)
            run_case $impl deadlock_waitall 2 \
                "^  rank 0: MPI_Waitall of 2 requests at deadlock_waitall.c:$L" \
                "request: receive from 1 tag 99 \(MPI_Irecv at deadlock_waitall.c:$I\)" \
                "^  rank 1: MPI_Barrier on MPI_COMM_WORLD at deadlock_waitall.c:$B" \
                "cycle: rank (0 -> rank 1 -> rank 0|1 -> rank 0 -> rank 1)" ;;
        testpoll) L=$(line deadlock_testpoll L_TEST); I=$(line deadlock_testpoll L_IRECV); R=$(line deadlock_testpoll L_RECV)
            run_case $impl deadlock_testpoll 2 \
                "^  rank 0: MPI_Test \(polling, nothing completes\) at deadlock_testpoll.c:$L" \
                "request: receive from 1 tag 4 \(MPI_Irecv at deadlock_testpoll.c:$I\)" \
                "^  rank 1: MPI_Recv from 0 tag 8 at deadlock_testpoll.c:$R" \
                "cycle: rank (0 -> rank 1 -> rank 0|1 -> rank 0 -> rank 1)" ;;
        rank0) L=$(line deadlock_rank0 L_RECV); B=$(line deadlock_rank0 L_BARRIER)
            run_case $impl deadlock_rank0 3 \
                "^  rank 0: MPI_Recv from 1 tag 5 at deadlock_rank0.c:$L" \
                "collective MPI_Barrier on MPI_COMM_WORLD at deadlock_rank0.c:$B.*ranks 1-2 in it; rank 0 never arrives: rank 0 in MPI_Recv from 1 tag 5 at deadlock_rank0.c:$L" \
                "cycle: rank (0 -> rank 1 -> rank 0|1 -> rank 0 -> rank 1)" ;;
        wildcard12) L=$(line deadlock_wildcard L_ANY); B=$(line deadlock_wildcard L_BARRIER)
            # 12 ranks: ranks 1-11 wait in the barrier for rank 0, each with
            # the same text: one entry "ranks 1-11" (it listed 11 entries in
            # the order the rank files were found: 'rank 7', 'rank 3', ...),
            # after rank 0's (the list is by rank)
            TAG=-12 run_case $impl deadlock_wildcard 12 \
                "^  rank 0: MPI_Recv from any source tag 5 at deadlock_wildcard.c:$L \(started [0-9.]+ s ago\)$" \
                "^      waits for any of ranks 1-11: rank 1 in MPI_Barrier on MPI_COMM_WORLD at deadlock_wildcard.c:$B; .*; no rank will ever send to it$" \
                "^  ranks 1-11: MPI_Barrier on MPI_COMM_WORLD at deadlock_wildcard.c:$B \(started [0-9.]+(-[0-9.]+)? s ago\)$" \
                "^      waits for rank 0: rank 0 in MPI_Recv from any source tag 5 at deadlock_wildcard.c:$L$"
            v=$t/$impl-deadlock_wildcard-12/deadlock.txt
            if [ -s "$v" ]; then
                grep -Eq '^  rank ([1-9]|1[01]):' "$v" && bad "$impl wildcard12: a barrier rank listed on its own: $(grep -E -m2 '^  rank ([1-9]|1[01]):' "$v")"
                [ "$(grep -n '^  rank' "$v" | head -1 | cut -d: -f2-)" = "$(grep -m1 '^  rank 0:' "$v")" ] ||
                    bad "$impl wildcard12: rank 0 is not listed first: $(grep -m1 '^  rank' "$v")"
            fi ;;
        *) bad "unknown case $c" ;;
        esac
    done
done
exit $fail
