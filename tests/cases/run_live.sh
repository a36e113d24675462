# mpilens run with the live monitor, both MPIs:
#  - a deadlocked program (3 ranks, a collective with a missing rank): the
#    verdict names the ranks, routines and file:line, is kept in
#    DIR/deadlock.txt and shown by mpilens report; the job is stopped (no rank
#    process left) and mpilens run exits 86;
#  - --deadlock-report: the verdict is printed, the job keeps running;
#  - a correct program whose compute and sleep phases (3 s) are longer than
#    the deadlock timeout (1 s) while the other ranks wait or poll: never
#    called deadlocked, exit 0, and the snapshots show the waiting ranks;
#  - known states (live_states): the snapshots show each rank, the second
#    thread of rank 2 in MPI, and "computing" with the last call;
#  - a crash (SIGSEGV on rank 1): exit status of the launcher, the diagnosis
#    printed by mpilens run names rank 1, the signal, failsafe.c:LINE, when,
#    and rank 0's state; mpilens top --once right after shows both ranks
#    died, none in MPI;
#  - a launcher that leaves ranks running: stopped after --grace;
#  - a rank exits and the launcher keeps the other running: stopped after
#    --grace 2, with the diagnosis and no process left;
#  - the deadlock stop and Ctrl+C (one line, exit 130, no diagnosis): every
#    call made before is on disk.
# timeout: 460
need_mpilens
for impl in openmpi mpich; do
    have_impl "$impl" || continue
    need_runtime "$impl"
    d=$TEST_TMP/$impl
    mkdir -p "$d"

    # 1. deadlock: stopped, exit 86
    p=$(prog "$impl" deadlock_coll_missing) || continue
    src=$ROOT/tests/programs/deadlock_coll_missing.c
    L=$(line_of "$src" L_ALLREDUCE); S=$(line_of "$src" L_SKIP)
    timeout 120 "$MPILENS" run --mpi=$impl -n 3 -o "$d/dl" --deadlock-timeout 2 --monitor snapshots "$p" \
        >"$d/dl.out" 2>"$d/dl.err"
    rc=$?
    assert_eq 86 "$rc" "$impl deadlock: mpilens run exit status"
    err=$(cat "$d/dl.err")
    assert_contains "$err" "DEADLOCK" "$impl deadlock: run output"
    assert_contains "$err" "rank 0: MPI_Allreduce on MPI_COMM_WORLD at deadlock_coll_missing.c:$L" "$impl deadlock: verdict"
    assert_contains "$err" "rank 2 never arrives: rank 2 in MPI_Recv from 0 tag 11 at deadlock_coll_missing.c:$S" "$impl deadlock: verdict"
    assert_contains "$err" "stopped the job" "$impl deadlock: run output"
    assert_file "$d/dl/deadlock.txt" "$impl deadlock: verdict file"
    pgrep -f "$p" >/dev/null && { soft_fail "$impl deadlock: rank processes left running"; pkill -9 -f "$p"; }
    rep=$("$MPILENS" report "$d/dl" 2>&1)
    assert_contains "$rep" "never arrives" "$impl deadlock: mpilens report"
    # the failure diagnosis of the deadlock stop, rank 0 and rank 2
    rep=$("$MPILENS" report --failures "$d/dl" 2>&1)
    for r in 0 2; do
        blk=$(echo "$rep" | awk -v r="$r" 'index($0, "rank " r " (") == 1 { on = 1 } on && /^$/ { exit } on { print }')
        assert_contains "$blk" "stopped by the deadlock detector" "$impl deadlock: diagnosis of rank $r"
    done
    assert_contains "$rep" "blocked in MPI_Recv called at deadlock_coll_missing.c:$S" "$impl deadlock: diagnosis of rank 2"
    # every call made before the stop is on disk: MPI_Init, MPI_Comm_rank,
    # MPI_Barrier (the MPI_Allreduce / MPI_Recv never ended)
    "$MPILENS" dump "$d/dl" >"$d/dl.dump" 2>"$d/dl.dump.err" || soft_fail "$impl deadlock: mpilens dump failed"
    for r in 0 1 2; do
        for f in MPI_Init MPI_Comm_rank MPI_Barrier; do
            assert_eq 1 "$(count_calls "$d/dl.dump" "$r" "$f")" "$impl deadlock: rank $r: $f recorded"
        done
        assert_eq 3 "$(awk -v r="$r" '!/^#/ && $1 == r && !/ unfinished/' "$d/dl.dump" | wc -l)" "$impl deadlock: rank $r: calls recorded"
        # and the call each rank was blocked in, unfinished (issue: a hang's trace shows the hang)
        assert_eq 1 "$(awk -v r="$r" '!/^#/ && $1 == r && / unfinished/' "$d/dl.dump" | wc -l)" "$impl deadlock: rank $r: unfinished call"
    done

    # 2. --deadlock-report: reported, not stopped (timeout ends it)
    timeout -k 2 8 "$MPILENS" run --mpi=$impl -n 3 -o "$d/dlr" --deadlock-timeout 1 --deadlock-report \
        --monitor off "$p" >"$d/dlr.out" 2>"$d/dlr.err"
    rc=$?
    assert_eq 124 "$rc" "$impl --deadlock-report: still running when timeout stopped it"
    assert_contains "$(cat "$d/dlr.err")" "DEADLOCK" "$impl --deadlock-report: verdict"
    assert_contains "$(cat "$d/dlr.err")" "still watching" "$impl --deadlock-report"
    pkill -9 -f "$p" 2>/dev/null

    # 3. long phases, no deadlock
    p=$(prog "$impl" live_compute) || continue
    timeout 120 "$MPILENS" run --mpi=$impl -n 3 -o "$d/cmp" --deadlock-timeout 1 --interval 0.5 \
        --monitor snapshots "$p" 3 >"$d/cmp.out" 2>"$d/cmp.err"
    rc=$?
    assert_eq 0 "$rc" "$impl long compute: exit status"
    assert_not_contains "$(cat "$d/cmp.err")" "DEADLOCK" "$impl long compute: must not be called a deadlock"
    src=$ROOT/tests/programs/live_compute.c
    assert_contains "$(cat "$d/cmp.err")" "MPI_Recv from 0 tag 1" "$impl long compute: snapshot of the waiting ranks"
    assert_contains "$(cat "$d/cmp.err")" "live_compute.c:$(line_of "$src" L_RECV1)" "$impl long compute: snapshot file:line"
    assert_contains "$(cat "$d/cmp.err")" "live_compute.c:$(line_of "$src" L_TEST3)" "$impl long compute: polling rank"

    # 4. known states
    p=$(prog "$impl" live_states) || continue
    src=$ROOT/tests/programs/live_states.c
    timeout 120 "$MPILENS" run --mpi=$impl -n 3 -o "$d/st" --interval 0.5 --monitor snapshots "$p" 3 \
        >"$d/st.out" 2>"$d/st.err"
    rc=$?
    assert_eq 0 "$rc" "$impl live_states: exit status"
    st=$(cat "$d/st.err")
    assert_contains "$st" "MPI_Recv from 0 tag 7" "$impl live_states: rank 1"
    assert_contains "$st" "live_states.c:$(line_of "$src" L_RECV)" "$impl live_states: rank 1 file:line"
    assert_contains "$st" "live_states.c:$(line_of "$src" L_THREAD)" "$impl live_states: rank 2's second thread"
    assert_contains "$st" "computing" "$impl live_states: rank 0 computing"
    assert_contains "$st" "after MPI_Allreduce" "$impl live_states: rank 0's last call"
    assert_contains "$st" "completed" "$impl live_states: since when"

    # 5. a crash: diagnosis printed by run
    p=$(prog "$impl" failsafe) || continue
    src=$ROOT/tests/programs/failsafe.c
    timeout 120 "$MPILENS" run --mpi=$impl -n 2 -o "$d/segv" "$p" segv 1 >"$d/segv.out" 2>"$d/segv.err"
    rc=$?
    # at once: the view shows every rank as died (rank 1 by its SIGSEGV,
    # rank 0 stopped after it: its record or its pid, a zombie or gone),
    # none still in MPI
    t=$("$MPILENS" top "$d/segv" --once --width 200 2>&1)
    assert_contains "$t" "2 ranks: 2 died" "$impl segv: top --once right after the run"
    assert_contains "$t" "died: signal 11" "$impl segv: top --once right after the run"
    echo "$t" | grep -q "in MPI[^_]" && soft_fail "$impl segv: top --once right after the run shows a rank in MPI: $t"
    assert_not_contains "$t" "started" "$impl segv: top --once right after the run"
    # rank 1's WHERE is where the SIGSEGV hit, failsafe.c:FAIL:segv, what the
    # diagnosis says ("where:" below); it was its last MPI call's site,
    # "after MPI_Allreduce failsafe.c:LAST:allreduce", which the report's
    # "where" never names for a crash outside MPI
    echo "$t" | grep -Eq "^1 +died: signal 11 \(Segmentation fault\) +failsafe\.c:$(line_of "$src" FAIL:segv) +last call " ||
        soft_fail "$impl segv: top --once has no row '1  died: signal 11 (Segmentation fault)  failsafe.c:$(line_of "$src" FAIL:segv)': $t"
    # and in 80 columns: every row fits, rank 1's site whole
    t=$("$MPILENS" top "$d/segv" --once --width 80 2>&1)
    long=$(awk 'length($0) > 80' <<<"$t")
    [ -z "$long" ] || soft_fail "$impl segv: top --once --width 80 has lines over 80 columns: $long"
    echo "$t" | grep -Eq "^1 .* failsafe\.c:$(line_of "$src" FAIL:segv) +last call " ||
        soft_fail "$impl segv: top --once --width 80 does not show rank 1 at failsafe.c:$(line_of "$src" FAIL:segv): $t"
    [ $rc -ne 0 ] || soft_fail "$impl segv: mpilens run exit status 0"
    e=$(cat "$d/segv.err")
    assert_contains "$e" "rank 1 (pid" "$impl segv: diagnosis names rank 1"
    assert_contains "$e" "signal SIGSEGV" "$impl segv: diagnosis"
    assert_contains "$e" "where: failsafe.c:$(line_of "$src" FAIL:segv)" "$impl segv: diagnosis"
    # when, and what the other rank was doing
    echo "$e" | grep -qE "^rank 1 \(pid [0-9]+ on .*\): FAILED, first failure at [0-9]+\.[0-9]{3} s$" ||
        soft_fail "$impl segv: no 'rank 1 (pid N on H): FAILED, first failure at N.NNN s' in the diagnosis"
    echo "$e" | grep -qE "^1 rank failed.*; first failure: rank 1 at [0-9]+\.[0-9]{3} s$" ||
        soft_fail "$impl segv: the summary does not name rank 1 as the first failure: $(echo "$e" | grep -m1 'rank.*failed')"
    assert_contains "$e" "state: in MPI_Barrier called at failsafe.c:$(line_of "$src" "/* WAIT:barrier */") since " "$impl segv: rank 0's state"
    pgrep -f "$p" >/dev/null && { soft_fail "$impl segv: rank processes left running"; pkill -9 -f "$p"; }

    # 6. the launcher ends, its ranks run on: stopped after the grace period
    p=$(prog "$impl" live_compute) || continue
    case $impl in
    openmpi) l="mpirun.openmpi --oversubscribe" ;;
    mpich) l="mpirun.mpich" ;;
    esac
    t0=$SECONDS
    timeout 120 "$MPILENS" run --mpi=$impl -o "$d/left" --grace 2 --deadlock-timeout 0 -- \
        bash -c "$l -n 2 $p 60 >/dev/null 2>&1 & sleep 2" >"$d/left.out" 2>"$d/left.err"
    rc=$?
    el=$((SECONDS - t0))
    assert_contains "$(cat "$d/left.err")" "still run" "$impl leftovers: mpilens run says so"
    assert_le "$el" 30 "$impl leftovers: seconds until mpilens run ended"
    for i in 1 2 3 4 5 6 7 8 9 10; do pgrep -f "$p 60" >/dev/null || break; sleep 0.5; done
    pgrep -af "$p 60" >&2 && { soft_fail "$impl leftovers: processes left running"; pkill -9 -f "$p 60"; }
    # 7. Ctrl+C pressed in mpilens run (SIGINT to its process group)
    setsid "$MPILENS" run --mpi=$impl -n 2 -o "$d/int" "$p" 30 >"$d/int.out" 2>"$d/int.err" &
    sid=$!
    for i in $(seq 1 40); do [ -n "$(ls "$d/int" 2>/dev/null)" ] && break; sleep 0.25; done
    sleep 1.5
    kill -INT -- "-$sid"
    for i in $(seq 1 60); do kill -0 "$sid" 2>/dev/null || break; sleep 0.25; done
    if kill -0 "$sid" 2>/dev/null; then
        soft_fail "$impl Ctrl+C: mpilens run still running 15 s after SIGINT"
        kill -9 -- "-$sid"
    fi
    wait "$sid"
    rc=$?
    assert_eq 130 "$rc" "$impl Ctrl+C: exit status"
    e=$(cat "$d/int.err")
    assert_contains "$e" "interrupted (Ctrl+C)" "$impl Ctrl+C: mpilens run"
    # an interrupt the user asked for is one line, not a failure diagnosis;
    # the trace still tells where each rank was
    assert_not_contains "$e" "failure diagnosis" "$impl Ctrl+C: mpilens run"
    e=$("$MPILENS" report --failures "$d/int" 2>&1)
    assert_contains "$e" "state: in MPI_Recv called at live_compute.c:$(line_of "$ROOT/tests/programs/live_compute.c" L_RECV1)" "$impl Ctrl+C: rank 1's state (report --failures)"
    # every call made before Ctrl+C is on disk (rank 0 computes, rank 1 waits in MPI_Recv)
    "$MPILENS" dump "$d/int" >"$d/int.dump" 2>"$d/int.dump.err" || soft_fail "$impl Ctrl+C: mpilens dump failed"
    for r in 0 1; do
        for f in MPI_Init MPI_Comm_rank MPI_Comm_size; do
            assert_eq 1 "$(count_calls "$d/int.dump" "$r" "$f")" "$impl Ctrl+C: rank $r: $f recorded"
        done
        assert_eq 3 "$(awk -v r="$r" '!/^#/ && $1 == r && !/ unfinished/' "$d/int.dump" | wc -l)" "$impl Ctrl+C: rank $r: calls recorded"
    done
    assert_eq 1 "$(awk '!/^#/ && $1 == 1 && $5 == "MPI_Recv" && / unfinished/' "$d/int.dump" | wc -l)" "$impl Ctrl+C: rank 1's MPI_Recv, unfinished"
    for i in 1 2 3 4 5 6 7 8 9 10; do pgrep -f "$p 30" >/dev/null || break; sleep 0.5; done
    pgrep -af "$p 30" >&2 && { soft_fail "$impl Ctrl+C: processes left running"; pkill -9 -f "$p 30"; }

    # 8. a rank exits without MPI_Finalize and the launcher keeps the other
    # running (Open MPI: orte_abort_on_non_zero_status 0; MPICH:
    # -disable-auto-cleanup): mpilens run stops it after --grace
    p=$(prog "$impl" failsafe) || continue
    src=$ROOT/tests/programs/failsafe.c
    t0=$SECONDS
    case $impl in
    openmpi) OMPI_MCA_orte_abort_on_non_zero_status=0 timeout 120 "$MPILENS" run --mpi=openmpi -n 2 -o "$d/grace" \
        --grace 2 "$p" exit 1 ;;
    mpich) timeout 120 "$MPILENS" run -o "$d/grace" --grace 2 -- mpiexec.mpich -disable-auto-cleanup -n 2 "$p" exit 1 ;;
    esac >"$d/grace.out" 2>"$d/grace.err"
    rc=$?
    el=$((SECONDS - t0))
    [ $rc -ne 0 ] || soft_fail "$impl grace: mpilens run exit status 0"
    e=$(cat "$d/grace.err")
    assert_contains "$e" "1 rank failed and 1 still runs after 2 s: stopping the job" "$impl grace: mpilens run"
    assert_contains "$e" "first failure: rank 1 at" "$impl grace: diagnosis"
    assert_contains "$e" "exited with status 3 without calling MPI_Finalize (exit() called)" "$impl grace: diagnosis"
    assert_contains "$e" "where: failsafe.c:$(line_of "$src" FAIL:exit)" "$impl grace: diagnosis"
    assert_contains "$e" "state: in MPI_Barrier called at failsafe.c:$(line_of "$src" "/* WAIT:barrier */") since " "$impl grace: rank 0's state"
    assert_le "$el" 30 "$impl grace: seconds until mpilens run ended"
    pgrep -af "$p exit 1" >&2 && { soft_fail "$impl grace: processes left running"; pkill -9 -f "$p exit 1"; }
    note "$impl: done"
done
