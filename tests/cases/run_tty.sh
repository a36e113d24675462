# mpilens run on a terminal, both MPIs: the live table in place at the bottom
# of the terminal while the program's output scrolls above it, under the pty
# of script(1) (util-linux; 30 rows, 120 columns).  The program
# (tests/programs/live_print) prints numbered lines during the run (rank 0
# only: MPICH's launcher on a terminal splits the lines of two ranks into
# each other by itself) and returns status 3 from rank 0:
#  - the table was drawn in place (a scroll region set, and reset at the end);
#  - every line the program printed is in the captured output, whole;
#  - after the run: the final table and the one-line summary
#    "mpilens: exit status N; ...";
#  - mpilens run's exit status is the program's (the plain run's).
# timeout: 240
need_mpilens
command -v script >/dev/null || fail "script (util-linux) is not installed"
N=20
for impl in openmpi mpich; do
    have_impl "$impl" || continue
    need_runtime "$impl"
    p=$(prog "$impl" live_print) || continue
    run_mpi "$impl" 2 "$p" 2 3 >/dev/null 2>&1
    want=$?
    [ "$want" = 3 ] || note "$impl: the plain run's exit status is $want (the program returns 3)"
    d=$TEST_TMP/$impl ts=$TEST_TMP/$impl.typescript
    TERM=xterm timeout -k 5 120 script -qfec \
        "stty rows 30 cols 120; exec '$MPILENS' run --mpi=$impl -n 2 -o '$d' --interval 0.2 '$p' $N 3" \
        "$ts" >/dev/null 2>&1 </dev/null
    rc=$?
    assert_eq "$want" "$rc" "$impl: mpilens run exit status under a terminal"
    [ -s "$ts" ] || { soft_fail "$impl: nothing captured"; continue; }
    grep -aqP '\x1b\[1;\d+r' "$ts" || soft_fail "$impl: no scroll region set: the table was not drawn in place"
    grep -aqP '\x1b\[r' "$ts" || soft_fail "$impl: the scroll region was not reset at the end"
    # every line of the program, whole (the table's escape sequences may
    # precede it on the same captured line, never split it)
    txt=$(tr -d '\r' <"$ts")
    missing=""
    for ((k = 1; k <= N; k++)); do
        echo "$txt" | grep -aqE "live_print line $k(\$|[^0-9])" || missing="$missing $k"
    done
    [ -z "$missing" ] || soft_fail "$impl: program lines missing from the terminal:$missing"
    # the final table and the summary, after the scroll region was given back
    tail=$(printf '%s' "$txt" | awk 'BEGIN { RS = "\033\\[r" } { last = $0 } END { print last }')
    assert_contains "$tail" "mpilens top $d: 2 ranks: 2 finalized" "$impl: final table"
    assert_contains "$tail" "WHO  WHAT" "$impl: final table"
    assert_contains "$tail" "mpilens: exit status $want; 2 rank files in $d/" "$impl: summary line"
    note "$impl: exit $rc, $(echo "$txt" | grep -ac 'live_print line') program lines captured"
done
# The table shrinking (three groups, then one) while the program prints
# (tests/programs/live_shrink, 4 ranks): replayed on a screen
# (tests/vtscreen.py), every line of the program is on it (scrollback and
# screen) byte for byte, nothing of an old table glued to it or left
# behind: the only table header is the final table's.
for impl in openmpi mpich; do
    have_impl "$impl" || continue
    p=$(prog "$impl" live_shrink) || continue
    d=$TEST_TMP/shrink-$impl ts=$TEST_TMP/shrink-$impl.typescript
    TERM=xterm timeout -k 5 120 script -qfec \
        "stty rows 30 cols 120; exec '$MPILENS' run --mpi=$impl -n 4 -o '$d' --interval 0.1 '$p' 15" \
        "$ts" >/dev/null 2>&1 </dev/null
    rc=$?
    assert_eq 0 "$rc" "$impl: live_shrink under mpilens run on a terminal: exit status"
    screen=$(python3 "$ROOT/tests/vtscreen.py" "$ts" 30 120 2>"$ts.regions") ||
        { soft_fail "$impl: vtscreen.py failed on $ts"; continue; }
    # the table shrank: a scroll region with a larger bottom after a smaller one
    awk '{ for (i = 2; i <= NF; i++) { split($i, a, ";"); if (a[2] > 0 && prev && a[2] > prev && a[2] < 30) s = 1; prev = a[2] } } END { exit !s }' "$ts.regions" ||
        soft_fail "$impl: the table never shrank (scroll regions: $(head -c 300 "$ts.regions")): nothing tested"
    bad=$(echo "$screen" | grep -a 'live_shrink line' | grep -avE '^live_shrink line [0-9]+$' | head -3)
    [ -z "$bad" ] || soft_fail "$impl: program lines with something glued to them: $bad"
    got=$(echo "$screen" | grep -aE '^live_shrink line [0-9]+$' | sed 's/.* //' | tr '\n' ' ')
    assert_eq "$(seq 1 30 | tr '\n' ' ')" "$got" "$impl: the program's lines on the screen, in order"
    n=$(echo "$screen" | grep -ac 'WHO  WHAT')
    assert_eq 1 "$n" "$impl: table headers on the screen and in the scrollback (the final table's only)"
    n=$(echo "$screen" | grep -ac '^mpilens top .*: 4 ranks')
    assert_eq 1 "$n" "$impl: table title lines left on the screen and in the scrollback"
done
