# The run directory on a 3 MiB tmpfs that the rank file fills early: 1 rank
# making 300,000 MPI_Comm_rank calls (tests/programs/rec_many.c) end
# normally (no SIGBUS, no hang, same output as without the runtime), and the
# rank file says how many calls it could not record: recorded (mpilens dump)
# plus dropped equals the calls the rank made, and the report says so.  With
# the pager (default) and without (MPILENS_PAGER=0), both MPIs.
# timeout: 240
need_mpilens
trap 'for m in "$TEST_TMP"/*/fs; do umount "$m" 2>/dev/null; done' EXIT
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    for pager in 1 0; do
        d=$TEST_TMP/$impl-$pager
        mkdir -p "$d/fs"
        if ! mount -t tmpfs -o size=3m tmpfs "$d/fs" 2>"$d/mount.err"; then
            fail "cannot mount a 3 MiB tmpfs (needs root): $(head -c 200 "$d/mount.err")"
        fi
        export MPILENS_PAGER=$pager
        rt_mpi $impl "$d/fs/run" 1 "$(prog $impl rec_many)" 300000 >"$d/out" 2>"$d/err"
        rc=$?
        unset MPILENS_PAGER
        assert_eq 0 "$rc" "$impl pager=$pager: exit status (stderr: $(head -c 300 "$d/err"))"
        assert_eq 1 "$(grep -c '^rank 0: 300004 calls$' "$d/out")" "$impl pager=$pager: program output"
        cp -r "$d/fs/run" "$d/run"
        umount "$d/fs"
        "$MPILENS" dump "$d/run" >"$d/dump" 2>"$d/dump.err" ||
            { soft_fail "$impl pager=$pager: mpilens dump failed: $(head -c 300 "$d/dump.err")"; continue; }
        for r in 0; do
            rec=$(awk -v r=$r '$1 == r' "$d/dump" | wc -l)
            drop=$(sed -n "s/^# rank $r dropped: \([0-9]*\) calls not recorded.*/\1/p" "$d/dump")
            [ -n "$drop" ] || { soft_fail "$impl pager=$pager: rank $r: no dropped count (recorded $rec)"; continue; }
            assert_eq 300004 $((rec + drop)) "$impl pager=$pager: rank $r recorded ($rec) + dropped ($drop)"
        done
        "$MPILENS" report "$d/run" >"$d/report" 2>"$d/report.err"
        # (the report wraps its input problems at 100 columns: where depends
        # on the path's length, so the words are compared with the lines joined)
        assert_contains "$(tr -s ' \n' '  ' <"$d/report")" "were not recorded (the disk was full or stalled)" "$impl pager=$pager: report"
    done
done
