# A job stopped from outside with nothing failed by itself (SIGTERM to
# mpilens run: a time limit): the failure diagnosis says what the ranks were
# doing when stopped, so that a hang shows the ranks waiting in MPI and the
# rank computing (the live view said "not a deadlock: rank 0 is
# computing"; the report only said "3 ranks stopped by signals from
# another process; first signalled: rank N", N whichever the signal
# reached first, listed first as 'signalled first'). tests/programs/live_compute.c 60 on 3 ranks: rank 0
# computes for 60 s while ranks 1-2 wait in MPI_Recv from it; SIGTERM to
# mpilens run after 4 s (1 s into the compute phase at the latest): "when
# stopped: rank 0 computing (not in MPI), ranks 1-2 in MPI calls".
# Open MPI and MPICH.
# timeout: 120
need_mpilens
for impl in openmpi mpich; do
    have_impl "$impl" || continue
    need_runtime "$impl"
    p=$(prog "$impl" live_compute) || continue
    d=$TEST_TMP/$impl
    "$MPILENS" run -q --mpi="$impl" -n 3 -o "$d" --grace 2 "$p" 60 >"$d.out" 2>&1 &
    pid=$!
    sleep 4
    kill -TERM $pid
    wait $pid
    rc=$?
    assert_eq 143 "$rc" "$impl: mpilens run's exit status after SIGTERM"
    "$MPILENS" report --failures "$d" >"$d.rep" 2>&1
    sed 's/^/    | /' "$d.rep" >&2
    # MPICH's mpiexec may SIGKILL a rank as soon as another dies of the
    # SIGTERM, before that rank's handler ran: it vanished in the stop
    # (mpilens run saw it gone after it was told to stop the job), which
    # is no first failure (it was named one: "1 rank failed, 2 killed from
    # outside after that; first failure: rank 2")
    # all ranks got mpilens run's (or the launcher's) SIGTERM within a few
    # ms: stopped together, none first (it said "first signalled: rank N",
    # N whichever the signal reached first, and gave that rank a paragraph
    # 'FAILED, signalled first' and the others '(+0.000 s after rank N)')
    s2=$(sed -n 2p "$d.rep")
    nv=$(grep -c '^rank [0-9]* (pid .*VANISHED' "$d.rep")
    if [ "$nv" -lt 2 ]; then
        # (the signals' sender on a line of its own: one line was 130 columns)
        echo "$s2" | grep -Eq '^[23] ranks stopped together from outside at [0-9.]+ s; none failed by itself' ||
            soft_fail "$impl: summary '$s2'"
        sed -n 3p "$d.rep" | grep -Eq '^  \(signals from pid [0-9]+: the launcher, a batch system, a user\)$' ||
            soft_fail "$impl: summary's second line '$(sed -n 3p "$d.rep")'"
        ! grep -Eq "signalled first|s after rank" "$d.rep" || soft_fail "$impl: a rank named first: $(grep -E -m1 'signalled first|s after rank' "$d.rep")"
    else
        echo "$s2" | grep -Eq '^1 rank stopped by signals from another process' || soft_fail "$impl: summary '$s2'"
    fi
    ! grep -Eq "first failure: rank|FAILED, first failure" "$d.rep" ||
        soft_fail "$impl: a first failure named: $(grep -E -m1 'first failure: rank|FAILED, first failure' "$d.rep")"
    # a rank gone in the stop is said to be
    if grep -q "^rank [0-9]* (pid .*VANISHED" "$d.rep"; then
        assert_contains "$(cat "$d.rep")" "gone after mpilens run was told to stop the job" "$impl: the rank that vanished"
    fi
    assert_eq "when stopped: rank 0 computing (not in MPI), ranks 1-2 in MPI calls" "$(grep '^when stopped' "$d.rep")" "$impl: what the ranks did"
done
