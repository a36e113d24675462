# Fail-safe durability: with MPILENS_SYNC_INTERVAL=1 each rank file is
# fdatasync'd every second while the program runs, not only at exit: a 3 s
# run of live_compute (2 ranks, mpilens run) under strace shows one thread
# of each rank calling fdatasync on its rank file at least twice (the call
# at exit comes from another thread); with MPILENS_SYNC_INTERVAL=0, none.
# Both MPIs.
# timeout: 150
need_mpilens
command -v strace >/dev/null || fail "strace is not installed (./setup.sh deps installs it)"
for impl in openmpi mpich; do
    have_impl "$impl" || continue
    need_runtime "$impl"
    p=$(prog "$impl" live_compute) || continue
    for iv in 1 0; do
        d=$TEST_TMP/$impl-$iv
        MPILENS_SYNC_INTERVAL=$iv timeout -k 5 100 strace -f -qq -e signal=none -y -e trace=fdatasync -o "$d.strace" \
            "$MPILENS" run -q --mpi="$impl" -n 2 -o "$d" "$p" 1 >"$d.out" 2>"$d.err"
        rc=$?
        assert_eq 0 "$rc" "$impl MPILENS_SYNC_INTERVAL=$iv: exit status (strace, mpilens run)" || continue
        for r in 0 1; do
            f=$(printf 'rank-%05d.mlt' "$r")
            # per thread: its fdatasync calls on this rank's file ("unfinished" lines count, "resumed" not)
            most=$(grep -E "^[0-9]+ +fdatasync\([0-9]+<[^>]*/$f>" "$d.strace" | awk '{ n[$1]++ } END { m = 0; for (t in n) if (n[t] > m) m = n[t]; print m }')
            all=$(grep -cE "^[0-9]+ +fdatasync\([0-9]+<[^>]*/$f>" "$d.strace")
            if [ "$iv" = 1 ]; then
                [ "$most" -ge 2 ] || soft_fail "$impl rank $r: MPILENS_SYNC_INTERVAL=1, 3 s run: $most periodic fdatasync by one thread ($all in all), expected at least 2"
            else
                assert_eq 0 "$all" "$impl rank $r: fdatasync calls with MPILENS_SYNC_INTERVAL=0"
            fi
            note "$impl rank $r, MPILENS_SYNC_INTERVAL=$iv: $all fdatasync, at most $most by one thread"
        done
    done
done
