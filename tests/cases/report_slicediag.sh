# report_slicediag: the failure diagnosis of `mpirun -n P mpilens report
# --no-critical-path DIR` is made in slices (each process opens only its
# block of rank files for it: MPILENS_SLICE_LOG's "diagnosis:" lines; before,
# process 0 opened every file) and its text and --json are the serial
# report's, byte for byte, P = 2 and 3, on failed runs recorded by both MPIs
# through `mpilens run`: tests/programs/failsafe.c on 4 ranks with rank 2
# (in process 1's slice) killed by SIGSEGV, by SIGKILL (no record: it
# vanished), leaving by exit() without MPI_Finalize, calling MPI_Abort, and
# failing in an MPI error under MPI_ERRORS_ARE_FATAL; and dl_cycle3 on 3
# ranks, a deadlock stopped by mpilens run (who waits for whom).  The
# engine is the recording's MPI's (both are used).
# The sliced view (`mpirun -n P mpilens view --no-critical-path`) makes its
# page's diagnosis the same way (before: process 0 opened every rank file
# for it): on the same runs, P = 2 and 3, the page is the serial one (cmp)
# and each process diagnosed its own block.
# timeout: 500
need_mpilens
launcher() {
    case $1 in
    openmpi) echo "mpirun.openmpi --oversubscribe -n $2" ;;
    mpich) echo "mpirun.mpich -n $2" ;;
    esac
}
dirs=""
for impl in openmpi mpich; do
    have_impl $impl || continue
    [ -x "$ROOT/build/bin/mpilens-mpi-$impl" ] || { soft_fail "$impl: build/bin/mpilens-mpi-$impl not built"; continue; }
    need_runtime $impl
    fs=$(prog $impl failsafe) || continue
    dl=$(prog $impl dl_cycle3) || continue
    for mode in segv kill exit abort fatal; do
        d=$TEST_TMP/$impl-$mode
        timeout -k 5 60 "$MPILENS" run -q --mpi=$impl -n 4 -o "$d" "$fs" $mode 2 >"$d.out" 2>&1
        check_rank_files "$d" 4 "$impl failsafe $mode" && dirs="$dirs $d"
    done
    d=$TEST_TMP/$impl-deadlock
    timeout -k 5 60 "$MPILENS" run -q --mpi=$impl --deadlock-timeout 1 -n 3 -o "$d" "$dl" >"$d.out" 2>&1
    check_rank_files "$d" 3 "$impl dl_cycle3" && dirs="$dirs $d"
done
[ -n "$dirs" ] || fail "no failed run recorded"

for d in $dirs; do
    name=${d#$TEST_TMP/}
    impl=${name%%-*}
    "$MPILENS" report -q --no-critical-path "$d" >"$d.serial.txt" 2>/dev/null
    "$MPILENS" report -q --json --no-critical-path "$d" >"$d.serial.json" 2>/dev/null
    # the runs failed as they should (what the serial diagnosis says)
    case $name in
    *-segv) want="signal SIGSEGV" ;;
    *-kill) want="killed (SIGKILL or the OOM killer)" ;;
    *-exit) want="exited with status 3 without calling MPI_Finalize" ;;
    *-abort) want="MPI_Abort called with error code 3" ;;
    *-fatal) want="MPI error MPI_ERR_RANK" ;;
    *-deadlock) want="stopped by the deadlock detector" ;;
    esac
    grep -q -F "$want" "$d.serial.txt" || { soft_fail "$name: the serial report does not say '$want'"; continue; }
    for n in 2 3; do
        for fmt in txt json; do
            opt=; [ $fmt = json ] && opt=--json
            out=$d.$n.$fmt
            MPILENS_SLICE_LOG=1 timeout 60 $(launcher $impl $n) "$MPILENS" report -q --no-critical-path $opt "$d" \
                >"$out" 2>"$out.err" || { soft_fail "$name: -n $n report $opt: exit $?: $(head -3 "$out.err")"; continue; }
            cmp -s "$d.serial.$fmt" "$out" ||
                soft_fail "$name: -n $n $opt differs from the serial report: $(diff "$d.serial.$fmt" "$out" | grep '^[<>]' | head -4 | tr '\n' ' ')"
            ! grep -q "process 0 analyses every rank" "$out.err" || soft_fail "$name: -n $n $opt: not sliced: $(grep note "$out.err")"
            # each process diagnosed its own block, the blocks the run's files once
            got=$(sed -n "s/^mpilens report: diagnosis: process \([0-9]\) of $n read//p" "$out.err" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
            assert_eq "$(cd "$d" && ls rank-*.mlt | sort | tr '\n' ' ')" "$got" "$name: -n $n $opt: rank files diagnosed by the processes"
            [ "$(grep -c "^mpilens report: diagnosis: process [0-9] of $n read" "$out.err")" = $n ] ||
                soft_fail "$name: -n $n $opt: not every process diagnosed its slice: $(grep -v '^mpilens report: process' "$out.err" | head -3)"
        done
        # the page: the serial one, its diagnosis made in slices
        [ -f "$d.serial.html" ] || "$MPILENS" view -q --no-critical-path -o "$d.serial.html" "$d" 2>/dev/null ||
            { soft_fail "$name: serial view failed"; continue; }
        v=$d.$n.html
        MPILENS_SLICE_LOG=1 timeout 60 $(launcher $impl $n) "$MPILENS" view -q --no-critical-path -o "$v" "$d" \
            >/dev/null 2>"$v.err" || { soft_fail "$name: -n $n view: exit $?: $(head -3 "$v.err")"; continue; }
        ! grep -q "process 0 reads every rank" "$v.err" || soft_fail "$name: -n $n view: not sliced: $(grep note "$v.err")"
        cmp -s "$d.serial.html" "$v" || soft_fail "$name: -n $n: the sliced page differs from the serial one: $(cmp "$d.serial.html" "$v")"
        got=$(sed -n "s/^mpilens view: diagnosis: process \([0-9]\) of $n read//p" "$v.err" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
        assert_eq "$(cd "$d" && ls rank-*.mlt | sort | tr '\n' ' ')" "$got" "$name: -n $n view: rank files diagnosed by the processes"
        [ "$(grep -c "^mpilens view: diagnosis: process [0-9] of $n read" "$v.err")" = $n ] ||
            soft_fail "$name: -n $n view: not every process diagnosed its slice: $(grep -v '^mpilens view: process' "$v.err" | head -3)"
    done
done
