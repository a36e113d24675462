# report_critpath_wide: a critical path through more ranks than the text
# lists.  cp_relay on 34 ranks (both MPIs, through `mpilens run`): rank 0
# sleeps 1 s and sends to rank 1, each rank receives from the one before,
# sleeps 5 ms (computation on the path) and sends on, so the run-time path
# visits every rank, 0 to 33, in order.  The text's "path time per rank"
# lists the 32 ranks with the most path time and says '... 2 more ranks on
# the path' (it listed all 34 before: at 1,024 ranks a thousand cells); with
# --all every rank 0-33 once; every line within 100 columns, none ending in
# a blank.
# timeout: 400
need_mpilens
for impl in openmpi mpich; do
    p=$(prog "$impl" cp_relay) || continue
    d=$TEST_TMP/$impl
    "$MPILENS" run -q --mpi="$impl" -n 34 -o "$d" "$p" >"$d.out" 2>"$d.err" ||
        { soft_fail "$impl: mpilens run failed: $(head -c 300 "$d.err")"; continue; }
    for all in "" --all; do
        "$MPILENS" report --critical-path $all "$d" >"$d.cp$all" 2>"$d.cp.err" ||
            { soft_fail "$impl: report --critical-path $all failed: $(head -c 300 "$d.cp.err")"; continue; }
        # the cells of the per-rank list: from its heading to the blank line
        cells=$(awk '/path time per rank/ { on = 1; next } on && /^$/ { exit } on' "$d.cp$all" |
                grep -o 'rank [0-9]* [0-9.]* [mu]*s ([0-9]*%)' | awk '{ print $2 }' | sort -n | tr '\n' ' ')
        n=$(echo $cells | wc -w)
        if [ -z "$all" ]; then
            assert_eq 32 "$n" "$impl: ranks listed by default"
            assert_contains "$(cat "$d.cp")" "    ... 2 more ranks on the path, " "$impl: the ranks not listed, counted"
        else
            assert_eq "$(seq 0 33 | tr '\n' ' ')" "$cells" "$impl --all: every rank once, in order"
        fi
        long=$(awk 'length > 100' "$d.cp$all" | head -2)
        [ -z "$long" ] || soft_fail "$impl $all: lines over 100 columns: $long"
        blank=$(grep -c ' $' "$d.cp$all")
        assert_eq 0 "$blank" "$impl $all: lines ending in a blank"
    done
    note "$impl: $(grep -m1 'the path:' "$d.cp")"
done
