# A child forked by rank 0 (tests/programs/pager_fork.c) goes on calling
# MPI_Comm_rank before and after its parent has finalized and exited, with
# the pager on (the default): the child must not die (it got SIGBUS when the
# parent's exit cut the rank file below the pool chunk the child had taken)
# and must not write into the parent's rank file (each rank's file holds
# exactly the MPI_Comm_rank calls the rank printed), while two threads per
# rank record through MPI_Finalize and exit.  Both MPIs, 2 ranks, and again
# with every step of the pager stretched by 500 us (MPILENS_PAGER_STRETCH_US).
# timeout: 180
need_mpilens
for impl in openmpi mpich; do
  for stretch in 0 500; do
    have_impl $impl || continue
    need_runtime $impl
    d=$TEST_TMP/$impl-$stretch
    mkdir -p "$d"
    res=$d/child.result
    export MPILENS_PAGER_STRETCH_US=$stretch
    rt_mpi $impl "$d/run" 2 "$(prog $impl pager_fork)" "$res" >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: pager_fork failed: $(head -c 300 "$d/err")"; continue; }
    unset MPILENS_PAGER_STRETCH_US
    wait_for_file "$res" 90 || { soft_fail "$impl: the forked child wrote no result in 90 s"; continue; }
    assert_eq "exit 0" "$(cat "$res")" "$impl: forked child's end"
    check_rank_files "$d/run" 2 "$impl" || continue
    "$MPILENS" dump "$d/run" >"$d/dump" 2>"$d/dump.err" ||
        { soft_fail "$impl: mpilens dump failed: $(head -c 300 "$d/dump.err")"; continue; }
    for r in 0 1; do
        want=$(sed -n "s/^rank $r: \([0-9]*\) MPI_Comm_rank calls$/\1/p" "$d/out")
        [ -n "$want" ] || { soft_fail "$impl: rank $r printed no count"; continue; }
        got=$(awk -v r=$r '$1 == r && $5 == "MPI_Comm_rank" { n += ($0 ~ /repeat=/) ? substr($0, index($0, "repeat=") + 7) + 0 : 1 } END { print n + 0 }' "$d/dump")
        assert_eq "$want" "$got" "$impl stretch=$stretch: rank $r MPI_Comm_rank calls in its rank file"
    done
  done
done
