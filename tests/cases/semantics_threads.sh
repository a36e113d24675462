# MPI_THREAD_MULTIPLE: MPI_Init_thread's provided level, Query_thread,
# Is_thread_main, and 4 threads per rank ping-ponging on their own tags and
# running collectives on their own communicators (tests/programs/sem_thread.c):
# identical with and without the runtime, both MPIs, 2 and 4 ranks.  Then, via
# mpilens dump, at least 4 distinct thread ids recorded for rank 0, and all
# 800 of its sends (4 threads x 200 iterations, one send call each).
# timeout: 300
same_everywhere sem_thread
need_mpilens
for d in "$TEST_TMP"/*-sem_thread; do
    [ -d "$d/run" ] || continue
    if ! "$MPILENS" dump "$d/run" --rank 0 >"$d/dump.txt" 2>"$d/dump.err"; then
        soft_fail "$(basename "$d"): mpilens dump failed: $(head -c 300 "$d/dump.err")"
        continue
    fi
    threads=$(awk '!/^#/ && $1 == 0 { print $2 }' "$d/dump.txt" | sort -u | wc -l)
    [ "$threads" -ge 4 ] || soft_fail "$(basename "$d"): rank 0 events from $threads distinct threads, expected >= 4"
    # every worker's sends and receives are there: 4 threads x 200 iterations
    sends=$(awk '!/^#/ && $1 == 0 && ($5 == "MPI_Send" || $5 == "MPI_Isend" || $5 == "MPI_Sendrecv")' "$d/dump.txt" | wc -l)
    [ "$sends" -eq 800 ] || soft_fail "$(basename "$d"): rank 0 has $sends send events, expected 800"
done
