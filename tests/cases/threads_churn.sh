# 300 short-lived threads per rank, 6 at a time, each making MPI calls
# (tests/programs/sem_churn.c): same output with and without the runtime, both
# MPIs; via mpilens dump every one of the 300 MPI_Sendrecv calls of each rank
# is recorded.
# timeout: 240
SIZES=2 same_everywhere sem_churn 300
need_mpilens
for d in "$TEST_TMP"/*-sem_churn; do
    [ -d "$d/run" ] || continue
    if ! "$MPILENS" dump "$d/run" >"$d/dump.txt" 2>"$d/dump.err"; then
        soft_fail "$(basename "$d"): mpilens dump failed: $(head -c 300 "$d/dump.err")"
        continue
    fi
    for r in 0 1; do
        n=$(count_calls "$d/dump.txt" $r MPI_Sendrecv)
        assert_eq 300 "$n" "$(basename "$d"): rank $r MPI_Sendrecv events"
    done
done
