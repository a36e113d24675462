# Communicator and datatype handles freed and created again
# (tests/programs/reuse.c, 4 ranks, both MPIs): via mpilens dump, each send
# on a re-created communicator names the right world rank (peer=), and each
# send of a re-created datatype the right size (bytes=).
need_mpilens
for impl in openmpi mpich; do
    same_with_runtime "$impl" 4 reuse || [ -d "$LAST_RUN/run" ] || continue
    d=$LAST_RUN
    note "$impl: $(cat "$d/rt.out")"
    "$MPILENS" dump "$d/run" --rank 0 2>"$d/dump.err" | grep -av '^#' >"$d/ev.txt" ||
        { soft_fail "$impl: mpilens dump failed: $(head -c 200 "$d/dump.err")"; continue; }
    for i in 0 1 2 3 4 5 6 7; do
        if [ $((i % 2)) = 0 ]; then want=2; else want=1; fi
        e=$(awk -v t="tag=$((100 + i))" '$5 == "MPI_Send" && (" " $0 " ") ~ (" " t " ")' "$d/ev.txt" | head -1)
        [[ " $e " == *" peer=$want "* ]] ||
            soft_fail "$impl: send $i on a re-created communicator ($([ $want = 2 ] && echo reversed || echo in order)): expected peer=$want: ${e:-no such event}"
    done
    j=0
    for n in 1 5 2 7 3 6; do
        e=$(awk -v t="tag=$((200 + j))" '$5 == "MPI_Send" && (" " $0 " ") ~ (" " t " ")' "$d/ev.txt" | head -1)
        [[ " $e " == *" bytes=$((4 * n)) "* ]] ||
            soft_fail "$impl: send of re-created datatype $j (contiguous $n ints): expected bytes=$((4 * n)): ${e:-no such event}"
        j=$((j + 1))
    done
done
