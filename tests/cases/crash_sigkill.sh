# A rank killed by SIGKILL loses nothing it recorded: rank 1 of
# tests/programs/killme.c makes exactly 1000 MPI_Comm_rank calls (plus the one
# for its own rank), says so in a file, then blocks in MPI_Recv; the test
# SIGKILLs it and, via mpilens dump, finds all 1001 MPI_Comm_rank calls in its
# rank file.  Open MPI and MPICH.
# timeout: 180
need_mpilens
for impl in openmpi mpich; do
    p=$(prog "$impl" killme) || continue
    need_runtime "$impl"
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    ( cd "$d" && exec bash -c '. "$LIB"; rt_mpi "$@"' _ "$impl" "$d/run" 2 "$p" "$d/done" 1000 ) >"$d/out" 2>"$d/err" &
    job=$!
    if ! wait_for_file "$d/done" 60; then
        soft_fail "$impl: rank 1 did not report its 1000 calls within 60 s: $(head -c 300 "$d/err")"
        kill_tree $job
        wait $job 2>/dev/null
        continue
    fi
    victim=$(cat "$d/done")
    note "$impl: killing rank 1, pid $victim"
    kill -KILL "$victim"
    if ! wait_pid $job 30; then
        note "$impl: the launcher did not exit 30 s after the kill; killing it"
        kill_tree $job
        wait $job 2>/dev/null
    fi
    f=$d/run/rank-00001.mlt
    [ -s "$f" ] || { soft_fail "$impl: $f missing"; continue; }
    if ! "$MPILENS" dump "$d/run" --rank 1 >"$d/dump.txt" 2>"$d/dump.err"; then
        soft_fail "$impl: mpilens dump --rank 1 failed on the killed rank's file: $(head -c 300 "$d/dump.err")"
        continue
    fi
    n=$(count_calls "$d/dump.txt" 1 MPI_Comm_rank)
    assert_eq 1001 "$n" "$impl: MPI_Comm_rank calls recorded for the killed rank 1"
    n=$(count_calls "$d/dump.txt" 1 MPI_Init)
    assert_eq 1 "$n" "$impl: MPI_Init recorded for the killed rank 1"
done
