# mpilens run [-n N] [-o DIR] ./prog args: for a program built with Open MPI
# and one built with MPICH, the program's output is what it prints without
# mpilens, one rank file per rank lands in DIR and dumps; the program's exit
# status comes back; without -o the run directory is mpilens-<prog>-<id>/ in
# the current directory; -n 4 works on a 2-core machine.
# timeout: 240
need_mpilens
for impl in openmpi mpich; do
    p=$(prog "$impl" sem_p2p) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d/default"
    (cd "$d" && run_mpi "$impl" 2 "$p") >"$d/plain.out" 2>"$d/plain.err"
    (cd "$d" && timeout 100 "$MPILENS" run -n 2 -o "$d/trace" "$p") >"$d/run.out" 2>"$d/run.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        soft_fail "$impl: mpilens run -n 2 -o DIR sem_p2p: exit $rc: $(head -c 300 "$d/run.err" | tr '\n' ' ')"
        continue
    fi
    cmp -s "$d/plain.out" "$d/run.out" ||
        soft_fail "$impl: output under mpilens run differs: $(diff "$d/plain.out" "$d/run.out" | grep -m3 '^[<>]' | tr '\n' ' ' | head -c 300)"
    check_rank_files "$d/trace" 2 "$impl: mpilens run -o"
    n=$(count_events "$d/trace")
    [ "$n" -gt 50 ] || soft_fail "$impl: only $n events in the run directory of mpilens run"
    # exit status
    q=$(prog "$impl" sem_init) || continue
    (cd "$d" && timeout 100 "$MPILENS" run -n 2 -o "$d/trace7" "$q" init 7) >/dev/null 2>&1
    assert_eq 7 $? "$impl: exit status through mpilens run of a program exiting 7"
    # default directory, 4 ranks
    (cd "$d/default" && timeout 100 "$MPILENS" run -n 4 "$p") >"$d/default.out" 2>"$d/default.err"
    rc=$?
    assert_eq 0 "$rc" "$impl: mpilens run -n 4 sem_p2p (no -o) exit status"
    dirs=$(cd "$d/default" && ls -d mpilens-sem_p2p-* 2>/dev/null | head -1)
    if [ -z "$dirs" ]; then
        soft_fail "$impl: no mpilens-sem_p2p-<id>/ directory made by mpilens run without -o ($(ls "$d/default" | tr '\n' ' '))"
    else
        check_rank_files "$d/default/$dirs" 4 "$impl: mpilens run -n 4"
    fi
done
