# Where each rank's pager thread runs (named mpilens-pager, as ps -L and
# top -H show it): mpilens run --pager-cpus=LIST moves it to those CPUs,
# without it the pager keeps those its process started with; a bad list exits 2 before
# anything starts, and a bad MPILENS_PAGER_CPUS given to the runtime by hand
# makes it warn and go on recording.  3 ranks of ok_sleep (ranks 0-1 wait
# about 3 s in MPI_Allreduce, when the threads are looked at), both MPIs.
# timeout: 180
need_mpilens
last=$(($(nproc) - 1))
[ "$last" -ge 1 ] || fail "needs 2 CPUs or more (nproc says $(nproc))"

# pagers DIR: "tid cpus" of every mpilens-pager thread of the ranks
# recording into DIR, then "main cpus" of their main threads
pagers() {
    local p t
    for p in /proc/[0-9]*; do
        tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qx "MPILENS_DIR=$1" || continue
        [ "$(cat "$p/comm" 2>/dev/null)" != mpilens ] || continue
        # (the launcher's processes have the variable too, and no pager)
        for t in "$p"/task/*; do
            if [ "$(cat "$t/comm" 2>/dev/null)" = mpilens-pager ]; then
                echo "pager $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status")"
                echo "main $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$p/status")"
            fi
        done
    done
}

# watch IMPL DIR [run options]: run ok_sleep and print pagers() once three
# pagers are up
watch() {
    local impl=$1 dir=$2 seen=
    shift 2
    "$MPILENS" run -q --mpi="$impl" "$@" -n 3 -o "$dir" "$(prog "$impl" ok_sleep)" >"$dir.out" 2>"$dir.err" &
    local pid=$!
    for _ in $(seq 1 60); do
        sleep 0.1
        seen=$(pagers "$dir")
        [ "$(grep -c '^pager ' <<<"$seen")" -ge 3 ] && break
    done
    wait $pid || soft_fail "$impl: mpilens run $* exited $? ($(head -c 300 "$dir.err"))"
    echo "$seen"
}

for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    # moved
    seen=$(watch $impl "$TEST_TMP/$impl-moved" --pager-cpus=$last)
    assert_eq 3 "$(grep -c '^pager ' <<<"$seen")" "$impl --pager-cpus=$last: pager threads of 3 ranks ($seen)"
    assert_eq 0 "$(grep '^pager ' <<<"$seen" | grep -vcx "pager $last")" \
        "$impl --pager-cpus=$last: pagers on CPU $last ($seen)"
    # not moved: the pager keeps the CPUs its process started with (Open
    # MPI binds the thread that calls MPI_Init, after the pager started)
    seen=$(watch $impl "$TEST_TMP/$impl-stays")
    assert_eq 3 "$(grep -c '^pager ' <<<"$seen")" "$impl default: pager threads of 3 ranks ($seen)"
    all=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
    assert_eq 0 "$(grep '^pager ' <<<"$seen" | grep -vcx "pager $all")" "$impl default: pagers on CPUs $all ($seen)"
    # a bad list in the environment: a warning, and the run recorded
    d=$TEST_TMP/$impl-badenv
    MPILENS_PAGER_CPUS=2-x mpilens_run $impl "$d" 1 "$(prog $impl rec_many)" 1000 >"$d.out" 2>"$d.err"
    rc=$?
    # (mpilens run -q keeps the runtime's warnings out: run it by hand)
    MPILENS_PAGER_CPUS=2-x rt_mpi $impl "$d-rt" 1 "$(prog $impl rec_many)" 1000 >"$d-rt.out" 2>"$d-rt.err"
    assert_eq 0 $? "$impl MPILENS_PAGER_CPUS=2-x: exit status ($(head -c 300 "$d-rt.err"))"
    assert_contains "$(cat "$d-rt.err")" "MPILENS_PAGER_CPUS='2-x' is not a list of CPUs" "$impl: the runtime's warning"
    check_rank_files "$d-rt" 1 "$impl MPILENS_PAGER_CPUS=2-x"
    assert_eq 0 "$rc" "$impl mpilens run with MPILENS_PAGER_CPUS=2-x: exit status"
done

# a bad list on the command line: one line, exit 2, nothing started
out=$("$MPILENS" run --pager-cpus=3-1 -o "$TEST_TMP/bad" /bin/true 2>&1)
assert_eq 2 $? "--pager-cpus=3-1: exit status"
assert_eq 1 "$(wc -l <<<"$out")" "--pager-cpus=3-1: one line ($out)"
assert_contains "$out" "--pager-cpus wants a list of CPUs" "--pager-cpus=3-1"
[ ! -e "$TEST_TMP/bad" ] || soft_fail "--pager-cpus=3-1 created the run directory"
