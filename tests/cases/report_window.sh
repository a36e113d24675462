# report --from/--to outside the run (tests/programs/nbc_wait.c, 3 ranks,
# both MPIs): --from past the run's last call and --to 0 are bad input (a
# one-line error, exit 2); a --to that ends before every rank's MPI_Init
# ended (1 us) leaves an empty critical-path window, said as such, with no
# path of zeros.  Before: "window 100.000 s to 1.332 s after the first call"
# and "321.60 ms to 1.0 us", each with a table of zeros ending "on rank 0".
# The window is the critical path's only: with --no-critical-path, --from is
# bad input (before: ignored in silence), and the text report says that its
# other sections cover the whole run (before: nothing told a user asking for
# --from 0.1 that the routine table still held the whole run).
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl nbc_wait) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 3 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: exit status $?: $(head -3 "$d/err" | tr '\n' ' ')"; continue; }
    for bad in "--from 1000" "--to 0" "--from 1000 --to 2000" "--no-critical-path --from 0.01"; do
        # shellcheck disable=SC2086
        "$MPILENS" report --critical-path $bad "$d/run" >"$d/bad.out" 2>"$d/bad.err"
        rc=$?
        assert_eq 2 "$rc" "$impl: exit status of report $bad"
        [ "$(wc -l <"$d/bad.err")" = 1 ] && grep -q '^mpilens report: --' "$d/bad.err" ||
            soft_fail "$impl: report $bad: not one error line: $(head -c 300 "$d/bad.err" | tr '\n' '|')"
        if [ -s "$d/bad.out" ]; then soft_fail "$impl: report $bad wrote a report: $(head -c 200 "$d/bad.out" | tr '\n' '|')"; fi
    done
    "$MPILENS" report -q --from 0.01 "$d/run" >"$d/from.out" 2>"$d/from.err" ||
        soft_fail "$impl: report --from 0.01: exit status $?: $(head -c 300 "$d/from.err")"
    grep -q '^  window     --from/--to limit the critical path and wait states only' "$d/from.out" ||
        soft_fail "$impl: report --from 0.01 does not say the window is the critical path's only"
    "$MPILENS" report --help | grep -q "the critical path's window" ||
        soft_fail "report --help does not say --from/--to are the critical path's window"
    "$MPILENS" report --critical-path --to 0.000001 "$d/run" >"$d/early.out" 2>"$d/early.err" ||
        soft_fail "$impl: report --to 0.000001: exit status $?: $(head -c 300 "$d/early.err")"
    grep -q '^  window     empty: ' "$d/early.out" ||
        soft_fail "$impl: --to 0.000001: window not said empty: $(grep -m1 '^  window' "$d/early.out")"
    if grep -q 'run time on its path' "$d/early.out"; then
        soft_fail "$impl: --to 0.000001: a path in an empty window: $(grep -m1 'run time on its path' "$d/early.out")"
    fi
done
